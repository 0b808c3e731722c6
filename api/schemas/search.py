"""Schemas of the search and suggest resources."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

SearchModeName = Literal["hybrid", "semantic", "lexical"]
NameKind = Literal["label", "abbr", "alias"]


class SuggestItem(BaseModel):
    """A term whose name starts with (or has a word starting with) the typed prefix."""

    id: str = Field(description="Term id.", examples=["tensor-parallelism"])
    name: str = Field(description="The name that matched the prefix.", examples=["张量并行"])
    kind: NameKind = Field(description="What kind of name matched.", examples=["label"])
    method: Literal["exact", "prefix", "infix"] = Field(
        description="`exact`: the whole name; `prefix`: the name starts with it; `infix`: a later word does.",
        examples=["prefix"],
    )
    label: str = Field(description="Preferred label in the requested language.", examples=["张量并行"])
    labels: dict[str, str] = Field(
        description="Preferred label per language.", examples=[{"en": "Tensor parallelism", "zh": "张量并行"}]
    )


class SuggestResult(BaseModel):
    query: str = Field(examples=["张量"])
    items: list[SuggestItem] = Field(description="Best first; empty for an empty prefix.")


class SearchExplain(BaseModel):
    """How each stage ranked the hit (the fused score is the sum of `components`)."""

    components: dict[str, float] = Field(
        description="Contribution of each stage (exact, near_exact, mention, fuzzy, lexical, dense).",
        examples=[{"exact": 1.0, "lexical": 0.05, "dense": 0.5}],
    )
    ranks: dict[str, int] = Field(
        description="Rank of the term in each stage (1 = best).", examples=[{"lexical": 1, "dense": 1}]
    )
    passage: str | None = Field(
        description="Best passage of the dense stage (`term#defN`).", examples=["tensor-parallelism#def0"]
    )


class SearchHitOut(BaseModel):
    id: str = Field(description="Term id.", examples=["tensor-parallelism"])
    label: str = Field(description="Preferred label in the result language.", examples=["张量并行"])
    labels: dict[str, str] = Field(examples=[{"en": "Tensor parallelism", "zh": "张量并行"}])
    score: float = Field(description="Fused score (reciprocal-rank fusion).", examples=[1.4])
    snippet: str | None = Field(
        description="The best definition for the hit, trimmed to about 160 characters.",
        examples=["把单个层的权重矩阵切分到多张 GPU 上并行计算…"],
    )
    categories: list[str] = Field(description="Category ids.", examples=[["parallelism"]])
    matched: str | None = Field(
        description="The name the label stages matched, if any.", examples=["张量并行"]
    )
    explain: SearchExplain | None = Field(default=None, description="Only with `explain=true`.")


class SearchPage(BaseModel):
    query: str = Field(examples=["張量並行"])
    mode: SearchModeName = Field(examples=["hybrid"])
    total: int = Field(ge=0, description="Terms matching the query (all pages).", examples=[37])
    offset: int = Field(ge=0, examples=[0])
    limit: int = Field(ge=1, le=50, examples=[10])
    truncated: bool = Field(description="The query was cut to the engine's maximum length.", examples=[False])
    reason: str | None = Field(
        description="Why there are no results (empty query, no match, no vector index).", examples=[None]
    )
    took_ms: float = Field(ge=0, description="Time spent in the search engine.", examples=[12.5])
    results: list[SearchHitOut]
