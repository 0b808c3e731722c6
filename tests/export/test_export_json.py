"""JSON export."""

from __future__ import annotations

import json

from kg.export import to_json


def test_json_round_trips_to_the_document(doc):
    assert json.loads(to_json(doc)) == doc


def test_json_is_pretty_unescaped_and_key_ordered(doc):
    text = to_json(doc)
    assert "首 token 延迟" in text and "\\u" not in text
    assert text.startswith('{\n  "format": "glossary-kg",\n  "version": 1,')
    top = list(json.loads(text))
    assert top == ["format", "version", "sources", "categories", "nodes", "edges"]
    node = json.loads(text)["nodes"][0]
    assert list(node)[:3] == ["id", "labels", "aliases"]
    assert list(node["definitions"][0]) == ["lang", "text", "source", "section", "line", "note"]


def test_json_key_order_does_not_depend_on_input_order(doc):
    shuffled = {k: doc[k] for k in reversed(list(doc))}
    shuffled["nodes"] = [{k: n[k] for k in reversed(list(n))} for n in doc["nodes"]]
    assert to_json(shuffled) == to_json(doc)


def test_json_keeps_unknown_keys(doc):
    doc["stats"] = {"nodes": 7}
    doc["nodes"][0]["extra"] = True
    data = json.loads(to_json(doc))
    assert data["stats"] == {"nodes": 7} and data["nodes"][0]["extra"] is True
