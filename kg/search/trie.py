"""Character tries for the matchers, which walk them one character at a time.

:func:`char_trie` builds nested dicts (one per node): fast, but at 100k terms the label
matcher's trie took ~280 MB. :class:`PrefixWalk` gives the same walk over one sorted list
of the words (a node is the range of words that share its prefix), for the cost of two
binary searches per step.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from typing import Any

#: Key marking the end of a word; the empty string is never a character.
END = ""

#: Sorts after every character that occurs in names (the suggest tables use it too).
MAX_CHAR = "\U0010ffff"

#: A node of :class:`PrefixWalk`: (prefix, first, end) — ``words[first:end]`` start with prefix.
Node = tuple[str, int, int]


def char_trie(words: Iterable[str]) -> dict[str, Any]:
    """Nested dicts, one level per character; ``node[END]`` holds the word ending there."""
    root: dict[str, Any] = {}
    for word in words:
        node = root
        for ch in word:
            node = node.setdefault(ch, {})
        node[END] = word
    return root


class PrefixWalk:
    """The walk of :func:`char_trie` over a sorted word list instead of a dict per node.

    ``root(ch)`` is the node of the one-character prefix *ch* (None when no word starts
    with it), ``child(node, ch)`` the node one character further, ``word(node)`` the word
    ending at the node (None when its prefix is not a word).
    """

    __slots__ = ("_first", "_words")

    def __init__(self, words: Iterable[str]) -> None:
        self._words: list[str] = sorted({w for w in words if w})
        self._first: dict[str, tuple[int, int]] = {}
        for i, w in enumerate(self._words):
            lo, _ = self._first.get(w[0], (i, i))
            self._first[w[0]] = (lo, i + 1)

    def __len__(self) -> int:
        return len(self._words)

    def root(self, ch: str) -> Node | None:
        span = self._first.get(ch)
        return None if span is None else (ch, span[0], span[1])

    def child(self, node: Node, ch: str) -> Node | None:
        prefix, lo, hi = node
        prefix += ch
        words = self._words
        a = bisect_left(words, prefix, lo, hi)
        if a == hi or not words[a].startswith(prefix):
            return None
        return prefix, a, bisect_left(words, prefix + MAX_CHAR, a, hi)

    def word(self, node: Node) -> str | None:
        prefix, lo, _ = node
        return prefix if self._words[lo] == prefix else None
