"""JSON export: the export document itself, pretty-printed with a stable key order."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from kg.export._common import ExportDoc

# Documented keys first, in the order of the schema in :mod:`kg.export`; other keys follow, sorted.
_TOP = ("format", "version", "sources", "categories", "nodes", "edges")
_SOURCE = ("id", "file", "title", "language", "description")
_CATEGORY = ("id", "labels")
_NODE = (
    "id",
    "kind",
    "labels",
    "label_origin",
    "aliases",
    "abbreviations",
    "definitions",
    "categories",
    "sources",
    "mentioned_in",
)
_MENTION = ("source", "line", "sentence", "term")
_DEFINITION = ("lang", "text", "source", "section", "line", "note")
_EDGE = ("source", "target", "type", "evidence", "origin", "doc", "line")
_LABELS = ("en", "zh")


def _ordered(obj: Any, order: tuple[str, ...] = ()) -> Any:
    """Copy of a mapping with keys in *order* first and the rest sorted (recursively sorted below)."""
    if not isinstance(obj, Mapping):
        return _plain(obj)
    keys = [k for k in order if k in obj] + sorted((k for k in obj if k not in order), key=str)
    return {k: _plain(obj[k]) for k in keys}


def _plain(value: Any) -> Any:
    """Nested mappings get sorted keys; lists keep their order."""
    if isinstance(value, Mapping):
        return _ordered(value)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _each(items: Any, order: tuple[str, ...]) -> list[Any]:
    return [_ordered(x, order) for x in items or []]


def canonical(doc: ExportDoc) -> dict[str, Any]:
    """The document with a stable key order (documented keys first), list order unchanged."""
    out: dict[str, Any] = _ordered(doc, _TOP)
    if "sources" in doc:
        out["sources"] = _each(doc["sources"], _SOURCE)
    if "categories" in doc:
        out["categories"] = [
            {**c, "labels": _ordered(c.get("labels") or {}, _LABELS)} if "labels" in c else c
            for c in _each(doc["categories"], _CATEGORY)
        ]
    if "nodes" in doc:
        nodes = []
        for n in doc["nodes"] or []:
            node = _ordered(n, _NODE)
            if "labels" in node:
                node["labels"] = _ordered(n["labels"] or {}, _LABELS)
            if "definitions" in node:
                node["definitions"] = _each(n["definitions"], _DEFINITION)
            if "mentioned_in" in node:
                node["mentioned_in"] = _each(n["mentioned_in"], _MENTION)
            nodes.append(node)
        out["nodes"] = nodes
    if "edges" in doc:
        out["edges"] = _each(doc["edges"], _EDGE)
    return out


def to_json(doc: ExportDoc, indent: int = 2) -> str:
    """The export document as pretty JSON (UTF-8 text, not ASCII-escaped), ending with a newline."""
    return json.dumps(canonical(doc), ensure_ascii=False, indent=indent) + "\n"
