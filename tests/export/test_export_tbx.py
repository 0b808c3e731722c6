"""TBX-Basic export: well-formed, TBX-Basic structure, and a round trip through read_tbx."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from kg.export import read_tbx, to_tbx
from kg.export.tbx import TBX_NS, TBX_NS_V3, node_id, xml_id

XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
NS = {"t": TBX_NS}
NCNAME = re.compile(r"[A-Za-z_][A-Za-z0-9._-]*")

# Value lists of the TBX-Basic dialect (LTAC TBX-Basic RNG + Schematron, DCA style).
TERM_TYPES = {"fullForm", "acronym", "abbreviation", "shortForm", "variant", "phrase"}
ADMIN_STATUS = {
    "admittedTerm-admn-sts",
    "deprecatedTerm-admn-sts",
    "supersededTerm-admn-sts",
    "preferredTerm-admn-sts",
}
DESCRIP_TYPES = {"context", "definition", "subjectField"}
ADMIN_TYPES = {"customerSubset", "projectSubset", "source"}
TERMNOTE_TYPES = {
    "administrativeStatus",
    "grammaticalGender",
    "geographicalUsage",
    "partOfSpeech",
    "termLocation",
    "termType",
}


def _local(el: ET.Element) -> str:
    return el.tag.rsplit("}", 1)[-1]


@pytest.fixture
def tbx(doc) -> str:
    return to_tbx(doc)


@pytest.fixture
def root(tbx) -> ET.Element:
    return ET.fromstring(tbx.encode("utf-8"))


def test_well_formed_with_declaration_and_tbx_basic_root(tbx, root):
    assert tbx.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    assert root.tag == f"{{{TBX_NS}}}tbx"
    assert root.get("type") == "TBX-Basic" and root.get("style") == "dca" and root.get(XML_LANG) == "en"
    assert [_local(c) for c in root] == ["tbxHeader", "text"]
    assert root.findall("t:tbxHeader/t:fileDesc/t:sourceDesc/t:p", NS)
    assert [_local(c) for c in root.find("t:text", NS)] == ["body"]


def test_one_concept_entry_per_node_with_valid_unique_ids(doc, root):
    entries = root.findall("t:text/t:body/t:conceptEntry", NS)
    assert [node_id(e.get("id")) for e in entries] == [n["id"] for n in doc["nodes"]]
    ids = [el.get("id") for el in root.iter() if el.get("id") is not None]
    assert len(ids) == len(set(ids))
    assert all(NCNAME.fullmatch(i) for i in ids)
    assert "_4-bit-quantization" in ids  # "4-bit-quantization" is not an XML name


def test_tbx_basic_structure(root):
    """The constraints of the TBX-Basic RNG/Schematron that this exporter can get wrong."""
    parents = {child: parent for parent in root.iter() for child in parent}
    for el in root.iter():
        name, parent = _local(el), parents.get(el)
        if name == "conceptEntry":
            kids = [_local(c) for c in el]
            assert "langSec" in kids
            assert kids.index("langSec") == len(kids) - kids[::-1].count("langSec")  # langSecs last
        elif name == "langSec":
            kids = [_local(c) for c in el]
            assert el.get(XML_LANG) and "termSec" in kids
            assert all(k == "termSec" for k in kids[kids.index("termSec") :])
        elif name == "termSec":
            assert _local(el[0]) == "term" and el[0].text
        elif name == "termNote":
            assert _local(parent) == "termSec"
            assert el.get("type") in TERMNOTE_TYPES
            if el.get("type") == "termType":
                assert el.text in TERM_TYPES
            if el.get("type") == "administrativeStatus":
                assert el.text in ADMIN_STATUS
        elif name == "descrip":
            assert el.get("type") in DESCRIP_TYPES
            if el.get("type") == "subjectField":
                assert _local(parent) == "conceptEntry"
            if el.get("type") == "definition":
                holder = parents[parent] if _local(parent) == "descripGrp" else parent
                assert _local(holder) in {"conceptEntry", "langSec"}
        elif name == "admin":
            assert el.get("type") in ADMIN_TYPES
        elif name == "ref":
            assert el.get("type") == "crossReference"
            assert _local(parent) in {"conceptEntry", "termSec"}


def test_ref_targets_are_concept_ids(root):
    entry_ids = {e.get("id") for e in root.iter(f"{{{TBX_NS}}}conceptEntry")}
    targets = {r.get("target") for r in root.iter(f"{{{TBX_NS}}}ref")}
    assert targets and targets <= entry_ids


def test_read_tbx_finds_every_name_in_its_language(doc, tbx, names_of):
    data = read_tbx(tbx)
    assert set(data) == {n["id"] for n in doc["nodes"]}
    for node in doc["nodes"]:
        got = {lang: set(terms) for lang, terms in data[node["id"]]["labels"].items()}
        assert got == names_of(node), node["id"]


def test_term_types(doc, tbx):
    data = read_tbx(tbx)
    for node in doc["nodes"]:
        kinds = {(t["lang"], t["term"]): (t["termType"], t["status"]) for t in data[node["id"]]["terms"]}
        for lang, label in node["labels"].items():
            assert kinds[(lang, label)] == ("fullForm", "preferredTerm-admn-sts")
        for abbr in node["abbreviations"]:
            assert kinds[("en", abbr)] == ("acronym", "admittedTerm-admn-sts")
        for alias in node["aliases"]:
            lang = "zh" if re.search(r"[\u4e00-\u9fff]", alias) else "en"
            if node["labels"].get(lang) != alias:  # a name repeating the label is written once, as label
                assert kinds[(lang, alias)] == ("variant", "admittedTerm-admn-sts")
        assert len(kinds) == len(data[node["id"]]["terms"])  # no name twice in one language


def test_chinese_abbreviation_goes_to_zh(doc):
    doc["nodes"][0]["abbreviations"].append("首延")
    assert "首延" in read_tbx(to_tbx(doc))["time-to-first-token"]["labels"]["zh"]


def test_definitions_keep_language_and_source(doc, tbx):
    data = read_tbx(tbx)
    for node in doc["nodes"]:
        got = {(d["lang"], d["text"], d["source"]) for d in data[node["id"]]["definitions"]}
        assert got == {(d["lang"], d["text"], d["source"]) for d in node["definitions"]}
    notes = [d["note"] for d in data["time-per-output-token"]["definitions"]]
    assert notes == ["打字速度"]


def test_definition_without_terms_in_its_language_sits_at_concept_level(root):
    entry = root.find("t:text/t:body/t:conceptEntry[@id='memory-wall']", NS)
    assert [s.get(XML_LANG) for s in entry.findall("t:langSec", NS)] == ["zh"]
    top = entry.find("t:descripGrp/t:descrip", NS)
    assert top.get("type") == "definition" and top.get(XML_LANG) == "en"
    assert top.text == "Memory bandwidth lags compute."


def test_cross_references(doc, tbx, expected_related, expected_confused):
    data = read_tbx(tbx)
    for node in doc["nodes"]:
        refs = data[node["id"]]["refs"]
        assert {r["target"] for r in refs if r["type"] == "related_to"} == expected_related[node["id"]]
        assert {r["target"] for r in refs if r["type"] == "confused_with"} == expected_confused[node["id"]]
    ttft = {r["target"]: r["text"] for r in data["time-to-first-token"]["refs"]}
    assert ttft == {"prefill": "Prefill", "time-per-output-token": "Time per output token"}
    assert "confused with: Time per output token" in tbx
    assert "ghost-node" not in tbx


def test_subject_fields(doc, tbx):
    data = read_tbx(tbx)
    labels = {c["id"]: c["labels"]["en"] for c in doc["categories"]}
    for node in doc["nodes"]:
        assert data[node["id"]]["subjectFields"] == [labels[c] for c in node["categories"]]


def test_special_characters_escaped_and_restored(doc, tbx):
    assert "key &amp; value cache &lt;KV&gt;" in tbx
    assert "key & value cache <KV>" in read_tbx(tbx)["kv-cache"]["labels"]["en"]


def test_control_characters_do_not_break_xml(doc):
    doc["nodes"][0]["definitions"][0]["text"] = "bad\x01char\x0b"
    text = to_tbx(doc)
    ET.fromstring(text)
    assert ("zh", "badchar") in {
        (d["lang"], d["text"]) for d in read_tbx(text)["time-to-first-token"]["definitions"]
    }


def test_v3_namespace_option_reads_back_the_same(doc, tbx):
    v3 = to_tbx(doc, namespace=TBX_NS_V3)
    assert ET.fromstring(v3).tag == f"{{{TBX_NS_V3}}}tbx"
    assert read_tbx(v3) == read_tbx(tbx)


def test_node_without_any_name_still_has_a_term():
    doc = {
        "nodes": [{"id": "x1", "labels": {}, "aliases": [], "abbreviations": [], "definitions": []}],
        "edges": [],
    }
    assert read_tbx(to_tbx(doc))["x1"]["labels"] == {"en": ["x1"]}


@pytest.mark.parametrize("raw", ["kv-cache", "4-bit", "_private", "a b/c", "中文", "a_b", "x.y", "_5f_"])
def test_xml_id_is_an_ncname_and_reversible(raw):
    assert NCNAME.fullmatch(xml_id(raw))
    assert node_id(xml_id(raw)) == raw


def test_read_tbx_rejects_other_xml():
    with pytest.raises(ValueError):
        read_tbx("<martif/>")
    with pytest.raises(ET.ParseError):
        read_tbx("<tbx>")
