"""Markdown definition lists (PHP Markdown Extra, Pandoc, Python-Markdown ``def_list``)::

    ## Latency

    Time to first token (TTFT)
    首 token 延迟
    : The time from sending a request to receiving the first output token.
      A continuation line is indented.
    : A second definition of the same term.

One or more term lines, then definitions each starting with ``:`` (or ``~``) and a space; Pandoc's
blank line between the terms and the first definition is allowed. Each term line gives names as a
seed heading does (:func:`kg.imports.records.term_line_names`): "Time to first token (TTFT)" is a
label and an abbreviation, a later line another name. The last heading above an item (``#``
headings or underlined ones) is its category. Inline markup is removed (emphasis, code spans,
links keep their text); fenced code blocks and paragraphs that are not terms of a definition are
skipped (reported). Errors name the line: a definition with no term before it, a term line that
is too long to be a name, a term or name given twice.
"""

from __future__ import annotations

import re

from kg.imports.records import MAX_NAME_CHARS, Definition, Record, term_line_names, to_parsed
from kg.model import ParsedSource, ParseIssue
from kg.parsers.common import SourceError

_MARKER = re.compile(r"^ {0,3}[:~](?:[ \t]+|$)(?P<text>.*)$")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(?P<text>.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_LINK = re.compile(r"!?\[(?P<text>[^\]]*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"(\*\*|__|\*|_)(?=\S)(?P<text>.+?)(?<=\S)\1")
_CODE = re.compile(r"(`+)(?P<text>.+?)\1")
_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~:])")


def plain(text: str) -> str:
    """Markdown inline markup removed: links and images keep their text, emphasis and code spans
    their content, HTML tags go, backslash escapes become the character."""
    text = _CODE.sub(lambda m: m.group("text").strip(), text)
    text = _LINK.sub(lambda m: m.group("text"), text)
    text = _TAG.sub("", text)
    for _ in range(2):  # nested emphasis (***x***)
        text = _EMPHASIS.sub(lambda m: m.group("text"), text)
    return _ESCAPE.sub(r"\1", text).strip()


def _indented(line: str) -> bool:
    return line.startswith(("  ", "\t"))


def parse_markdown(text: str, source: str, file: str = "") -> ParsedSource:
    """Parse Markdown definition lists (see module docstring)."""
    file = file or source
    lines = text.split("\n")
    skipped: list[ParseIssue] = []
    records: list[Record] = []
    section: str | None = None
    paragraph: list[tuple[int, str]] = []  # (line, text) of the lines since the last blank one
    current: Record | None = None  # the item whose definitions are being read
    fence: str | None = None
    marker_next, starts_item = _lookahead(lines)
    i = 0

    def flush() -> None:
        for no, line in paragraph:
            skipped.append(ParseIssue(source, no, "not a definition-list item", line[:60]))
        paragraph.clear()

    while i < len(lines):
        no, line = i + 1, lines[i].rstrip("\r")
        i += 1
        if fence:
            if line.strip().startswith(fence):
                fence = None
            continue
        if m := _FENCE.match(line):
            flush()
            fence, current = m.group(1)[:3], None
            continue
        if not line.strip():
            # Pandoc allows one blank line between the terms and their first definition
            if paragraph and not marker_next[i - 1]:
                flush()
            continue
        if m := _ATX.match(line):
            flush()
            section, current = plain(m.group("text") or "") or None, None
            continue
        if len(paragraph) == 1 and _SETEXT.match(line):
            section, current = plain(paragraph[0][1]) or None, None
            paragraph.clear()
            continue
        m = _MARKER.match(line)
        if m is None:
            current = None  # prose or the next item's term lines
            paragraph.append((no, line.strip()))
            continue
        if paragraph:
            current = _new_record(paragraph, section, file)
            records.append(current)
            paragraph.clear()
        elif current is None:
            raise SourceError(file, no, "':' definition with no term line before it")
        # the definition: its line, indented lines (after blank lines too) and lazy continuation
        # lines, up to a blank line followed by an unindented line, a marker, or the next item
        body = [m.group("text").strip()]
        blank = False
        while i < len(lines):
            nxt = lines[i].rstrip("\r")
            if not nxt.strip():
                blank = True
            elif (
                _MARKER.match(nxt)
                or _ATX.match(nxt)
                or _FENCE.match(nxt)
                or (not _indented(nxt) and (blank or starts_item[i]))
            ):
                break
            else:
                body.append(nxt.strip())
                blank = False
            i += 1
        definition = plain(" ".join(b for b in body if b))
        if definition:
            current.definitions.append(Definition(definition, no))
    flush()
    if not records:
        raise SourceError(file, 1, "no definition-list item (a term line, then ': definition')")
    return to_parsed(records, source, file, skipped)


def _lookahead(lines: list[str]) -> tuple[list[bool], list[bool]]:
    """Per line index: whether the next non-blank line is a definition marker, and whether a
    marker follows before the next blank line (the line then starts an item: it is a term line).
    One backward pass, so reading stays linear in the number of lines."""
    n = len(lines)
    marker_next = [False] * n
    starts_item = [False] * n
    after_next, after_same = False, False  # for line k + 1
    for k in range(n - 1, -1, -1):
        marker_next[k], starts_item[k] = after_next, after_same
        line = lines[k]
        if not line.strip():
            after_same = False  # after_next: the next non-blank line's is unchanged
        else:
            is_marker = bool(_MARKER.match(line))
            after_next = is_marker
            after_same = is_marker or after_same
    return marker_next, starts_item


def _new_record(paragraph: list[tuple[int, str]], section: str | None, file: str) -> Record:
    line = paragraph[0][0]
    terms = []
    for no, text in paragraph:
        name = plain(text)
        if len(name) > MAX_NAME_CHARS:
            raise SourceError(
                file,
                no,
                f"term line of {len(name)} characters (at most {MAX_NAME_CHARS}): is a paragraph "
                "directly above a ':' definition?",
            )
        terms.append(name)
    r = Record(line=line, what=f"item {terms[0]!r}")
    for n in term_line_names(terms):
        r.add_name(n.text, n.kind, "term line", file)
    r.categories = [section] if section else []
    return r
