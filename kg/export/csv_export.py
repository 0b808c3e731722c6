"""CSV export: one row per term, multi-valued cells joined with ``" | "``.

Columns (:data:`CSV_COLUMNS`): ``id, label_en, label_zh, label_en_origin, label_zh_origin,
editorial_names, abbreviations, aliases, categories, sources, definition_zh, definition_en, related,
confused_with, kind, mentioned_in``. ``label_*_origin`` says who gave that label (``source``,
``rule`` or ``editorial``; empty when there is no label); ``editorial_names`` lists every name only
an editorial decision gives. ``definition_zh`` / ``definition_en`` hold the term's *first*
definition in that language (empty when none). ``kind`` is ``defined`` or ``mentioned`` (a name
definitions only mention: no definition, and ``mentioned_in`` lists the ``source:line`` of the
sentences that mention it).
``related`` and ``confused_with`` list neighbour ids in both edge directions (see
:func:`kg.export._common.neighbours`). Quoting follows RFC 4180 (``csv`` module defaults,
``\\r\\n`` row ends), so the text reads back with :class:`csv.DictReader`.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from typing import Any

from kg.export._common import (
    ExportDoc,
    editorial_names,
    first_definition,
    kind,
    label_origin,
    labels,
    mentions,
    neighbours,
    nodes,
    strings,
)

CSV_COLUMNS: tuple[str, ...] = (
    "id",
    "label_en",
    "label_zh",
    "label_en_origin",
    "label_zh_origin",
    "editorial_names",
    "abbreviations",
    "aliases",
    "categories",
    "sources",
    "definition_zh",
    "definition_en",
    "related",
    "confused_with",
    "kind",
    "mentioned_in",
)
JOIN = " | "


def _definition_text(node: Mapping[str, Any], lang: str) -> str:
    d = first_definition(node, lang)
    return str(d["text"]) if d else ""


def to_csv(doc: ExportDoc) -> str:
    """The terms as CSV text with a header row (one row per node, document order)."""
    buf = io.StringIO(newline="")
    writer = csv.DictWriter(buf, fieldnames=list(CSV_COLUMNS))
    writer.writeheader()
    links = neighbours(doc)
    for node in nodes(doc):
        nid = str(node["id"])
        lab = labels(node)
        origin = label_origin(node)
        writer.writerow(
            {
                "id": nid,
                "label_en": lab.get("en", ""),
                "label_zh": lab.get("zh", ""),
                "label_en_origin": origin.get("en", ""),
                "label_zh_origin": origin.get("zh", ""),
                "editorial_names": JOIN.join(editorial_names(node)),
                "abbreviations": JOIN.join(strings(node.get("abbreviations"))),
                "aliases": JOIN.join(strings(node.get("aliases"))),
                "categories": JOIN.join(strings(node.get("categories"))),
                "sources": JOIN.join(strings(node.get("sources"))),
                "definition_zh": _definition_text(node, "zh"),
                "definition_en": _definition_text(node, "en"),
                "related": JOIN.join(links[nid].related),
                "confused_with": JOIN.join(links[nid].confused_with),
                "kind": kind(node),
                "mentioned_in": JOIN.join(f"{m.get('source')}:{m.get('line')}" for m in mentions(node)),
            }
        )
    return buf.getvalue()
