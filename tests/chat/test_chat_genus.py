"""What kind of thing a term is, as its definition says (kg.chat.genus), and the listings built on it."""

from __future__ import annotations

import pytest

from kg.chat.bot import answer
from kg.chat.genus import asks_family, called_a, genus_names, kinds_of
from kg.chat.model import ConversationState
from kg.search.engine import SearchEngine
from kg.store import Glossary
from tests.chat.chat_helpers import assert_grounded


def test_a_definition_that_ends_on_a_class_name_makes_its_term_a_kind_of_it(glossary: Glossary) -> None:
    # "B300：Blackwell 数据中心 GPU；…", 002 "A100 / H100 / H200：NVIDIA 数据中心 GPU 具体型号"
    assert {"a100", "b300", "h100", "h200"} <= set(kinds_of(glossary, "graphics-processing-unit"))
    # "UC Berkeley 开源的 LLM 推理引擎": the longest name the phrase ends on (推理引擎), even glued to LLM
    assert {"vllm", "tensorrt-llm"} <= set(kinds_of(glossary, "inference-engine"))
    # after a copula: "ragged paged attention 是 TPU 的注意力 kernel"
    assert "ragged-paged-attention" in kinds_of(glossary, "kernel")
    assert genus_names(glossary, "grace-cpu") == ["central-processing-unit"]


@pytest.mark.parametrize(
    ("term", "not_a"),
    [
        ("pipeline-parallelism", "graphics-processing-unit"),  # "把模型层切成多个 stage 分布到 GPU": a verb
        ("gpu-node", "graphics-processing-unit"),  # a GPU node holds GPUs; its genus is 机箱
        ("thread", "graphics-processing-unit"),  # "GPU 上最小的执行单元"
        ("microscaling-formats", "nvfp4"),  # "如 MXFP8、MXFP4、NVFP4": its own kinds, not its genus
        ("little-s-law", "latency"),  # "并发 = 吞吐 × 延迟": a formula
        ("sliding-window-attention", "token"),  # "…让某些层只看最近一段 token": a sentence
    ],
)
def test_a_clause_that_says_what_the_term_does_gives_no_genus(
    glossary: Glossary, term: str, not_a: str
) -> None:
    assert term not in kinds_of(glossary, not_a)


@pytest.mark.parametrize(
    "question",
    [
        "What GPUs does the glossary list?",
        "常见的 GPU 有哪些型号？",
        "Which GPUs are in the glossary?",
        "词表里有哪些 GPU？",
    ],
)
def test_a_listing_of_a_class_gives_its_kinds_not_the_terms_linked_to_it(
    glossary: Glossary, engine: SearchEngine, question: str
) -> None:
    a = answer(glossary, engine, question, context=ConversationState())
    assert_grounded(a, glossary)
    assert a.intent == "listing" and a.citations[0].term_id == "graphics-processing-unit"
    assert {"a100", "b200", "b300", "h100", "h200"} <= set(a.listed)
    # linked to GPUs, but none is one
    assert not {"gpu-node", "thread", "cuda", "pcie", "streaming-multiprocessor"} & set(a.terms)
    # the heading names the class as asked ("GPU", not the folded "常见的gpu")
    assert " GPU " in a.answer and "gpu" not in a.answer.replace("graphics processing unit", "")


def test_a_name_inside_a_longer_instance_name_is_not_an_instance(
    glossary: Glossary, engine: SearchEngine
) -> None:
    # "代表：TensorRT、ONNX Runtime、vLLM、Triton Inference Server": "inference" is inside a name
    a = answer(glossary, engine, "有哪些推理引擎？", context=ConversationState())
    assert a.intent == "listing" and a.citations[0].term_id == "inference-engine"
    assert a.listed[:4] == ["tensorrt", "onnx-runtime", "vllm", "triton-inference-server"]
    assert "inference" not in a.listed


def test_which_cpus_are_in_the_glossary_is_a_listing(glossary: Glossary, engine: SearchEngine) -> None:
    # a which question in the plural about the glossary's contents: not "the term that best fits"
    a = answer(glossary, engine, "Which CPUs are in the glossary?", context=ConversationState())
    assert a.intent == "listing" and a.citations[0].term_id == "central-processing-unit"
    assert sorted(a.listed) == ["grace-cpu", "vera-cpu"]  # in the order a search ranks them


@pytest.mark.parametrize(
    ("term", "word", "expected"),
    [
        ("vllm", "engine", True),  # "…开源的 LLM 推理引擎"
        ("flashattention", "kernel", True),
        ("nvlink", "interconnect", True),
        ("general-matrix-matrix-multiplication", "library", False),  # 通用矩阵乘法 is an operation
        ("tensorrt", "engine", False),  # "…推理优化的运行时": its engine is the compiled file
        ("kv-cache", "library", False),
    ],
)
def test_called_a_reads_the_terms_own_names_and_first_sentences(
    glossary: Glossary, term: str, word: str, expected: bool
) -> None:
    assert called_a(glossary, term, word) is expected


def test_of_its_kind_is_the_contrasted_one_else_the_same_genus(glossary: Glossary) -> None:
    from kg.chat.genus import of_its_kind

    # FP4 and FP8 are contrasted by the sources; GPU is of another kind
    assert of_its_kind(glossary, "fp4", ["fp8", "graphics-processing-unit"]) == "fp8"
    assert of_its_kind(glossary, "fp4", ["graphics-processing-unit"]) is None
    assert of_its_kind(glossary, "fp4", []) is None


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("What family of formats does it belong to?", True),
        ("What's the family of formats it belongs to called?", True),
        ("It belongs to which category?", True),
        ("它属于哪一类量化方法？", True),
        ("NVFP4 是哪个家族的？", True),
        ("What does it belong in?", False),
        ("它属于训练还是推理？", False),  # a choice between two, not its class
    ],
)
def test_a_question_for_the_class_a_term_belongs_to(question: str, asks: bool) -> None:
    assert asks_family(question) is asks


def test_the_class_asked_for_is_the_one_the_terms_own_definition_names(
    glossary: Glossary, engine: SearchEngine
) -> None:
    """ "What family of formats does it belong to?" after NVFP4: its definition calls it a
    "4 位浮点微缩放格式", so Microscaling formats answers, not NVFP4 again; a term whose
    definition names no class is left to the other stages."""
    assert genus_names(glossary, "nvfp4") == ["microscaling-formats"]
    state = ConversationState()
    answer(glossary, engine, "What is NVFP4?", context=state)
    a = answer(glossary, engine, "What family of formats does it belong to?", context=state)
    assert_grounded(a, glossary)
    assert a.citations[0].term_id == "microscaling-formats" and "nvfp4" in a.terms
    b = answer(glossary, engine, "What family of methods does GPTQ belong to?")
    assert b.citations[0].term_id == "post-training-quantization"
