"""SKOS export (Turtle and JSON-LD via rdflib), and a reader for round-trip checks.

Modelling (IRIs for ``base="https://glossary-kg.local/term/"``):

* Scheme ``<https://glossary-kg.local/term>`` (``base`` without its trailing ``/``/``#``), a
  ``skos:ConceptScheme`` with a ``dcterms:title``.
* Concept ``<base + percent-encoded id>``: ``skos:Concept``, ``skos:inScheme``,
  ``dcterms:identifier`` (the node id, which :func:`read_skos` uses as the key),
  ``skos:prefLabel`` per label (``@en`` / ``@zh``, at most one per language),
  ``skos:altLabel`` for every alias and abbreviation, tagged by script (Chinese characters →
  ``@zh``, else ``@en``; a name equal to a prefLabel is not repeated, SKOS S13), and each
  abbreviation again as a plain ``gkg:abbreviation`` literal. ``dcterms:source`` links the
  concept to the source glossaries it comes from. ``gkg:labelOrigin`` gives, per label, who
  gave it as ``"lang:origin"`` (``en:editorial`` for a name of ``corpus/overlay.json``, else
  ``source`` or ``rule``), and ``gkg:editorialName`` repeats, language-tagged, every name only
  an editorial decision gives (labels, abbreviations, aliases).
* Definitions, twice: a language-tagged ``skos:definition`` literal for plain SKOS consumers,
  and, for provenance, a reified ``gkg:Definition`` resource
  ``<scheme/definition/ID.N>`` linked by ``gkg:hasDefinition`` with ``rdf:value`` (same literal),
  ``dcterms:source`` (the source glossary), ``gkg:section``, ``gkg:line`` and ``skos:note``.
  IRIs rather than blank nodes keep the output deterministic and addressable; they share one
  namespace because rdflib's prefix lookup is quadratic in the number of distinct namespaces.
* ``gkg:kind`` on every concept: ``defined``, or ``mentioned`` for a name the definitions only
  mention (:mod:`kg.mentioned`). A mentioned concept has no ``skos:definition``: a
  ``skos:scopeNote`` (``@en`` and ``@zh``) says it is not defined in the glossary, and each
  sentence that mentions it is a ``skos:example``.
* Source glossaries: ``<scheme/source/ID>``, ``dcterms:BibliographicResource`` with
  ``dcterms:identifier``, ``dcterms:title``, ``dcterms:language``, ``dcterms:description``,
  ``gkg:file``.
* Categories: one ``skos:Collection`` ``<scheme/category/ID>`` per category with
  ``skos:prefLabel``s and ``skos:member`` per concept (SKOS's own grouping construct; no
  hierarchy is implied, unlike ``skos:broader``).
* ``related_to`` edges: ``skos:related`` in both directions (it is symmetric in SKOS).
* ``confused_with`` edges: ``gkg:confusedWith``, one triple per pair as the document gives it.
  The property is declared in the output as ``owl:ObjectProperty, owl:SymmetricProperty`` with
  ``rdfs:label``/``rdfs:comment`` (so a reasoner infers the other direction). It is *not* a
  sub-property of ``skos:related``: confusable terms are a usage warning, not a semantic link.
  All ``gkg:`` terms used are declared the same way (:data:`GKG`).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, unquote

from rdflib import RDF, Graph, Literal, Namespace, URIRef
from rdflib.namespace import DCTERMS, OWL, RDFS, SKOS, XSD

from kg.export._common import (
    ExportDoc,
    category_labels,
    editorial_names,
    kind,
    label_origin,
    labels,
    mentioned_note,
    mentions,
    nodes,
    script_lang,
    strings,
    valid_edges,
)

DEFAULT_BASE = "https://glossary-kg.local/term/"
GKG = Namespace("https://glossary-kg.local/ns#")
JSONLD_CONTEXT: dict[str, str] = {
    "skos": str(SKOS),
    "dcterms": str(DCTERMS),
    "gkg": str(GKG),
    "owl": str(OWL),
    "rdfs": str(RDFS),
    "rdf": str(RDF),
    "xsd": str(XSD),
}

# (term, rdf types, English label, Chinese label, comment)
_VOCABULARY: tuple[tuple[URIRef, tuple[URIRef, ...], str, str, str], ...] = (
    (
        GKG.confusedWith,
        (OWL.ObjectProperty, OWL.SymmetricProperty),
        "confused with",
        "易混淆",
        "The two concepts are different but often mistaken for one another; symmetric.",
    ),
    (
        GKG.abbreviation,
        (OWL.DatatypeProperty,),
        "abbreviation",
        "缩写",
        "An abbreviation or acronym of the concept (also given as skos:altLabel).",
    ),
    (
        GKG.Definition,
        (OWL.Class,),
        "definition",
        "定义",
        "One source's definition of a concept: rdf:value is the text, dcterms:source the glossary.",
    ),
    (
        GKG.hasDefinition,
        (OWL.ObjectProperty,),
        "has definition",
        "有定义",
        "Links a skos:Concept to a gkg:Definition carrying the provenance of its skos:definition.",
    ),
    (
        GKG.section,
        (OWL.DatatypeProperty,),
        "section",
        "章节",
        "Section of the source glossary the definition appears in.",
    ),
    (GKG.line, (OWL.DatatypeProperty,), "line", "行号", "Line number of the definition in the source file."),
    (
        GKG.editorialName,
        (OWL.DatatypeProperty,),
        "editorial name",
        "编辑补充的名称",
        "A name of the concept that no source gives: an editorial decision of the glossary.",
    ),
    (
        GKG.labelOrigin,
        (OWL.DatatypeProperty,),
        "label origin",
        "名称来源",
        'Who gave a prefLabel, as "lang:origin": source, rule (read from the sources\' text) or '
        "editorial (an editorial decision; no source names the concept so).",
    ),
    (GKG.file, (OWL.DatatypeProperty,), "file", "文件", "File name of a source glossary."),
    (
        GKG.kind,
        (OWL.DatatypeProperty,),
        "node kind",
        "节点类型",
        "'defined' (a source glossary defines the concept) or 'mentioned' (definitions only mention "
        "the name: it has no skos:definition, a skos:scopeNote says so and skos:example quotes the "
        "sentences that mention it).",
    ),
)


def _iri_part(value: str) -> str:
    return quote(value, safe="-._~")


def scheme_iri(base: str) -> URIRef:
    """The concept scheme's IRI: *base* without its trailing ``/`` or ``#``."""
    return URIRef(base.rstrip("/#"))


def concept_iri(base: str, node_id: str) -> URIRef:
    """A concept's IRI: *base* + percent-encoded node id."""
    return URIRef(base + _iri_part(node_id))


def _declare_vocabulary(g: Graph) -> None:
    for term, types, en, zh, comment in _VOCABULARY:
        for t in types:
            g.add((term, RDF.type, t))
        g.add((term, RDFS.label, Literal(en, lang="en")))
        g.add((term, RDFS.label, Literal(zh, lang="zh")))
        g.add((term, RDFS.comment, Literal(comment, lang="en")))
        g.add((term, RDFS.isDefinedBy, URIRef(str(GKG))))
    g.add((GKG.confusedWith, RDFS.domain, SKOS.Concept))
    g.add((GKG.confusedWith, RDFS.range, SKOS.Concept))
    g.add((GKG.hasDefinition, RDFS.range, GKG.Definition))


def _add_concept(g: Graph, node: Mapping[str, Any], iri: URIRef, scheme: URIRef, source_iri: Any) -> None:
    """Triples of one concept: labels, abbreviations, sources, definitions with provenance."""
    g.add((iri, RDF.type, SKOS.Concept))
    g.add((iri, SKOS.inScheme, scheme))
    g.add((iri, DCTERMS.identifier, Literal(str(node["id"]))))
    pref = labels(node)
    for lang, text in pref.items():
        g.add((iri, SKOS.prefLabel, Literal(text, lang=lang)))
    for lang, origin in label_origin(node).items():
        g.add((iri, GKG.labelOrigin, Literal(f"{lang}:{origin}")))
    for name in editorial_names(node):
        g.add((iri, GKG.editorialName, Literal(name, lang=script_lang(name))))
    for name in [*strings(node.get("abbreviations")), *strings(node.get("aliases"))]:
        lang = script_lang(name)
        if pref.get(lang) != name:
            g.add((iri, SKOS.altLabel, Literal(name, lang=lang)))
    for abbr in strings(node.get("abbreviations")):
        g.add((iri, GKG.abbreviation, Literal(abbr)))
    for sid in strings(node.get("sources")):
        g.add((iri, DCTERMS.source, source_iri(sid)))
    g.add((iri, GKG.kind, Literal(kind(node))))
    if kind(node) == "mentioned":  # never a definition: a scope note and the sentences as examples
        g.add((iri, SKOS.scopeNote, Literal(mentioned_note(node, "en"), lang="en")))
        g.add((iri, SKOS.scopeNote, Literal(mentioned_note(node, "zh"), lang="zh")))
        for m in mentions(node):
            g.add((iri, SKOS.example, Literal(str(m["sentence"]), lang=script_lang(str(m["sentence"])))))
    defs = [d for d in node.get("definitions") or [] if d.get("text")]
    for n, d in enumerate(defs, start=1):
        text = Literal(str(d["text"]), lang=str(d.get("lang") or "und"))
        g.add((iri, SKOS.definition, text))
        res = URIRef(f"{scheme}/definition/{_iri_part(str(node['id']))}.{n}")
        g.add((iri, GKG.hasDefinition, res))
        g.add((res, RDF.type, GKG.Definition))
        g.add((res, RDF.value, text))
        if d.get("source"):
            g.add((res, DCTERMS.source, source_iri(str(d["source"]))))
        if d.get("section"):
            g.add((res, GKG.section, Literal(str(d["section"]))))
        if d.get("line") is not None:
            g.add((res, GKG.line, Literal(int(d["line"]))))
        if d.get("note"):
            g.add((res, SKOS.note, Literal(str(d["note"]), lang=script_lang(str(d["note"])))))


def build_graph(doc: ExportDoc, base: str = DEFAULT_BASE, title: str = "glossary-kg") -> Graph:
    """The rdflib graph both SKOS serialisations are written from (see the module docstring)."""
    g = Graph(bind_namespaces="core")
    g.bind("term", base)
    g.bind("skos", SKOS)
    g.bind("dcterms", DCTERMS)
    g.bind("gkg", GKG)
    g.bind("owl", OWL)
    scheme = scheme_iri(base)
    g.add((scheme, RDF.type, SKOS.ConceptScheme))
    g.add((scheme, DCTERMS.title, Literal(title)))
    _declare_vocabulary(g)

    def source_iri(sid: str) -> URIRef:
        return URIRef(f"{scheme}/source/{_iri_part(sid)}")

    for s in doc.get("sources") or []:
        iri = source_iri(str(s["id"]))
        g.add((iri, RDF.type, DCTERMS.BibliographicResource))
        g.add((iri, DCTERMS.identifier, Literal(str(s["id"]))))
        lang = str(s["language"]) if s.get("language") else None
        if lang:
            g.add((iri, DCTERMS.language, Literal(lang)))
        if s.get("title"):
            g.add((iri, DCTERMS.title, Literal(str(s["title"]), lang=lang)))
        if s.get("description"):
            g.add((iri, DCTERMS.description, Literal(str(s["description"]), lang=lang)))
        if s.get("file"):
            g.add((iri, GKG.file, Literal(str(s["file"]))))

    for cid, lab in category_labels(doc).items():
        coll = URIRef(f"{scheme}/category/{_iri_part(cid)}")
        g.add((coll, RDF.type, SKOS.Collection))
        g.add((coll, DCTERMS.identifier, Literal(cid)))
        for lang, text in lab.items():
            g.add((coll, SKOS.prefLabel, Literal(text, lang=lang)))

    for node in nodes(doc):
        iri = concept_iri(base, str(node["id"]))
        _add_concept(g, node, iri, scheme, source_iri)
        for cid in strings(node.get("categories")):
            g.add((URIRef(f"{scheme}/category/{_iri_part(cid)}"), SKOS.member, iri))

    for e in valid_edges(doc):
        s, t = concept_iri(base, str(e["source"])), concept_iri(base, str(e["target"]))
        if e["type"] == "related_to":
            g.add((s, SKOS.related, t))
            g.add((t, SKOS.related, s))
        else:
            g.add((s, GKG.confusedWith, t))
    return g


def to_skos_turtle(doc: ExportDoc, base: str = DEFAULT_BASE) -> str:
    """The glossary as a SKOS concept scheme in Turtle."""
    return build_graph(doc, base).serialize(format="turtle")


def _sorted_sets(value: Any) -> Any:
    """JSON-LD with every array sorted (arrays other than ``@list`` are unordered sets)."""
    if isinstance(value, dict):
        return {k: (v if k == "@list" else _sorted_sets(v)) for k, v in value.items()}
    if isinstance(value, list):
        items = [_sorted_sets(v) for v in value]
        return sorted(items, key=lambda v: json.dumps(v, ensure_ascii=False, sort_keys=True))
    return value


def to_jsonld(doc: ExportDoc, base: str = DEFAULT_BASE) -> str:
    """The same graph as :func:`to_skos_turtle`, as JSON-LD compacted with :data:`JSONLD_CONTEXT`.

    rdflib emits nodes in hash order; arrays are sorted here so the text is deterministic.
    """
    raw = build_graph(doc, base).serialize(format="json-ld", context=JSONLD_CONTEXT)
    return json.dumps(_sorted_sets(json.loads(raw)), ensure_ascii=False, indent=2, sort_keys=True) + "\n"


_FORMATS = {"turtle": "turtle", "ttl": "turtle", "json-ld": "json-ld", "jsonld": "json-ld"}


def _key(g: Graph, res: Any) -> str:
    ident = g.value(res, DCTERMS.identifier)
    if ident is not None:
        return str(ident)
    tail = str(res).rstrip("/").rsplit("/", 1)[-1].rsplit("#", 1)[-1]
    return unquote(tail)


def read_skos(text: str, format: str = "turtle") -> dict[str, dict[str, Any]]:
    """Parse SKOS written by this module back into plain data, keyed by node id.

    Each concept maps to ``{"uri", "prefLabels": {lang: [..]}, "altLabels": {lang: [..]},
    "abbreviations", "labelOrigin": {lang: origin}, "editorialNames", "definitions": [{"lang", "text", "source", "section", "line"}],
    "related", "confusedWith", "collections", "inScheme", "kind", "scopeNotes", "examples"}``
    (lists sorted). ``confusedWith``
    reads ``gkg:confusedWith`` in both directions, as the property is symmetric; ``related``
    lists only the ``skos:related`` triples actually present.
    """
    if format not in _FORMATS:
        raise ValueError(f"unknown RDF format {format!r}; use one of {sorted(_FORMATS)}")
    g = Graph()
    with warnings.catch_warnings():
        # rdflib's own JSON-LD parser uses its deprecated ConjunctiveGraph internally.
        warnings.filterwarnings(
            "ignore", message="ConjunctiveGraph is deprecated", category=DeprecationWarning
        )
        g.parse(data=text, format=_FORMATS[format])
    out: dict[str, dict[str, Any]] = {}
    for concept in sorted(set(g.subjects(RDF.type, SKOS.Concept)), key=str):
        pref: dict[str, list[str]] = {}
        alt: dict[str, list[str]] = {}
        for prop, target in ((SKOS.prefLabel, pref), (SKOS.altLabel, alt)):
            for lit in g.objects(concept, prop):
                target.setdefault(getattr(lit, "language", None) or "", []).append(str(lit))
        defs = []
        for res in g.objects(concept, GKG.hasDefinition):
            value = g.value(res, RDF.value)
            src = g.value(res, DCTERMS.source)
            line = g.value(res, GKG.line)
            section = g.value(res, GKG.section)
            defs.append(
                {
                    "lang": getattr(value, "language", None),
                    "text": str(value) if value is not None else None,
                    "source": _key(g, src) if src is not None else None,
                    "section": str(section) if section is not None else None,
                    "line": int(line.toPython()) if isinstance(line, Literal) else None,
                }
            )
        confused = {*g.objects(concept, GKG.confusedWith), *g.subjects(GKG.confusedWith, concept)}
        out[_key(g, concept)] = {
            "uri": str(concept),
            "prefLabels": {k: sorted(v) for k, v in pref.items()},
            "altLabels": {k: sorted(v) for k, v in alt.items()},
            "abbreviations": sorted(str(a) for a in g.objects(concept, GKG.abbreviation)),
            "editorialNames": sorted(str(n) for n in g.objects(concept, GKG.editorialName)),
            "labelOrigin": dict(
                sorted(str(o).partition(":")[::2] for o in g.objects(concept, GKG.labelOrigin))
            ),
            "definitions": sorted(defs, key=lambda d: (str(d["lang"]), str(d["text"]))),
            "skosDefinitions": sorted(
                (getattr(d, "language", None) or "", str(d)) for d in g.objects(concept, SKOS.definition)
            ),
            "related": sorted(_key(g, r) for r in g.objects(concept, SKOS.related)),
            "confusedWith": sorted(_key(g, c) for c in confused),
            "collections": sorted(_key(g, c) for c in g.subjects(SKOS.member, concept)),
            "kind": str(g.value(concept, GKG.kind) or "defined"),
            "scopeNotes": sorted(str(n) for n in g.objects(concept, SKOS.scopeNote)),
            "examples": sorted(str(x) for x in g.objects(concept, SKOS.example)),
            "inScheme": sorted(str(s) for s in g.objects(concept, SKOS.inScheme)),
        }
    return out
