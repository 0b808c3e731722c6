"""TBX export: TBX-Basic (DCA style) in the TBX v3 core structure (ISO 30042:2019).

Modelling (checked against the LTAC TBX-Basic dialect schemas, RNG + Schematron):

* Root ``<tbx type="TBX-Basic" style="dca" xml:lang="en" xmlns="urn:iso:std:iso:30042:ed-2">``,
  ``<tbxHeader><fileDesc><titleStmt>…<sourceDesc>`` (one ``<p>`` per source glossary), then
  ``<text><body>`` with one ``<conceptEntry>`` per node. The namespace is a parameter:
  ``ed-2`` is what ISO 30042:2019 and most tools use; the current LTAC TBX-Basic 1.2 schemas
  expect ``urn:iso:std:iso:30042:ed:3.0`` (:data:`TBX_NS_V3`). :func:`read_tbx` reads both.
* ``conceptEntry/@id`` is the node id when it is a plain XML name (``[A-Za-z][A-Za-z0-9._-]*``);
  otherwise it is ``_`` + the id with other characters written ``_<hex>_`` (:func:`xml_id`,
  reversed by :func:`node_id`), because ``id``/``target`` are ``xsd:ID``/``IDREF``.
* One ``<langSec xml:lang="en|zh">`` per language that has terms. Each name is a
  ``<termSec><term>`` with ``termNote type="termType"`` and ``administrativeStatus``:

  ==============  ===============  ==========================  =========================
  name            termType         administrativeStatus        langSec
  ==============  ===============  ==========================  =========================
  label           ``fullForm``     ``preferredTerm-admn-sts``  the label's language
  abbreviation    ``acronym``      ``admittedTerm-admn-sts``   ``en`` unless it has Chinese
  alias           ``variant``      ``admittedTerm-admn-sts``   by script: Chinese → ``zh``
  ==============  ===============  ==========================  =========================

  TBX-Basic permits only ``fullForm, acronym, abbreviation, shortForm, variant, phrase`` as
  termType, so aliases are ``variant`` (not ``synonym``, which a TBX-Basic validator rejects);
  being admitted (not preferred) terms of the same concept already makes them synonyms.
  A name already written in that langSec is not repeated (label > abbreviation > alias).
* A name no source gives as the term's own carries ``<note>origin: editorial</note>`` in its
  termSec (a decision of ``corpus/overlay.json``: ``label_origin`` / ``editorial_names``), a
  label a name rule read ``<note>origin: rule</note>`` (TBX-Basic allows a note there).
* Definitions: ``<descripGrp><descrip type="definition">…</descrip><admin type="source">ID``
  ``</admin>[<note>…</note>]</descripGrp>`` in the langSec of the definition's language. A
  langSec must hold at least one term, so a definition in a language without terms goes to the
  conceptEntry level with ``xml:lang`` on the ``descrip`` (TBX-Basic allows both levels).
* Categories: ``<descrip type="subjectField">`` at conceptEntry level, text = category label
  (English, else Chinese, else id).
* Edges: ``<ref type="crossReference" target="OTHER">`` at conceptEntry level, on both terms of
  an edge. ``crossReference`` is the only ``ref`` type TBX-Basic allows, so the relation is in
  the text: ``related_to`` → the other term's label; ``confused_with`` → ``"confused with: "`` +
  the label (:data:`CONFUSED_PREFIX`), which any TBX tool shows as-is.
* A node with no name at all gets one ``en`` term: its id (TBX needs a term per concept).
* A ``mentioned`` node (a name definitions only mention, :mod:`kg.mentioned`) has no definition:
  a concept-level ``<note>`` says it is not defined in the glossary, and each sentence that
  mentions it is a ``<descrip type="context">`` (with ``xml:lang`` and its ``admin`` source) on
  its first term — TBX-Basic's own category for a sentence that uses a term.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import Any

from kg.export._common import (
    ExportDoc,
    category_labels,
    display_label,
    editorial_names,
    kind,
    label_origin,
    labels,
    mentioned_note,
    mentions,
    neighbours,
    nodes,
    ordered_langs,
    script_lang,
    strings,
)

TBX_NS = "urn:iso:std:iso:30042:ed-2"
TBX_NS_V3 = "urn:iso:std:iso:30042:ed:3.0"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
CONFUSED_PREFIX = "confused with: "
ORIGIN_NOTE = "origin: "

TERM_TYPES = {"label": "fullForm", "abbreviation": "acronym", "alias": "variant"}
STATUS = {
    "label": "preferredTerm-admn-sts",
    "abbreviation": "admittedTerm-admn-sts",
    "alias": "admittedTerm-admn-sts",
}

_PLAIN_ID = re.compile(r"[A-Za-z][A-Za-z0-9._-]*")
_ESCAPED = re.compile(r"_([0-9a-f]+)_")
# Characters XML 1.0 does not allow, even escaped.
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def xml_id(node_id: str) -> str:
    """A valid, reversible ``xsd:ID`` for a node id (the id itself when it already is one)."""
    if _PLAIN_ID.fullmatch(node_id):
        return node_id
    return "_" + re.sub(r"[^A-Za-z0-9.-]", lambda m: f"_{ord(m.group()):x}_", node_id)


def node_id(xml_identifier: str) -> str:
    """Inverse of :func:`xml_id`."""
    if not xml_identifier.startswith("_"):
        return xml_identifier
    return _ESCAPED.sub(lambda m: chr(int(m.group(1), 16)), xml_identifier[1:])


def _clean(text: Any) -> str:
    return _XML_INVALID.sub("", str(text))


def _sub(parent: ET.Element, tag: str, text: Any = None, **attrs: str) -> ET.Element:
    el = ET.SubElement(parent, tag, {k: _clean(v) for k, v in attrs.items()})
    if text is not None:
        el.text = _clean(text)
    return el


def _names_by_lang(node: Mapping[str, Any]) -> dict[str, list[tuple[str, str]]]:
    """(text, kind) per language, kind in label/abbreviation/alias, without repeats."""
    out: dict[str, list[tuple[str, str]]] = {}
    seen: set[tuple[str, str]] = set()

    def add(lang: str, text: str, kind: str) -> None:
        if (lang, text) not in seen:
            seen.add((lang, text))
            out.setdefault(lang, []).append((text, kind))

    for lang, text in labels(node).items():
        add(lang, text, "label")
    for a in strings(node.get("abbreviations")):
        add(script_lang(a), a, "abbreviation")
    for a in strings(node.get("aliases")):
        add(script_lang(a), a, "alias")
    if not out:
        add("en", str(node["id"]), "label")
    return {lang: out[lang] for lang in ordered_langs(out)}


def _definition_grp(parent: ET.Element, d: Mapping[str, Any], lang: str | None = None) -> None:
    grp = _sub(parent, "descripGrp")
    attrs = {XML_LANG: lang} if lang else {}
    _sub(grp, "descrip", d["text"], type="definition", **attrs)
    if d.get("source"):
        _sub(grp, "admin", d["source"], type="source")
    if d.get("note"):
        _sub(grp, "note", d["note"])


def _header(root: ET.Element, doc: ExportDoc, title: str) -> None:
    file_desc = _sub(_sub(root, "tbxHeader"), "fileDesc")
    _sub(_sub(file_desc, "titleStmt"), "title", title)
    source_desc = _sub(file_desc, "sourceDesc")
    _sub(source_desc, "p", f"Exported from {doc.get('format', 'glossary-kg')} v{doc.get('version', '?')}")
    for s in doc.get("sources") or []:
        parts = [str(s["id"])]
        if s.get("title"):
            parts.append(str(s["title"]))
        if s.get("file"):
            parts.append(f"({s['file']})")
        attrs = {XML_LANG: str(s["language"])} if s.get("language") else {}
        _sub(source_desc, "p", " ".join(parts), **attrs)


def to_tbx(doc: ExportDoc, title: str = "glossary-kg", namespace: str = TBX_NS) -> str:
    """The glossary as a TBX-Basic document (XML text with declaration; encode as UTF-8)."""
    root = ET.Element("tbx", {"type": "TBX-Basic", "style": "dca", XML_LANG: "en", "xmlns": namespace})
    _header(root, doc, title)
    body = _sub(_sub(root, "text"), "body")
    cats = category_labels(doc)
    links = neighbours(doc)
    index = {str(n["id"]): n for n in nodes(doc)}
    for node in nodes(doc):
        nid = str(node["id"])
        entry = _sub(body, "conceptEntry", id=xml_id(nid))
        for cid in strings(node.get("categories")):
            lab = cats.get(cid, {})
            _sub(entry, "descrip", lab.get("en") or lab.get("zh") or cid, type="subjectField")
        names = _names_by_lang(node)
        origins = label_origin(node)
        editorial = set(editorial_names(node))
        defs = [d for d in node.get("definitions") or [] if d.get("text")]
        for d in defs:
            if d.get("lang") not in names:
                _definition_grp(entry, d, lang=str(d.get("lang") or "und"))
        if kind(node) == "mentioned":
            _sub(entry, "note", mentioned_note(node))
        for other in links[nid].related:
            _sub(entry, "ref", display_label(index[other]), type="crossReference", target=xml_id(other))
        for other in links[nid].confused_with:
            text = CONFUSED_PREFIX + display_label(index[other])
            _sub(entry, "ref", text, type="crossReference", target=xml_id(other))
        first_lang = next(iter(names))
        for lang, terms in names.items():
            sec = _sub(entry, "langSec", **{XML_LANG: lang})
            for d in defs:
                if d.get("lang") == lang:
                    _definition_grp(sec, d)
            for i, (text, name_kind) in enumerate(terms):
                term_sec = _sub(sec, "termSec")
                _sub(term_sec, "term", text)
                _sub(term_sec, "termNote", TERM_TYPES[name_kind], type="termType")
                _sub(term_sec, "termNote", STATUS[name_kind], type="administrativeStatus")
                if i == 0 and lang == first_lang:
                    for m in mentions(node):  # the sentences that use the name: TBX's "context"
                        grp = _sub(term_sec, "descripGrp")
                        _sub(
                            grp,
                            "descrip",
                            m["sentence"],
                            type="context",
                            **{XML_LANG: script_lang(m["sentence"])},
                        )
                        if m.get("source"):
                            _sub(grp, "admin", m["source"], type="source")
                origin = origins.get(lang, "source") if name_kind == "label" else "source"
                if text in editorial:
                    origin = "editorial"
                if origin != "source":
                    _sub(term_sec, "note", ORIGIN_NOTE + origin)
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _children(el: ET.Element, name: str) -> list[ET.Element]:
    return [c for c in el if _local(c.tag) == name]


def _text(el: ET.Element) -> str:
    return "".join(el.itertext()).strip()


def _read_definitions(parent: ET.Element, lang: str | None) -> list[dict[str, Any]]:
    out = []
    for grp in _children(parent, "descripGrp"):
        for d in _children(grp, "descrip"):
            if d.get("type") != "definition":
                continue
            src = [_text(a) for a in _children(grp, "admin") if a.get("type") == "source"]
            notes = [_text(n) for n in _children(grp, "note")]
            out.append(
                {
                    "lang": d.get(XML_LANG) or lang,
                    "text": _text(d),
                    "source": src[0] if src else None,
                    "note": notes[0] if notes else None,
                }
            )
    for d in _children(parent, "descrip"):
        if d.get("type") == "definition":
            out.append({"lang": d.get(XML_LANG) or lang, "text": _text(d), "source": None, "note": None})
    return out


def read_tbx(text: str) -> dict[str, dict[str, Any]]:
    """Parse TBX written by :func:`to_tbx` (or similar TBX v3 DCA) back into plain data.

    Returns ``{concept_id: {"labels": {lang: [term, ...]}, "terms": [{"lang", "term",
    "termType", "status", "origin"}], "definitions": [{"lang", "text", "source", "note"}],
    "refs": [{"target", "type", "text"}], "subjectFields": [...], "notes": [...], "contexts":
    [{"text", "source"}]}}``. Concept ids are node ids
    (:func:`node_id` undoes :func:`xml_id`); ``refs[].type`` is ``confused_with`` when the text
    starts with :data:`CONFUSED_PREFIX`, else ``related_to``. Namespaces are ignored.
    """
    root = ET.fromstring(text)
    if _local(root.tag) != "tbx":
        raise ValueError(f"not a TBX v3 document (root element {_local(root.tag)!r})")
    out: dict[str, dict[str, Any]] = {}
    for entry in root.iter():
        if _local(entry.tag) != "conceptEntry":
            continue
        cid = node_id(entry.get("id") or f"entry-{len(out) + 1}")
        rec: dict[str, Any] = {
            "labels": {},
            "terms": [],
            "definitions": [],
            "refs": [],
            "subjectFields": [],
            "notes": [_text(n) for n in _children(entry, "note")],
            "contexts": [],
        }
        rec["subjectFields"] = [
            _text(d) for d in _children(entry, "descrip") if d.get("type") == "subjectField"
        ]
        rec["definitions"] += _read_definitions(entry, None)
        for ref in _children(entry, "ref"):
            if ref.get("type") != "crossReference":
                continue
            label = _text(ref)
            kind = "related_to"
            if label.startswith(CONFUSED_PREFIX):
                kind, label = "confused_with", label[len(CONFUSED_PREFIX) :]
            target = ref.get("target")
            rec["refs"].append({"target": node_id(target) if target else None, "type": kind, "text": label})
        for sec in _children(entry, "langSec"):
            lang = sec.get(XML_LANG) or "und"
            rec["definitions"] += _read_definitions(sec, lang)
            for term_sec in _children(sec, "termSec"):
                terms = _children(term_sec, "term")
                if not terms:
                    continue
                term = _text(terms[0])
                notes = {n.get("type"): _text(n) for n in _children(term_sec, "termNote")}
                origin = [
                    _text(n)[len(ORIGIN_NOTE) :]
                    for n in _children(term_sec, "note")
                    if _text(n).startswith(ORIGIN_NOTE)
                ]
                for grp in _children(term_sec, "descripGrp"):
                    src = [_text(a) for a in _children(grp, "admin") if a.get("type") == "source"]
                    rec["contexts"] += [
                        {"text": _text(d), "source": src[0] if src else None}
                        for d in _children(grp, "descrip")
                        if d.get("type") == "context"
                    ]
                rec["labels"].setdefault(lang, []).append(term)
                rec["terms"].append(
                    {
                        "lang": lang,
                        "term": term,
                        "termType": notes.get("termType"),
                        "status": notes.get("administrativeStatus"),
                        "origin": origin[0] if origin else "source",
                    }
                )
        out[cid] = rec
    return out
