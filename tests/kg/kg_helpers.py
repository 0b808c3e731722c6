"""Helpers shared by the graph tests."""

from __future__ import annotations

from kg.build import default_corpus_dir
from kg.store import Glossary

CORPUS = default_corpus_dir()


def source_text(source_id: str) -> str:
    return next((CORPUS / "sources").glob(f"{source_id}_*.txt")).read_text(encoding="utf-8")


def term_of(g: Glossary, name: str) -> str:
    hits = g.lookup(name)
    assert hits, f"no term named {name!r}"
    return hits[0].term.id
