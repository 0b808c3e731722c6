"""Zero-downtime reload (api/reload.py, api/serving.py, kg/reload.py): a running server picks up a
newly built artifact on SIGHUP or POST /admin/reload, requests in flight finish on the old one,
every response names the version, and a damaged new artifact is refused.

Artifacts are built from a copy of the real corpus with the hashing encoder (fast) and caches of
the test's own, seeded with the unedited corpus's refusal model (the one the session's
``hash_artifact`` build fitted: tests/refusal_cache.py); an edit changes one definition of
``kv-cache``.
"""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import Request

from api.app import create_app
from api.deps import GlossaryDep, get_glossary
from api.reload import current, pinned
from api.settings import Settings
from kg.bench.http_load import free_port, wait_ready
from kg.build import default_corpus_dir
from kg.rebuild import Builder
from kg.verify import resolve_artifact
from tests.api.live_server import serve
from tests.refusal_cache import seed_refusal_cache

REPO = Path(__file__).resolve().parents[2]
TOKEN = "test-admin-token"
SOURCE_004 = "sources/004_750e9e8b9e1cc67f.txt"
ORIGINAL = "上下文越长,KV Cache 占用的显存越多。"


class Corpus:
    """A copy of the bundled corpus, built into ``artifact`` by a warm Builder."""

    def __init__(self, root: Path) -> None:
        import shutil

        self.dir = root / "corpus"
        shutil.copytree(default_corpus_dir(), self.dir, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
        self.artifact = root / "artifact"
        self.builder = Builder(self.dir, self.artifact, "hash:64")
        self.edits = 0

    def edit_and_build(self) -> str:
        """Change kv-cache's definition (a new clause each time), rebuild; returns the new clause."""
        self.edits += 1
        clause = f"(第 {self.edits} 次修订)"
        path = self.dir / SOURCE_004
        text = path.read_text(encoding="utf-8")
        assert ORIGINAL in text or "次修订)" in text
        head, _, tail = text.partition("上下文越长,KV Cache 占用的显存越多")
        tail = tail[tail.index("。") :]
        path.write_text(f"{head}上下文越长,KV Cache 占用的显存越多{clause}{tail}", encoding="utf-8")
        self.builder.build("carry")
        return clause


def built_corpus(tmp_path_factory: pytest.TempPathFactory, name: str, seed: Path) -> Iterator[Corpus]:
    """A :class:`Corpus` built once, with caches of its own (XDG_CACHE_HOME restored after) that
    hold the refusal model of *seed* (``hash_artifact``: the same corpus and encoder), so that
    the first build reads it rather than fitting it again."""
    root = tmp_path_factory.mktemp(name)
    saved = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(root / "cache")
    seed_refusal_cache(seed)
    c = Corpus(root)
    c.builder.build("fit")
    yield c
    if saved is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = saved


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory, hash_artifact: Path) -> Iterator[Corpus]:
    yield from built_corpus(tmp_path_factory, "reload", hash_artifact)


def _kv_definition(body: dict[str, Any]) -> str:
    return " ".join(d["text"] for d in body["definitions"] if d["source"] == "004")


# --- the admin endpoint's guard (in process) --------------------------------------------------


def test_no_admin_endpoint_without_a_token(make_client: Any, assert_error: Any) -> None:
    client = make_client()
    details = assert_error(client.post("/admin/reload"), 404, "not_found")
    assert details == {"path": "/admin/reload"}
    assert "/admin/reload" not in client.get("/openapi.json").json()["paths"]


@pytest.mark.parametrize(
    ("authorization", "status", "code"),
    [
        (None, 401, "unauthorized"),
        ("Bearer", 401, "unauthorized"),
        (f"Basic {TOKEN}", 401, "unauthorized"),
        ("Bearer wrong-token", 403, "forbidden"),
        (f"Bearer {TOKEN}x", 403, "forbidden"),
        (f"Bearer {TOKEN[:-1]}", 403, "forbidden"),
    ],
)
def test_admin_token_missing_or_wrong(
    make_client: Any, assert_error: Any, authorization: str | None, status: int, code: str
) -> None:
    client = make_client(admin_token=TOKEN)
    headers = {"Authorization": authorization} if authorization is not None else {}
    resp = client.post("/admin/reload", headers=headers)
    assert_error(resp, status, code)
    if status == 401:
        assert resp.headers["WWW-Authenticate"].startswith("Bearer")
    assert TOKEN not in resp.text


def test_every_response_names_the_version(make_client: Any) -> None:
    client = make_client()
    tags = {client.get(p).headers["X-Glossary-Version"] for p in ("/readyz", "/v1/terms/vllm", "/v1/nope")}
    assert len(tags) == 1 and len(tags.pop()) == 16


# --- a request in flight keeps its artifact (real server on loopback, in process) --------------


def test_a_request_in_flight_finishes_on_the_old_artifact(corpus: Corpus) -> None:
    app = create_app(
        Settings(artifact_dir=corpus.artifact, admin_token=TOKEN, sessions="memory", warm_up=False)
    )
    entered, release = threading.Event(), threading.Event()

    def hold(request: Request, glossary: GlossaryDep) -> dict[str, Any]:
        """Reads the graph, waits (a reload happens meanwhile), reads it again."""
        before = glossary.terms["kv-cache"].definitions
        entered.set()
        assert release.wait(30)
        after = get_glossary(request).terms["kv-cache"].definitions
        return {
            "before": " ".join(d.text for d in before),
            "after": " ".join(d.text for d in after),
            "tag": pinned(request).tag,
        }

    app.add_api_route("/test/hold", hold)
    with serve(app) as base:
        old = httpx.get(f"{base}/readyz").json()["version"]
        old_artifact = weakref.ref(current(app))
        result: dict[str, Any] = {}
        held = threading.Thread(
            target=lambda: result.setdefault("resp", httpx.get(f"{base}/test/hold", timeout=60))
        )
        held.start()
        assert entered.wait(30)
        clause = corpus.edit_and_build()
        reloaded = httpx.post(
            f"{base}/admin/reload", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60
        )
        assert reloaded.status_code == 200, reloaded.text
        body = reloaded.json()
        assert body["status"] == "reloaded" and body["previous"] == old and body["version"] != old
        # new requests see the new artifact at once …
        fresh = httpx.get(f"{base}/v1/terms/kv-cache")
        assert fresh.headers["X-Glossary-Version"] == body["version"] and clause in _kv_definition(
            fresh.json()
        )
        # … while the one in flight finishes on the old one, graph and header alike
        release.set()
        held.join(30)
        resp = result["resp"]
        assert resp.status_code == 200
        assert resp.headers["X-Glossary-Version"] == old
        out = resp.json()
        assert out["tag"] == old and out["before"] == out["after"] and clause not in out["after"]
        # and once it has finished, nothing keeps the old artifact alive
        deadline = time.monotonic() + 10
        while old_artifact() is not None and time.monotonic() < deadline:
            gc.collect()
            time.sleep(0.1)
        assert old_artifact() is None


# --- glossary serve, in its own process ----------------------------------------------------------


def _start(corpus: Corpus, workers: int, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    cmd = [sys.executable, "-m", "kg.cli", "serve", "--artifact", str(corpus.artifact), "--port", str(port)]
    proc = subprocess.Popen(
        [*cmd, "--workers", str(workers)],
        cwd=REPO,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    wait_ready(base + "/readyz", proc, timeout=120)
    return proc, base


def _stop(proc: subprocess.Popen[bytes]) -> str:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
    return proc.stderr.read().decode(errors="replace") if proc.stderr else ""


def _versions(base: str, n: int = 16) -> set[str]:
    """The versions n requests on fresh connections see (with several workers, each connection
    may land on any of them)."""
    return {httpx.get(base + "/readyz", timeout=10).headers["X-Glossary-Version"] for _ in range(n)}


def _wait_for_version(base: str, version: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while (seen := _versions(base)) != {version}:
        assert time.monotonic() < deadline, f"still serving {seen}, waiting for {version}"
        time.sleep(0.1)


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_sighup_reloads_every_worker_and_tags_change(corpus: Corpus, workers: int) -> None:
    proc, base = _start(corpus, workers, {})
    try:
        (old,) = _versions(base)
        term = httpx.get(base + "/v1/terms/kv-cache")
        other = httpx.get(base + "/v1/terms/vllm")
        export = httpx.get(base + "/v1/export", params={"format": "tbx"})
        assert term.headers["X-Glossary-Version"] == export.headers["X-Glossary-Version"] == old
        assert "/admin/reload" not in httpx.get(base + "/openapi.json").json()["paths"]  # no token set

        clause = corpus.edit_and_build()
        new = (resolve_artifact(corpus.artifact) / "manifest.json").read_text(encoding="utf-8")
        os.kill(proc.pid, signal.SIGHUP)
        expected = next(line.split('"')[3] for line in new.splitlines() if '"content_sha256"' in line)[:16]
        _wait_for_version(base, expected)
        assert proc.poll() is None and expected != old

        term2 = httpx.get(base + "/v1/terms/kv-cache")
        assert clause in _kv_definition(term2.json()) and term2.headers["ETag"] != term.headers["ETag"]
        assert httpx.get(base + "/v1/terms/vllm").headers["ETag"] == other.headers["ETag"]  # same body
        export2 = httpx.get(base + "/v1/export", params={"format": "tbx"})
        assert export2.headers["ETag"] != export.headers["ETag"] and clause in export2.text
        # a cache holding the old tag is told the export changed
        assert (
            httpx.get(
                base + "/v1/export",
                params={"format": "tbx"},
                headers={"If-None-Match": export.headers["ETag"]},
            ).status_code
            == 200
        )
        ready = httpx.get(base + "/readyz").json()
        assert ready["artifact"]["generation"] == 2 and ready["version"] == expected
    finally:
        log = _stop(proc)
    assert "reload requested (SIGHUP)" in log or workers == 1


@pytest.mark.slow
def test_admin_reload_and_a_broken_artifact_is_refused(corpus: Corpus, assert_error: Any) -> None:
    proc, base = _start(corpus, 2, {"GLOSSARY_ADMIN_TOKEN": TOKEN})
    auth = {"Authorization": f"Bearer {TOKEN}"}
    try:
        (old,) = _versions(base)
        unchanged = httpx.post(base + "/admin/reload", headers=auth, timeout=60).json()
        assert unchanged["status"] == "unchanged" and unchanged["version"] == old

        clause = corpus.edit_and_build()
        body = httpx.post(base + "/admin/reload", headers=auth, timeout=60).json()
        assert body["status"] == "reloaded" and body["previous"] == old and body["all_workers_reloaded"]
        assert len(body["workers"]) == 2 and {w["content_sha256"][:16] for w in body["workers"]} == {
            body["version"]
        }
        assert _versions(base) == {body["version"]}  # the answer comes once every worker serves it
        assert clause in _kv_definition(httpx.get(base + "/v1/terms/kv-cache").json())

        # a new build damaged after publishing: refused, the old one keeps serving
        corpus.edit_and_build()
        broken = resolve_artifact(corpus.artifact) / "search" / "engine.json"
        broken.write_text(broken.read_text(encoding="utf-8") + " ", encoding="utf-8")
        details = assert_error(
            httpx.post(base + "/admin/reload", headers=auth, timeout=60), 409, "artifact_refused"
        )
        assert details["problems"][0]["file"] == "search/engine.json"
        os.kill(proc.pid, signal.SIGHUP)
        time.sleep(1.0)
        assert proc.poll() is None and _versions(base) == {body["version"]}
        assert httpx.get(base + "/v1/search", params={"q": "kv cache"}).status_code == 200
        assert clause in _kv_definition(httpx.get(base + "/v1/terms/kv-cache").json())
    finally:
        log = _stop(proc)
    assert "reload refused" in log
