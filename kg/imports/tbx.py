"""TBX glossaries: TBX-Basic in the TBX v3 structure (what ``glossary export --format tbx``
writes) and in the TBX 2008 ``<martif>`` structure most terminology tools export.

========================================  =============================================================
element                                   read as
========================================  =============================================================
``conceptEntry`` / ``termEntry``          one entry; its ``id`` links ``<ref target>`` of other entries
``langSec`` / ``langSet`` ``xml:lang``    ``en*`` and ``zh*`` are read; other languages are skipped
                                          (reported)
``termSec`` / ``tig`` / ``ntig``          one name: ``<term>`` with ``termNote type="termType"`` and
                                          ``type="administrativeStatus"``
termType ``acronym``, ``abbreviation``,   an abbreviation
``initialism``
the preferred (else the first) other      the label of its script (Chinese characters → ``zh``)
term of a script
every other term                          an alias (deprecated and superseded terms included)
``descrip type="definition"``             a definition, at entry, language or term level; in a
                                          ``descripGrp``, ``admin type="source"`` is its source and
                                          ``note`` its note
``descrip type="subjectField"``           a category (a topic id or label of ``categories.json``)
``ref type="crossReference"``             ``related_to`` the entry its ``target`` names (else the
                                          term its text names); text starting with
                                          ``confused with:`` → ``confused_with`` (our export)
``note`` ``origin: rule`` / ``editorial``  in a ``termSec``: who gave the name (our export;
                                          :class:`kg.model.Name`), else ``source``
a concept-level ``note`` "… is not        our export's mark of a name definitions only mention: not
defined in the glossary; it is only       an entry, nor are its ``ref`` s (the build finds such names
mentioned …"                              itself, :mod:`kg.imports.records`)
========================================  =============================================================

A name is written once per language in TBX, so a label that is also an abbreviation (the export
writes TVM once, as the label) reads back as a label only. Errors name the line and element:
XML that is not well-formed, a root that is not ``<tbx>``/``<martif>``, no entries, an entry with
no term, an id given twice, a ``<ref>`` with neither a known ``target`` nor text.
"""

from __future__ import annotations

import re

from kg.imports.records import Definition, Record, Statement, name_origin, one_line, to_parsed
from kg.imports.xmltree import Element, parse_xml
from kg.model import ParsedSource, ParseIssue
from kg.parsers.common import SourceError
from kg.textnorm import lang_of

ENTRY = ("conceptEntry", "termEntry")
LANG_SEC = ("langSec", "langSet")
TERM_SEC = ("termSec", "tig", "ntig")
ABBREVIATION_TYPES = {"acronym", "abbreviation", "initialism"}
NOT_PREFERRED = {"deprecatedTerm-admn-sts", "supersededTerm-admn-sts", "deprecated", "superseded"}
LANGS = ("en", "zh")
# What our export writes (kg/export/tbx.py), repeated here so that reading a TBX file does not
# import every exporter (rdflib among them).
CONFUSED_PREFIX = "confused with: "
ORIGIN_NOTE = "origin: "
MENTIONED_NOTE = re.compile(r"is not defined in the glossary; it is only mentioned\b")
_ESCAPED = re.compile(r"_([0-9a-f]+)_")


def node_id(xml_identifier: str) -> str:
    """The node id our export wrote as ``conceptEntry/@id`` (:func:`kg.export.tbx.xml_id`)."""
    if not xml_identifier.startswith("_"):
        return xml_identifier
    return _ESCAPED.sub(lambda m: chr(int(m.group(1), 16)), xml_identifier[1:])


def _lang(code: str | None) -> str | None:
    """``en``/``zh`` of an ``xml:lang`` code (``en-US``, ``zh-Hans``), else the code, or None."""
    if not code:
        return None
    primary = code.split("-")[0].split("_")[0].lower()
    return primary


def _definitions(parent: Element, lang: str | None) -> list[tuple[Definition, str | None]]:
    """(definition, language) of the ``descrip type="definition"`` directly in *parent* or in its
    ``descripGrp`` children."""
    out: list[tuple[Definition, str | None]] = []
    for grp in parent.find_all("descripGrp"):
        sources = [a.text() for a in grp.find_all("admin") if a.get("type") == "source" and a.text()]
        notes = [n.text() for n in grp.find_all("note") if n.text()]
        for d in grp.find_all("descrip"):
            if d.get("type") == "definition" and d.text():
                text = one_line(d.text())
                out.append(
                    (
                        Definition(
                            text, d.line, sources[0] if sources else None, notes[0] if notes else None
                        ),
                        _lang(d.get("xml:lang")) or lang,
                    )
                )
    for d in parent.find_all("descrip"):
        if d.get("type") == "definition" and d.text():
            out.append((Definition(one_line(d.text()), d.line), _lang(d.get("xml:lang")) or lang))
    return out


def _term_notes(term_sec: Element) -> dict[str, str]:
    notes: dict[str, str] = {}
    for holder in (term_sec, *term_sec.find_all("termGrp")):
        for n in holder.find_all("termNote"):
            notes.setdefault(n.get("type") or "", n.text())
    return notes


def parse_tbx(text: str, source: str, file: str = "") -> ParsedSource:
    """Parse a TBX glossary (see module docstring)."""
    file = file or source
    root = parse_xml(text, file)
    if root.tag not in ("tbx", "martif"):
        raise SourceError(file, root.line, f"root element <{root.tag}>: not TBX (expected <tbx> or <martif>)")
    entries = list(root.iter(*ENTRY))
    if not entries:
        raise SourceError(file, root.line, "no <conceptEntry> (TBX v3) or <termEntry> (TBX 2008) element")
    skipped: list[ParseIssue] = []
    # ids of entries and of their terms (TBX 2008 tools point <ref target> at a tig's id)
    owner: dict[str, str] = {}
    records: list[Record] = []
    for k, entry in enumerate(entries):
        raw_id = entry.get("id")
        key = node_id(raw_id) if raw_id else f"#{k + 1}"
        what = f"<{entry.tag} id={raw_id!r}>" if raw_id else f"<{entry.tag}> #{k + 1}"
        r = Record(line=entry.line, what=what, key=key, key_where=f"<{entry.tag}> id")
        if raw_id and key in owner:
            raise SourceError(file, entry.line, f"<{entry.tag}> id: duplicate id {raw_id!r}")
        owner[key] = key
        _read_entry(entry, r, key, owner, skipped, source, file)
        records.append(r)
    for r in records:
        for st in r.statements:
            if st.key is not None and st.key in owner:
                st.key = owner[st.key]
    return to_parsed(records, source, file, skipped)


def _read_entry(
    entry: Element,
    r: Record,
    key: str,
    owner: dict[str, str],
    skipped: list[ParseIssue],
    source: str,
    file: str,
) -> None:
    defs = _definitions(entry, None)
    r.mentioned = any(MENTIONED_NOTE.search(n.text()) for n in entry.find_all("note"))
    r.categories = [
        d.text() for d in entry.find_all("descrip") if d.get("type") == "subjectField" and d.text()
    ]
    candidates: list[tuple[str, str, str, int, str]] = []  # (text, role, langSec language, line, origin)
    for sec in entry.find_all(*LANG_SEC):
        lang = _lang(sec.get("xml:lang"))
        if lang not in LANGS:
            skipped.append(ParseIssue(source, sec.line, f"<{sec.tag}> language {lang!r} is not read", ""))
            continue
        defs += _definitions(sec, lang)
        for term_sec in sec.find_all(*TERM_SEC):
            if term_sec.get("id"):
                owner.setdefault(node_id(term_sec.get("id") or ""), key)
            defs += _definitions(term_sec, lang)
            holder = term_sec.find_all("termGrp")[0] if term_sec.find_all("termGrp") else term_sec
            terms = holder.find_all("term")
            if not terms or not terms[0].text():
                raise SourceError(file, term_sec.line, f"<{term_sec.tag}>: no <term> (or an empty one)")
            notes = _term_notes(term_sec)
            if notes.get("termType") in ABBREVIATION_TYPES:
                role = "abbr"
            elif notes.get("administrativeStatus") in NOT_PREFERRED:
                role = "alias"
            elif notes.get("administrativeStatus", "").startswith("preferred"):
                role = "preferred"
            else:
                role = "term"
            origin = next(
                (
                    n.text()[len(ORIGIN_NOTE) :].strip()
                    for n in term_sec.find_all("note")
                    if n.text().startswith(ORIGIN_NOTE)
                ),
                "",
            )
            candidates.append((terms[0].text(), role, lang, terms[0].line, origin))
    if not candidates:
        raise SourceError(file, entry.line, f"{r.what}: no <term> in English or Chinese")
    # the label of a script: a preferred term written in that language's section, else any
    # preferred term of that script, else its first term
    labels: dict[str, str] = {}
    for lang in LANGS:
        same = [c for c in candidates if c[1] in ("preferred", "term") and lang_of(c[0]) == lang]
        ranked = sorted(same, key=lambda c: (c[1] != "preferred", c[2] != lang))
        if ranked:
            labels[lang] = ranked[0][0]
    for text, role, _lang_sec, line, origin in candidates:
        kind = "abbr" if role == "abbr" else "label" if labels.get(lang_of(text)) == text else "alias"
        r.add_name(text, kind, "<term>", file, line, name_origin(origin, "<note> origin", file, line))
    for d, lang in defs:
        if lang is None or lang in LANGS:
            r.definitions.append(d)
        else:
            skipped.append(ParseIssue(source, d.line, f"definition in language {lang!r} is not read", ""))
    for ref in entry.iter("ref"):
        if ref.get("type") != "crossReference":
            continue
        label = ref.text()
        kind = "related_to"
        if label.startswith(CONFUSED_PREFIX):
            kind, label = "confused_with", label[len(CONFUSED_PREFIX) :].strip()
        target = ref.get("target")
        if not target and not label:
            raise SourceError(file, ref.line, '<ref type="crossReference">: neither a target nor a term')
        where = f'<ref type="crossReference" target={target!r}>' if target else '<ref type="crossReference">'
        r.statements.append(
            Statement(
                kind,  # type: ignore[arg-type]
                label,
                ref.line,
                where,
                key=node_id(target) if target else None,
                evidence=f"crossReference: {ref.text()}",
            )
        )
