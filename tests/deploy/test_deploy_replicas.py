"""Two real `glossary serve` replicas behind a real nginx, sessions in a real redis-server, all on
loopback and started here (kg/deploy/local.py): requests reach both replicas, a conversation's
turns alternate replicas and keep their context, a reload reaches every replica, bad input gets
the one error body (from the replicas and from nginx), and a stopped replica costs no request.

The artifact is a copy of the bundled corpus built with the hashing encoder (tests/api/test_api_reload.py's
``Corpus``), so that a reload can serve a really edited version.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from kg.deploy.local import REPLICA_HEADER, LocalDeployment
from tests.api.conftest import _assert_error as assert_error
from tests.api.test_api_chat_sessions import TPOT, TTFT, TURN_1, TURN_2, TURN_3
from tests.api.test_api_reload import Corpus, built_corpus
from tests.deploy.deploy_helpers import need_nginx_and_redis

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow
TOKEN = "deploy-test-token"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory, hash_artifact: Path) -> Iterator[Corpus]:
    need_nginx_and_redis()
    yield from built_corpus(tmp_path_factory, "deploy", hash_artifact)


@pytest.fixture(scope="module")
def deployment(corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalDeployment]:
    run_dir = tmp_path_factory.mktemp("run")
    with LocalDeployment(
        corpus.artifact, replicas=2, run_dir=run_dir, env={"GLOSSARY_ADMIN_TOKEN": TOKEN}
    ) as d:
        yield d


def replica_of(resp: httpx.Response) -> str:
    name = resp.headers.get(REPLICA_HEADER)
    assert name, f"no {REPLICA_HEADER} header"
    return name


def test_requests_reach_both_replicas(deployment: LocalDeployment) -> None:
    seen: Counter[str] = Counter()
    with httpx.Client(base_url=deployment.url, timeout=30) as client:
        for _ in range(10):
            r = client.get("/v1/terms/kv-cache")
            assert r.status_code == 200 and r.json()["id"] == "kv-cache"
            seen[replica_of(r)] += 1
    assert seen == {"r1": 5, "r2": 5}  # round robin
    assert deployment.sessions is not None and deployment.sessions.startswith("redis://127.0.0.1:")


def test_conversation_alternates_replicas_and_keeps_context(deployment: LocalDeployment) -> None:
    with httpx.Client(base_url=deployment.url, timeout=30) as client:
        for _ in range(3):
            turns, replicas = [], []
            sid = None
            for message in (TURN_1, TURN_2, TURN_3):
                r = client.post("/v1/chat", json={"message": message, **({"session_id": sid} if sid else {})})
                assert r.status_code == 200, r.text
                body = r.json()
                assert body["session_reset"] is False
                assert sid is None or body["session_id"] == sid
                sid = body["session_id"]
                turns.append(body)
                replicas.append(replica_of(r))
            assert replicas[0] != replicas[1] != replicas[2]  # each follow-up on the other replica
            assert turns[0]["terms"][0] == TTFT
            assert turns[1]["terms"][:2] == [TTFT, TPOT]  # 它 = TTFT, from the other replica
            assert "Time To First Token" in turns[2]["answer"] and turns[2]["terms"][0] == TTFT


def test_chat_stream_through_nginx(deployment: LocalDeployment) -> None:
    """SSE passes nginx unbuffered, event by event, in order."""
    events = []
    with httpx.stream(
        "POST", deployment.url + "/v1/chat", json={"message": TURN_1, "stream": True}, timeout=30
    ) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        replica_of(r)
        for line in r.iter_lines():
            if line.startswith("event: "):
                events.append(line.removeprefix("event: "))
    assert events[0] == "meta" and events[-1] == "done" and "delta" in events


def test_bad_input_gets_the_error_body_through_nginx(deployment: LocalDeployment) -> None:
    with httpx.Client(base_url=deployment.url, timeout=30) as client:
        # answered by a replica
        assert_error(client.get("/v1/terms/no-such-term"), 404, "term_not_found")
        assert_error(client.get("/v1/search", params={"q": "kv", "limit": 0}), 422, "invalid_request")
        assert_error(client.put("/v1/terms/kv-cache"), 405, "method_not_allowed")
        big = {"query": "x" * 100_000}  # past the replica's 64 KiB, within nginx's 2 MiB
        details = assert_error(client.post("/v1/search", json=big), 413, "payload_too_large")
        assert details["max_body_bytes"] == 65536
        # answered by nginx itself, in the same shape
        huge = b"{" + b" " * 3_000_000 + b"}"
        headers = {"Content-Type": "application/json"}
        assert_error(client.post("/v1/search", content=huge, headers=headers), 413, "payload_too_large")
        assert_error(client.get("/v1/search?q=" + "x" * 40_000), 414, "uri_too_long")
        resp = client.get("/v1/terms/kv-cache", headers={"X-Long": "y" * 40_000})
        assert_error(resp, 431, "request_header_too_large")


def _readyz(url: str) -> dict[str, Any]:
    body: dict[str, Any] = httpx.get(url + "/readyz", timeout=10).json()
    return body


def _wait_for(predicate: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def test_reload_reaches_every_replica(deployment: LocalDeployment, corpus: Corpus) -> None:
    """A reload asked of one replica (the admin endpoint through nginx, SIGHUP to one) moves both."""
    before = {r.name: _readyz(r.url)["version"] for r in deployment.replicas}
    assert len(set(before.values())) == 1
    clause = corpus.edit_and_build()
    resp = httpx.post(
        deployment.url + "/admin/reload", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60
    )
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["status"] == "reloaded" and body["all_workers_reloaded"] is True
    assert len(body["workers"]) == 2  # one worker in each replica, both reported
    for r in deployment.replicas:  # each replica, asked directly
        assert _readyz(r.url)["version"] == body["version"] != before[r.name]
        assert clause in httpx.get(r.url + "/v1/terms/kv-cache", timeout=10).text

    clause = corpus.edit_and_build()
    deployment.replicas[1].child.send(signal.SIGHUP)  # to one replica only
    new = {r.name: r for r in deployment.replicas}

    def both_serve_it() -> bool:
        return all(clause in httpx.get(r.url + "/v1/terms/kv-cache", timeout=10).text for r in new.values())

    _wait_for(both_serve_it)
    assert len({_readyz(r.url)["version"] for r in deployment.replicas}) == 1


def test_stopped_replica_costs_no_request(hash_artifact: Path, tmp_path: Path) -> None:
    """A replica stopped while clients keep sending (GET and POST): nginx sends everything to the
    other one, no request fails (proxy_next_upstream: kg/deploy/nginx.py)."""
    need_nginx_and_redis()
    with LocalDeployment(hash_artifact, replicas=2, run_dir=tmp_path / "run") as d:
        statuses: Counter[int] = Counter()
        answered_by: list[str] = []
        stop = threading.Event()

        def client_loop() -> None:
            with httpx.Client(base_url=d.url, timeout=30) as client:
                i = 0
                while not stop.is_set():
                    i += 1
                    if i % 2:
                        r = client.get("/v1/terms/kv-cache")
                    else:
                        r = client.post("/v1/ask", json={"question": "what is a KV cache?"})
                    statuses[r.status_code] += 1
                    answered_by.append(r.headers.get(REPLICA_HEADER, "?"))

        threads = [threading.Thread(target=client_loop) for _ in range(4)]
        for t in threads:
            t.start()
        time.sleep(1.0)
        d.replica("r2").child.stop(signal.SIGTERM)  # graceful: the requests it holds finish
        assert not d.replica("r2").child.alive()
        n_stopped = len(answered_by)
        time.sleep(2.0)
        stop.set()
        for t in threads:
            t.join(timeout=30)
        assert set(statuses) == {200}, statuses
        after = answered_by[n_stopped + 8 :]  # past the requests in flight when it stopped
        assert after and set(after) == {"r1"}
        assert "r2" in answered_by[:n_stopped]
        # new requests, one at a time: none fails, all on r1
        with httpx.Client(base_url=d.url, timeout=30) as client:
            for _ in range(6):
                r = client.get("/v1/terms/kv-cache")
                assert r.status_code == 200 and replica_of(r) == "r1"


def test_bench_http_replicas(hash_artifact: Path, tmp_path: Path) -> None:
    """`glossary bench-http --replicas 2`, briefly: both targets measured without errors, the
    conversations' turns on both replicas, every follow-up kept its context, no session reset."""
    need_nginx_and_redis()
    out = tmp_path / "replicas.json"
    cmd = [
        sys.executable,
        *("-m", "kg.cli", "bench-http", "--replicas", "2", "--artifact", str(hash_artifact)),
        *(
            "--duration",
            "1",
            "--warmup",
            "0.5",
            "--rounds",
            "1",
            "--wrk",
            "no",
            "--no-doc",
            "--out",
            str(out),
        ),
    ]
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(out.read_text(encoding="utf-8"))
    assert [s["endpoint"] for s in result["summary"]] == ["GET /v1/terms/{id}", "GET /v1/search"]
    for s in result["summary"]:
        assert s["one_process"]["rps_median"] > 0 and s["through_nginx"]["rps_median"] > 0
        assert s["one_process"]["errors"] == s["through_nginx"]["errors"] == 0
    assert set(result["requests_per_replica_through_nginx"]) == {"r1", "r2"}
    chat = result["conversations"]
    assert set(chat["turns_per_replica"]) == {"r1", "r2"}
    assert chat["follow_ups"] > 0 and chat["follow_ups_on_another_replica"] == chat["follow_ups"]
    assert chat["follow_ups_kept_context"] == chat["follow_ups"] and chat["session_resets"] == 0
    assert "## Replicas behind nginx" in done.stdout
