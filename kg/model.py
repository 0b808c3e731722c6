"""Data classes of the term graph: what parsers emit and what the graph holds.

Parsers produce :class:`RawEntry` and :class:`ConfusionGroup` values (pure data
with provenance); :mod:`kg.build` merges them into :class:`Term` nodes and
:class:`Edge` values. Everything here is plain data with ``to_dict`` helpers so
that the artifact and every export are derived from one shape.
"""

from __future__ import annotations

import sys
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, cast

Lang = Literal["en", "zh"]
EdgeType = Literal["related_to", "confused_with"]
EDGE_TYPES: tuple[str, ...] = ("related_to", "confused_with")
NameOrigin = Literal["source", "rule", "editorial"]
#: Preference among names of equal standing: the sources' own words first.
NAME_ORIGINS: tuple[str, ...] = ("source", "rule", "editorial")


@dataclass(frozen=True)
class Name:
    """One surface name of an entry.

    ``kind`` is ``label`` (the entry's own name in that language), ``abbr`` (an
    abbreviation such as TTFT), or ``alias`` (a secondary name the source gives:
    "也叫 tool use", the second half of "连续批处理 / 动态批处理"). Labels and
    abbreviations may merge entries; aliases never do (see :mod:`kg.merge`).

    ``origin`` says who gave the name: ``source`` (the parser read it as the entry's
    name), ``rule`` (a name rule of :mod:`kg.names` read it elsewhere in the sources'
    text) or ``editorial`` (a decision of ``corpus/overlay.json`` whose words the entry's
    own text does not contain).
    """

    text: str
    lang: Lang
    kind: Literal["label", "abbr", "alias"]
    origin: NameOrigin = "source"


@dataclass(frozen=True)
class AliasStatement:
    """A source saying this entry is another name of ``target`` ("即 TPOT 的别称")."""

    target: str
    relation: Literal["same", "see"]
    evidence: str


@dataclass(frozen=True)
class Mention:
    """A relation or contrast the entry's own text states about another name."""

    target: str
    kind: Literal["related_to", "confused_with"]
    origin: str  # e.g. "xref", "contrast", "equivalent"
    evidence: str
    # Where an imported file states it (kg/imports), for errors: its line (0: the entry's) and
    # the column or element ("column 'related'", "<ref>").
    line: int = 0
    where: str = ""


@dataclass
class RawEntry:
    """One glossary entry as a parser read it, before any merging."""

    source: str
    line: int
    section: str | None
    names: list[Name]
    definition: str | None
    note: str | None = None
    alias_of: AliasStatement | None = None
    mentions: list[Mention] = field(default_factory=list)
    # Set when the entry names no term (000's "这个指标衡量…"): only the overlay
    # or explicit text evidence may give it a home.
    unnamed: bool = False
    # Several terms defined by one line (002 "SLA / SLO"): ids of the siblings'
    # first names, so the builder can link them.
    group: tuple[str, ...] = ()
    # Site page titles the entry points to ("详见X"); linked only when X is a term.
    see_also: list[str] = field(default_factory=list)
    # A disambiguating qualifier the source puts on the name ("Sampling (decode)").
    qualifier: str | None = None
    # Index of the overlay decision that shaped this entry, if any.
    overlay: int | None = None
    raw: str = ""
    # The source an imported file names for the definition (its `source` column, TBX
    # <admin type="source">): the definition's source in the graph instead of the file's id.
    cites: str | None = None

    @property
    def key(self) -> str:
        """Stable reference of the entry inside its source: ``source:line[:n]``."""
        first = self.names[0].text if self.names else "?"
        return f"{self.source}:{self.line}:{first}"

    def first_name(self, lang: str | None = None, kinds: tuple[str, ...] = ("label", "abbr")) -> str | None:
        for n in self.names:
            if n.kind in kinds and (lang is None or n.lang == lang):
                return n.text
        return None


@dataclass(frozen=True)
class ConfusionGroup:
    """Terms a source says people mix up (002 易混淆辨析, "两个 Triton 不要混")."""

    source: str
    line: int
    members: tuple[str, ...]
    evidence: str
    origin: str = "confusables-section"


@dataclass(frozen=True)
class ParseIssue:
    """A line the parser skipped on purpose (noise) — reported, never indexed."""

    source: str
    line: int
    reason: str
    text: str


@dataclass
class ParsedSource:
    """Everything one parser read from one file."""

    source: str
    entries: list[RawEntry]
    confusions: list[ConfusionGroup] = field(default_factory=list)
    skipped: list[ParseIssue] = field(default_factory=list)
    # What the build should tell the user about the file (kept, unlike skipped lines).
    warnings: list[ParseIssue] = field(default_factory=list)


@dataclass(slots=True)
class Definition:
    """One source's definition of a term, with provenance."""

    lang: Lang
    text: str
    source: str
    section: str | None
    line: int
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


NodeKind = Literal["defined", "mentioned"]
NODE_KINDS: tuple[str, ...] = ("defined", "mentioned")


@dataclass(frozen=True)
class MentionSite:
    """A sentence of the sources that mentions a name (the evidence of a mentioned-only node).

    ``term`` is the defined term whose definition or note holds the sentence (None for a
    confusables paragraph)."""

    source: str
    line: int
    sentence: str
    term: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class Term:
    """A node of the graph: one concept.

    ``kind`` is ``defined`` (a source defines it) or ``mentioned`` (definitions only mention it,
    :mod:`kg.mentioned`): a mentioned node has no definitions, only ``mentioned_in``.
    """

    id: str
    labels: dict[str, str]
    aliases: list[str]
    abbreviations: list[str]
    definitions: list[Definition]
    categories: list[str]
    sources: list[str]
    entry_keys: list[str] = field(default_factory=list)
    # True when no source files the term under a section and its topic was inferred
    # from the terms it names (kg.categories.infer_categories).
    categories_inferred: bool = False
    # Who gave each label (lang -> one of NAME_ORIGINS); see Name.origin.
    label_origin: dict[str, str] = field(default_factory=dict)
    # Names (labels, abbreviations, aliases) only an editorial decision gives.
    editorial_names: list[str] = field(default_factory=list)
    # The vote behind an inferred category (or behind none, when the margin was too small):
    # {"votes": {topic: score}, "margin": m, "min_margin": t}; None for a section's category.
    category_inference: dict[str, Any] | None = None
    kind: NodeKind = "defined"
    mentioned_in: list[MentionSite] = field(default_factory=list)

    @property
    def defined(self) -> bool:
        """True for a term some source defines (not a mentioned-only node)."""
        return self.kind == "defined"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "kind": self.kind,
            "labels": dict(self.labels),
            "aliases": list(self.aliases),
            "abbreviations": list(self.abbreviations),
            "definitions": [d.to_dict() for d in self.definitions],
            "categories": list(self.categories),
            "categories_inferred": self.categories_inferred,
            "category_inference": self.category_inference,
            "label_origin": dict(self.label_origin),
            "editorial_names": list(self.editorial_names),
            "sources": list(self.sources),
            "entries": list(self.entry_keys),
        }
        if self.mentioned_in:
            out["mentioned_in"] = [m.to_dict() for m in self.mentioned_in]
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Term:
        # Values that repeat across terms (source ids, categories, languages, sections) are
        # interned: a JSON parser makes one string per occurrence (~50 MB at 100k terms).
        return cls(
            id=d["id"],
            labels=dict(d["labels"]),
            aliases=list(d.get("aliases", [])),
            abbreviations=list(d.get("abbreviations", [])),
            definitions=[_interned_definition(x) for x in d.get("definitions", [])],
            categories=[_intern(c) for c in d.get("categories", [])],
            sources=[_intern(x) for x in d.get("sources", [])],
            entry_keys=list(d.get("entries", [])),
            categories_inferred=bool(d.get("categories_inferred", False)),
            label_origin={k: _intern(v) for k, v in (d.get("label_origin") or {}).items()},
            editorial_names=list(d.get("editorial_names") or []),
            category_inference=d.get("category_inference"),
            kind=_node_kind(_intern(d.get("kind", "defined"))),
            mentioned_in=[MentionSite(**m) for m in d.get("mentioned_in", [])],
        )

    def all_names(self) -> list[str]:
        """Labels, abbreviations and aliases, preferred labels first, no duplicates."""
        seen: dict[str, None] = {}
        for n in [self.labels.get("en"), self.labels.get("zh"), *self.abbreviations, *self.aliases]:
            if n and n not in seen:
                seen[n] = None
        return list(seen)

    def label(self, lang: str = "en") -> str:
        """Preferred label in *lang*, falling back to the other language."""
        other = "zh" if lang == "en" else "en"
        return self.labels.get(lang) or self.labels.get(other) or self.id


@dataclass(frozen=True)
class Evidence:
    """One place a source states an edge: the words, the rule that read them, and where.

    ``subject`` is the term whose own text says it (a ``related_to`` edge read from both
    terms' definitions has one item per side).
    """

    text: str
    origin: str
    doc: str
    line: int
    subject: str = ""


def _intern(value: Any) -> Any:
    return sys.intern(value) if type(value) is str else value


def _interned_definition(raw: dict[str, Any]) -> Definition:
    d = Definition(**raw)
    d.lang, d.source, d.section = _intern(d.lang), _intern(d.source), _intern(d.section)
    return d


def _node_kind(value: Any) -> NodeKind:
    if value not in NODE_KINDS:
        raise ValueError(f"unknown node kind {value!r} (expected one of {', '.join(NODE_KINDS)})")
    return cast(NodeKind, value)


@dataclass
class Edge:
    """A typed edge, one per (pair, type). ``confused_with`` is symmetric and stored with
    ``source < target``; ``related_to`` keeps the direction of its first evidence (``source``
    is the term whose text mentions ``target``). ``evidence``/``origin``/``doc``/``line`` are
    the first (strongest) item of ``items``, which lists every distinct place stating it."""

    source: str
    target: str
    type: str
    evidence: str
    origin: str
    doc: str  # source glossary id the evidence comes from
    line: int
    items: list[Evidence] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.items:
            self.items = [Evidence(self.evidence, self.origin, self.doc, self.line, self.source)]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def stated_by(self, term_id: str) -> Edge | None:
        """This edge headed by the first statement in *term_id*'s own text, or None.

        A ``related_to`` edge keeps that side as its ``source``.
        """
        item = next((x for x in self.items if x.subject == term_id), None)
        if item is None:
            return None
        headed = self.headed_by(item)
        if self.type == "related_to" and term_id == self.target:
            headed.source, headed.target = self.target, self.source
        return headed

    def headed_by(self, item: Evidence) -> Edge:
        """This edge with *item* (one of its ``items``) as its first evidence, so that a quote of
        it cites the item's own words, source and line."""
        rest = [x for x in self.items if x is not item]
        return Edge(
            self.source, self.target, self.type, item.text, item.origin, item.doc, item.line, [item, *rest]
        )

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Edge:
        items = [Evidence(**x) for x in d.get("items", [])]
        return cls(
            d["source"], d["target"], d["type"], d["evidence"], d["origin"], d["doc"], d["line"], items
        )
