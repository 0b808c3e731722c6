"""One-shot questions: ``POST /v1/ask`` (no conversation state)."""

from __future__ import annotations

from fastapi import APIRouter, Request

from api.chat_service import GeneratorDep, answer_within_window
from api.concurrency import RETRY_AFTER, BoundedRoute, get_lanes
from api.deps import EngineDep, GlossaryDep
from api.schemas.chat import AskRequest, AskResponse
from api.schemas.common import ErrorResponse

router = APIRouter(prefix="/v1", tags=["chat"], route_class=BoundedRoute)

CHAT_ERRORS: dict[int | str, dict[str, object]] = {
    413: {"model": ErrorResponse, "description": "Request body too large."},
    422: {"model": ErrorResponse, "description": "Invalid request (e.g. empty or too long question)."},
    503: {
        "model": ErrorResponse,
        "description": "Artifact or search index not loaded, (/v1/chat) the session store unreachable, or "
        "too many questions in progress (`overloaded`, with a `Retry-After` header).",
        "headers": RETRY_AFTER,
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
async def ask(
    body: AskRequest, request: Request, glossary: GlossaryDep, engine: EngineDep, generator: GeneratorDep
) -> AskResponse:
    lanes = get_lanes(request)  # heavy work in its lane's threads (api/concurrency.py)
    result = await lanes.for_text(body.question).run(answer_within_window, glossary, engine, body.question)
    if generator is not None:
        result = await lanes.llm.run(generator.rewrite, result)
    return AskResponse.of(result)
