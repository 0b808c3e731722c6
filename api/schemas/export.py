"""Schemas of the export resource."""

from __future__ import annotations

from typing import Literal

ExportFormatName = Literal[
    "json", "csv", "tbx", "skos-turtle", "jsonld", "markdown", "mkdocs-abbr", "docusaurus"
]

EXPORT_MEDIA_TYPES: dict[str, str] = {
    "json": "application/json",
    "csv": "text/csv; charset=utf-8",
    "tbx": "application/x-tbx+xml",
    "skos-turtle": "text/turtle",
    "jsonld": "application/ld+json",
    "markdown": "text/markdown; charset=utf-8",
    "mkdocs-abbr": "text/markdown; charset=utf-8",
    "docusaurus": "application/json",
}
