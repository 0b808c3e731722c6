"""The glossary-kg export document (``glossary export --format json``, docs/SCHEMA.md) as a source.

===========================  =====================================================================
key                          read as
===========================  =====================================================================
``nodes[].id``               the entry's key (edges name nodes by it); the graph's id follows the id
                             rules, and a different one is reported
``nodes[].labels``           ``{"en": …, "zh": …}``: the labels
``nodes[].abbreviations``    abbreviations
``nodes[].aliases``          aliases
``nodes[].definitions``      definitions: ``text``, ``source`` (kept as the definition's source),
                             ``note``; ``lang``, ``section`` and ``line`` are recomputed
``nodes[].categories``       topic ids
``edges[]``                  ``source`` states the edge to ``target`` (node ids of the file), with its
                             ``type``, and its ``evidence`` and ``origin`` when given
===========================  =====================================================================

Every other key the export writes (``format``, ``version``, ``sources``, ``categories``,
``id_aliases``, a node's ``sources``, ``entries``, ``categories_inferred``, an edge's ``doc``,
``line``, ``items``) is accepted and not read: the build recomputes them. Any other key is an error,
as are a value of the wrong type, a node id given twice and an edge whose end is not a node;
each error names the line and the key path (``nodes[3].labels``).
"""

from __future__ import annotations

import json
from typing import Any

from kg.imports.records import Definition, Record, Statement, one_line, to_parsed
from kg.model import EDGE_TYPES, ParsedSource
from kg.parsers.common import SourceError
from kg.parsers.jsonpos import line_of, value_lines

TOP_KEYS = ("format", "version", "sources", "categories", "nodes", "edges", "id_aliases")
NODE_KEYS = (
    "id",
    "labels",
    "aliases",
    "abbreviations",
    "definitions",
    "categories",
    "categories_inferred",
    "sources",
    "entries",
)
DEFINITION_KEYS = ("lang", "text", "source", "section", "line", "note")
EDGE_KEYS = ("source", "target", "type", "evidence", "origin", "doc", "line", "items")

Path_ = tuple[str | int, ...]


def _where(path: Path_) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else p)
    return out


class _Doc:
    def __init__(self, lines: dict[Path_, int], file: str) -> None:
        self.lines = lines
        self.file = file

    def fail(self, path: Path_, message: str) -> SourceError:
        return SourceError(self.file, line_of(self.lines, *path), f"{_where(path)}: {message}")

    def keys(self, value: Any, path: Path_, allowed: tuple[str, ...]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(path, f"must be an object, not {type(value).__name__}")
        for k in value:
            if k not in allowed:
                raise self.fail((*path, k), f"unknown key (expected {', '.join(allowed)})")
        return value

    def strings(self, value: Any, path: Path_) -> list[str]:
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(path, "must be a list of strings")
        return [v for v in value if v.strip()]

    def string(self, value: Any, path: Path_, optional: bool = True) -> str | None:
        if value is None and optional:
            return None
        if not isinstance(value, str):
            raise self.fail(path, f"must be a string, not {json.dumps(value, ensure_ascii=False)[:40]}")
        return value


def parse_json(text: str, source: str, file: str = "") -> ParsedSource:
    """Parse a glossary-kg export document (see module docstring)."""
    file = file or source
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceError(file, exc.lineno, f"invalid JSON: {exc.msg} (column {exc.colno})") from exc
    doc = _Doc(value_lines(text), file)
    top = doc.keys(data, (), TOP_KEYS)
    if "format" in top and top["format"] != "glossary-kg":
        raise doc.fail(("format",), f"{top['format']!r} is not 'glossary-kg'")
    nodes = top.get("nodes")
    if not isinstance(nodes, list):
        raise doc.fail(("nodes",) if "nodes" in top else (), "needs 'nodes', a list of terms")
    records: list[Record] = []
    by_id: dict[str, Record] = {}
    for i, node in enumerate(nodes):
        path: Path_ = ("nodes", i)
        node = doc.keys(node, path, NODE_KEYS)
        nid = doc.string(node.get("id"), (*path, "id"), optional=False)
        if not nid or not nid.strip():
            raise doc.fail((*path, "id"), "an empty id")
        line = line_of(doc.lines, *path, "id")
        r = Record(line=line, what=_where(path), key=nid, key_where=f"{_where(path)}.id", key_is_id=True)
        if nid in by_id:
            raise doc.fail((*path, "id"), f"duplicate id {nid!r} (first on line {by_id[nid].line})")
        by_id[nid] = r
        labels = doc.keys(node.get("labels") or {}, (*path, "labels"), ("en", "zh"))
        for lang in ("en", "zh"):
            if lang in labels:
                value = doc.string(labels[lang], (*path, "labels", lang))
                if value:
                    r.add_name(value, "label", f"{_where(path)}.labels.{lang}", file)
        for key, kind in (("abbreviations", "abbr"), ("aliases", "alias")):
            for value in doc.strings(node.get(key), (*path, key)):
                r.add_name(value, kind, f"{_where(path)}.{key}", file)
        defs = node.get("definitions") or []
        if not isinstance(defs, list):
            raise doc.fail((*path, "definitions"), "must be a list of definitions")
        for j, d in enumerate(defs):
            dpath: Path_ = (*path, "definitions", j)
            d = doc.keys(d, dpath, DEFINITION_KEYS)
            body = doc.string(d.get("text"), (*dpath, "text"), optional=False)
            if body and body.strip():
                r.definitions.append(
                    Definition(
                        one_line(body),
                        line_of(doc.lines, *dpath),
                        doc.string(d.get("source"), (*dpath, "source")) or None,
                        doc.string(d.get("note"), (*dpath, "note")) or None,
                    )
                )
        r.categories = doc.strings(node.get("categories"), (*path, "categories"))
        records.append(r)
    edges = top.get("edges") or []
    if not isinstance(edges, list):
        raise doc.fail(("edges",), "must be a list of edges")
    for k, edge in enumerate(edges):
        path = ("edges", k)
        edge = doc.keys(edge, path, EDGE_KEYS)
        ends: list[str] = []
        for end in ("source", "target"):
            nid = doc.string(edge.get(end), (*path, end), optional=False) or ""
            if nid not in by_id:
                raise doc.fail((*path, end), f"{nid!r} is not the id of a node of this file")
            ends.append(nid)
        edge_type = edge.get("type")
        if edge_type not in EDGE_TYPES:
            raise doc.fail((*path, "type"), f"{edge_type!r} is not one of {', '.join(EDGE_TYPES)}")
        evidence = doc.string(edge.get("evidence"), (*path, "evidence")) or ""
        origin = doc.string(edge.get("origin"), (*path, "origin")) or ""
        by_id[ends[0]].statements.append(
            Statement(
                edge_type,
                "",
                line_of(doc.lines, *path),
                _where(path),
                key=ends[1],
                evidence=evidence,
                origin=origin,
            )
        )
    return to_parsed(records, source, file)
