"""Chat plumbing shared by /v1/ask, /v1/chat and /v1/chat/completions.

The session store (``settings.sessions``: memory, a SQLite file shared by the workers, or Redis;
see :mod:`kg.chat.sessions`) and the optional LLM generator are created on first use from the
app's settings and kept on ``app.state`` (``chat_sessions``, ``chat_generator``). Server-Sent
Events are formatted here; the answers themselves come from :mod:`kg.chat`.

The dependencies are coroutines: FastAPI runs a plain-def dependency in AnyIO's default thread
pool, which belongs to the cheap routes (see :mod:`api.concurrency`); only the first request,
which opens the session store, goes to a thread.
"""

from __future__ import annotations

import dataclasses
import json
import re
import threading
from collections.abc import Iterator
from typing import Annotated, Any

import anyio.to_thread
from fastapi import Depends, Request

from api.concurrency import window_warning
from api.settings import Settings
from kg.chat import Answer, ConversationState, answer
from kg.chat.generator import LLMGenerator
from kg.chat.sessions import SessionStore, open_session_store
from kg.search.engine import SearchEngine
from kg.store import Glossary

_LOCK = threading.Lock()
_UNSET = object()


def get_sessions(request: Request) -> SessionStore:
    state = request.app.state
    store: SessionStore | None = getattr(state, "chat_sessions", None)
    if store is None:
        with _LOCK:
            store = getattr(state, "chat_sessions", None)
            if store is None:
                settings: Settings = state.settings
                store = open_session_store(
                    settings.sessions,
                    ttl_seconds=settings.chat_session_ttl_seconds,
                    max_sessions=settings.chat_max_sessions,
                    max_turns=settings.chat_max_turns,
                    artifact_dir=settings.artifact_dir,
                )
                state.chat_sessions = store
    return store


def get_generator(request: Request) -> LLMGenerator | None:
    """The LLM rephraser when ``settings.llm_base_url`` is set, else None."""
    state = request.app.state
    gen = getattr(state, "chat_generator", _UNSET)
    if gen is _UNSET:
        with _LOCK:
            gen = getattr(state, "chat_generator", _UNSET)
            if gen is _UNSET:
                settings: Settings = state.settings
                gen = (
                    LLMGenerator(
                        settings.llm_base_url,
                        model=settings.llm_model,
                        api_key=settings.llm_api_key,
                        timeout=settings.llm_timeout_seconds,
                    )
                    if settings.llm_base_url
                    else None
                )
                state.chat_generator = gen
    return gen  # type: ignore[return-value]


async def _sessions(request: Request) -> SessionStore:
    store: SessionStore | None = getattr(request.app.state, "chat_sessions", None)
    if store is None:
        store = await anyio.to_thread.run_sync(get_sessions, request)
    return store


async def _generator(request: Request) -> LLMGenerator | None:
    gen = getattr(request.app.state, "chat_generator", _UNSET)
    return get_generator(request) if gen is _UNSET else gen  # type: ignore[return-value]


SessionsDep = Annotated[SessionStore, Depends(_sessions)]
GeneratorDep = Annotated[LLMGenerator | None, Depends(_generator)]


def answer_within_window(
    glossary: Glossary, engine: SearchEngine, question: str, context: ConversationState | None = None
) -> Answer:
    """The chatbot's answer, with a warning when the encoder read only the start of *question*."""
    result = answer(glossary, engine, question, context=context)
    warning = window_warning(engine, question)
    if warning is None:
        return result
    return dataclasses.replace(result, warnings=[*result.warnings, warning])


SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no", "Connection": "keep-alive"}


def sse(event: str | None, data: Any) -> str:
    """One Server-Sent Event (``event:`` line omitted when *event* is None)."""
    payload = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    head = f"event: {event}\n" if event else ""
    return head + "".join(f"data: {line}\n" for line in payload.split("\n")) + "\n"


_CHUNK = re.compile(r"[^\n。！？!?；;，,]*[\n。！？!?；;，,]?")


def chunks(text: str, size: int = 24) -> Iterator[str]:
    """The answer in small pieces (clauses, at most about *size* characters), for streaming."""
    buf = ""
    for m in _CHUNK.finditer(text):
        piece = m.group(0)
        if not piece:
            continue
        while len(piece) > size * 2:
            yield from ([buf] if buf else [])
            buf = ""
            yield piece[:size]
            piece = piece[size:]
        if len(buf) + len(piece) > size and buf:
            yield buf
            buf = ""
        buf += piece
    if buf:
        yield buf


def wants_stream(request: Request, stream: bool) -> bool:
    return stream or "text/event-stream" in request.headers.get("accept", "")
