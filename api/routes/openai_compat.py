"""``POST /v1/chat/completions``: the chatbot behind OpenAI's chat-completions protocol.

Any OpenAI client can talk to it (``OpenAI(base_url="http://host/v1", api_key="x")``). The
conversation state is rebuilt from the ``messages`` list: earlier user messages are replayed
(the last :data:`MAX_REPLAY`), so "它" / "it" in the last one refers to what they discussed.
The model name is echoed back; token counts in ``usage`` are estimates (characters / 4).
Grounding and citations ride along in an extra ``glossary`` field.
"""

from __future__ import annotations

import math
import secrets
import time
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Response
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from api.chat_service import SSE_HEADERS, GeneratorDep, chunks, sse
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

router = APIRouter(prefix="/v1", tags=["openai-compatible"])

MAX_REPLAY = 8


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
    body: ChatCompletionRequest, glossary: GlossaryDep, engine: EngineDep, generator: GeneratorDep
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

    def run() -> Answer:
        state = ConversationState()
        for earlier in users[:-1][-MAX_REPLAY:]:
            answer(glossary, engine, earlier, context=state)
        return answer(glossary, engine, users[-1], context=state)

    result = await run_in_threadpool(run)
    cid = "chatcmpl-" + secrets.token_hex(12)
    created = int(time.time())
    prompt_tokens = sum(_tokens(u) for u in users)
    if not body.stream:
        if generator is not None:
            result = await run_in_threadpool(generator.rewrite, result)
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
        _chunks(result, cid, created, body.model, generator),
        media_type="text/event-stream",
        headers=SSE_HEADERS,
    )


async def _chunks(
    result: Answer, cid: str, created: int, model: str, generator: LLMGenerator | None
) -> AsyncIterator[str]:
    base: dict[str, Any] = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model}

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
        return sse(
            None, {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}
        )

    yield chunk({"role": "assistant", "content": ""})
    if generator is not None and result.grounded:
        result = await run_in_threadpool(generator.rewrite, result)
    for piece in chunks(result.answer):
        yield chunk({"content": piece})
    yield chunk({}, "stop", glossary=GlossaryExtension.of(result).model_dump())
    yield sse(None, "[DONE]")
