"""Parser for "heading line, then definition line" glossaries (004_…).

A heading is a short name line ("TTFT(首 token 延迟)", "KV Cache 分层"); it is
an entry only when the next line is a definition that restates one of the
heading's names. That evidence rule is what separates entries from page
furniture, taglines and marketing blocks ("先联测,后决策"), which never restate
themselves as a definition of a term.
"""

from __future__ import annotations

import re

from kg.model import Name, ParsedSource, ParseIssue, RawEntry
from kg.parsers.common import (
    SourceError,
    is_furniture,
    name_pair,
    numbered_lines,
    promote_labels,
    strip_contact_blocks,
)
from kg.textnorm import fold

_HEADING = re.compile(r"^(?P<main>[^()（）]{1,40}?)\s*(?:[(（](?P<gloss>[^()（）]{1,60})[)）])?$")
_SENTENCE_END = re.compile(r"[。.!！?？]$")
# "TTFT(Time To First Token)是…", "张量并行(Tensor Parallelism,TP)把…": the
# definition's own gloss of the name it opens with.
_DEF_GLOSS = re.compile(r"^(?P<main>[^()（）。，,]{1,40}?)\s*[(（](?P<gloss>[^()（）]{1,60})[)）]")


def _heading_names(line: str) -> list[Name] | None:
    if len(line) > 50 or re.search(r"[。，,;；!！?？]", line):
        return None
    m = _HEADING.match(line)
    if not m:
        return None
    return name_pair(m.group("main").strip(), m.group("gloss"))


def _restates(definition: str, names: list[Name]) -> bool:
    head = fold(definition[:80])
    return any(fold(n.text) and fold(n.text) in head for n in names)


def parse_headings(text: str, source: str, file: str = "") -> ParsedSource:
    """Parse a heading/definition glossary (see module docstring)."""
    lines, skipped = strip_contact_blocks(numbered_lines(text), source)
    non_blank = [(no, ln) for no, ln in lines if ln]
    if not non_blank:
        raise SourceError(file or source, 1, "empty source: no entries found")
    entries: list[RawEntry] = []
    i = 0
    while i < len(non_blank):
        no, line = non_blank[i]
        names = None if is_furniture(line) else _heading_names(line)
        if names and i + 1 < len(non_blank):
            _, definition = non_blank[i + 1]
            if definition != line and _SENTENCE_END.search(definition) and _restates(definition, names):
                m = _DEF_GLOSS.match(definition)
                if m and fold(m.group("main")) in {fold(n.text) for n in names}:
                    extra = name_pair(m.group("main").strip(), m.group("gloss"))
                    known = {fold(n.text) for n in names}
                    names = promote_labels(
                        names
                        + [
                            Name(n.text, n.lang, "alias" if n.kind == "label" else n.kind)
                            for n in extra
                            if fold(n.text) not in known
                        ]
                    )
                entries.append(
                    RawEntry(
                        source=source, line=no, section=None, names=names, definition=definition, raw=line
                    )
                )
                i += 2
                continue
        skipped.append(
            ParseIssue(source, no, "not a term entry (furniture, tagline or marketing)", line[:60])
        )
        i += 1
    if not entries:
        raise SourceError(file or source, non_blank[0][0], "no heading/definition entries found")
    return ParsedSource(source=source, entries=entries, skipped=skipped)
