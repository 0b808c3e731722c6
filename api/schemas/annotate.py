"""Schemas of the annotate resource: ``POST /v1/annotate`` (request and response)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from api.schemas.common import Lang
from kg.annotate import AnnotateOptions, Annotation, Mention
from kg.annotate.card import DefinitionRef
from kg.annotate.options import DEFAULT_URL_TEMPLATE, check_url_template

#: Longest page accepted (characters); the body limit (`max_annotate_body_bytes`, 1 MiB) binds first
#: for most pages.
MAX_TEXT_CHARS = 1_000_000
MAX_FILTER_ITEMS = 200

FilterItem = Annotated[str, StringConstraints(min_length=1, max_length=200)]


class AnnotateRequest(BaseModel):
    """A page to annotate and how."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(
        max_length=MAX_TEXT_CHARS,
        description="The page: plain text, Markdown or HTML, in Chinese, English or both.",
        examples=["vLLM's PagedAttention keeps the KV cache in fixed-size blocks."],
    )
    format: Literal["text", "markdown", "html"] = Field(
        default="text",
        description="How to read `text`. Markdown and HTML: code, links, tags and their attributes, "
        "`<script>`/`<style>`, comments (and headings, unless `skip_headings` is false) are never annotated.",
    )
    lang: Lang | None = Field(
        default=None,
        description="The page's language (labels and definitions in it); default: from its script.",
    )
    occurrences: Literal["all", "first", "first-per-section"] = Field(
        default="all", description="Every mention, the first of each term in the page, or in each section."
    )
    skip_headings: bool = Field(default=True, description="Never annotate inside headings.")
    include_categories: list[FilterItem] = Field(
        default_factory=list, max_length=MAX_FILTER_ITEMS, description="Only terms of these categories."
    )
    exclude_categories: list[FilterItem] = Field(
        default_factory=list, max_length=MAX_FILTER_ITEMS, description="No terms of these categories."
    )
    include_ids: list[FilterItem] = Field(
        default_factory=list, max_length=MAX_FILTER_ITEMS, description="Only these terms."
    )
    exclude_ids: list[FilterItem] = Field(
        default_factory=list, max_length=MAX_FILTER_ITEMS, description="Never these terms."
    )
    include_mentioned: bool = Field(
        default=False, description="Also terms the sources only mention (no definition of their own)."
    )
    context: bool = Field(
        default=True,
        description="Everyday words (`token`, `node`, `EP`, `节点`) only where their context supports "
        "the glossary sense; false annotates every match.",
    )
    base_url: str = Field(
        default="",
        max_length=500,
        description="Fills `{base}` of `url_template`.",
        examples=["https://docs.example.com"],
    )
    url_template: str = Field(
        default=DEFAULT_URL_TEMPLATE,
        max_length=500,
        description="Link of a term: `{base}` and `{id}` (URL-quoted) are filled in; no other placeholder.",
    )
    output: Literal["spans", "html"] = Field(
        default="spans",
        description="`spans` only, or also `html`: the page with its mentions marked up (a text page "
        "comes back as escaped HTML, a Markdown page as Markdown with inline HTML).",
    )
    markup: Literal["link", "abbr"] = Field(
        default="link",
        description='With `output: html`: `<a class="gkg-term" href=… data-term=…>` or `<abbr title=…>`.',
    )

    @field_validator("url_template")
    @classmethod
    def _template(cls, value: str) -> str:
        return check_url_template(value)

    def options(self) -> AnnotateOptions:
        return AnnotateOptions(
            format=self.format,
            lang=self.lang,
            occurrences=self.occurrences,
            skip_headings=self.skip_headings,
            include_categories=tuple(self.include_categories),
            exclude_categories=tuple(self.exclude_categories),
            include_ids=tuple(self.include_ids),
            exclude_ids=tuple(self.exclude_ids),
            include_mentioned=self.include_mentioned,
            context=self.context,
            base_url=self.base_url,
            url_template=self.url_template,
        )


class DefinitionSentence(BaseModel):
    """One sentence of a term's definition, and where it comes from."""

    text: str = Field(examples=["从请求发出到收到第一个 token 的时间。"])
    lang: Lang
    source: str = Field(description="Source glossary id.", examples=["002"])
    source_title: str | None = Field(default=None, description="Title of the source glossary.")
    line: int | None = Field(default=None, ge=0, description="Line of the definition in the source file.")

    @classmethod
    def of(cls, d: DefinitionRef | None) -> DefinitionSentence | None:
        return None if d is None else cls.model_validate(d.to_dict())


class MentionOut(BaseModel):
    """A term named in the page: `text == page[start:end]` (offsets in characters of the page as sent)."""

    start: int = Field(ge=0, examples=[0])
    end: int = Field(ge=0, examples=[6])
    text: str = Field(examples=["vLLM's"])
    term_id: str = Field(examples=["vllm"])
    name: str = Field(description="The glossary name that matched.", examples=["vLLM"])
    match: str = Field(description="label | abbreviation | alias", examples=["label"])
    label: str = Field(description="The term's label in the page's language.", examples=["vLLM"])
    labels: dict[str, str] = Field(examples=[{"en": "vLLM"}])
    definition: DefinitionSentence | None
    url: str = Field(examples=["/terms/vllm"])
    section: int = Field(ge=0, description="Index of the section (a heading starts one).")
    ambiguous: bool = Field(description="The context did not decide between same-named terms.")
    candidates: list[str] = Field(description="The other terms the same words may mean.")

    @classmethod
    def of(cls, m: Mention) -> MentionOut:
        d = m.to_dict()
        d["definition"] = DefinitionSentence.of(m.definition)
        return cls.model_validate(d)


class AnnotateResponse(BaseModel):
    lang: Lang = Field(description="The page's language, as given or as read from its script.")
    format: Literal["text", "markdown", "html"]
    count: int = Field(ge=0, description="Mentions found.")
    terms: list[str] = Field(description="Ids of the terms mentioned, in order of first mention.")
    mentions: list[MentionOut]
    html: str | None = Field(default=None, description="With `output: html`: the page, marked up.")

    @classmethod
    def of(cls, annotation: Annotation, html: str | None = None) -> AnnotateResponse:
        return cls(
            lang=annotation.lang,  # type: ignore[arg-type]
            format=annotation.format,  # type: ignore[arg-type]
            count=len(annotation.mentions),
            terms=annotation.term_ids,
            mentions=[MentionOut.of(m) for m in annotation.mentions],
            html=html,
        )
