"""In-memory conversations with bounded memory: a TTL, a cap on sessions, a cap on turns.

>>> store = MemorySessionStore(ttl_seconds=1800, max_sessions=1000, max_turns=20)
>>> sid, state, reset = store.open(None)          # a new conversation
>>> reset
False
>>> store.open("no-such-id")[2]                   # unknown or expired id: fresh, flagged
True

Sessions live only in this process (restart = forget; another worker process does not see
them): use :mod:`.sqlite` or :mod:`.redis` to share them. The least recently used session is
dropped when the cap is reached. Each session has its own lock so that two requests for one
conversation do not interleave their updates. ``open`` and ``session`` hand out the live state
object itself, so changes need no explicit save.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from kg.chat.model import ConversationState
from kg.chat.sessions._common import check_limits, new_session_id

__all__ = ["MemorySessionStore", "Session"]


@dataclass
class Session:
    id: str
    state: ConversationState
    last_seen: float
    lock: threading.Lock = field(default_factory=threading.Lock)


class MemorySessionStore:
    """Conversations by id; expired ones are purged lazily on every access."""

    def __init__(
        self,
        ttl_seconds: float = 1800.0,
        max_sessions: int = 1000,
        max_turns: int = 20,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        check_limits(ttl_seconds, max_sessions, max_turns)
        self.ttl = ttl_seconds
        self.max_sessions = max_sessions
        self.max_turns = max_turns
        self._clock = clock
        self._sessions: OrderedDict[str, Session] = OrderedDict()
        self._lock = threading.Lock()
        self.evicted = 0
        self.expired = 0

    def __len__(self) -> int:
        with self._lock:
            self._purge(self._clock())
            return len(self._sessions)

    def __contains__(self, session_id: object) -> bool:
        with self._lock:
            self._purge(self._clock())
            return session_id in self._sessions

    def _purge(self, now: float) -> None:
        while self._sessions:
            oldest = next(iter(self._sessions.values()))
            if now - oldest.last_seen < self.ttl:
                break
            self._sessions.popitem(last=False)
            self.expired += 1

    def _new(self, now: float) -> Session:
        while len(self._sessions) >= self.max_sessions:
            self._sessions.popitem(last=False)
            self.evicted += 1
        sid = new_session_id()
        session = Session(sid, ConversationState(max_turns=self.max_turns), now)
        self._sessions[sid] = session
        return session

    def get_session(self, session_id: str | None) -> tuple[Session, bool]:
        """The live session *session_id*, or a new one; ``reset`` is True when an id was given
        but is unknown or expired (the client's conversation was forgotten)."""
        with self._lock:
            now = self._clock()
            self._purge(now)
            if session_id is not None and session_id in self._sessions:
                session = self._sessions[session_id]
                session.last_seen = now
                self._sessions.move_to_end(session_id)
                return session, False
            return self._new(now), session_id is not None

    def open(self, session_id: str | None) -> tuple[str, ConversationState, bool]:
        """``(session id, state, reset)``; see :meth:`get_session`."""
        session, reset = self.get_session(session_id)
        return session.id, session.state, reset

    @contextmanager
    def session(self, session_id: str | None) -> Iterator[tuple[str, ConversationState, bool]]:
        """Hold the session's lock while a turn is answered and recorded."""
        session, reset = self.get_session(session_id)
        with session.lock:
            yield session.id, session.state, reset

    def drop(self, session_id: str) -> bool:
        with self._lock:
            return self._sessions.pop(session_id, None) is not None

    def close(self) -> None:
        """Nothing to release (the sessions go with the process)."""
