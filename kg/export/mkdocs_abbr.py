"""mkdocs-material abbreviations: one ``*[ABBR]: expansion — short definition`` line per abbreviation.

mkdocs-material shows these as tooltips through Python-Markdown's ``abbr`` extension, usually
appended to every page with ``pymdownx.snippets`` (``auto_append``; see docs/DOCS-TOOLING.md).
What that extension accepts decides the escaping here (``markdown/extensions/abbr.py``):

* the definition is one line: ``^[*]\\[(?P<abbr>[^\\\\]*?)\\][ ]?:[ ]*(?P<title>.*)$``, so the
  abbreviation may not hold a backslash, and newlines in the title are collapsed to spaces;
* a title of exactly ``''`` or ``""`` *deletes* an abbreviation, so an empty title is never written;
* the title becomes an HTML attribute through ElementTree, which escapes ``<``, ``&`` and ``"``
  itself: the text is written as it is, not HTML-escaped (that would show ``&amp;`` on hover);
* the page text is searched with ``\\b(?:ABBR)\\b``, case-sensitively: an abbreviation that starts
  or ends with a non-word character (``KV$``) can never match and is left out.

Only the graph's *abbreviations* are written (not aliases): the extension matches them in their
written case, which is what an abbreviation such as "EP" or "TP" needs. An abbreviation shared
by several terms gets one line naming all of them, ``; `` between.
"""

from __future__ import annotations

import re

from kg.export._common import ExportDoc, bilingual_label, nodes, sort_key, strings
from kg.export._names import short_definition

_WS = re.compile(r"\s+")
_MATCHABLE = re.compile(r"^\w(?:.*\w)?$", re.DOTALL)
TITLE_LIMIT = 200


def matchable(abbr: str) -> bool:
    """Whether Python-Markdown's abbr extension can ever find *abbr* in a page (see module doc)."""
    return "\\" not in abbr and "\n" not in abbr and "]" not in abbr and bool(_MATCHABLE.match(abbr))


def _one_line(text: str) -> str:
    return _WS.sub(" ", text).strip()


def to_mkdocs_abbr(doc: ExportDoc) -> str:
    """The abbreviations file: a comment-free block of ``*[ABBR]: title`` lines, sorted by abbreviation."""
    titles: dict[str, list[str]] = {}
    for node in sorted(nodes(doc), key=sort_key):
        abbrs = [a for a in (_one_line(x) for x in strings(node.get("abbreviations"))) if matchable(a)]
        if not abbrs:
            continue
        title = bilingual_label(node)
        short = short_definition(node)
        if short:
            title += f" — {short[0]}"
        for abbr in abbrs:
            if title not in titles.setdefault(abbr, []):
                titles[abbr].append(title)
    lines = []
    for abbr in sorted(titles, key=lambda a: (a.casefold(), a)):
        title = _one_line("; ".join(titles[abbr]))
        if len(title) > TITLE_LIMIT:
            title = title[: TITLE_LIMIT - 1].rstrip() + "…"
        if title in ("''", '""'):  # would delete the abbreviation instead of defining it
            title = f"{title} ({abbr})"
        lines.append(f"*[{abbr}]: {title}")
    return "\n".join(lines) + ("\n" if lines else "")
