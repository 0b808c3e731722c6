"""The contrast rules of kg.contrasts on small made-up terms, and the contrast scorer."""

from __future__ import annotations

import pytest

from kg.contrasts import (
    Contrast,
    adjacent_contrasts,
    adjacent_opposites,
    crossed_name_pairs,
    figure_contrasts,
    marker_contrasts,
    parallel_contrasts,
    parallel_slots,
    same_name_pairs,
    variant_pairs,
    vendor_counterparts,
)
from kg.evaluation.contrasts import LabelledPair, score_contrasts
from kg.model import Definition, Edge, Name, RawEntry, Term
from kg.relations import Resolver


def _term(tid: str, en: str = "", zh: str = "", aliases: tuple[str, ...] = (), text: str = "x") -> Term:
    labels = {k: v for k, v in (("en", en), ("zh", zh)) if v}
    return Term(tid, labels, list(aliases), [], [Definition("zh", text, "001", None, 1)], [], ["001"])


TERMS = [
    _term("h100", "H100"),
    _term("h200", "H200"),
    _term("hbm", "HBM", "高带宽内存"),
    _term("llm", "LLM"),
    _term("cb", "continuous batching", "连续批处理"),
    _term("db", "Dynamic batching", "动态批处理"),
    _term("cuda-runtime", "CUDA runtime"),
    _term("cuda-driver", "CUDA driver"),
    _term("tp", "tensor parallelism", "张量并行"),
    _term("pp", "pipeline parallelism", "流水线并行"),
    _term("ttft", "TTFT"),
    _term("tpot", "TPOT"),
    _term("bw", "bandwidth", "带宽"),
    _term("eth", "Ethernet"),
]
BY_ID = {t.id: t for t in TERMS}


def _pairs(owner: str, text: str) -> set[tuple[str, str, str]]:
    res = Resolver(TERMS)
    found = marker_contrasts(BY_ID[owner], text, res, "001", 1) + parallel_contrasts(
        BY_ID[owner], text, res, "001", 1
    )
    found += figure_contrasts(BY_ID[owner], text, res, "001", 1)
    found += parallel_slots(BY_ID[owner], text, res, "001", 1)
    return {(*sorted((c.a, c.b)), c.kind) for c in found}


@pytest.mark.parametrize(
    ("owner", "text", "expected"),
    [
        # the owner is the subject a Chinese definition leaves out
        ("db", "对 LLM 通常被 continuous batching 取代。", {("cb", "db", "replacement")}),
        # a term right before the marker is the subject, not the owner
        ("hbm", "同一代里 H200 比 H100 显存更大。", {("h100", "h200", "comparative")}),
        # a property word is not a side: "带宽通常高于 Ethernet" contrasts the owner
        ("tp", "带宽通常高于 Ethernet。", {("eth", "tp", "comparative")}),
        # a shortened sibling name is completed from the owner's name
        ("cuda-runtime", "比 driver 更接近应用代码。", {("cuda-driver", "cuda-runtime", "comparative")}),
        # "A 与 B 的区别", "前者…后者": the listed terms, not the owner
        ("llm", "张量并行与流水线并行的区别在于切分方式。", {("pp", "tp", "comparative")}),
        ("llm", "张量并行和流水线并行：前者切层内，后者切层间。", {("pp", "tp", "comparative")}),
        # clause by clause with the same verb
        ("llm", "TTFT 衡量开始多快，TPOT 衡量生成多快。", {("tpot", "ttft", "parallel")}),
        # an alternative, "vs", "两者…", a trade-off between two named terms
        ("llm", "先判断 TTFT 还是 TPOT 更重要。", {("tpot", "ttft", "comparative")}),
        ("llm", "TTFT vs TPOT：开始多快与生成多快。", {("tpot", "ttft", "comparative")}),
        ("llm", "H100 偏训练，H200 偏推理，两者差异很大。", {("h100", "h200", "comparative")}),
        ("llm", "张量并行与流水线并行之间存在权衡。", {("pp", "tp", "comparative")}),
        ("llm", "张量并行能力和 HBM 内存需求之间存在权衡。", set()),
        # another term ranked against the owner, and succession told by 之后的
        ("h100", "H200 是更新的型号。", {("h100", "h200", "comparative")}),
        ("h200", "H100 之后的新一代 GPU。", {("h100", "h200", "replacement")}),
        ("h200", "加入 HBM 扩容之前的默认形态。", set()),
        # an alternative to a separate X, not any X the text says is not needed
        ("h200", "不一定需要独立 HBM，但要改模型结构。", {("h200", "hbm", "negation")}),
        ("h200", "不需要经过 HBM。", set()),
        # alternatives; an English word inflected ("prompting")
        (
            "llm",
            "可以直接用 TTFT，也可以用 TPOT。",
            {("tpot", "ttft", "comparative"), ("tpot", "ttft", "parallel")},
        ),
        # the two poles of 介于, too
        (
            "tp",
            "介于 H100 与 H200 之间。",
            {("h100", "tp", "comparative"), ("h200", "tp", "comparative"), ("h100", "h200", "comparative")},
        ),
        # "…而不是 X" with no term before: what the owner does instead, unless two places are opposed
        ("tp", "每卡只保留一份切片，而不是完整的 HBM。", {("hbm", "tp", "instead")}),
        ("tp", "中间数据留在快速内存里而不是反复经过 HBM。", set()),
        # English cues
        ("h200", "Offers more memory than H100.", {("h100", "h200", "comparative")}),
        ("llm", "Use H200 rather than H100.", {("h100", "h200", "instead")}),
        # an abstract thing and its concrete form
        ("h200", "H100 在新硬件上的具体实现。", {("h100", "h200", "implementation")}),
        # figures side by side
        ("hbm", "带宽（H100 3.35 TB/s、H200 4.8 TB/s）。", {("h100", "h200", "comparative")}),
        ("llm", "H100（2022）、H200（2023）两代。", {("h100", "h200", "comparative")}),
        ("llm", "H100、H200 都用 HBM。", set()),
        # "受 X 限制，而不是 Y": what bounds the owner, and the owner itself, against Y
        (
            "tp",
            "性能主要受 HBM 带宽限制，而不是 Ethernet。",
            {("bw", "eth", "instead"), ("eth", "tp", "instead")},
        ),
        ("tp", "性能主要看 HBM 带宽，而不是 Ethernet。", {("bw", "eth", "instead")}),
        # "目标是 X，而不是 Y": what the owner aims at sets only X against Y, not the owner
        ("tp", "唯一目标是每美元最多 HBM 带宽，而不是 Ethernet。", {("bw", "eth", "instead")}),
        # clauses that fill one slot with different terms; a list in one clause is no slot
        ("llm", "A 求和（TTFT 用）；B 拼齐（TPOT 用）。", {("tpot", "ttft", "parallel")}),
        ("llm", "聊天重 TTFT，批处理重 TPOT。", {("tpot", "ttft", "parallel")}),
        ("llm", "聊天重 TTFT、TPOT。", set()),
        ("llm", "聊天看重 TTFT，对 H100 友好。", set()),
        # a performance measured against another term's
        ("tp", "Python 写的 kernel，性能接近手写 H100 代码。", {("h100", "tp", "comparative")}),
        ("tp", "它在 H100 上接近峰值。", set()),
        # terms a sentence calls different tiers or kinds of one thing
        (
            "llm",
            "H100、HBM、Ethernet 是不同层级的带宽。",
            {("eth", "h100", "comparative"), ("eth", "hbm", "comparative"), ("h100", "hbm", "comparative")},
        ),
        ("llm", "H100、HBM 都是常见的带宽来源。", set()),
        # two kinds of part in one whole
        ("llm", "同时包含张量并行和流水线并行的部署。", {("pp", "tp", "comparative")}),
        ("llm", "Serving both TTFT and TPOT targets.", {("tpot", "ttft", "comparative")}),
        # a wider inventory of general markers (Chinese and English)
        ("tp", "与 H100 截然相反。", {("h100", "tp", "comparative")}),
        ("tp", "不要与 HBM 混为一谈。", {("hbm", "tp", "comparative")}),
        ("tp", "H100 与 H200 有所不同。", {("h100", "h200", "comparative")}),
        ("tp", "吞吐逊于 H100。", {("h100", "tp", "comparative")}),
        ("tp", "迥异于 HBM 的做法。", {("hbm", "tp", "negation")}),
        ("tp", "较之 H100 更省电。", {("h100", "tp", "comparative")}),
        ("tp", "把较大的 H100 切成小块更省。", set()),
        ("h200", "Often confused with H100.", {("h100", "h200", "negation")}),
        ("h200", "Differs from H100 in memory.", {("h100", "h200", "negation")}),
        ("h200", "Deprecated in favour of H100.", {("h100", "h200", "replacement")}),
        ("h200", "The AMD counterpart of H100.", {("h100", "h200", "counterpart")}),
        ("h200", "对标 H100。", {("h100", "h200", "counterpart")}),
        # "不是 X，而是 Y": both named
        ("llm", "瓶颈在于 H100 的算力，而是 HBM。", set()),
        ("llm", "瓶颈不在于 H100 的算力而在于 HBM。", {("h100", "hbm", "instead")}),
        ("llm", "The limit is not H100 but HBM.", {("h100", "hbm", "instead")}),
        ("llm", "瓶颈不是算力，而是 HBM。", set()),
        # the next clause's subject set against this one's by 则 / 却 / 而 / whereas / while
        ("llm", "TTFT 看首字，TPOT 则看后续。", {("tpot", "ttft", "parallel")}),
        ("llm", "H100 适合训练，而 H200 适合推理。", {("h100", "h200", "parallel")}),
        ("llm", "TTFT tracks the first token, whereas TPOT tracks the rest.", {("tpot", "ttft", "parallel")}),
        ("tp", "切分每一层，流水线并行则切分层间。", {("pp", "tp", "parallel")}),
        ("tp", "切分每一层，而不是 HBM 的层。", {("hbm", "tp", "instead")}),
        ("llm", "H100 适合训练，HBM 决定容量。", set()),
        # a side named in the plural, or with a modifier before the name of an alternative
        ("h200", "Offers more memory than H100s.", {("h100", "h200", "comparative")}),
        ("h200", "Unlike CUDA drivers, it is loaded per process.", {("cuda-driver", "h200", "negation")}),
        ("h200", "Offers more memory than H100s do in practice.", set()),
        ("llm", "先看 TTFT 还是单用户 TPOT。", {("tpot", "ttft", "comparative")}),
        # words that look like markers but compare nothing named
        ("tp", "延迟低于 100 ms，适合在线服务。", set()),
        ("tp", "把 prefill 和 decode 拆到使用不同硬件的引擎。", set()),
    ],
)
def test_marker_rules(owner: str, text: str, expected: set[tuple[str, str, str]]) -> None:
    assert _pairs(owner, text) == expected


def test_same_name_pairs_ignore_spacing_plurals_and_label_qualifiers_only() -> None:
    terms = [
        _term("tensor-core", "Tensor Core"),
        _term("tensorcore-tpu", "TensorCore (TPU)"),
        _term("quantization", "quantization"),
        _term("ptq", "post-training quantization", aliases=("Quantization (post-training)",)),
        _term("transformer", "Transformer"),
        _term("transformers", "Transformers (library)"),
    ]
    pairs = {(c.a, c.b) for c in same_name_pairs(terms)}
    assert pairs == {("tensor-core", "tensorcore-tpu"), ("transformer", "transformers")}
    assert all(isinstance(c, Contrast) and c.kind == "same-name" for c in same_name_pairs(terms))


def test_names_contained_crosswise_across_languages_are_same_name_pairs() -> None:
    # "engine" inside "inference engine" but 推理引擎 inside 推理引擎产物: one word, two things;
    # a kind inside its species in both languages (cache / KV cache) is no such pair
    terms = [
        _term("engine", "Engine", "推理引擎产物"),
        _term("inference-engine", "inference engine", "推理引擎"),
        _term("cache", "Cache", "缓存"),
        _term("kv-cache", "KV cache", "KV 缓存"),
        _term("batch", "Batch", "批次"),
        _term("batching", "continuous batching", "连续批处理"),
    ]
    assert [(a.id, b.id) for a, b in crossed_name_pairs(terms)] == [("engine", "inference-engine")]
    pairs = {(c.a, c.b, c.kind) for c in same_name_pairs(terms)}
    assert pairs == {("engine", "inference-engine", "same-name")}


def test_scorer_counts_found_missed_unresolved_and_false_edges() -> None:
    edges = [Edge("h100", "h200", "confused_with", "ev", "comparative", "001", 1)]
    pairs = [
        LabelledPair("p1", ("H100",), ("H200",), "contrast", "comparative", "001:1"),
        LabelledPair("p2", ("TTFT",), ("TPOT",), "contrast", "parts", "001:2", explicit=False),
        LabelledPair("p3", ("Nope",), ("TPOT",), "contrast", "negation", "001:3"),
        LabelledPair("p4", ("H200",), ("H100",), "not_contrast", "related", "001:4"),
        LabelledPair("p5", ("HBM",), ("H100",), "not_contrast", "related", "001:5"),
    ]
    s = score_contrasts(TERMS, edges, pairs)
    assert (s["found"], s["missed"], s["missed_unresolved"], s["false_edges"]) == (1, 2, 1, 1)
    assert s["recall"] == round(1 / 3, 3) and s["recall_explicit"] == 0.5 and s["precision"] == 0.5


def test_report_lists_missed_pairs_for_dev_splits_only() -> None:
    """A blind split's misses and false edges are counted per kind, never named."""
    from kg.evaluation.contrasts import render_markdown

    edges = [Edge("h100", "h200", "confused_with", "ev", "comparative", "001", 1)]
    pairs = [
        LabelledPair("p1", ("TTFT",), ("TPOT",), "contrast", "parallel", "001:2"),
        LabelledPair("p2", ("H200",), ("H100",), "not_contrast", "related", "001:4"),
    ]
    s = score_contrasts(TERMS, edges, pairs)
    md = render_markdown({"dev": s, "dev2": s, "test": s}, command="glossary eval-contrasts")
    dev, _, rest = md.partition("**dev2**")
    dev2, _, test = rest.partition("**test**")
    for part in (dev, dev2):
        assert "Missed: TTFT – TPOT" in part and "Edges on hard negatives: H200 – H100" in part
    assert "TTFT" not in test and "H200" not in test and "parallel (contrast) 0/1" in test


def _entry(line: int, name: str, definition: str) -> RawEntry:
    return RawEntry("001", line, "hw", [Name(name, "label", "en")], definition, raw=f"{name} {definition}")


def test_opposite_names_in_either_language_wherever_filed() -> None:
    terms = {
        "on": _term("on", "Online inference", "在线推理"),
        "off": _term("off", "", "离线推理"),
        "sym": _term("sym", "", "对称量化"),
        "asym": _term("asym", "", "非对称量化"),
        "cpu-off": _term("cpu-off", "CPU offloading"),
        "nvme-off": _term("nvme-off", "NVMe offloading"),
        "ep": _term("ep", "", "专家并行"),
        "wide-ep": _term("wide-ep", "", "宽专家并行"),
        "db": _term("db", "Double buffering", "双缓冲"),
        "tb": _term("tb", "Triple buffering", "三缓冲"),
        "rev": _term("rev", "Annual token revenue per gigawatt"),
        "profit": _term("profit", "Annual token profit per gigawatt"),
        "cost": _term("cost", "Annual token cost per gigawatt"),
    }
    entries = [_entry(k * 10, t.id, "x") for k, t in enumerate(terms.values())]
    found = adjacent_opposites(entries, {k: t.id for k, t in enumerate(terms.values())}, terms)
    assert {(c.a, c.b) for c in found} == {("off", "on"), ("asym", "sym"), ("db", "tb"), ("profit", "rev")}


def test_neighbours_of_one_kind_with_opposite_traits() -> None:
    terms = {t.id: t for t in (_term("cpu"), _term("gpu"), _term("grpc"), _term("ws"), _term("tpu"))}
    entries = [
        _entry(1, "CPU", "适合顺序工作负载的通用处理器。"),
        _entry(2, "GPU", "高度并行的处理器。"),
        _entry(3, "gRPC", "结构化的双向流式协议。"),
        _entry(4, "WebSocket", "轻量的双向流式传输协议，适合非结构化数据。"),
        _entry(5, "TPU", "Google 的加速器，适合并行矩阵运算。"),  # another kind of thing
    ]
    found = adjacent_contrasts(entries, dict(enumerate(terms)), terms)
    assert {(c.a, c.b, c.kind) for c in found} == {("cpu", "gpu", "opposite"), ("grpc", "ws", "opposite")}


def test_opposites_quote_each_entry_s_defining_line_not_its_block() -> None:
    """001 files an entry as three lines (name, "双活：definition", note): the edge quotes the
    definition's line of each side, verbatim, and a line that states both sides only once."""
    terms = {t.id: t for t in (_term("aa", "Active-active", "双活"), _term("ap", "Active-passive", "主备"))}
    block = "Active-active\n双活：多个区域同时承载实时流量。\n可用性高。"
    entries = [
        RawEntry(
            "001", 1, "ops", [Name("Active-active", "label", "en")], "多个区域同时承载实时流量。", raw=block
        ),
        RawEntry(
            "001",
            4,
            "ops",
            [Name("Active-passive", "label", "en")],
            "热备集群平时空闲。",
            raw="Active-passive\n主备：热备集群平时空闲。\n结构简单。",
        ),
    ]
    (found,) = adjacent_opposites(entries, {0: "aa", 1: "ap"}, terms)
    assert found.sentence == "双活：多个区域同时承载实时流量。 / 主备：热备集群平时空闲。"
    both = "内部 TCO 是设计方的成本，外部 TCO 是客户付出的成本。"
    terms = {t.id: t for t in (_term("in", "Internal TCO"), _term("ex", "External TCO"))}
    entries = [
        RawEntry("000", 9, None, [Name("内部 TCO", "label", "zh")], both, raw=both),
        RawEntry("000", 9, None, [Name("外部 TCO", "label", "zh")], both, raw=both),
    ]
    (found,) = adjacent_opposites(entries, {0: "in", 1: "ex"}, terms)
    assert found.sentence == both
    # filed in two sources: each side's line is cited to its own source
    entries[1] = RawEntry(
        "001", 3, None, [Name("外部 TCO", "label", "zh")], "客户付出的成本。", raw="客户付出的成本。"
    )
    found_both = adjacent_opposites(entries, {0: "in", 1: "ex"}, terms)
    assert [(c.sentence, c.doc, c.line) for c in found_both] == [
        (both, "000", 9),
        ("客户付出的成本。", "001", 3),
    ]


def test_one_role_of_two_vendors() -> None:
    terms = [
        _term("cuda", "CUDA", text="CUDA 是让程序在 NVIDIA 芯片上运行的软件工具箱。"),
        _term("rocm", "ROCm", text="ROCm 是让 AI 程序在 AMD 芯片上运行的软件工具箱。"),
        _term("cutlass", "CUTLASS", text="CUTLASS 是 NVIDIA 的模板库，提供矩阵乘法 kernel 的积木。"),
        _term("tensorrt", "TensorRT", text="TensorRT 是 NVIDIA 的推理运行时，组合融合 kernel。"),
    ]
    assert {(c.a, c.b, c.kind) for c in vendor_counterparts(terms)} == {("cuda", "rocm", "counterpart")}


def test_variants_of_one_description_differ_in_figures_only() -> None:
    def defined(tid: str, text: str, line: int) -> Term:
        return Term(
            tid, {"en": tid.upper()}, [], [], [Definition("zh", text, "001", None, line)], [], ["001"]
        )

    terms = [
        defined("b200", "Blackwell 数据中心 GPU；书中给出 192 GB VRAM 和 8 TB/s 带宽。", 1),
        defined("b300", "Blackwell 数据中心 GPU；书中给出 288 GB VRAM 和 8 TB/s 带宽。", 2),
        # a part named differently is no variant of the same description
        defined("gb200", "Grace CPU + B200 GPU 的 superchip，带宽 900 GB/s。", 3),
        defined("gh200", "Grace CPU + H200 GPU 的 superchip，带宽 900 GB/s。", 4),
        # one line defining several terms gives them the same words, comparing nothing
        defined("a100", "NVIDIA 数据中心 GPU 具体型号，2 代。", 5),
        defined("h100", "NVIDIA 数据中心 GPU 具体型号，2 代。", 5),
    ]
    assert {(c.a, c.b, c.kind) for c in variant_pairs(terms)} == {("b200", "b300", "comparative")}


def test_a_side_named_by_its_parts_is_the_term_those_parts_define() -> None:
    """ "加入 prefill-decode 分离之前的默认形态": term names joined, then a word, name the one term
    whose name holds that word and whose definition names every part — not decode."""
    terms = [
        _term("prefill", "prefill", "预填充"),
        _term("decode", "decode", "解码"),
        _term("disagg", "Disaggregation", "推理分离", text="把 prefill 和 decode 拆到不同引擎。"),
        _term("diarization", "Diarization", "说话人分离", text="把音频按说话人切分。"),
        _term("agg", "Aggregated serving", "聚合服务"),
    ]
    res = Resolver(terms)
    by_id = {t.id: t for t in terms}
    found = marker_contrasts(
        by_id["agg"], "是引擎加入 prefill-decode 分离之前的默认部署形态。", res, "000", 1
    )
    assert {(c.a, c.b, c.kind) for c in found} == {("agg", "disagg", "replacement")}
    found = marker_contrasts(by_id["agg"], "比 prefill-decode 分离更简单。", res, "000", 1)
    assert {(c.a, c.b, c.kind) for c in found} == {("agg", "disagg", "comparative")}
    # no term whose definition names both parts: no side (and not decode either)
    assert res.described("prefill-decode 切分") is None


def test_a_bare_head_shared_by_qualified_labels_is_told_apart_by_the_owners_words() -> None:
    """ "比通用 benchmark 更接近业务" inside a text about 模型智能: the bare head names no term, the
    labels that share it differ in their qualifier, and the owner's text uses one's own words."""
    terms = [
        _term("bench-i", "Benchmark (intelligence)", "智能基准"),
        _term("bench-p", "Benchmark (performance)", "性能基准"),
        _term("evals", "Evals", "评估", text="用来测产品场景下的模型智能。"),
        _term("load", "Load testing", "负载测试", text="持续发送高流量。"),
    ]
    res = Resolver(terms)
    by_id = {t.id: t for t in terms}
    found = marker_contrasts(by_id["evals"], "比通用 benchmark 更接近业务。", res, "001", 1)
    assert {(c.a, c.b, c.kind) for c in found} == {("evals", "bench-i", "comparative")}
    # an owner whose words fit neither (or both) gets no side
    assert marker_contrasts(by_id["load"], "比通用 benchmark 更接近业务。", res, "001", 1) == []


def test_a_side_named_by_trait_and_kind_is_the_one_term_of_that_kind_with_that_trait() -> None:
    """ "不像稀疏模型那样…" inside *Dense model*: no node is named 稀疏模型, and the one other term
    whose name ends in 模型 and whose definition says 稀疏 is the mixture of experts."""
    terms = [
        _term("dense", "Dense model", "稠密模型", text="不像稀疏模型那样把 token 路由给少数专家。"),
        _term("moe", "Mixture of Experts", "混合专家模型", text="把线性层拆成多个稀疏 expert。"),
        _term("sparsity", "Sparsity", "稀疏性", text="一半值为 0。"),
        _term("draft", "Draft model", "草稿模型", text="又小又快的模型。"),
    ]
    res = Resolver(terms)
    by_id = {t.id: t for t in terms}
    found = marker_contrasts(by_id["dense"], terms[0].definitions[0].text, res, "000", 1)
    assert {(c.a, c.b, c.kind) for c in found} == {("dense", "moe", "negation")}
    assert res.kind_named("稀疏模型", "dense") == "moe"
    # two terms of the kind with the trait, or none: no side
    assert res.kind_named("稀疏模型") is None  # the owner's own text says 稀疏 too
    assert res.kind_named("巨型模型", "dense") is None
    # a phrase that is a name is the name's business, not this rule's
    assert res.kind_named("稠密模型", "moe") is None


def test_a_trade_a_baseline_and_an_order_of_stages_are_contrasts() -> None:
    """ "用 X 换 Y" / "trades X for Y" sets X against Y; "是 X 精度对照的基准" sets the owner against
    X; "发生在 X 之前" sets two stages apart. A plain mention in such a sentence does not."""
    terms = [
        _term("bf16", "BF16", text="x"),
        _term("quant", "Quantization", "量化", text="x"),
        _term("infer", "Inference", "推理", text="x"),
        _term("pre", "Pretraining", "预训练", text="x"),
        _term("serving", "Serving", text="x"),
        _term("mem", "Memory", "显存", text="x"),
        _term("comp", "Compute", "算力", text="x"),
        _term("kv", "KV cache", text="x"),
    ]
    res = Resolver(terms)
    by_id = {t.id: t for t in terms}

    def pairs(owner: str, text: str) -> set[tuple[str, str, str]]:
        return {(*sorted((c.a, c.b)), c.kind) for c in marker_contrasts(by_id[owner], text, res, "001", 1)}

    assert pairs("bf16", "用它做推理也是量化方案精度对照的基准。") == {("bf16", "quant", "comparative")}
    assert pairs("pre", "发生在 serving 之前；推理工程消费其权重。") == {("pre", "serving", "comparative")}
    assert pairs("kv", "它用显存换算力。") == {("comp", "mem", "comparative")}
    assert pairs("kv", "It trades Memory for Compute.") == {("comp", "mem", "comparative")}
    assert pairs("kv", "它占用显存，也节省算力。") == set()
