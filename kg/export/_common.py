"""Helpers shared by the exporters: node lookup, edge neighbourhoods, labels, script detection.

Everything here reads the export document (see :mod:`kg.export`) and never mutates it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kg.textnorm import lang_of

ExportDoc = Mapping[str, Any]
"""The export document: a plain mapping of the shape documented in :mod:`kg.export`."""

LANG_ORDER: tuple[str, ...] = ("en", "zh")
RELATED = "related_to"
CONFUSED = "confused_with"


def nodes(doc: ExportDoc) -> list[Mapping[str, Any]]:
    """The document's nodes, in document order (an empty list when absent)."""
    return list(doc.get("nodes") or [])


def edges(doc: ExportDoc) -> list[Mapping[str, Any]]:
    """The document's edges, in document order (an empty list when absent)."""
    return list(doc.get("edges") or [])


def node_index(doc: ExportDoc) -> dict[str, Mapping[str, Any]]:
    """Nodes by id."""
    return {str(n["id"]): n for n in nodes(doc)}


def script_lang(text: str) -> str:
    """Language tag a name belongs to by its script: ``zh`` when it has Chinese characters, else ``en``."""
    return lang_of(text)


def ordered_langs(langs: Iterable[str]) -> list[str]:
    """``en`` and ``zh`` first (in that order), then any other language tags sorted."""
    present = set(langs)
    return [lang for lang in LANG_ORDER if lang in present] + sorted(present - set(LANG_ORDER))


def labels(node: Mapping[str, Any]) -> dict[str, str]:
    """The node's non-empty labels by language."""
    return {str(k): str(v) for k, v in (node.get("labels") or {}).items() if v}


def label_origin(node: Mapping[str, Any]) -> dict[str, str]:
    """Who gave each of the node's labels: ``source``, ``rule`` or ``editorial`` (a decision of
    ``corpus/overlay.json``); a label without a recorded origin is the source's."""
    recorded = node.get("label_origin") or {}
    return {lang: str(recorded.get(lang) or "source") for lang in labels(node)}


def editorial_labels(node: Mapping[str, Any]) -> dict[str, str]:
    """The labels an editorial decision gave (no source names the term so), by language."""
    lab = labels(node)
    return {lang: lab[lang] for lang, origin in label_origin(node).items() if origin == "editorial"}


def editorial_names(node: Mapping[str, Any]) -> list[str]:
    """Every name only an editorial decision gives: labels, abbreviations and aliases."""
    return strings([*editorial_labels(node).values(), *(node.get("editorial_names") or [])])


def display_label(node: Mapping[str, Any], prefer: str = "en") -> str:
    """One label for display: *prefer*'s label, else the other language's, else the id."""
    lab = labels(node)
    for lang in [prefer, *ordered_langs(lab)]:
        if lab.get(lang):
            return lab[lang]
    return str(node["id"])


def bilingual_label(node: Mapping[str, Any], sep: str = " · ") -> str:
    """ "English · 中文" with whichever labels exist (the id when there is none)."""
    lab = labels(node)
    parts = [lab[lang] for lang in ordered_langs(lab)]
    return sep.join(parts) if parts else str(node["id"])


def sort_key(node: Mapping[str, Any]) -> tuple[str, str]:
    """Sort terms by display label (case-insensitive), then id."""
    return (display_label(node).casefold(), str(node["id"]))


def strings(values: Any) -> list[str]:
    """A list field as non-empty strings, without duplicates, order kept."""
    seen: dict[str, None] = {}
    for v in values or []:
        if v is not None and str(v).strip():
            seen.setdefault(str(v), None)
    return list(seen)


def first_definition(node: Mapping[str, Any], lang: str) -> Mapping[str, Any] | None:
    """The node's first definition in *lang*, or ``None``."""
    for d in node.get("definitions") or []:
        if d.get("lang") == lang and d.get("text"):
            return dict(d)
    return None


@dataclass
class Neighbours:
    """Per-term view of the edges: ids of related and confusable terms (both directions)."""

    related: list[str] = field(default_factory=list)
    confused_with: list[str] = field(default_factory=list)


def neighbours(doc: ExportDoc) -> dict[str, Neighbours]:
    """Related / confused-with neighbours of every node, both edge directions.

    The per-term views (CSV, Markdown, TBX) show an edge on both of its terms: a reader of
    *prefill* should see that *TTFT* links to it. Outgoing neighbours come first (in edge
    order), then incoming ones. Edges whose ends are not both nodes, self-loops and unknown
    edge types are left out.
    """
    known = node_index(doc)
    out: dict[str, Neighbours] = {nid: Neighbours() for nid in known}
    incoming: dict[str, Neighbours] = {nid: Neighbours() for nid in known}
    for e in edges(doc):
        s, t, kind = str(e.get("source")), str(e.get("target")), e.get("type")
        if s == t or s not in known or t not in known or kind not in (RELATED, CONFUSED):
            continue
        attr = "related" if kind == RELATED else "confused_with"
        getattr(out[s], attr).append(t)
        getattr(incoming[t], attr).append(s)
    result: dict[str, Neighbours] = {}
    for nid in known:
        result[nid] = Neighbours(
            related=strings([*out[nid].related, *incoming[nid].related]),
            confused_with=strings([*out[nid].confused_with, *incoming[nid].confused_with]),
        )
    return result


def valid_edges(doc: ExportDoc) -> list[Mapping[str, Any]]:
    """Edges of a known type between two distinct known nodes, in document order."""
    known = node_index(doc)
    return [
        e
        for e in edges(doc)
        if e.get("type") in (RELATED, CONFUSED)
        and str(e.get("source")) in known
        and str(e.get("target")) in known
        and e.get("source") != e.get("target")
    ]


def category_labels(doc: ExportDoc) -> dict[str, dict[str, str]]:
    """Category labels by category id."""
    return {
        str(c["id"]): {str(k): str(v) for k, v in (c.get("labels") or {}).items() if v}
        for c in doc.get("categories") or []
    }


def kind(node: Mapping[str, Any]) -> str:
    """``defined`` (a source defines the node) or ``mentioned`` (definitions only mention it)."""
    return str(node.get("kind") or "defined")


def mentions(node: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The sentences that mention a ``mentioned`` node (``source``, ``line``, ``sentence``, ``term``)."""
    return [m for m in node.get("mentioned_in") or [] if m.get("sentence")]


def mentioned_note(node: Mapping[str, Any], lang: str = "en") -> str:
    """The one sentence every export writes on a mentioned node instead of a definition."""
    n = len(mentions(node))
    name = display_label(node, lang)
    if lang == "zh":
        return f"{name} 不是词表中定义的术语，只在 {n} 句来源文字中被提到。"
    return f"{name} is not defined in the glossary; it is only mentioned, in {n} sentence{'s' * (n != 1)} of the sources."
