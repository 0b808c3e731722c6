"""One node per concept: merges the sources justify, and look-alikes kept apart."""

from __future__ import annotations

import pytest

from kg.store import Glossary
from tests.kg.kg_helpers import term_of


def test_ttft_is_one_node_with_four_sourced_definitions(glossary: Glossary) -> None:
    ttft = glossary.get(term_of(glossary, "TTFT"))
    assert ttft.sources == ["000", "001", "002", "004"]
    assert sorted(d.source for d in ttft.definitions) == ["000", "001", "002", "004"]
    for name in ["Time to first token", "首 token 延迟", "首 token 时间", "time-to-first-token", "ｔｔｆｔ"]:
        assert term_of(glossary, name) == ttft.id


@pytest.mark.parametrize(
    ("alias", "canonical"),
    [
        ("ITL", "TPOT"),  # 002: 即 TPOT 的别称
        ("inter-token latency", "TPOT"),
        ("in-flight batching", "continuous batching"),  # 001: `Continuous batching` 的另一种叫法
        ("operator fusion", "kernel fusion"),  # 002: 同 kernel fusion
        ("Plan 文件", "Engine"),  # 002: 同 Engine
        ("LLM", "Large Language Model"),  # 001: 的缩写 / 与上一行是同一概念
        ("tool use", "Function calling"),  # 001: 也叫
        ("PyTorch compile", "torch.compile"),
        ("KV 缓存", "KV cache"),
        ("張量並行", "tensor parallelism"),  # Traditional characters
        ("All-reduce", "AllReduce"),  # spacing / hyphens
        ("训练后量化", "PTQ"),  # 001's Quantization (post-training)
    ],
)
def test_alias_statements_and_normalised_names_merge(glossary: Glossary, alias: str, canonical: str) -> None:
    assert term_of(glossary, alias) == term_of(glossary, canonical)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("OpenAI Triton", "Triton Inference Server"),
        ("TensorRT", "TensorRT-LLM"),
        ("SGLang", "SGLang-JAX"),
        ("TTFT", "TTFB"),
        ("NVLink", "NVSwitch"),
        ("TensorCore", "Tensor Core"),  # TPU block vs NVIDIA unit (overlay: distinct)
        ("Dynamic batching", "continuous batching"),  # 动态批处理 conflict
        ("Quantization (post-training)", "量化"),
        ("Sampling (decode)", "Decode"),
        ("推理引擎", "推理引擎产物"),
        ("HBM", "VRAM"),
        ("roofline", "Roofline model"),
    ],
)
def test_distinct_concepts_sharing_words_stay_apart(glossary: Glossary, a: str, b: str) -> None:
    assert term_of(glossary, a) != term_of(glossary, b)


def test_conflicting_alias_is_dropped_not_merged(built, glossary: Glossary) -> None:
    dropped = {(d["term"], d["alias"]) for d in built.report["dropped_aliases"]}
    cb = term_of(glossary, "continuous batching")
    assert (cb, "动态批处理") in dropped
    assert term_of(glossary, "动态批处理") == term_of(glossary, "Dynamic batching")
    assert "显存" not in glossary.get(term_of(glossary, "HBM")).aliases


def test_unresolved_alias_target_becomes_a_name(glossary: Glossary) -> None:
    matmul = glossary.get(term_of(glossary, "Matmul"))
    assert matmul.labels.get("zh") == "矩阵乘法"
    assert matmul.id != term_of(glossary, "GEMM")


def test_combined_lines_are_split_into_members(glossary: Glossary) -> None:
    for name in [
        "AOT",
        "JIT",
        "P50",
        "P95",
        "P99",
        "SLA",
        "SLO",
        "MAC",
        "FLOP",
        "INT8",
        "BF16",
        "per-group",
        "对称量化",
        "非对称量化",
        "AllGather",
        "Ampere",
        "Hopper",
        "A100",
        "GB200",
        "NVSwitch",
    ]:
        assert glossary.lookup(name), name
    assert glossary.get(term_of(glossary, "SLO")).labels["en"].lower() == "service level objective"
    assert term_of(glossary, "symmetric quantization") == term_of(glossary, "对称量化")


def test_000_subjects_become_terms(glossary: Glossary) -> None:
    for name, other in [
        ("并发量", "并发"),
        ("MFU", None),
        ("Goodput", None),
        ("分块 prefill", "chunked prefill"),
        ("数据并行", None),
        ("多轮会话", None),
        ("非官方运行", None),
        ("外部 TCO", None),
        ("scale-out", None),
        ("智能体编码工作负载", None),
        ("预热", None),
        ("闭环基准测试", None),
    ]:
        tid = term_of(glossary, name)
        assert "000" in glossary.get(tid).sources
        if other:
            assert tid == term_of(glossary, other)


def test_ids_are_readable_and_unique(glossary: Glossary) -> None:
    assert term_of(glossary, "TTFT") == "time-to-first-token"
    assert term_of(glossary, "OpenAI Triton") == "triton"
    assert len(set(glossary.terms)) == len(glossary.terms)


def test_categories_from_sections_and_inferred(glossary: Glossary, built) -> None:
    ttft = glossary.get(term_of(glossary, "TTFT"))
    assert ttft.categories == ["metrics"] and not ttft.categories_inferred
    ironwood = glossary.get(term_of(glossary, "Ironwood"))  # 000 only: no section
    assert ironwood.categories_inferred and ironwood.categories == ["hardware"]
    assert built.report["inferred_category_nodes"] > 0
    assert built.report["uncategorized_nodes"] < 0.15 * built.report["nodes"]
