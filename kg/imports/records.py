"""The shape every importer reads a file into, and how it becomes the builder's raw entries.

An importer reads one file into :class:`Record` values, one per entry (a CSV row, a TBX
``conceptEntry``, a SKOS concept, a Markdown or Sphinx glossary item), with explicit names,
definitions, categories and stated relations, each with the line it is on. :func:`to_parsed`
checks what every format shares and turns the records into :class:`~kg.model.RawEntry` values,
so that imported entries go through the same merge, relation and overlay steps as the seed
layouts:

- every entry has a name; no id, and no label or abbreviation (compared by
  :func:`kg.textnorm.name_key`), is given to two entries of one file: they would silently become
  one term;
- a relation target that is an id of the file becomes that entry's first name; any other target
  is a name, resolved against the whole corpus when the graph is built (:mod:`kg.imports.resolve`);
- an entry with several definitions (or categories) becomes one raw entry per definition, all
  with the same names, so the merger joins them again;
- a name keeps the origin the file gives it (our exports' label origins and editorial names:
  ``source``, ``rule`` or ``editorial``), so an imported export says who gave its names as the
  original graph did;
- an entry the file marks as *mentioned only* (our exports' ``kind: mentioned``, a name the
  definitions only mention, :mod:`kg.mentioned`) is not an entry: the build finds those names
  in the definitions itself, with the rules' edges to them. It is reported in ``skipped``, and
  so is each relation the file states to or from it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from kg.ids import base_id
from kg.model import NAME_ORIGINS, Mention, Name, NameOrigin, ParsedSource, ParseIssue, RawEntry, Term
from kg.parsers.common import SourceError, is_abbreviation, is_acronym_of, promote_labels
from kg.textnorm import clean, fold, lang_of, name_key

STRONG = ("label", "abbr")
#: Longest name accepted, in characters (the longest bundled one has 40): a longer "name" is
#: nearly always a definition in the wrong column.
MAX_NAME_CHARS = 120
#: Separators of a list cell (aliases, abbreviation, category, related, confused_with). A comma
#: is not one: names hold commas ("single instruction, multiple threads").
LIST_SEPARATORS = re.compile(r"\s*[|;｜；]\s*")
RELATED_ORIGIN = "stated-related"
CONFUSED_ORIGIN = "stated-confused"

Kind = Literal["related_to", "confused_with"]


@dataclass
class Definition:
    """One definition of an imported entry."""

    text: str
    line: int
    cites: str | None = None  # the source the file names for it
    note: str | None = None


@dataclass
class Statement:
    """A relation the file states: the entry is ``related_to`` / ``confused_with`` *target*.

    ``key`` is set when the file names the target by its own id (a TBX ``target``, a SKOS IRI, a
    JSON node id, a CSV item that may be an id); ``target`` is the name to use otherwise.
    """

    kind: Kind
    target: str
    line: int
    where: str
    key: str | None = None
    evidence: str = ""
    origin: str = ""


@dataclass
class Record:
    """One imported entry (see the module docstring)."""

    line: int
    what: str  # how errors name the entry: "row", "conceptEntry 'x'", "concept <iri>"
    names: list[Name] = field(default_factory=list)
    where: dict[str, str] = field(default_factory=dict)  # name text → column / element
    key: str | None = None  # the file's own id for the entry
    key_where: str = "id"
    key_is_id: bool = False  # the key is meant as the graph id (CSV `id`, JSON): warn when it is not
    definitions: list[Definition] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    statements: list[Statement] = field(default_factory=list)
    # the file marks it as a name definitions only mention: not an entry (module docstring)
    mentioned: bool = False

    def add_name(
        self,
        text: str,
        kind: str,
        where: str,
        file: str,
        line: int | None = None,
        origin: NameOrigin = "source",
    ) -> None:
        """Add a name (its language follows its script) with who gave it; SourceError for an
        overlong one."""
        text = clean(text)
        if not text:
            return
        if len(text) > MAX_NAME_CHARS:
            raise SourceError(
                file,
                line or self.line,
                f"{where}: a name of {len(text)} characters (at most {MAX_NAME_CHARS}): "
                "is a definition in the wrong column?",
            )
        self.names.append(Name(text, lang_of(text), kind, origin))  # type: ignore[arg-type]
        self.where.setdefault(text, where)

    def mark_editorial(self, names: list[str], where: str, file: str, line: int | None = None) -> None:
        """Give the origin ``editorial`` to each of *names* (names of the entry, compared loosely);
        SourceError for one the entry does not have."""
        for text in names:
            key = fold(clean(text))
            hits = [k for k, n in enumerate(self.names) if fold(n.text) == key]
            if not hits:
                raise SourceError(file, line or self.line, f"{where}: {text!r} is not a name of the entry")
            for k in hits:
                n = self.names[k]
                self.names[k] = Name(n.text, n.lang, n.kind, "editorial")


def name_origin(value: str, where: str, file: str, line: int) -> NameOrigin:
    """*value* as a name origin (``source``, ``rule``, ``editorial``; empty: ``source``)."""
    value = value.strip()
    if not value:
        return "source"
    if value not in NAME_ORIGINS:
        raise SourceError(file, line, f"{where}: {value!r} is not one of {', '.join(NAME_ORIGINS)}")
    return value  # type: ignore[return-value]


#: What a file may say an entry is: a term it defines, or a name definitions only mention.
KINDS = ("defined", "mentioned")


def entry_kind(value: str, where: str, file: str, line: int) -> bool:
    """Whether *value* (``defined``, ``mentioned``; empty: ``defined``) marks a mentioned-only entry."""
    value = value.strip()
    if value and value not in KINDS:
        raise SourceError(file, line, f"{where}: {value!r} is not one of {', '.join(KINDS)}")
    return value == "mentioned"


def split_list(cell: str) -> list[str]:
    """The items of a list cell: split at ``|`` or ``;`` (full-width too), trimmed, no repeats."""
    out: dict[str, None] = {}
    for item in LIST_SEPARATORS.split(cell.strip()):
        if item.strip():
            out.setdefault(item.strip(), None)
    return list(out)


def one_line(text: str) -> str:
    """A definition as one line: line breaks and the indentation around them become one space."""
    return re.sub(r"\s*\n\s*", " ", text).strip()


_TERM_LINE = re.compile(r"^(?P<main>[^()（）]+?)\s*[(（](?P<gloss>[^()（）]+)[)）]$")


def _line_names(line: str) -> list[Name]:
    """Names of one term line: "main (gloss)" is two names when the gloss is the other script
    ("KV cache（KV 缓存）") or an acronym of the main name ("Time to first token (TTFT)", and the
    other way round); any other parenthesis qualifies the name and stays in it ("Sampling
    (decode)", "L0/L1/L2 caches (GPU)")."""
    text = clean(line)
    m = _TERM_LINE.match(text)
    if m:
        main, gloss = m.group("main").strip(), m.group("gloss").strip()
        if lang_of(main) != lang_of(gloss):
            return [Name(main, lang_of(main), "label"), Name(gloss, lang_of(gloss), "label")]  # type: ignore[arg-type]
        if is_abbreviation(gloss) and is_acronym_of(gloss, main):
            return [Name(main, lang_of(main), "label"), Name(gloss, "en", "abbr")]  # type: ignore[arg-type]
        if is_abbreviation(main) and is_acronym_of(main, gloss):
            return [Name(gloss, lang_of(gloss), "label"), Name(main, "en", "abbr")]  # type: ignore[arg-type]
    return [Name(text, lang_of(text), "label")]  # type: ignore[arg-type]


def term_line_names(lines: list[str]) -> list[Name]:
    """Names of a glossary item written as term lines (Markdown, Sphinx).

    Each line is one name, or two when it is "name (other script)" or "name (acronym)"
    (:func:`_line_names`). Names of later lines are aliases, except in a language no earlier line
    labelled and except abbreviations; a label that is the acronym of a later line's name
    ("HBM" then "High-bandwidth memory") is that name's abbreviation.
    """
    out: list[Name] = []
    for i, line in enumerate(lines):
        for n in _line_names(line):
            if n.text:
                out.append(Name(n.text, n.lang, "alias") if i and n.kind == "label" else n)
    out = promote_labels(out)
    for k, n in enumerate(out):
        if n.kind != "label" or not is_abbreviation(n.text):
            continue
        expansion = next(
            (x for x in out if x.lang == n.lang and x.kind == "alias" and is_acronym_of(n.text, x.text)), None
        )
        if expansion is not None:
            out[k] = Name(n.text, n.lang, "abbr")
            out[out.index(expansion)] = Name(expansion.text, expansion.lang, "label")
    return out


def _tidy(names: list[Name]) -> list[Name]:
    """One label per language (later ones become aliases), no name twice in one role, and a label
    for an entry that has only aliases."""
    out: list[Name] = []
    seen: set[tuple[str, str]] = set()
    labelled: set[str] = set()
    for n in names:
        kind = n.kind
        if kind == "label":
            if n.lang in labelled:
                kind = "alias"
            labelled.add(n.lang)
        key = (fold(n.text), kind)
        if key in seen:
            continue
        seen.add(key)
        out.append(Name(n.text, n.lang, kind, n.origin))
    if not any(n.kind in STRONG for n in out):
        out = promote_labels(out)
    return out


def _first_name(record: Record) -> str:
    return next((n.text for n in record.names if n.kind in STRONG), record.names[0].text)


def _derived_id(names: list[Name]) -> str:
    labels: dict[str, str] = {}
    for n in names:
        if n.kind == "label":
            labels.setdefault(n.lang, n.text)
    if "en" not in labels:
        abbr = next((n.text for n in names if n.kind == "abbr"), None)
        if abbr:
            labels["en"] = abbr
    term = Term(id="", labels=labels, aliases=[], abbreviations=[], definitions=[], categories=[], sources=[])
    return base_id(term)


def to_parsed(
    records: list[Record], source: str, file: str, skipped: list[ParseIssue] | None = None
) -> ParsedSource:
    """Raw entries of *records* read from *file* (source id *source*); SourceError naming the line
    and the column or element for an entry without a name, an id given twice, a label or
    abbreviation of two entries, or a relation to an id the file does not have. Entries marked
    mentioned only, and the relations to them, are left out and reported in ``skipped``."""
    skipped = list(skipped or [])
    only_mentioned = [r for r in records if r.mentioned]
    for r in only_mentioned:
        if r.definitions:
            raise SourceError(
                file,
                r.definitions[0].line,
                f"{r.what}: marked mentioned only (a name no entry defines), yet it has a definition",
            )
    records = [r for r in records if not r.mentioned]
    if not records:
        hint = f" (all {len(only_mentioned)} are marked mentioned only)" if only_mentioned else ""
        raise SourceError(file, 1, f"no entries found{hint}")
    warnings: list[ParseIssue] = []
    by_key: dict[str, Record] = {}
    strong: dict[str, tuple[Record, str]] = {}
    for r in records:
        r.names = _tidy(r.names)
        if not r.names:
            raise SourceError(
                file, r.line, f"{r.what}: no name (an entry needs a term in English or Chinese)"
            )
        if r.key is not None:
            first = by_key.get(r.key)
            if first is not None:
                raise SourceError(
                    file, r.line, f"{r.key_where}: duplicate id {r.key!r} (first on line {first.line})"
                )
            by_key[r.key] = r
        for n in r.names:
            k = name_key(n.text)
            if n.kind not in STRONG or not k:
                continue
            other = strong.get(k)
            if other is not None and other[0] is not r:
                raise SourceError(
                    file,
                    r.line,
                    f"{r.where.get(n.text, r.what)}: {n.text!r} is already a name of the entry on line "
                    f"{other[0].line} ({other[1]!r}): two entries of one file would become one term",
                )
            strong.setdefault(k, (r, n.text))
        if r.key is not None and r.key_is_id and (derived := _derived_id(r.names)) != r.key:
            warnings.append(
                ParseIssue(
                    source,
                    r.line,
                    f"{r.key_where} {r.key!r} becomes {derived!r}: ids follow the English label "
                    "(else the pinyin of the Chinese one); the given id only links rows of this file",
                    r.key,
                )
            )
    away = _mentioned_only(only_mentioned, by_key, strong, source, skipped)
    entries: list[RawEntry] = []
    for r in records:
        mentions = [_mention(st, by_key, file) for st in r.statements if not away(st)]
        count = max(1, len(r.definitions), len(r.categories))
        for j in range(count):
            d = r.definitions[j] if j < len(r.definitions) else None
            section = (
                r.categories[j] if j < len(r.categories) else (r.categories[0] if r.categories else None)
            )
            entries.append(
                RawEntry(
                    source=source,
                    line=d.line if d else r.line,
                    section=section,
                    names=list(r.names),
                    definition=d.text if d else None,
                    note=d.note if d else None,
                    mentions=mentions if j == 0 else [],
                    raw=_first_name(r),
                    cites=d.cites if d else None,
                )
            )
    return ParsedSource(source=source, entries=entries, skipped=skipped, warnings=warnings)


MENTIONED_ONLY = (
    "marked mentioned only (a name definitions only mention): not an entry; the build finds such "
    "names in the definitions, with their edges (kg/mentioned.py)"
)


TO_MENTIONED = "a relation to an entry marked mentioned only: not read, the rules give its edges"


def _mentioned_only(
    only_mentioned: list[Record],
    by_key: dict[str, Record],
    strong: dict[str, tuple[Record, str]],
    source: str,
    skipped: list[ParseIssue],
) -> Callable[[Statement], bool]:
    """Report the entries marked mentioned only; the test of a statement that names one of them
    (by its id, else by a label or abbreviation no entry has), reporting it when true."""
    keys = {r.key for r in only_mentioned if r.key is not None}
    names: set[str] = set()
    for r in only_mentioned:
        skipped.append(
            ParseIssue(source, r.line, f"{r.what}: {MENTIONED_ONLY}", _first_name(r) if r.names else "")
        )
        names.update(name_key(n.text) for n in r.names if n.kind in STRONG)

    def away(st: Statement) -> bool:
        if st.key is not None and st.key in by_key:
            return False
        key = name_key(st.target) if st.target else ""
        if (st.key is not None and st.key in keys) or (key in names and key not in strong):
            skipped.append(
                ParseIssue(
                    source,
                    st.line,
                    f"{st.where}: {TO_MENTIONED}",
                    st.target or st.key or "",
                )
            )
            return True
        return False

    return away


def _mention(st: Statement, by_key: dict[str, Record], file: str) -> Mention:
    target = st.target
    if st.key is not None and st.key in by_key:
        target = _first_name(by_key[st.key])
    elif not target:
        raise SourceError(file, st.line, f"{st.where}: no entry of this file has the id {st.key!r}")
    origin = st.origin or (RELATED_ORIGIN if st.kind == "related_to" else CONFUSED_ORIGIN)
    evidence = st.evidence or f"{st.where}: {st.target or st.key}"
    return Mention(
        target=target, kind=st.kind, origin=origin, evidence=evidence, line=st.line, where=st.where
    )
