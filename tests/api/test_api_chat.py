"""POST /v1/ask and /v1/chat (JSON and Server-Sent Events), limits and the one error body."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import MakeClient
from tests.chat.fake_llm import fake_llm

AssertError = Callable[[Any, int, str], dict[str, Any]]


def parse_sse(text: str) -> list[tuple[str, Any]]:
    events = []
    for block in text.split("\n\n"):
        if not block.strip():
            continue
        event, data = "message", []
        for line in block.split("\n"):
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                data.append(line[6:])
        events.append((event, json.loads("\n".join(data))))
    return events


# --- /v1/ask ----------------------------------------------------------------------------------------


def test_ask(client: TestClient) -> None:
    r = client.post("/v1/ask", json={"question": "什么是 TTFT？"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) >= {
        "question",
        "lang",
        "intent",
        "answer",
        "grounded",
        "terms",
        "citations",
        "suggestions",
        "follow_ups",
    }
    assert (body["lang"], body["intent"], body["grounded"]) == ("zh", "definition", True)
    first = body["citations"][0]
    assert (
        first["term_id"] == "time-to-first-token" and first["marker"] == 1 and first["kind"] == "definition"
    )
    assert first["quote"] in body["answer"] and "[1]" in body["answer"]


def test_ask_out_of_domain(client: TestClient) -> None:
    body = client.post("/v1/ask", json={"question": "Who won the 2022 FIFA World Cup?"}).json()
    assert body["grounded"] is False and body["citations"] == [] and body["suggestions"]
    assert body["intent"] == "out_of_domain" and body["lang"] == "en"


@pytest.mark.parametrize(
    "payload",
    [{}, {"question": ""}, {"question": "x" * 1001}, {"question": 3}, {"question": "q", "extra": 1}],
)
def test_ask_validation(client: TestClient, assert_error: AssertError, payload: dict[str, Any]) -> None:
    details = assert_error(client.post("/v1/ask", json=payload), 422, "invalid_request")
    assert details["errors"]


def test_ask_body_limit_and_bad_json(client: TestClient, assert_error: AssertError) -> None:
    big = json.dumps({"question": "x" * 70_000})
    assert_error(
        client.post("/v1/ask", content=big, headers={"content-type": "application/json"}),
        413,
        "payload_too_large",
    )
    r = client.post("/v1/ask", content="{not json", headers={"content-type": "application/json"})
    assert_error(r, 422, "invalid_request")
    assert_error(client.get("/v1/ask"), 405, "method_not_allowed")


def test_ask_without_engine_is_503(make_client: MakeClient, assert_error: AssertError) -> None:
    client = make_client(engine=None)
    assert_error(client.post("/v1/ask", json={"question": "什么是 TTFT？"}), 503, "artifact_unavailable")


# --- /v1/chat -----------------------------------------------------------------------------------------


def test_chat_conversation(client: TestClient) -> None:
    r = client.post("/v1/chat", json={"message": "什么是 TTFT？"})
    assert r.status_code == 200, r.text
    first = r.json()
    assert set(first) >= {
        "session_id",
        "answer",
        "grounded",
        "citations",
        "terms",
        "suggestions",
        "follow_ups",
        "session_reset",
    }
    assert first["session_reset"] is False and first["terms"][0] == "time-to-first-token"
    sid = first["session_id"]
    second = client.post("/v1/chat", json={"message": "那它和 TPOT 有什么区别？", "session_id": sid}).json()
    assert second["session_id"] == sid and second["session_reset"] is False
    assert second["terms"][:2] == ["time-to-first-token", "time-per-output-token"]
    third = client.post("/v1/chat", json={"message": "它的英文是什么", "session_id": sid}).json()
    assert "Time To First Token" in third["answer"]


def test_chat_unknown_session_is_reset(client: TestClient) -> None:
    body = client.post("/v1/chat", json={"message": "它是什么？", "session_id": "expired-or-made-up"}).json()
    assert body["session_reset"] is True and body["session_id"] != "expired-or-made-up"
    assert body["grounded"] is False  # the pronoun has nothing to refer to in a fresh conversation


def test_chat_session_ttl(make_client: MakeClient) -> None:
    client = make_client(chat_session_ttl_seconds=0.05)
    sid = client.post("/v1/chat", json={"message": "什么是 TTFT？"}).json()["session_id"]
    import time

    time.sleep(0.1)
    body = client.post("/v1/chat", json={"message": "它的英文是什么", "session_id": sid}).json()
    assert body["session_reset"] is True


def test_chat_session_cap(make_client: MakeClient) -> None:
    client = make_client(chat_max_sessions=2)
    ids = [client.post("/v1/chat", json={"message": "什么是 TTFT？"}).json()["session_id"] for _ in range(3)]
    assert client.app.state.chat_sessions.max_sessions == 2  # type: ignore[attr-defined]
    assert len(client.app.state.chat_sessions) == 2  # type: ignore[attr-defined]
    assert client.post("/v1/chat", json={"message": "它是什么", "session_id": ids[0]}).json()["session_reset"]


@pytest.mark.parametrize(
    "payload",
    [
        {"message": ""},
        {"message": "x" * 1001},
        {"message": "hi", "session_id": ""},
        {"message": "hi", "session_id": "s" * 101},
    ],
)
def test_chat_validation(client: TestClient, assert_error: AssertError, payload: dict[str, Any]) -> None:
    assert_error(client.post("/v1/chat", json=payload), 422, "invalid_request")


def test_chat_stream(client: TestClient) -> None:
    plain = client.post("/v1/chat", json={"message": "什么是 KV cache？"}).json()
    with client.stream("POST", "/v1/chat", json={"message": "什么是 KV cache？", "stream": True}) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        assert r.headers["cache-control"] == "no-cache"
        events = parse_sse("".join(r.iter_text()))
    names = [e for e, _ in events]
    assert names[0] == "meta" and names[-2:] == ["citations", "done"]
    assert set(names[1:-2]) == {"delta"} and len(names) > 4
    meta = events[0][1]
    assert meta["grounded"] is True and meta["terms"][0] == "kv-cache" and meta["session_id"]
    text = "".join(d["text"] for e, d in events if e == "delta")
    assert text == plain["answer"]
    citations = events[-2][1]["citations"]
    assert citations == plain["citations"]
    assert events[-1][1]["follow_ups"] == plain["follow_ups"]


def test_chat_stream_by_accept_header_and_refusal(client: TestClient) -> None:
    r = client.post(
        "/v1/chat", json={"message": "今天上海天气怎么样？"}, headers={"accept": "text/event-stream"}
    )
    events = parse_sse(r.text)
    assert events[0][0] == "meta" and events[0][1]["grounded"] is False
    assert events[-2] == ("citations", {"citations": []})
    assert events[-1][1]["suggestions"]


def test_chat_with_llm(make_client: MakeClient) -> None:
    with fake_llm() as llm:
        client = make_client(llm_base_url=llm.url, llm_timeout_seconds=2)
        body = client.post("/v1/chat", json={"message": "什么是 TTFT？"}).json()
        assert body["answer"] == llm.reply and body["warnings"] == []
        assert body["citations"][0]["term_id"] == "time-to-first-token"
        r = client.post("/v1/chat", json={"message": "什么是 TTFT？", "stream": True})
        events = parse_sse(r.text)
        assert "".join(d["text"] for e, d in events if e == "delta") == llm.reply
        assert events[-1][1]["generator"] == "llm"
        llm.reply = "<500>"
        body = client.post("/v1/ask", json={"question": "什么是 TTFT？"}).json()
        assert body["answer"].startswith("**首 token 时间")  # the retrieval answer
        assert any("llm unavailable" in w for w in body["warnings"])


def test_openapi_documents_the_chat(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    for path in ("/v1/ask", "/v1/chat", "/v1/chat/completions", "/v1/terms/{term_id}/layout"):
        assert path in spec["paths"]
    ask = spec["paths"]["/v1/ask"]["post"]
    assert {"413", "422", "503"} <= set(ask["responses"])
    assert "text/event-stream" in spec["paths"]["/v1/chat"]["post"]["responses"]["200"]["content"]
