"""The FastAPI application factory.

>>> app = create_app()                                   # doctest: +SKIP
>>> app = create_app(Settings(artifact_dir="x"), glossary=Glossary(doc))   # tests  # doctest: +SKIP

The glossary is loaded once, in the lifespan, unless one is injected; routes reach it
through :func:`api.deps.get_glossary`. A missing artifact does not stop the app: ``/readyz``
and every data route answer 503 until it is there (restart to reload).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.middleware.gzip import GZipMiddleware

from api.deps import check_query_length
from api.errors import install_error_handlers
from api.middleware import BodySizeLimitMiddleware
from api.routes import compare, export, graph, health, lookup, stats, terms
from api.settings import Settings
from kg.errors import ArtifactError
from kg.store import Glossary

log = logging.getLogger(__name__)


def create_app(settings: Settings | None = None, glossary: Glossary | None = None) -> FastAPI:
    """Build the app. *glossary* (tests) skips loading ``settings.artifact_dir``."""
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if app.state.glossary is None:
            try:
                app.state.glossary = Glossary.load(settings.artifact_dir)
                app.state.glossary_error = None
            except ArtifactError as exc:
                log.error("glossary not loaded: %s", exc.message)
                app.state.glossary_error = exc
        yield

    app = FastAPI(
        title="glossary-kg",
        version="0.1.0",
        description="Bilingual (Chinese/English) knowledge graph of LLM inference-engineering terms.",
        lifespan=lifespan,
        dependencies=[Depends(check_query_length)],
    )
    app.state.settings = settings
    app.state.glossary = glossary
    app.state.glossary_error = None

    install_error_handlers(app)
    for module in (health, terms, lookup, graph, compare, stats, export):
        app.include_router(module.router)

    # Added innermost first: CORS is outermost so error responses carry its headers too.
    app.add_middleware(BodySizeLimitMiddleware, max_body_bytes=settings.max_body_bytes)
    app.add_middleware(GZipMiddleware, minimum_size=1000)
    app.add_middleware(
        CORSMiddleware,
        allow_origins=settings.cors_origins,
        allow_methods=["GET"],
        allow_headers=["*"],
        expose_headers=["ETag"],
    )
    return app
