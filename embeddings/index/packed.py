"""A read-only sequence of strings stored as one string and an array of end offsets."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from typing import overload


class PackedStrings(Sequence[str]):
    """The strings of *items*, in order, kept as one joined string plus their end offsets.

    A tuple of 130k passage ids (a 100k-term index) takes ~12 MB, one object per id; packed,
    ~4 MB. Each item read is a new string (a slice), so this suits lookups by position.
    """

    __slots__ = ("_ends", "_text")

    def __init__(self, items: Iterable[str]) -> None:
        parts = list(items)
        self._text = "".join(parts)
        ends: array[int] = array("q")
        pos = 0
        for part in parts:
            pos += len(part)
            ends.append(pos)
        self._ends = ends

    def __len__(self) -> int:
        return len(self._ends)

    @overload
    def __getitem__(self, i: int) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> list[str]: ...

    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self._ends)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("PackedStrings index out of range")
        return self._text[self._ends[i - 1] if i else 0 : self._ends[i]]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PackedStrings):
            return self._text == other._text and self._ends == other._ends
        return isinstance(other, Sequence) and not isinstance(other, str) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]
