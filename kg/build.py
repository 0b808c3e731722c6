"""The build pipeline: sources → parsed entries → overlay → nodes → edges → artifact.

Input errors (a source, ``manifest.json``, ``categories.json``, ``overlay.json``) raise
:class:`~kg.parsers.common.SourceError` naming ``file:line`` before anything is written.

The artifact is published as a new complete version directory and switched to with one atomic
rename of a symlink (layout and guarantees above :func:`write_artifact`), under a lock; every
file is covered by a checksum in ``manifest.json`` (:mod:`kg.verify`). A build that fails or is
killed at any point leaves the last good build in place and loadable.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import hashlib
import json
import logging
import os
import shutil
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jieba

from kg.categories import infer_categories
from kg.contrasts import settle_instead
from kg.errors import ArtifactError, BuildLocked
from kg.ids import id_alias_table, is_hash_id
from kg.imports import IMPORTERS
from kg.imports.resolve import file_topics, stated_edges
from kg.mentioned import mentioned_nodes
from kg.merge import MergeResult, merge_entries
from kg.model import ConfusionGroup, Edge, ParsedSource, RawEntry, Term
from kg.names import complete_names
from kg.overlay import (
    Decision,
    apply_edge_decisions,
    apply_english_decisions,
    apply_entry_decisions,
    load_overlay,
)
from kg.parsers import PARSERS as SEED_PARSERS
from kg.parsers.common import SourceError, strip_control
from kg.parsers.jsonpos import line_of, value_lines
from kg.relations import (
    Resolver,
    build_edges,
    confusable_member_entries,
    consolidate,
    duplicate_evidence_edges,
    pairs_with_both_types,
)
from kg.verify import (
    MANIFEST,
    artifact_files,
    checksums,
    content_hash,
    file_sha256,
    read_graph,
    read_manifest,
    recorded_sha256,
    resolve_artifact,
    verify_artifact,
    version_dirs,
    versions_dir,
)

ARTIFACT_FORMAT = 1
#: Every ``parser`` a manifest may name: the four seed layouts and the standard formats.
PARSERS = {**SEED_PARSERS, **IMPORTERS}
#: ``relations`` of a source: ``rules`` reads relations from its text as well as those it states;
#: ``stated`` keeps only those it states (an import of an export, whose edges are all there).
RELATIONS = ("rules", "stated")
#: Longest source line accepted, in characters. The longest real one is 001's squashed copy of
#: its table (~37k); anything much longer is not glossary text (a minified page, a binary).
MAX_LINE_CHARS = 65_536
jieba.setLogLevel(logging.WARNING)
log = logging.getLogger(__name__)


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
    relations: str = "rules"
    manifest_line: int = field(default=1, repr=False)  # where the manifest lists it (for errors)
    pinned_sha256: str = field(default="", repr=False)  # a sha256 the manifest requires, if any

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
    id_aliases: dict[str, str] = field(default_factory=dict)  # former id → current id (kg/ids.py)

    def document(self) -> dict[str, Any]:
        """The export document (schema in docs/SCHEMA.md)."""
        ids = {t.id for t in self.terms}
        return {
            "format": "glossary-kg",
            "version": ARTIFACT_FORMAT,
            "sources": [s.to_dict() for s in self.sources],
            "categories": self.categories,
            "nodes": [t.to_dict() for t in self.terms],
            "edges": [e.to_dict() for e in self.edges],
            # only aliases of listed terms (a caller may have dropped terms), never shadowing one
            "id_aliases": {a: i for a, i in self.id_aliases.items() if i in ids and a not in ids},
        }


# --- corpus input ------------------------------------------------------------------------
# Every mistake in the corpus files is a SourceError naming ``file:line`` (exit 2 from the
# command line), never a traceback: the manifest and categories.json are checked key by key
# here, overlay.json in kg/overlay.py (its shape first, here).

MANIFEST_KEYS = {
    "id": str,
    "file": str,
    "title": str,
    "description": str,
    "language": str,
    "parser": str,
    "priority": int,
    "sha256": str,
    "relations": str,
}
MANIFEST_REQUIRED = ("id", "file", "title", "description", "language", "parser")


def _read_utf8(path: Path, missing: str, kind: str) -> tuple[bytes, str]:
    """The bytes and UTF-8 text of an input file; SourceError naming the file and line otherwise."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError as exc:
        raise SourceError(str(path), 1, missing) from exc
    except IsADirectoryError as exc:
        raise SourceError(str(path), 1, f"is a directory, not {kind}") from exc
    except OSError as exc:
        raise SourceError(str(path), 1, f"unreadable: {exc.strerror}") from exc
    try:
        return raw, raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_start = raw.rfind(b"\n", 0, exc.start) + 1
        column = len(raw[line_start : exc.start].decode("utf-8", "replace")) + 1
        raise SourceError(
            str(path),
            raw[: exc.start].count(b"\n") + 1,
            f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at column {column}): save the file as UTF-8",
        ) from exc


def _read_json(path: Path) -> tuple[Any, dict[tuple[str | int, ...], int]]:
    """The parsed document and the line of each of its values; SourceError when unreadable."""
    _, text = _read_utf8(path, "not found", "a JSON file")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceError(str(path), exc.lineno, f"invalid JSON: {exc.msg}") from exc
    return data, value_lines(text)


def _type_name(t: type) -> str:
    return {str: "a string", int: "an integer", list: "a list", dict: "an object"}[t]


def _is(value: Any, t: type) -> bool:
    return isinstance(value, t) and not (t is int and isinstance(value, bool))


def load_manifest(corpus_dir: Path) -> list[SourceInfo]:
    """The sources listed in ``manifest.json``, checked: known keys of the right types, a known
    parser, a file that exists, and no source (id, file or content) listed twice."""
    path = corpus_dir / "manifest.json"
    data, lines = _read_json(path)
    if not isinstance(data, dict):
        raise SourceError(str(path), 1, 'the manifest is an object {"sources": [...]}, not a ' + _kind(data))
    for key in data:
        if key != "sources":
            raise SourceError(str(path), line_of(lines, key), f"unknown key {key!r} (expected 'sources')")
    sources = data.get("sources")
    if not isinstance(sources, list):
        raise SourceError(str(path), line_of(lines, "sources"), "'sources' must be a list of sources")
    out: list[SourceInfo] = []
    seen_ids: dict[str, str] = {}
    seen_files: dict[Path, str] = {}
    for i, raw in enumerate(sources):
        where = f"sources[{i}]"
        line = line_of(lines, "sources", i)
        if not isinstance(raw, dict):
            raise SourceError(str(path), line, f"{where}: a source is an object, not a {_kind(raw)}")
        label = f"source {raw['id']}" if isinstance(raw.get("id"), str) and raw["id"] else where
        line = line_of(lines, "sources", i, "id")  # a source's own line: its id (else its opening)
        for key, value in raw.items():
            if key not in MANIFEST_KEYS:
                raise SourceError(
                    str(path),
                    line_of(lines, "sources", i, key),
                    f"{label}: unknown key {key!r} (expected {', '.join(MANIFEST_KEYS)})",
                )
            if not _is(value, MANIFEST_KEYS[key]):
                raise SourceError(
                    str(path),
                    line_of(lines, "sources", i, key),
                    f"{label}: {key!r} must be {_type_name(MANIFEST_KEYS[key])}, not {value!r}",
                )
        missing = [k for k in MANIFEST_REQUIRED if k not in raw]
        if missing:
            raise SourceError(str(path), line, f"{label}: missing {', '.join(repr(k) for k in missing)}")
        if not raw["id"].strip():
            raise SourceError(str(path), line_of(lines, "sources", i, "id"), f"{where}: empty 'id'")
        info = SourceInfo(**{k: v for k, v in raw.items() if k != "sha256"})
        info.manifest_line = line
        info.pinned_sha256 = raw.get("sha256", "")
        if info.parser not in PARSERS:
            raise SourceError(
                str(path),
                line_of(lines, "sources", i, "parser"),
                f"{label}: unknown parser {info.parser!r} (one of {', '.join(sorted(PARSERS))})",
            )
        if info.relations not in RELATIONS:
            raise SourceError(
                str(path),
                line_of(lines, "sources", i, "relations"),
                f"{label}: 'relations' is {info.relations!r} (one of {', '.join(RELATIONS)})",
            )
        if info.id in seen_ids:
            raise SourceError(str(path), line, f"source {info.id} is listed twice")
        file_line = line_of(lines, "sources", i, "file")
        file = (corpus_dir / info.file).resolve()
        if not file.exists():
            raise SourceError(str(path), file_line, f"{label}: file {info.file} not found")
        if not file.is_file():
            raise SourceError(str(path), file_line, f"{label}: {info.file} is a directory, not a file")
        if file in seen_files:
            raise SourceError(
                str(path),
                line,
                f"{label}: {info.file} is listed twice (same file as source {seen_files[file]})",
            )
        seen_ids[info.id] = info.file
        seen_files[file] = info.id
        out.append(info)
    if not out:
        raise SourceError(str(path), line_of(lines, "sources"), "manifest lists no sources")
    return out


def _kind(value: Any) -> str:
    return {list: "list", dict: "object", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number"
    )


def load_categories(corpus_dir: Path) -> dict[str, Any]:
    """``categories.json``, checked: ``topics`` (objects with a unique ``id`` and ``labels``) and
    ``sections`` (source id → section name → a listed topic id, or null)."""
    path = corpus_dir / "categories.json"
    data, lines = _read_json(path)
    if not isinstance(data, dict):
        raise SourceError(
            str(path), 1, f'categories.json is an object {{"topics", "sections"}}, not a {_kind(data)}'
        )
    for key in data:
        if key not in ("topics", "sections"):
            raise SourceError(
                str(path), line_of(lines, key), f"unknown key {key!r} (expected 'topics' and 'sections')"
            )
    for key, kind in (("topics", list), ("sections", dict)):
        if key not in data:
            raise SourceError(str(path), 1, f"missing {key!r}")
        if not isinstance(data[key], kind):
            raise SourceError(str(path), line_of(lines, key), f"{key!r} must be {_type_name(kind)}")
    ids: set[str] = set()
    for i, topic in enumerate(data["topics"]):
        line = line_of(lines, "topics", i)
        if not isinstance(topic, dict):
            raise SourceError(str(path), line, f"topics[{i}]: a topic is an object, not a {_kind(topic)}")
        tid = topic.get("id")
        if not isinstance(tid, str) or not tid.strip():
            raise SourceError(str(path), line, f"topics[{i}]: needs an 'id' (a non-empty string)")
        if tid in ids:
            raise SourceError(str(path), line, f"topics[{i}]: topic {tid!r} is listed twice")
        labels = topic.get("labels")
        if not isinstance(labels, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in labels.items()
        ):
            raise SourceError(str(path), line, f"topic {tid!r}: 'labels' must map languages to names")
        ids.add(tid)
    if not ids:
        raise SourceError(str(path), line_of(lines, "topics"), "'topics' lists no topic")
    for source, mapping in data["sections"].items():
        if not isinstance(mapping, dict):
            raise SourceError(
                str(path),
                line_of(lines, "sections", source),
                f"sections of {source}: must map section names to topics",
            )
        for section, topic_id in mapping.items():
            if topic_id is not None and topic_id not in ids:
                raise SourceError(
                    str(path),
                    line_of(lines, "sections", source, section),
                    f"section {section!r} of {source}: unknown topic {topic_id!r}",
                )
    return data


def _check_overlay_shape(path: Path) -> None:
    """The overlay's outer shape (an object whose ``decisions`` are objects); each decision's
    content is checked by :func:`kg.overlay.load_overlay`."""
    data, lines = _read_json(path)
    if not isinstance(data, dict):
        raise SourceError(
            str(path), 1, f'the overlay is an object {{"decisions": [...]}}, not a {_kind(data)}'
        )
    decisions = data.get("decisions", [])
    if not isinstance(decisions, list):
        raise SourceError(str(path), line_of(lines, "decisions"), "'decisions' must be a list")
    for i, d in enumerate(decisions):
        if not isinstance(d, dict):
            raise SourceError(
                str(path),
                line_of(lines, "decisions", i),
                f"decision {i}: a decision is an object, not a {_kind(d)}",
            )


def read_source(corpus_dir: Path, info: SourceInfo, warnings: list[dict[str, Any]] | None = None) -> str:
    """The text of one source: UTF-8, not empty, lines under :data:`MAX_LINE_CHARS`; NUL and
    terminal escape characters are stripped, each stripped line noted in *warnings*."""
    path = corpus_dir / info.file
    raw, text = _read_utf8(path, "source file not found", "a source file")
    if not text.strip():
        raise SourceError(str(path), 1, "empty source file")
    info.sha256 = hashlib.sha256(raw).hexdigest()
    if info.pinned_sha256 and info.pinned_sha256 != info.sha256:
        raise SourceError(str(path), 1, f"content does not match the sha256 the manifest pins for {info.id}")
    for no, row in enumerate(text.split("\n"), start=1):
        if len(row) > MAX_LINE_CHARS:
            raise SourceError(
                str(path),
                no,
                f"line of {len(row)} characters (the limit is {MAX_LINE_CHARS}): not glossary text",
            )
    text, stripped = strip_control(text)
    for no, count in stripped:
        message = f"stripped {count} control character{'s' * (count > 1)} (NUL / terminal escapes)"
        log.warning("%s:%d: %s", path, no, message)
        if warnings is not None:
            warnings.append({"source": info.id, "file": Path(info.file).name, "line": no, "message": message})
    return text


def parse_all(
    corpus_dir: Path, sources: list[SourceInfo], warnings: list[dict[str, Any]] | None = None
) -> list[ParsedSource]:
    """Parse every source; the sentence parser gets the other sources' names as a hint."""
    texts = {s.id: read_source(corpus_dir, s, warnings) for s in sources}
    by_content: dict[str, str] = {}
    for s in sources:
        if s.sha256 in by_content:
            raise SourceError(
                str(corpus_dir / "manifest.json"),
                s.manifest_line,
                f"source {s.id} ({s.file}) has the same content as source {by_content[s.sha256]}: "
                "a source listed twice would duplicate every definition",
            )
        by_content[s.sha256] = s.id
    parsed: dict[str, ParsedSource] = {}
    for s in sources:
        if s.parser != "sentences":
            parsed[s.id] = PARSERS[s.parser](texts[s.id], s.id, str(corpus_dir / s.file))
            for w in parsed[s.id].warnings:
                if warnings is not None:
                    warnings.append(
                        {"source": s.id, "file": Path(s.file).name, "line": w.line, "message": w.reason}
                    )
    # the hint comes from the seed layouts only: they parse the same whatever a team imports
    seeds = {s.id for s in sources if s.parser in SEED_PARSERS}
    known = sorted({n.text for k, p in parsed.items() if k in seeds for e in p.entries for n in e.names})
    for s in sources:
        if s.parser == "sentences":
            parsed[s.id] = PARSERS[s.parser](texts[s.id], s.id, str(corpus_dir / s.file), known_names=known)
    return [parsed[s.id] for s in sources]


def name_figures(terms: list[Term]) -> dict[str, Any]:
    """How complete the names are: terms named only in Chinese, and who gave the labels."""
    by_origin: dict[str, Counter[str]] = {"en": Counter(), "zh": Counter()}
    for t in terms:
        for lang, origin in t.label_origin.items():
            by_origin.setdefault(lang, Counter())[origin] += 1
    return {
        "zh_only_without_en": sum(1 for t in terms if "en" not in t.labels),
        "en_only_without_zh": sum(1 for t in terms if "zh" not in t.labels),
        "labels_by_origin": {lang: dict(sorted(c.items())) for lang, c in by_origin.items()},
    }


def _rule_edges(
    nodes: list[Term],
    merged: MergeResult,
    mentioned: list[Term],
    entries: list[RawEntry],
    confusions: list[ConfusionGroup],
    stated_only: set[str],
) -> tuple[list[Edge], list[dict[str, str]]]:
    """The edges the relation rules read (:func:`kg.relations.build_edges`), and the references
    they could not resolve.

    They read the text of every source but those whose manifest says ``"relations": "stated"``:
    such a file states its own edges. Two rules still reach it: the same-name rule compares every
    term's names, so it links the file's terms to other sources' terms (not two of its own), and
    the file states no edge of a mentioned-only node (those are not imported: the build finds
    them in the definitions), so the rules give those edges, as they give the nodes.
    """
    if not stated_only:
        return build_edges(nodes, entries, merged.entry_to_term, confusions)
    read = _entries_of(entries, merged.entry_to_term, lambda e: e.source not in stated_only)
    edges, unresolved = build_edges(nodes, *read, confusions)
    own = {t.id for t in merged.terms if set(t.sources) <= stated_only}
    edges = [e for e in edges if e.source not in own or e.target not in own]
    found = {t.id for t in mentioned}
    theirs, _ = build_edges(
        nodes, *_entries_of(entries, merged.entry_to_term, lambda e: e.source in stated_only), []
    )
    return edges + [e for e in theirs if e.source in found or e.target in found], unresolved


def _entries_of(
    entries: list[RawEntry], entry_to_term: dict[int, str], keep: Callable[[RawEntry], bool]
) -> tuple[list[RawEntry], dict[int, str]]:
    """The entries *keep* keeps, and their terms (indexed as in the new list)."""
    kept = [i for i, e in enumerate(entries) if keep(e)]
    return [entries[i] for i in kept], {k: entry_to_term[i] for k, i in enumerate(kept) if i in entry_to_term}


def build_graph(corpus_dir: Path | None = None) -> BuildResult:
    """Run the whole pipeline in memory (no files written)."""
    corpus_dir = corpus_dir or default_corpus_dir()
    t0 = time.perf_counter()
    sources = load_manifest(corpus_dir)
    cats = load_categories(corpus_dir)
    overlay_path = corpus_dir / "overlay.json"
    if overlay_path.exists():
        _check_overlay_shape(overlay_path)
    warnings: list[dict[str, Any]] = []
    parsed = parse_all(corpus_dir, sources, warnings)
    t_parse = time.perf_counter()
    decisions: list[Decision] = load_overlay(overlay_path) if overlay_path.exists() else []

    raw_entries: list[RawEntry] = [e for p in parsed for e in p.entries]
    entries = apply_entry_decisions(raw_entries, decisions)
    confusions: list[ConfusionGroup] = [c for p in parsed for c in p.confusions]
    entries += confusable_member_entries(entries, confusions)
    names_found = complete_names(entries)  # names the sources give outside an entry's name field
    apply_english_decisions(entries, decisions, str(overlay_path))
    priority = {s.id: s.priority for s in sources}
    imported = {s.id: Path(s.file).name for s in sources if s.parser in IMPORTERS}
    sections, topic_warnings = file_topics(entries, imported, cats)
    warnings += topic_warnings
    merged = merge_entries(entries, [d for d in decisions if d.op == "merge"], priority, sections)
    # names the definitions mention but no source defines (kg/mentioned.py): nodes of their own,
    # made before the edges so that the mention scan links the defining terms to them
    mentioned = mentioned_nodes(merged.terms, entries, merged.entry_to_term, confusions)
    nodes = merged.terms + mentioned
    t_merge = time.perf_counter()
    stated_only = {s.id for s in sources if s.relations == "stated"}
    edges, unresolved_refs = _rule_edges(nodes, merged, mentioned, entries, confusions, stated_only)
    stated, self_references = stated_edges(
        entries, merged.entry_to_term, nodes, {s.id: str(corpus_dir / s.file) for s in sources}
    )
    warnings += self_references
    # what a file states heads its edge (a rule's reading of the same pair comes after)
    edges = apply_edge_decisions(stated + edges, Resolver(nodes).resolve, decisions, str(overlay_path))
    edges = consolidate(edges)
    # topics come from defined terms only: a mentioned node has none to give or to receive
    defined = {t.id for t in merged.terms}
    inferred = infer_categories(
        merged.terms,
        [e for e in edges if e.source in defined and e.target in defined],
        [c["id"] for c in cats["topics"]],
    )
    edges = settle_instead(edges, merged.terms)
    id_aliases, dropped_id_aliases = id_alias_table(merged.terms)
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
        "nodes": len(nodes),
        "mentioned_nodes": len(mentioned),
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
            {"index": d.index, "op": d.op, "match": d.match or d.merge or d.between or d.zh}
            for d in decisions
            if d.used == 0
        ],
        "unexplained_entries": unexplained + [{"entry": entries[i].key, "text": "no term"} for i in nameless],
        "dropped_aliases": merged.dropped_aliases,
        "unresolved_references": merged.unresolved + unresolved_refs,
        "alias_merges": merged.alias_merges,
        "duplicate_evidence_edges": duplicate_evidence_edges(edges),
        "pairs_with_both_types": pairs_with_both_types(edges),
        "uncategorized_nodes": sum(1 for t in merged.terms if not t.categories),
        "hash_ids": sum(1 for t in merged.terms if is_hash_id(t.id)),
        "id_aliases": len(id_aliases),
        "dropped_id_aliases": dropped_id_aliases,
        "inferred_category_nodes": inferred,
        **name_figures(merged.terms),
        "names_from_rules": names_found.added,
        "skipped": [
            {"source": s.source, "line": s.line, "reason": s.reason, "text": s.text}
            for p in parsed
            for s in p.skipped
        ],
        "input_warnings": warnings,
    }
    return BuildResult(
        sources=sources,
        terms=nodes,
        edges=edges,
        categories=cats["topics"],
        report=report,
        timings={
            "parse_s": t_parse - t0,
            "merge_s": t_merge - t_parse,
            "edges_s": t_edges - t_merge,
            "total_s": time.perf_counter() - t0,
        },
        id_aliases=id_aliases,
    )


# --- the artifact: complete versions, one atomic switch, a lock -------------------------------
#
#   build/artifact            -> artifact.d/20250101T120000123456Z-4242   (a relative symlink)
#   build/artifact.d/.lock       held (flock) by the build that is publishing
#   build/artifact.d/<version>/  graph.json, report.json, search/…, chat/…, manifest.json
#
# A build writes its version as ``artifact.d/.tmp-<version>`` (manifest last, every file fsynced)
# and renames it to ``<version>``: a directory with a version's name is always complete. Then it
# points the link at it with one rename(2) of a new symlink over the old one: readers see the
# previous build or the new one, never a mix or nothing. An artifact of the old layout (a plain
# directory) is swapped for the link with one renameat2(RENAME_EXCHANGE) and kept as a version.
# The next build (under the lock) removes what a killed one left and keeps KEEP_VERSIONS versions
# (the current one and the previous), plus any a running server has pinned (:func:`pin_version`).

KEEP_VERSIONS = 2
LOCK_TIMEOUT_S = 600.0
LOCK_FILE = ".lock"
_PINS: dict[str, int] = {}  # version directory → this process's pin on it (held until unpinned or exit)


def _publish_path(out_dir: str | os.PathLike[str]) -> Path:
    """Where to publish *out_dir*: itself, or, when it is a symlink of the user's own (not one
    to our versions), the directory it points to (as the old layout did)."""
    p = Path(os.path.abspath(out_dir))
    if p.is_symlink():
        target = Path(os.path.realpath(p))
        if target.parent != Path(os.path.realpath(versions_dir(p))):
            return target
    return p


@contextmanager
def artifact_lock(out_dir: str | os.PathLike[str], timeout: float = LOCK_TIMEOUT_S) -> Iterator[None]:
    """Hold the artifact's build lock (``<artifact>.d/.lock``, ``flock``): a second build waits
    for it up to *timeout* seconds, then fails with :class:`BuildLocked` having changed nothing.
    The kernel releases the lock when its holder dies, so a killed build never blocks the next."""
    link = _publish_path(out_dir)
    store = versions_dir(link)
    store.mkdir(parents=True, exist_ok=True)
    fd = os.open(store / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
                    raise BuildLocked(
                        f"another build (pid {holder}) is writing the artifact {link.name}; "
                        f"waited {timeout:g} s: try again when it has finished"
                    ) from None
                time.sleep(0.05)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)


def _version_name() -> str:
    now = time.time()
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now))
    return f"{stamp}{int(now * 1e6) % 1_000_000:06d}Z-{os.getpid()}"


def _legacy_name(store: Path, directory: Path) -> str:
    """A version name for an artifact of the old layout, dated by its files (so it sorts as older
    than anything built after it)."""
    try:
        mtime = max(p.stat().st_mtime for p in directory.iterdir()) if any(directory.iterdir()) else 0.0
    except OSError:
        mtime = 0.0
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(mtime))
    name = f"{stamp}{int(mtime * 1e6) % 1_000_000:06d}Z-legacy"
    n = 1
    while os.path.lexists(store / name):
        n += 1
        name = f"{stamp}Z-legacy-{n}"
    return name


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_tree(root: Path) -> None:
    """Every file and directory of a new version on disk before it gets its name."""
    for dirpath, _dirnames, filenames in os.walk(root):
        for name in filenames:
            _fsync(Path(dirpath) / name)
        _fsync(Path(dirpath))


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux ``renameat2(RENAME_EXCHANGE)``); False where the system
    or the file system cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def _switch(link: Path, target: Path) -> None:
    """Point *link* at the version *target*: one atomic rename (see the layout above)."""
    store = versions_dir(link)
    tmp_link = link.with_name(f".{link.name}.lnk-{os.getpid()}")
    if os.path.lexists(tmp_link):
        os.unlink(tmp_link)
    os.symlink(os.path.relpath(target, link.parent), tmp_link)
    if link.is_dir() and not link.is_symlink():  # the old layout: keep that artifact as a version
        legacy = store / _legacy_name(store, link)
        if _exchange(tmp_link, link):
            _fsync(link.parent)
            os.rename(tmp_link, legacy)  # the old directory, now under the temporary name
        else:  # no atomic exchange: readers find the newest version meanwhile (resolve_artifact)
            os.rename(link, legacy)
            os.replace(tmp_link, link)
        log.warning("the artifact of the old layout in %s is kept as version %s", link, legacy.name)
    else:
        os.replace(tmp_link, link)
    _fsync(link.parent)


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink(missing_ok=True)
    else:
        shutil.rmtree(path, ignore_errors=True)


def _pinned(store: Path, version: str) -> bool:
    """True while a process holds a pin on *version* (then it is not deleted); removes a stale pin."""
    pin = store / f".pin-{version}"
    try:
        fd = os.open(pin, os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    pin.unlink(missing_ok=True)
    return False


def _recover(link: Path) -> list[str]:
    """Under the lock: remove what killed builds left, and give *link* an artifact again if a
    build (of this layout or the old one) was killed where it had none. Returns what was done."""
    store = versions_dir(link)
    parent = link.parent
    notes: list[str] = []
    if store.is_dir():
        for p in store.iterdir():
            if p.name.startswith((".tmp-", ".trash-")):
                _remove(p)
                notes.append(f"removed {store.name}/{p.name} (left by a killed build)")
    if not link.exists():  # missing or dangling: the newest version that verifies, else an old copy
        candidate = next((v for v in version_dirs(link) if not verify_artifact(v, check_encoder=False)), None)
        if candidate is None:
            olds = [
                p
                for p in parent.glob(f".{link.name}.old-*")
                if p.is_dir() and not p.is_symlink() and (p / "graph.json").is_file()
            ]
            olds += [p for p in parent.glob(f".{link.name}.lnk-*") if p.is_dir() and not p.is_symlink()]
            for old in sorted(olds, key=lambda p: p.stat().st_mtime, reverse=True):
                try:
                    read_graph(old)
                except ArtifactError:
                    continue
                store.mkdir(parents=True, exist_ok=True)
                candidate = store / _legacy_name(store, old)
                os.rename(old, candidate)
                break
        if candidate is not None:
            _switch(link, candidate)
            notes.append(f"recovered {link.name} -> {candidate.name}")
    for p in list(parent.glob(f".{link.name}.old-*")) + list(parent.glob(f".{link.name}.tmp-*")):
        _remove(p)
        notes.append(f"removed {p.name} (left by a killed build)")
    for p in parent.glob(f".{link.name}.lnk-*"):
        if p.is_dir() and not p.is_symlink() and (p / "graph.json").is_file():
            # the old-layout artifact swapped out by a killed migration: keep it as a version
            store.mkdir(parents=True, exist_ok=True)
            kept = store / _legacy_name(store, p)
            os.rename(p, kept)
            notes.append(f"kept {p.name} as version {kept.name}")
        else:
            _remove(p)
    for note in notes:
        log.warning("%s: %s", link, note)
    return notes


def _prune(link: Path) -> None:
    """Keep the current version and the newest others up to KEEP_VERSIONS, plus pinned ones."""
    store = versions_dir(link)
    current = Path(os.path.realpath(link)) if link.is_symlink() else None
    others = [v for v in version_dirs(link) if current is None or v.resolve() != current]
    for v in others[KEEP_VERSIONS - 1 :]:
        if _pinned(store, v.name):
            continue
        trash = store / f".trash-{v.name}"
        os.rename(v, trash)  # a version name never holds half a version
        shutil.rmtree(trash, ignore_errors=True)
    for pin in store.glob(".pin-*"):
        if not (store / pin.name.removeprefix(".pin-")).is_dir():
            _pinned(store, pin.name.removeprefix(".pin-"))


def recover_artifact(out_dir: str | os.PathLike[str], lock_timeout: float = LOCK_TIMEOUT_S) -> list[str]:
    """Clean up after killed builds and repair a missing or dangling artifact link (what every
    build does first); returns a note per thing done."""
    link = _publish_path(out_dir)
    with artifact_lock(link, lock_timeout):
        return _recover(link)


def _publish(link: Path, fill: Callable[[Path], None], meta: dict[str, Any]) -> Path:
    """Under the lock: write a new version with *fill*, seal it, switch *link* to it, prune."""
    store = versions_dir(link)
    version = _version_name()
    while os.path.lexists(store / version):  # a clock set back: never reuse a name
        version += "-1"
    tmp = store / f".tmp-{version}"
    tmp.mkdir()
    try:
        fill(tmp)
        sums = checksums(tmp)
        manifest = {
            **meta,
            "version": version,
            "graph_sha256": sums.get("graph.json", ""),
            "content_sha256": content_hash(sums),
            "files": sorted(p.name for p in tmp.iterdir()),
            "checksums": sums,
        }
        (tmp / MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        _fsync_tree(tmp)
        os.rename(tmp, store / version)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _fsync(store)
    _switch(link, store / version)
    _prune(link)
    return link


def write_artifact(
    result: BuildResult,
    out_dir: Path,
    extra: dict[str, Any] | None = None,
    *,
    lock_timeout: float = LOCK_TIMEOUT_S,
    meta: dict[str, Any] | None = None,
) -> Path:
    """Publish graph.json, report.json, the ``extra`` files and manifest.json as a new version of
    the artifact at *out_dir*, in one atomic step (the layout is described above); returns
    *out_dir*, which readers open as a directory.

    ``extra`` maps names to callables ``f(tmp_dir)`` that add more files (the search indexes,
    the refusal model) inside the same version; ``meta`` adds keys to the manifest. Every file
    gets a SHA-256 checksum in the manifest (:mod:`kg.verify`). Raises :class:`BuildLocked` when another build holds the
    artifact longer than *lock_timeout* seconds.
    """
    link = _publish_path(out_dir)
    doc = result.document()

    def fill(tmp: Path) -> None:
        # streamed: json.dumps would hold every piece of the text, then the text, then its bytes
        # (several GB for a million terms); the file is the same
        with (tmp / "graph.json").open("w", encoding="utf-8", newline="\n") as fh:
            json.dump(doc, fh, ensure_ascii=False, indent=1, sort_keys=False)
        (tmp / "report.json").write_text(
            json.dumps(result.report, ensure_ascii=False, indent=1), encoding="utf-8"
        )
        for _name, writer in (extra or {}).items():
            writer(tmp)

    info = {
        "artifact_format": ARTIFACT_FORMAT,
        "sources": {s.id: s.sha256 for s in result.sources},
        "nodes": len(result.terms),
        "edges": len(result.edges),
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        **(meta or {}),
    }
    with artifact_lock(link, lock_timeout):
        _recover(link)
        return _publish(link, fill, info)


def republish(
    artifact_dir: str | os.PathLike[str],
    writers: dict[str, Callable[[Path], Any]],
    *,
    base: Path,
    replace: tuple[str, ...] = (),
    lock_timeout: float = LOCK_TIMEOUT_S,
    meta: dict[str, Any] | None = None,
) -> Path:
    """Publish a new version of an existing artifact: the files of its current version (checked
    against their checksums) minus the top-level entries named in *replace*, plus what *writers*
    add (e.g. a search index rebuilt from the artifact's own graph). *base* is the version the
    caller read (``Glossary.load(...).artifact_dir``): if another build has published since,
    :class:`ArtifactError` — an index is never combined with a graph it was not built from.
    ``meta`` adds or overrides manifest keys. The current version itself is never modified; it
    stays as the previous version."""
    link = _publish_path(artifact_dir)
    with artifact_lock(link, lock_timeout):
        _recover(link)
        src = resolve_artifact(link)
        if src != Path(base).resolve():
            raise ArtifactError(f"{link.name} changed while its index was being rebuilt: run again")
        read_graph(src)  # whole and matching its checksum
        manifest = read_manifest(src) or {}
        keep = [rel for rel in artifact_files(src) if rel != MANIFEST and rel.split("/", 1)[0] not in replace]
        for rel in keep:
            expected = recorded_sha256(manifest, rel)
            if expected is not None and file_sha256(src / rel) != expected:
                raise ArtifactError(
                    f"{rel}: does not match its checksum: rebuild the artifact (`glossary build`)"
                )

        def fill(tmp: Path) -> None:
            for rel in keep:
                (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src / rel, tmp / rel)
            for _name, writer in writers.items():
                writer(tmp)

        info: dict[str, Any] = {
            k: manifest[k]
            for k in ("artifact_format", "sources", "nodes", "edges", "built_at", "refusal_current")
            if k in manifest
        }
        info.setdefault("artifact_format", ARTIFACT_FORMAT)
        info["derived_from"] = src.name
        info["rebuilt"] = sorted(writers)
        info.update(meta or {})
        return _publish(link, fill, info)


def pin_version(artifact_dir: str | os.PathLike[str]) -> Path:
    """Resolve the artifact to its current version and keep that version from being pruned by
    later builds for as long as this process lives (``glossary serve`` pins what its workers
    load). Returns the version's directory (a plain directory artifact: itself, unpinned)."""
    for _ in range(3):
        root = resolve_artifact(artifact_dir)
        store = versions_dir(_publish_path(artifact_dir))
        if root.parent != Path(os.path.realpath(store)):
            return root
        if pin_directory(root):
            return root
        # pruned meanwhile: resolve again
    return resolve_artifact(artifact_dir)


def pin_directory(version_dir: str | os.PathLike[str]) -> bool:
    """Keep one published version (``<artifact>.d/<version>``) from being pruned until
    :func:`unpin_directory` or the end of this process. False when it is gone (pruned before it
    could be pinned); True when pinned, or when it cannot be pinned because the store is
    read-only (then no build can prune it either)."""
    root = Path(os.path.realpath(version_dir))
    if str(root) in _PINS:
        return True
    pin = root.parent / f".pin-{root.name}"
    try:
        fd = os.open(pin, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        return root.is_dir()
    fcntl.flock(fd, fcntl.LOCK_SH)
    try:
        same = os.fstat(fd).st_ino == os.stat(pin).st_ino
    except FileNotFoundError:
        same = False
    if same and root.is_dir():
        _PINS[str(root)] = fd
        return True
    os.close(fd)
    return False


def unpin_directory(version_dir: str | os.PathLike[str]) -> None:
    """Release this process's pin on a version (a server that has moved to another one); the
    next build may prune it unless another process still pins it."""
    fd = _PINS.pop(os.path.realpath(version_dir), None)
    if fd is not None:
        os.close(fd)
