"""Conversations in Redis, shared by every worker of every replica that uses one server.

>>> store = RedisSessionStore("redis://127.0.0.1:6379/0", ttl_seconds=1800)  # doctest: +SKIP

Keys (``prefix`` = ``glossary:chat:``): ``<prefix>s:<id>`` holds the JSON of
:meth:`ConversationState.to_dict` and expires ``ttl`` seconds after the last access
(``PEXPIRE``); the sorted set ``<prefix>lru`` scores every session id by its last access (wall
clock, seconds). Creating a session first drops the ids whose score is older than the TTL,
then the lowest-scored ones beyond ``max_sessions``; loading checks the score as well, so the
TTL holds by this store's clock even before Redis expires the key. Each step is one Lua script,
atomic on the server. Within one process a per-session lock keeps two requests of one
conversation from interleaving; across processes the last save of a turn wins.

Needs redis-py: ``pip install 'glossary-kg[redis]'``. Replicas on several machines compare
scores written by different clocks: keep them in sync (NTP).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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

__all__ = ["REDIS_EXTRA_HINT", "RedisSessionStore"]

REDIS_EXTRA_HINT = "install the redis extra: pip install 'glossary-kg[redis]'"

# KEYS: lru, session key. ARGV: now, cutoff (now - ttl), ttl in ms, id.
# The stored JSON when the session is alive (touched), else false (and its leftovers removed).
_TOUCH = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[4])
local value = redis.call('GET', KEYS[2])
if value and score and tonumber(score) > tonumber(ARGV[2]) then
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
  return value
end
redis.call('DEL', KEYS[2])
redis.call('ZREM', KEYS[1], ARGV[4])
if value then return -1 end
return false
"""

# KEYS: lru, new session key. ARGV: now, cutoff, ttl in ms, new id, max sessions, key prefix, state.
# Purges expired ids, evicts the least recently used beyond the cap, stores the new session;
# returns {expired, evicted}.
_CREATE = """
local old = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
for _, id in ipairs(old) do redis.call('DEL', ARGV[6] .. id) end
if #old > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2]) end
local excess = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[5]) + 1
local evicted = 0
if excess > 0 then
  local lru = redis.call('ZPOPMIN', KEYS[1], excess)
  for i = 1, #lru, 2 do redis.call('DEL', ARGV[6] .. lru[i]) end
  evicted = #lru / 2
end
redis.call('SET', KEYS[2], ARGV[7], 'PX', ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
return {#old, evicted}
"""

# KEYS: lru, session key. ARGV: now, cutoff, ttl in ms, id, state.
# Saves only a session that is still alive (not dropped, evicted or expired meanwhile).
_SAVE = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[4])
if score and tonumber(score) > tonumber(ARGV[2]) and redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('SET', KEYS[2], ARGV[5], 'PX', ARGV[3])
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
  return 1
end
return 0
"""


class RedisSessionStore(SavedSessions):
    """Conversations by id on the Redis server at *url* (``redis://host:port/db``)."""

    def __init__(
        self,
        url: str,
        ttl_seconds: float = 1800.0,
        max_sessions: int = 1000,
        max_turns: int = 20,
        clock: Callable[[], float] = time.time,
        prefix: str = "glossary:chat:",
        timeout_seconds: float = 5.0,
    ) -> None:
        try:
            import redis
        except ImportError as exc:
            raise ImportError(f"session store {url!r} needs redis-py: {REDIS_EXTRA_HINT}") from exc
        check_limits(ttl_seconds, max_sessions, max_turns)
        self.ttl = ttl_seconds
        self.max_sessions = max_sessions
        self.max_turns = max_turns
        self.url = url
        self.prefix = prefix
        self._clock = clock
        self._locks = SessionLocks()
        self._errors: tuple[type[Exception], ...] = (redis.RedisError,)
        self._redis = redis.Redis.from_url(
            url, socket_timeout=timeout_seconds, socket_connect_timeout=timeout_seconds
        )
        self._lru = prefix + "lru"
        self._touch = self._redis.register_script(_TOUCH)
        self._create = self._redis.register_script(_CREATE)
        self._save_script = self._redis.register_script(_SAVE)
        self.evicted = 0  # sessions this process dropped for the cap
        self.expired = 0  # and for the TTL (Redis expires others by itself)

    # --- plumbing ---

    def _key(self, session_id: str) -> str:
        return f"{self.prefix}s:{session_id}"

    def _ttl_ms(self) -> int:
        return max(1, round(self.ttl * 1000))

    @contextmanager
    def _unavailable(self) -> Iterator[None]:
        try:
            yield
        except self._errors as exc:
            raise SessionStoreUnavailable(
                f"session store {self._safe_url()}: {exc}", {"store": self._safe_url()}
            ) from exc

    def _safe_url(self) -> str:
        """The URL without a password."""
        _, sep, tail = self.url.rpartition("@")
        return f"{self.url.split('://', 1)[0]}://…@{tail}" if sep else self.url

    def _acquire(self, session_id: str | None) -> tuple[str, ConversationState, bool]:
        now = self._clock()
        cutoff = now - self.ttl
        with self._unavailable():
            if session_id is not None:
                raw: Any = self._touch(
                    keys=[self._lru, self._key(session_id)],
                    args=[repr(now), repr(cutoff), self._ttl_ms(), session_id],
                )
                if isinstance(raw, bytes | str):
                    state = decode_state(raw, self.max_turns)
                    if state is not None:
                        return session_id, state, False
                    self.drop(session_id)  # unreadable: start afresh
                elif raw == -1:
                    self.expired += 1
            sid = new_session_id()
            state = ConversationState(max_turns=self.max_turns)
            expired, evicted = self._create(
                keys=[self._lru, self._key(sid)],
                args=[
                    repr(now),
                    repr(cutoff),
                    self._ttl_ms(),
                    sid,
                    self.max_sessions,
                    f"{self.prefix}s:",
                    encode_state(state),
                ],
            )
        self.expired += int(expired)
        self.evicted += int(evicted)
        return sid, state, session_id is not None

    def _save(self, session_id: str, state: ConversationState) -> None:
        now = self._clock()
        with self._unavailable():
            self._save_script(
                keys=[self._lru, self._key(session_id)],
                args=[repr(now), repr(now - self.ttl), self._ttl_ms(), session_id, encode_state(state)],
            )

    # --- the SessionStore protocol ---

    def __len__(self) -> int:
        with self._unavailable():
            return int(self._redis.zcount(self._lru, f"({self._clock() - self.ttl!r}", "+inf"))

    def __contains__(self, session_id: object) -> bool:
        if not isinstance(session_id, str):
            return False
        with self._unavailable():
            pipe = self._redis.pipeline(transaction=True)
            pipe.zscore(self._lru, session_id)
            pipe.exists(self._key(session_id))
            score, exists = pipe.execute()
        return bool(exists) and score is not None and float(score) > self._clock() - self.ttl

    def drop(self, session_id: str) -> bool:
        with self._unavailable():
            pipe = self._redis.pipeline(transaction=True)
            pipe.delete(self._key(session_id))
            pipe.zrem(self._lru, session_id)
            deleted, _ = pipe.execute()
        return bool(deleted)

    def close(self) -> None:
        self._redis.close()
