"""Per-source parsing: entry counts derived from each file's own structure, noise, layout cases."""

from __future__ import annotations

import itertools
import re

import pytest

from kg.build import BuildResult
from tests.kg.kg_helpers import source_text


def _nonblank(text: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines() if ln.strip()]


def test_000_one_entry_per_sentence(built: BuildResult) -> None:
    lines = _nonblank(source_text("000"))
    # every non-blank line but the opening tagline is one entry
    assert built.report["entries_per_source"]["000"] == len(lines) - 1 == 194


def test_001_rows_counted_once_from_the_table_blocks(built: BuildResult) -> None:
    lines = source_text("001").splitlines()[1:]  # line 1 is the squashed duplicate
    rows, i = 0, 0
    section = re.compile(r"^[一二三四五六七八九十]+、")
    while i < len(lines):
        if lines[i].strip() == "Term":
            i += 3
            start = i
            while i < len(lines) and not (section.match(lines[i]) or lines[i].strip() == "参考来源"):
                i += 1
            block = [ln for ln in lines[start:i] if ln.strip()]
            assert len(block) % 3 == 0
            rows += len(block) // 3
        else:
            i += 1
    assert rows == 213
    assert built.report["entries_per_source"]["001"] == rows
    assert built.report["raw_entries_per_source"]["001"] == rows  # not twice


def test_002_entry_lines_and_combined_splits(built: BuildResult) -> None:
    lines = _nonblank(source_text("002"))
    start = next(i for i, ln in enumerate(lines) if ln == "基础概念")
    end = next(i for i, ln in enumerate(lines) if ln == "易混淆辨析")
    body = lines[start:end]
    callout_bodies = {body[i + 1] for i, ln in enumerate(body) if "不要混" in ln}
    entry_lines = [ln for ln in body if len(ln) > 14 and ln not in callout_bodies]
    assert len(entry_lines) == built.report["entries_per_source"]["002"] == 110
    combined = [ln for ln in entry_lines if re.match(r"^[^（ ]+( / | 与 )", ln)]
    assert len(combined) == 12
    run = re.compile(r"^[\w.\-]+(?:(?: / | 与 )[\w.\-]+)*")
    extra = sum(len(re.findall(r" / | 与 ", run.match(ln).group(0))) for ln in combined)  # type: ignore[union-attr]
    assert extra == 23  # 35 terms on 12 lines
    # a single gloss over several members names the line's concept: one more entry
    # ("P50 / P95 / P99（percentile latency）")
    head = re.compile(r"^[^（ ]+(?: (?:/|与) [^（ ]+)+（(?P<gloss>[^）]+)）")
    group_glosses = [ln for ln in combined if (m := head.match(ln)) and "/" not in m.group("gloss")]
    assert len(group_glosses) == 1
    assert built.report["raw_entries_per_source"]["002"] == 110 + extra + len(group_glosses)


def test_004_heading_definition_pairs(built: BuildResult) -> None:
    lines = _nonblank(source_text("004"))
    pairs = [
        a
        for a, b in itertools.pairwise(lines)
        if len(a) < 40 and b.endswith("。") and re.split(r"[(（]", a)[0].strip() in b[:40] and a != b
    ]
    assert built.report["entries_per_source"]["004"] == len(pairs) == 16


def test_no_unexplained_entries_and_no_stale_overlay(built: BuildResult) -> None:
    assert built.report["unexplained_entries"] == []
    assert built.report["stale_overlay_decisions"] == []
    # the overlay stays a list of exceptions, not a hand-made graph
    by_op = built.report["overlay_by_op"]
    # English names no source gives (``english``) are counted apart: they are marked editorial
    assert built.report["overlay_decisions"] - by_op.get("edge", 0) - by_op.get("english", 0) < 40
    assert by_op.get("english", 0) <= built.report["nodes"] // 5
    assert by_op.get("edge", 0) <= 0.03 * sum(built.report["edges_by_type"].values())


def test_page_furniture_never_becomes_a_term(glossary) -> None:
    furniture = [
        "外观",
        "术语表",
        "使用建议",
        "跳到正文",
        "芯元一",
        "更新于",
        "先联测,后决策",
        "联系人",
        "参考来源",
    ]
    names = {n for _, n, _ in glossary.names()}
    for f in furniture:
        assert f not in names
        assert not glossary.lookup(f)
    texts = " ".join(d.text for t in glossary.terms.values() for d in t.definitions)
    for noise in [
        "花了 2 天读完了",
        "读懂推理曲线背后的语言",
        "合作从一次约 10 周",
        "邮箱由 AI 自动接收",
        "详见",
    ]:
        assert noise not in texts


def test_qualifiers_are_not_aliases(glossary) -> None:
    sampling = glossary.get(glossary.lookup("Sampling (decode)")[0].term.id)
    assert sampling.id != glossary.lookup("Decode")[0].term.id
    assert "decode" not in [a.lower() for a in sampling.aliases]
    cuda_core = glossary.lookup("CUDA core")[0].term
    assert cuda_core.id != glossary.lookup("CUDA")[0].term.id
    sparsity = glossary.lookup("Sparsity (FLOPS)")[0].term
    assert sparsity.id != glossary.lookup("FLOPS")[0].term.id


def test_000_subjects_are_never_cut_inside_a_known_name(built) -> None:
    """The subject taken from a 000 sentence must not be a strict prefix of another term's
    name that its own sentence starts with: that means the subject was cut inside the name
    ("连续批" | 处理让…)."""
    owner: dict[str, set[str]] = {}
    for t in built.terms:
        for name in t.all_names():
            owner.setdefault(name.replace(" ", ""), set()).add(t.id)
    lines = source_text("000").splitlines()
    for t in built.terms:
        own = [lines[int(k.split(":")[1]) - 1].replace(" ", "") for k in t.entry_keys if k.startswith("000:")]
        for name in t.all_names():
            n = name.replace(" ", "")
            for other, ids in owner.items():
                if t.id in ids or len(other) <= len(n) or not other.startswith(n):
                    continue
                if n[-1].isascii() and other[len(n)].isascii():
                    continue  # "Agent" / "AgentX": a different Latin word
                assert not any(ln.startswith(n) and ln.startswith(other) for ln in own), (name, other)


@pytest.mark.parametrize(
    ("sentence", "subject"),
    [
        # "按行" is an adverbial glued by jieba: the name ends before it
        ("Embedding 表按行保存已学习向量，模型根据输入产生的标识符检索对应行。", "Embedding 表"),
        # a leading numeral-classifier is not part of the name
        ("一套测试配置就是产生某条曲线的全部选择：模型、引擎、镜像。", "测试配置"),
        ("张量并行把一层的权重切到多张卡上。", "张量并行"),
    ],
)
def test_000_subject_rules(sentence: str, subject: str) -> None:
    from kg.parsers.sentences import _segmenter, subject_split

    found = subject_split(sentence, _segmenter(("Embedding 表", "张量并行")))
    assert found is not None and found[0] == subject
