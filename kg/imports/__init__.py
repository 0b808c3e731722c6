"""Importers: a team's own glossary in a standard format, read like the seed layouts.

A source of ``manifest.json`` names one of these as its ``parser`` (docs/IMPORTS.md):

- ``csv``, ``tsv``: one row per term, documented columns (:mod:`.table`);
- ``tbx``: TBX-Basic, TBX v3 (``<tbx>``, what we export) and TBX 2008 (``<martif>``) (:mod:`.tbx`);
- ``skos-turtle``, ``skos-jsonld``: SKOS concepts, read with rdflib; no remote ``@context``
  (:mod:`.skos`);
- ``json``: the glossary-kg export document, ``glossary export --format json`` (:mod:`.jsondoc`);
- ``markdown``: Markdown definition lists, ``Term`` then ``: definition`` (:mod:`.markdown`);
- ``sphinx``: reStructuredText ``.. glossary::`` blocks (:mod:`.sphinx`).

Each is a function ``(text, source_id, file) -> ParsedSource`` built on :mod:`.records`, so the
entries go through the same overlay, merge and relation steps as the seed layouts. What the build
adds for imported sources (categories as topics, stated relations as edges) is in
:mod:`.resolve`; ``glossary init`` writes a starter corpus (:mod:`.starter`).
"""

from __future__ import annotations

from collections.abc import Callable

from kg.imports.jsondoc import parse_json
from kg.imports.markdown import parse_markdown
from kg.imports.skos import parse_skos_jsonld, parse_skos_turtle
from kg.imports.sphinx import parse_sphinx
from kg.imports.table import parse_csv, parse_tsv
from kg.imports.tbx import parse_tbx
from kg.model import ParsedSource

IMPORTERS: dict[str, Callable[..., ParsedSource]] = {
    "csv": parse_csv,
    "tsv": parse_tsv,
    "tbx": parse_tbx,
    "skos-turtle": parse_skos_turtle,
    "skos-jsonld": parse_skos_jsonld,
    "json": parse_json,
    "markdown": parse_markdown,
    "sphinx": parse_sphinx,
}

__all__ = ["IMPORTERS"]
