"""The glossary as one Markdown page for MkDocs: bilingual, grouped by category, with each term's
names, the sources' definitions, "易混淆 / often confused with" callouts and related terms.

Categories are Markdown headings (so the theme's table of contents lists them); each category's
terms are one raw-HTML ``<dl>`` block, which Markdown passes through as it is: every text from the
graph is HTML-escaped, and the block holds no blank line (a blank line would end it). Each term is
a ``<dt id="gkg-<id>">`` anchor (:func:`anchor`), the target of the plugin's links; each source is
a ``gkg_source_<id>`` anchor in the closing "Sources · 来源" section.

The confused-with callout uses the ``admonition warning`` classes, so mkdocs-material draws it as
its own warning box; the plugin's stylesheet draws it in other themes.
"""

from __future__ import annotations

import re
from html import escape
from urllib.parse import quote

from kg.model import Edge, Term
from kg.store import Glossary

CONFUSED_TITLE = "易混淆 / often confused with"
RELATED_TITLE = "Related · 相关"
ALSO_IN_TITLE = "Also in · 另见"
ABBREVIATIONS_TITLE = "Abbreviations · 缩写"
ALIASES_TITLE = "Aliases · 别名"
SOURCES_TITLE = "Sources · 来源"
UNCATEGORISED = "Uncategorised · 未分类"
DEFAULT_TITLE = "Glossary · 术语表"

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|])")
_WS = re.compile(r"\s+")


ANCHOR_PREFIX = "gkg-"


def anchor(term_id: str) -> str:
    """The fragment of a term's entry on the glossary page (the id URL-quoted, as
    :func:`kg.annotate.card.term_url` fills ``{id}``)."""
    return ANCHOR_PREFIX + quote(term_id, safe="")


def source_anchor(source_id: str) -> str:
    """The fragment of a source on the page (an underscore, which term ids never hold)."""
    return "gkg_source_" + quote(source_id, safe="")


def _e(text: object) -> str:
    return escape(_WS.sub(" ", str(text)).strip(), quote=True)


def _md(text: str) -> str:
    """Text for a Markdown heading: HTML-escaped, Markdown's special characters backslash-escaped."""
    return _MD_SPECIAL.sub(r"\\\1", _e(text))


def bilingual(term: Term) -> str:
    """ "English · 中文" as HTML, each label in its language."""
    parts = [
        f'<span lang="{lang}">{_e(term.labels[lang])}</span>'
        for lang in ("en", "zh")
        if term.labels.get(lang)
    ]
    return " · ".join(parts) or _e(term.id)


def _plain_label(term: Term) -> str:
    return " · ".join(term.labels[lang] for lang in ("en", "zh") if term.labels.get(lang)) or term.id


def category_title(glossary: Glossary, cid: str) -> str:
    """ "English · 中文" of a category (its id when it has no label)."""
    labels = (glossary.categories.get(cid) or {}).get("labels") or {}
    return " · ".join(labels[lang] for lang in ("en", "zh") if labels.get(lang)) or cid


def _where(glossary: Glossary, source: str, section: str | None, line: int | None) -> str:
    """ "— <a>Title [id]</a>, section, line N" pointing at the source's anchor."""
    parts: list[str] = []
    if source:
        title = (glossary.sources.get(source) or {}).get("title")
        shown = f"{_e(title)} [{_e(source)}]" if title else f"[{_e(source)}]"
        parts.append(f'<a href="#{source_anchor(source)}">{shown}</a>')
    if section:
        parts.append(_e(section))
    if line:
        parts.append(f"line {int(line)}")
    return f' <span class="gkg-src">— {", ".join(parts)}</span>' if parts else ""


def _link(term: Term) -> str:
    return f'<a href="#{anchor(term.id)}">{bilingual(term)}</a>'


def _confused_items(glossary: Glossary, term: Term, shown: set[str]) -> list[str]:
    items = []
    for edge in glossary.confusables(term.id):
        other = edge.target if edge.source == term.id else edge.source
        if other not in shown:
            continue
        own: Edge = edge.stated_by(term.id) or edge
        quote_ = f" <q>{_e(own.evidence)}</q>" if own.evidence else ""
        items.append(
            f"<li>{_link(glossary.terms[other])}{quote_}{_where(glossary, own.doc, None, own.line)}</li>"
        )
    return items


def _entry(glossary: Glossary, term: Term, shown: set[str], also_in: list[str]) -> list[str]:
    out = [
        f'<dt id="{anchor(term.id)}" class="gkg-entry" data-term="{_e(term.id)}">{bilingual(term)}</dt>',
        "<dd>",
    ]
    names = []
    if term.abbreviations:
        names.append(
            f"{ABBREVIATIONS_TITLE}: " + ", ".join(f"<strong>{_e(a)}</strong>" for a in term.abbreviations)
        )
    if term.aliases:
        names.append(f"{ALIASES_TITLE}: " + ", ".join(_e(a) for a in term.aliases))
    if names:
        out.append(f'<p class="gkg-names">{" · ".join(names)}</p>')
    if term.definitions:
        out.append('<ul class="gkg-defs">')
        for d in term.definitions:
            note = f' <span class="gkg-note">({_e(d.note)})</span>' if d.note else ""
            out.append(
                f'<li lang="{_e(d.lang)}">{_e(d.text)}{note}{_where(glossary, d.source, d.section, d.line)}</li>'
            )
        out.append("</ul>")
    else:
        out.append('<p class="gkg-undefined">No definition in the sources · 来源中无定义</p>')
    confused = _confused_items(glossary, term, shown)
    if confused:
        out.append(
            f'<div class="admonition warning gkg-confused" role="note"><p class="admonition-title">{CONFUSED_TITLE}</p>'
        )
        out.append(f"<ul>{''.join(confused)}</ul></div>")
    related = [
        glossary.terms[e.target if e.source == term.id else e.source] for e in glossary.related(term.id)
    ]
    related = list({t.id: t for t in related if t.id in shown and t.id != term.id}.values())
    if related:
        out.append(f'<p class="gkg-related">{RELATED_TITLE}: {", ".join(_link(t) for t in related)}</p>')
    if also_in:
        out.append(f'<p class="gkg-also">{ALSO_IN_TITLE}: {", ".join(_e(c) for c in also_in)}</p>')
    out.append("</dd>")
    return out


def listed_terms(glossary: Glossary, include_mentioned: bool = False) -> list[Term]:
    """The terms the page lists: every defined term (and mentioned-only ones when asked)."""
    return [t for t in glossary.terms.values() if include_mentioned or t.defined]


def glossary_markdown(
    glossary: Glossary, title: str = DEFAULT_TITLE, *, include_mentioned: bool = False, heading: bool = True
) -> str:
    """The whole glossary page as Markdown (see the module); ``heading=False`` leaves out the
    page title (for a page of your own that holds the glossary)."""
    terms = listed_terms(glossary, include_mentioned)
    shown = {t.id for t in terms}
    home: dict[str, list[Term]] = {}
    others: dict[str, list[str]] = {}
    for t in terms:
        cats = [c for c in t.categories if c in glossary.categories]
        home.setdefault(cats[0] if cats else "", []).append(t)
        others[t.id] = [category_title(glossary, c) for c in cats[1:]]
    order = sorted((c for c in home if c), key=lambda c: (category_title(glossary, c).casefold(), c))
    if "" in home:
        order.append("")
    used_sources = sorted(
        {d.source for t in terms for d in t.definitions if d.source} & set(glossary.sources)
    )

    n_cats = sum(1 for c in order if c)
    lines = [f"# {_md(title)}", ""] if heading else []
    lines += [
        f'<p class="gkg-intro">{len(terms)} terms in {n_cats} categories, from {len(used_sources)} '
        f"source glossaries · 共 {len(terms)} 个术语，{n_cats} 个类别，{len(used_sources)} 份来源词表。</p>",
        "",
    ]
    for cid in order:
        lines += [f"## {_md(category_title(glossary, cid) if cid else UNCATEGORISED)}", ""]
        block = ['<dl class="gkg-glossary">']
        for t in sorted(home[cid], key=lambda t: (t.label("en").casefold(), t.id)):
            block += _entry(glossary, t, shown, others[t.id])
        block.append("</dl>")
        lines += [*block, ""]
    if used_sources:
        lines += [f"## {_md(SOURCES_TITLE)}", "", '<dl class="gkg-sources">']
        for sid in used_sources:
            s = glossary.sources[sid]
            lines.append(f'<dt id="{source_anchor(sid)}">[{_e(sid)}] {_e(s.get("title") or sid)}</dt>')
            if s.get("description"):
                lines.append(f"<dd>{_e(s['description'])}</dd>")
        lines += ["</dl>", ""]
    return "\n".join(lines)
