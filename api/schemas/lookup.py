"""Schemas of the lookup resource."""

from __future__ import annotations

from pydantic import BaseModel, Field

from api.schemas.common import TermRef, TermSummary


class LookupCandidate(TermRef):
    name: str = Field(description="The name that matched.", examples=["TTFT"])
    match: str = Field(
        description="preferred-label | label | abbreviation | alias, optionally '(loose)'; joint for each "
        'part of a jointly stated heading ("AOT 与 JIT").',
        examples=["abbreviation"],
    )


class LookupResult(BaseModel):
    query: str = Field(examples=["ttft"])
    id: str = Field(description="Id of the best hit.", examples=["time-to-first-token"])
    name: str = Field(description="The name of the best hit that matched.", examples=["TTFT"])
    match: str = Field(description="How the best hit matched.", examples=["abbreviation"])
    term: TermSummary
    candidates: list[LookupCandidate] = Field(default_factory=list, description="Other hits, best first.")
