"""The tooltip's script and stylesheet (no dependencies, no CDN), shared by the MkDocs plugin and
the API's drop-in widget.

- ``gkg-tooltip.js``: ``window.GlossaryKG.attach({card, link})``; shows a term's card when a
  reader hovers or focuses an ``a.gkg-term`` (Escape closes it; the card is the link's
  ``aria-describedby`` while shown); renders the JSON of ``GET /v1/terms/{id}/card``;
- ``gkg-tooltip.css``: the links, the card and the generated glossary page;
- ``gkg-mkdocs.js``: the plugin's cards, read from ``window.GKG_CARDS`` (``cards.js``);
- ``gkg-widget.js``: the widget: annotates the page through ``POST /v1/annotate`` and fetches
  cards from the API. :func:`widget_script` is what ``GET /widget.js`` serves.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

ASSETS = Path(__file__).resolve().parent / "static"
NAMES = ("gkg-tooltip.js", "gkg-tooltip.css", "gkg-mkdocs.js", "gkg-widget.js")


@cache
def asset_text(name: str) -> str:
    """One of the asset files (:data:`NAMES`), as text."""
    if name not in NAMES:
        raise KeyError(f"no asset {name!r}")
    return (ASSETS / name).read_text(encoding="utf-8")


def widget_script() -> str:
    """``/widget.js``: the tooltip, then the widget that drives it (one file, no dependencies)."""
    return asset_text("gkg-tooltip.js") + "\n" + asset_text("gkg-widget.js")
