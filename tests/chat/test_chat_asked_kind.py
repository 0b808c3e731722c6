"""kg/chat/asked_kind.py: "Which <kind> does it …?" answered by the one linked term of that kind."""

from __future__ import annotations

import pytest

from kg.chat.asked_kind import _EN, _of_kind
from kg.search.engine import SearchEngine
from kg.store import Glossary
from tests.chat.chat_helpers import converse


@pytest.mark.parametrize(
    ("opening", "asked", "expected"),
    [
        ("What's tensor parallelism?", "Which collective op does it lean on?", "allreduce"),
        ("What is expert parallelism?", "and which collective op does it lean on?", "all-to-all"),
        ("What's B200?", "Which GPU architecture is it built on?", "blackwell"),
    ],
)
def test_which_kind_a_follow_up_asks_for_is_the_linked_term_of_that_kind(
    glossary: Glossary, engine: SearchEngine, opening: str, asked: str, expected: str
) -> None:
    answers, _ = converse(glossary, engine, opening, asked)
    assert answers[1].citations[0].term_id == expected, answers[1].citations[:2]


def test_a_kind_word_followed_by_another_kind_is_a_modifier(glossary: Glossary) -> None:
    # NCCL is a "集合通信库", a library; AllReduce a "集合通信原语", a collective
    assert _of_kind(glossary, "allreduce", "collective")
    assert not _of_kind(glossary, "nvidia-collective-communications-library", "collective")
    assert _of_kind(glossary, "nvidia-collective-communications-library", "library")


def test_only_which_asks_for_a_linked_term_of_a_kind() -> None:
    # "What engine does it plug into?" is left to the ranker and the rules: one writer wants the
    # term under discussion first there
    assert _EN.search("which engine is it associated with?")
    assert _EN.search("which collective does it rely on?")
    assert not _EN.search("what engine does it plug into?")
    assert not _EN.search("which engine uses it?")  # the engine is the subject: no pronoun after an auxiliary


def test_the_question_asked_again_of_a_new_name_keeps_the_which_shape(
    glossary: Glossary, engine: SearchEngine
) -> None:
    # "And pipeline parallelism?" asks the last question of PP: its collective, not PP itself
    answers, _ = converse(
        glossary,
        engine,
        "What's tensor parallelism?",
        "Which collective op does it lean on?",
        "And pipeline parallelism?",
    )
    assert answers[1].citations[0].term_id == "allreduce"
    assert answers[2].citations[0].term_id == "allgather", answers[2].citations[:2]
