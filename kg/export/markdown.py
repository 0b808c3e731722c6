"""Markdown export: a readable bilingual glossary page.

Layout: a title, one ``##`` section per category (sorted by category label; terms without a
category go to a last "Uncategorised" section), then per term, sorted by label:

* ``### <a id="ID"></a>**English · 中文**`` — the anchor other entries link to;
* an "Abbreviations: … · Aliases: …" line, and "Editorial name: …" for the names no source
  gives (``label_origin: editorial`` and ``editorial_names``, decisions of ``corpus/overlay.json``);
* one bullet per definition (document order), ending with its source id in brackets, linked to the source
  list at the end of the page (``[[002](#source-002)]``);
* "Related:" and "Often confused with:" lines linking to the other terms' anchors
  (both edge directions, see :func:`kg.export._common.neighbours`).

Names the definitions only mention (``kind: "mentioned"``, :mod:`kg.mentioned`) are not terms of
any category: they come in a last section, "Mentioned, not defined", each with a line saying it
is not defined in the glossary and the quoted sentences that mention it (never as definitions).

A term in several categories is written once, under its first category; the other
sections list it under "See also". Text from the document is escaped (:func:`escape`) so
that ``|``, ``*``, ``_``, backticks, ``<``, brackets and friends show literally.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from kg.export._common import (
    ExportDoc,
    bilingual_label,
    category_labels,
    editorial_names,
    kind,
    mentioned_note,
    mentions,
    neighbours,
    nodes,
    ordered_langs,
    sort_key,
    strings,
)

DEFAULT_TITLE = "Glossary · 术语表"
UNCATEGORISED = "Uncategorised · 未分类"
MENTIONED = "Mentioned, not defined · 仅被提及、未定义"

_SPECIAL = re.compile(r"([\\`*_\[\]<>|&~#])")
_BLOCK_START = re.compile(r"^(\d*)([-+=.)])")
_WS = re.compile(r"\s+")


def escape(text: str) -> str:
    """Inline-safe Markdown: whitespace collapsed, special characters backslash-escaped.

    Escapes ``\\ ` * _ [ ] < > | & ~ #`` everywhere, and a leading ``-``, ``+``, ``=`` or
    ``1.`` that would otherwise start a list or heading.
    """
    text = _WS.sub(" ", str(text)).strip()
    text = _SPECIAL.sub(r"\\\1", text)
    m = _BLOCK_START.match(text)
    if m and ((m.group(1) and m.group(2) in ".)") or (not m.group(1) and m.group(2) in "-+=")):
        text = f"{m.group(1)}\\{text[len(m.group(1)) :]}"
    return text


def fragment(anchor_id: str) -> str:
    """Link target for an anchor id (``#`` + percent-encoded id)."""
    return "#" + quote(anchor_id, safe="-._~")


def anchor(anchor_id: str) -> str:
    """An empty HTML anchor ``<a id="…"></a>``."""
    return f'<a id="{html.escape(anchor_id, quote=True)}"></a>'


def _link(node: Mapping[str, Any]) -> str:
    return f"[{escape(bilingual_label(node))}]({fragment(str(node['id']))})"


def _source_anchors(doc: ExportDoc, taken: set[str]) -> dict[str, str]:
    """Anchor id per source id, never clashing with a term id."""
    out: dict[str, str] = {}
    for s in doc.get("sources") or []:
        sid = str(s["id"])
        candidate = f"source-{sid}"
        while candidate in taken:
            candidate += "-src"
        taken.add(candidate)
        out[sid] = candidate
    return out


def _source_ref(src: str, source_anchor: Mapping[str, str]) -> str:
    """ " [[002](#anchor)]" for a source listed on the page, " \\[002\\]" otherwise, "" for none."""
    if not src:
        return ""
    target = source_anchor.get(src)
    return f" [[{escape(src)}]({fragment(target)})]" if target else f" \\[{escape(src)}\\]"


def _edge_lines(index: Mapping[str, Mapping[str, Any]], related: list[str], confused: list[str]) -> list[str]:
    """The "Related:" and "Often confused with:" lines of a block."""
    lines: list[str] = []
    if related:
        lines += ["Related: " + ", ".join(_link(index[r]) for r in related), ""]
    if confused:
        lines += ["Often confused with: " + ", ".join(_link(index[c]) for c in confused), ""]
    return lines


def _term_block(
    node: Mapping[str, Any],
    index: Mapping[str, Mapping[str, Any]],
    related: list[str],
    confused: list[str],
    source_anchor: Mapping[str, str],
) -> list[str]:
    nid = str(node["id"])
    lines = [f"### {anchor(nid)}**{escape(bilingual_label(node))}**", ""]
    names = []
    abbrs = strings(node.get("abbreviations"))
    aliases = strings(node.get("aliases"))
    if abbrs:
        names.append("Abbreviations: " + ", ".join(escape(a) for a in abbrs))
    if aliases:
        names.append("Aliases: " + ", ".join(escape(a) for a in aliases))
    editorial = editorial_names(node)
    if editorial:
        names.append("Editorial name: " + ", ".join(escape(n) for n in editorial))
    if names:
        lines += [" · ".join(names), ""]
    bullets = []
    for d in node.get("definitions") or []:
        if not d.get("text"):
            continue
        text = escape(d["text"])
        if d.get("note"):
            text += f" ({escape(d['note'])})"
        text += _source_ref(str(d.get("source") or ""), source_anchor)
        bullets.append(f"- {text}")
    if bullets:
        lines += [*bullets, ""]
    return lines + _edge_lines(index, related, confused)


def _mentioned_block(
    node: Mapping[str, Any],
    index: Mapping[str, Mapping[str, Any]],
    related: list[str],
    confused: list[str],
    source_anchor: Mapping[str, str],
) -> list[str]:
    """A mentioned-only name: the note that it is not defined, then the sentences quoted."""
    nid = str(node["id"])
    lines = [f"### {anchor(nid)}**{escape(bilingual_label(node))}**", "", escape(mentioned_note(node)), ""]
    bullets = []
    for m in mentions(node):
        text = f"“{escape(m['sentence'])}”"
        text += _source_ref(str(m.get("source") or ""), source_anchor)
        owner = str(m.get("term") or "")
        if owner in index:
            text += f" — in {_link(index[owner])}"
        bullets.append(f"- {text}")
    if bullets:
        lines += [*bullets, ""]
    return lines + _edge_lines(index, related, confused)


def to_markdown(doc: ExportDoc, title: str = DEFAULT_TITLE) -> str:
    """The glossary as one Markdown page (see the module docstring for the layout)."""
    everything = nodes(doc)
    index = {str(n["id"]): n for n in everything}
    terms = [n for n in everything if kind(n) == "defined"]
    only_mentioned = [n for n in everything if kind(n) != "defined"]
    cats = category_labels(doc)
    links = neighbours(doc)
    source_anchor = _source_anchors(doc, set(index))

    # Home section of each term = its first known category; other categories get a "See also".
    home: dict[str, list[Mapping[str, Any]]] = {}
    also: dict[str, list[Mapping[str, Any]]] = {}
    for n in terms:
        node_cats = [c for c in strings(n.get("categories")) if c in cats]
        key = node_cats[0] if node_cats else ""
        home.setdefault(key, []).append(n)
        for other in node_cats[1:]:
            also.setdefault(other, []).append(n)

    def cat_title(cid: str) -> str:
        lab = cats.get(cid, {})
        parts = [lab[lang] for lang in ordered_langs(lab)]
        return " · ".join(parts) if parts else cid

    section_ids = sorted(
        (c for c in cats if c in home or c in also), key=lambda c: (cat_title(c).casefold(), c)
    )
    if "" in home:
        section_ids.append("")

    out = [f"# {escape(title)}", ""]
    counts = f"{len(terms)} terms · {len(section_ids)} sections"
    if only_mentioned:
        counts += f" · {len(only_mentioned)} names mentioned but not defined"
    out += [counts, ""]
    for cid in section_ids:
        out += [f"## {escape(cat_title(cid)) if cid else escape(UNCATEGORISED)}", ""]
        for n in sorted(home.get(cid, []), key=sort_key):
            nid = str(n["id"])
            out += _term_block(n, index, links[nid].related, links[nid].confused_with, source_anchor)
        if also.get(cid):
            out += ["See also: " + ", ".join(_link(n) for n in sorted(also[cid], key=sort_key)), ""]

    if only_mentioned:
        out += [f"## {escape(MENTIONED)}", ""]
        for n in sorted(only_mentioned, key=sort_key):
            nid = str(n["id"])
            out += _mentioned_block(n, index, links[nid].related, links[nid].confused_with, source_anchor)

    sources = list(doc.get("sources") or [])
    if sources:
        out += ["## Sources · 来源", ""]
        for s in sources:
            sid = str(s["id"])
            desc = f"**{escape(sid)}**"
            if s.get("title"):
                desc += f" — {escape(s['title'])}"
            if s.get("language"):
                desc += f" ({escape(s['language'])})"
            if s.get("file"):
                desc += f", `{str(s['file']).replace('`', '')}`"
            out.append(f"- {anchor(source_anchor[sid])}{desc}")
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"
