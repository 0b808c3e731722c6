"""Conversations: ``POST /v1/chat`` (JSON, or Server-Sent Events when streaming)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from fastapi import APIRouter, Request, Response
from fastapi.responses import StreamingResponse

from api.chat_service import (
    SSE_HEADERS,
    GeneratorDep,
    SessionsDep,
    answer_within_window,
    chunks,
    sse,
    wants_stream,
)
from api.concurrency import BoundedRoute, Lane, get_lanes
from api.deps import EngineDep, GlossaryDep
from api.routes.ask import CHAT_ERRORS
from api.schemas.chat import ChatRequest, ChatResponse, CitationOut
from kg.chat import Answer
from kg.chat.generator import LLMGenerator

router = APIRouter(prefix="/v1", tags=["chat"], route_class=BoundedRoute)

_SSE_DOC = {
    "description": "With `stream: true` or `Accept: text/event-stream`: events `meta` (session, intent, "
    'terms, grounded), `delta` (`{"text"}` pieces of the answer), `citations`, `done` '
    "(suggestions, follow-ups, warnings).",
    "content": {"text/event-stream": {"example": 'event: meta\ndata: {"session_id": "…"}\n\n'}},
}


@router.post(
    "/chat",
    response_model=ChatResponse,
    summary="Chat about the glossary (multi-turn)",
    description="Send `session_id` back to continue a conversation: 它 / 这个 / it / its / the former refer to "
    "the term under discussion. An unknown or expired id starts a new conversation (`session_reset: true`).",
    responses={**CHAT_ERRORS, 200: _SSE_DOC},
)
async def chat(
    body: ChatRequest,
    request: Request,
    glossary: GlossaryDep,
    engine: EngineDep,
    sessions: SessionsDep,
    generator: GeneratorDep,
) -> Response | ChatResponse:
    def turn() -> tuple[str, bool, Answer]:
        with sessions.session(body.session_id) as (sid, state, reset):
            return sid, reset, answer_within_window(glossary, engine, body.message, context=state)

    lanes = get_lanes(request)  # heavy work in its lane's threads (api/concurrency.py)
    sid, reset, result = await lanes.for_text(body.message).run(turn)
    if not wants_stream(request, body.stream):
        if generator is not None:
            result = await lanes.llm.run(generator.rewrite, result)
        return ChatResponse.of(result, sid, reset)
    return StreamingResponse(
        _events(result, sid, reset, generator, lanes.llm),
        media_type="text/event-stream",
        headers=SSE_HEADERS,
    )


async def _events(
    result: Answer, sid: str, reset: bool, generator: LLMGenerator | None, llm: Lane
) -> AsyncIterator[str]:
    yield sse(
        "meta",
        {
            "session_id": sid,
            "session_reset": reset,
            "lang": result.lang,
            "intent": result.intent,
            "grounded": result.grounded,
            "terms": result.terms,
        },
    )
    if generator is not None and result.grounded:
        result = await llm.run(generator.rewrite, result)
    for piece in chunks(result.answer):
        yield sse("delta", {"text": piece})
    yield sse("citations", {"citations": [CitationOut.of(c).model_dump() for c in result.citations]})
    yield sse(
        "done",
        {
            "grounded": result.grounded,
            "suggestions": result.suggestions,
            "follow_ups": result.follow_ups,
            "warnings": result.warnings,
            "generator": result.generator,
        },
    )
