"""FastAPI dependencies: the loaded glossary and the settings, both read from ``app.state``."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import unquote_plus

from fastapi import Depends, Request

from api.settings import Settings
from kg.errors import ArtifactError, BadQuery
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


def check_query_length(request: Request) -> None:
    """Reject query strings longer than ``settings.max_query_chars`` (counted after decoding)."""
    limit = get_settings(request).max_query_chars
    raw = request.scope.get("query_string", b"").decode("latin-1")
    length = len(unquote_plus(raw, encoding="utf-8", errors="replace"))
    if length > limit:
        raise BadQuery(
            f"query string is {length} characters long; the limit is {limit}",
            {"length": length, "max_query_chars": limit},
        )


GlossaryDep = Annotated[Glossary, Depends(get_glossary)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
