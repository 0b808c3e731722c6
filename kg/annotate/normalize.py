"""Fold a page for matching and keep the way back to the original offsets.

:func:`fold_with_map` applies what :func:`kg.textnorm.fold` applies to names (NFKC: full →
half width; case folding; Traditional → Simplified), except that it never drops, merges or
splits characters: every white-space character becomes one space, the spaces that ``fold``
drops next to Chinese characters are handled on the names' side instead (each name is
indexed with and without them, :mod:`kg.annotate.vocabulary`), and a character that would
fold to several (``…`` → ``...``, ``ß`` → ``ss``, ``㎏`` → ``kg``) is left as it is. So the folded text has the
original's length and the map is the identity, unless a Traditional phrase converts to a
different length: then only the Chinese runs concerned are converted character by character,
with an explicit map.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from kg.search.tokenize import CJK_CLASS
from kg.textnorm import to_simplified

# every white-space and control character becomes one space (one character each: offsets stay)
_SPACE_TABLE_CHARS = frozenset(chr(c) for c in (*range(0x00, 0x20), *range(0x7F, 0xA0), 0x2028, 0x2029))
_CJK = re.compile(f"[{CJK_CLASS}]")
_CJK_RUN = re.compile(f"[{CJK_CLASS}]+")


@dataclass(frozen=True)
class Folded:
    """A folded text and, when its length differs from the original, the original offset of
    each folded position (``offsets[len(text)]`` is the original's length)."""

    text: str
    offsets: list[int] | None = None

    def to_original(self, pos: int) -> int:
        """The original offset of folded position *pos* (a start, or an end when *pos* is one past)."""
        return pos if self.offsets is None else self.offsets[pos]


@lru_cache(maxsize=65536)
def _fold_char(ch: str) -> str:
    """One character folded (NFKC, case folding); itself when that would give several or none."""
    if ch in _SPACE_TABLE_CHARS:
        return " "
    f = unicodedata.normalize("NFKC", ch).casefold()
    if len(f) == 1:
        return f
    low = ch.lower()
    return low if len(low) == 1 else ch


def fold_with_map(text: str) -> Folded:
    """*text* folded for matching (see the module), with the way back to its offsets.

    Folding is a per-character table over the page's own characters (one ``str.translate``): far
    cheaper than normalising a megabyte, and it keeps every offset. (Combining sequences are not
    composed: names hold none.)"""
    table = {ord(c): f for c in set(text) if (f := _fold_char(c)) != c}
    folded = text.translate(table) if table else text
    offsets: list[int] | None = None
    if _CJK.search(folded):
        simplified = to_simplified(folded)
        if len(simplified) == len(folded):
            folded = simplified
        else:  # a phrase conversion changed the length: convert run by run, char by char if need be
            folded, offsets = _simplify_runs(folded)
    return Folded(folded, offsets)


def _simplify_runs(folded: str) -> tuple[str, list[int]]:
    base = list(range(len(folded) + 1))
    parts: list[str] = []
    out: list[int] = []
    pos = 0
    for m in _CJK_RUN.finditer(folded):
        parts.append(folded[pos : m.start()])
        out.extend(base[pos : m.start()])
        run = m.group()
        simple = to_simplified(run)
        if len(simple) == len(run):
            parts.append(simple)
            out.extend(base[m.start() : m.end()])
        else:
            for i, ch in enumerate(run):
                s = to_simplified(ch) or ch
                parts.append(s)
                out.extend([base[m.start() + i]] * len(s))
        pos = m.end()
    parts.append(folded[pos:])
    out.extend(base[pos:])
    return "".join(parts), out
