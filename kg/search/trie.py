"""A character trie as nested dicts: the matchers walk it one character at a time."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

#: Key marking the end of a word; the empty string is never a character.
END = ""


def char_trie(words: Iterable[str]) -> dict[str, Any]:
    """Nested dicts, one level per character; ``node[END]`` holds the word ending there."""
    root: dict[str, Any] = {}
    for word in words:
        node = root
        for ch in word:
            node = node.setdefault(ch, {})
        node[END] = word
    return root
