"""Schemas of the graph resource (edges of a term, neighbourhoods, paths, subgraphs)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from api.schemas.common import EdgeOut, EdgeTypeName, TermRef, TermSummary


class TermEdge(BaseModel):
    """An edge seen from one term: the other end, and the sources' evidence."""

    type: EdgeTypeName
    direction: Literal["out", "in", "both"] = Field(
        description="`out`: this term's text mentions the other; `in`: the reverse; `both`: symmetric."
    )
    other: TermRef
    evidence: str = Field(examples=["两个 Triton 不要混：…"])
    origin: str = Field(examples=["callout"])
    doc: str = Field(description="Source glossary id.", examples=["002"])
    line: int = Field(ge=0, examples=[70])


class TermEdges(BaseModel):
    term: TermRef
    edges: list[TermEdge]


class Neighbor(TermRef):
    distance: int = Field(ge=1, le=3, examples=[1])


class Neighbors(BaseModel):
    term: TermRef
    depth: int = Field(ge=1, le=3)
    types: list[EdgeTypeName]
    neighbors: list[Neighbor]


class GraphPath(BaseModel):
    from_id: str = Field(examples=["vllm"])
    to_id: str = Field(examples=["time-to-first-token"])
    length: int = Field(ge=0, description="Number of hops.", examples=[2])
    ids: list[str] = Field(examples=[["vllm", "prefix-caching", "time-to-first-token"]])
    terms: list[TermRef]
    edges: list[EdgeOut] = Field(description="Edges between consecutive terms of the path.")


class Subgraph(BaseModel):
    nodes: list[TermSummary]
    edges: list[EdgeOut]
