"""One-shot questions: ``POST /v1/ask`` (no conversation state)."""

from __future__ import annotations

from fastapi import APIRouter

from api.chat_service import GeneratorDep
from api.deps import EngineDep, GlossaryDep
from api.schemas.chat import AskRequest, AskResponse
from api.schemas.common import ErrorResponse
from kg.chat import answer

router = APIRouter(prefix="/v1", tags=["chat"])

CHAT_ERRORS: dict[int | str, dict[str, object]] = {
    413: {"model": ErrorResponse, "description": "Request body too large."},
    422: {"model": ErrorResponse, "description": "Invalid request (e.g. empty or too long question)."},
    503: {
        "model": ErrorResponse,
        "description": "Artifact or search index not loaded, or (/v1/chat) the session store unreachable.",
    },
}


@router.post(
    "/ask",
    response_model=AskResponse,
    summary="Ask one question about the glossary",
    description="Answers only from the graph: every statement carries a citation `[n]` quoting a definition, "
    "a note or an edge's evidence. Questions the glossary cannot answer get `grounded: false`, no citations "
    "and the nearest terms as `suggestions`.",
    responses=CHAT_ERRORS,
)
def ask(body: AskRequest, glossary: GlossaryDep, engine: EngineDep, generator: GeneratorDep) -> AskResponse:
    result = answer(glossary, engine, body.question)
    if generator is not None:
        result = generator.rewrite(result)
    return AskResponse.of(result)
