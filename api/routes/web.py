"""The web page (``/``, ``/static/*``, no CDN) and the term-neighbourhood layout it draws."""

from __future__ import annotations

from pathlib import Path as FsPath
from typing import Annotated

import networkx as nx
from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import FileResponse
from starlette.exceptions import HTTPException

from api.caching import cached_response
from api.deps import GlossaryDep, TermIdPath
from api.schemas.chat import LayoutEdge, LayoutNode, TermLayout
from api.schemas.common import TERM_PATH_RESPONSES, Lang
from kg.store import Glossary

router = APIRouter(tags=["web"])

STATIC_DIR = FsPath(__file__).resolve().parent.parent / "static"
STATIC_FILES = {
    "app.js": "text/javascript; charset=utf-8",
    "app.css": "text/css; charset=utf-8",
    "favicon.svg": "image/svg+xml",
}


@router.get("/", include_in_schema=False)
def index() -> FileResponse:
    return FileResponse(STATIC_DIR / "index.html", media_type="text/html; charset=utf-8")


@router.get("/static/{name}", include_in_schema=False)
def static(name: str) -> FileResponse:
    if name not in STATIC_FILES:
        raise HTTPException(404, f"no static file {name!r}")  # the one error body (api.errors)
    return FileResponse(
        STATIC_DIR / name, media_type=STATIC_FILES[name], headers={"Cache-Control": "no-cache"}
    )


def neighbourhood(glossary: Glossary, term_id: str, limit: int) -> tuple[list[str], bool]:
    """The term and up to *limit* neighbours: confused_with first, then the best-connected."""
    term = glossary.get(term_id)
    confused = {e.target if e.source == term.id else e.source for e in glossary.confusables(term.id)}
    near = list(glossary.neighbours(term.id))
    near.sort(key=lambda n: (n not in confused, -glossary.graph.degree(n), n))
    return [term.id, *near[:limit]], len(near) > limit


def layout_positions(
    ids: list[str], edges: list[tuple[str, str]], center: str
) -> dict[str, tuple[float, float]]:
    """Spring layout (seeded, so stable) with the centre term fixed in the middle; coordinates in [0.06, 0.94]."""
    if len(ids) == 1:
        return {center: (0.5, 0.5)}
    g = nx.Graph()
    g.add_nodes_from(ids)
    g.add_edges_from(edges)
    pos = nx.spring_layout(
        g, pos={center: (0.0, 0.0)}, fixed=[center], seed=7, k=1.2 / max(1, len(ids)) ** 0.5
    )
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    span = max(max(abs(v) for v in xs), max(abs(v) for v in ys), 1e-9)
    return {n: (0.5 + 0.44 * float(p[0]) / span, 0.5 + 0.44 * float(p[1]) / span) for n, p in pos.items()}


@router.get(
    "/v1/terms/{term_id}/layout",
    response_model=TermLayout,
    summary="A term's neighbourhood with node positions, for drawing",
    tags=["graph"],
    responses={**TERM_PATH_RESPONSES, 304: {"description": "Not modified (If-None-Match)."}},
)
def term_layout(
    term_id: TermIdPath,
    glossary: GlossaryDep,
    request: Request,
    limit: Annotated[int, Query(ge=1, le=60, description="Most neighbours drawn.")] = 24,
    lang: Annotated[Lang | None, Query(description="Language of `label`.")] = None,
) -> Response:
    ids, truncated = neighbourhood(glossary, term_id, limit)
    terms, edges = glossary.subgraph(ids)
    center = ids[0]
    pos = layout_positions(ids, [(e.source, e.target) for e in edges], center)
    body = TermLayout(
        id=center,
        nodes=[
            LayoutNode(
                id=t.id,
                label=t.label(lang or "en"),
                labels=dict(t.labels),
                x=round(min(1.0, max(0.0, pos[t.id][0])), 4),
                y=round(min(1.0, max(0.0, pos[t.id][1])), 4),
                center=t.id == center,
            )
            for t in terms
        ],
        edges=[
            LayoutEdge(source=e.source, target=e.target, type=e.type, evidence=e.evidence, doc=e.doc)  # type: ignore[arg-type]
            for e in edges
        ],
        truncated=truncated,
    )
    return cached_response(request, body.model_dump_json().encode("utf-8"), "application/json")
