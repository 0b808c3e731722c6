"""What came after a term (kg/chat/lineage.py: successor), on the real graph."""

from __future__ import annotations

import pytest

from kg.chat.bot import answer
from kg.chat.lineage import ASKS_SUCCESSOR
from kg.search.engine import SearchEngine
from kg.store import Glossary
from tests.chat.chat_helpers import converse


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("这款 cpu 后来被谁接替?", True),
        ("它现在正在被什么取代?", True),
        ("what replaced it?", True),
        ("what's replacing it?", True),
        ("what's its successor?", True),
        ("what did it replace?", False),  # the predecessor
        ("它取代了什么?", False),
    ],
)
def test_asks_successor(question: str, asks: bool) -> None:
    assert bool(ASKS_SUCCESSOR.search(question)) is asks


@pytest.mark.parametrize(
    ("first", "follow"),
    [("What is Grace CPU?", "这款 CPU 后来被谁接替？"), ("What is Grace CPU?", "What replaced it?")],
)
def test_the_term_whose_text_says_it_replaces_the_referent(
    glossary: Glossary, engine: SearchEngine, first: str, follow: str
) -> None:
    # Vera CPU: "…在 Rubin GPU 代际中接替 Grace"
    answers, _ = converse(glossary, engine, first, follow)
    assert [c.term_id for c in answers[1].citations[:1]] == ["vera-cpu"] and "grace-cpu" in answers[1].terms


def test_what_the_terms_own_text_says_replaces_it(glossary: Glossary, engine: SearchEngine) -> None:
    # TorchAX: "…这种方式正被 TorchTPU 取代" (TPU is a neighbour too, but not inside TorchTPU)
    a = answer(glossary, engine, "What is replacing TorchAX as PyTorch's way onto TPUs?")
    assert a.citations[0].term_id == "torchtpu"
    # a Chinese follow-up whose pronoun is the subject, answered by the referent's own text: the
    # referent first, as other such relation questions
    answers, _ = converse(glossary, engine, "What is TorchAX?", "它现在正在被什么取代？")
    assert answers[1].citations[0].term_id == "torchax" and "torchtpu" in answers[1].terms
