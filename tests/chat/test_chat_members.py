"""The members shape: "Which engines use it?" answers with the engines, not the term itself."""

from __future__ import annotations

import pytest

from kg.chat.bot import answer
from kg.chat.model import ConversationState
from kg.chat.shapes.members import asks_for_members
from kg.search.engine import SearchEngine
from kg.store import Glossary


@pytest.mark.parametrize(
    ("question", "cls"),
    [
        ("Which engines have adopted it?", "engines"),
        ("What frameworks go through it by default?", "frameworks"),
        ("哪些引擎支持它？", "引擎"),
        ("哪些东西是基于它做的？", ""),  # a class word that narrows nothing
        # no class of members asked for
        ("What uses it?", None),
        ("Which engines use PagedAttention?", None),  # nothing points back
        ("PTQ 有哪些具体算法", None),
        ("Which of them is faster?", None),
    ],
)
def test_a_plural_class_about_the_term_pointed_at(question: str, cls: str | None) -> None:
    assert asks_for_members(question) == cls


def test_the_members_come_first_in_the_order_the_term_names_them(
    glossary: Glossary, engine: SearchEngine
) -> None:
    state = ConversationState()
    answer(glossary, engine, "What is chunked prefill?", context=state)
    a = answer(glossary, engine, "Which engines have adopted it?", context=state)
    cited = [c.term_id for c in a.citations]
    assert cited[0] == "vllm" and "tensorrt-llm" in cited and "chunked-prefill" in a.terms
    # every member is a graph neighbour of the term, and an engine
    assert all(t in glossary.neighbours("chunked-prefill") for t in a.focus if t != "chunked-prefill")


def test_a_name_of_the_kind_it_is_is_no_member(glossary: Glossary, engine: SearchEngine) -> None:
    state = ConversationState()
    answer(glossary, engine, "什么是 MLIR？", context=state)
    a = answer(glossary, engine, "哪些东西是基于它做的？", context=state)
    assert a.focus and "intermediate-representation" not in a.focus[:-1]
    assert a.focus[-1] == "multi-level-intermediate-representation"


def test_an_ordinal_after_a_list_points_into_the_answer(glossary: Glossary, engine: SearchEngine) -> None:
    state = ConversationState()
    answer(glossary, engine, "什么是 MLIR？", context=state)
    listed = answer(glossary, engine, "哪些东西是基于它做的？", context=state).listed
    assert len(listed) >= 2
    a = answer(glossary, engine, "第二个是什么？", context=state)
    assert a.citations and a.citations[0].term_id == listed[1]
