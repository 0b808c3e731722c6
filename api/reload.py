"""The artifact a worker serves, swapped atomically on reload; each request keeps the one it began with.

Everything a request reads from the artifact (graph, search engine, refusal model) comes from one
:class:`Loaded`. :class:`ArtifactMiddleware` takes the worker's current one when the request
arrives and keeps it in the request's scope (the routes' dependencies read it from there, see
:mod:`api.deps`), so a request that is running when a reload swaps the artifact finishes on the
old one — its graph and its index together — and the old one is freed when the last such request
ends. The swap itself is one reference assignment (``app.state.artifact``).

It also stamps every response with ``X-Glossary-Version``: the first 16 hex digits of the
artifact's content hash (``content_sha256`` of its manifest: every file's checksum, so any
change to the graph, the indexes or the refusal model changes it).

:class:`Reloader` does the reloading in a worker (the protocol between the workers of one
``glossary serve`` is in :mod:`kg.reload`): it loads a verified version in a thread — reusing the
loaded query encoder, so no model is loaded again — warms it up, swaps it in, and reports.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import threading
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from fastapi import FastAPI, Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.settings import Settings
from kg.build import pin_directory, unpin_directory
from kg.errors import ArtifactError, ArtifactRefused, GlossaryError
from kg.reload import ReloadChannel, Target, verified_version
from kg.search.engine import SearchEngine
from kg.store import Glossary
from kg.verify import ArtifactCheck, artifact_content_hash, check_artifact, read_manifest

log = logging.getLogger(__name__)

SCOPE_KEY = "glossary.artifact"
VERSION_HEADER = "X-Glossary-Version"
REPLICA_HEADER = "X-Glossary-Replica"


@dataclass(eq=False)
class Loaded:
    """One artifact as a worker serves it (a part that could not be loaded: None, and its error)."""

    glossary: Glossary | None = None
    glossary_error: ArtifactError | None = None
    engine: SearchEngine | None = None
    engine_error: ArtifactError | None = None
    path: Path | None = None  # the version directory every part was loaded from
    version: str | None = None  # the manifest's version (the directory's name)
    content_sha256: str | None = None
    loaded_at: float = field(default_factory=time.time)

    @property
    def tag(self) -> str | None:
        """What ``X-Glossary-Version`` says: the content hash's first 16 hex digits; for a graph
        given without a manifest (tests, a hand-made artifact), the graph document's hash."""
        if self.content_sha256:
            return self.content_sha256[:16]
        if self.glossary is not None:
            from api.caching import artifact_version

            return artifact_version(self.glossary)[:16]
        return None


def current(app: FastAPI) -> Loaded:
    """The artifact the worker serves now (one built from ``app.state`` when the lifespan did
    not run: tests that set ``glossary`` / ``engine`` themselves)."""
    loaded: Loaded | None = getattr(app.state, "artifact", None)
    if loaded is not None:
        return loaded
    state = app.state
    return Loaded(
        glossary=getattr(state, "glossary", None),
        glossary_error=getattr(state, "glossary_error", None),
        engine=getattr(state, "engine", None),
        engine_error=getattr(state, "engine_error", None),
    )


def pinned(request: Request) -> Loaded:
    """The artifact this request began with (see the module docstring)."""
    loaded: Loaded | None = request.scope.get(SCOPE_KEY)
    return loaded if loaded is not None else current(request.app)


class ArtifactMiddleware:
    """Keeps the current :class:`Loaded` in each request's scope and adds ``X-Glossary-Version``
    (and ``X-Glossary-Replica`` when the server is given a *replica* name: which of several
    replicas behind a load balancer answered)."""

    def __init__(self, app: ASGIApp, replica: str | None = None) -> None:
        self.app = app
        self.replica = (REPLICA_HEADER.lower().encode(), replica.encode()) if replica else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        loaded = current(scope["app"])
        scope[SCOPE_KEY] = loaded
        tag = loaded.tag
        headers = [(VERSION_HEADER.lower().encode(), tag.encode())] if tag is not None else []
        if self.replica is not None:
            headers.append(self.replica)
        if not headers:
            await self.app(scope, receive, send)
            return

        async def with_version(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *headers]}
            await send(message)

        await self.app(scope, receive, with_version)


# --- loading ------------------------------------------------------------------------------------


def load_artifact(
    settings: Settings, path: Path, *, strict: bool, encoder: Any = None, check: ArtifactCheck | None = None
) -> Loaded:
    """Load the artifact at *path* (verified first unless *check* is given).

    At startup (``strict=False``) a damaged part is left out and reported (``/readyz`` says so).
    On reload (``strict=True``) anything short of a whole artifact raises
    :class:`~kg.errors.ArtifactRefused`: the worker keeps serving the one it has. *encoder*: the
    query encoder of the artifact being replaced, reused when the new index was built with it.
    """
    check = check if check is not None else check_artifact(path, settings.encoder)
    if strict and check.problems:
        raise ArtifactRefused(
            f"version {check.path.name} not served: " + "; ".join(str(p) for p in check.problems[:3]),
            {"version": check.path.name, "problems": [p.to_dict() for p in check.problems]},
        )
    root = check.path
    loaded = Loaded(path=root, version=check.version)
    try:
        loaded.content_sha256 = artifact_content_hash(read_manifest(root))
    except GlossaryError:
        loaded.content_sha256 = None
    try:
        if check.graph_error is not None:
            raise check.graph_error
        loaded.glossary = Glossary.load(root)
    except ArtifactError as exc:
        if strict:
            raise ArtifactRefused(exc.message, {"version": root.name}) from exc
        log.error("glossary not loaded: %s", exc.message)
        loaded.glossary_error = exc
        return loaded
    if check.search_error is not None:
        log.error("search engine not loaded: %s", check.search_error.message)
        loaded.engine_error = check.search_error
        return loaded
    loaded.engine, loaded.engine_error = load_engine(
        settings, loaded.glossary, root, with_chat=check.chat_error is None, encoder=encoder
    )
    if strict and loaded.engine_error is not None:
        raise ArtifactRefused(loaded.engine_error.message, {"version": root.name})
    return loaded


def load_engine(
    settings: Settings, glossary: Glossary, artifact: Path, *, with_chat: bool = True, encoder: Any = None
) -> tuple[SearchEngine | None, ArtifactError | None]:
    """The engine saved in ``<artifact>/search`` (warmed up), or the error that stopped it."""
    from embeddings import VectorIndexError

    try:
        engine = SearchEngine.for_artifact(
            artifact, glossary.terms.values(), settings.encoder, encoder=encoder
        )
    except (GlossaryError, VectorIndexError, ValueError, OSError) as exc:
        message = exc.message if isinstance(exc, GlossaryError) else f"search index not loaded: {exc}"
        log.error("search engine not loaded: %s", message)
        return None, ArtifactError(message)
    if with_chat:
        _attach_refusal_model(artifact, engine)
    if settings.warm_up:
        try:
            engine.search("warm up 预热", "hybrid", limit=1)  # loads the query encoder and jieba's caches
        except Exception as exc:  # an encoder that cannot run would fail every search: say so now
            log.exception("search engine warm-up failed")
            return None, ArtifactError(f"the search engine failed to warm up: {exc}")
    return engine, None


def _attach_refusal_model(artifact: Path, engine: SearchEngine) -> None:
    """The chatbot's refusal model from ``<artifact>/chat/refusal.json``; without one (an artifact
    built before it existed) it is trained on the first chat question, with a warning now."""
    from kg.chat.refusal import RefusalModel, attach_refusal_model

    try:
        model = RefusalModel.load(artifact)
    except (OSError, ValueError, KeyError) as exc:
        log.warning("chat refusal model not loaded (%s): it is trained on the first question", exc)
        return
    if model is None:
        log.warning("no chat/refusal.json in the artifact: the chat's refusal model is trained on first use")
        return
    attach_refusal_model(engine, model)


def _query_encoder(loaded: Loaded) -> Any:
    dense = loaded.engine.dense if loaded.engine is not None else None
    return dense.encoder if dense is not None else None


# --- reloading ----------------------------------------------------------------------------------


class Reloader:
    """Reloads one worker's artifact: on a new target in the server's reload channel, on SIGHUP
    sent to the worker, or when asked by the admin endpoint (see :mod:`kg.reload`)."""

    def __init__(self, app: FastAPI, settings: Settings) -> None:
        self.app = app
        self.settings = settings
        self.channel = ReloadChannel(settings.reload_dir) if settings.reload_dir else None
        self.generation = 0
        self.last_reload_at: float | None = None
        self.last_error: str | None = None
        self._lock = threading.Lock()  # one load at a time
        self._limiter = anyio.CapacityLimiter(1)  # its own thread: never a request's
        self._stamp: tuple[int, int, int] | None = None
        self._tasks: set[asyncio.Future[None]] = set()

    @property
    def link(self) -> Path:
        """The published artifact a reload resolves again (the symlink a build switches)."""
        return self.settings.artifact_link or self.settings.artifact_dir

    def startup_target(self) -> Target | None:
        """The current target of the server, for a worker that starts after a reload."""
        if self.channel is None:
            return None
        self._stamp = self.channel.stamp()
        target = self.channel.read()
        if target is not None:
            self.generation = target.generation
        return target

    def request(self, by: str) -> Target:
        """Verify the version published now and make it every worker's target (blocking; call in
        a thread). :class:`~kg.errors.ArtifactRefused` when it is not intact."""
        root, _ = verified_version(self.link, self.settings.encoder)
        if self.channel is None:
            manifest = read_manifest(root) or {}
            return Target(
                self.generation + 1, str(root), artifact_content_hash(manifest), root.name, time.time(), by
            )
        target = self.channel.read()
        if target is not None and Path(target.path) == root:
            return target  # already the target: nothing to publish
        return self.channel.publish(root, by)

    def apply(self, target: Target) -> bool:
        """Serve *target* (blocking; call in a thread): load, warm up, swap. False when it is
        already served; :class:`~kg.errors.ArtifactRefused` (and the old one kept) when it cannot
        be loaded whole."""
        with self._lock:
            old = current(self.app)
            if target.generation < self.generation or (
                old.path is not None and Path(target.path) == old.path
            ):
                self.generation = max(self.generation, target.generation)
                self.report()
                return False
            t0 = time.perf_counter()
            try:
                new = load_artifact(
                    self.settings, Path(target.path), strict=True, encoder=_query_encoder(old)
                )
            except GlossaryError as exc:
                self.generation = target.generation  # not retried: a new build makes a new target
                self.last_error = exc.message
                log.error("reload refused, still serving %s: %s", old.version, exc.message)
                self.report()
                raise
            assert new.path is not None
            pin_directory(new.path)
            self.app.state.artifact = new  # the swap
            self.app.state.annotator = None  # built from the old glossary (api.deps): rebuilt on use
            self.generation = target.generation
            self.last_reload_at, self.last_error = time.time(), None
            log.warning(
                "reloaded: %s -> %s (%s, %.2f s)", old.version, new.version, new.tag, time.perf_counter() - t0
            )
            if old.path is not None and old.path != new.path:
                unpin_directory(old.path)
            self.report()
            _release(old)
            return True

    async def apply_async(self, target: Target) -> bool:
        return await anyio.to_thread.run_sync(self.apply, target, limiter=self._limiter)

    async def request_and_apply(self, by: str) -> tuple[Target, bool]:
        """Request a reload and apply it in this worker at once (the others follow the channel)."""
        target = await anyio.to_thread.run_sync(self.request, by, limiter=self._limiter)
        return target, await self.apply_async(target)

    def report(self) -> None:
        if self.channel is None:
            return
        loaded = current(self.app)
        self.channel.report(
            {
                "generation": self.generation,
                "version": loaded.version,
                "content_sha256": loaded.content_sha256,
                "error": self.last_error,
                "at": time.time(),
            }
        )

    async def wait_for_workers(self, generation: int, timeout: float) -> list[dict[str, Any]]:
        """The live workers' reports once all have reached *generation* (or *timeout* passed)."""
        if self.channel is None:
            return []
        deadline = time.monotonic() + timeout
        while True:
            workers = await anyio.to_thread.run_sync(self.channel.workers, limiter=self._limiter)
            if all(w.get("generation", 0) >= generation for w in workers) or time.monotonic() > deadline:
                return workers
            await asyncio.sleep(0.05)

    async def watch(self) -> None:
        """Poll the channel; apply each new target (runs for the life of the worker)."""
        assert self.channel is not None
        while True:
            await asyncio.sleep(self.settings.reload_poll_seconds)
            stamp = self.channel.stamp()
            if stamp == self._stamp:
                continue
            self._stamp = stamp
            target = self.channel.read()
            if target is None or target.generation <= self.generation:
                continue
            with contextlib.suppress(GlossaryError):  # logged and reported by apply
                await self.apply_async(target)

    def on_sighup(self) -> None:
        """SIGHUP sent to this worker: request a reload (every worker follows)."""

        async def run() -> None:
            try:
                await self.request_and_apply("SIGHUP")
            except GlossaryError as exc:
                log.error("reload on SIGHUP refused: %s", exc.message)

        task = asyncio.ensure_future(run())
        self._tasks.add(task)  # a reference until it ends (the loop keeps only weak ones)
        task.add_done_callback(self._tasks.discard)


def install_sighup(reloader: Reloader) -> bool:
    """Reload on SIGHUP to this process (the event loop's main thread only: not in a test client)."""
    import signal

    try:
        asyncio.get_running_loop().add_signal_handler(signal.SIGHUP, reloader.on_sighup)
    except (RuntimeError, ValueError, NotImplementedError, AttributeError):
        return False
    return True


def _release(old: Loaded) -> None:
    """Let the replaced artifact go: drop the chat's per-glossary caches, and once the last request
    that began on it has finished, collect it and freeze what is left (the startup's gc.freeze
    keeps the loaded artifact out of the cyclic collector's scans; see api.app)."""
    from kg.chat import forget_artifacts

    forget_artifacts()
    gc.unfreeze()  # the old artifact was frozen at startup: make it collectable
    gone = threading.Event()
    ref = weakref.ref(old, lambda _r: gone.set())
    del old

    def collect() -> None:
        gone.wait(timeout=120.0)  # requests still running on it (a long chat stream) keep it alive
        gc.collect()
        gc.freeze()

    if ref() is None:
        gone.set()
    threading.Thread(target=collect, name="glossary-release", daemon=True).start()
