"""Helpers of the annotation tests."""

from __future__ import annotations

from kg.annotate import Annotation


def found(result: Annotation) -> list[tuple[str, str]]:
    """(surface, term id) of every mention, in order."""
    return [(m.text, m.term_id) for m in result.mentions]


def ids(result: Annotation) -> set[str]:
    return {m.term_id for m in result.mentions}
