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
    ["PTQ", "QAT", "权重量化", "激活量化"],  # 激活量化: defined only by the 辨析 paragraph
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
        ("Dynamic batching", "continuous batching", "contrast"),  # 被 continuous batching 取代
        ("Generative AI", "ML", "contrast"),  # 区别于…传统 ML
        ("GPT", "LLM", "contrast"),  # 不等于所有 LLM 的统称
        ("Hyperscaler", "Neocloud", "contrast"),  # 和…neocloud 相对
        ("SGLang-JAX", "SGLang", "contrast"),  # 独立于…SGLang 运行时
        ("TorchAX", "TorchTPU", "contrast"),  # 正被 TorchTPU 取代
        ("PCIe", "NVLink", "contrast"),  # 比 NVLink 慢但通用
    ],
)
def test_contrast_statements_make_confused_with(
    glossary: Glossary, a: str, b: str, origin: str | None
) -> None:
    edges = _confused(glossary, a, b)
    assert edges, f"{a} / {b}"
    if origin:
        assert any(e.origin == origin for e in edges)


def test_confused_with_is_symmetric_and_unique(glossary: Glossary) -> None:
    pairs = [(e.source, e.target) for e in glossary.edges if e.type == "confused_with"]
    assert all(a < b for a, b in pairs)
    assert len(pairs) == len(set(pairs))


def test_related_to_from_mentions_and_xrefs(glossary: Glossary) -> None:
    ttft = term_of(glossary, "TTFT")
    related = {e.target for e in glossary.related(ttft) if e.source == ttft}
    assert term_of(glossary, "prefill") in related  # "对应 prefill 阶段"
    lm = term_of(glossary, "LMCache")
    assert term_of(glossary, "vLLM") in {e.target for e in glossary.related(lm)}
    ev = next(e for e in glossary.related(lm) if e.target == term_of(glossary, "vLLM"))
    assert "vLLM" in ev.evidence and ev.origin == "mention" and ev.doc == "004"
    roofline = term_of(glossary, "算术强度")
    assert any(e.origin == "xref" for e in glossary.related(roofline))  # 详见Roofline 模型


def test_both_edge_kinds_can_join_one_pair(glossary: Glossary) -> None:
    a, b = term_of(glossary, "prefill"), term_of(glossary, "decode")  # a pair that also names each other
    kinds = {k[0] for _, other, k in glossary.graph.edges(a, keys=True) if other == b}
    assert kinds == {"related_to", "confused_with"}


def test_graph_queries(glossary: Glossary) -> None:
    ttft, tpot = term_of(glossary, "TTFT"), term_of(glossary, "TPOT")
    path = glossary.shortest_path(ttft, tpot)
    assert path and path[0] == ttft and path[-1] == tpot
    near = glossary.neighbours(ttft, depth=1)
    assert term_of(glossary, "prefill") in near and all(d == 1 for d in near.values())


def _related(g: Glossary, a: str, b: str) -> bool:
    ida, idb = term_of(g, a), term_of(g, b)
    return any(e.source == ida and e.target == idb for e in g.related(ida))


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
