"""Schemas of the cards resource: ``GET /v1/terms/{id}/card`` (a tooltip's content)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from api.schemas.annotate import DefinitionSentence
from api.schemas.common import Lang
from kg.annotate import TermCard


class ConfusedOut(BaseModel):
    """A term the sources say is confused with this one, in their words."""

    id: str = Field(examples=["time-per-output-token"])
    label: str = Field(examples=["TPOT"])
    labels: dict[str, str]
    evidence: str = Field(description="The source's own words.", examples=["TTFT 和 TPOT 常被混用…"])
    source: str = Field(description="Source glossary id of the evidence.", examples=["002"])
    url: str = Field(examples=["/terms/time-per-output-token"])


class CardOut(BaseModel):
    """A small bilingual card for a tooltip."""

    id: str = Field(examples=["time-to-first-token"])
    lang: Lang
    label: str = Field(description="Label in `lang`.", examples=["首 token 延迟"])
    labels: dict[str, str] = Field(examples=[{"en": "Time to first token", "zh": "首 token 延迟"}])
    abbreviations: list[str] = Field(examples=[["TTFT"]])
    categories: list[str] = Field(examples=[["metrics"]])
    definition: DefinitionSentence | None = Field(
        description="One sentence, in `lang` when a source gives one."
    )
    url: str = Field(examples=["/terms/time-to-first-token"])
    confused_with_heading: str = Field(
        description="The heading of the warning, in both languages.",
        examples=["易混淆 / often confused with"],
    )
    confused_with: list[ConfusedOut]

    @classmethod
    def of(cls, card: TermCard, heading: str) -> CardOut:
        d = card.to_dict()
        d["definition"] = DefinitionSentence.of(card.definition)
        d["confused_with_heading"] = heading
        return cls.model_validate(d)
