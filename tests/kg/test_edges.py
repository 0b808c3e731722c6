"""related_to and confused_with edges, with evidence from the sources."""

from __future__ import annotations

from itertools import combinations

import pytest

from kg.store import Glossary
from tests.kg.kg_helpers import term_of

CONFUSABLE_GROUPS = [
    ["推理", "训练", "微调"],
    ["延迟", "吞吐", "并发"],
    ["compute-bound", "memory-bound", "capacity-bound"],
    ["vLLM", "TensorRT-LLM", "SGLang", "TGI"],
    ["OpenAI Triton", "Triton Inference Server"],
]


def _confused(g: Glossary, a: str, b: str):
    ida, idb = term_of(g, a), term_of(g, b)
    return [e for e in g.confusables(ida) if {e.source, e.target} == {ida, idb}]


@pytest.mark.parametrize("group", CONFUSABLE_GROUPS, ids=lambda g: "/".join(g))
def test_every_confusables_pair_is_an_edge(glossary: Glossary, group: list[str]) -> None:
    for a, b in combinations(group, 2):
        edges = _confused(glossary, a, b)
        assert edges, f"{a} / {b}"
        assert edges[0].doc == "002"
        assert edges[0].evidence


def test_confusable_member_without_entry_gets_its_paragraph_definition(glossary: Glossary, built) -> None:
    t = glossary.get(term_of(glossary, "激活量化"))
    assert [d.source for d in t.definitions] == ["002"]
    assert t.definitions[0].text.startswith("激活量化连激活也压")
    assert built.report["unresolved_references"] == []


@pytest.mark.parametrize(
    ("a", "b", "origin"),
    [
        ("AOT", "JIT", "paired-definition"),
        ("prefill", "decode", "paired-definition"),
        ("内部 TCO", "外部 TCO", "paired-definition"),
        ("Scale-up", "scale-out", "paired-definition"),
        ("计算受限", "访存受限", None),
        ("Dynamic batching", "continuous batching", "replacement"),  # 被 continuous batching 取代
        ("Generative AI", "ML", "negation"),  # 区别于…传统 ML
        ("GPT", "LLM", "negation"),  # 不等于所有 LLM 的统称
        ("Hyperscaler", "Neocloud", "comparative"),  # 和…neocloud 相对
        ("SGLang-JAX", "SGLang", "negation"),  # 独立于…SGLang 运行时
        ("TorchAX", "TorchTPU", "replacement"),  # 正被 TorchTPU 取代
        ("PCIe", "NVLink", "comparative"),  # 比 NVLink 慢但通用
        ("SLA", "SLO", "paired-definition"),  # "SLA / SLO（…）": two terms stated jointly
        ("INT8", "INT4", "paired-definition"),  # "INT8 推理主流，INT4 端侧激进": clause against clause
        ("Perceived TPS", "吞吐", "comparative"),  # 它比笼统的吞吐更贴近单用户体验
        ("InfiniBand", "NVLink", "comparative"),  # 明显低于节点内 NVLink (the head, not 节点)
        ("Ampere", "Blackwell", "comparative"),  # 与 Hopper、Blackwell 对比: every listed item
        ("CUDA runtime", "CUDA driver", "comparative"),  # 比 driver 更…: completed from the owner's name
        ("PCIe GPU 形态", "SXM GPU 形态", "comparative"),  # 少于同型号 SXM 版本
        ("ROCm", "CUDA", "counterpart"),  # 相当于 NVIDIA 平台上的 CUDA
        ("每 token 能耗", "每 token 成本", "counterpart"),  # 每 token 成本在电力侧的对应指标
        ("Vera CPU", "Grace CPU", "replacement"),  # 接替 Grace
        ("CLIP", "LLM", "replacement"),  # 用更强的完整 LLM 替代
        ("TTFT", "TPOT", "parallel"),  # 004: TTFT 衡量…，TPOT 衡量…
        ("SparseCore", "TensorCore", "instead"),  # 放到…SparseCore 上运行而不是 TensorCore
        ("Online inference", "Offline inference", "opposite"),
        ("Open model", "Closed model", "opposite"),
        ("Active-active", "Active-passive", "opposite"),
        ("static batching", "continuous batching", "opposite"),
        ("Time to first byte", "TTFT", "opposite"),
        ("TensorCore", "Tensor Core", "same-name"),
        ("roofline", "Roofline model", "same-name"),
        ("Transformer", "Transformers", "same-name"),
        ("智能基准", "性能基准", "same-name"),
        ("Engine", "inference engine", "same-name"),  # engine ⊂ inference engine, 推理引擎 ⊂ 推理引擎产物
        # general cues (kg.contrasts): generations on one line, "Y 是更…", "X 之后的未来…"
        ("Hopper", "Blackwell", "paired-definition"),
        ("Matmul", "GEMM", "comparative"),
        ("Feynman", "Rubin", "replacement"),
        # neighbouring entries of one kind with opposite traits, opposite names anywhere
        ("CPU", "GPU", "opposite"),
        ("gRPC", "WebSocket", "opposite"),
        ("CUDA Core", "Tensor Core", "opposite"),
        ("static batching", "Dynamic batching", "opposite"),
        # examples of contrasted members ("AOT…（TensorRT 的 Plan 文件）；JIT…（PyTorch 的 eager +
        # torch.compile）", "激活量化…需要 SmoothQuant 这类迁移技术")
        ("TensorRT", "torch.compile", "paired-definition"),
        ("JIT", "TensorRT", "paired-definition"),
        ("SmoothQuant", "权重量化", "confusables-section"),
        # figures side by side, alternatives, what the owner does instead
        ("A100", "H100", "comparative"),
        ("Prompt", "Fine-tuning", "comparative"),
        ("Gated DeltaNet", "KV cache", "instead"),
    ],
)
def test_contrast_statements_make_confused_with(
    glossary: Glossary, a: str, b: str, origin: str | None
) -> None:
    edges = _confused(glossary, a, b)
    assert edges, f"{a} / {b}"
    if origin:
        assert any(x.origin == origin for e in edges for x in e.items)
    assert all(e.items and e.items[0].text == e.evidence for e in edges)


def test_confusables_paragraph_pairs_within_its_sentences(glossary: Glossary) -> None:
    # 002 易混淆辨析 "PTQ / QAT / 权重量化 / 激活量化：PTQ…；QAT…。权重量化…，激活量化…": two axes
    assert _confused(glossary, "PTQ", "QAT")
    assert _confused(glossary, "权重量化", "激活量化")
    for a, b in [("PTQ", "权重量化"), ("PTQ", "激活量化"), ("QAT", "权重量化"), ("QAT", "激活量化")]:
        assert not _confused(glossary, a, b), f"{a} / {b}: different axes"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Kernel 融合", "Triton"),  # related, not contrasted
        ("NPU", "TPU"),  # 广义含 TPU: a kind of, not a contrast
        ("CUDA kernel", "CUDA Graph"),  # share a word, differ in the head
        ("Foundation model", "Open model"),  # one word apart, not opposites
        ("post-training quantization", "quantization"),  # a kind of quantization
        ("Disaggregation", "decode"),  # "和 decode 拆到…使用不同硬件": 不同 is no marker
        ("CPU offloading", "NVMe offloading"),  # one kind, no opposite trait
        ("每美元 token 数", "每美元性能"),  # neighbours that share words
        ("聚合服务", "decode"),  # "加入 prefill-decode 分离之前的": decode does not touch 之前
        ("长上下文", "attention"),  # "长上下文能力和 attention 内存需求之间存在权衡": not the terms
        ("Kernel 融合", "HBM"),  # "中间数据留在快速内存里而不是反复经过 HBM"
        ("TP", "AllReduce"),  # an example is not set against its own member
        ("TP", "AllGather"),  # "（TP 用）" names a user, not an instance
        ("SmoothQuant", "激活量化"),
        ("NVSwitch", "H100"),  # "NVLink…（H100）": only one member has an example
    ],
)
def test_pairs_that_share_words_or_sentences_are_not_contrasts(glossary: Glossary, a: str, b: str) -> None:
    assert not _confused(glossary, a, b)


def test_confused_with_is_symmetric_and_unique(glossary: Glossary) -> None:
    pairs = [(e.source, e.target) for e in glossary.edges if e.type == "confused_with"]
    assert all(a < b for a, b in pairs)
    assert len(pairs) == len(set(pairs))


def test_related_to_from_mentions_and_xrefs(glossary: Glossary) -> None:
    ttft = term_of(glossary, "TTFT")
    related = {e.target if e.source == ttft else e.source for e in glossary.related(ttft)}
    assert term_of(glossary, "prefill") in related  # "对应 prefill 阶段"
    lm = term_of(glossary, "LMCache")
    assert term_of(glossary, "vLLM") in {e.target for e in glossary.related(lm)}
    ev = next(e for e in glossary.related(lm) if e.target == term_of(glossary, "vLLM"))
    assert "vLLM" in ev.evidence and ev.origin == "mention" and ev.doc == "004"
    roofline = term_of(glossary, "算术强度")
    assert any(e.origin == "xref" for e in glossary.related(roofline))  # 详见Roofline 模型


def test_a_contrasted_pair_is_confused_with_only(glossary: Glossary) -> None:
    a, b = term_of(glossary, "prefill"), term_of(glossary, "decode")  # a pair that also names each other
    kinds = [k[0] for _, other, k in glossary.graph.edges(a, keys=True) if other == b]
    assert kinds == ["confused_with"]
    (edge,) = _confused(glossary, "prefill", "decode")
    assert edge.origin == "paired-definition"
    assert any(x.origin == "mention" for x in edge.items)  # the mention stays as evidence


def test_one_edge_per_pair_and_type_with_distinct_evidence(glossary: Glossary, built) -> None:
    keys = [(*sorted((e.source, e.target)), e.type) for e in glossary.edges]
    assert len(keys) == len(set(keys))
    for e in glossary.edges:
        places = [(x.doc, x.line, x.text) for x in e.items]
        assert len(places) == len(set(places)), e
    assert built.report["duplicate_evidence_edges"] == 0
    assert built.report["pairs_with_both_types"] == 0


def test_related_to_read_from_both_sides_keeps_each_side(glossary: Glossary) -> None:
    # AllReduce and AllGather are listed together on one 002 line: one edge, both directions stated
    a, b = term_of(glossary, "TTFT"), term_of(glossary, "prefill")
    (edge,) = [e for e in glossary.related(a) if {e.source, e.target} == {a, b}]
    assert a in {x.subject for x in edge.items}


def test_graph_queries(glossary: Glossary) -> None:
    ttft, tpot = term_of(glossary, "TTFT"), term_of(glossary, "TPOT")
    path = glossary.shortest_path(ttft, tpot)
    assert path and path[0] == ttft and path[-1] == tpot
    near = glossary.neighbours(ttft, depth=1)
    assert term_of(glossary, "prefill") in near and all(d == 1 for d in near.values())


def _related(g: Glossary, a: str, b: str) -> bool:
    """Whether *a*'s own text relates it to *b* (an evidence item whose subject is *a*)."""
    ida, idb = term_of(g, a), term_of(g, b)
    return any(
        {e.source, e.target} == {ida, idb} and ida in {x.subject for x in e.items} for e in g.related(ida)
    )


@pytest.mark.parametrize(
    ("a", "b", "linked"),
    [
        # 002 L92: "AllReduce 求和后广播（TP 用）；AllGather 各卡拼齐（PP 用）；All-to-All 全交换（EP 用）"
        ("AllReduce", "tensor parallelism", True),
        ("AllReduce", "pipeline parallelism", False),
        ("AllGather", "pipeline parallelism", True),
        ("All-to-All", "tensor parallelism", False),
        # 002 L50: each precision keeps its own clause
        ("FP8", "Hopper", True),
        ("INT8", "Hopper", False),
        ("FP16", "training", True),
        ("INT4", "training", False),
        # 002 L115: "Ampere / Hopper / Blackwell：A100、H100、B200" pairs by position
        ("Hopper", "H100", True),
        ("Hopper", "A100", False),
        ("Blackwell", "B200", True),
        # 002 L58: the INT8 range belongs to the symmetric clause; 非对称 is not 对称
        ("对称量化", "INT8", True),
        ("非对称量化", "INT8", False),
        # 002 L120: "B200 上是 NVLink Switch" continues NVSwitch's clause
        ("NVSwitch", "B200", True),
        ("NVLink", "B200", False),
    ],
)
def test_lines_defining_several_terms_give_each_its_own_clauses(
    glossary: Glossary, a: str, b: str, linked: bool
) -> None:
    assert _related(glossary, a, b) is linked


def test_what_a_term_is_said_not_to_be_is_not_related(glossary: Glossary) -> None:
    # 002 L97 "（不是 OpenAI Triton）": a contrast, not a relation
    assert _confused(glossary, "Triton Inference Server", "OpenAI Triton")
    assert not _related(glossary, "Triton Inference Server", "OpenAI Triton")
