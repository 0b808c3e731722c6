"""Where in a page a term may be annotated: the page's layout per format.

:func:`layout` returns the spans of the original text that are never annotated (``masked``), the
spans that are headings, and where each section starts:

- **html**: tags with their attributes, comments, ``<!DOCTYPE …>`` / ``<?…?>`` / CDATA, and the
  whole content of ``<script>``, ``<style>``, ``<code>``, ``<pre>``, ``<kbd>``, ``<samp>``,
  ``<var>``, ``<a>`` (an existing link), ``<textarea>``, ``<title>``, ``<head>``, ``<svg>``,
  ``<math>``, ``<template>``, ``<noscript>`` and of any element marked ``class="gkg-skip"`` or
  ``data-gkg-skip`` (a page's own opt-out); ``<h1>``–``<h6>`` are headings and start sections;
  ``<th>``, ``<caption>``, ``<summary>`` and ``<legend>`` label a table, details or fieldset:
  headings too, starting no section.
- **markdown**: front matter, fenced and indented code blocks, code spans, links and images
  (inline, reference and their definitions), autolinks, abbreviation definitions, and every
  HTML construct above; ATX (also inside block quotes) and setext headings are headings and
  start sections; the header row of a table and a line of bold text alone count as headings
  (they label what follows, they are not prose).
- every format: bare URLs.

The scanners are regular expressions over the page, linear in its length; they do not build a
tree, so a page's markup is never re-serialised (:mod:`kg.annotate.render` inserts into the
original string).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field

FORMATS = ("text", "markdown", "html")

_URL = re.compile(r"\b(?:https?|ftp)://[^\s<>\"'`\])}]+|\bwww\.[a-z0-9-]+\.[^\s<>\"'`\])}]+", re.I)

# --- HTML ----------------------------------------------------------------------------------------
_HTML_TOKEN = re.compile(
    r"<!--.*?(?:-->|\Z)"  # comment (an unclosed one runs to the end)
    r"|<!\[CDATA\[.*?(?:\]\]>|\Z)"
    r"|<![^>]*>?"  # doctype
    r"|<\?.*?(?:\?>|\Z)"  # processing instruction
    r"|</?([A-Za-z][A-Za-z0-9:-]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>",
    re.S,
)
_RAW_TEXT = frozenset({"script", "style", "textarea", "title"})
_SKIP_ELEMENTS = frozenset(
    {"code", "pre", "kbd", "samp", "var", "a", "head", "svg", "math", "template", "noscript", "tt"}
)
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
# labels of a table, a details block or a fieldset: headings too, though they start no section
_LABELS = frozenset({"th", "caption", "summary", "legend"})
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
)
_OPT_OUT = re.compile(r"""class\s*=\s*(["']?)[^"'>]*\bgkg-skip\b|\bdata-gkg-skip\b""", re.I)

# --- Markdown ------------------------------------------------------------------------------------
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_ATX = re.compile(r"(?: {0,3}>[ \t]?)* {0,3}(#{1,6})(?:[ \t]+|$)")  # inside block quotes too
_BOLD_LINE = re.compile(r"(?: {0,3}>[ \t]?)* {0,3}(\*\*|__)(?=\S)[^*_\n]+(?<=\S)\1[ \t]*:?[ \t]*$")
_SETEXT = re.compile(r" {0,3}(=+|-{2,})[ \t]*$")
_LIST_ITEM = re.compile(r" {0,3}(?:[-*+]|\d{1,9}[.)])[ \t]")
_TABLE_DELIM = re.compile(r"[ \t]*(?=[^\n]*\|)(?=[^\n]*-)[|:\- \t]+$")
_REF_DEF = re.compile(r" {0,3}\[([^\]]+)\]:[ \t]*\S")
_ABBR_DEF = re.compile(r" {0,3}\*\[[^\]]+\]:")
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
_LINK = re.compile(
    r"!?\[((?:[^\[\]\\\n]|\\.|\[[^\[\]\n]*\])*)\]"  # [text] with one level of nested brackets
    r"(?:\((?:[^()\s]|\([^()\s]*\))*(?:[ \t]+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?[ \t]*\)"  # (url "title")
    r"|\[[^\[\]\n]*\])"  # [ref]
)
_SHORTCUT_REF = re.compile(r"!?\[([^\[\]\n]+)\](?![(\[:])")
_AUTOLINK = re.compile(r"<(?:[a-z][a-z0-9+.-]{1,31}:[^\s<>]*|[^\s<>@]+@[^\s<>]+)>", re.I)


@dataclass
class Layout:
    """Spans (original offsets, sorted) never annotated, heading spans and section starts."""

    masked: list[tuple[int, int]] = field(default_factory=list)
    headings: list[tuple[int, int]] = field(default_factory=list)
    #: the visible text of existing links (inside ``masked``): never annotated, but the names
    #: it holds count as context for the mentions around it
    link_texts: list[tuple[int, int]] = field(default_factory=list)
    sections: list[int] = field(default_factory=lambda: [0])

    def section_of(self, pos: int) -> int:
        """Index of the section holding *pos* (0 before the first heading)."""
        return bisect_right(self.sections, pos) - 1

    def in_heading(self, start: int, end: int) -> bool:
        i = bisect_right(self.headings, (start, len_max())) - 1
        return i >= 0 and self.headings[i][0] <= start and end <= self.headings[i][1]


def len_max() -> int:
    return 1 << 62


def layout(text: str, fmt: str) -> Layout:
    """The layout of *text* read as *fmt* (``text``, ``markdown`` or ``html``; see the module)."""
    if fmt == "html":
        out = _html_layout(text)
    elif fmt == "markdown":
        out = _markdown_layout(text)
    elif fmt == "text":
        out = Layout()
    else:  # pragma: no cover - callers validate the format
        raise ValueError(f"unknown format {fmt!r}: one of {', '.join(FORMATS)}")
    out.masked.extend(m.span() for m in _URL.finditer(text))
    out.masked = _merge(out.masked)
    out.headings.sort()
    out.link_texts = _merge(out.link_texts)
    out.sections = sorted(set(out.sections))
    return out


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if e <= s:
            continue
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return out


def _html_layout(text: str, start: int = 0, end: int | None = None, out: Layout | None = None) -> Layout:
    """Masks, headings and sections of the HTML in ``text[start:end]`` (also used for the HTML
    inside Markdown)."""
    out = out or Layout()
    end = len(text) if end is None else end
    pos = start
    heading_at: int | None = None
    heading_name = ""
    while pos < end:
        m = _HTML_TOKEN.search(text, pos, end)
        if m is None:
            break
        out.masked.append(m.span())
        name = (m.group(1) or "").lower()
        pos = m.end()
        if not name:
            continue
        closing = m.group(0).startswith("</")
        attrs = m.group(2) or ""
        if closing:
            if heading_at is not None and name == heading_name:
                out.headings.append((heading_at, m.start()))
                heading_at = None
            continue
        if name in _VOID or attrs.rstrip().endswith("/"):
            continue
        if name in _RAW_TEXT:
            close = re.compile(rf"</{name}\s*>", re.I).search(text, pos, end)
            stop = close.end() if close else end
            out.masked.append((pos, stop))
            pos = stop
        elif name in _SKIP_ELEMENTS or _OPT_OUT.search(attrs):
            stop = _matching_close(text, name, pos, end)
            out.masked.append((pos, stop))
            if name == "a" and not _OPT_OUT.search(attrs):
                _text_between_tags(text, pos, stop, out.link_texts)
            pos = stop
        elif name in _HEADINGS or (name in _LABELS and heading_at is None):
            if name in _HEADINGS:
                out.sections.append(m.start())
            heading_at, heading_name = m.end(), name
    if heading_at is not None:
        out.headings.append((heading_at, end))
    return out


def _text_between_tags(text: str, start: int, end: int, into: list[tuple[int, int]]) -> None:
    """The runs of ``text[start:end]`` outside tags (a link's visible text; its closing tag ends it)."""
    pos = start
    for m in _HTML_TOKEN.finditer(text, start, end):
        if m.start() > pos:
            into.append((pos, m.start()))
        pos = m.end()
    if pos < end:
        into.append((pos, end))


def _matching_close(text: str, name: str, pos: int, end: int) -> int:
    """End of the element *name* opened just before *pos* (same-name elements may nest); *end* when
    it is never closed."""
    tag = re.compile(rf"<(/?){re.escape(name)}(?=[\s/>])(?:[^>\"']|\"[^\"]*\"|'[^']*')*>", re.I)
    depth = 1
    for m in tag.finditer(text, pos, end):
        if m.group(1):
            depth -= 1
            if depth == 0:
                return m.end()
        elif not m.group(0).endswith("/>"):
            depth += 1
    return end


def _markdown_layout(text: str) -> Layout:
    out = Layout()
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    refs: set[str] = set()
    i = 0
    n = len(lines)
    # front matter
    if lines and lines[0].rstrip() == "---":
        for j in range(1, n):
            if lines[j].rstrip() in ("---", "..."):
                out.masked.append((0, starts[j + 1]))
                i = j + 1
                break
    prev_blank = True
    in_list = False
    prose: list[int] = []  # indices of lines that may hold prose
    while i < n:
        line = lines[i].rstrip("\r\n")
        stripped = line.strip()
        fence = _FENCE.match(line)
        if fence:
            mark = fence.group(1)
            j = i + 1
            while j < n and not re.match(
                rf" {{0,3}}{re.escape(mark[0])}{{{len(mark)},}}[ \t]*$", lines[j].rstrip("\r\n")
            ):
                j += 1
            stop = starts[min(j + 1, n)]
            out.masked.append((starts[i], stop))
            i, prev_blank = j + 1, False
            continue
        if not stripped:
            prev_blank = True
            i += 1
            continue
        indent = len(line) - len(line.lstrip(" \t").replace("\t", "    "))
        if (line.startswith("\t") or indent >= 4) and prev_blank and not in_list:
            j = i
            while j < n and (not lines[j].strip() or lines[j].startswith(("    ", "\t"))):
                j += 1
            out.masked.append((starts[i], starts[j]))
            i, prev_blank = j, True
            continue
        if _LIST_ITEM.match(line):
            in_list = True
        elif prev_blank and indent == 0:
            in_list = False
        atx = _ATX.match(line)
        if atx:
            out.sections.append(starts[i])
            out.headings.append((starts[i] + atx.end(), starts[i] + len(line)))
            out.masked.append((starts[i], starts[i] + atx.end()))
            i, prev_blank = i + 1, False
            continue
        if _BOLD_LINE.match(line):  # a line of bold text alone: a heading in all but name
            out.headings.append((starts[i], starts[i] + len(line)))
            i, prev_blank = i + 1, False
            continue
        if i + 1 < n:
            nxt = lines[i + 1].rstrip("\r\n") if i + 1 < n else ""
            if _SETEXT.match(nxt) and not _LIST_ITEM.match(line) and "|" not in line:
                out.sections.append(starts[i])
                out.headings.append((starts[i], starts[i] + len(line)))
                out.masked.append((starts[i + 1], starts[i + 2]))
                i, prev_blank = i + 2, False
                continue
            if "|" in line and _TABLE_DELIM.match(nxt):
                out.headings.append((starts[i], starts[i] + len(line)))  # header row: not a new section
                out.masked.append((starts[i + 1], starts[i + 2]))
                i, prev_blank = i + 2, False
                continue
        ref = _REF_DEF.match(line)
        if ref or _ABBR_DEF.match(line):
            if ref:
                refs.add(ref.group(1).strip().casefold())
            out.masked.append((starts[i], starts[i + 1]))
            i, prev_blank = i + 1, False
            continue
        prose.append(i)
        i, prev_blank = i + 1, False
    # inline constructs over the prose lines (a code span or a link may wrap onto the next line)
    for block_start, block_end in _blocks(prose, starts):
        _inline(text, block_start, block_end, refs, out)
    return out


def _blocks(prose: list[int], starts: list[int]) -> list[tuple[int, int]]:
    """Runs of consecutive prose lines, as (start, end) offsets."""
    out: list[tuple[int, int]] = []
    for idx in prose:
        s, e = starts[idx], starts[idx + 1]
        if out and out[-1][1] == s:
            out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return out


def _inline(text: str, start: int, end: int, refs: set[str], out: Layout) -> None:
    chunk = text[start:end]
    spans: list[tuple[int, int]] = []
    for m in _CODE_SPAN.finditer(chunk):
        if not re.search(r"\n[ \t]*\n", m.group(0)):
            spans.append(m.span())
    masked_before = _merge(spans)

    def free(s: int, e: int) -> bool:
        return not any(a < e and s < b for a, b in masked_before)

    for rx in (_AUTOLINK, _LINK):
        for m in rx.finditer(chunk):
            if free(*m.span()):
                spans.append(m.span())
                if rx is _LINK and not m.group(0).startswith("!"):
                    out.link_texts.append((start + m.start(1), start + m.end(1)))
    for m in _SHORTCUT_REF.finditer(chunk):
        if m.group(1).strip().casefold() in refs and free(*m.span()):
            spans.append(m.span())
            if not m.group(0).startswith("!"):
                out.link_texts.append((start + m.start(1), start + m.end(1)))
    out.masked.extend((start + s, start + e) for s, e in spans)
    if "<" in chunk:
        html = _html_layout(text, start, end)
        code = [(start + s, start + e) for s, e in masked_before]
        for s, e in html.masked:  # a tag inside a code span is code, not markup
            if not any(a <= s and e <= b for a, b in code):
                out.masked.append((s, e))
        out.headings.extend(html.headings)
        out.sections.extend(html.sections)
        out.link_texts.extend(t for t in html.link_texts if not any(a <= t[0] and t[1] <= b for a, b in code))
