"""``label_origin`` in every export: a label no source gives (an editorial decision of
corpus/overlay.json) is marked as such in JSON, CSV, TBX, SKOS and Markdown."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest

from kg.export import read_skos, read_tbx, to_csv, to_json, to_jsonld, to_markdown, to_skos_turtle, to_tbx


@pytest.fixture
def marked(doc: dict[str, Any]) -> dict[str, Any]:
    """The test document with one editorial English label (and a node with no origin recorded)."""
    node = next(n for n in doc["nodes"] if n["id"] == "time-to-first-token")
    node["label_origin"] = {"en": "editorial", "zh": "source"}
    node["editorial_names"] = ["Time to first token", "TTFT"]
    return doc


def test_json_keeps_label_origin_next_to_labels(marked: dict[str, Any]) -> None:
    node = next(n for n in json.loads(to_json(marked))["nodes"] if n["id"] == "time-to-first-token")
    assert node["label_origin"] == {"en": "editorial", "zh": "source"}
    assert list(node)[:3] == ["id", "labels", "label_origin"]


def test_csv_has_an_origin_per_label(marked: dict[str, Any]) -> None:
    rows = {r["id"]: r for r in csv.DictReader(io.StringIO(to_csv(marked)))}
    assert rows["time-to-first-token"]["label_en_origin"] == "editorial"
    assert rows["time-to-first-token"]["label_zh_origin"] == "source"
    assert rows["time-to-first-token"]["editorial_names"] == "Time to first token | TTFT"
    assert rows["memory-wall"]["label_en_origin"] == ""  # no English label: no origin
    assert rows["memory-wall"]["label_zh_origin"] == "source"  # nothing recorded: the source's


def test_tbx_notes_the_editorial_label(marked: dict[str, Any]) -> None:
    entry = read_tbx(to_tbx(marked))["time-to-first-token"]
    origins = {(t["lang"], t["term"]): t["origin"] for t in entry["terms"]}
    assert origins[("en", "Time to first token")] == "editorial"
    assert origins[("zh", "首 token 延迟")] == "source"
    assert origins[("en", "TTFT")] == "editorial" and origins[("zh", "首 token 时间")] == "source"
    assert to_tbx(marked).count("origin: editorial") == 2


@pytest.mark.parametrize("fmt", ["turtle", "json-ld"])
def test_skos_label_origin_round_trips(marked: dict[str, Any], fmt: str) -> None:
    text = to_skos_turtle(marked) if fmt == "turtle" else to_jsonld(marked)
    concept = read_skos(text, fmt)["time-to-first-token"]
    assert concept["labelOrigin"] == {"en": "editorial", "zh": "source"}
    assert concept["editorialNames"] == ["TTFT", "Time to first token"]


def test_markdown_says_which_name_is_editorial(marked: dict[str, Any]) -> None:
    md = to_markdown(marked)
    block = md[md.index('<a id="time-to-first-token">') :].split("### ")[0]
    assert "Editorial name: Time to first token, TTFT" in block
    assert md.count("Editorial name:") == 1
