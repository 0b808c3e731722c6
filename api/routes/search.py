"""Term search in either language: labels + BM25 + dense vectors, fused (see kg.search.engine)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from starlette.concurrency import run_in_threadpool

from api.deps import EngineDep
from api.schemas.common import ERROR_RESPONSES, Lang
from api.schemas.search import SearchExplain, SearchHitOut, SearchModeName, SearchPage
from kg.search.snippets import snippet
from kg.textnorm import lang_of

router = APIRouter(prefix="/v1", tags=["search"])


def _slots(request: Request) -> asyncio.Semaphore:
    state = request.app.state
    slots: asyncio.Semaphore | None = getattr(state, "search_slots", None)
    if slots is None:
        slots = state.search_slots = asyncio.Semaphore(state.settings.search_concurrency)
    return slots


@router.get(
    "/search",
    response_model=SearchPage,
    response_model_exclude_unset=True,  # `explain` appears only when asked for
    summary="Search terms",
    responses=ERROR_RESPONSES,
)
async def search(
    engine: EngineDep,
    request: Request,
    q: Annotated[
        str,
        Query(
            description=(
                "Free text in either language: a name, an abbreviation with a typo, a question. "
                "Empty or blank gives no results (see `reason`); the whole query string is limited "
                "to `max_query_chars` (2,000 by default)."
            ),
            examples=["張量並行", "how to reduce time to first token", "pagedattn"],
        ),
    ],
    mode: Annotated[
        SearchModeName,
        Query(description="`hybrid` (all stages), `semantic` (vectors only) or `lexical` (names + BM25)."),
    ] = "hybrid",
    limit: Annotated[int, Query(ge=1, le=50, description="Page size.")] = 10,
    offset: Annotated[int, Query(ge=0, le=10_000, description="Results to skip.")] = 0,
    explain: Annotated[bool, Query(description="Include each stage's rank and contribution.")] = False,
    lang: Annotated[
        Lang | None, Query(description="Language of labels and snippets (default: the query's).")
    ] = None,
) -> SearchPage:
    # The search runs in the thread pool (the encoder must not block the event loop), at most
    # `search_concurrency` at a time: an asyncio semaphore queues the rest first come, first
    # served, where dozens of threads would contend for the encoder's lock and the GIL.
    async with _slots(request):
        res = await run_in_threadpool(engine.search, q, mode, limit, offset)
    out_lang = lang or lang_of(q)
    results = []
    for h in res.hits:
        term = engine.terms[h.term_id]
        fields: dict[str, Any] = {
            "id": term.id,
            "label": term.label(out_lang),
            "labels": dict(term.labels),
            "score": h.score,
            "snippet": snippet(term, h.passage, out_lang),
            "categories": list(term.categories),
            "matched": h.matched,
        }
        if explain:
            fields["explain"] = SearchExplain(
                components=dict(h.components), ranks=dict(h.ranks), passage=h.passage
            )
        results.append(SearchHitOut(**fields))
    return SearchPage(
        query=q,
        mode=mode,
        total=res.total,
        offset=offset,
        limit=limit,
        truncated=res.truncated,
        reason=res.reason,
        took_ms=round(res.took_ms, 3),
        results=results,
    )
