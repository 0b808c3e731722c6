"""Schemas of the compare resource."""

from __future__ import annotations

from pydantic import BaseModel, Field

from api.schemas.common import DefinitionOut, EdgeOut, TermRef


class CompareSide(TermRef):
    abbreviations: list[str] = Field(default_factory=list)
    aliases: list[str] = Field(default_factory=list)
    categories: list[str] = Field(default_factory=list)
    definitions: list[DefinitionOut]


class Difference(BaseModel):
    """What a source says tells the two terms apart, in its own words."""

    evidence: str = Field(examples=["vLLM / TensorRT-LLM / SGLang / TGI：四者都是 LLM 推理引擎，定位不同：…"])
    origin: str = Field(examples=["confusables-section"])
    doc: str = Field(examples=["002"])
    line: int = Field(ge=0, examples=[134])


class Comparison(BaseModel):
    a: CompareSide
    b: CompareSide
    shared_neighbors: list[TermRef] = Field(description="Terms adjacent to both (any edge type).")
    direct_edges: list[EdgeOut] = Field(description="Edges between the two terms.")
    differences: list[Difference] = Field(description="Evidence of confused_with edges between them.")
