"""Term search in either language: labels + BM25 + dense vectors, fused (see kg.search.engine)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from api.concurrency import RETRY_AFTER, BoundedRoute, get_lanes, query_window
from api.deps import EngineDep
from api.schemas.common import ERROR_RESPONSES, MAX_OFFSET, ErrorResponse, Lang
from api.schemas.search import SearchExplain, SearchHitOut, SearchModeName, SearchPage
from kg.search.engine import SearchEngine, SearchResult
from kg.search.snippets import snippet
from kg.textnorm import lang_of

router = APIRouter(prefix="/v1", tags=["search"], route_class=BoundedRoute)

_OVERLOADED: dict[int | str, dict[str, Any]] = {
    503: {
        "model": ErrorResponse,
        "description": "Search index not loaded, or too many searches in progress (`overloaded`, with "
        "a `Retry-After` header).",
        "headers": RETRY_AFTER,
    }
}


def _search(engine: SearchEngine, q: str, mode: str, limit: int, offset: int) -> tuple[SearchResult, bool]:
    """The engine's result, and whether the encoder read only the start of the query."""
    res = engine.search(q, mode, limit, offset)
    fit = None if mode == "lexical" else query_window(engine, q)
    return res, fit is not None and fit.truncated


@router.get(
    "/search",
    response_model=SearchPage,
    response_model_exclude_unset=True,  # `explain` appears only when asked for
    summary="Search terms",
    responses={**ERROR_RESPONSES, **_OVERLOADED},
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
                "to `max_query_chars` (2,000 by default). The semantic stage reads at most the "
                "encoder's window (512 tokens for e5): beyond it, `truncated` is true."
            ),
            examples=["張量並行", "how to reduce time to first token", "pagedattn"],
        ),
    ],
    mode: Annotated[
        SearchModeName,
        Query(description="`hybrid` (all stages), `semantic` (vectors only) or `lexical` (names + BM25)."),
    ] = "hybrid",
    limit: Annotated[int, Query(ge=1, le=50, description="Page size.")] = 10,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET, description="Results to skip.")] = 0,
    explain: Annotated[bool, Query(description="Include each stage's rank and contribution.")] = False,
    lang: Annotated[
        Lang | None, Query(description="Language of labels and snippets (default: the query's).")
    ] = None,
) -> SearchPage:
    # The search runs in a worker thread of its lane (the encoder must not block the event loop),
    # `search_concurrency` at a time (long queries: `long_concurrency`), a bounded queue first
    # come, first served, then 503 (api/concurrency.py): dozens of threads would only contend
    # for the encoder's lock and the GIL, and the cheap routes keep AnyIO's default threads.
    res, cut = await get_lanes(request).for_text(q).run(_search, engine, q, mode, limit, offset)
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
        truncated=res.truncated or cut,
        reason=res.reason,
        took_ms=round(res.took_ms, 3),
        results=results,
    )
