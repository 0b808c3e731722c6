"""A quantity question about two named terms is answered from the one whose text states it
(kg/chat/measure.py), on the real graph."""

from __future__ import annotations

import pytest

from kg.chat.bot import answer
from kg.chat.measure import asks_quantity
from kg.search.engine import SearchEngine
from kg.store import Glossary


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("一张 h100 有几个 sm?", True),
        ("b200 的 l2 缓存有多大?", True),
        ("how many sms does an h100 have?", True),
        ("what's the b200's vram capacity?", True),
        ("h100 是什么?", False),
        ("what is an sm?", False),
    ],
)
def test_asks_quantity(question: str, asks: bool) -> None:
    assert asks_quantity(question) is asks


@pytest.mark.parametrize(
    ("question", "first", "beside"),
    [
        # SM's text: "A100 108 SM、H100 132 SM、B200 148 SM"; H100's says no number of SMs
        ("一張 H100 有幾個 SM？", "streaming-multiprocessor", "h100"),
        # B200's own text: "书中给出 192 GB VRAM"; VRAM's names no B200
        ("What's the B200's VRAM capacity in the book's specs?", "b200", "vram-device-memory"),
    ],
)
def test_the_term_whose_text_states_the_figure_is_quoted_first(
    glossary: Glossary, engine: SearchEngine, question: str, first: str, beside: str
) -> None:
    a = answer(glossary, engine, question)
    assert a.grounded and a.citations[0].term_id == first and beside in a.terms


def test_a_question_that_asks_no_quantity_keeps_its_subject(glossary: Glossary, engine: SearchEngine) -> None:
    a = answer(glossary, engine, "H100 和 SM 是什么关系？")
    assert a.intent == "relation" and a.citations[0].term_id == "h100"
