"""A vendor's own kind of thing (kg/chat/owned.py), on the real graph."""

from __future__ import annotations

import pytest

from kg.chat.bot import answer
from kg.chat.owned import vendor_and_class
from kg.search.engine import SearchEngine
from kg.store import Glossary


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("And AMD's own inference engine?", ("amd", "engine", "engine")),
        ("does AMD have its own inference engine too?", ("amd", "engine", "engine")),
        ("AMD 自己调优的 kernel 库呢？", ("amd", "library", "库")),  # the last class word is the head
        ("微软那个跨平台的推理引擎叫什么？", ("microsoft", "engine", "引擎")),
        ("What's the model's format?", None),  # no vendor: a lower-case word
        ("What is its kernel library?", None),
        # "What's" is a verb: the owner after it is not swallowed by a match on "What"
        ("What's AMD's inference engine?", ("amd", "engine", "engine")),
        ("It's AMD's inference engine, right?", ("amd", "engine", "engine")),
    ],
)
def test_vendor_and_class(question: str, expected: tuple[str, str, str] | None) -> None:
    assert vendor_and_class(question) == expected


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Which is AMD's own inference engine?", "atom"),  # "ATOM 是 AMD 自研的推理引擎"
        ("AMD 自研的推理引擎叫什么？", "atom"),
        ("What is AMD's tuned kernel library called?", "aiter"),  # "AITER 是 AMD 调优过的 kernel 库"
        ("What's AMD's inference engine?", "atom"),
        # in-flight batching, "TensorRT-LLM 的连续批处理实现", is a name of continuous batching itself
        ("What is TensorRT-LLM's flavour of continuous batching called?", "continuous-batching"),
        # a text that mentions "TPU 的 SparseCore" (collective offload) is not the TPU's SparseCore
        ("What's the TPU's SparseCore responsible for?", "sparsecore"),
    ],
)
def test_the_vendors_own_term_answers(
    glossary: Glossary, engine: SearchEngine, question: str, expected: str
) -> None:
    a = answer(glossary, engine, question)
    assert a.grounded and a.citations[0].term_id == expected


def test_a_named_term_of_the_vendor_is_left_to_the_other_stages(
    glossary: Glossary, engine: SearchEngine
) -> None:
    a = answer(glossary, engine, "OpenAI Triton 和 NVIDIA 的 Triton Inference Server 是一回事吗？")
    assert a.intent == "comparison" and {"triton", "triton-inference-server"} <= set(a.terms)


def test_a_vendors_implementation_of_the_term_under_discussion(
    glossary: Glossary, engine: SearchEngine
) -> None:
    """ "And NVIDIA's implementation of that?" after GEMM: of the terms linked to GEMM, the one
    whose first clause names NVIDIA (cuBLAS); with nothing under discussion, no term is guessed."""
    from kg.chat.model import ConversationState

    s = ConversationState()
    answer(glossary, engine, "What is GEMM?", context=s)
    a = answer(glossary, engine, "And NVIDIA's implementation of that?", context=s)
    assert a.citations and a.citations[0].term_id == "cublas"
    assert a.decision["candidate"] == "cublas"
    cold = answer(glossary, engine, "And NVIDIA's implementation of that?")
    assert not cold.grounded and not cold.citations  # "that" points at nothing: it asks which term


@pytest.mark.parametrize(
    "question",
    [
        "What does SGLang use for prefix caching?",
        "What is SGLang's prefix caching mechanism?",
        "SGLang 的前缀缓存技术叫什么？",
    ],
)
def test_a_named_owners_kind_is_the_term_its_text_writes_before_the_kind(
    glossary: Glossary, engine: SearchEngine, question: str
) -> None:
    """SGLang's text: "主打结构化生成与 RadixAttention 前缀缓存" — its prefix cache is RadixAttention,
    quoted first, SGLang beside it (kg/chat/instance.py)."""
    a = answer(glossary, engine, question)
    assert [c.term_id for c in a.citations[:2]] == ["radixattention", "sglang"]


@pytest.mark.slow
def test_a_kind_named_by_other_words_is_found_by_the_search(
    glossary: Glossary, real_engine: SearchEngine
) -> None:
    """ "prefix cache" names no term exactly; the search's best term for it (Prefix caching) is
    the kind SGLang's text writes RadixAttention before."""
    a = answer(glossary, real_engine, "What's SGLang's prefix cache called?")
    assert [c.term_id for c in a.citations[:2]] == ["radixattention", "sglang"]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("what is a prefil stage", "prefill"),  # two words side by side: no owner, no possessive
        ("What is the OpenAI Triton kernel language?", "triton"),
        ("What does vLLM use for prefix caching?", "vllm"),  # vLLM's text names no such term
    ],
)
def test_no_owner_or_no_owned_term_leaves_the_named_term(
    glossary: Glossary, engine: SearchEngine, question: str, expected: str
) -> None:
    a = answer(glossary, engine, question)
    assert a.citations and a.citations[0].term_id == expected


def test_the_kind_a_follow_up_opens_with_is_the_referents_own(
    glossary: Glossary, engine: SearchEngine
) -> None:
    """ "What prefix caching mechanism does it use?" after SGLang: the term SGLang's text writes
    before 前缀缓存 (RadixAttention), whatever pronoun picks the owner."""
    from tests.chat.chat_helpers import converse

    answers, _ = converse(glossary, engine, "What is SGLang?", "What prefix caching mechanism does it use?")
    assert [c.term_id for c in answers[1].citations[:2]] == ["radixattention", "sglang"]


def test_a_name_inside_a_longer_name_is_not_written_before_the_kind(
    glossary: Glossary, engine: SearchEngine
) -> None:
    # prefill's text has "首 token 延迟" (TTFT's name): token is not prefill's latency metric
    from tests.chat.chat_helpers import converse

    answers, _ = converse(
        glossary, engine, "Compare prefill and decode.", "Which latency metric does the former mainly drive?"
    )
    assert answers[1].citations and answers[1].citations[0].term_id != "token"
