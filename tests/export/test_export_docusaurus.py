"""Docusaurus glossary.json: the plugin's own validation rules (tests/export/docusaurus_rules.py), the mapping, collisions."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from kg.export import export, to_docusaurus
from tests.export.docusaurus_rules import plugin_errors


def by_id(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["id"]: t for t in data["terms"]}


def test_valid_for_the_plugin_and_complete(doc):
    content, media = export(doc, "docusaurus")
    assert media == "application/json"
    data = json.loads(content)
    assert plugin_errors(data) == []
    assert {t["id"] for t in data["terms"]} == {
        "time-to-first-token",
        "time-per-output-token",
        "prefill",
        "decode",
        "kv-cache",
        "memory-wall",
        "term-4-bit-quantization",  # ids must start with a letter
    }


def test_mapping_of_one_term(doc):
    t = by_id(json.loads(to_docusaurus(doc)))["time-to-first-token"]
    assert t["term"] == "Time to first token"
    assert t["aliases"] == ["首 token 延迟", "TTFT", "首 token 时间", "time-to-first-token"]
    assert t["relatedTerms"] == ["Prefill", "Time per output token"]  # related_to, then confused_with
    assert t["definition"] == (
        "首 token 延迟 — Time from request arrival to the first output token. [001]"
        " / 从请求到达到首个 token 输出的时间，对应 prefill 阶段。 [002]"
        " 易混淆 / often confused with: Time per output token."
    )
    assert "abbreviation" not in t  # that field means "full form of an abbreviated term"


def test_chinese_only_term_and_edge_directions(doc):
    terms = by_id(json.loads(to_docusaurus(doc)))
    wall = terms["memory-wall"]
    assert wall["term"] == "显存墙" and "aliases" not in wall
    assert wall["relatedTerms"] == ["4-bit quantization"]
    assert terms["term-4-bit-quantization"]["relatedTerms"] == ["显存墙"]  # the incoming edge too
    assert "ghost-node" not in to_docusaurus(doc)  # the dangling edge is ignored


def test_name_collisions_still_validate(doc):
    clash = copy.deepcopy(doc)
    nodes = {n["id"]: n for n in clash["nodes"]}
    nodes["prefill"]["aliases"].append("ttft")  # TTFT is time-to-first-token's abbreviation
    nodes["decode"]["aliases"].append("shared name")
    nodes["kv-cache"]["aliases"].append("Shared Name")  # ambiguous between two terms
    nodes["memory-wall"]["labels"]["en"] = "Prefill"  # same label as another term
    clash["nodes"].append(
        {"id": "Prefill", "labels": {"en": "prefill"}, "aliases": [], "abbreviations": [], "definitions": []}
    )
    data = json.loads(to_docusaurus(clash))
    assert plugin_errors(data) == []
    terms = by_id(data)
    # "TTFT" (an abbreviation) and "ttft" (another term's alias) are one phrase: ambiguous, on neither
    assert "ttft" not in terms["prefill"].get("aliases", [])
    assert "TTFT" not in terms["time-to-first-token"]["aliases"]
    assert all("shared name" not in [a.lower() for a in t.get("aliases", [])] for t in data["terms"])
    assert terms["memory-wall"]["term"] == "Prefill (memory-wall)"
    assert terms["Prefill-x"]["term"] == "prefill (Prefill)"  # id clash with "prefill" (case-insensitive)
    assert terms["Prefill-x"]["definition"]  # no definition in the sources, still non-empty


def test_odd_characters_round_trip(doc):
    odd = copy.deepcopy(doc)
    odd["nodes"][0]["definitions"][1]["text"] = 'He said "hi"\n\t<script>alert(1)</script> \\ \u2028 end'
    t = by_id(json.loads(to_docusaurus(odd)))["time-to-first-token"]
    assert 'He said "hi" <script>alert(1)</script> \\ end [001]' in t["definition"]
    assert "\n" not in t["definition"]


def test_validator_catches_what_the_plugin_rejects():
    """The ported rules are not vacuous."""
    bad = {
        "terms": [
            {"term": "A", "definition": "x", "id": "1a"},
            {"term": "D", "definition": "x", "relatedTerms": ["B"]},
            {"term": "a", "definition": ""},
            {"term": "C", "definition": "y", "aliases": ["c"]},
        ]
    }
    errs = plugin_errors(bad)
    assert any("id" in e for e in errs) and any("definition" in e for e in errs)
    assert any("phrase" in e for e in errs) and any("related" in e for e in errs)


@pytest.mark.parametrize("fmt", ["docusaurus", "mkdocs-abbr"])
def test_empty_document(fmt):
    content, _ = export({"nodes": [], "edges": []}, fmt)
    if fmt == "docusaurus":
        assert json.loads(content)["terms"] == []
