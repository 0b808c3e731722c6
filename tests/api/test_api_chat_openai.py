"""POST /v1/chat/completions: OpenAI's format, with TestClient and with the real `openai` client
against the real app served by uvicorn on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.settings import Settings
from kg.search.engine import SearchEngine
from kg.store import Glossary
from tests.api.live_server import serve

AssertError = Callable[[Any, int, str], dict[str, Any]]

CONVERSATION = [
    {"role": "system", "content": "You are helpful."},
    {"role": "user", "content": "什么是 TTFT？"},
    {"role": "assistant", "content": "(previous answer)"},
    {"role": "user", "content": [{"type": "text", "text": "那它和 TPOT 有什么区别？"}]},
]


def test_non_stream(client: TestClient) -> None:
    r = client.post(
        "/v1/chat/completions", json={"model": "my-model", "messages": CONVERSATION, "temperature": 0.2}
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert (
        body["object"] == "chat.completion"
        and body["model"] == "my-model"
        and body["id"].startswith("chatcmpl-")
    )
    (choice,) = body["choices"]
    assert choice["finish_reason"] == "stop" and choice["message"]["role"] == "assistant"
    assert "TPOT" in choice["message"]["content"]
    # the state came from the messages: 它 = TTFT
    assert body["glossary"]["terms"][:2] == ["time-to-first-token", "time-per-output-token"]
    assert (
        body["usage"]["total_tokens"] == body["usage"]["prompt_tokens"] + body["usage"]["completion_tokens"]
    )


def test_stream_chunks(client: TestClient) -> None:
    r = client.post("/v1/chat/completions", json={"model": "m", "messages": CONVERSATION, "stream": True})
    assert r.headers["content-type"].startswith("text/event-stream")
    lines = [line for line in r.text.split("\n") if line.startswith("data: ")]
    assert lines[-1] == "data: [DONE]"
    chunks = [json.loads(line[6:]) for line in lines[:-1]]
    assert all(c["object"] == "chat.completion.chunk" and c["model"] == "m" for c in chunks)
    assert len({c["id"] for c in chunks}) == 1
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop" and chunks[-1]["glossary"]["grounded"]
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks)
    plain = client.post("/v1/chat/completions", json={"messages": CONVERSATION}).json()
    assert text == plain["choices"][0]["message"]["content"]


@pytest.mark.parametrize(
    "payload",
    [
        {"messages": []},
        {"messages": [{"role": "robot", "content": "hi"}]},
        {"messages": [{"role": "assistant", "content": "only me"}]},
        {"messages": [{"role": "user", "content": "x" * 1001}]},
        {"model": "m"},
    ],
)
def test_invalid(client: TestClient, assert_error: AssertError, payload: dict[str, Any]) -> None:
    assert_error(client.post("/v1/chat/completions", json=payload), 422, "invalid_request")


@pytest.fixture
def live_url(glossary: Glossary, engine: SearchEngine, tmp_path: Any) -> Any:
    app = create_app(
        Settings(artifact_dir=tmp_path / "none", sessions="memory"), glossary=glossary, engine=engine
    )
    with serve(app) as url:
        yield url


@pytest.mark.slow
def test_real_openai_client(live_url: str) -> None:
    from openai import OpenAI

    client = OpenAI(base_url=f"{live_url}/v1", api_key="x", max_retries=0, timeout=30)
    messages: Any = [{"role": "user", "content": "What is PagedAttention?"}]
    done = client.chat.completions.create(model="anything", messages=messages)
    assert done.model == "anything"
    text = done.choices[0].message.content or ""
    assert text.startswith("**PagedAttention") and "[1]" in text
    assert done.choices[0].finish_reason == "stop"

    messages += [
        {"role": "assistant", "content": text},
        {"role": "user", "content": "What is it related to?"},
    ]
    stream = client.chat.completions.create(model="anything", messages=messages, stream=True)
    pieces = [chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices]
    streamed = "".join(pieces)
    assert len(pieces) > 3
    assert streamed.startswith("**PagedAttention") and "vLLM" in streamed  # it = PagedAttention

    from openai import UnprocessableEntityError

    with pytest.raises(UnprocessableEntityError):
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x" * 2000}])


@pytest.mark.slow
def test_first_sse_event_latency_on_loopback(live_url: str) -> None:
    """Time from sending POST /v1/chat (stream) to the first byte of the `meta` event: target <= 100 ms."""
    import statistics
    import time

    import httpx

    questions = [
        "什么是 TTFT？",
        "What is the difference between TTFT and TTFB?",
        "和 vLLM 相关的概念有哪些？",
    ] * 7
    firsts = []
    with httpx.Client(base_url=live_url, timeout=10) as http:
        for q in questions:
            start = time.perf_counter()
            with http.stream("POST", "/v1/chat", json={"message": q, "stream": True}) as r:
                chunks = r.iter_raw()
                first = next(chunks)
                firsts.append(time.perf_counter() - start)
                assert first.startswith(b"event: meta")
                for _ in chunks:
                    pass
    assert statistics.median(firsts) * 1000 <= 100
