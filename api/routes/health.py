"""Liveness and readiness."""

from __future__ import annotations

from fastapi import APIRouter

from api.deps import GlossaryDep
from api.schemas.common import ErrorResponse
from api.schemas.health import Alive, Ready

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=Alive, summary="The process is alive")
def healthz() -> Alive:
    return Alive()


@router.get(
    "/readyz",
    response_model=Ready,
    summary="The artifact is loaded",
    responses={503: {"model": ErrorResponse, "description": "Artifact not loaded."}},
)
def readyz(glossary: GlossaryDep) -> Ready:
    return Ready(terms=len(glossary.terms), edges=len(glossary.edges))
