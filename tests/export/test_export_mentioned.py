"""Every exporter marks a mentioned-only node as such and never presents a mention as a definition."""

from __future__ import annotations

import copy
import csv
import io
import json
from typing import Any

import pytest

from kg.export import read_skos, read_tbx, to_csv, to_json, to_jsonld, to_markdown, to_skos_turtle, to_tbx
from kg.export.markdown import MENTIONED

SENTENCE = "PyTorch 2.0 起的 JIT 编译入口，底层走 TorchDynamo + Inductor，能做图捕获、融合、kernel 生成。"


@pytest.fixture
def mdoc(doc: dict[str, Any]) -> dict[str, Any]:
    """The exporters' document plus one mentioned node, linked from a defined term."""
    out = copy.deepcopy(doc)
    for n in out["nodes"]:
        n["kind"] = "defined"
    out["nodes"].append(
        {
            "id": "torchdynamo",
            "kind": "mentioned",
            "labels": {"en": "TorchDynamo"},
            "aliases": [],
            "abbreviations": [],
            "definitions": [],
            "categories": [],
            "sources": ["002"],
            "mentioned_in": [{"source": "002", "line": 80, "sentence": SENTENCE, "term": "prefill"}],
        }
    )
    out["edges"].append(
        {
            "source": "prefill",
            "target": "torchdynamo",
            "type": "related_to",
            "evidence": SENTENCE,
            "origin": "mention",
            "doc": "002",
            "line": 80,
        }
    )
    return out


def test_json_keeps_kind_and_mentions(mdoc: dict[str, Any]) -> None:
    nodes = {n["id"]: n for n in json.loads(to_json(mdoc))["nodes"]}
    node = nodes["torchdynamo"]
    assert list(node)[:2] == ["id", "kind"] and node["kind"] == "mentioned"
    assert node["definitions"] == [] and node["mentioned_in"][0]["sentence"] == SENTENCE
    assert nodes["prefill"]["kind"] == "defined"


def test_csv_has_a_kind_column_and_no_definition(mdoc: dict[str, Any]) -> None:
    rows = {r["id"]: r for r in csv.DictReader(io.StringIO(to_csv(mdoc)))}
    row = rows["torchdynamo"]
    assert (row["kind"], row["mentioned_in"]) == ("mentioned", "002:80")
    assert row["definition_zh"] == row["definition_en"] == ""
    assert rows["prefill"]["kind"] == "defined" and "torchdynamo" in rows["prefill"]["related"]


def test_skos_scope_note_and_examples_never_a_definition(mdoc: dict[str, Any]) -> None:
    for text, fmt in ((to_skos_turtle(mdoc), "turtle"), (to_jsonld(mdoc), "json-ld")):
        data = read_skos(text, fmt)
        c = data["torchdynamo"]
        assert c["kind"] == "mentioned" and c["definitions"] == [] and c["skosDefinitions"] == []
        assert any("not defined in the glossary" in n for n in c["scopeNotes"])
        assert c["examples"] == [SENTENCE]
        assert data["prefill"]["kind"] == "defined" and data["prefill"]["scopeNotes"] == []
        assert "torchdynamo" in data["prefill"]["related"]


def test_tbx_note_and_context_never_a_definition(mdoc: dict[str, Any]) -> None:
    data = read_tbx(to_tbx(mdoc))
    entry = data["torchdynamo"]
    assert entry["definitions"] == []
    assert entry["notes"] and "not defined in the glossary" in entry["notes"][0]
    assert entry["contexts"] == [{"text": SENTENCE, "source": "002"}]
    assert entry["labels"] == {"en": ["TorchDynamo"]}
    assert data["prefill"]["notes"] == [] and data["prefill"]["contexts"] == []


def test_markdown_lists_mentions_in_their_own_section(mdoc: dict[str, Any]) -> None:
    md = to_markdown(mdoc)
    head, _, tail = md.partition(f"## {MENTIONED}")
    assert tail, "no section for mentioned names"
    assert "TorchDynamo" not in head.split("## Sources")[0].replace("[TorchDynamo](#torchdynamo)", "")
    section = tail.split("## Sources")[0]
    assert "TorchDynamo is not defined in the glossary" in section
    assert "[[002](#source-002)]" in section and "— in [" in section
    assert "· 1 names mentioned but not defined" in md


def test_tbx_context_sits_in_a_term_section(mdoc: dict[str, Any]) -> None:
    import xml.etree.ElementTree as ET

    root = ET.fromstring(to_tbx(mdoc).encode("utf-8"))
    parents = {child: parent for parent in root.iter() for child in parent}
    contexts = [d for d in root.iter() if d.tag.endswith("descrip") and d.get("type") == "context"]
    assert len(contexts) == 1
    grp = parents[contexts[0]]
    assert grp.tag.endswith("descripGrp") and parents[grp].tag.endswith("termSec")
    assert [c.tag.rsplit("}", 1)[-1] for c in parents[grp]][:3] == ["term", "termNote", "termNote"]
