"""A compact, read-only word → frequency table for jieba (:class:`WordFreq`).

jieba keeps its dictionary as ``Tokenizer.FREQ``, a dict of every word and every prefix of a
word (prefixes with frequency 0, so that its segmentation can stop early): ~500k Python
strings for the base dictionary, more with a glossary's names, ~96 MB at 100k terms. A serving
process only reads it, through ``in``, ``[]`` and ``get``. :class:`WordFreq` answers those from
one string holding every key, two integer arrays and an open-addressing hash table of entry
numbers: ~22 bytes a key instead of ~110, the same answers.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

#: Largest load factor of the slot table (linear probing stays short below it).
_MAX_LOAD = 0.5


class WordFreq(Mapping[str, int]):
    """Word → frequency from ``(word, frequency)`` pairs with distinct words (the items of a
    dict); read-only.

    Keys are stored end to end in one string, frequencies in an unsigned array, and a table of
    entry numbers indexed by ``hash(word)`` (linear probing) finds them. The table is made in
    the process that reads it, so Python's per-process string hashing does no harm.
    """

    __slots__ = ("_ends", "_freq", "_mask", "_slots", "_text")

    def __init__(self, items: Iterable[tuple[str, int]], count: int) -> None:
        """*count*: the number of *items* (sizes the slot table; more items are refused)."""
        capacity = 1 << 4
        while capacity * _MAX_LOAD < count:
            capacity <<= 1
        mask = self._mask = capacity - 1
        slots = self._slots = array("i", [-1]) * capacity
        ends = self._ends = array("I")
        freqs = self._freq = array("I")
        pieces: list[str] = []
        chars = 0
        for entry, (word, freq) in enumerate(items):
            if entry >= count:
                raise ValueError(f"more than the {count} items announced")
            pieces.append(word)
            if len(pieces) >= 4096:  # joined as it goes: one string in the end, not one per key
                pieces = ["".join(pieces)]
            chars += len(word)
            ends.append(chars)
            freqs.append(freq)
            i = hash(word) & mask
            while slots[i] >= 0:
                i = (i + 1) & mask
            slots[i] = entry
        self._text = "".join(pieces)

    def _find(self, word: str) -> int:
        """The entry number of *word*, or -1."""
        mask, slots, ends = self._mask, self._slots, self._ends
        i = hash(word) & mask
        n = len(word)
        while True:
            entry = slots[i]
            if entry < 0:
                return -1
            end = ends[entry]
            start = ends[entry - 1] if entry else 0
            if end - start == n and self._text[start:end] == word:
                return entry
            i = (i + 1) & mask

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self._find(word) >= 0

    def __getitem__(self, word: str) -> int:
        at = self._find(word) if isinstance(word, str) else -1
        if at < 0:
            raise KeyError(word)
        return self._freq[at]

    def get(self, word: str, default: Any = None) -> Any:
        """The frequency of *word*, else *default* (as ``dict.get``)."""
        at = self._find(word) if isinstance(word, str) else -1
        return default if at < 0 else self._freq[at]

    def __len__(self) -> int:
        return len(self._ends)

    def __iter__(self) -> Iterator[str]:
        text, start = self._text, 0
        for end in self._ends:
            yield text[start:end]
            start = end
