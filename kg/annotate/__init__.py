"""Term annotation for documentation pages: find the glossary's terms in text, Markdown or HTML
(Chinese, English or both), as spans into the original page with each term's label, a one-sentence
definition with its source, and a link; rewrite HTML with accessible markup; term cards for tooltips.

Domain code (no HTTP): ``api/routes/annotate.py`` serves it, the docs plugins call it directly.
"""

from kg.annotate.card import DefinitionRef, TermCard, first_sentence, term_card
from kg.annotate.engine import Annotation, Annotator, Mention, page_lang
from kg.annotate.options import DEFAULT_URL_TEMPLATE, AnnotateOptions
from kg.annotate.render import render_card_html, rewrite

__all__ = [
    "DEFAULT_URL_TEMPLATE",
    "AnnotateOptions",
    "Annotation",
    "Annotator",
    "DefinitionRef",
    "Mention",
    "TermCard",
    "first_sentence",
    "page_lang",
    "render_card_html",
    "rewrite",
    "term_card",
]
