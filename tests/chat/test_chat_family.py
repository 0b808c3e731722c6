"""kg/chat/family.py: "which kind of <head>" asks for one of the terms whose names end with the head."""

from __future__ import annotations

import pytest

from kg.chat.family import name_family
from kg.search.engine import SearchEngine
from kg.store import Glossary
from tests.chat.chat_helpers import converse


def test_a_name_family_is_the_terms_whose_names_end_with_the_head(glossary: Glossary) -> None:
    assert {"compute-bound", "memory-bound", "capacity-bound"} <= set(name_family(glossary, "bound"))
    assert {"compute-bound", "memory-bound", "capacity-bound"} <= set(name_family(glossary, "受限"))
    assert name_family(glossary, "model") == []  # ends too many names for unrelated reasons


@pytest.mark.slow
@pytest.mark.parametrize(
    ("turns", "expected"),
    [
        (
            ["HBM 跟显存是一个东西吗", "70B 模型 FP16 要 140GB，单张 80GB 卡放不下，这算哪种受限？"],
            "capacity-bound",
        ),
        (
            [
                "What's the difference between compute-bound and memory-bound?",
                "Which third kind of bound does long context usually run into?",
            ],
            "capacity-bound",
        ),
        # the answer found already is of the kind asked for: ONNX is an exchange format
        (
            ["Which format is the de facto standard for exchanging models across frameworks?"],
            "open-neural-network-exchange",
        ),
    ],
)
def test_which_kind_of_head_is_answered_by_a_member_of_the_family(
    glossary: Glossary, real_engine: SearchEngine, turns: list[str], expected: str
) -> None:
    answers, _ = converse(glossary, real_engine, *turns)
    assert answers[-1].citations[0].term_id == expected, answers[-1].citations[:2]
