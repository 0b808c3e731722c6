"""FastAPI dependencies: the loaded glossary, search engine and settings, read from ``app.state``;
the annotator of the glossary, built on first use (:data:`AnnotatorDep`)."""

from __future__ import annotations

import threading
from typing import Annotated
from urllib.parse import unquote_plus

import anyio.to_thread
from fastapi import Depends, Path, Request

from api.settings import Settings
from kg.annotate import Annotator
from kg.errors import ArtifactError, BadQuery, TermMoved
from kg.search.engine import SearchEngine
from kg.store import Glossary


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_glossary(request: Request) -> Glossary:
    """The glossary loaded at startup; 503 (:class:`ArtifactError`) when it could not be loaded."""
    glossary: Glossary | None = getattr(request.app.state, "glossary", None)
    if glossary is None:
        error: ArtifactError | None = getattr(request.app.state, "glossary_error", None)
        raise error or ArtifactError("the glossary artifact is not loaded")
    return glossary


def get_engine(request: Request) -> SearchEngine:
    """The search engine loaded at startup; 503 (:class:`ArtifactError`) when it could not be loaded."""
    engine: SearchEngine | None = getattr(request.app.state, "engine", None)
    if engine is None:
        error: ArtifactError | None = getattr(request.app.state, "engine_error", None)
        raise error or ArtifactError("the search index is not loaded")
    return engine


async def check_query_length(request: Request) -> None:
    """Reject query strings longer than ``settings.max_query_chars`` (counted after decoding)."""
    limit = get_settings(request).max_query_chars
    raw = request.scope.get("query_string", b"").decode("latin-1")
    length = len(unquote_plus(raw, encoding="utf-8", errors="replace"))
    if length > limit:
        raise BadQuery(
            f"query string is {length} characters long; the limit is {limit}",
            {"length": length, "max_query_chars": limit},
        )


# The route dependencies are coroutines: FastAPI runs a plain-def dependency in the thread
# pool, a hop that costs more than these attribute reads (and lengthens the latency tail).
async def _glossary(request: Request) -> Glossary:
    return get_glossary(request)


async def _engine(request: Request) -> SearchEngine:
    return get_engine(request)


async def _settings(request: Request) -> Settings:
    return get_settings(request)


_ANNOTATOR_LOCK = threading.Lock()


def get_annotator(request: Request) -> Annotator:
    """The annotator of the app's glossary, built on first use (a second or two: the name
    automaton, jieba with the glossary's names, the context signatures) and kept on ``app.state``;
    a reloaded glossary gets its own. 503 (:class:`ArtifactError`) without a glossary."""
    glossary = get_glossary(request)
    state = request.app.state
    annotator: Annotator | None = getattr(state, "annotator", None)
    if annotator is None or annotator.glossary is not glossary:
        with _ANNOTATOR_LOCK:
            annotator = getattr(state, "annotator", None)
            if annotator is None or annotator.glossary is not glossary:
                annotator = state.annotator = Annotator(glossary)
    return annotator


async def _annotator(request: Request) -> Annotator:
    glossary = get_glossary(request)  # 503 at once when there is none
    annotator: Annotator | None = getattr(request.app.state, "annotator", None)
    if annotator is not None and annotator.glossary is glossary:
        return annotator
    return await anyio.to_thread.run_sync(get_annotator, request)  # the first build, off the event loop


GlossaryDep = Annotated[Glossary, Depends(_glossary)]
AnnotatorDep = Annotated[Annotator, Depends(_annotator)]
EngineDep = Annotated[SearchEngine, Depends(_engine)]
SettingsDep = Annotated[Settings, Depends(_settings)]


async def _current_term_id(
    term_id: Annotated[
        str,
        Path(
            min_length=1,
            max_length=200,
            description="Term id. A former id of a term answers 301 to the same URL with its current id.",
            examples=["vllm"],
        ),
    ],
    glossary: GlossaryDep,
) -> str:
    """The term id of the path; :class:`TermMoved` (301, see :mod:`api.errors`) for a former id.
    An unknown id passes through: the route's lookup answers 404 with suggestions."""
    current = glossary.moved_to(term_id)
    if current is not None:
        raise TermMoved(term_id, current)
    return term_id


#: A ``{term_id}`` path parameter that redirects former ids (every route with a term id in its path).
TermIdPath = Annotated[str, Depends(_current_term_id)]
