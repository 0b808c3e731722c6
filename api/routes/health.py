"""Liveness and readiness."""

from __future__ import annotations

from fastapi import APIRouter, Request

from api.deps import GlossaryDep
from api.schemas.common import ErrorResponse
from api.schemas.health import Alive, Ready, SearchStatus
from kg.errors import ArtifactError
from kg.search.engine import SearchEngine

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=Alive, summary="The process is alive")
async def healthz() -> Alive:
    return Alive()


@router.get(
    "/readyz",
    response_model=Ready,
    summary="The artifact is loaded (and whether the search index is)",
    responses={503: {"model": ErrorResponse, "description": "Artifact not loaded."}},
)
async def readyz(glossary: GlossaryDep, request: Request) -> Ready:
    engine: SearchEngine | None = request.app.state.engine
    error: ArtifactError | None = request.app.state.engine_error
    search = SearchStatus(
        loaded=engine is not None,
        dense=engine is not None and engine.dense is not None,
        encoder=engine.dense.spec if engine is not None and engine.dense is not None else None,
        error=None if engine is not None else (error.message if error else "the search index is not loaded"),
    )
    return Ready(
        status="ready" if engine is not None else "degraded",
        terms=len(glossary.terms),
        edges=len(glossary.edges),
        search=search,
    )
