"""The FastAPI application factory.

>>> app = create_app()                                   # doctest: +SKIP
>>> app = create_app(Settings(artifact_dir="x"), glossary=Glossary(doc), engine=engine)  # tests  # doctest: +SKIP

The glossary and the search engine (``<artifact>/search``) are loaded once, in the lifespan,
unless injected; routes reach them through :func:`api.deps.get_glossary` and
:func:`api.deps.get_engine`. A missing artifact does not stop the app: ``/readyz`` and every
data route answer 503 until it is there (restart to reload); a missing or mismatched search
index makes only the search routes answer 503 (``/readyz`` says ``degraded``).
"""

from __future__ import annotations

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
from api.routes import (
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
from kg.errors import ArtifactError, GlossaryError
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
        loaded = False
        # Verified once, then every part is loaded from the one version directory the check
        # resolved (a build may publish a new version meanwhile); a damaged part is not served.
        # an artifact that is there is verified once, then every part is loaded from the one
        # version directory the check resolved (a build may publish a new version meanwhile);
        # a damaged part is not served. A missing artifact keeps the plain "build it" errors.
        check = (
            check_artifact(settings.artifact_dir, settings.encoder)
            if settings.artifact_dir.exists()
            else None
        )
        app.state.artifact_check = check
        path = check.path if check is not None else settings.artifact_dir
        if app.state.glossary is None:
            try:
                if check is not None and check.graph_error is not None:
                    raise check.graph_error
                app.state.glossary = Glossary.load(path)
                app.state.glossary_error = None
                loaded = True
            except ArtifactError as exc:
                log.error("glossary not loaded: %s", exc.message)
                app.state.glossary_error = exc
        if app.state.engine is None and app.state.glossary is not None:
            if check is not None and check.search_error is not None:
                log.error("search engine not loaded: %s", check.search_error.message)
                app.state.engine_error = check.search_error
            else:
                with_chat = check is None or check.chat_error is None
                app.state.engine, app.state.engine_error = _load_engine(
                    settings, app.state.glossary, path, with_chat=with_chat
                )
            loaded = True
        if loaded:
            # The loaded graph and indexes live as long as the process: keep them out of the
            # cyclic GC, whose full collections would otherwise scan them (~20 ms pauses).
            gc.collect()
            gc.freeze()
        yield
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

    install_error_handlers(app)
    for module in (health, cards, terms, lookup, suggest, search, graph, compare, stats, export, annotate):
        app.include_router(module.router)
    for module in (ask, chat, openai_compat, web, widget):  # chatbot, web page and widget
        app.include_router(module.router)

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
        expose_headers=["ETag"],
    )
    app.add_middleware(HeadAsGetMiddleware)
    docs = {app.docs_url, app.redoc_url, app.swagger_ui_oauth2_redirect_url}
    app.add_middleware(SecurityHeadersMiddleware, docs_paths=frozenset(p for p in docs if p))
    return app


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


def _load_engine(
    settings: Settings, glossary: Glossary, artifact: Path, *, with_chat: bool = True
) -> tuple[SearchEngine | None, ArtifactError | None]:
    """The engine saved in ``<artifact>/search`` (warmed up), or the error that stopped it."""
    from embeddings import VectorIndexError

    try:
        engine = SearchEngine.for_artifact(artifact, glossary.terms.values(), settings.encoder)
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
