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
    a, b = term_of(glossary, "AOT"), term_of(glossary, "JIT")  # "AOT 与 JIT": a pair, each names the other
    kinds = {k[0] for _, other, k in glossary.graph.edges(a, keys=True) if other == b}
    assert kinds == {"related_to", "confused_with"}


def test_graph_queries(glossary: Glossary) -> None:
    ttft, tpot = term_of(glossary, "TTFT"), term_of(glossary, "TPOT")
    path = glossary.shortest_path(ttft, tpot)
    assert path and path[0] == ttft and path[-1] == tpot
    near = glossary.neighbours(ttft, depth=1)
    assert term_of(glossary, "prefill") in near and all(d == 1 for d in near.values())
