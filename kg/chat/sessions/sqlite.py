"""Conversations in one SQLite file, shared by every worker process on one machine.

>>> store = SqliteSessionStore("/tmp/chat.sqlite3", ttl_seconds=1800, max_sessions=1000)  # doctest: +SKIP
>>> with store.session(None) as (sid, state, reset):                                    # doctest: +SKIP
...     state.record(answer, used_context=False)   # saved when the block ends normally

One table ``sessions(id, state, last_seen, seq)``: the state is the JSON of
:meth:`ConversationState.to_dict`, ``last_seen`` the wall-clock time of the last access (the
TTL: a row older than ``ttl`` seconds is deleted on the next access of any session), ``seq`` a
counter bumped on every access (the least recently used rows go first when a new session would
exceed ``max_sessions``). The file is in WAL mode (readers never wait for the writer), every
access is one short ``BEGIN IMMEDIATE`` transaction, and a busy file is waited for up to
``busy_timeout_ms``. Within one process a per-session lock keeps two requests of one
conversation from interleaving; across processes the last save of a turn wins.

WAL needs shared memory between the processes, so the file must be on a local disk (not NFS);
the workers of one machine share it, other machines do not (use :mod:`.redis` for those).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kg.chat.model import ConversationState
from kg.chat.sessions._common import (
    SavedSessions,
    SessionLocks,
    check_limits,
    decode_state,
    encode_state,
    new_session_id,
)
from kg.errors import SessionStoreUnavailable

__all__ = ["SqliteSessionStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    last_seen REAL NOT NULL,
    seq INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_last_seen ON sessions (last_seen);
CREATE INDEX IF NOT EXISTS sessions_seq ON sessions (seq);
"""


class SqliteSessionStore(SavedSessions):
    """Conversations by id in the SQLite file *path* (created, mode 0600, when missing)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        ttl_seconds: float = 1800.0,
        max_sessions: int = 1000,
        max_turns: int = 20,
        clock: Callable[[], float] = time.time,
        busy_timeout_ms: int = 5000,
    ) -> None:
        check_limits(ttl_seconds, max_sessions, max_turns)
        self.ttl = ttl_seconds
        self.max_sessions = max_sessions
        self.max_turns = max_turns
        self.path = Path(path)
        self._clock = clock
        self._locks = SessionLocks()
        self._db_lock = threading.Lock()  # one connection, used by one thread at a time
        self._busy_timeout_ms = int(busy_timeout_ms)
        self._con: sqlite3.Connection | None = None
        self.evicted = 0  # sessions this process dropped for the cap
        self.expired = 0  # and for the TTL
        with self._db_lock:
            self._connection()  # fail now, not at the first chat turn

    # --- plumbing ---

    def _connection(self) -> sqlite3.Connection:
        """The open connection (opened, with the schema, on first use and after :meth:`close`);
        call with ``_db_lock`` held."""
        if self._con is not None:
            return self._con
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # conversations are private: create the file readable by its owner only (the WAL
            # and shared-memory files SQLite adds take the same permissions)
            os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
            con = sqlite3.connect(
                self.path,
                timeout=self._busy_timeout_ms / 1000,
                isolation_level=None,  # autocommit: transactions are explicit below
                check_same_thread=False,
            )
            try:
                con.execute(f"PRAGMA busy_timeout = {self._busy_timeout_ms}")
                con.execute("PRAGMA journal_mode = WAL")
                con.execute("PRAGMA synchronous = NORMAL")
                con.execute("BEGIN IMMEDIATE")
                for statement in filter(str.strip, _SCHEMA.split(";")):
                    con.execute(statement)
                con.execute("COMMIT")
            except BaseException:
                con.close()
                raise
        except (OSError, sqlite3.Error) as exc:
            raise SessionStoreUnavailable(
                f"cannot open the session file {self.path}: {exc}", {"path": str(self.path)}
            ) from exc
        self._con = con
        return con

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction (takes the file's write lock at once, so it never
        has to upgrade a read lock: waiting is left to ``busy_timeout``)."""
        with self._db_lock:
            con = self._connection()
            try:
                con.execute("BEGIN IMMEDIATE")
                try:
                    yield con
                except BaseException:
                    if con.in_transaction:
                        con.execute("ROLLBACK")
                    raise
                con.execute("COMMIT")
            except sqlite3.Error as exc:
                raise SessionStoreUnavailable(
                    f"session file {self.path}: {exc}", {"path": str(self.path)}
                ) from exc

    def _read(self, sql: str, args: tuple[object, ...]) -> Any:
        """The first row of a query (autocommit: a WAL reader, it never waits for the writer)."""
        with self._db_lock:
            try:
                return self._connection().execute(sql, args).fetchone()
            except sqlite3.Error as exc:
                raise SessionStoreUnavailable(
                    f"session file {self.path}: {exc}", {"path": str(self.path)}
                ) from exc

    @staticmethod
    def _next_seq(con: sqlite3.Connection) -> int:
        (seq,) = con.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM sessions").fetchone()
        return int(seq)

    def _acquire(self, session_id: str | None) -> tuple[str, ConversationState, bool]:
        """Load and touch *session_id*, or create a session (``reset`` when an id was given)."""
        now = self._clock()
        with self._write() as con:
            self.expired += con.execute(
                "DELETE FROM sessions WHERE last_seen <= ?", (now - self.ttl,)
            ).rowcount
            seq = self._next_seq(con)
            if session_id is not None:
                row = con.execute("SELECT state FROM sessions WHERE id = ?", (session_id,)).fetchone()
                if row is not None:
                    state = decode_state(row[0], self.max_turns)
                    if state is not None:
                        con.execute(
                            "UPDATE sessions SET last_seen = ?, seq = ? WHERE id = ?", (now, seq, session_id)
                        )
                        return session_id, state, False
                    con.execute("DELETE FROM sessions WHERE id = ?", (session_id,))  # unreadable
            (count,) = con.execute("SELECT COUNT(*) FROM sessions").fetchone()
            if count >= self.max_sessions:
                self.evicted += con.execute(
                    "DELETE FROM sessions WHERE id IN (SELECT id FROM sessions ORDER BY seq LIMIT ?)",
                    (count - self.max_sessions + 1,),
                ).rowcount
            sid = new_session_id()
            state = ConversationState(max_turns=self.max_turns)
            con.execute(
                "INSERT INTO sessions (id, state, last_seen, seq) VALUES (?, ?, ?, ?)",
                (sid, encode_state(state), now, seq),
            )
            return sid, state, session_id is not None

    def _save(self, session_id: str, state: ConversationState) -> None:
        """Write the state back, unless the session was dropped, evicted or expired meanwhile."""
        now = self._clock()
        with self._write() as con:
            con.execute(
                "UPDATE sessions SET state = ?, last_seen = ?, seq = ? WHERE id = ? AND last_seen > ?",
                (encode_state(state), now, self._next_seq(con), session_id, now - self.ttl),
            )

    # --- the SessionStore protocol ---

    def __len__(self) -> int:
        row = self._read("SELECT COUNT(*) FROM sessions WHERE last_seen > ?", (self._clock() - self.ttl,))
        return int(row[0])

    def __contains__(self, session_id: object) -> bool:
        if not isinstance(session_id, str):
            return False
        row = self._read(
            "SELECT 1 FROM sessions WHERE id = ? AND last_seen > ?", (session_id, self._clock() - self.ttl)
        )
        return row is not None

    def drop(self, session_id: str) -> bool:
        with self._write() as con:
            return con.execute("DELETE FROM sessions WHERE id = ?", (session_id,)).rowcount > 0

    def close(self) -> None:
        """Close the connection (the next access opens it again)."""
        with self._db_lock:
            if self._con is not None:
                self._con.close()
                self._con = None
