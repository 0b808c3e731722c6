"""reStructuredText ``.. glossary::`` blocks (Sphinx)::

    Latency
    -------

    .. glossary::
       :sorted:

       Time to first token (TTFT)
       首 token 延迟
          The time from sending a request to receiving the first output token; see
          :term:`prefill`.

Every term line of an item gives names as a seed heading does
(:func:`kg.imports.records.term_line_names`); a `` : classifier`` after a term is dropped. The
indented body is one definition (paragraphs joined, explicit markup such as ``.. _label:`` left
out). Each ``:term:`X``` (or ``:term:`text <X>```) in it is a stated ``related_to`` relation to
X, resolved like a ``related`` column; roles and inline markup keep their text. The last section
title above a glossary is its items' category. Several glossaries in one file are read in order.
Errors name the line: no ``.. glossary::``, a term with no indented definition, a definition
with no term, a term or name given twice, a ``:term:`` target no entry has.
"""

from __future__ import annotations

import re

from kg.imports.records import MAX_NAME_CHARS, Definition, Record, Statement, term_line_names, to_parsed
from kg.model import ParsedSource, ParseIssue
from kg.parsers.common import SourceError

_DIRECTIVE = re.compile(r"^(?P<indent>[ \t]*)\.\.[ \t]+glossary::[ \t]*$")
_OPTION = re.compile(r"^[ \t]*:[\w-]+:")
_ADORNMENT = re.compile(r"^([=\-`:'\"~^_*+#<>.])\1{2,}[ \t]*$")
_TERM_ROLE = re.compile(r":term:`(?P<body>(?:[^`\\]|\\.)+)`")
_ROLE = re.compile(r":[\w:+-]+:`(?P<body>(?:[^`\\]|\\.)+)`")
_TITLED = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$")
_LITERAL = re.compile(r"``(?P<text>.+?)``")
_STRONG = re.compile(r"\*\*(?P<text>.+?)\*\*|\*(?P<em>[^*]+?)\*")
_LINK = re.compile(r"`(?P<text>[^`<]+?)\s*(?:<[^`>]*>)?`__?")
_INTERPRETED = re.compile(r"`(?P<text>[^`]+)`")
_ESCAPE = re.compile(r"\\(.)")
_CLASSIFIER = re.compile(r"\s+:\s+.*$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _role_text(body: str) -> tuple[str, str]:
    """(shown text, target) of a role body: "text <target>" or "target"."""
    m = _TITLED.match(body)
    if m:
        return m.group("text").strip() or m.group("target").strip(), m.group("target").strip()
    return body, body


def plain(text: str) -> str:
    """Inline reST removed: roles and links keep their text, literals and emphasis their content,
    backslash escapes become the character."""
    text = _ROLE.sub(lambda m: _role_text(m.group("body"))[0], text)
    text = _LITERAL.sub(lambda m: m.group("text"), text)
    text = _STRONG.sub(lambda m: m.group("text") or m.group("em"), text)
    text = _LINK.sub(lambda m: m.group("text"), text)
    text = _INTERPRETED.sub(lambda m: m.group("text"), text)
    return _ESCAPE.sub(r"\1", text).strip()


def parse_sphinx(text: str, source: str, file: str = "") -> ParsedSource:
    """Parse the ``.. glossary::`` blocks of a reST file (see module docstring)."""
    file = file or source
    lines = [ln.rstrip("\r").rstrip() for ln in text.split("\n")]
    records: list[Record] = []
    skipped: list[ParseIssue] = []
    section: str | None = None
    found = False
    i = 0
    while i < len(lines):
        line = lines[i]
        # a section title: a text line underlined (and maybe overlined) with one punctuation char
        if (
            i + 1 < len(lines)
            and line.strip()
            and not _indent(line)
            and _ADORNMENT.match(lines[i + 1])
            and not _ADORNMENT.match(line)
        ):
            section = plain(line.strip())
            i += 2
            continue
        m = _DIRECTIVE.match(line)
        if m is None:
            i += 1
            continue
        found = True
        base = len(m.group("indent"))
        i += 1
        while i < len(lines) and (
            not lines[i].strip() or (_indent(lines[i]) > base and _OPTION.match(lines[i]))
        ):
            i += 1
        i = _read_glossary(lines, i, base, section, records, file)
    if not found:
        raise SourceError(file, 1, "no '.. glossary::' directive")
    if not records:
        raise SourceError(file, 1, "the '.. glossary::' directives hold no term")
    return to_parsed(records, source, file, skipped)


def _read_glossary(
    lines: list[str], i: int, base: int, section: str | None, records: list[Record], file: str
) -> int:
    """Read the items of one glossary starting at line index *i*; returns where it ends."""
    content: int | None = None  # the indentation of its term lines
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        ind = _indent(line)
        if ind <= base:
            break
        if content is None:
            content = ind
        if ind > content:
            raise SourceError(
                file, i + 1, "a definition with no term line above it (or a term indented too far)"
            )
        if ind < content:
            raise SourceError(
                file,
                i + 1,
                f"indented {ind} spaces: the glossary's terms are indented {content} (a term or "
                "definition out of line?)",
            )
        if line.strip().startswith(".. "):  # a comment or label between items
            i += 1
            continue
        # term lines: consecutive lines at the content indentation
        start = i
        terms: list[tuple[int, str]] = []
        while i < len(lines) and lines[i].strip() and _indent(lines[i]) == content:
            terms.append((i + 1, lines[i].strip()))
            i += 1
        body: list[str] = []
        body_line = i + 1
        while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > content):
            body.append(lines[i])
            i += 1
        if not any(b.strip() for b in body):
            raise SourceError(
                file, start + 1, f"glossary term {terms[0][1]!r} has no definition (indent it under the term)"
            )
        records.append(_record(terms, body, body_line, section, file))
    return i


def _record(
    terms: list[tuple[int, str]], body: list[str], body_line: int, section: str | None, file: str
) -> Record:
    names = []
    for no, text in terms:
        name = plain(_CLASSIFIER.sub("", text))
        if len(name) > MAX_NAME_CHARS:
            raise SourceError(file, no, f"term line of {len(name)} characters (at most {MAX_NAME_CHARS})")
        names.append(name)
    r = Record(line=terms[0][0], what=f"glossary term {names[0]!r}")
    for n in term_line_names(names):
        r.add_name(n.text, n.kind, "term line", file)
    kept: list[tuple[int, str]] = []  # (line, text) of the body's lines
    markup = False  # inside an explicit markup block (".. _label:", ".. note::" …)
    body_indent = min(_indent(b) for b in body if b.strip())
    for k, b in enumerate(body):
        if not b.strip():
            continue
        if _indent(b) == body_indent:
            markup = b.strip().startswith(".. ")
        if not markup:
            kept.append((body_line + k, b.strip()))
    joined = " ".join(t for _, t in kept)
    starts, pos = [], 0
    for no, t in kept:
        starts.append((pos, no))
        pos += len(t) + 1
    for m in _TERM_ROLE.finditer(joined):  # a role may wrap onto the next line
        no = max((p, n) for p, n in starts if p <= m.start())[1]
        target = _ESCAPE.sub(r"\1", _role_text(m.group("body"))[1]).strip()
        line_text = next(t for n, t in kept if n == no)
        r.statements.append(
            Statement("related_to", target, no, f":term:`{target}`", evidence=plain(line_text))
        )
    definition = plain(joined)
    if definition:
        r.definitions.append(Definition(definition, body_line))
    r.categories = [section] if section else []
    return r
