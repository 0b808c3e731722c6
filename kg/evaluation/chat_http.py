"""Replay chat conversations over HTTP against a real ``glossary serve`` (its default workers).

In process, a conversation's state lives in one Python object; behind ``glossary serve`` it
lives in the shared session store, and consecutive turns may land on different worker
processes. :class:`HttpChat` is an ``answer_fn`` for :func:`kg.chat.evaluate.evaluate_chat`
that sends each turn to ``POST /v1/chat`` with the conversation's ``session_id``, so the same
scoring measures follow-ups as a user of the service gets them. ``session_reset`` replies
(a follow-up whose conversation the server forgot) are counted.

>>> with served(Path("build/artifact")) as url:                     # doctest: +SKIP
...     chat = HttpChat(url)
...     report = evaluate_chat(glossary, engine, convs, answer_fn=chat, with_search=False)
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from kg.bench.http_load import free_port, running, serve_command
from kg.chat.model import Answer, Citation, ConversationState
from kg.defaults import SERVE_WORKERS

__all__ = ["HttpChat", "served"]


@contextlib.contextmanager
def served(artifact: Path, workers: int | None = None) -> Iterator[str]:
    """``glossary serve`` on a free loopback port with a fresh SQLite session file; yields its URL."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="gkg-eval-") as tmp:
        env = {"GLOSSARY_SESSIONS": f"sqlite:///{Path(tmp) / 'sessions.db'}"}
        cmd = serve_command(port, workers or SERVE_WORKERS, artifact)
        with running(cmd, f"http://127.0.0.1:{port}/readyz", env):
            yield f"http://127.0.0.1:{port}"


class HttpChat:
    """``answer_fn`` that asks a running server; one ``session_id`` per conversation state."""

    def __init__(self, base_url: str, timeout: float = 30.0) -> None:
        self.client = httpx.Client(base_url=base_url, timeout=timeout)
        # the states are kept alive so that their ids are never reused by a later conversation
        self._sessions: dict[int, tuple[ConversationState, str]] = {}
        self.turns = 0
        self.resets = 0

    def __call__(self, glossary: Any, engine: Any, question: str, *, context: ConversationState) -> Answer:
        body: dict[str, Any] = {"message": question}
        known = self._sessions.get(id(context))
        if known is not None:
            body["session_id"] = known[1]
        r = self.client.post("/v1/chat", json=body)
        r.raise_for_status()
        data = r.json()
        self.turns += 1
        self.resets += bool(data["session_reset"])
        self._sessions[id(context)] = (context, data["session_id"])
        return Answer(
            question=question,
            lang=data["lang"],
            intent=data["intent"],
            answer=data["answer"],
            grounded=data["grounded"],
            terms=list(data["terms"]),
            citations=[
                Citation(term_id=c["term_id"], source=c["source"], quote=c["quote"], marker=c["marker"])
                for c in data["citations"]
            ],
            needs_clarification=bool(data.get("needs_clarification", False)),
        )

    def close(self) -> None:
        self.client.close()
