"""Chat sessions: the conversation state of each ``session_id``, with a TTL and caps.

>>> store = open_session_store("sqlite", ttl_seconds=1800, max_sessions=1000, max_turns=20,
...                            artifact_dir=Path("build/artifact"))       # doctest: +SKIP
>>> with store.session(None) as (sid, state, reset):                     # doctest: +SKIP
...     answer(glossary, engine, "什么是 TTFT？", context=state)            # saved when the block ends

Three stores share one protocol (:class:`SessionStore`):

========================================  ==================================================
URL                                       store
========================================  ==================================================
``memory``                                :class:`MemorySessionStore`: this process only
``sqlite``                                :class:`SqliteSessionStore` in a file under the temp
                                          directory named after the artifact directory, so
                                          every worker of one server (and every server of one
                                          artifact) on this machine finds the same file
``sqlite:///abs/path.db``,                :class:`SqliteSessionStore` in that file
``sqlite:relative/path.db``
``redis://host:port/db``                  :class:`RedisSessionStore` (``rediss://`` for TLS):
                                          every replica that uses the server
========================================  ==================================================
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

from kg.chat.model import ConversationState
from kg.chat.sessions.memory import MemorySessionStore

__all__ = [
    "SESSION_URL_FORMS",
    "MemorySessionStore",
    "SessionStore",
    "default_sqlite_path",
    "open_session_store",
    "parse_session_url",
]

SESSION_URL_FORMS = "memory, sqlite, sqlite:///abs/path.db, sqlite:relative/path.db or redis://host:port/db"


@runtime_checkable
class SessionStore(Protocol):
    """Conversations by id, bounded by a TTL, a cap on sessions and a cap on turns each.

    Ids are issued by the store, never chosen by clients: an unknown or expired id gets a new
    session and ``reset`` True.
    """

    ttl: float
    max_sessions: int
    max_turns: int

    def session(self, session_id: str | None) -> AbstractContextManager[tuple[str, ConversationState, bool]]:
        """``(session id, state, reset)`` for one turn; the state is saved when the block exits
        normally (not when it raises). Two blocks of one session in one process run one after
        the other."""
        ...

    def open(self, session_id: str | None) -> tuple[str, ConversationState, bool]:
        """``(session id, state, reset)``, touching or creating the session (nothing saved)."""
        ...

    def drop(self, session_id: str) -> bool:
        """Forget a session; False when there was none."""
        ...

    def close(self) -> None:
        """Release connections (the sessions themselves stay in a shared store)."""
        ...

    def __len__(self) -> int: ...

    def __contains__(self, session_id: object) -> bool: ...


Kind = Literal["memory", "sqlite", "redis"]


def parse_session_url(url: str) -> tuple[Kind, str | None]:
    """``(kind, target)``: the SQLite path (None: the default file) or the Redis URL.

    ``ValueError`` names the accepted forms for anything else.
    """
    text = url.strip()
    lower = text.lower()
    if lower == "memory":
        return "memory", None
    if lower == "sqlite":
        return "sqlite", None
    if lower.startswith("sqlite:///"):
        path = "/" + text[len("sqlite://") :].lstrip("/")
        if len(path) > 1:
            return "sqlite", path
    elif lower.startswith("sqlite:") and not lower.startswith("sqlite://"):
        path = text[len("sqlite:") :]
        if path.strip():
            return "sqlite", path
    elif lower.startswith(("redis://", "rediss://")) and len(text) > len(lower.split("://")[0]) + 3:
        return "redis", text
    raise ValueError(f"unknown session store {url!r}: use {SESSION_URL_FORMS}")


def default_sqlite_path(artifact_dir: str | os.PathLike[str] | None = None) -> Path:
    """The temp-directory file every worker serving *artifact_dir* agrees on.

    Named after a short hash of the resolved artifact directory (and of the user, so that two
    users' servers never try to share one private file).
    """
    resolved = Path(artifact_dir if artifact_dir is not None else ".").resolve()
    uid = getattr(os, "getuid", lambda: 0)()
    digest = hashlib.sha256(f"{resolved}\0{uid}".encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"glossary-chat-{digest}.sqlite3"


def open_session_store(
    url: str,
    *,
    ttl_seconds: float,
    max_sessions: int,
    max_turns: int,
    artifact_dir: str | os.PathLike[str] | None = None,
    clock: Callable[[], float] | None = None,
) -> SessionStore:
    """The store *url* names (see the module docstring); *artifact_dir* places the default
    SQLite file; *clock* (tests) replaces the store's clock."""
    kind, target = parse_session_url(url)
    if kind == "memory":
        return MemorySessionStore(ttl_seconds, max_sessions, max_turns, clock=clock or time.monotonic)
    if kind == "sqlite":
        from kg.chat.sessions.sqlite import SqliteSessionStore

        path = Path(target) if target is not None else default_sqlite_path(artifact_dir)
        return SqliteSessionStore(path, ttl_seconds, max_sessions, max_turns, clock=clock or time.time)
    from kg.chat.sessions.redis import RedisSessionStore

    assert target is not None
    return RedisSessionStore(target, ttl_seconds, max_sessions, max_turns, clock=clock or time.time)
