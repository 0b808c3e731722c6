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


class MentionOut(BaseModel):
    """A sentence of the sources that mentions a name the glossary does not define."""

    source: str = Field(description="Source glossary id.", examples=["002"])
    line: int = Field(ge=0, description="Line of the entry in the source file.", examples=[80])
    sentence: str = Field(
        description="The sentence, verbatim.",
        examples=["PyTorch 2.0 起的 JIT 编译入口，底层走 TorchDynamo + Inductor。"],
    )
    term: str | None = Field(
        default=None,
        description="The defined term whose entry holds the sentence.",
        examples=["torch-compile"],
    )


class TermDetail(TermSummary):
    """A full node of the graph."""

    aliases: list[str] = Field(default_factory=list, examples=[["首 token 时间"]])
    definitions: list[DefinitionOut]
    entries: list[str] = Field(default_factory=list, description="Source entries merged into this term.")
    edge_counts: EdgeCounts
    note: str | None = Field(
        default=None,
        description="For a `mentioned` node: that it is not defined in the glossary, and how often it is mentioned.",
        examples=[None],
    )
    mentioned_in: list[MentionOut] = Field(
        default_factory=list, description="For a `mentioned` node: the sentences that mention it."
    )
