"""SKOS export (Turtle, JSON-LD): parses back with rdflib and matches the fixture."""

from __future__ import annotations

import re

import pytest
from rdflib import RDF, RDFS, Graph, Literal, Namespace, URIRef
from rdflib.compare import isomorphic
from rdflib.namespace import OWL, SKOS

from kg.export import read_skos, to_jsonld, to_skos_turtle

GKG = Namespace("https://glossary-kg.local/ns#")
BASE = "https://glossary-kg.local/term/"


def _lang(text: str) -> str:
    return "zh" if re.search(r"[\u4e00-\u9fff]", text) else "en"


@pytest.fixture
def turtle(doc) -> str:
    return to_skos_turtle(doc)


@pytest.fixture
def jsonld(doc) -> str:
    return to_jsonld(doc)


@pytest.fixture(params=["turtle", "json-ld"])
def concepts(request, turtle, jsonld) -> dict:
    return read_skos(turtle if request.param == "turtle" else jsonld, format=request.param)


@pytest.mark.filterwarnings("ignore:ConjunctiveGraph is deprecated:DeprecationWarning")
def test_both_serialisations_parse_to_the_same_graph(turtle, jsonld):
    g1 = Graph().parse(data=turtle, format="turtle")
    g2 = Graph().parse(data=jsonld, format="json-ld")
    assert len(g1) > 50
    assert isomorphic(g1, g2)


def test_every_node_is_a_concept_in_the_scheme(doc, concepts):
    assert set(concepts) == {n["id"] for n in doc["nodes"]}
    for nid, c in concepts.items():
        assert c["uri"] == BASE + nid
        assert c["inScheme"] == [BASE.rstrip("/")]


def test_pref_labels_one_per_language(doc, concepts):
    for node in doc["nodes"]:
        assert concepts[node["id"]]["prefLabels"] == {lang: [label] for lang, label in node["labels"].items()}


def test_alt_labels_for_aliases_and_abbreviations(doc, concepts):
    for node in doc["nodes"]:
        expected: dict[str, list[str]] = {}
        for name in [*node["aliases"], *node["abbreviations"]]:
            lang = _lang(name)
            if node["labels"].get(lang) != name:
                expected.setdefault(lang, []).append(name)
        got = concepts[node["id"]]["altLabels"]
        assert got == {lang: sorted(v) for lang, v in expected.items()}, node["id"]
        assert concepts[node["id"]]["abbreviations"] == sorted(node["abbreviations"])
    assert "key & value cache <KV>" in concepts["kv-cache"]["altLabels"]["en"]
    assert concepts["kv-cache"]["altLabels"]["zh"] == ["键值缓存"]


def test_definitions_with_provenance(doc, concepts):
    for node in doc["nodes"]:
        c = concepts[node["id"]]
        want = {(d["lang"], d["text"], d["source"], d["line"], d["section"]) for d in node["definitions"]}
        got = {(d["lang"], d["text"], d["source"], d["line"], d["section"]) for d in c["definitions"]}
        assert got == want
        assert sorted(c["skosDefinitions"]) == sorted((d["lang"], d["text"]) for d in node["definitions"])


def test_related_is_symmetric(turtle, concepts, expected_related):
    g = Graph().parse(data=turtle, format="turtle")
    pairs = set(g.subject_objects(SKOS.related))
    assert pairs and all((o, s) in pairs for s, o in pairs)
    for nid, c in concepts.items():
        assert set(c["related"]) == expected_related[nid]


def test_confused_with_is_a_declared_symmetric_property(doc, turtle, concepts, expected_confused):
    g = Graph().parse(data=turtle, format="turtle")
    given = {
        (URIRef(BASE + e["source"]), URIRef(BASE + e["target"]))
        for e in doc["edges"]
        if e["type"] == "confused_with"
    }
    assert set(g.subject_objects(GKG.confusedWith)) == given  # once per pair, as given
    assert (GKG.confusedWith, RDF.type, OWL.SymmetricProperty) in g
    assert (GKG.confusedWith, RDF.type, OWL.ObjectProperty) in g
    assert g.value(GKG.confusedWith, RDFS.comment) is not None
    assert Literal("confused with", lang="en") in set(g.objects(GKG.confusedWith, RDFS.label))
    assert not set(g.subject_objects(SKOS.related)) & given
    for nid, c in concepts.items():
        assert set(c["confusedWith"]) == expected_confused[nid]


def test_categories_are_collections(doc, concepts):
    for node in doc["nodes"]:
        assert concepts[node["id"]]["collections"] == sorted(node["categories"])


def test_skos_label_integrity(turtle):
    g = Graph().parse(data=turtle, format="turtle")
    for concept in g.subjects(RDF.type, SKOS.Concept):
        pref = set(g.objects(concept, SKOS.prefLabel))
        alt = set(g.objects(concept, SKOS.altLabel))
        assert not pref & alt
        langs = [p.language for p in pref]
        assert len(langs) == len(set(langs))


def test_dangling_edge_is_ignored(turtle, jsonld):
    assert "ghost-node" not in turtle and "ghost-node" not in jsonld


def test_custom_base_and_awkward_ids(doc):
    doc["nodes"][0]["id"] = "a b/c"
    doc["edges"] = [
        {**e, "source": "a b/c"} if e["source"] == "time-to-first-token" else e for e in doc["edges"]
    ]
    ttl = to_skos_turtle(doc, base="http://example.org/g#")
    data = read_skos(ttl)
    assert data["a b/c"]["uri"] == "http://example.org/g#a%20b%2Fc"
    assert data["a b/c"]["related"] == ["prefill"]
    assert "a b/c" in data["prefill"]["related"]


def test_read_skos_rejects_unknown_format(turtle):
    with pytest.raises(ValueError):
        read_skos(turtle, format="rdfxml")
