"""Counterpart questions (kg/chat/counterpart.py): the term that plays the anchor's role on a side."""

from __future__ import annotations

import pytest

from kg.chat import ConversationState, answer
from kg.chat.counterpart import asks_counterpart, counterpart, counterpart_in, opposite, side_words
from kg.search.engine import SearchEngine
from kg.store import Glossary
from tests.chat.chat_helpers import assert_grounded, converse


@pytest.mark.parametrize(
    ("folded", "names", "words"),
    [
        ("and amd's counterpart to nccl?", [(25, 29)], ["amd"]),
        ("what's its nvidia equivalent?", [], ["nvidia"]),
        ("and what is its counterpart on the output side?", [], ["output"]),
        ("nccl在amd那边的对应实现呢?", [(0, 4)], ["amd"]),
        ("每token成本在电力那一侧对应的指标叫什么?", [(0, 8)], ["电力"]),
        ("这个在amd上对应的是啥?", [], ["amd"]),
        ("what's the 'wide' version of it?", [], ["wide"]),
        ("and nvidia's implementation of that?", [], ["nvidia"]),
    ],
)
def test_side_words_name_the_side_not_the_anchor(
    folded: str, names: list[tuple[int, int]], words: list[str]
) -> None:
    assert side_words(folded, names) == words
    assert asks_counterpart(folded)


@pytest.mark.parametrize(
    "folded",
    [
        "tpot对应推理的哪个阶段?",  # which phase it corresponds to: no side
        "2ms的itl大概相当于每秒多少token?",
        "what is the counterpart?",  # no side named
        "what does nccl do?",
        "which version of it targets hopper?",  # a version of the term itself
    ],
)
def test_a_question_with_no_side_asks_no_counterpart(folded: str) -> None:
    assert not asks_counterpart(folded)


@pytest.mark.parametrize(
    ("anchor", "words", "expected"),
    [
        ("nvidia-collective-communications-library", ["amd"], "rccl"),  # only mentioned, in NCCL's entry
        ("rccl", ["nvidia"], "nvidia-collective-communications-library"),
        ("rocm", ["nvidia"], "cuda"),
        ("cuda", ["amd"], "rocm"),
        ("cost-per-token", ["电力"], "energy-per-token"),
        ("input-sequence-length", ["output"], "output-sequence-length"),
    ],
)
def test_the_counterpart_is_the_neighbour_a_clause_ties_to_the_side(
    glossary: Glossary, anchor: str, words: list[str], expected: str
) -> None:
    assert counterpart(glossary, anchor, words) == expected


def test_no_side_or_no_neighbour_with_it_is_no_counterpart(glossary: Glossary) -> None:
    assert counterpart(glossary, "rocm", []) is None
    assert counterpart(glossary, "rocm", ["cookies"]) is None
    assert counterpart(glossary, "no-such-term", ["amd"]) is None


def test_a_counterpart_follow_up_answers_with_the_other_side(
    glossary: Glossary, engine: SearchEngine
) -> None:
    state = ConversationState()
    answer(glossary, engine, "What is ROCm?", context=state)
    a = answer(glossary, engine, "What's its NVIDIA equivalent?", context=state)
    assert a.citations and a.citations[0].term_id == "cuda", a.answer
    assert_grounded(a, glossary)


@pytest.mark.parametrize(
    "question",
    [
        "And AMD's counterpart to NCCL?",
        "NCCL 在 AMD 那边的对应实现是什么？",
        # what a side uses in the term's place
        "Which library does AMD use instead of NCCL for collectives?",
    ],
)
def test_a_counterpart_the_sources_only_mention_is_quoted_where_mentioned(
    glossary: Glossary, engine: SearchEngine, question: str
) -> None:
    a = answer(glossary, engine, question)
    # RCCL has no entry: the quote is cited under NCCL's, whose text holds it
    assert a.terms[0] == "rccl" and a.citations[0].kind == "mention", a.answer
    assert a.citations[0].term_id == "nvidia-collective-communications-library", a.answer
    assert "RCCL 是 AMD 的对应实现" in a.citations[0].quote
    assert_grounded(a, glossary)


def test_a_named_counterpart_question_answers_with_the_other_side(
    glossary: Glossary, engine: SearchEngine
) -> None:
    a = answer(glossary, engine, "What's AMD's counterpart to CUDA?")
    assert a.citations[0].term_id == "rocm", a.answer
    assert_grounded(a, glossary)


@pytest.mark.parametrize(
    ("anchor", "side", "expected"),
    [
        ("pagedattention", "sglang", "radixattention"),  # SGLang's version of PagedAttention
        ("tensor-core", "tensor-processing-unit", "tensorcore-tpu"),  # the TPU's own TensorCore
        # the sources link TensorRT-LLM to continuous batching itself (its in-flight batching): no other
        ("continuous-batching", "tensorrt-llm", None),
        ("cuda", "rocm", None),  # no neighbour of ROCm stands out: no guess
    ],
)
def test_a_term_as_the_side_gives_its_neighbour_most_like_the_anchor(
    glossary: Glossary, anchor: str, side: str, expected: str | None
) -> None:
    assert counterpart_in(glossary, anchor, side) == expected


@pytest.mark.parametrize("follow_up", ["What's SGLang's version of that?", "SGLang 那边对应的是啥？"])
def test_what_a_named_term_uses_in_place_of_the_one_under_discussion(
    glossary: Glossary, engine: SearchEngine, follow_up: str
) -> None:
    state = ConversationState()
    answer(glossary, engine, "What is PagedAttention?", context=state)
    a = answer(glossary, engine, follow_up, context=state)
    assert_grounded(a, glossary)
    assert a.citations[0].term_id == "radixattention"


def test_a_named_owners_version_of_the_term_under_discussion(
    glossary: Glossary, engine: SearchEngine
) -> None:
    # "SGLang 的版本" after prefix caching: SGLang's own prefix cache, which its text names
    answers, _ = converse(glossary, engine, "什么是前缀缓存？", "SGLang 的版本叫什么？")
    assert answers[1].citations[0].term_id == "radixattention"


def test_the_opposite_of_a_term_with_several_contrasts_is_the_one_named_by_an_opposite_word(
    glossary: Glossary,
) -> None:
    # Benchmark (intelligence) is contrasted with Benchmark (performance) and with Evals: its
    # opposite is the one whose name differs by an opposite qualifier (intelligence / performance)
    contrasted = glossary.neighbours("benchmark-intelligence", types=("confused_with",))
    assert {"benchmark-performance", "evals"} <= set(contrasted)
    assert opposite(glossary, "benchmark-intelligence") == "benchmark-performance"


def test_instead_of_without_a_side_asks_for_no_counterpart(glossary: Glossary, engine: SearchEngine) -> None:
    # "I" is no side: no vendor or platform whose version of NCCL the sources could name
    a = answer(glossary, engine, "What can I use instead of NCCL?")
    assert a.terms[:1] != ["rccl"] and "pytorch" not in a.terms[:1], a.answer
