"""Term cards: what a tooltip shows for a term, in both languages.

A card holds the term's labels in Chinese and English, its abbreviations, one sentence of its
definition (in the reader's language when a source gives one) with the source it comes from,
and the terms the sources say it is confused with ("易混淆 / often confused with"), each with the
sources' own words. :func:`kg.annotate.render.render_card_html` renders it as an HTML fragment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from kg.model import Term
from kg.store import Glossary

_SENTENCE_END = re.compile(r"(?<=[。！？!?])|(?<=[.;；])(?=\s|$)")
_NOT_AN_END = re.compile(r"(?:\be\.g|\bi\.e|\bvs|\betc|\bcf|\d)\.$", re.I)


@dataclass(frozen=True)
class DefinitionRef:
    """One sentence of a term's definition, and where it comes from."""

    text: str
    lang: str
    source: str
    source_title: str | None = None
    line: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "lang": self.lang,
            "source": self.source,
            "source_title": self.source_title,
            "line": self.line,
        }


@dataclass(frozen=True)
class ConfusedRef:
    """A term the sources say is confused with the card's term, with their words."""

    id: str
    label: str
    labels: dict[str, str]
    evidence: str
    source: str
    url: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "label": self.label,
            "labels": dict(self.labels),
            "evidence": self.evidence,
            "source": self.source,
            "url": self.url,
        }


@dataclass(frozen=True)
class TermCard:
    """A small bilingual card for a tooltip (see the module)."""

    id: str
    lang: str
    label: str
    labels: dict[str, str]
    abbreviations: list[str]
    categories: list[str]
    definition: DefinitionRef | None
    url: str
    confused_with: list[ConfusedRef] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "lang": self.lang,
            "label": self.label,
            "labels": dict(self.labels),
            "abbreviations": list(self.abbreviations),
            "categories": list(self.categories),
            "definition": self.definition.to_dict() if self.definition else None,
            "url": self.url,
            "confused_with": [c.to_dict() for c in self.confused_with],
        }


def first_sentence(text: str, limit: int = 240) -> str:
    """The first sentence of *text* (at most *limit* characters, cut at a word, with "…")."""
    text = " ".join(text.split())
    sentence = text
    for m in _SENTENCE_END.finditer(text, 1):
        if m.start() >= len(text):
            break
        if text[m.start() - 1] == "." and _NOT_AN_END.search(text[: m.start()]):
            continue
        sentence = text[: m.start()].strip()
        break
    if len(sentence) > limit:
        head = sentence[:limit]
        cut = head.rsplit(" ", 1)[0] if " " in head[limit // 2 :] else head
        sentence = cut.rstrip(",;:，；：、 ") + "…"
    return sentence


def definition_of(glossary: Glossary, term: Term, lang: str) -> DefinitionRef | None:
    """One sentence of the term's first definition in *lang* (else in the other language), with
    its source; None for a term no source defines."""
    defs = [d for d in term.definitions if d.lang == lang] or list(term.definitions)
    if not defs:
        return None
    d = defs[0]
    title = (glossary.sources.get(d.source) or {}).get("title")
    return DefinitionRef(first_sentence(d.text), d.lang, d.source, title, d.line)


def term_url(term_id: str, base_url: str = "", template: str = "{base}/terms/{id}") -> str:
    """The link of a term: *template* with ``{base}`` and the URL-quoted ``{id}``."""
    return template.format(base=base_url.rstrip("/"), id=quote(term_id, safe=""))


def term_card(
    glossary: Glossary,
    term_id: str,
    lang: str = "en",
    *,
    base_url: str = "",
    url_template: str = "{base}/terms/{id}",
) -> TermCard:
    """The card of a term; :class:`kg.errors.TermNotFound` for an unknown id."""
    term = glossary.get(term_id)
    confused = []
    for e in glossary.confusables(term.id):
        other = glossary.terms[e.target if e.source == term.id else e.source]
        own = e.stated_by(term.id) or e
        confused.append(
            ConfusedRef(
                id=other.id,
                label=other.label(lang),
                labels=dict(other.labels),
                evidence=first_sentence(own.evidence, 200),
                source=own.doc,
                url=term_url(other.id, base_url, url_template),
            )
        )
    return TermCard(
        id=term.id,
        lang=lang,
        label=term.label(lang),
        labels=dict(term.labels),
        abbreviations=list(term.abbreviations),
        categories=list(term.categories),
        definition=definition_of(glossary, term, lang),
        url=term_url(term.id, base_url, url_template),
        confused_with=confused,
    )
