"""A compact, read-only map from name keys to term ids (:class:`NameTable`).

:class:`kg.store.Glossary` looks names up by their folded form and by their loose key. As
dicts of Python strings those two tables took ~32 MB at 100k terms (a string object and a dict
slot per key, a tuple per shared key). A :class:`NameTable` keeps the keys sorted, end to end
in one UTF-8 ``bytes`` (whose byte order is code-point order), and the term ids as numbers
into one list of ids: ~8 MB for the same answers, a binary search (~20 steps) per lookup.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence


class _SortedKeys:
    """The table's keys as a sequence of ``bytes`` for :func:`bisect.bisect_left`."""

    __slots__ = ("_blob", "_ends")

    def __init__(self, blob: bytes, ends: array[int]) -> None:
        self._blob, self._ends = blob, ends

    def __len__(self) -> int:
        return len(self._ends)

    def __getitem__(self, i: int) -> bytes:
        return self._blob[self._ends[i - 1] if i else 0 : self._ends[i]]


class NameTable:
    """Key → the ids of the terms that have a name of that key, in the order they were added;
    keys iterate in the order they were first added (as a dict's would)."""

    __slots__ = ("_ids", "_keys", "_order", "_starts", "_values")

    def __init__(self, pairs: Iterable[tuple[str, int]], ids: Sequence[str]) -> None:
        """*pairs*: ``(key, term number)`` in the order the names are added; *ids*: term number →
        id (kept, not copied). A term listed again for the same key right after itself counts once."""
        self._ids = ids
        seq = sorted((key, n, term) for n, (key, term) in enumerate(pairs))  # by key, then added
        blob = bytearray()
        ends = array("I")
        starts = array("I", [0])
        values = array("I")
        first: list[int] = []  # when each key was first added
        last_key: str | None = None
        for key, n, term in seq:
            if key != last_key:
                if last_key is not None:
                    starts.append(len(values))
                blob += key.encode("utf-8", "surrogatepass")
                ends.append(len(blob))
                first.append(n)
                last_key = key
                values.append(term)
            elif values[-1] != term:
                values.append(term)
        if last_key is not None:
            starts.append(len(values))
        del seq
        self._keys = _SortedKeys(bytes(blob), ends)
        self._starts, self._values = starts, values
        self._order = array("I", sorted(range(len(first)), key=first.__getitem__))

    def __len__(self) -> int:
        return len(self._keys)

    def _index(self, key: str) -> int:
        raw = key.encode("utf-8", "surrogatepass")
        i = bisect_left(self._keys, raw)
        return i if i < len(self._keys) and self._keys[i] == raw else -1

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._index(key) >= 0

    def get(self, key: str) -> tuple[str, ...]:
        """The ids of the terms named *key*, in the order added; ``()`` when none."""
        i = self._index(key)
        if i < 0:
            return ()
        ids = self._ids
        return tuple(ids[t] for t in self._values[self._starts[i] : self._starts[i + 1]])

    def __iter__(self) -> Iterator[str]:
        """The keys, in the order they were first added."""
        keys = self._keys
        for i in self._order:
            yield keys[i].decode("utf-8", "surrogatepass")
