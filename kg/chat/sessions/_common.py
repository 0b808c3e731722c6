"""Pieces every session store shares: id generation, limits, the per-session lock, the state codec."""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from kg.chat.model import ConversationState


def new_session_id() -> str:
    """An unguessable id (128 random bits); ids are always issued by the store, never by clients."""
    return secrets.token_urlsafe(16)


def check_limits(ttl_seconds: float, max_sessions: int, max_turns: int) -> None:
    if ttl_seconds <= 0 or max_sessions < 1 or max_turns < 1:
        raise ValueError("ttl_seconds, max_sessions and max_turns must be positive")


def encode_state(state: ConversationState) -> str:
    return json.dumps(state.to_dict(), ensure_ascii=False, separators=(",", ":"))


def decode_state(text: str | bytes, max_turns: int) -> ConversationState | None:
    """The stored state, or None when it cannot be read (then the conversation starts afresh)."""
    try:
        return ConversationState.from_dict(json.loads(text), max_turns=max_turns)
    except (ValueError, TypeError):  # json.JSONDecodeError is a ValueError
        return None


class SessionLocks:
    """One lock per session id, held while a turn is answered, within this process.

    Locks exist only while some thread holds or waits for them, so the table stays as small
    as the number of conversations being answered right now.
    """

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[str, tuple[threading.Lock, int]] = {}

    @contextmanager
    def hold(self, session_id: str | None) -> Iterator[None]:
        if session_id is None:  # a new conversation: nobody else knows its id yet
            yield
            return
        with self._guard:
            lock, users = self._locks.get(session_id, (threading.Lock(), 0))
            self._locks[session_id] = (lock, users + 1)
        try:
            with lock:
                yield
        finally:
            with self._guard:
                lock, users = self._locks[session_id]
                if users == 1:
                    del self._locks[session_id]
                else:
                    self._locks[session_id] = (lock, users - 1)

    def __len__(self) -> int:
        with self._guard:
            return len(self._locks)


class SavedSessions:
    """What the SQLite and Redis stores share: a turn loads the state, runs under this process's
    lock for that session, and saves the state when the block ends without an error."""

    _locks: SessionLocks

    def _acquire(self, session_id: str | None) -> tuple[str, ConversationState, bool]:
        raise NotImplementedError

    def _save(self, session_id: str, state: ConversationState) -> None:
        raise NotImplementedError

    def open(self, session_id: str | None) -> tuple[str, ConversationState, bool]:
        """``(session id, state, reset)``; the state is a copy: change it inside :meth:`session`."""
        return self._acquire(session_id)

    @contextmanager
    def session(self, session_id: str | None) -> Iterator[tuple[str, ConversationState, bool]]:
        """Load the session, hold its lock (this process) while the block runs, save it after."""
        with self._locks.hold(session_id):
            sid, state, reset = self._acquire(session_id)
            yield sid, state, reset
            self._save(sid, state)
