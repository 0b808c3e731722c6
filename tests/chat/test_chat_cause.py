"""Why a measure is high (kg/chat/cause.py) and the term an owner's own text names for a kind
(kg/chat/instance.py), on the real graph."""

from __future__ import annotations

import pytest

from kg.search.engine import SearchEngine
from kg.store import Glossary
from tests.chat.chat_helpers import converse


def _firsts(glossary: Glossary, engine: SearchEngine, *turns: str) -> list[str | None]:
    answers, _ = converse(glossary, engine, *turns)
    return [a.citations[0].term_id if a.citations else None for a in answers]


@pytest.mark.parametrize(
    "turns",
    [
        ("Why is TTFT so high on my long-context requests?",),
        ("Long prompts give me terrible TTFT, why?",),
        # the measure is the one under discussion
        ("什么是 TTFT？", "为什么它在长 prompt 下会特别高"),
    ],
)
def test_why_a_measure_is_high_is_answered_by_what_its_text_says_drives_it(
    glossary: Glossary, engine: SearchEngine, turns: tuple[str, ...]
) -> None:
    # TTFT's own text: "主要由预填充(prefill)阶段决定", "对应 prefill 阶段"
    answers, _ = converse(glossary, engine, *turns)
    last = answers[-1]
    assert last.citations[0].term_id == "prefill"
    assert last.decision["reason"] == "cause"
    # the measure is quoted beside it
    assert "time-to-first-token" in [c.term_id for c in last.citations]


@pytest.mark.parametrize(
    "question",
    [
        "什么是 TTFT？",  # no why
        "Why does TTFT matter for chat?",  # a why, but nothing called high
        "怎么降低 TTFT？",  # a remedy is another question
        "为什么 E2E 延迟这么高？",  # a formula of other measures: every part drives it
        "Why is my home Wi-Fi latency so high in the evenings?",  # refused, no measure of ours
    ],
)
def test_no_cause_when_the_question_asks_for_none(
    glossary: Glossary, engine: SearchEngine, question: str
) -> None:
    answers, _ = converse(glossary, engine, question)
    assert answers[0].decision["reason"] != "cause"


def test_the_latter_owns_the_kind_it_names(glossary: Glossary, engine: SearchEngine) -> None:
    # 002: SGLang "主打结构化生成与 RadixAttention 前缀缓存"; "后者" is SGLang
    firsts = _firsts(glossary, engine, "vLLM 和 SGLang 有什么区别？", "后者的前缀缓存机制叫什么？")
    assert firsts[1] == "radixattention"


def test_a_named_owners_version_of_a_named_term_is_that_term(
    glossary: Glossary, engine: SearchEngine
) -> None:
    # "its" points back at TensorRT-LLM, named in the question; 001's in-flight batching, a name of
    # continuous batching, is its version ("TensorRT-LLM 的连续批处理实现")
    answers, _ = converse(
        glossary, engine, "Which TensorRT-LLM feature is its version of continuous batching?"
    )
    assert answers[0].citations[0].term_id == "continuous-batching"


@pytest.mark.parametrize(
    "turns",
    [
        ("为什么 decode 阶段总是跑不满？",),
        ("Why is decode so underutilised?",),
    ],
)
def test_why_a_workload_leaves_compute_idle_is_answered_by_its_bound(
    glossary: Glossary, engine: SearchEngine, turns: tuple[str, ...]
) -> None:
    # of compute-, memory- and capacity-bound, the graph links decode to memory-bound
    answers, _ = converse(glossary, engine, *turns)
    last = answers[-1]
    assert last.citations[0].term_id == "memory-bound", last.citations[:2]
    assert last.decision["reason"] == "bound"


@pytest.mark.slow
def test_the_workload_under_discussion_not_the_idle_resource_decides_the_bound(
    glossary: Glossary, real_engine: SearchEngine
) -> None:
    # "算力" names compute, the resource left idle (compute-bound opens with it); "它" is decode
    answers, _ = converse(glossary, real_engine, "什么是 decode？", "为什么它总是用不满算力？")
    assert answers[1].citations[0].term_id == "memory-bound", answers[1].citations[:2]


@pytest.mark.parametrize(
    "question",
    [
        "为什么说显存带宽是 decode 的瓶颈？",  # names the bottleneck and asks why it is one
        "为什么 decode 是 memory-bound？",  # names the bound
        "怎么让 decode 不再跑不满？",  # a remedy
    ],
)
def test_no_bound_when_the_question_names_it_or_asks_for_a_remedy(
    glossary: Glossary, engine: SearchEngine, question: str
) -> None:
    answers, _ = converse(glossary, engine, question)
    assert answers[0].decision["reason"] != "bound"
