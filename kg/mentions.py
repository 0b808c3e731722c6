"""Find term names inside free text (definitions, questions): longest match first.

Matching runs on :func:`kg.textnorm.fold` output, so case, width, Traditional
characters and spacing around Chinese do not matter. Latin names must sit on
word boundaries ("TP" is not found inside "TTFT" or "output").

This scanner builds *edges*, so it is deliberately stricter than the search-side
:meth:`kg.search.labels.LabelMatcher.find_mentions`, which steps over spaces and
hyphens inside names for people's typing: here "Tensor Core" in a definition must not
also name the TPU's "TensorCore" (measured: the looser scanner added 8 such wrong
edges to the bundled graph).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from kg.textnorm import fold, is_cjk_char


@dataclass(frozen=True)
class Span:
    """One name found in a text: the term it names and where (in folded text)."""

    term_id: str
    name: str
    start: int
    end: int


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() and not is_cjk_char(ch)


class MentionFinder:
    """Longest-match scanner over a fixed vocabulary of (term id, name) pairs."""

    def __init__(self, names: Iterable[tuple[str, str]], min_len: int = 2) -> None:
        by_first: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        for term_id, name in names:
            key = fold(name)
            if len(key) < min_len:
                continue
            by_first[key[0]][key].add(term_id)
        # longest names first for each first character
        self._index: dict[str, list[tuple[str, frozenset[str]]]] = {
            ch: sorted(((k, frozenset(v)) for k, v in d.items()), key=lambda kv: -len(kv[0]))
            for ch, d in by_first.items()
        }

    def find(self, text: str) -> list[Span]:
        """Non-overlapping mentions, left to right, longest name at each position.

        A name shared by several terms yields one span per term.
        """
        folded = fold(text)
        spans: list[Span] = []
        i, n = 0, len(folded)
        while i < n:
            matched = 0
            for key, ids in self._index.get(folded[i], ()):
                end = i + len(key)
                if end > n or folded[i:end] != key:
                    continue
                if _is_word_char(key[0]) and i > 0 and _is_word_char(folded[i - 1]):
                    continue
                if _is_word_char(key[-1]) and end < n and _is_word_char(folded[end]):
                    continue
                spans.extend(Span(t, key, i, end) for t in sorted(ids))
                matched = len(key)
                break
            i += matched or 1
        return spans
