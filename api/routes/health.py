"""Liveness and readiness."""

from __future__ import annotations

import time

from fastapi import APIRouter, Request

from api.deps import GlossaryDep
from api.reload import Reloader, pinned
from api.schemas.common import ErrorResponse
from api.schemas.health import Alive, ArtifactVersion, Ready, SearchStatus

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
    loaded = pinned(request)
    engine, error = loaded.engine, loaded.engine_error
    search = SearchStatus(
        loaded=engine is not None,
        dense=engine is not None and engine.dense is not None,
        encoder=engine.dense.spec if engine is not None and engine.dense is not None else None,
        error=None if engine is not None else (error.message if error else "the search index is not loaded"),
    )
    reloader: Reloader | None = getattr(request.app.state, "reloader", None)
    return Ready(
        status="ready" if engine is not None else "degraded",
        terms=len(glossary.terms),
        edges=len(glossary.edges),
        search=search,
        version=loaded.tag,
        artifact=ArtifactVersion(
            version=loaded.version,
            content_sha256=loaded.content_sha256,
            loaded_at=_iso(loaded.loaded_at),
            generation=reloader.generation if reloader is not None else 0,
            last_reload_error=reloader.last_error if reloader is not None else None,
        ),
    )


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))
