"""Schemas of the terms resource."""

from __future__ import annotations

from pydantic import BaseModel, Field

from api.schemas.common import DefinitionOut, TermSummary


class TermPage(BaseModel):
    total: int = Field(ge=0, description="Terms matching the filters.", examples=[427])
    limit: int = Field(ge=1, le=200, examples=[50])
    offset: int = Field(ge=0, examples=[0])
    items: list[TermSummary]


class EdgeCounts(BaseModel):
    related_to: int = Field(ge=0, examples=[4])
    confused_with: int = Field(ge=0, examples=[1])


class TermDetail(TermSummary):
    """A full node of the graph."""

    aliases: list[str] = Field(default_factory=list, examples=[["首 token 时间"]])
    definitions: list[DefinitionOut]
    entries: list[str] = Field(default_factory=list, description="Source entries merged into this term.")
    edge_counts: EdgeCounts
