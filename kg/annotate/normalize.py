"""Fold a page for matching and keep the way back to the original offsets.

:func:`fold_with_map` applies what :func:`kg.textnorm.fold` applies to names (NFKC: full →
half width; case folding; Traditional → Simplified), except that it never drops or merges
characters: every white-space character becomes one space, and the spaces that ``fold``
drops next to Chinese characters are handled on the names' side instead (each name is
indexed with and without them, :mod:`kg.annotate.vocabulary`). So the folded text almost
always has the original's length and the map is the identity. Where a character folds to
several (``ß`` → ``ss``, ``㎏`` → ``kg``) or a Traditional phrase changes length, only the
lines (or Chinese runs) concerned are folded character by character, with an explicit map.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from kg.search.tokenize import CJK_CLASS
from kg.textnorm import to_simplified

# every white-space and control character becomes one space (one character each: offsets stay)
_SPACE_TABLE = {c: " " for c in (*range(0x00, 0x20), *range(0x7F, 0xA0), 0x2028, 0x2029)}
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


def _fold_latin(text: str) -> str:
    return unicodedata.normalize("NFKC", text).translate(_SPACE_TABLE).casefold()


def _fold_char(ch: str) -> str:
    return to_simplified(_fold_latin(ch))


def fold_with_map(text: str) -> Folded:
    """*text* folded for matching (see the module), with the way back to its offsets."""
    folded = _fold_latin(text)
    offsets: list[int] | None = None
    if len(folded) != len(text):
        folded, offsets = _fold_by_line(text)
    if _CJK.search(folded):
        simplified = to_simplified(folded)
        if len(simplified) == len(folded):
            folded = simplified
        else:  # a phrase conversion changed the length: convert run by run, char by char if need be
            folded, offsets = _simplify_runs(folded, offsets)
    return Folded(folded, offsets)


def _fold_by_line(text: str) -> tuple[str, list[int]]:
    parts: list[str] = []
    offsets: list[int] = []
    pos = 0
    for line in text.splitlines(keepends=True):
        f = _fold_latin(line)
        if len(f) == len(line):
            parts.append(f)
            offsets.extend(range(pos, pos + len(line)))
        else:
            for i, ch in enumerate(line):
                g = _fold_latin(ch) or " "  # a character that folds to nothing keeps its place
                parts.append(g)
                offsets.extend([pos + i] * len(g))
        pos += len(line)
    offsets.append(pos)
    return "".join(parts), offsets


def _simplify_runs(folded: str, offsets: list[int] | None) -> tuple[str, list[int]]:
    base = offsets if offsets is not None else list(range(len(folded) + 1))
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
