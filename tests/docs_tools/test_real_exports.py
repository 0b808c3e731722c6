"""The docs-tool exports of the real corpus: valid for the tools that read them, nothing lost."""

from __future__ import annotations

import json
import re
from typing import Any

from kg.export import to_docusaurus, to_mkdocs_abbr
from kg.export.mkdocs_abbr import matchable
from tests.export.docusaurus_rules import plugin_errors

ABBR_LINE = re.compile(r"^[*]\[(?P<abbr>[^\\]*?)\][ ]?:[ ]*(?P<title>.*)$")


def test_docusaurus_glossary_of_the_real_corpus_is_valid(real_doc: dict[str, Any]) -> None:
    data = json.loads(to_docusaurus(real_doc))
    assert plugin_errors(data) == []
    assert len(data["terms"]) == len(real_doc["nodes"])
    confused_nodes = {
        n for e in real_doc["edges"] if e["type"] == "confused_with" for n in (e["source"], e["target"])
    }
    warned = [t for t in data["terms"] if "易混淆 / often confused with:" in t["definition"]]
    assert len(warned) == len(confused_nodes) > 0


def test_mkdocs_abbreviations_of_the_real_corpus(real_doc: dict[str, Any]) -> None:
    text = to_mkdocs_abbr(real_doc)
    abbrs = [ABBR_LINE.match(line).group("abbr") for line in text.splitlines()]
    expected = {a for n in real_doc["nodes"] for a in n["abbreviations"] if matchable(a)}
    assert set(abbrs) == expected and len(abbrs) == len(expected)
    assert "TTFT" in abbrs and "EP" in abbrs
