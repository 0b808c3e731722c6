"""HTML output: a page rewritten with its mentions marked up, and a term card as a fragment.

:func:`rewrite` inserts markup around each mention into the original string, so every byte of
the page outside the inserted tags stays as it was (the page is never parsed and re-serialised).
Every inserted text (URLs, ids, labels, definitions) is escaped; a mention never holds markup of
its own (the annotator never matches inside tags or across them). Two styles:

- ``link``: ``<a class="gkg-term" href="URL" data-term="ID">text</a>``, keyboard-focusable, which
  a tooltip script can enhance (``data-term`` keys ``GET /v1/terms/{id}/card``);
- ``abbr``: ``<abbr class="gkg-term" data-term="ID" title="label: definition">text</abbr>``, the
  browser's own tooltip, for pages without scripts.

A ``text`` page comes back as HTML (its own text escaped); a ``markdown`` page stays Markdown with
inline HTML, which Markdown renderers pass through.
"""

from __future__ import annotations

from html import escape
from typing import Literal

from kg.annotate.card import TermCard
from kg.annotate.engine import Annotation, Mention

Markup = Literal["link", "abbr"]
MARKUPS: tuple[str, ...] = ("link", "abbr")

CONFUSED_HEADING = {"zh": "易混淆 / often confused with", "en": "often confused with / 易混淆"}
_SOURCE_WORD = {"zh": "来源", "en": "Source"}


def _attr(value: str) -> str:
    return escape(value, quote=True)


def tooltip_text(m: Mention) -> str:
    """The plain text of a mention's tooltip: label, then the definition sentence and its source."""
    text = m.label
    if m.definition is not None:
        text += f": {m.definition.text} [{m.definition.source}]"
    return text


def open_tag(m: Mention, markup: Markup = "link") -> str:
    """The opening tag wrapped around one mention (every attribute escaped)."""
    lang = f' data-lang="{_attr(m.definition.lang)}"' if m.definition else ""
    amb = ' data-ambiguous="true"' if m.ambiguous else ""
    if markup == "abbr":
        return f'<abbr class="gkg-term" data-term="{_attr(m.term_id)}" title="{_attr(tooltip_text(m))}"{lang}{amb}>'
    return f'<a class="gkg-term" href="{_attr(m.url)}" data-term="{_attr(m.term_id)}"{lang}{amb}>'


def rewrite(annotation: Annotation, markup: Markup = "link") -> str:
    """The page with its mentions marked up (see the module); ``text`` pages come back escaped."""
    if markup not in MARKUPS:
        raise ValueError(f"markup must be one of {', '.join(MARKUPS)}, not {markup!r}")
    text = annotation.text
    keep = escape if annotation.format == "text" else _same
    close = "</abbr>" if markup == "abbr" else "</a>"
    parts: list[str] = []
    pos = 0
    for m in sorted(annotation.mentions, key=lambda m: m.start):
        if m.start < pos:  # never nest (mentions do not overlap; this guards hand-made lists)
            continue
        parts.append(keep(text[pos : m.start]))
        parts.append(open_tag(m, markup))
        parts.append(keep(text[m.start : m.end]))
        parts.append(close)
        pos = m.end
    parts.append(keep(text[pos:]))
    return "".join(parts)


def _same(text: str) -> str:
    return text


def render_card_html(card: TermCard) -> str:
    """A term card as a small HTML fragment (every text escaped), for a tooltip."""
    lang = card.lang
    other = "en" if lang == "zh" else "zh"
    out = [f'<div class="gkg-card" lang="{_attr(lang)}" data-term="{_attr(card.id)}">']
    names = [f'<strong class="gkg-card-label">{escape(card.label)}</strong>']
    if card.labels.get(other) and card.labels[other] != card.label:
        names.append(f'<span class="gkg-card-label-other" lang="{other}">{escape(card.labels[other])}</span>')
    abbrs = [a for a in card.abbreviations if a not in (card.label, card.labels.get(other))]
    if abbrs:
        names.append(f'<span class="gkg-card-abbr">{escape(", ".join(abbrs))}</span>')
    out.append(f'<p class="gkg-card-names">{" · ".join(names)}</p>')
    if card.definition is not None:
        d = card.definition
        out.append(f'<p class="gkg-card-definition" lang="{_attr(d.lang)}">{escape(d.text)}</p>')
        title = f" {d.source_title}" if d.source_title else ""
        out.append(
            f'<p class="gkg-card-source">{_SOURCE_WORD.get(lang, "Source")}: {escape(d.source + title)}</p>'
        )
    if card.confused_with:
        items = "".join(
            f'<li><a href="{_attr(c.url)}" data-term="{_attr(c.id)}">{escape(c.label)}</a>'
            f' <q class="gkg-card-evidence">{escape(c.evidence)}</q></li>'
            for c in card.confused_with
        )
        out.append(
            f'<div class="gkg-card-confused" role="note"><p>{escape(CONFUSED_HEADING.get(lang, CONFUSED_HEADING["en"]))}</p>'
            f"<ul>{items}</ul></div>"
        )
    out.append(f'<p class="gkg-card-more"><a href="{_attr(card.url)}">{escape(card.url)}</a></p>')
    out.append("</div>")
    return "".join(out)
