"""Lookup by name (label, abbreviation or alias; case, width and script insensitive)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from api.deps import GlossaryDep
from api.schemas.common import ERROR_RESPONSES, Lang, TermSummary
from api.schemas.lookup import LookupCandidate, LookupResult
from kg.errors import TermNotFound

router = APIRouter(prefix="/v1", tags=["lookup"])


@router.get("/lookup", response_model=LookupResult, summary="Find a term by name", responses=ERROR_RESPONSES)
async def lookup(
    glossary: GlossaryDep,
    label: Annotated[
        str, Query(min_length=1, description="A name of the term.", examples=["ttft", "張量並行"])
    ],
    lang: Annotated[Lang | None, Query(description="Prefer preferred labels in this language.")] = None,
) -> LookupResult:
    hits = glossary.lookup(label, lang)
    if not hits:
        raise TermNotFound(label, glossary.suggest_ids(label))
    best, *rest = hits
    return LookupResult(
        query=label,
        id=best.term.id,
        name=best.name,
        match=best.match,
        term=TermSummary.of(best.term, lang),
        candidates=[
            LookupCandidate(
                id=h.term.id,
                label=h.term.label(lang or "en"),
                labels=dict(h.term.labels),
                name=h.name,
                match=h.match,
            )
            for h in rest
        ],
    )
