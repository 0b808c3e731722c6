"""Lexical search and name lookup over the glossary (no web framework here).

* :class:`Tokenizer` — fold + jieba/Latin segmentation aware of glossary names.
* :class:`LexicalIndex` — BM25 (``bm25s``) over ``(doc_id, text)`` documents, saveable.
* :class:`LabelMatcher` — exact / fuzzy / in-text / autocomplete lookup of term names.
"""

from __future__ import annotations

from kg.search.labels import LabelMatcher, Match, Span
from kg.search.lexical import LexicalIndex
from kg.search.tokenize import STOPWORDS, Tokenizer

__all__ = ["STOPWORDS", "LabelMatcher", "LexicalIndex", "Match", "Span", "Tokenizer"]
