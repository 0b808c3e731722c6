"""CSV export."""

from __future__ import annotations

import csv
import io

from kg.export import CSV_COLUMNS, to_csv


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text, newline="")))


def _split(cell: str) -> list[str]:
    return cell.split(" | ") if cell else []


def test_header_and_one_row_per_node(doc):
    text = to_csv(doc)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    assert reader.fieldnames == list(CSV_COLUMNS)
    assert [r["id"] for r in reader] == [n["id"] for n in doc["nodes"]]


def test_cells_round_trip_against_the_fixture(doc):
    rows = {r["id"]: r for r in _rows(to_csv(doc))}
    for node in doc["nodes"]:
        row = rows[node["id"]]
        assert row["label_en"] == node["labels"].get("en", "")
        assert row["label_zh"] == node["labels"].get("zh", "")
        assert _split(row["aliases"]) == node["aliases"]
        assert _split(row["abbreviations"]) == node["abbreviations"]
        assert _split(row["categories"]) == node["categories"]
        assert _split(row["sources"]) == node["sources"]
        zh = [d["text"] for d in node["definitions"] if d["lang"] == "zh"]
        en = [d["text"] for d in node["definitions"] if d["lang"] == "en"]
        assert row["definition_zh"] == (zh[0] if zh else "")
        assert row["definition_en"] == (en[0] if en else "")


def test_special_characters_survive(doc, nodes_by_id):
    rows = {r["id"]: r for r in _rows(to_csv(doc))}
    assert "key & value cache <KV>" in _split(rows["kv-cache"]["aliases"])
    assert rows["kv-cache"]["definition_zh"] == nodes_by_id["kv-cache"]["definitions"][0]["text"]
    assert rows["memory-wall"]["label_en"] == ""


def test_edges_listed_on_both_terms(doc, expected_related, expected_confused):
    rows = {r["id"]: r for r in _rows(to_csv(doc))}
    for nid, row in rows.items():
        assert set(_split(row["related"])) == expected_related[nid]
        assert set(_split(row["confused_with"])) == expected_confused[nid]
    assert "ghost-node" not in to_csv(doc)


def test_multiline_text_is_quoted(doc):
    doc["nodes"][0]["definitions"][0]["text"] = 'line one\nline "two", with comma'
    rows = _rows(to_csv(doc))
    assert rows[0]["definition_zh"] == 'line one\nline "two", with comma'
    assert len(rows) == len(doc["nodes"])
