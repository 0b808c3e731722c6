"""One small parser per source layout: pure functions from text to raw entries.

The manifest (``corpus/manifest.json``) names the parser of each source file, so
a fifth glossary in a known layout needs only a manifest line.
"""

from __future__ import annotations

from collections.abc import Callable

from kg.model import ParsedSource
from kg.parsers.common import SourceError
from kg.parsers.gloss_lines import parse_gloss_lines
from kg.parsers.headings import parse_headings
from kg.parsers.sentences import parse_sentences
from kg.parsers.table3 import parse_table3

Parser = Callable[..., ParsedSource]

PARSERS: dict[str, Parser] = {
    "sentences": parse_sentences,
    "table3": parse_table3,
    "gloss_lines": parse_gloss_lines,
    "headings": parse_headings,
}

__all__ = ["PARSERS", "Parser", "SourceError"]
