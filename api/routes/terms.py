"""Terms: paginated list with filters, and one full node."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response

from api.caching import cached_response
from api.deps import GlossaryDep, TermIdPath
from api.schemas.common import (
    ERROR_RESPONSES,
    MAX_OFFSET,
    TERM_PATH_RESPONSES,
    DefinitionOut,
    Lang,
    NodeKindName,
    TermSummary,
    term_fields,
)
from api.schemas.terms import EdgeCounts, MentionOut, TermDetail, TermPage
from kg.mentioned import mentioned_note
from kg.model import Term

router = APIRouter(prefix="/v1/terms", tags=["terms"])

LangQuery = Annotated[Lang | None, Query(description="Language of `label`.", examples=["zh"])]


def _has_lang(term: Term, lang: str) -> bool:
    return lang in term.labels or any(d.lang == lang for d in term.definitions)


@router.get("", response_model=TermPage, summary="List terms", responses=ERROR_RESPONSES)
async def list_terms(
    glossary: GlossaryDep,
    limit: Annotated[int, Query(ge=1, le=200, description="Page size.")] = 50,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET, description="Terms to skip.")] = 0,
    category: Annotated[
        str | None, Query(max_length=100, description="Category id.", examples=["metrics"])
    ] = None,
    source: Annotated[
        str | None, Query(max_length=100, description="Source glossary id.", examples=["002"])
    ] = None,
    lang: Annotated[
        Lang | None, Query(description="Only terms with a label or definition in this language.")
    ] = None,
    kind: Annotated[
        NodeKindName | None, Query(description="Only `defined` terms or only `mentioned` names.")
    ] = None,
) -> TermPage:
    terms = [glossary.terms[i] for i in sorted(glossary.terms)]
    if category is not None:
        terms = [t for t in terms if category in t.categories]
    if source is not None:
        terms = [t for t in terms if source in t.sources]
    if lang is not None:
        terms = [t for t in terms if _has_lang(t, lang)]
    if kind is not None:
        terms = [t for t in terms if t.kind == kind]
    page = terms[offset : offset + limit]
    return TermPage(
        total=len(terms), limit=limit, offset=offset, items=[TermSummary.of(t, lang) for t in page]
    )


@router.get(
    "/{term_id}",
    response_model=TermDetail,
    summary="One term, full node",
    responses={**TERM_PATH_RESPONSES, 304: {"description": "Not modified (If-None-Match)."}},
)
async def get_term(
    term_id: TermIdPath, glossary: GlossaryDep, request: Request, lang: LangQuery = None
) -> Response:
    term = glossary.get(term_id)
    edges = glossary.edges_of(term.id)
    detail = TermDetail(
        **term_fields(term, lang),
        kind=term.kind,
        note=None if term.defined else mentioned_note(term, lang or "en"),
        mentioned_in=[MentionOut.model_validate(m.to_dict()) for m in term.mentioned_in],
        aliases=list(term.aliases),
        sources=list(term.sources),
        entries=list(term.entry_keys),
        definitions=[DefinitionOut.model_validate(d.to_dict()) for d in term.definitions],
        edge_counts=EdgeCounts(
            related_to=sum(e.type == "related_to" for e in edges),
            confused_with=sum(e.type == "confused_with" for e in edges),
        ),
    )
    return cached_response(request, detail.model_dump_json().encode("utf-8"), "application/json")
