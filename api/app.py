"""The FastAPI application factory.

>>> app = create_app()                                   # doctest: +SKIP
>>> app = create_app(Settings(artifact_dir="x"), glossary=Glossary(doc), engine=engine)  # tests  # doctest: +SKIP

The glossary and the search engine (``<artifact>/search``) are loaded in the lifespan, unless
injected, and replaced whole by a reload (SIGHUP, ``POST /admin/reload``: :mod:`api.reload`);
routes reach the ones their request began with through :func:`api.deps.get_glossary` and
:func:`api.deps.get_engine`. A missing artifact does not stop the app: ``/readyz`` and every
data route answer 503 until it is there (then reload, or restart); a missing or mismatched
search index makes only the search routes answer 503 (``/readyz`` says ``degraded``).
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import Depends, FastAPI
from fastapi.middleware.gzip import GZipMiddleware

from api.caching import RenderCache
from api.deps import check_query_length
from api.errors import install_error_handlers
from api.middleware import (
    BodySizeLimitMiddleware,
    HeadAsGetMiddleware,
    JsonBodyGuardMiddleware,
    PathCORSMiddleware,
    SecurityHeadersMiddleware,
    UnhandledErrorMiddleware,
)
from api.reload import ArtifactMiddleware, Loaded, Reloader, install_sighup, load_artifact, load_engine
from api.routes import (
    admin,
    annotate,
    ask,
    cards,
    chat,
    compare,
    export,
    graph,
    health,
    lookup,
    openai_compat,
    search,
    stats,
    suggest,
    terms,
    web,
    widget,
)
from api.settings import Settings
from kg.build import pin_directory
from kg.errors import ArtifactError
from kg.search.engine import SearchEngine
from kg.store import Glossary
from kg.verify import check_artifact

log = logging.getLogger(__name__)


def create_app(
    settings: Settings | None = None, glossary: Glossary | None = None, engine: SearchEngine | None = None
) -> FastAPI:
    """Build the app. *glossary* / *engine* (tests) skip loading them from ``settings.artifact_dir``."""
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # An artifact that is there is verified once, then every part is loaded from the one
        # version directory the check resolved (a build may publish a new version meanwhile);
        # a damaged part is not served. A missing artifact keeps the plain "build it" errors.
        # A worker started after a reload (one replacing a dead worker) loads the server's
        # current target instead (api/reload.py, kg/reload.py).
        reloader = app.state.reloader = Reloader(app, settings)
        target = reloader.startup_target()
        path = Path(target.path) if target is not None else settings.artifact_dir
        injected: Glossary | None = app.state.glossary
        if injected is not None:  # tests: the graph (and maybe the engine) given to create_app
            loaded = Loaded(glossary=injected, engine=app.state.engine)
            if loaded.engine is None:
                check = check_artifact(path, settings.encoder) if path.exists() else None
                if check is not None and check.search_error is not None:
                    log.error("search engine not loaded: %s", check.search_error.message)
                    loaded.engine_error = check.search_error
                else:
                    loaded.engine, loaded.engine_error = load_engine(
                        settings,
                        injected,
                        check.path if check is not None else path,
                        with_chat=check is None or check.chat_error is None,
                    )
        elif path.exists():
            loaded = load_artifact(settings, path, strict=False)
        else:
            loaded = Loaded(
                glossary_error=ArtifactError(f"no artifact at {path.name}: run `glossary build` first")
            )
            try:
                Glossary.load(path)
            except ArtifactError as exc:  # the message users know ("graph.json: missing …")
                loaded.glossary_error = exc
        if loaded.path is not None:
            pin_directory(loaded.path)
        app.state.artifact = loaded
        del loaded, injected  # this frame lives as long as the app: it must not keep the artifact
        # the loaded graph and indexes live until a reload replaces them: keep them out of the
        # cyclic GC, whose full collections would otherwise scan them (~20 ms pauses)
        gc.collect()
        gc.freeze()
        reloader.report()
        watcher = asyncio.create_task(reloader.watch()) if reloader.channel is not None else None
        install_sighup(reloader)
        yield
        if watcher is not None:
            watcher.cancel()
        sessions = getattr(app.state, "chat_sessions", None)
        if sessions is not None:  # its connections (reopened if the app starts again)
            sessions.close()

    app = FastAPI(
        title="glossary-kg",
        version="0.1.0",
        description="Bilingual (Chinese/English) knowledge graph of LLM inference-engineering terms.",
        lifespan=lifespan,
        dependencies=[Depends(check_query_length)],
        # No trailing-slash redirects: Starlette builds their Location from the Host header.
        redirect_slashes=False,
    )
    app.state.settings = settings
    app.state.glossary = glossary
    app.state.glossary_error = None
    app.state.engine = engine
    app.state.engine_error = None
    app.state.export_cache = RenderCache(settings.export_cache_size)
    app.state.artifact = None  # set by the lifespan; swapped by a reload (api/reload.py)

    install_error_handlers(app)
    for module in (health, cards, terms, lookup, suggest, search, graph, compare, stats, export, annotate):
        app.include_router(module.router)
    for module in (ask, chat, openai_compat, web, widget):  # chatbot, web page and widget
        app.include_router(module.router)
    if settings.admin_token is not None:  # no token, no admin endpoint (404)
        app.include_router(admin.router)

    # Added innermost first. The JSON guard reads bodies the size limit has already bounded; CORS
    # wraps them (and the 500s) so error responses carry its headers too; HEAD runs as GET outside
    # gzip (same headers); the security headers go on every response, CORS preflights included.
    app.add_middleware(JsonBodyGuardMiddleware)
    app.add_middleware(
        BodySizeLimitMiddleware,
        max_body_bytes=settings.max_body_bytes,
        path_limits={"/v1/annotate": settings.max_annotate_body_bytes},
    )
    app.add_middleware(GZipMiddleware, minimum_size=1000)
    app.add_middleware(UnhandledErrorMiddleware)  # 500s that keep the connection open
    app.add_middleware(
        PathCORSMiddleware,
        allow_origins=settings.cors_origins,
        post_paths=settings.cors_post_paths,
        allow_headers=["*"],
        expose_headers=["ETag", "X-Glossary-Version", "X-Glossary-Replica"],
    )
    app.add_middleware(HeadAsGetMiddleware)
    docs = {app.docs_url, app.redoc_url, app.swagger_ui_oauth2_redirect_url}
    app.add_middleware(SecurityHeadersMiddleware, docs_paths=frozenset(p for p in docs if p))
    # outermost: the artifact a request uses is fixed when it arrives, and every response says which
    app.add_middleware(ArtifactMiddleware, replica=settings.replica)
    return app
