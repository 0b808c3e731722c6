"""Helpers shared by the import tests: a corpus of one imported file, and what its graph holds."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from kg.build import default_corpus_dir

SAMPLES = Path(__file__).resolve().parent / "import_samples"


def corpus_with(
    root: Path,
    files: dict[str, str | bytes],
    parser: str,
    *,
    relations: str | None = None,
    categories: dict[str, Any] | None = None,
) -> Path:
    """A corpus at *root*: the bundled topics, and one source (id ``team``) reading the first of
    *files* with *parser* (the others are written next to it)."""
    root.mkdir(parents=True, exist_ok=True)
    cats = categories or json.loads((default_corpus_dir() / "categories.json").read_text(encoding="utf-8"))
    if categories is None:
        cats["sections"] = {}
    (root / "categories.json").write_text(json.dumps(cats, ensure_ascii=False), encoding="utf-8")
    for name, content in files.items():
        path = root / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    source: dict[str, Any] = {
        "id": "team",
        "file": next(iter(files)),
        "title": "Team glossary",
        "description": "a test glossary",
        "language": "en",
        "parser": parser,
    }
    if relations:
        source["relations"] = relations
    (root / "manifest.json").write_text(json.dumps({"sources": [source]}, indent=1), encoding="utf-8")
    return root


def sample_corpus(root: Path, sample: str, parser: str) -> Path:
    """A corpus of one file of ``tests/kg/import_samples``."""
    root.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SAMPLES / sample, root / sample)
    return corpus_with(root, {sample: (SAMPLES / sample).read_text(encoding="utf-8")}, parser)


def names(node: dict[str, Any]) -> tuple[dict[str, str], set[str], set[str]]:
    """A node's labels, aliases and abbreviations (the last two as sets)."""
    return dict(node["labels"]), set(node["aliases"]), set(node["abbreviations"])


def edge_pairs(doc: dict[str, Any]) -> set[tuple[frozenset[str], str]]:
    """The graph's edges as (unordered pair, type)."""
    return {(frozenset((e["source"], e["target"])), e["type"]) for e in doc["edges"]}
