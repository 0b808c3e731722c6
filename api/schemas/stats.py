"""Schemas of the stats resource."""

from __future__ import annotations

from pydantic import BaseModel, Field


class Stats(BaseModel):
    terms: int = Field(ge=0, examples=[427])
    edges: int = Field(ge=0, examples=[1246])
    mentioned_terms: int = Field(
        default=0,
        ge=0,
        description="Of `terms`, the names definitions only mention (`kind: mentioned`).",
        examples=[64],
    )
    terms_by_source: dict[str, int] = Field(
        description="Terms per source glossary id.", examples=[{"002": 200}]
    )
    terms_by_category: dict[str, int] = Field(
        description="Terms per category id.", examples=[{"metrics": 30}]
    )
    edges_by_type: dict[str, int] = Field(examples=[{"related_to": 1000, "confused_with": 246}])
    edges_by_source: dict[str, int] = Field(description="Edges per source glossary id of their evidence.")
