"""The dispatcher: every format renders, media types, unknown formats."""

from __future__ import annotations

import pytest

from kg.export import FORMATS, export

EXPECTED_MEDIA = {
    "json": "application/json",
    "csv": "text/csv; charset=utf-8",
    "tbx": "application/x-tbx+xml",
    "skos-turtle": "text/turtle",
    "jsonld": "application/ld+json",
    "markdown": "text/markdown; charset=utf-8",
    "mkdocs-abbr": "text/markdown; charset=utf-8",
    "docusaurus": "application/json",
}
# Formats that hold only some terms: mkdocs-abbr writes abbreviations, not ids.
PARTIAL = {"mkdocs-abbr"}


def test_formats_are_exactly_the_documented_ones():
    assert set(FORMATS) == set(EXPECTED_MEDIA)


@pytest.mark.parametrize("fmt", sorted(EXPECTED_MEDIA))
def test_each_format_renders_every_node(doc, fmt):
    content, media_type = export(doc, fmt)
    assert media_type == EXPECTED_MEDIA[fmt]
    assert isinstance(content, str) and content.strip()
    for node in doc["nodes"]:
        if fmt not in PARTIAL:
            # TBX escapes ids that are not XML names; docusaurus prefixes ids that start with a digit
            assert node["id"] in content or fmt in ("tbx", "docusaurus")
    content.encode("utf-8")  # every format is UTF-8 text


@pytest.mark.parametrize("fmt", sorted(EXPECTED_MEDIA))
def test_output_is_deterministic_and_does_not_mutate(doc, fmt):
    before = repr(doc)
    assert export(doc, fmt) == export(doc, fmt)
    assert repr(doc) == before


@pytest.mark.parametrize("fmt", ["xml", "", "JSON", "skos"])
def test_unknown_format_raises_with_the_list(doc, fmt):
    with pytest.raises(ValueError) as err:
        export(doc, fmt)
    for name in EXPECTED_MEDIA:
        assert name in str(err.value)


@pytest.mark.parametrize("fmt", sorted(EXPECTED_MEDIA))
def test_empty_document(fmt):
    content, _ = export({"format": "glossary-kg", "version": 1, "nodes": [], "edges": []}, fmt)
    assert isinstance(content, str)
