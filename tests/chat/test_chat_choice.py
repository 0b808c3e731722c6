"""Which of two named terms a comparative question picks (kg/chat/choice.py), on the real graph."""

from __future__ import annotations

import pytest

from kg.chat.bot import answer
from kg.chat.choice import as_which, compared_choice
from kg.search.engine import SearchEngine
from kg.store import Glossary
from kg.textnorm import fold


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("NVLink 跟 PCIe 哪个快？", "nvlink"),  # PCIe's own text: "比 NVLink 慢但通用"
        ("PCIe 和 NVLink 哪一个更快？", "nvlink"),
        ("NVLink 跟 PCIe 哪个慢？", "pcie"),
        ("Which is faster, NVLink or PCIe?", "nvlink"),
        ("Which one is slower, PCIe or NVLink?", "pcie"),
        ("NVLink 跟 PCIe 哪个通用？", None),  # not a property with an opposite
    ],
)
def test_the_sources_comparison_decides(glossary: Glossary, question: str, expected: str | None) -> None:
    assert compared_choice(glossary, fold(question), ["nvlink", "pcie"]) == expected


def test_a_pair_the_sources_do_not_compare_is_left_to_the_search(glossary: Glossary) -> None:
    assert (
        compared_choice(glossary, fold("TP 和 PP 里哪个快？"), ["tensor-parallelism", "pipeline-parallelism"])
        is None
    )
    assert compared_choice(glossary, fold("哪个快？"), ["nvlink"]) is None


def test_the_chat_answers_with_the_faster_one(glossary: Glossary, engine) -> None:  # type: ignore[no-untyped-def]
    from kg.chat.bot import answer

    a = answer(glossary, engine, "NVLink 跟 PCIe 哪个快？")
    assert a.citations and a.citations[0].term_id == "nvlink"


@pytest.mark.parametrize(
    ("question", "reworded"),
    [
        ("What's faster, NVLink or PCIe?", "Which is faster, NVLink or PCIe?"),
        ("what is better: GPTQ or AWQ?", "Which is better: GPTQ or AWQ?"),
        ("What is TTFT?", "What is TTFT?"),  # no comparative, no alternatives
        ("What's Docker, a container or a VM?", "What's Docker, a container or a VM?"),  # no comparative
    ],
)
def test_a_what_that_asks_to_choose_is_a_which(question: str, reworded: str) -> None:
    assert as_which(question) == reworded


def test_what_is_faster_is_answered_as_which_is_faster(glossary: Glossary, engine: SearchEngine) -> None:
    a = answer(glossary, engine, "What's faster, NVLink or PCIe?")
    assert a.intent == "which" and a.citations[0].term_id == "nvlink", a.terms
