"""Exporters of the glossary graph: JSON, CSV, Markdown, TBX-Basic, SKOS (Turtle, JSON-LD).

Every exporter takes only *the export document*, a plain dict produced elsewhere, and
returns text. Use :func:`export` to pick one by name; it also gives the media type.

The export document::

    {
      "format": "glossary-kg", "version": 1,
      "sources": [                       # the source glossaries
        {"id": "002", "file": "002_5f868c8b64370bf3.txt", "title": "...",
         "language": "zh", "description": "..."}],
      "categories": [
        {"id": "metrics", "labels": {"en": "Performance metrics", "zh": "性能指标"}}],
      "nodes": [{                        # one per concept
        "id": "time-to-first-token",
        "labels": {"en": "Time to first token", "zh": "首 token 延迟"},   # either may be missing
        "label_origin": {"en": "source", "zh": "source"},  # or "rule" / "editorial" (overlay)
        "editorial_names": [],           # names (any kind) only an editorial decision gives
        "aliases": ["首 token 时间", "time-to-first-token"],
        "abbreviations": ["TTFT"],
        "definitions": [{"lang": "zh", "text": "...", "source": "002",
                         "section": "性能与指标", "line": 19, "note": None}],
        "categories": ["metrics"],       # category ids
        "categories_inferred": False,    # True: voted, see "category_inference"
        "sources": ["000", "001", "002", "004"],                          # source ids
        "kind": "defined"}],             # or "mentioned": no definitions, and instead
                                         # "mentioned_in": [{"source", "line", "sentence", "term"}]
      "edges": [{
        "source": "time-to-first-token", "target": "prefill",
        "type": "related_to",            # or "confused_with" (symmetric, listed once per pair)
        "evidence": "对应 prefill 阶段",
        "origin": "mention",             # "xref", "confusables-section", "contrast", ...
        "doc": "002", "line": 19}]       # where the evidence is
    }

Common conventions: a name's language is decided by script (any Chinese character → ``zh``,
else ``en``); per-term views (CSV, Markdown, TBX) show an edge on both of its terms, and
ignore edges whose ends are not nodes. Modules: :mod:`.json_export`, :mod:`.csv_export`,
:mod:`.markdown`, :mod:`.tbx` (modelling notes there), :mod:`.skos` (modelling notes there); for
docs tools :mod:`.mkdocs_abbr` (mkdocs-material abbreviations), :mod:`.docusaurus`
(docusaurus-plugin-glossary) and :mod:`.site` (a static site, a directory rather than one text).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kg.export._common import ExportDoc
from kg.export.csv_export import CSV_COLUMNS, to_csv
from kg.export.docusaurus import to_docusaurus
from kg.export.json_export import to_json
from kg.export.markdown import to_markdown
from kg.export.mkdocs_abbr import to_mkdocs_abbr
from kg.export.skos import read_skos, to_jsonld, to_skos_turtle
from kg.export.tbx import read_tbx, to_tbx


@dataclass(frozen=True)
class ExportFormat:
    """One export format: its name, HTTP media type, file extension and renderer."""

    name: str
    media_type: str
    extension: str
    render: Callable[[ExportDoc], str]


FORMATS: dict[str, ExportFormat] = {
    f.name: f
    for f in (
        ExportFormat("json", "application/json", "json", to_json),
        ExportFormat("csv", "text/csv; charset=utf-8", "csv", to_csv),
        ExportFormat("tbx", "application/x-tbx+xml", "tbx", to_tbx),
        ExportFormat("skos-turtle", "text/turtle", "ttl", to_skos_turtle),
        ExportFormat("jsonld", "application/ld+json", "jsonld", to_jsonld),
        ExportFormat("markdown", "text/markdown; charset=utf-8", "md", to_markdown),
        # docs tools (docs/DOCS-TOOLING.md)
        ExportFormat("mkdocs-abbr", "text/markdown; charset=utf-8", "md", to_mkdocs_abbr),
        ExportFormat("docusaurus", "application/json", "json", to_docusaurus),
    )
}


def export(doc: ExportDoc, fmt: str) -> tuple[str, str]:
    """Render *doc* in format *fmt*; returns ``(content, media_type)``.

    Raises :class:`ValueError` naming the known formats when *fmt* is not one of them.
    """
    spec = FORMATS.get(fmt)
    if spec is None:
        raise ValueError(f"unknown export format {fmt!r}; expected one of: {', '.join(FORMATS)}")
    return spec.render(doc), spec.media_type


__all__ = [
    "CSV_COLUMNS",
    "FORMATS",
    "ExportDoc",
    "ExportFormat",
    "export",
    "read_skos",
    "read_tbx",
    "to_csv",
    "to_docusaurus",
    "to_json",
    "to_jsonld",
    "to_markdown",
    "to_mkdocs_abbr",
    "to_skos_turtle",
    "to_tbx",
]
