"""Mentioned-only nodes (kg/mentioned.py): the rule on the real sources, the nodes, the round trip."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kg.build import BuildResult, write_artifact
from kg.cli import app
from kg.mentioned import find_mentioned, mask_terms
from kg.mentions import MentionFinder
from kg.model import Definition, MentionSite, RawEntry, Term
from kg.parsers.common import name
from kg.search.engine import SearchEngine
from kg.store import Glossary
from kg.textnorm import has_cjk, name_key
from tests.kg.kg_helpers import source_text, term_of


def _mentioned(built: BuildResult) -> dict[str, Term]:
    return {t.label("en"): t for t in built.terms if t.kind == "mentioned"}


def _term(tid: str, *names: str) -> Term:
    return Term(tid, {"en": names[0]}, list(names[1:]), [], [Definition("zh", "…", "x", None, 1)], [], ["x"])


def _find(definition: str, *terms: Term) -> dict[str, list[MentionSite]]:
    entry = RawEntry("x", 7, None, [name("owner")], definition)
    owner = _term("owner", "owner")
    return find_mentioned([owner, *terms], [entry], {0: "owner"}, [])


# --- the rule on the real sources ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("label", "where"),
    [
        ("PyTorch", "000:377"),
        ("RCCL", "000:349"),
        ("TorchDynamo", "002:80"),
        ("Inductor", "002:80"),
        ("NVLink-C2C", "001:693"),
        ("Ethernet", "001:418"),
        ("Whisper", "001:589"),
        ("DeepSeek", "001:27"),
        ("HBM3e", "001:254"),
        ("FP32", "002:15"),
        ("MMLU", "001:643"),
        ("TF", "002:75"),
        ("C++", "002:98"),
        ("Apple Neural Engine", "002:112"),
        ("NVLink Switch", "002:120"),
    ],
)
def test_named_things_the_definitions_mention_become_nodes(
    built: BuildResult, label: str, where: str
) -> None:
    node = _mentioned(built).get(label)
    assert node is not None, f"{label} is not a mentioned node"
    source, line = where.split(":")
    site = next(m for m in node.mentioned_in if (m.source, m.line) == (source, int(line)))
    assert label in site.sentence
    assert site.sentence in source_text(source)  # verbatim, from the source itself
    assert node.definitions == [] and node.categories == [] and source in node.sources


def test_pytorch_is_mentioned_on_fourteen_source_lines(built: BuildResult) -> None:
    node = _mentioned(built)["PyTorch"]
    lines = {(m.source, m.line) for m in node.mentioned_in}
    assert len(lines) == 14
    assert {"000", "001", "002"} == {s for s, _ in lines}
    # the name "PyTorch Profiler" of a defined term is not a mention of PyTorch
    profiler = next(t for t in built.terms if t.label("en") == "PyTorch Profiler")
    assert all(m.term != profiler.id for m in node.mentioned_in)


@pytest.mark.parametrize(
    "word",
    [
        "NVIDIA",  # a maker
        "Google",
        "AMD",
        "AI",  # everyday abbreviation
        "KV",  # attention's symbols (Q/K/V)
        "QK",
        "GB",  # units
        "TFLOPS",
        "petaFLOPS",
        "P90",  # percentile
        "TP4",  # a configuration (TP4×2)
        "Gen5",  # a generation tag (PCIe Gen5)
        "Key",  # common words: "key-value" is written in lower case too
        "Value",
        "Inference",  # pieces of term names (Triton Inference Server)
        "Cache",
        "Tensor",
        "Dynamo",  # head of a term's name (NVIDIA Dynamo)
        "Grace",  # Grace CPU without its classifier
        "PCI Express",  # PCIe spelled out
        "iGPU",  # a kind of GPU
        "CPU-GPU",  # two terms' names
        "EAGLE-2",  # a version of EAGLE
        "Neural",  # a piece of Apple Neural Engine
        "Switch",  # a piece of NVLink Switch
    ],
)
def test_no_generic_word_unit_fragment_or_known_name_becomes_a_node(built: BuildResult, word: str) -> None:
    assert name_key(word) not in {name_key(n) for n in _mentioned(built)}


def test_no_mentioned_node_shares_a_name_with_a_defined_term(built: BuildResult) -> None:
    defined = {name_key(n) for t in built.terms if t.defined for n in t.all_names()}
    mentioned = _mentioned(built)
    assert len(mentioned) >= 40
    assert not {name_key(n) for n in mentioned} & defined


def test_the_rule_is_deterministic(built: BuildResult) -> None:
    again = [t.to_dict() for t in _mentioned(built).values()]
    from kg.build import build_graph

    assert [t.to_dict() for t in _mentioned(build_graph()).values()] == again


@pytest.mark.parametrize(
    ("label", "where", "tid"),
    [
        ("会话恢复风暴", "004:20", "hui-hua-huifu-fengbao"),  # named by the text: 被称为「…」
        ("昇腾", "002:112", "shengteng"),  # among products: TPU、昇腾、Apple Neural Engine、高通 Hexagon
        ("达芬奇架构", "002:114", "dafenqi-jiagou"),  # an apposition: …处理器，达芬奇架构，…
    ],
)
def test_chinese_script_names_the_text_marks_become_nodes(
    built: BuildResult, label: str, where: str, tid: str
) -> None:
    node = next(t for t in built.terms if t.labels.get("zh") == label)
    assert node.kind == "mentioned" and node.id == tid  # a pinyin id, as for Chinese-only terms
    source, line = where.split(":")
    assert any((m.source, m.line) == (source, int(line)) and label in m.sentence for m in node.mentioned_in)


# --- the rule on single sentences ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("大量会话同时恢复的情形常被称为「会话恢复风暴」。", ["会话恢复风暴"]),
        ("常被称为会话恢复风暴。", []),  # no quotes: no sign of where the name ends
        ("广义含 TPU、昇腾、Apple Neural Engine、高通 Hexagon 等。", ["昇腾"]),
        ("包含 GPU、CPU、RAM、存储、网络和互连。", []),  # Chinese words among Chinese words
        ("代表：TPU、华为、Hexagon。", []),  # a maker is never a node
        ("华为自研 AI 处理器，达芬奇架构，国产算力替代主力。", ["达芬奇架构"]),
        ("常见的处理器，基础架构，基础设施很多。", []),  # 基础 is a word the text uses elsewhere
    ],
)
def test_chinese_script_names_in_single_sentences(sentence: str, expected: list[str]) -> None:
    found = _find(sentence, _term("tpu", "TPU"), _term("gpu", "GPU"), _term("cpu", "CPU"))
    assert sorted(n for n in found if has_cjk(n)) == sorted(expected)  # (Latin names: the rules above)


def test_contrast_sentence_names_rccl_only() -> None:
    nccl = _term("nccl", "NCCL")
    found = _find(
        "NCCL 是 NVIDIA 的集合通信库，在集合操作中负责芯片之间的数据搬运，RCCL 是 AMD 的对应实现。", nccl
    )
    assert list(found) == ["RCCL"]
    assert found["RCCL"][0] == MentionSite(
        "x",
        7,
        "NCCL 是 NVIDIA 的集合通信库，在集合操作中负责芯片之间的数据搬运，RCCL 是 AMD 的对应实现。",
        "owner",
    )


def test_camel_case_plus_list_and_version() -> None:
    jit = _term("jit", "JIT")
    found = _find(
        "PyTorch 2.0 起的 JIT 编译入口，底层走 TorchDynamo + Inductor，能做图捕获、融合、kernel 生成。", jit
    )
    assert list(found) == ["PyTorch", "TorchDynamo", "Inductor"]


def test_a_term_name_glued_to_more_name_is_not_masked() -> None:
    known = [_term("nvlink", "NVLink"), _term("kv", "KV cache"), _term("lora", "LoRA"), _term("b200", "B200")]
    found = _find(
        "适合 KV cache offload、LoRA swapping 等受益于 NVLink-C2C 的技术。B200 上是 NVLink Switch。", *known
    )
    assert list(found) == ["NVLink-C2C", "NVLink Switch"]


@pytest.mark.parametrize(
    "sentence",
    [
        "KV Cache 是每个已处理的 token 在各注意力层算出的 Key 和 Value 张量，key-value 不必重算。",
        "TP4×2 则是把 8 张卡分成两个各占 4 卡的实例，带宽 2 TB/s、算力 989 TFLOPS。",
        "PCIe Gen5 单向 64 GB/s，P90 交互性，v1/v2/v3 是里程碑。",
        "NVIDIA 官方的引擎，Google 自研的 ASIC 之外 AI 芯片。",
    ],
)
def test_sentences_without_named_things(sentence: str) -> None:
    known = [_term("kv", "KV Cache"), _term("pcie", "PCIe"), _term("p", "P90 交互性")]
    found = _find(sentence, *known)
    assert set(found) <= {"ASIC"}, found


def test_mask_terms_keeps_positions() -> None:
    finder = MentionFinder([("t", "Triton Inference Server")])
    text = "NVIDIA Triton Inference Server 是推理服务框架"
    masked = mask_terms(text, finder)
    assert len(masked) == len(text) and masked.startswith("NVIDIA \x00") and "Inference" not in masked


def test_an_english_sentence_opening_is_no_name() -> None:
    """English capitalises a sentence's first word whatever it is (an imported glossary's
    definitions are English prose): "See Prefill." names Prefill only, "Replicas" is no name."""
    prefill = _term("prefill", "Prefill")
    found = _find("Replicas kept loaded and idle. See Prefill. Built on PyTorch.", prefill)
    assert set(found) == {"PyTorch"}
    # a Chinese sentence is left as it is: a capitalised Latin word there is a name
    assert set(_find("Whisper 是语音识别模型。", prefill)) == {"Whisper"}


# --- nodes, edges, categories, report -----------------------------------------------------------


def test_defining_terms_link_to_mentioned_nodes(built: BuildResult, glossary: Glossary) -> None:
    nccl, rccl = term_of(glossary, "NCCL"), term_of(glossary, "RCCL")
    assert glossary.terms[rccl].kind == "mentioned"
    assert any({e.source, e.target} == {nccl, rccl} for e in built.edges)
    torch_compile = term_of(glossary, "torch.compile")
    assert {"torchdynamo", "inductor", "pytorch"} <= {e.target for e in glossary.related(torch_compile)}


def test_mentioned_nodes_take_no_part_in_categories(built: BuildResult) -> None:
    for t in built.terms:
        if not t.defined:
            assert t.categories == [] and not t.categories_inferred
    assert built.report["uncategorized_nodes"] == sum(
        1 for t in built.terms if t.defined and not t.categories
    )


def test_report_counts_mentioned_nodes(built: BuildResult) -> None:
    assert built.report["mentioned_nodes"] == len(_mentioned(built))
    assert built.report["nodes"] == len(built.terms)


def test_search_engine_ranks_defined_terms_only(built: BuildResult) -> None:
    engine = SearchEngine.build(built.terms, None)
    assert all(t.defined for t in engine.terms.values())
    hits = engine.search("PyTorch 的编译入口", "lexical").hits
    assert hits and all(engine.terms[h.term_id].defined for h in hits)


# --- round trip ------------------------------------------------------------------------------------


def test_term_round_trip_keeps_kind_and_mentions(built: BuildResult) -> None:
    node = _mentioned(built)["RCCL"]
    d = node.to_dict()
    assert d["kind"] == "mentioned" and d["mentioned_in"][0]["line"] == 349
    assert Term.from_dict(json.loads(json.dumps(d, ensure_ascii=False))) == node
    defined = next(t for t in built.terms if t.defined)
    assert defined.to_dict()["kind"] == "defined" and "mentioned_in" not in defined.to_dict()
    old_shape = {k: v for k, v in defined.to_dict().items() if k != "kind"}  # an artifact from before
    assert Term.from_dict(old_shape).kind == "defined"
    with pytest.raises(ValueError, match="unknown node kind"):
        Term.from_dict({**d, "kind": "guessed"})


def test_artifact_round_trip_and_cli(built: BuildResult, tmp_path: Path) -> None:
    out = write_artifact(built, tmp_path / "artifact")
    g = Glossary.load(out)
    assert {t.id: t for t in g.terms.values() if not t.defined} == {
        t.id: t for t in built.terms if not t.defined
    }
    view = g.defined_view()
    assert view is g.defined_view() and all(t.defined for t in view.terms.values())
    assert all(e.source in view and e.target in view for e in view.edges)

    runner = CliRunner()
    look = runner.invoke(app, ["lookup", "pytorch", "--artifact", str(out)])
    assert look.exit_code == 0
    assert "kind: mentioned" in look.output and "not defined in the glossary" in look.output
    assert "[000:377] torch.compile 是 PyTorch 的编译入口" in look.output
    stats = runner.invoke(app, ["stats", "--artifact", str(out), "--json"])
    assert json.loads(stats.output)["mentioned_nodes"] == len(_mentioned(built))
