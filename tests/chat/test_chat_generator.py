"""The optional LLM rephraser against a fake OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import time

import pytest

from kg.chat import answer
from kg.chat.generator import LLMGenerator, chat_completions_url, check_markers
from kg.search.engine import SearchEngine
from kg.store import Glossary
from tests.chat.fake_llm import fake_llm


def test_url() -> None:
    assert chat_completions_url("http://h:1") == "http://h:1/v1/chat/completions"
    assert chat_completions_url("http://h:1/v1/") == "http://h:1/v1/chat/completions"
    assert chat_completions_url("http://h:1/v1/chat/completions") == "http://h:1/v1/chat/completions"


def test_check_markers() -> None:
    assert check_markers("", 2) == "empty reply"
    assert check_markers("no markers", 2) == "no citation markers"
    assert check_markers("a [3]", 2) == "unknown citation markers [3]"
    assert check_markers("a [1] b [2]", 2) is None


def test_success_replaces_the_text_and_keeps_citations(glossary: Glossary, engine: SearchEngine) -> None:
    retrieval = answer(glossary, engine, "什么是 TTFT？")
    with fake_llm() as llm:
        gen = LLMGenerator(llm.url, model="m1", api_key="k", timeout=2)
        out = gen.rewrite(retrieval)
        gen.close()
    assert out.answer == "TTFT 是首 token 时间 [1]。"
    assert out.generator == "llm" and out.warnings == []
    assert out.citations == retrieval.citations and out.grounded
    (req,) = llm.requests
    assert req["path"] == "/v1/chat/completions" and req["auth"] == "Bearer k"
    body = req["body"]
    assert body["model"] == "m1" and body["stream"] is False and body["temperature"] == 0
    system, user = body["messages"]
    assert "只能使用" in system["content"]  # answer only from the context, in the question's language
    for c in retrieval.citations:  # the context is the numbered quotes
        assert f"[{c.marker}]" in user["content"] and c.quote in user["content"]


def test_traditional_asker_gets_traditional_llm_text(glossary: Glossary, engine: SearchEngine) -> None:
    retrieval = answer(glossary, engine, "什麼是 TTFT？")
    assert retrieval.script == "traditional"
    with fake_llm() as llm:
        gen = LLMGenerator(llm.url, timeout=2)
        out = gen.rewrite(retrieval)
        gen.close()
    assert out.answer == "TTFT 是首 token 時間 [1]。"  # the fake model answers in Simplified


@pytest.mark.parametrize(
    ("reply", "warning"),
    [
        ("<500>", "llm unavailable"),
        ("no markers at all", "no citation markers"),
        ("bad [99]", "unknown citation"),
    ],
)
def test_failures_fall_back_to_retrieval(
    glossary: Glossary, engine: SearchEngine, reply: str, warning: str
) -> None:
    retrieval = answer(glossary, engine, "What is TTFT?")
    with fake_llm() as llm:
        llm.reply = reply
        out = LLMGenerator(llm.url, timeout=2).rewrite(retrieval)
    assert out.answer == retrieval.answer and out.generator == "retrieval"
    assert any(warning in w for w in out.warnings)


def test_timeout_is_short_and_falls_back(glossary: Glossary, engine: SearchEngine) -> None:
    retrieval = answer(glossary, engine, "What is TTFT?")
    with fake_llm() as llm:
        llm.reply, llm.delay = "<slow>", 3.0
        start = time.perf_counter()
        out = LLMGenerator(llm.url, timeout=0.3).rewrite(retrieval)
        took = time.perf_counter() - start
    assert took < 2.0
    assert out.answer == retrieval.answer
    assert any("timed out after 0.3 s" in w for w in out.warnings)


def test_connection_refused_falls_back(glossary: Glossary, engine: SearchEngine) -> None:
    from tests.api.live_server import free_port

    retrieval = answer(glossary, engine, "What is TTFT?")
    out = LLMGenerator(f"http://127.0.0.1:{free_port()}", timeout=1).rewrite(retrieval)
    assert out.answer == retrieval.answer and any("llm unavailable" in w for w in out.warnings)


def test_refusals_are_never_sent(glossary: Glossary, engine: SearchEngine) -> None:
    refusal = answer(glossary, engine, "今天上海天气怎么样？")
    with fake_llm() as llm:
        out = LLMGenerator(llm.url, timeout=1).rewrite(refusal)
    assert out is refusal and llm.requests == []
