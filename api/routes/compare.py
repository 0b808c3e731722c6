"""Compare two terms side by side, with what the sources say tells them apart."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from api.deps import GlossaryDep
from api.routes.graph import resolve
from api.schemas.common import ERROR_RESPONSES, DefinitionOut, EdgeOut, Lang, TermRef, term_fields
from api.schemas.compare import CompareSide, Comparison, Difference
from kg.model import Term

router = APIRouter(prefix="/v1", tags=["compare"])

TermQuery = Annotated[
    str, Query(min_length=1, max_length=200, description="Term id or name.", examples=["vllm", "SGLang"])
]


def _side(term: Term, lang: str | None) -> CompareSide:
    return CompareSide(
        **term_fields(term, lang),
        aliases=list(term.aliases),
        definitions=[DefinitionOut.model_validate(d.to_dict()) for d in term.definitions],
    )


@router.get("/compare", response_model=Comparison, summary="Compare two terms", responses=ERROR_RESPONSES)
def compare(
    glossary: GlossaryDep,
    a: TermQuery,
    b: TermQuery,
    lang: Annotated[Lang | None, Query(description="Language of the labels.")] = None,
) -> Comparison:
    ta, tb = glossary.get(resolve(glossary, a)), glossary.get(resolve(glossary, b))
    shared = sorted(set(glossary.neighbours(ta.id)) & set(glossary.neighbours(tb.id)) - {ta.id, tb.id})
    direct = [e for e in glossary.edges_of(ta.id) if {e.source, e.target} == {ta.id, tb.id}]
    return Comparison(
        a=_side(ta, lang),
        b=_side(tb, lang),
        shared_neighbors=[TermRef.of(glossary.terms[i], lang) for i in shared],
        direct_edges=[EdgeOut.of(e) for e in direct],
        differences=[
            Difference(evidence=e.evidence, origin=e.origin, doc=e.doc, line=e.line)
            for e in direct
            if e.type == "confused_with"
        ],
    )
