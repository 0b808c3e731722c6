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
``nodes[].label_origin``     ``{"en": …, "zh": …}``: who gave each label, ``source``, ``rule`` or
                             ``editorial`` (:class:`kg.model.Name`)
``nodes[].editorial_names``  names of the node only an editorial decision gives
``nodes[].kind``             ``defined``, or ``mentioned``: a name definitions only mention, not an
                             entry (the build finds such names itself, :mod:`kg.imports.records`);
                             an edge to or from it is not read either (both reported in ``skipped``)
``edges[]``                  ``source`` states the edge to ``target`` (node ids of the file), with its
                             ``type``; each of its ``items`` (``text``, ``origin``, ``subject``: the
                             end whose text states it) is one statement of the edge, else its
                             ``evidence`` and ``origin`` are
===========================  =====================================================================

Every other key the export writes (``format``, ``version``, ``sources``, ``categories``,
``id_aliases``, a node's ``sources``, ``entries``, ``categories_inferred``,
``category_inference``, ``mentioned_in``, an edge's and an item's ``doc`` and ``line``) is
accepted and not read: the build recomputes them. Any other key is an error, as are a value of
the wrong type, a node id given twice and an edge whose end is not a node; each error names the
line and the key path (``nodes[3].labels``).
"""

from __future__ import annotations

import json
from typing import Any

from kg.imports.records import (
    TO_MENTIONED,
    Definition,
    Record,
    Statement,
    entry_kind,
    name_origin,
    one_line,
    to_parsed,
)
from kg.model import EDGE_TYPES, ParsedSource, ParseIssue
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
    "label_origin",
    "editorial_names",
    "category_inference",
    "kind",
    "mentioned_in",
)
DEFINITION_KEYS = ("lang", "text", "source", "section", "line", "note")
EDGE_KEYS = ("source", "target", "type", "evidence", "origin", "doc", "line", "items")
ITEM_KEYS = ("text", "origin", "doc", "line", "subject")

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
        origins = doc.keys(node.get("label_origin") or {}, (*path, "label_origin"), ("en", "zh"))
        for lang in ("en", "zh"):
            if lang in labels:
                value = doc.string(labels[lang], (*path, "labels", lang))
                opath = (*path, "label_origin", lang)
                origin = name_origin(
                    doc.string(origins.get(lang), opath) or "",
                    _where(opath),
                    file,
                    line_of(doc.lines, *opath),
                )
                if value:
                    r.add_name(value, "label", f"{_where(path)}.labels.{lang}", file, origin=origin)
        for key, kind in (("abbreviations", "abbr"), ("aliases", "alias")):
            for value in doc.strings(node.get(key), (*path, key)):
                r.add_name(value, kind, f"{_where(path)}.{key}", file)
        epath = (*path, "editorial_names")
        r.mark_editorial(
            doc.strings(node.get("editorial_names"), epath), _where(epath), file, line_of(doc.lines, *epath)
        )
        kpath = (*path, "kind")
        r.mentioned = entry_kind(
            doc.string(node.get("kind"), kpath) or "", _where(kpath), file, line_of(doc.lines, *kpath)
        )
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
    skipped: list[ParseIssue] = []
    edges = top.get("edges") or []
    if not isinstance(edges, list):
        raise doc.fail(("edges",), "must be a list of edges")
    for k, edge in enumerate(edges):
        _read_edge(doc, ("edges", k), edge, by_id, source, skipped)
    return to_parsed(records, source, file, skipped)


def _read_edge(
    doc: _Doc, path: Path_, edge: Any, by_id: dict[str, Record], source: str, skipped: list[ParseIssue]
) -> None:
    """The statements of one edge: one per evidence item (its subject states it), else the edge's
    own evidence and origin, stated by its source."""
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
    said: list[tuple[str, str, str, int]] = []  # (subject, evidence, origin, line)
    items = edge.get("items") or []
    if not isinstance(items, list):
        raise doc.fail((*path, "items"), "must be a list of evidence items")
    for j, item in enumerate(items):
        ipath = (*path, "items", j)
        item = doc.keys(item, ipath, ITEM_KEYS)
        subject = doc.string(item.get("subject"), (*ipath, "subject")) or ends[0]
        if subject not in ends:
            raise doc.fail((*ipath, "subject"), f"{subject!r} is not an end of the edge")
        said.append(
            (
                subject,
                doc.string(item.get("text"), (*ipath, "text")) or "",
                doc.string(item.get("origin"), (*ipath, "origin")) or "",
                line_of(doc.lines, *ipath),
            )
        )
    if not said:
        evidence = doc.string(edge.get("evidence"), (*path, "evidence")) or ""
        origin = doc.string(edge.get("origin"), (*path, "origin")) or ""
        said.append((ends[0], evidence, origin, line_of(doc.lines, *path)))
    mentioned = [nid for nid in ends if by_id[nid].mentioned]
    if mentioned:
        skipped.append(
            ParseIssue(source, line_of(doc.lines, *path), f"{_where(path)}: {TO_MENTIONED}", mentioned[0])
        )
        return
    for subject, evidence, origin, line in said:
        other = ends[1] if subject == ends[0] else ends[0]
        by_id[subject].statements.append(
            Statement(edge_type, "", line, _where(path), key=other, evidence=evidence, origin=origin)
        )
