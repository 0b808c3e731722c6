"""The retrieval stage: every answer starts from the hybrid search over the question.

The search runs on the whole question, or, when it has pronouns, on its body with the
pronouns replaced by the term under discussion (:meth:`Ctx.body_text`), through the linker's
per-question cache, so the shapes that search the same text again pay nothing. What it keeps:

- ``hits``: the hybrid ranking (labels, BM25, dense, fuzzy), best first;
- ``named``: the terms the question names (its mention spans), in order of appearance;
- :meth:`Retrieval.dense_order`: the same hits by the dense stage's rank, the ranking that
  answers descriptions ("which technique fixes …") without the pull of the names the
  question merely mentions.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from kg.chat.linking import Analysis, Linker
from kg.search.engine import Hit

__all__ = ["SEARCH_DEPTH", "Retrieval", "retrieve"]

#: Hits kept per question (the shapes read neighbours' ranks from the same list).
SEARCH_DEPTH = 50


@dataclass
class Retrieval:
    """The search hits of one question and the names it mentions."""

    query: str
    hits: list[Hit] = field(default_factory=list)
    named: list[str] = field(default_factory=list)

    def rank_of(self, term_id: str) -> int | None:
        """1-based hybrid rank of *term_id*, or None when it is not among the hits."""
        for i, h in enumerate(self.hits, 1):
            if h.term_id == term_id:
                return i
        return None

    def dense_order(self, exclude: Iterable[str] = ()) -> list[Hit]:
        """Hits the dense stage ranked, by that rank; *exclude* left out."""
        skip = set(exclude)
        ranked = [h for h in self.hits if "dense" in h.ranks and h.term_id not in skip]
        return sorted(ranked, key=lambda h: h.ranks["dense"])

    def best(self, exclude: Iterable[str] = ()) -> Hit | None:
        """The best hybrid hit not in *exclude*."""
        skip = set(exclude)
        return next((h for h in self.hits if h.term_id not in skip), None)


def retrieve(linker: Linker, analysis: Analysis, text: str) -> Retrieval:
    """Search *text* (the question body, pronouns replaced) and note the names it mentions."""
    hits = linker.search(text, SEARCH_DEPTH).hits if text.strip() else []
    named = list(dict.fromkeys(s.term_id for s in analysis.spans))
    return Retrieval(text, list(hits), named)
