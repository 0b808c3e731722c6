"""POST /v1/chat on each session store, and conversations shared by several servers.

In-process: two app instances (two "workers") on one SQLite file or one Redis server continue
each other's conversations. End to end (slow): two real uvicorn server processes on two ports,
and `glossary serve --workers 2`, alternate the turns of one conversation.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from api.settings import Settings
from kg.chat.sessions import SESSION_URL_FORMS, default_sqlite_path
from tests.api.conftest import MakeClient
from tests.api.live_server import free_port

REPO = Path(__file__).resolve().parents[2]
TTFT, TPOT = "time-to-first-token", "time-per-output-token"
TURN_1, TURN_2, TURN_3 = "什么是 TTFT？", "那它和 TPOT 有什么区别？", "它的英文是什么"


@pytest.fixture(params=["memory", "sqlite", "redis"])
def session_url(request: Any, tmp_path: Path) -> str:
    if request.param == "memory":
        return "memory"
    if request.param == "sqlite":
        return f"sqlite://{tmp_path / 'chat.sqlite3'}"
    url: str = request.getfixturevalue("redis_url")  # tests/conftest.py: a private redis-server
    import redis

    with redis.Redis.from_url(url) as client:
        client.flushdb()
    return url


@pytest.fixture
def shared_url(session_url: str) -> str:
    if session_url == "memory":
        pytest.skip("memory sessions are per worker by design")
    return session_url


def chat(client: TestClient | httpx.Client, message: str, sid: str | None = None) -> dict[str, Any]:
    payload: dict[str, Any] = {"message": message}
    if sid is not None:
        payload["session_id"] = sid
    r = client.post("/v1/chat", json=payload)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def assert_follow_up_kept_context(second: dict[str, Any], sid: str) -> None:
    assert second["session_id"] == sid and second["session_reset"] is False
    assert second["terms"][:2] == [TTFT, TPOT]
    assert {TTFT, TPOT} <= {c["term_id"] for c in second["citations"]}


def test_conversation_on_each_store(make_client: MakeClient, session_url: str) -> None:
    client = make_client(sessions=session_url)
    first = chat(client, TURN_1)
    assert first["session_reset"] is False and first["terms"][0] == TTFT
    sid = first["session_id"]
    assert_follow_up_kept_context(chat(client, TURN_2, sid), sid)
    assert "Time To First Token" in chat(client, TURN_3, sid)["answer"]
    body = chat(client, "它是什么？", "expired-or-made-up")
    assert body["session_reset"] is True and body["session_id"] != "expired-or-made-up"


def test_two_workers_share_one_conversation(make_client: MakeClient, shared_url: str) -> None:
    """Two app instances = two worker processes: turns alternate and the context is kept."""
    a, b = make_client(sessions=shared_url), make_client(sessions=shared_url)
    sid = chat(a, TURN_1)["session_id"]
    assert_follow_up_kept_context(chat(b, TURN_2, sid), sid)
    third = chat(a, TURN_3, sid)
    assert third["session_reset"] is False and "Time To First Token" in third["answer"]
    assert len(a.app.state.chat_sessions) == len(b.app.state.chat_sessions) == 1  # type: ignore[attr-defined]


def test_memory_sessions_are_per_worker(make_client: MakeClient) -> None:
    """What the shared stores fix: with memory sessions the other worker has never seen the id."""
    a, b = make_client(sessions="memory"), make_client(sessions="memory")
    sid = chat(a, TURN_1)["session_id"]
    assert chat(b, TURN_2, sid)["session_reset"] is True


def test_session_ttl_on_each_store(make_client: MakeClient, session_url: str) -> None:
    client = make_client(sessions=session_url, chat_session_ttl_seconds=0.3)
    sid = chat(client, TURN_1)["session_id"]
    assert chat(client, TURN_3, sid)["session_reset"] is False
    time.sleep(0.5)
    assert chat(client, TURN_3, sid)["session_reset"] is True


def test_session_cap_on_each_store(make_client: MakeClient, session_url: str) -> None:
    client = make_client(sessions=session_url, chat_max_sessions=2, chat_max_turns=3)
    ids = [chat(client, TURN_1)["session_id"] for _ in range(3)]
    store = client.app.state.chat_sessions  # type: ignore[attr-defined]
    assert (store.max_sessions, store.max_turns, len(store)) == (2, 3, 2)
    assert chat(client, "它是什么", ids[0])["session_reset"] is True
    for _ in range(5):
        chat(client, TURN_3, ids[2])
    assert len(store.open(ids[2])[1].turns) == 3


def test_unreachable_session_store_is_503(make_client: MakeClient, assert_error: Any) -> None:
    pytest.importorskip("redis")
    client = make_client(sessions=f"redis://127.0.0.1:{free_port()}/0")
    details = assert_error(client.post("/v1/chat", json={"message": TURN_1}), 503, "sessions_unavailable")
    assert details["store"].startswith("redis://127.0.0.1:")
    assert client.post("/v1/ask", json={"question": TURN_1}).status_code == 200  # no session needed


def test_default_sessions_setting(tmp_path: Path, monkeypatch: Any, make_client: MakeClient) -> None:
    monkeypatch.delenv("GLOSSARY_SESSIONS", raising=False)
    assert Settings().sessions == "sqlite"
    monkeypatch.setenv("GLOSSARY_SESSIONS", "redis://cache:6379/1")
    assert Settings().sessions == "redis://cache:6379/1"
    with pytest.raises(ValidationError) as info:
        Settings(sessions="memcached://cache")
    assert SESSION_URL_FORMS in str(info.value)
    # "sqlite": the file in the temp directory that every worker of this artifact finds
    art = tmp_path / "artifact"
    path = default_sqlite_path(art)
    try:
        client = make_client(sessions="sqlite", artifact_dir=art)
        sid = chat(client, TURN_1)["session_id"]
        assert client.app.state.chat_sessions.path == path  # type: ignore[attr-defined]
        other = make_client(sessions="sqlite", artifact_dir=art)
        assert_follow_up_kept_context(chat(other, TURN_2, sid), sid)
    finally:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)


# --- end to end: separate server processes -------------------------------------------------------


def _server_env(artifact: Path, sessions: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GLOSSARY_")}
    env["GLOSSARY_ARTIFACT_DIR"] = str(artifact)
    if sessions is not None:
        env["GLOSSARY_SESSIONS"] = sessions
    return env


@contextmanager
def _running(cmd: list[str], env: dict[str, str], port: int, timeout: float = 90.0) -> Iterator[str]:
    """Start *cmd* (a server on *port*) in its own process group; yields its URL once /readyz is 200."""
    proc = subprocess.Popen(
        cmd, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            assert time.monotonic() < deadline, f"{base} not ready after {timeout} s"
            try:
                if httpx.get(base + "/readyz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        yield base
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        if proc.stderr:
            proc.stderr.close()


def _uvicorn(port: int) -> list[str]:
    return [
        sys.executable,
        *("-m", "uvicorn", "api.app:create_app", "--factory"),
        *("--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"),
    ]


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["sqlite", "redis"])
def test_two_server_processes_share_a_conversation(
    kind: str, hash_artifact: Path, tmp_path: Path, request: Any
) -> None:
    """The turns of one conversation alternate between two servers on two ports."""
    if kind == "sqlite":
        sessions = f"sqlite://{tmp_path / 'shared.sqlite3'}"
    else:
        sessions = request.getfixturevalue("redis_url")
        import redis

        with redis.Redis.from_url(sessions) as client:
            client.flushdb()
    env = _server_env(hash_artifact, sessions)
    port_a, port_b = free_port(), free_port()
    with (
        _running(_uvicorn(port_a), env, port_a) as url_a,
        _running(_uvicorn(port_b), env, port_b) as url_b,
        httpx.Client(base_url=url_a, timeout=30) as a,
        httpx.Client(base_url=url_b, timeout=30) as b,
    ):
        first = chat(a, TURN_1)
        assert first["session_reset"] is False and first["terms"][0] == TTFT
        sid = first["session_id"]
        assert_follow_up_kept_context(chat(b, TURN_2, sid), sid)  # turn 2 on the other server
        third = chat(a, TURN_3, sid)  # turn 3 back on the first
        assert third["session_id"] == sid and third["session_reset"] is False
        assert "Time To First Token" in third["answer"]
        assert third["terms"][0] == TTFT  # 它 is still TTFT


@pytest.mark.slow
def test_glossary_serve_workers_share_conversations(hash_artifact: Path) -> None:
    """`glossary serve --workers 2` with the default store: no follow-up is forgotten, whichever
    worker takes its connection (each request opens a new one)."""
    port = free_port()
    cmd = [sys.executable, "-m", "kg.cli", "serve", "--artifact", str(hash_artifact), "--port", str(port)]
    path = default_sqlite_path(hash_artifact)
    try:
        with _running([*cmd, "--workers", "2"], _server_env(hash_artifact, None), port) as base:
            for _ in range(12):
                first = httpx.post(base + "/v1/chat", json={"message": TURN_1}, timeout=30).json()
                sid = first["session_id"]
                second = httpx.post(
                    base + "/v1/chat", json={"message": TURN_2, "session_id": sid}, timeout=30
                ).json()
                assert_follow_up_kept_context(second, sid)
        assert path.exists()  # the workers used the default shared file
    finally:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
