"""Graph queries: a term's edges, its neighbourhood, paths and subgraphs."""

from __future__ import annotations

import itertools
from typing import Annotated, Literal

from fastapi import APIRouter, Query

from api.deps import GlossaryDep, TermIdPath
from api.schemas.common import ERROR_RESPONSES, TERM_PATH_RESPONSES, EdgeOut, Lang, TermRef, TermSummary
from api.schemas.graph import GraphPath, Neighbor, Neighbors, Subgraph, TermEdge, TermEdges
from kg.errors import BadQuery, PathNotFound, TermNotFound
from kg.model import EDGE_TYPES, Edge
from kg.store import Glossary

router = APIRouter(prefix="/v1", tags=["graph"])

MAX_SUBGRAPH_IDS = 100
LangQuery = Annotated[Lang | None, Query(description="Language of the labels.")]
TypesQuery = Annotated[
    str,
    Query(description="Comma-separated edge types.", examples=["related_to,confused_with"], max_length=100),
]


def parse_types(raw: str) -> list[str]:
    types = [t.strip() for t in raw.split(",") if t.strip()]
    bad = [t for t in types if t not in EDGE_TYPES]
    if bad or not types:
        raise BadQuery(f"unknown edge types: {bad}", {"types": types, "allowed": list(EDGE_TYPES)})
    return list(dict.fromkeys(types))


def _term_edges(glossary: Glossary, term_id: str, edges: list[Edge], lang: str | None) -> TermEdges:
    out = []
    for e in edges:
        other = e.target if e.source == term_id else e.source
        direction: Literal["out", "in", "both"] = (
            "both" if e.type == "confused_with" else "out" if e.source == term_id else "in"
        )
        out.append(
            TermEdge(
                type=e.type,  # type: ignore[arg-type]
                direction=direction,
                other=TermRef.of(glossary.terms[other], lang),
                evidence=e.evidence,
                origin=e.origin,
                doc=e.doc,
                line=e.line,
            )
        )
    return TermEdges(term=TermRef.of(glossary.get(term_id), lang), edges=out)


@router.get(
    "/terms/{term_id}/related",
    response_model=TermEdges,
    summary="related_to edges",
    responses=TERM_PATH_RESPONSES,
)
def related(term_id: TermIdPath, glossary: GlossaryDep, lang: LangQuery = None) -> TermEdges:
    return _term_edges(glossary, term_id, glossary.related(term_id), lang)


@router.get(
    "/terms/{term_id}/confused-with",
    response_model=TermEdges,
    summary="confused_with edges, with the sources' evidence",
    responses=TERM_PATH_RESPONSES,
)
def confused_with(term_id: TermIdPath, glossary: GlossaryDep, lang: LangQuery = None) -> TermEdges:
    return _term_edges(glossary, term_id, glossary.confusables(term_id), lang)


@router.get(
    "/terms/{term_id}/neighbors",
    response_model=Neighbors,
    summary="Terms within depth hops",
    responses=TERM_PATH_RESPONSES,
)
def neighbors(
    term_id: TermIdPath,
    glossary: GlossaryDep,
    depth: Annotated[int, Query(ge=1, le=3, description="Hops.")] = 1,
    types: TypesQuery = "related_to,confused_with",
    lang: LangQuery = None,
) -> Neighbors:
    wanted = parse_types(types)
    term = glossary.get(term_id)
    found = glossary.neighbours(term_id, wanted, depth)
    items = sorted(found.items(), key=lambda kv: (kv[1], kv[0]))
    return Neighbors(
        term=TermRef.of(term, lang),
        depth=depth,
        types=wanted,  # type: ignore[arg-type]
        neighbors=[
            Neighbor(
                id=i,
                label=glossary.terms[i].label(lang or "en"),
                labels=dict(glossary.terms[i].labels),
                distance=d,
            )
            for i, d in items
        ],
    )


def resolve(glossary: Glossary, text: str) -> str:
    """A term id from an id (current or former) or a name (via lookup); :class:`TermNotFound` with
    suggestions otherwise."""
    current = glossary.current_id(text)
    if current is not None:
        return current
    hits = glossary.lookup(text)
    if hits:
        return hits[0].term.id
    raise TermNotFound(text, glossary.suggest_ids(text))


@router.get(
    "/graph/path",
    response_model=GraphPath,
    summary="Shortest path between two terms",
    responses=ERROR_RESPONSES,
)
def path(
    glossary: GlossaryDep,
    from_: Annotated[str, Query(alias="from", min_length=1, max_length=200, description="Term id or name.")],
    to: Annotated[str, Query(min_length=1, max_length=200, description="Term id or name.")],
    types: TypesQuery = "related_to,confused_with",
    lang: LangQuery = None,
) -> GraphPath:
    wanted = parse_types(types)
    a, b = resolve(glossary, from_), resolve(glossary, to)
    ids = glossary.shortest_path(a, b, wanted)
    if ids is None:
        raise PathNotFound(
            f"no path between {a!r} and {b!r} over {', '.join(wanted)}",
            {"from": a, "to": b, "types": wanted},
        )
    edges: list[EdgeOut] = []
    for u, v in itertools.pairwise(ids):
        edges.extend(EdgeOut.of(e) for e in glossary.edges_of(u, wanted) if {e.source, e.target} == {u, v})
    return GraphPath(
        from_id=a,
        to_id=b,
        length=len(ids) - 1,
        ids=ids,
        terms=[TermRef.of(glossary.terms[i], lang) for i in ids],
        edges=edges,
    )


@router.get(
    "/graph/subgraph",
    response_model=Subgraph,
    summary="Terms and the edges among them",
    responses=ERROR_RESPONSES,
)
def subgraph(
    glossary: GlossaryDep,
    ids: Annotated[
        str,
        Query(min_length=1, description="Comma-separated term ids (at most 100).", examples=["vllm,sglang"]),
    ],
    lang: LangQuery = None,
) -> Subgraph:
    wanted = list(dict.fromkeys(i.strip() for i in ids.split(",") if i.strip()))
    if not wanted:
        raise BadQuery("no term ids given", {"ids": ids})
    if len(wanted) > MAX_SUBGRAPH_IDS:
        raise BadQuery(
            f"{len(wanted)} ids given; at most {MAX_SUBGRAPH_IDS} allowed",
            {"count": len(wanted), "max_ids": MAX_SUBGRAPH_IDS},
        )
    terms, edges = glossary.subgraph(glossary.current_id(i) or i for i in wanted)  # former ids too
    return Subgraph(nodes=[TermSummary.of(t, lang) for t in terms], edges=[EdgeOut.of(e) for e in edges])
