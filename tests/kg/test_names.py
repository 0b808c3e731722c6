"""Names in both languages: the name rules (kg/names.py), the same-words merge, the group gloss,
the ``english`` overlay decisions and ``label_origin``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kg.build import BuildResult, build_graph
from kg.merge import word_key
from kg.model import Name, RawEntry
from kg.names import complete_names
from kg.overlay import load_overlay
from kg.parsers.common import SourceError
from kg.parsers.gloss_lines import parse_gloss_lines
from kg.store import Glossary
from tests.kg.kg_helpers import source_text, term_of


def _entry(source: str, line: int, names: list[tuple[str, str]], definition: str, **kw) -> RawEntry:
    return RawEntry(
        source=source,
        line=line,
        section=None,
        names=[Name(t, "zh" if re.search(r"[\u4e00-\u9fff]", t) else "en", k) for t, k in names],  # type: ignore[arg-type]
        definition=definition,
        raw=kw.pop("raw", definition),
        **kw,
    )


def _texts(entry: RawEntry, lang: str | None = None) -> list[str]:
    return [n.text for n in entry.names if lang is None or n.lang == lang]


# --- rule 1: "X 即 Y" ---------------------------------------------------------------------


def test_equivalence_gives_the_other_name() -> None:
    e = _entry("000", 1, [("GEMM", "abbr")], "GEMM 即通用矩阵乘法，是训练和推理中算术量最大的计算。")
    report = complete_names([e])
    assert "通用矩阵乘法" in _texts(e, "zh")
    assert next(n for n in e.names if n.text == "通用矩阵乘法").origin == "rule"
    assert report.added == [{"entry": "000:1", "name": "通用矩阵乘法", "rule": "equivalence"}]


@pytest.mark.parametrize(
    "text",
    [
        "每 token 延迟 即 TPOT 的别称，描述流式生成的连续 token 间隔。",  # an alias statement, not a name
        "GPU 的执行模型即单指令多线程，…",  # the subject is not the entry's name
        "GEMM 是一种计算，即矩阵乘法。",  # 即 not right after the name
    ],
)
def test_equivalence_needs_the_name_then_即(text: str) -> None:
    e = _entry("000", 1, [("GEMM", "abbr"), ("每 token 延迟", "label")], text)
    before = _texts(e)
    complete_names([e])
    assert _texts(e) == before


# --- rule 2: parallel restatement -------------------------------------------------------------


def test_restatement_distributes_one_name_per_member() -> None:
    text = '服务等级协议/目标，通常以"P99 < X ms"形式给出。'
    a = _entry("002", 29, [("SLA", "abbr"), ("service level agreement", "label")], text, group=("SLA", "SLO"))
    b = _entry("002", 29, [("SLO", "abbr"), ("service level objective", "label")], text, group=("SLA", "SLO"))
    complete_names([a, b])
    assert _texts(a, "zh") == ["服务等级协议"] and _texts(b, "zh") == ["服务等级目标"]


def test_restatement_needs_as_many_names_as_members() -> None:
    text = "服务等级协议，通常以 P99 给出。"  # one name for two members: nothing to distribute
    a = _entry("002", 29, [("SLA", "abbr")], text, group=("SLA", "SLO"))
    b = _entry("002", 29, [("SLO", "abbr")], text, group=("SLA", "SLO"))
    complete_names([a, b])
    assert not _texts(a, "zh") and not _texts(b, "zh")


# --- rule 3: formula ------------------------------------------------------------------------


def test_formula_subject_is_an_abbreviation_of_the_label() -> None:
    e = _entry("002", 24, [("E2E Latency", "label")], "从请求到完成的总时长。E2E = TTFT + TPOT × (n - 1)。")
    complete_names([e])
    assert ("E2E", "abbr") in [(n.text, n.kind) for n in e.names]
    f = _entry("001", 1, [("CUDA core", "label")], "执行标量操作的单元，CUDA 核心数 × 频率 = 峰值。")
    complete_names([f])
    assert "CUDA" not in _texts(f)  # "CUDA 核心数 × 频率 =": CUDA is not the formula's subject


# --- rule 4: a gloss in passing ----------------------------------------------------------------


def test_gloss_in_passing_names_the_term_in_the_missing_language() -> None:
    dp = _entry("000", 5, [("数据并行", "label")], "数据并行复制多份模型。")
    draft = _entry("000", 7, [("草稿模型", "label")], "草稿模型是投机解码中的小模型。")
    other = _entry(
        "009",
        3,
        [("投机解码", "label")],
        "投机解码用草稿模型（draft model）猜 token；推理服务常与数据并行（DP）组合。",
    )
    report = complete_names([dp, draft, other])
    assert ("DP", "abbr") in [(n.text, n.kind) for n in dp.names]
    assert "draft model" in _texts(draft, "en")
    assert {r["rule"] for r in report.added} == {"gloss"}


def test_gloss_in_passing_latin_name_before_a_chinese_one() -> None:
    tail = _entry("000", 9, [("尾部延迟", "label")], "尾部延迟描述最慢的请求。")
    other = _entry("009", 1, [("P99", "label")], "P99 常用来看 tail latency（尾部延迟）。")
    complete_names([tail, other])
    assert _texts(tail, "en") == ["tail latency"]


@pytest.mark.parametrize(
    "text",
    [
        "分布式数据并行（DP）复制模型。",  # 数据并行 is the tail of a longer word
        "数据并行（DP / TP）切分。",  # a list, not a name
        "数据并行（2020）开始流行。",  # a year, not a name
    ],
)
def test_gloss_in_passing_ignores_non_names(text: str) -> None:
    dp = _entry("000", 5, [("数据并行", "label")], "数据并行复制多份模型。")
    other = _entry("009", 1, [("某术语", "label")], text)
    complete_names([dp, other])
    assert not _texts(dp, "en")


def test_gloss_in_passing_keeps_a_source_name() -> None:
    tp = _entry("000", 5, [("张量并行", "label"), ("tensor parallelism", "label")], "张量并行切分矩阵。")
    other = _entry("009", 1, [("某术语", "label")], "常与张量并行（TP）组合。")
    complete_names([tp, other])
    assert "TP" not in _texts(tp)  # only a term without an English name takes one


# --- rule 5 (parser): one gloss over several members names the group -------------------------


def test_a_single_gloss_over_several_members_names_the_group() -> None:
    text = "性能\nP50 / P95 / P99（percentile latency） 延迟的百分位数：P50 是中位数。\n"
    text += "SLA / SLO（service level agreement / objective） 服务等级协议/目标。\n"
    entries = parse_gloss_lines(text, "009").entries
    line2 = [e for e in entries if e.line == 2]
    assert [_texts(e) for e in line2] == [["P50"], ["P95"], ["P99"], ["percentile latency"]]
    assert line2[-1].names[0].origin == "rule" and line2[-1].group == ()
    assert len([e for e in entries if e.line == 3]) == 2  # paired glosses: no group entry


# --- the same words in another order or number ------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("Latency percentiles", "percentile latency", True),
        ("Weights-only quantization", "weight-only quantization", True),
        ("FLOPS", "FLOP", False),  # abbreviations: different units
        ("Batch", "Batches", False),  # one word: no key
        ("Tensor Core", "CUDA core", False),
        ("数据并行", "并行数据", False),  # Chinese names have no key
    ],
)
def test_word_key(a: str, b: str, same: bool) -> None:
    ka, kb = word_key(a), word_key(b)
    assert (ka is not None and ka == kb) is same


# --- on the bundled corpus ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "other"),
    [
        ("SLA", "服务等级协议"),  # 002 L29: 服务等级协议/目标
        ("SLO", "服务等级目标"),
        ("GEMM", "通用矩阵乘法"),  # 000 L335: GEMM 即通用矩阵乘法
        ("E2E Latency", "E2E"),  # 002 L24: E2E = TTFT + …
        ("Latency percentiles", "percentile latency"),  # 002 L27's gloss, merged with 001 L164
        ("weight-only quantization", "Weights-only quantization"),  # by rule, no overlay merge
        ("Perceived TPS", "交互性"),  # overlay merge (split C)
        ("roofline ridge", "Ops:byte ratio"),
        ("sparsification", "Sparsity (FLOPS)"),
    ],
)
def test_names_the_sources_give_reach_one_node(glossary: Glossary, name: str, other: str) -> None:
    assert term_of(glossary, name) == term_of(glossary, other)


@pytest.mark.parametrize(
    ("a", "b"),
    [("P99", "Latency percentiles"), ("块缩放", "Microscaling formats"), ("P90 交互性", "交互性")],
)
def test_look_alikes_stay_apart(glossary: Glossary, a: str, b: str) -> None:
    assert term_of(glossary, a) != term_of(glossary, b)


def test_rule_names_are_recorded(built: BuildResult, glossary: Glossary) -> None:
    rules = {(r["name"], r["rule"]) for r in built.report["names_from_rules"]}
    assert {("通用矩阵乘法", "equivalence"), ("服务等级协议", "restatement"), ("E2E", "formula")} <= rules
    sla = glossary.get(term_of(glossary, "SLA"))
    assert sla.labels["zh"] == "服务等级协议" and sla.label_origin == {"en": "source", "zh": "rule"}
    overlay = json.loads((Path(__file__).parents[2] / "corpus" / "overlay.json").read_text(encoding="utf-8"))
    merged = [d["merge"] for d in overlay["decisions"] if d["op"] == "merge"]
    assert not any("权重量化" in m or "Latency percentiles" in m for m in merged)  # the rules do it


def test_editorial_english_names_are_marked(built: BuildResult, glossary: Glossary) -> None:
    dp = glossary.get(term_of(glossary, "数据并行"))
    assert dp.labels == {"en": "Data parallelism", "zh": "数据并行"} and dp.abbreviations == ["DP"]
    assert dp.label_origin == {"en": "editorial", "zh": "source"} and dp.id == "data-parallelism"
    assert dp.editorial_names == ["Data parallelism", "DP"]  # the abbreviation too
    tps = glossary.get(term_of(glossary, "交互性"))  # merged: the editorial name stays an alias
    assert tps.labels["en"] == "Perceived TPS" and tps.editorial_names == ["Interactivity"]
    # an overlay name the sentence itself contains is the source's ("预热"); one it lacks is not
    warm = glossary.get(term_of(glossary, "预热"))
    assert warm.label_origin == {"en": "editorial", "zh": "source"}
    # every label says who gave it; no name is added silently
    for t in built.terms:
        assert set(t.label_origin) == set(t.labels) and set(t.label_origin.values()) <= {
            "source",
            "rule",
            "editorial",
        }
    # defined terms: a mentioned-only node keeps the one name the sources write (会话恢复风暴)
    assert built.report["zh_only_without_en"] == sum(
        1 for t in built.terms if t.defined and "en" not in t.labels
    )
    assert built.report["zh_only_without_en"] <= 5
    assert built.report["labels_by_origin"]["en"]["editorial"] >= built.report["overlay_by_op"]["english"]


def test_no_english_decision_where_the_sources_name_the_term(built: BuildResult) -> None:
    """Every ``english`` decision was used: none names a term the sources already name in English."""
    assert not [d for d in built.report["stale_overlay_decisions"] if d["op"] == "english"]
    text = "\n".join(source_text(s) for s in ("000", "001", "002", "004"))
    decisions = [
        d for d in load_overlay(Path(__file__).parents[2] / "corpus" / "overlay.json") if d.op == "english"
    ]
    for d in decisions:
        assert d.reason and d.zh and d.zh.replace(" ", "") in text.replace(" ", "")


# --- the english decision itself (on a copy of the corpus) -----------------------------------


def _add_decision(corpus: Path, decision: dict) -> None:
    path = corpus / "overlay.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    if decision.get("op") == "english":  # in place of the overlay's own decision for that term
        data["decisions"] = [
            d
            for d in data["decisions"]
            if not (d.get("op") == "english" and d.get("zh") == decision.get("zh"))
        ]
    data["decisions"].append(decision)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")


def test_english_decision_for_a_term_the_sources_name_is_stale(corpus_copy: Path) -> None:
    _add_decision(corpus_copy, {"op": "english", "zh": "张量并行", "en": "Tensor slicing", "reason": "test"})
    result = build_graph(corpus_copy)
    stale = result.report["stale_overlay_decisions"]
    assert [d["match"] for d in stale] == ["张量并行"]
    tp = next(t for t in result.terms if "TP" in t.abbreviations)
    assert tp.labels["en"] != "Tensor slicing" and tp.label_origin["en"] == "source"


def test_english_decision_that_names_another_term_is_an_error(corpus_copy: Path) -> None:
    _add_decision(corpus_copy, {"op": "english", "zh": "冷恢复", "en": "KV cache", "reason": "test"})
    with pytest.raises(SourceError, match=r"overlay\.json:\d+: .*KV cache.*already names another term"):
        build_graph(corpus_copy)


def test_english_decision_needs_zh_and_en(corpus_copy: Path) -> None:
    _add_decision(corpus_copy, {"op": "english", "zh": "冷恢复", "reason": "test"})
    with pytest.raises(SourceError, match="english needs 'zh'"):
        build_graph(corpus_copy)


def test_english_decision_gives_the_label_and_the_id(corpus_copy: Path) -> None:
    _add_decision(corpus_copy, {"op": "english", "zh": "冷恢复", "en": "Cold session restore", "reason": "t"})
    result = build_graph(corpus_copy)
    node = next(t for t in result.terms if t.labels.get("zh") == "冷恢复")
    assert node.id == "cold-session-restore" and node.label_origin["en"] == "editorial"
    assert result.report["zh_only_without_en"] == 0
