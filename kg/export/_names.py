"""Names and short texts shared by the docs-tool exports (Sphinx glossary, mkdocs abbreviations,
Docusaurus glossary, static site).

Docs tools link a *name* to one entry: a name that two terms claim would link to one of them at
random (Sphinx keeps the last, docusaurus-plugin-glossary rejects the file). :func:`unique_names`
gives every node its names with such clashes resolved the same way in every export.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from kg.export._common import ExportDoc, labels, nodes, ordered_langs, strings

_SENTENCE_END = re.compile(r"(?<=[。！？!?])|(?<=\.)(?=\s)")
_WS = re.compile(r"\s+")


def node_names(node: Mapping[str, Any]) -> list[str]:
    """The node's names in link order: labels (``en``, then ``zh``), abbreviations, aliases.

    Names are whitespace-collapsed, and repeats (compared case-insensitively) are dropped.
    """
    lab = labels(node)
    raw = [lab[lang] for lang in ordered_langs(lab)]
    raw += strings(node.get("abbreviations")) + strings(node.get("aliases"))
    seen: set[str] = set()
    out: list[str] = []
    for name in raw:
        name = _WS.sub(" ", name).strip()
        if name and name.casefold() not in seen:
            seen.add(name.casefold())
            out.append(name)
    return out


def _label_set(node: Mapping[str, Any]) -> set[str]:
    return {_WS.sub(" ", v).strip() for v in labels(node).values()}


def unique_names(doc: ExportDoc) -> dict[str, list[str]]:
    """Every node's names (see :func:`node_names`), no name (case-insensitively) on two nodes.

    A label stays on its node even when it is another node's alias or abbreviation (the other
    node loses it); a non-label name claimed by several nodes is ambiguous and dropped from all
    of them; a label that is also another node's label stays on the first node in document order,
    and the later node gets ``label (id)`` instead so that it still has a name of its own.
    """
    all_nodes = nodes(doc)
    label_owner: dict[str, str] = {}
    other_owners: dict[str, set[str]] = {}
    for n in all_nodes:
        nid = str(n["id"])
        node_labels = _label_set(n)
        for name in node_names(n):
            if name in node_labels:
                label_owner.setdefault(name.casefold(), nid)
            else:
                other_owners.setdefault(name.casefold(), set()).add(nid)
    out: dict[str, list[str]] = {}
    for n in all_nodes:
        nid = str(n["id"])
        keep: list[str] = []
        node_labels = _label_set(n)
        for name in node_names(n):
            key = name.casefold()
            if name in node_labels:
                keep.append(name if label_owner[key] == nid else f"{name} ({nid})")
            elif key not in label_owner and len(other_owners[key]) == 1:
                keep.append(name)
        out[nid] = keep or [nid]
    return out


def first_sentence(text: str, limit: int = 160) -> str:
    """The first sentence of *text* (whitespace collapsed), cut to *limit* characters with "…"."""
    text = _WS.sub(" ", text).strip()
    head = _SENTENCE_END.split(text, maxsplit=1)[0].strip() or text
    if len(head) > limit:
        head = head[: limit - 1].rstrip() + "…"
    return head


def short_definition(node: Mapping[str, Any], prefer: str = "en") -> tuple[str, str] | None:
    """``(text, source id)`` of the node's first definition in *prefer*, else in any language."""
    defs = [d for d in node.get("definitions") or [] if d.get("text")]
    for d in sorted(defs, key=lambda d: d.get("lang") != prefer):  # stable: document order kept
        return first_sentence(str(d["text"])), str(d.get("source") or "")
    return None
