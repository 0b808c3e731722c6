"""The glossary as reStructuredText for Sphinx: one ``.. glossary::`` per category section.

Each term is one glossary entry whose term lines are all its names (English label, Chinese
label, abbreviations, aliases; :func:`kg.export._names.unique_names`), so that ``:term:`` works
for each of them and Sphinx publishes each in ``objects.inv`` as ``std:term``. The definition
holds a ``kg-<id>`` label (a stable anchor, ``:ref:`` target and ``std:label`` by term id), the
definitions with their sources, the "易混淆 / often confused with" line with the evidence, the
related terms and, for terms in several categories, where else they are listed.

Text from the graph is escaped (:func:`escape`) so that reST markup characters stay text; names
on term lines are escaped too (:func:`term_line`), including the `` : `` that Sphinx would read
as a classifier. Sections use ``-`` underlines, so the page that holds the directive titles
itself with another adornment (the generated page uses ``=`` over and under).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from kg.export._common import (
    ExportDoc,
    category_labels,
    neighbours,
    nodes,
    ordered_langs,
    sort_key,
    strings,
    valid_edges,
)
from kg.export._names import unique_names

UNCATEGORISED = "Uncategorised · 未分类"
_SPECIAL = re.compile(r"([\\`*_|:\[\]<>])")
_WS = re.compile(r"\s+")
_LABEL_SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_ROLE_UNSAFE = re.compile(r"[`<>\\]")
INDENT = "   "
BODY = INDENT


def escape(text: Any) -> str:
    """Inline-safe reST: whitespace collapsed, markup characters backslash-escaped.

    ``\\ ` * _ | : [ ] < >`` are escaped everywhere (a backslash-escaped character is shown as
    itself), which also defuses roles, references (``name_``), substitutions and a ``::`` that
    would start a literal block.
    """
    return _SPECIAL.sub(r"\\\1", _WS.sub(" ", str(text)).strip())


def term_line(name: str) -> str:
    """A glossary term line for *name*: escaped, and never read as a comment or a classifier."""
    line = escape(name)
    if line.startswith(".."):
        line = "\\" + line
    return line


def label_name(node_id: str) -> str | None:
    """The ``kg-<id>`` label of a term, or ``None`` when the id is not a plain label name."""
    return f"kg-{node_id}".lower() if _LABEL_SAFE.match(node_id) else None


def term_ref(target_name: str, node_id: str, title: str | None = None) -> str:
    """A link to a term: ``:term:`` by its first name, or ``:ref:`` to its label when the name has
    characters a role cannot carry; plain escaped text as the last resort."""
    shown = title or target_name
    if not _ROLE_UNSAFE.search(target_name) and not _ROLE_UNSAFE.search(shown):
        return f":term:`{target_name}`" if shown == target_name else f":term:`{shown} <{target_name}>`"
    label = label_name(node_id)
    if label:
        return f":ref:`{_ROLE_UNSAFE.sub(lambda m: chr(92) + m.group(0), shown)} <{label}>`"
    return escape(shown)


def _width(text: str) -> int:
    """Display columns (East Asian wide characters count two), for section underlines."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _title(text: str, char: str) -> list[str]:
    t = escape(text)
    return [t, char * max(_width(t), 4), ""]


def _sources_line(d: Mapping[str, Any], sid: str, sources: Mapping[str, Mapping[str, Any]]) -> str:
    """ "*Title* [id], section, line N" for a definition or an edge's evidence from source *sid*."""
    parts = []
    if sid:
        title = sources.get(sid, {}).get("title")
        parts.append(f"*{escape(title)}* [{escape(sid)}]" if title else f"[{escape(sid)}]")
    if d.get("section"):
        parts.append(escape(d["section"]))
    if d.get("line"):
        parts.append(f"line {d['line']}")
    return ", ".join(parts)


def _entry(
    node: Mapping[str, Any],
    names: Mapping[str, list[str]],
    links: Any,
    evidence: Mapping[tuple[str, str], list[Mapping[str, Any]]],
    sources: Mapping[str, Mapping[str, Any]],
    also_in: list[str],
) -> list[str]:
    nid = str(node["id"])
    out = [term_line(n) for n in names[nid]]
    body: list[str] = []
    label = label_name(nid)
    if label:
        body += [f".. _{label}:", ""]
    defs = [d for d in node.get("definitions") or [] if d.get("text")]
    for d in defs:
        item = f"- {escape(d['text'])}"
        if d.get("note"):
            item += f" ({escape(d['note'])})"
        src = _sources_line(d, str(d.get("source") or ""), sources)
        body.append(item + (f" — {src}" if src else ""))
    if not defs:
        body.append("*No definition in the sources · 来源中无定义*")
    body.append("")
    if links.confused_with:
        refs = []
        for other in links.confused_with:
            ev = [e for e in evidence.get((nid, other), []) if e.get("evidence")]
            quote = ""
            if ev:
                where = _sources_line(ev[0], str(ev[0].get("doc") or ""), sources)
                quote = f" (“{escape(ev[0]['evidence'])}” — {where})"
            refs.append(term_ref(names[other][0], other) + quote)
        body += ["**易混淆 / often confused with:** " + "; ".join(refs), ""]
    if links.related:
        body += ["**Related · 相关:** " + ", ".join(term_ref(names[r][0], r) for r in links.related), ""]
    if also_in:
        body += ["*Also in · 另见:* " + ", ".join(escape(c) for c in also_in), ""]
    while body and not body[-1]:
        body.pop()
    return out + [BODY + line if line else "" for line in body]


def glossary_rst(doc: ExportDoc) -> str:
    """The reST of the whole glossary (sections and ``.. glossary::`` blocks, no page title)."""
    names = unique_names(doc)
    links = neighbours(doc)
    cats = category_labels(doc)
    sources = {str(s["id"]): s for s in doc.get("sources") or []}
    evidence: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for e in valid_edges(doc):
        s, t = str(e["source"]), str(e["target"])
        evidence.setdefault((s, t), []).append(e)
        evidence.setdefault((t, s), []).append(e)

    def cat_title(cid: str) -> str:
        lab = cats.get(cid, {})
        return " · ".join(lab[lang] for lang in ordered_langs(lab)) or cid

    home: dict[str, list[Mapping[str, Any]]] = {}
    others: dict[str, list[str]] = {}
    for n in nodes(doc):
        node_cats = [c for c in strings(n.get("categories")) if c in cats]
        home.setdefault(node_cats[0] if node_cats else "", []).append(n)
        others[str(n["id"])] = [cat_title(c) for c in node_cats[1:]]
    order = sorted((c for c in home if c), key=lambda c: (cat_title(c).casefold(), c))
    if "" in home:
        order.append("")

    lines: list[str] = []
    for cid in order:
        lines += _title(cat_title(cid) if cid else UNCATEGORISED, "-")
        lines += [".. glossary::", ""]
        for n in sorted(home[cid], key=sort_key):
            entry = _entry(n, names, links[str(n["id"])], evidence, sources, others[str(n["id"])])
            lines += [INDENT + line if line else "" for line in entry] + [""]
    return "\n".join(lines).rstrip("\n") + "\n"
