"""Counts per source, category and edge type."""

from __future__ import annotations

from collections import Counter

from fastapi import APIRouter

from api.deps import GlossaryDep
from api.schemas.common import ErrorResponse
from api.schemas.stats import Stats

router = APIRouter(prefix="/v1", tags=["stats"])


@router.get(
    "/stats", response_model=Stats, summary="Graph statistics", responses={503: {"model": ErrorResponse}}
)
def stats(glossary: GlossaryDep) -> Stats:
    by_source: Counter[str] = Counter({s: 0 for s in glossary.sources})
    by_category: Counter[str] = Counter({c: 0 for c in glossary.categories})
    for t in glossary.terms.values():
        by_source.update(t.sources)
        by_category.update(t.categories)
    return Stats(
        terms=len(glossary.terms),
        edges=len(glossary.edges),
        mentioned_terms=sum(not t.defined for t in glossary.terms.values()),
        terms_by_source=dict(sorted(by_source.items())),
        terms_by_category=dict(sorted(by_category.items())),
        edges_by_type=dict(sorted(Counter(e.type for e in glossary.edges).items())),
        edges_by_source=dict(sorted(Counter(e.doc for e in glossary.edges).items())),
    )
