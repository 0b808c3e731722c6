"""Name rules: names the sources give a term outside its own name field.

The parsers read each entry's own names (its heading, its "中文名：", its gloss). The sources
also name terms elsewhere in their text; these rules read those names, before the entries
are merged, and add them with ``origin="rule"`` (:attr:`kg.model.Name.origin`):

1. **equivalence** — an entry that opens "X 即 Y，…" where X is its name: Y is another
   name of it ("GEMM 即通用矩阵乘法，…" gives GEMM the Chinese name 通用矩阵乘法).
2. **parallel restatement** — a line that defines several terms with one gloss each
   ("SLA / SLO（service level agreement / objective） 服务等级协议/目标，…") and whose
   definition opens with as many slash-separated names in the other language: each
   member gets its own (服务等级协议, 服务等级目标; a shorter part replaces the end of
   the first, as the gloss's "objective" replaces "agreement").
3. **formula name** — an English label whose first word is an abbreviation that the
   entry's own definition uses alone as the subject of a formula ("E2E Latency … E2E =
   TTFT + …"): the abbreviation is a name of the term.
4. **gloss in passing** — anywhere in the sources' text, a term's name followed by a
   bracketed name in the language the term lacks ("数据并行（DP）", "草稿模型（draft
   model）") gives it that name; a Latin run before a bracketed Chinese name likewise
   ("draft model（草稿模型）"). Only where the term has no name in that language yet, and
   never from the opening of an entry (the parser's own field) or a list ("A / B", "A、B").

A fifth rule lives in the parser of 002's layout (:mod:`kg.parsers.gloss_lines`): a single
gloss on a line of several terms ("P50 / P95 / P99（percentile latency）") names the concept
the line is about, not each member.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from kg.model import Name, RawEntry
from kg.parsers.common import is_abbreviation
from kg.textnorm import clean, fold, has_cjk, has_latin, is_cjk_char, name_key

STRONG = ("label", "abbr")

_EQUIV = re.compile(r"^\s*(?P<x>.{1,30}?)\s*即\s*(?P<y>[^，,。；;：:（(、“”\"]{2,16}?)\s*[，,。；;]")
_SLASH_NAMES = re.compile(r"^(?P<parts>[\u4e00-\u9fff]{2,12}(?:\s*/\s*[\u4e00-\u9fff]{1,12})+)\s*[，,：:]")
_BRACKET = re.compile(r"[（(](?P<g>[^（()）]{1,60})[）)]")
_LATIN_NAME = re.compile(r"[A-Za-z][A-Za-z0-9.+]*(?:[ \-][A-Za-z0-9.+]+){0,4}")
_LIST_MARK = re.compile(r"[/、，,；;：:。=]|详见")


@dataclass
class NameReport:
    """What the rules added: one record per (entry, name), for the build report."""

    added: list[dict[str, str]] = field(default_factory=list)

    def note(self, entry: RawEntry, n: Name, rule: str) -> None:
        self.added.append({"entry": f"{entry.source}:{entry.line}", "name": n.text, "rule": rule})


def _strong(entry: RawEntry) -> list[Name]:
    return [n for n in entry.names if n.kind in STRONG]


def _has_lang(entry: RawEntry, lang: str) -> bool:
    return any(n.lang == lang for n in _strong(entry))


def _add(entry: RawEntry, n: Name, rule: str, report: NameReport) -> bool:
    if any(name_key(m.text) == name_key(n.text) for m in entry.names):
        return False
    entry.names.append(n)
    report.note(entry, n, rule)
    return True


def _name_of(text: str, kind: str = "label") -> Name:
    text = clean(text)
    if kind == "label" and not has_cjk(text) and is_abbreviation(text):
        kind = "abbr"
    return Name(text, "zh" if has_cjk(text) else "en", kind, "rule")  # type: ignore[arg-type]


def equivalence_names(entries: list[RawEntry], report: NameReport) -> None:
    """Rule 1: "X 即 Y，…" where X is the entry's name."""
    for e in entries:
        text = e.raw or e.definition or ""
        m = _EQUIV.match(text)
        if not m or not _strong(e):
            continue
        subject = name_key(m.group("x"))
        if any(name_key(n.text) == subject for n in _strong(e)):
            y = m.group("y").strip()
            if y and not re.search(r"的(?:别称|简称|缩写|别名)$", y):
                _add(e, _name_of(y), "equivalence", report)


def _expand_parts(parts: list[str]) -> list[str]:
    """服务等级协议 / 目标 → 服务等级协议, 服务等级目标: a shorter part replaces the end of the first."""
    first = parts[0]
    out = [first]
    for p in parts[1:]:
        out.append(first[: len(first) - len(p)] + p if len(p) < len(first) else p)
    return out


def restated_names(entries: list[RawEntry], report: NameReport) -> None:
    """Rule 2: a combined line whose definition opens with one name per member."""
    lines: dict[tuple[str, int], list[RawEntry]] = defaultdict(list)
    for e in entries:
        if len(e.group) > 1 and e.overlay is None:
            lines[(e.source, e.line)].append(e)
    for members in lines.values():
        m = _SLASH_NAMES.match(members[0].definition or "")
        if not m or len(members) != len(members[0].group):
            continue
        parts = [p.strip() for p in m.group("parts").split("/") if p.strip()]
        if len(parts) != len(members):
            continue
        lang = "zh"
        if any(_has_lang(e, lang) for e in members):
            continue
        for e, text in zip(members, _expand_parts(parts), strict=True):
            _add(e, _name_of(text), "restatement", report)


def formula_names(entries: list[RawEntry], report: NameReport) -> None:
    """Rule 3: "E2E Latency" whose definition says "E2E = …"."""
    for e in entries:
        for n in list(_strong(e)):
            first, _, rest = n.text.partition(" ")
            if n.lang != "en" or not rest or not is_abbreviation(first):
                continue
            if re.search(rf"(?<![\w]){re.escape(first)}\s*[=＝]", e.definition or ""):
                _add(e, Name(first, "en", "abbr", "rule"), "formula", report)


def _gloss_name(gloss: str, lang: str) -> str | None:
    """The bracketed text as one name in *lang*, or None (a list, a number, a sentence)."""
    g = clean(gloss)
    if not g or _LIST_MARK.search(g) or len(g) > 40:
        return None
    if lang == "en":
        return g if not has_cjk(g) and has_latin(g) and _LATIN_NAME.fullmatch(g) else None
    return g if has_cjk(g) and len(g) <= 12 and not re.search(r"\d{2,}", g) else None


# Characters that may come right before a Chinese name inside a sentence ("用草稿模型（…）"):
# Chinese has no spaces, so a name glued to another Chinese character otherwise counts only
# at a clause's start.
_ZH_LEAD = frozenset("的是和与在把将用对及或由为从以被即让")


def _starts_word(text: str, start: int) -> bool:
    """True when a name starting at *start* is not the tail of a longer word."""
    if start == 0:
        return True
    prev, first = text[start - 1], text[start]
    if is_cjk_char(first):
        return not is_cjk_char(prev) or prev in _ZH_LEAD
    return not prev.isalnum()


def _start_of(before: str, key: str) -> int | None:
    """Where, in *before*, the name whose fold is *key* starts (it ends *before*)."""
    for start in range(len(before) - 1, -1, -1):
        if fold(before[start:]) == key:
            return start
    return None


def gloss_mentions(entries: list[RawEntry], report: NameReport) -> None:
    """Rule 4: "NAME（other-language name）" or "Latin name（NAME）" anywhere in the text."""
    wanting: dict[str, list[tuple[RawEntry, str]]] = defaultdict(list)
    for e in entries:
        if e.overlay is not None or not _strong(e):
            continue
        for lang in ("en", "zh"):
            if not _has_lang(e, lang):
                for n in _strong(e):
                    wanting[fold(n.text)].append((e, lang))
    if not wanting:
        return
    # every name, so that a wanted name that is only the tail of another ("延迟" of
    # "首 token 延迟") is not taken for it
    known = {fold(n.text) for e in entries for n in _strong(e)}
    # pairs some entry already has (an entry's own "TP(张量并行)"): nothing to add
    pairs = {(fold(a.text), fold(b.text)) for e in entries for a in _strong(e) for b in _strong(e)}

    def give(key: str, text: str) -> None:
        for e, lang in wanting[key]:
            got = _gloss_name(text, lang)
            if got and not _has_lang(e, lang) and (key, fold(got)) not in pairs:
                _add(e, _name_of(got), "gloss", report)

    for text in dict.fromkeys(e.raw for e in entries if e.raw):
        for bm in _BRACKET.finditer(text):
            before = text[: bm.start()].rstrip()
            inner = bm.group("g").strip()
            folded = fold(before)
            # "NAME（gloss）": the longest wanted name ending right before the bracket
            for key in sorted((k for k in known if folded.endswith(k)), key=len, reverse=True):
                start = _start_of(before, key)
                if start is not None and _starts_word(before, start):
                    if key in wanting:
                        give(key, inner)
                    break
            # "Latin name（NAME）"
            if fold(inner) in wanting:
                latin = re.search(r"([A-Za-z][A-Za-z0-9.+]*(?:[ \-][A-Za-z0-9.+]+){0,4})$", before)
                if latin and _starts_word(before, latin.start(1)):
                    give(fold(inner), latin.group(1))


def complete_names(entries: list[RawEntry]) -> NameReport:
    """Apply the name rules to the parsed entries (in place); returns what they added."""
    report = NameReport()
    equivalence_names(entries, report)
    restated_names(entries, report)
    formula_names(entries, report)
    gloss_mentions(entries, report)
    return report
