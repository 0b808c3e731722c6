"""Linking: names before search, unknown name-shaped words, the names check on search hits."""

from __future__ import annotations

import pytest

from kg.chat import answer
from kg.chat.intents import Slot, parse
from kg.chat.linking import MIN_SEARCH_SCORE, Linker, consistent
from kg.model import Term
from kg.search.engine import SearchEngine
from kg.store import Glossary


def test_unknown_name_shaped_words(glossary: Glossary, engine: SearchEngine) -> None:
    linker = Linker(glossary, engine)
    for q, unknown in [
        ("What is ZeRO-Infinity offload?", ["ZeRO-Infinity"]),
        ("什么是 Ring-AllGather-X 协议？", ["Ring-AllGather-X"]),
        ("What is the FlashDecode-Turbo v9 scheduler?", ["FlashDecode-Turbo", "v9"]),
        ("What is TensorRT-LLM?", []),  # a known name, covered by a mention
        ("OpenAI 的 Triton 是什么？", []),  # OpenAI occurs in the sources
        ("Who won the 2022 World Cup?", []),  # a year is not a name
        ("Is a 30ms TPOT acceptable for chat?", []),  # a quantity is not a name
        ("What is the 192GB B200?", []),
        ("Is 4-bit FP4 good enough at 3.35TB/s?", []),
        ("Is the X900 better than B200?", ["X900"]),  # letters before digits: a model name
    ]:
        a = linker.analyse(parse(q))
        assert a.unknown == unknown, q
    # a known name inside an unknown compound is not a mention
    a = linker.analyse(parse("什么是 Ring-AllGather-X 协议？"))
    assert "allgather" not in [s.term_id for s in a.spans]


def test_names_first_then_search(glossary: Glossary, engine: SearchEngine) -> None:
    linker = Linker(glossary, engine)
    p = parse("OpenAI 的 Triton 是什么？")
    link, _ = linker.link_slot(p.slots[0], linker.analyse(p), in_domain=True)
    assert link is not None and (link.term_id, link.method) == ("triton", "mention")
    p = parse("什么是连续批处理？")
    link, _ = linker.link_slot(p.slots[0], linker.analyse(p), in_domain=True)
    assert link is not None and link.method == "exact"


def test_search_only_needs_the_question_in_domain(glossary: Glossary, engine: SearchEngine) -> None:
    linker = Linker(glossary, engine)
    p = parse("How do I bake sourdough bread?")
    a = linker.analyse(p)
    assert a.spans == []
    link, suggestions = linker.link_slot(p.slots[0], a, in_domain=False)
    assert link is None and suggestions
    assert linker.search_link("sourdough bread", in_domain=False) is None


def test_min_search_score_is_the_dense_top_hit() -> None:
    assert MIN_SEARCH_SCORE == 0.5  # 3 / (5 + 1): the dense stage's rank-1 contribution


def test_consistent(glossary: Glossary) -> None:
    t = glossary.terms
    assert not consistent("data parallelism", t["model-parallelism-overview"])  # "data" is not "model"
    assert not consistent("triple buffering", t["kernel-fusion"])
    assert consistent("tensor parallelism", t["tensor-parallelism"])
    assert consistent("GPU utilization", t["gpu-utilization"])  # GPU 利用率 (editorial English name)
    assert consistent("recurrent state", t["recurrent-state"])  # 循环状态 (editorial English name)
    # a term no source or editor names in English cannot contradict an English question (冷恢复
    # was the last such term; without its editorial English name it is one again)
    cold = t[glossary.lookup("冷恢复")[0].term.id]
    assert consistent("cold restore", cold) and not consistent("cold start", cold)
    chinese_only = Term.from_dict({**cold.to_dict(), "labels": {"zh": "冷恢复"}})
    assert consistent("restoring a session whose KV cache left the GPU", chinese_only)
    assert not consistent("流水线气泡", t["pipeline-parallelism"])
    assert consistent("张量并行", t["tensor-parallelism"])


def test_slot_offsets_are_respected(glossary: Glossary, engine: SearchEngine) -> None:
    linker = Linker(glossary, engine)
    p = parse("TTFT 和 TPOT 有什么区别？")
    a = linker.analyse(p)
    assert [s.term_id for s in linker.spans_in(a, p.slots[0])] == ["time-to-first-token"]
    assert [s.term_id for s in linker.spans_in(a, p.slots[1])] == ["time-per-output-token"]
    assert linker.spans_in(a, Slot("", 0, 0)) == []


def test_a_known_name_with_a_hyphenated_modifier_is_a_mention(
    glossary: Glossary, engine: SearchEngine
) -> None:
    linker = Linker(glossary, engine)
    a = linker.analyse(parse("What's the TPU-native JAX version of the SGLang engine called?"))
    assert "tensor-processing-unit" in {s.term_id for s in a.spans} and a.unknown == []
    # a version number or a capitalised word makes a new name, which the glossary does not know
    for q, word in [
        ("What is FlashAttention-9?", "FlashAttention-9"),
        ("镜像专家路由（Mirror-MoE routing）是什么", "Mirror-MoE"),
    ]:
        assert word in linker.analyse(parse(q)).unknown, q


def test_tensorcore_without_a_space_is_the_tpu_block(glossary: Glossary, engine: SearchEngine) -> None:
    # NOTES.md's name trap: 000 writes the TPU's main compute block "TensorCore"; NVIDIA's unit is
    # "Tensor Core". The same key, told apart by how the question writes it
    assert answer(glossary, engine, "TPU 里的 TensorCore 是什么？").citations[0].term_id == "tensorcore-tpu"
    assert answer(glossary, engine, "Tensor Core 是什么？").citations[0].term_id == "tensor-core"


@pytest.mark.parametrize(
    "question",
    [
        "What's the idea behind microscaling formats like MXFP4?",
        "What are microscaling formats such as MXFP4?",
        "Explain microscaling formats, including MXFP4.",
    ],
)
def test_names_after_like_or_such_as_are_examples_not_the_subject(
    glossary: Glossary, engine: SearchEngine, question: str
) -> None:
    a = answer(glossary, engine, question)
    assert a.citations and a.citations[0].term_id == "microscaling-formats", [c.term_id for c in a.citations]


def test_a_figure_stated_of_a_joint_pair_is_the_pair_in_the_lines_order(
    glossary: Glossary, engine: SearchEngine
) -> None:
    """000 states 输入长度 and 输出长度 in one line, a clause each, then "8K/1K 表示长提示词配较短
    回答" of both: a question about 8K/1K is about the pair, input first, whichever member the
    search ranks first; a member's own clause or a word of it is no figure of the pair."""
    linker = Linker(glossary, engine)
    for member in ("input-sequence-length", "output-sequence-length"):
        found = linker.joint_statement(member, "8k/1k mean on those charts")
        assert found is not None
        members, edge = found
        assert members == ["input-sequence-length", "output-sequence-length"]
        assert edge.origin == "paired-definition" and "8K/1K" in edge.evidence
        assert linker.joint_lead(member, "8k/1k") == "input-sequence-length"
    assert linker.joint_statement("output-sequence-length", "输出长度是什么") is None
    assert linker.joint_statement("time-to-first-token", "8k/1k") is None  # no joint line


@pytest.mark.parametrize(
    ("question", "term"),
    [
        ("What is disaggregated inference?", "disaggregation"),  # not Inference
        ("What is disaggregated serving?", "disaggregation"),  # not the look-alike Aggregated serving
        ("What's a pruned model?", "pruning"),
        ("What's a fine-tuned model?", "fine-tuning"),
        ("What is a quantized model?", "quantization"),
    ],
)
def test_a_participle_before_a_name_stands_for_its_noun(
    glossary: Glossary, engine: SearchEngine, question: str, term: str
) -> None:
    linker = Linker(glossary, engine)
    p = parse(question)
    link, _ = linker.link_slot(p.slots[0], linker.analyse(p), in_domain=True)
    assert link is not None and link.term_id == term


def test_a_participle_whose_noun_is_no_name_links_nothing(glossary: Glossary, engine: SearchEngine) -> None:
    linker = Linker(glossary, engine)
    for question in (
        "What is the shared memory?",
        "What is a cached prompt?",
    ):  # no "sharing", "caching" term
        p = parse(question)
        assert linker.derived_name(p.slots[0], linker.analyse(p).spans) is None, question


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # the head is what the name is, by the name's own definition: the name is the subject
        ("What is the vLLM inference engine good at?", "vllm"),
        ("What does the EAGLE draft model's input consist of?", "eagle"),
        # a head that is no genus of the name stays the subject
        ("How large is the H100's L2 cache?", "l2-cache"),
    ],
)
def test_a_name_followed_by_its_own_genus_is_the_subject(
    glossary: Glossary, engine: SearchEngine, question: str, expected: str
) -> None:
    a = answer(glossary, engine, question)
    assert a.grounded and a.citations[0].term_id == expected


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        # a name with a locative after it ("推理里") places the name that follows
        ("扩散模型推理里 VAE 是干嘛的？", "variational-autoencoder"),
        # several names after it are the parts of the one before: the question is about the law
        ("Little's Law 里并发、吞吐、延迟是啥关系？", "little-s-law"),
        # 001's Batch sizing, glossed 批大小 (batch size word for word): an overlay alias, editorial
        ("What is batch size?", "batch-sizing"),
        ("bigger batch sizes = always better?", "batch-sizing"),
        ("What is a batch?", "batch"),
    ],
)
def test_the_subject_a_question_names(
    glossary: Glossary, engine: SearchEngine, question: str, subject: str
) -> None:
    a = answer(glossary, engine, question)
    assert a.citations and a.citations[0].term_id == subject, a.answer
