"""Parser for "one entry per line" glossaries: ``Term（gloss） definition``.

Layout (002_…): furniture and an intro, then groups, each a short heading line
followed by entry lines; a callout ("两个 Triton 不要混") is a short line with a
confusion keyword followed by one paragraph; a "易混淆辨析" heading opens a
section of (subheading, paragraph) pairs that become confusion groups.
"""

from __future__ import annotations

import re

import jieba

from kg.model import ConfusionGroup, Name, ParsedSource, ParseIssue, RawEntry
from kg.parsers.common import (
    SourceError,
    is_abbreviation,
    is_furniture,
    name,
    name_pair,
    numbered_lines,
    strip_contact_blocks,
)
from kg.parsers.statements import alias_statement, is_pure_pointer, split_see_also
from kg.textnorm import has_cjk, is_cjk_char, lang_of

_SENT_PUNCT = re.compile(r"[。，；：！？,;:!?]")
_CONFUSION_SECTION = re.compile(r"(易混淆|辨析|容易混淆|常见混淆)")
_CALLOUT = re.compile(r"(不要混|别混|易混|勿混|混淆)")
# Words that open a definition rather than continue a term ("TVM Apache 的…").
_ORG_WORDS = frozenset(
    [
        "NVIDIA",
        "Intel",
        "Apache",
        "Google",
        "Microsoft",
        "Meta",
        "AMD",
        "Hugging",
        "UC",
        "OpenAI",
        "Python",
        "Linux",
        "LLVM",
        "Facebook",
        "Huawei",
        "Apple",
        "Qualcomm",
        "Baidu",
        "Alibaba",
        "ByteDance",
        "Berkeley",
    ]
)
_COMBINED_SEP = re.compile(r"\s+/\s+|\s+与\s+")


def _is_heading(line: str) -> bool:
    return 0 < len(line) <= 14 and not _SENT_PUNCT.search(line) and "（" not in line and "(" not in line


def _paren_form(line: str) -> tuple[str, str, str] | None:
    """Split "Term（gloss） definition" → (term, gloss, definition)."""
    m = re.match(r"^(?P<term>[^（(]{1,60}?)\s*[（(](?P<gloss>[^）)]{1,80})[）)](?P<sp>\s*)(?P<def>.+)$", line)
    if not m:
        return None
    term = m.group("term").strip()
    if re.search(r"[。；：！？]", term) or "，" in term:
        return None
    # A space must separate gloss and definition, unless the term is plain Latin
    # and the gloss Chinese ("Little's Law（利特尔法则）并发 = …").
    if not m.group("sp") and (has_cjk(term) or not has_cjk(m.group("gloss"))):
        return None
    return term, m.group("gloss").strip(), m.group("def").strip()


def _bare_form(line: str) -> tuple[str, str] | None:
    """Split "Term definition" where the term is bare (no gloss).

    The term is the first token, extended while the next token continues a name:
    "/ X" alternatives, lower-case words ("L2 cache", "chunked prefill"),
    capitalised words that are not organisation names ("Triton Inference
    Server"), or a short Chinese noun followed by more Chinese ("Plan 文件 同…").
    """
    tokens = line.split(" ")
    if len(tokens) < 2 or _SENT_PUNCT.search(tokens[0]) or has_cjk(tokens[0]):
        return None
    i = 1
    while i < len(tokens) - 1:
        tok = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        if tok == "/" and nxt:
            i += 2
            continue
        if re.fullmatch(r"[a-z][a-z\-]*", tok):
            i += 1
            continue
        if re.fullmatch(r"[A-Z][a-z]+", tok) and tok not in _ORG_WORDS:
            i += 1
            continue
        if 0 < len(tok) <= 4 and all(is_cjk_char(c) for c in tok) and nxt and is_cjk_char(nxt[0]):
            i += 1
            break
        break
    term = " ".join(tokens[:i])
    definition = " ".join(tokens[i:]).strip()
    if not definition or len(term) > 60:
        return None
    return term, definition


def _distribute(members: list[str]) -> list[str]:
    """ "对称 / 非对称量化" → 对称量化, 非对称量化: a shared trailing word applies to all.

    Chinese: the last member's head word (by jieba) is its modifier and the rest
    the shared suffix, applied to earlier members that are single words.
    English: "symmetric / asymmetric quantization" likewise, word-wise.
    """
    if len(members) < 2:
        return members
    last = members[-1]
    out = list(members)
    if has_cjk(last):
        words = [w for w in jieba.lcut(last) if w.strip()]
        if len(words) >= 2:
            suffix = "".join(words[1:])
            for k, m in enumerate(members[:-1]):
                if len(jieba.lcut(m)) == 1 and not m.endswith(suffix):
                    out[k] = m + suffix
    elif not has_cjk(last) and " " in last:
        tail = last.split(" ", 1)[1]
        for k, m in enumerate(members[:-1]):
            if " " not in m and not is_abbreviation(m) and not is_abbreviation(last.split(" ")[0]):
                out[k] = f"{m} {tail}"
    return out


def _expand_gloss(glosses: list[str]) -> list[str]:
    """ "service level agreement / objective" → […, "service level objective"]."""
    if len(glosses) < 2:
        return glosses
    first = glosses[0].split(" ")
    out = [glosses[0]]
    for g in glosses[1:]:
        if " " not in g and len(first) > 1 and not has_cjk(g):
            out.append(" ".join([*first[:-1], g]))
        else:
            out.append(g)
    return out


def _combined_entries(
    source: str, no: int, section: str | None, term: str, gloss: str | None, definition: str, raw: str
) -> list[RawEntry] | None:
    """Split a line that defines several terms at once (SLA / SLO, AOT 与 JIT …)."""
    if not _COMBINED_SEP.search(term):
        return None
    group_label = None
    parts = [p.strip() for p in _COMBINED_SEP.split(term) if p.strip()]
    # "per-tensor / per-channel / per-group 量化粒度": a trailing Chinese word after a
    # Latin member names the group, not the last member.
    m = re.match(r"^(?P<m>[A-Za-z0-9][\w\-.]*)\s+(?P<g>[\u4e00-\u9fff]+)$", parts[-1])
    if m:
        parts[-1] = m.group("m")
        group_label = m.group("g")
    if len(parts) < 2:
        return None
    members = _distribute(parts)
    glosses: list[str] = []
    if gloss:
        glosses = _expand_gloss([g.strip() for g in re.split(r"\s*/\s*", gloss) if g.strip()])
        glosses = _distribute(glosses)
    paired = len(glosses) == len(members)
    entries = []
    for k, member in enumerate(members):
        names = name_pair(member, glosses[k] if paired else None)
        entries.append(
            RawEntry(
                source=source,
                line=no,
                section=section,
                names=names,
                definition=definition,
                note=(
                    f"{group_label}（{gloss}）"
                    if group_label and gloss
                    else group_label or (gloss if not paired else None)
                ),
                raw=raw,
            )
        )
    group = tuple(parts)
    for e in entries:
        e.group = group
    if len(glosses) == 1 and not paired and not group_label:
        # "P50 / P95 / P99（percentile latency）": one gloss for several members names what
        # the line is about (the concept the members are values of), not each member.
        entries.append(
            RawEntry(
                source=source,
                line=no,
                section=section,
                names=[Name(glosses[0], lang_of(glosses[0]), "label", "rule")],  # type: ignore[arg-type]
                definition=definition,
                raw=raw,
            )
        )
    return entries


def parse_gloss_lines(text: str, source: str, file: str = "") -> ParsedSource:
    """Parse a ``Term（gloss） definition`` glossary (see module docstring)."""
    lines, skipped = strip_contact_blocks(numbered_lines(text), source)
    non_blank = [(no, ln) for no, ln in lines if ln]
    if not non_blank:
        raise SourceError(file or source, 1, "empty source: no entries found")
    entries: list[RawEntry] = []
    confusions: list[ConfusionGroup] = []
    section: str | None = None
    in_confusions = False
    started = False
    i = 0
    while i < len(non_blank):
        no, line = non_blank[i]
        nxt = non_blank[i + 1][1] if i + 1 < len(non_blank) else ""
        if is_furniture(line):
            skipped.append(ParseIssue(source, no, "page furniture", line))
            i += 1
            continue
        if _is_heading(line) and _CONFUSION_SECTION.search(line):
            in_confusions, started, section = True, True, line
            i += 1
            continue
        if in_confusions:
            if i + 1 < len(non_blank) and len(line) <= 60 and not line.endswith("。"):
                members = tuple(p.strip() for p in re.split(r"\s*/\s*", line) if p.strip())
                body = nxt
                confusions.append(
                    ConfusionGroup(
                        source=source,
                        line=no,
                        members=members if len(members) > 1 else (),
                        evidence=f"{line}：{body}",
                        origin="confusables-section",
                    )
                )
                i += 2
                continue
            raise SourceError(file or source, no, f"expected a confusion subheading, got: {line[:40]}")
        is_entry = _paren_form(line) is not None or (_bare_form(line) is not None and started)
        if (_is_heading(line) and not is_entry) or (_is_heading(line) and _CALLOUT.search(line)):
            if _CALLOUT.search(line) and nxt:
                confusions.append(ConfusionGroup(source, no, (), f"{line}：{nxt}", origin="callout"))
                i += 2
                continue
            if nxt and (_paren_form(nxt) or _bare_form(nxt)):
                section, started = line, True
                i += 1
                continue
            skipped.append(ParseIssue(source, no, "heading without entries", line))
            i += 1
            continue
        if not started:
            skipped.append(ParseIssue(source, no, "preamble before the first group", line[:60]))
            i += 1
            continue
        parsed = _paren_form(line)
        if parsed:
            term, gloss, definition = parsed
        else:
            bare = _bare_form(line)
            if not bare:
                raise SourceError(file or source, no, f"cannot split term from definition: {line[:40]}")
            term, definition = bare
            gloss = None
        definition, see_also = split_see_also(definition)
        combined = _combined_entries(source, no, section, term, gloss, definition, line)
        new = combined or [
            RawEntry(
                source=source,
                line=no,
                section=section,
                names=name_pair(term, gloss),
                definition=definition,
                raw=line,
            )
        ]
        for e in new:
            stmt = alias_statement(definition)
            if stmt:
                e.alias_of = stmt
                if is_pure_pointer(definition, stmt):
                    e.definition = None
            e.see_also = see_also
        entries.extend(new)
        i += 1
    if not entries:
        raise SourceError(file or source, non_blank[0][0], "no entries found")
    return ParsedSource(source=source, entries=entries, confusions=confusions, skipped=skipped)


__all__ = ["Name", "name", "parse_gloss_lines"]
