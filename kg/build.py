"""The build pipeline: sources → parsed entries → overlay → nodes → edges → artifact.

The artifact is a directory written atomically: everything goes to a temporary
sibling directory, which replaces the previous artifact with one rename. A bad
source raises :class:`~kg.parsers.common.SourceError` before anything is
replaced, so the last good build stays intact.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jieba

from kg.categories import infer_categories
from kg.merge import merge_entries
from kg.model import ConfusionGroup, Edge, ParsedSource, RawEntry, Term
from kg.overlay import Decision, apply_edge_decisions, apply_entry_decisions, load_overlay
from kg.parsers import PARSERS
from kg.parsers.common import SourceError
from kg.relations import Resolver, build_edges, confusable_member_entries

ARTIFACT_FORMAT = 1
jieba.setLogLevel(logging.WARNING)


def default_corpus_dir() -> Path:
    """The bundled corpus (``corpus/`` next to ``kg/``)."""
    return Path(__file__).resolve().parent.parent / "corpus"


@dataclass
class SourceInfo:
    id: str
    file: str
    title: str
    description: str
    language: str
    parser: str
    priority: int = 9
    sha256: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "file": Path(self.file).name,
            "title": self.title,
            "description": self.description,
            "language": self.language,
            "parser": self.parser,
            "sha256": self.sha256,
        }


@dataclass
class BuildResult:
    """The graph as data, plus the build report."""

    sources: list[SourceInfo]
    terms: list[Term]
    edges: list[Edge]
    categories: list[dict[str, Any]]
    report: dict[str, Any]
    timings: dict[str, float] = field(default_factory=dict)

    def document(self) -> dict[str, Any]:
        """The export document (schema in docs/SCHEMA.md)."""
        return {
            "format": "glossary-kg",
            "version": ARTIFACT_FORMAT,
            "sources": [s.to_dict() for s in self.sources],
            "categories": self.categories,
            "nodes": [t.to_dict() for t in self.terms],
            "edges": [e.to_dict() for e in self.edges],
        }


def load_manifest(corpus_dir: Path) -> list[SourceInfo]:
    path = corpus_dir / "manifest.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise SourceError(str(path), 1, "manifest not found") from exc
    except json.JSONDecodeError as exc:
        raise SourceError(str(path), exc.lineno, f"invalid JSON: {exc.msg}") from exc
    out = []
    for raw in data.get("sources", []):
        info = SourceInfo(**raw)
        if info.parser not in PARSERS:
            raise SourceError(str(path), 1, f"source {info.id}: unknown parser {info.parser!r}")
        out.append(info)
    if not out:
        raise SourceError(str(path), 1, "manifest lists no sources")
    return out


def read_source(corpus_dir: Path, info: SourceInfo) -> str:
    path = corpus_dir / info.file
    try:
        raw = path.read_bytes()
    except FileNotFoundError as exc:
        raise SourceError(str(path), 1, "source file not found") from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise SourceError(str(path), line, "not valid UTF-8") from exc
    if not text.strip():
        raise SourceError(str(path), 1, "empty source file")
    info.sha256 = hashlib.sha256(raw).hexdigest()
    return text


def parse_all(corpus_dir: Path, sources: list[SourceInfo]) -> list[ParsedSource]:
    """Parse every source; the sentence parser gets the other sources' names as a hint."""
    texts = {s.id: read_source(corpus_dir, s) for s in sources}
    parsed: dict[str, ParsedSource] = {}
    for s in sources:
        if s.parser != "sentences":
            parsed[s.id] = PARSERS[s.parser](texts[s.id], s.id, str(corpus_dir / s.file))
    known = sorted({n.text for p in parsed.values() for e in p.entries for n in e.names})
    for s in sources:
        if s.parser == "sentences":
            parsed[s.id] = PARSERS[s.parser](texts[s.id], s.id, str(corpus_dir / s.file), known_names=known)
    return [parsed[s.id] for s in sources]


def build_graph(corpus_dir: Path | None = None) -> BuildResult:
    """Run the whole pipeline in memory (no files written)."""
    corpus_dir = corpus_dir or default_corpus_dir()
    t0 = time.perf_counter()
    sources = load_manifest(corpus_dir)
    parsed = parse_all(corpus_dir, sources)
    t_parse = time.perf_counter()
    overlay_path = corpus_dir / "overlay.json"
    decisions: list[Decision] = load_overlay(overlay_path) if overlay_path.exists() else []
    cats = json.loads((corpus_dir / "categories.json").read_text(encoding="utf-8"))

    raw_entries: list[RawEntry] = [e for p in parsed for e in p.entries]
    entries = apply_entry_decisions(raw_entries, decisions)
    confusions: list[ConfusionGroup] = [c for p in parsed for c in p.confusions]
    entries += confusable_member_entries(entries, confusions)
    priority = {s.id: s.priority for s in sources}
    merged = merge_entries(entries, [d for d in decisions if d.op == "merge"], priority, cats["sections"])
    t_merge = time.perf_counter()
    edges, unresolved_refs = build_edges(merged.terms, entries, merged.entry_to_term, confusions)
    edges = apply_edge_decisions(edges, Resolver(merged.terms).resolve, decisions, str(overlay_path))
    inferred = infer_categories(merged.terms, edges, [c["id"] for c in cats["topics"]])
    t_edges = time.perf_counter()

    unexplained = [
        {"entry": f"{e.source}:{e.line}", "text": e.raw[:80]}
        for e in entries
        if e.unnamed and e.overlay is None
    ]
    nameless = [i for i, e in enumerate(entries) if i not in merged.entry_to_term and not e.unnamed]
    report = {
        "entries_per_source": {p.source: len({e.line for e in p.entries}) for p in parsed},
        "raw_entries_per_source": {p.source: len(p.entries) for p in parsed},
        "skipped_lines_per_source": {p.source: len(p.skipped) for p in parsed},
        "nodes": len(merged.terms),
        "edges_by_type": dict(Counter(e.type for e in edges)),
        "edges_by_origin": dict(Counter(f"{e.type}/{e.origin}" for e in edges)),
        "merged_nodes": sum(1 for t in merged.terms if len(t.entry_keys) > 1),
        "entries_merged_into_shared_nodes": sum(
            len(t.entry_keys) for t in merged.terms if len(t.entry_keys) > 1
        ),
        "multi_source_nodes": sum(1 for t in merged.terms if len(t.sources) > 1),
        "overlay_decisions": len(decisions),
        "overlay_by_op": dict(Counter(d.op for d in decisions)),
        "stale_overlay_decisions": [
            {"index": d.index, "op": d.op, "match": d.match or d.merge or d.between}
            for d in decisions
            if d.used == 0
        ],
        "unexplained_entries": unexplained + [{"entry": entries[i].key, "text": "no term"} for i in nameless],
        "dropped_aliases": merged.dropped_aliases,
        "unresolved_references": merged.unresolved + unresolved_refs,
        "alias_merges": merged.alias_merges,
        "uncategorized_nodes": sum(1 for t in merged.terms if not t.categories),
        "inferred_category_nodes": inferred,
        "skipped": [
            {"source": s.source, "line": s.line, "reason": s.reason, "text": s.text}
            for p in parsed
            for s in p.skipped
        ],
    }
    return BuildResult(
        sources=sources,
        terms=merged.terms,
        edges=edges,
        categories=cats["topics"],
        report=report,
        timings={
            "parse_s": t_parse - t0,
            "merge_s": t_merge - t_parse,
            "edges_s": t_edges - t_merge,
            "total_s": time.perf_counter() - t0,
        },
    )


def write_artifact(result: BuildResult, out_dir: Path, extra: dict[str, Any] | None = None) -> Path:
    """Write graph.json, report.json and manifest.json atomically into *out_dir*.

    ``extra`` maps file names to callables ``f(tmp_dir)`` that add more files
    (the search indexes) inside the same atomic write.
    """
    out_dir = out_dir.resolve()
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.tmp-", dir=out_dir.parent))
    try:
        doc = result.document()
        graph_bytes = json.dumps(doc, ensure_ascii=False, indent=1, sort_keys=False).encode("utf-8")
        (tmp / "graph.json").write_bytes(graph_bytes)
        (tmp / "report.json").write_text(
            json.dumps(result.report, ensure_ascii=False, indent=1), encoding="utf-8"
        )
        for _name, writer in (extra or {}).items():
            writer(tmp)
        manifest = {
            "artifact_format": ARTIFACT_FORMAT,
            "graph_sha256": hashlib.sha256(graph_bytes).hexdigest(),
            "sources": {s.id: s.sha256 for s in result.sources},
            "nodes": len(result.terms),
            "edges": len(result.edges),
            "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "files": sorted(p.name for p in tmp.iterdir()),
        }
        (tmp / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        old = out_dir.with_name(f".{out_dir.name}.old-{os.getpid()}")
        if out_dir.exists():
            os.replace(out_dir, old)
        os.replace(tmp, out_dir)
        if old.exists():
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out_dir
