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
