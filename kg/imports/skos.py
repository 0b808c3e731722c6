"""SKOS glossaries in Turtle or JSON-LD (rdflib): what ``glossary export --format skos-turtle`` /
``jsonld`` writes, and SKOS concept schemes from other tools.

=====================================  ==============================================================
triple                                 read as
=====================================  ==============================================================
``?c a skos:Concept``                  one entry; its key is ``dcterms:identifier``, else the IRI
``skos:prefLabel``                     the label of its language (at most one per language tag)
``skos:altLabel``, ``skos:hiddenLabel``  aliases
``gkg:abbreviation``                   an abbreviation (our export's own property)
``gkg:hasDefinition``                  a definition with provenance (our export): ``rdf:value``,
                                       ``dcterms:source`` (→ that resource's identifier),
                                       ``skos:note``
``skos:definition``                    a definition (when the concept has no ``gkg:hasDefinition``)
``skos:member`` of a skos:Collection   a category: the collection's identifier, else its label
``skos:related``, ``skos:broader``,    ``related_to`` the concept it points at
``skos:narrower``
``gkg:confusedWith``                   ``confused_with`` (either direction)
``gkg:labelOrigin`` ``"en:rule"``,     who gave the label of that language, who gave that name
``gkg:editorialName``                  (our export; :class:`kg.model.Name`); else ``source``
``gkg:kind`` ``"mentioned"``           a name definitions only mention (our export): not an entry,
                                       nor are its relations (the build finds such names itself,
                                       :mod:`kg.imports.records`)
=====================================  ==============================================================

Literals tagged with a language other than ``en*``/``zh*`` are skipped; a name's language is its
script. rdflib keeps no order, so names, definitions and concepts are sorted (by the line a
concept's IRI first appears on, then by text): the same file always gives the same graph.
JSON-LD must carry its ``@context`` inline: a remote context would be a download at build time,
and nothing is downloaded then. Errors name the line (and the column for syntax errors) and the
element: a syntax error, no concept, two prefLabels in one language, an identifier given twice,
a relation to an IRI that is not a concept of the file.
"""

from __future__ import annotations

import json
import re
import warnings
from typing import TYPE_CHECKING, Any

from kg.imports.records import (
    Definition,
    Record,
    Statement,
    entry_kind,
    name_origin,
    one_line,
    to_parsed,
)
from kg.model import ParsedSource, ParseIssue
from kg.parsers.common import SourceError
from kg.parsers.jsonpos import line_of, value_lines
from kg.textnorm import lang_of

if TYPE_CHECKING:
    from rdflib import Graph, Literal, URIRef
    from rdflib.term import Node

# rdflib (~0.1 s to import) is imported where a SKOS file is read, not by every build.
LANGS = ("en", "zh")
_NATURAL = re.compile(r"(\d+)")


def _natural(text: str) -> list[Any]:
    return [int(p) if p.isdigit() else p for p in _NATURAL.split(text)]


_TOKEN = re.compile(r'<[^<>\s"]*>|"[^"\n]*"|[A-Za-z][\w-]*:[^\s;,"<>()\[\]]*')


class _Lines:
    """The line a resource first appears on: as a Turtle subject (at the start of a line) first,
    else anywhere, written in full (``<iri>``, ``"iri"`` in JSON-LD) or with a prefix of the file.
    One scan of the text builds the index."""

    def __init__(self, text: str, g: Graph) -> None:
        self.g = g
        self.subject: dict[str, int] = {}
        self.anywhere: dict[str, int] = {}
        for no, row in enumerate(text.split("\n"), start=1):
            for k, m in enumerate(_TOKEN.finditer(row)):
                token = m.group().rstrip(".")
                self.anywhere.setdefault(token, no)
                if k == 0 and not row[: m.start()].strip():
                    self.subject.setdefault(token, no)

    def of(self, node: Node) -> int:
        iri = str(node)
        forms = [f"<{iri}>", f'"{iri}"']
        try:
            prefix, _ns, local = self.g.namespace_manager.compute_qname(iri, generate=False)
            forms += [f"{prefix}:{local}", f'"{prefix}:{local}"']
        except (ValueError, KeyError, TypeError):  # no prefix covers it
            pass
        for index in (self.subject, self.anywhere):
            for form in forms:
                if form in index:
                    return index[form]
        return 1


def _lang(lit: Node) -> str | None:
    tag = getattr(lit, "language", None)
    return tag.split("-")[0].lower() if tag else None


def _key(g: Graph, node: Node) -> str:
    from rdflib.namespace import DCTERMS

    ident = g.value(node, DCTERMS.identifier)
    return str(ident) if ident is not None else str(node)


def parse_skos_graph(g: Graph, lines: _Lines, source: str, file: str) -> ParsedSource:
    """Records of the SKOS concepts of *g* (see module docstring)."""
    from rdflib import RDF
    from rdflib.namespace import SKOS

    concepts = sorted(set(g.subjects(RDF.type, SKOS.Concept)), key=lambda c: (lines.of(c), str(c)))
    if not concepts:
        raise SourceError(file, 1, "no skos:Concept in the file")
    skipped: list[ParseIssue] = []
    keys: dict[Node, str] = {}
    seen: dict[str, Node] = {}
    for c in concepts:
        key = _key(g, c)
        if key in seen:
            raise SourceError(
                file, lines.of(c), f"<{c}> dcterms:identifier: duplicate id {key!r} (also <{seen[key]}>)"
            )
        seen[key] = c
        keys[c] = key
    records = [_record(g, c, keys, lines, skipped, source, file) for c in concepts]
    return to_parsed(records, source, file, skipped)


def _literals(g: Graph, c: Node, prop: URIRef) -> list[Literal]:
    from rdflib import Literal

    return sorted(
        (x for x in g.objects(c, prop) if isinstance(x, Literal)),
        key=lambda x: (str(getattr(x, "language", "") or ""), str(x)),
    )


def _record(
    g: Graph,
    c: Node,
    keys: dict[Node, str],
    lines: _Lines,
    skipped: list[ParseIssue],
    source: str,
    file: str,
) -> Record:
    from rdflib import RDF, Literal
    from rdflib.namespace import DCTERMS, SKOS

    from kg.export.skos import GKG

    line = lines.of(c)
    r = Record(line=line, what=f"<{c}>", key=keys[c], key_where=f"<{c}> dcterms:identifier")
    by_tag: dict[str, str] = {}
    for lit in _literals(g, c, SKOS.prefLabel):
        tag = getattr(lit, "language", None) or ""
        if tag in by_tag:
            raise SourceError(
                file,
                line,
                f"<{c}> skos:prefLabel: two in language {tag or 'untagged'!r} "
                f"({by_tag[tag]!r}, {str(lit)!r}); SKOS allows one",
            )
        by_tag[tag] = str(lit)
    abbreviations = {str(x) for x in g.objects(c, GKG.abbreviation)}
    origins: dict[str, str] = {}
    for lit in _literals(g, c, GKG.labelOrigin):
        lang, _, origin = str(lit).partition(":")
        origins[lang] = origin
    for prop, kind in (
        (SKOS.prefLabel, "label"),
        (GKG.abbreviation, "abbr"),
        (SKOS.altLabel, "alias"),
        (SKOS.hiddenLabel, "alias"),
    ):
        for lit in _literals(g, c, prop):
            if _lang(lit) not in (None, *LANGS):
                skipped.append(
                    ParseIssue(source, line, f"<{c}> label in language {_lang(lit)!r} is not read", "")
                )
                continue
            if kind == "alias" and str(lit) in abbreviations:
                continue
            where = f"<{c}> {g.namespace_manager.normalizeUri(prop)}"
            origin = origins.get(lang_of(str(lit)), "") if kind == "label" else ""
            r.add_name(
                str(lit), kind, where, file, origin=name_origin(origin, f"<{c}> gkg:labelOrigin", file, line)
            )
    r.mark_editorial([str(x) for x in _literals(g, c, GKG.editorialName)], f"<{c}> gkg:editorialName", file)
    r.mentioned = entry_kind(str(g.value(c, GKG.kind) or ""), f"<{c}> gkg:kind", file, line)
    described = sorted(g.objects(c, GKG.hasDefinition), key=lambda d: _natural(str(d)))
    for res in described:
        value = g.value(res, RDF.value)
        if not isinstance(value, Literal) or not str(value).strip():
            raise SourceError(file, lines.of(res), f"<{res}> rdf:value: a gkg:Definition needs its text")
        if _lang(value) not in (None, *LANGS):
            continue
        src = g.value(res, DCTERMS.source)
        note = g.value(res, SKOS.note)
        r.definitions.append(
            Definition(
                one_line(str(value)),
                line,
                _key(g, src) if src is not None else None,
                str(note) if note is not None else None,
            )
        )
    if not described:
        for lit in _literals(g, c, SKOS.definition):
            if _lang(lit) in (None, *LANGS) and str(lit).strip():
                r.definitions.append(Definition(one_line(str(lit)), line))
    for coll in sorted(g.subjects(SKOS.member, c), key=str):
        ident = g.value(coll, DCTERMS.identifier)
        label = g.value(coll, SKOS.prefLabel)
        r.categories.append(
            str(ident) if ident is not None else str(label) if label is not None else str(coll)
        )
    statements: list[tuple[str, Node, str]] = []
    for prop, where in (
        (SKOS.related, "skos:related"),
        (SKOS.broader, "skos:broader"),
        (SKOS.narrower, "skos:narrower"),
    ):
        statements += [("related_to", o, where) for o in g.objects(c, prop)]
    confused = {*g.objects(c, GKG.confusedWith), *g.subjects(GKG.confusedWith, c)}
    statements += [("confused_with", o, "gkg:confusedWith") for o in confused]
    for kind, other, where in sorted(statements, key=lambda s: (s[0], str(s[1]), s[2])):
        if other not in keys:
            raise SourceError(file, line, f"<{c}> {where}: <{other}> is not a skos:Concept of this file")
        r.statements.append(Statement(kind, "", line, f"<{c}> {where}", key=keys[other]))  # type: ignore[arg-type]
    return r


def _parse(text: str, fmt: str, file: str) -> Graph:
    from rdflib import Graph

    g = Graph()
    try:
        with warnings.catch_warnings():
            # rdflib's JSON-LD parser uses its own deprecated ConjunctiveGraph internally.
            warnings.simplefilter("ignore", DeprecationWarning)
            g.parse(data=text, format=fmt)
    except SyntaxError as exc:  # rdflib's BadSyntax: (uri, line index, text, offset, why)
        args = exc.args
        if len(args) == 5 and isinstance(args[3], int) and isinstance(args[2], str):
            pos = args[3]
            line = args[2].count("\n", 0, pos) + 1
            column = pos - (args[2].rfind("\n", 0, pos) + 1) + 1
            raise SourceError(file, line, f"not valid Turtle: {args[4]} (column {column})") from exc
        raise SourceError(file, getattr(exc, "lineno", None) or 1, f"not valid {fmt}: {exc}") from exc
    except SourceError:
        raise
    except Exception as exc:  # rdflib raises many kinds on bad input; each one is a bad file
        raise SourceError(file, 1, f"not valid {fmt}: {type(exc).__name__}: {exc}") from exc
    return g


def parse_skos_turtle(text: str, source: str, file: str = "") -> ParsedSource:
    """Parse SKOS in Turtle (see module docstring)."""
    file = file or source
    g = _parse(text, "turtle", file)
    return parse_skos_graph(g, _Lines(text, g), source, file)


def _check_contexts(data: Any, lines: dict[tuple[str | int, ...], int], file: str) -> None:
    """SourceError for any ``@context`` (or ``@import``) that is not inline: rdflib would fetch it."""
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            for k, v in value.items():
                if k in ("@context", "@import"):
                    contexts = v if isinstance(v, list) else [v]
                    for i, ctx in enumerate(contexts):
                        if isinstance(ctx, str):
                            at = (*path, k, i) if isinstance(v, list) else (*path, k)
                            raise SourceError(
                                file,
                                line_of(lines, *at),
                                f"{k}: remote context {ctx!r} is not fetched (nothing is downloaded at "
                                "build time): write the context inline",
                            )
                stack.append(((*path, k), v))
        elif isinstance(value, list):
            stack.extend(((*path, i), v) for i, v in enumerate(value))


def parse_skos_jsonld(text: str, source: str, file: str = "") -> ParsedSource:
    """Parse SKOS in JSON-LD (see module docstring)."""
    file = file or source
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceError(file, exc.lineno, f"invalid JSON: {exc.msg} (column {exc.colno})") from exc
    _check_contexts(data, value_lines(text), file)
    g = _parse(text, "json-ld", file)
    return parse_skos_graph(g, _Lines(text, g), source, file)
