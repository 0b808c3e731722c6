"""Questions about a part of a formula the sources state (kg/chat/formula.py), on the real graph."""

from __future__ import annotations

import pytest

from kg.search.engine import SearchEngine
from kg.store import Glossary
from tests.chat.chat_helpers import converse


def _firsts(glossary: Glossary, engine: SearchEngine, *turns: str) -> list[str | None]:
    answers, _ = converse(glossary, engine, *turns)
    return [a.citations[0].term_id if a.citations else None for a in answers]


def test_a_term_by_its_position_in_the_formula(glossary: Glossary, engine: SearchEngine) -> None:
    # 002: "E2E = TTFT + TPOT × (output_tokens - 1)": E2E is the formula's own term, not a part
    firsts = _firsts(glossary, engine, "E2E 延迟怎么算？", "公式里第二项对应哪个阶段？", "第一项呢？")
    assert firsts[1:] == ["time-per-output-token", "time-to-first-token"]
    # 002: "并发 = 吞吐 × 延迟" in Little's Law: its first quantity is concurrency
    firsts = _firsts(
        glossary,
        engine,
        "What is Little's Law?",
        "What does the first quantity in its formula mean?",
        "And the second one?",
    )
    assert firsts[1:] == ["concurrency", "throughput"]


def test_the_factor_beside_another_across_a_product(glossary: Glossary, engine: SearchEngine) -> None:
    # 002: "性能上限 = min(峰值算力, 带宽 × 算术强度)"
    firsts = _firsts(glossary, engine, "Roofline 模型是干嘛用的？", "它公式里和带宽相乘的那个量是什么？")
    assert firsts[1] == "arithmetic-intensity"


def test_the_answer_quotes_the_formula(glossary: Glossary, engine: SearchEngine) -> None:
    answers, _ = converse(glossary, engine, "E2E 延迟怎么算？", "公式里第二项对应哪个阶段？")
    assert "E2E = TTFT + TPOT" in answers[1].answer and answers[1].decision["reason"] == "formula"


@pytest.mark.parametrize(
    "turns",
    [
        ("What is KV cache?", "第一项呢？"),  # a bare ordinal, and no formula under discussion
        ("What is Little's Law?", "What does its formula say?"),  # the formula itself: no part asked
        ("What is Little's Law?", "What does the fifth quantity in its formula mean?"),  # no fifth
        ("What is KV cache?", "公式里第二项是什么？"),  # no formula in its text
    ],
)
def test_no_part_when_the_question_points_at_none(
    glossary: Glossary, engine: SearchEngine, turns: tuple[str, ...]
) -> None:
    answers, _ = converse(glossary, engine, *turns)
    assert answers[-1].decision["reason"] != "formula"


@pytest.mark.parametrize(
    ("turns", "first"),
    [
        # 002: "强度低于此点 memory-bound，高于此点 compute-bound" in the roofline ridge's text
        (("roofline ridge 是什么", "强度低于那个交点的话，算哪种受限？"), "memory-bound"),
        (("roofline ridge 是什么", "强度低于那个交点的话，算哪种受限？", "那高于呢？"), "compute-bound"),
        (
            (
                "What is the roofline ridge?",
                "If my kernel sits to the left of that point, what is it bound by?",
            ),
            "memory-bound",
        ),
        # the ridge is next to what the conversation is about, though never named in it
        (
            (
                "Roofline 模型怎么算性能上限？",
                "公式里那个强度具体指什么",
                "强度低于那个交点的话，算哪种受限？",
            ),
            "memory-bound",
        ),
    ],
)
def test_a_side_of_a_stated_threshold(
    glossary: Glossary, engine: SearchEngine, turns: tuple[str, ...], first: str
) -> None:
    answers, _ = converse(glossary, engine, *turns)
    assert answers[-1].citations[0].term_id == first and answers[-1].decision["reason"] == "threshold"


def test_no_side_without_a_point_or_its_owner(glossary: Glossary, engine: SearchEngine) -> None:
    # "more than" with no value pointed at and no threshold named: no side is asked for
    answers, _ = converse(
        glossary, engine, "What is the roofline ridge?", "Is FP8 more than twice as fast as FP16?"
    )
    assert answers[-1].decision["reason"] != "threshold"


def test_the_parts_a_definition_lists_keep_its_order(glossary: Glossary, engine: SearchEngine) -> None:
    # 001: "通常由 text encoder、迭代 denoiser 和 VAE 等多个模型组成": the last one is the VAE
    answers, _ = converse(glossary, engine, "图像生成流水线一般由哪几个模型组成？", "最后一个负责干什么")
    assert answers[-1].citations[0].term_id == "variational-autoencoder"


@pytest.mark.parametrize(
    "turns",
    [
        (
            "PagedAttention 是啥？",
            "它最早是哪个引擎搞出来的？",
            "除了 PagedAttention，这个引擎还靠什么起家？",
        ),
        ("PagedAttention 是什么？", "vLLM 除了这个，还靠什么起家？"),  # 这个: the term under discussion
        ("Besides PagedAttention, what else did vLLM start with?",),
    ],
)
def test_what_else_besides_a_term(glossary: Glossary, engine: SearchEngine, turns: tuple[str, ...]) -> None:
    # 002: vLLM "PagedAttention + continuous batching 起家": the term beside the one set aside
    answers, _ = converse(glossary, engine, *turns)
    assert answers[-1].citations[0].term_id == "continuous-batching"
    assert answers[-1].decision["reason"] == "besides" and "vllm" in answers[-1].terms


def test_besides_without_a_stated_companion_decides_nothing(glossary: Glossary, engine: SearchEngine) -> None:
    answers, _ = converse(glossary, engine, "除了量化，还有什么办法省显存？")
    assert answers[-1].decision["reason"] != "besides"


@pytest.mark.slow
def test_the_term_whose_text_says_it_fixes_the_problem(glossary: Glossary, real_engine: SearchEngine) -> None:
    # 001 PagedAttention: "典型收益是减少碎片"; capacity-bound only shares the common words (显存, 问题)
    answers, _ = converse(glossary, real_engine, "KV cache 是什么", "它的显存碎片问题靠哪个技术解决？")
    assert answers[-1].citations[0].term_id == "pagedattention"
    # a question that asks for no fix is left alone
    from kg.chat.remedy import asks_which_fixes

    assert asks_which_fixes("它的显存碎片问题靠哪个技术解决？") and not asks_which_fixes("显存碎片是什么")
