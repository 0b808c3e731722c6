"""Schemas shared by several resources: errors, term references, definitions, edges."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from kg.model import Edge, Term

Lang = Literal["en", "zh"]

MAX_OFFSET = 10_000
"""The one cap of every ``offset`` query parameter (pagination past it is refused with 422)."""
EdgeTypeName = Literal["related_to", "confused_with"]


class ErrorDetail(BaseModel):
    code: str = Field(description="Machine-readable error code.", examples=["term_not_found"])
    message: str = Field(description="Human-readable explanation.", examples=["no term matches 'vlm'"])
    details: dict[str, Any] = Field(
        default_factory=dict,
        description="Structured context, e.g. `suggestions` for an unknown term.",
        examples=[{"query": "vlm", "suggestions": ["vllm"]}],
    )


class ErrorResponse(BaseModel):
    """The one error body of the API."""

    error: ErrorDetail


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorResponse, "description": "Unknown term (with suggestions)."},
    422: {"model": ErrorResponse, "description": "Invalid parameters."},
    503: {"model": ErrorResponse, "description": "Artifact not loaded."},
}
#: Routes with a term id in their path: a former id of a term is redirected.
TERM_PATH_RESPONSES: dict[int | str, dict[str, Any]] = {
    301: {
        "model": ErrorResponse,
        "description": "A former id of a term: `Location` is the same URL with its current id.",
    },
    **ERROR_RESPONSES,
}


class TermRef(BaseModel):
    """A term by id, with its labels."""

    id: str = Field(description="Stable term id (slug).", examples=["time-to-first-token"])
    label: str = Field(
        description="Preferred label in the requested language.", examples=["Time to first token"]
    )
    labels: dict[str, str] = Field(
        description="Preferred label per language.",
        examples=[{"en": "Time to first token", "zh": "首 token 延迟"}],
    )

    @classmethod
    def of(cls, term: Term, lang: str | None = None) -> TermRef:
        return cls(id=term.id, label=term.label(lang or "en"), labels=dict(term.labels))


def term_fields(term: Term, lang: str | None = None) -> dict[str, Any]:
    """The fields every term view shares (ref + abbreviations + categories)."""
    return {
        "id": term.id,
        "label": term.label(lang or "en"),
        "labels": dict(term.labels),
        "abbreviations": list(term.abbreviations),
        "categories": list(term.categories),
        "label_origin": {lang: term.label_origin.get(lang, "source") for lang in term.labels},
        "editorial_names": list(term.editorial_names),
    }


NodeKindName = Literal["defined", "mentioned"]


class TermSummary(TermRef):
    label_origin: dict[str, str] = Field(
        default_factory=dict,
        description=(
            "Who gave each label: `source`, `rule` (read from the sources' text) or `editorial` "
            "(a decision of corpus/overlay.json: no source names the term so in that language)."
        ),
        examples=[{"en": "editorial", "zh": "source"}],
    )
    editorial_names: list[str] = Field(
        default_factory=list,
        description="Every name of the term (label, abbreviation, alias) that only an editorial decision gives.",
        examples=[["Data parallelism", "DP"]],
    )
    abbreviations: list[str] = Field(default_factory=list, examples=[["TTFT"]])
    categories: list[str] = Field(default_factory=list, description="Category ids.", examples=[["metrics"]])
    sources: list[str] = Field(
        default_factory=list, description="Source glossary ids.", examples=[["001", "002"]]
    )
    kind: NodeKindName = Field(
        default="defined",
        description="`defined` (a source defines it) or `mentioned` (definitions only mention it: "
        "no definition of its own, see `mentioned_in` of the full node).",
        examples=["defined"],
    )

    @classmethod
    def of(cls, term: Term, lang: str | None = None) -> TermSummary:
        return cls(**term_fields(term, lang), sources=list(term.sources), kind=term.kind)


class DefinitionOut(BaseModel):
    """One source's definition, with where it comes from."""

    lang: Lang
    text: str = Field(examples=["从请求发出到收到第一个 token 的时间。"])
    source: str = Field(description="Source glossary id.", examples=["002"])
    section: str | None = Field(default=None, examples=["性能与指标"])
    line: int = Field(ge=0, description="Line in the source file.", examples=[19])
    note: str | None = None


class EdgeOut(BaseModel):
    """A typed edge with the sources' evidence."""

    source: str = Field(examples=["time-to-first-token"])
    target: str = Field(examples=["prefill"])
    type: EdgeTypeName
    evidence: str = Field(description="The source's own words.", examples=["对应 prefill 阶段"])
    origin: str = Field(description="How the edge was found.", examples=["mention"])
    doc: str = Field(description="Source glossary id of the evidence.", examples=["002"])
    line: int = Field(ge=0, examples=[19])

    @classmethod
    def of(cls, edge: Edge) -> EdgeOut:
        return cls.model_validate(edge.to_dict())
