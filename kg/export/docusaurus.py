"""Docusaurus: the ``glossary/glossary.json`` read by docusaurus-plugin-glossary.

Format as documented and validated by that plugin (repository mcclowes/docusaurus-plugin-glossary:
``README.md`` "Create your glossary file", ``src/types.ts`` ``GlossaryData`` / ``GlossaryTerm``,
``src/validation.ts`` ``validateGlossaryData``)::

    {"title": "...", "description": "...",
     "terms": [{"id": "...", "term": "...", "definition": "...",
                "aliases": ["..."], "relatedTerms": ["<another term's `term`>"]}]}

The plugin's rules, all kept here: ``term`` and ``definition`` are non-empty strings; ``id``
matches ``^[A-Za-z][A-Za-z0-9_.:-]*$`` and is unique case-insensitively; a term name or alias
(the "phrases" it auto-links, case-insensitively) belongs to one term only; every
``relatedTerms`` entry is the ``term`` of an entry in the file.

Mapping: ``term`` is the node's first name (English label, else Chinese), ``aliases`` its other
names (the other label, abbreviations, aliases; see :func:`kg.export._names.unique_names`), the
``definition`` one plain-text line with the other label, the first definition in each language
with its source id, and the "易混淆 / often confused with" warning; ``relatedTerms`` lists
``related_to`` neighbours then ``confused_with`` ones. The plugin's optional ``abbreviation`` field
means "the full form of a term that is itself an abbreviation"; our ``term`` is the full name and
the abbreviations are aliases, so it is not written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from kg.export._common import ExportDoc, first_definition, labels, neighbours, nodes, sort_key
from kg.export._names import unique_names

DEFAULT_TITLE = "Glossary · 术语表"
DEFAULT_DESCRIPTION = "Bilingual (English / 中文) glossary of LLM-inference terms, exported by glossary-kg."
_ID_OK = re.compile(r"^[A-Za-z][A-Za-z0-9_.:-]*$")
_ID_BAD_CHARS = re.compile(r"[^A-Za-z0-9_.:-]+")
_WS = re.compile(r"\s+")


def plugin_id(node_id: str) -> str:
    """*node_id* as an id the plugin accepts: unchanged when valid, else ``term-`` + a cleaned form."""
    if _ID_OK.match(node_id):
        return node_id
    return "term-" + (_ID_BAD_CHARS.sub("-", node_id).strip("-") or "x")


def _one_line(text: str) -> str:
    return _WS.sub(" ", str(text)).strip()


def _definition(node: Mapping[str, Any], term: str, confused_terms: list[str]) -> str:
    parts: list[str] = []
    other = [v for v in labels(node).values() if _one_line(v) != term]
    if other:
        parts.append(" · ".join(_one_line(v) for v in other) + " —")
    texts = []
    for lang in ("en", "zh"):
        d = first_definition(node, lang)
        if d:
            src = f" [{d['source']}]" if d.get("source") else ""
            texts.append(_one_line(d["text"]) + src)
    if not texts:  # some other language, or none at all: the plugin needs a non-empty definition
        d = next((x for x in node.get("definitions") or [] if x.get("text")), None)
        texts.append(_one_line(d["text"]) if d else "(no definition in the sources · 来源中无定义)")
    parts.append(" / ".join(texts))
    if confused_terms:
        parts.append("易混淆 / often confused with: " + ", ".join(confused_terms) + ".")
    return " ".join(parts)


def to_docusaurus_data(
    doc: ExportDoc, title: str = DEFAULT_TITLE, description: str = DEFAULT_DESCRIPTION
) -> dict[str, Any]:
    """The glossary.json document as a dict (terms sorted by label)."""
    names = unique_names(doc)
    links = neighbours(doc)
    ids: dict[str, str] = {}
    taken: set[str] = set()
    for node in nodes(doc):  # document order: ids do not depend on the sort below
        pid = plugin_id(str(node["id"]))
        while pid.lower() in taken:
            pid += "-x"
        taken.add(pid.lower())
        ids[str(node["id"])] = pid
    terms = []
    for node in sorted(nodes(doc), key=sort_key):
        nid = str(node["id"])
        term, *aliases = names[nid]
        confused = [names[c][0] for c in links[nid].confused_with]
        entry: dict[str, Any] = {
            "id": ids[nid],
            "term": term,
            "definition": _definition(node, term, confused),
        }
        if aliases:
            entry["aliases"] = aliases
        related = [names[r][0] for r in links[nid].related] + confused
        if related:
            entry["relatedTerms"] = list(dict.fromkeys(related))
        terms.append(entry)
    return {"title": title, "description": description, "terms": terms}


def to_docusaurus(doc: ExportDoc) -> str:
    """glossary.json for docusaurus-plugin-glossary (pretty JSON, UTF-8 text, newline at the end)."""
    return json.dumps(to_docusaurus_data(doc), ensure_ascii=False, indent=2) + "\n"
