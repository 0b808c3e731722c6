"""Loaded objects that cost less memory: copies of parsed JSON that keep nothing of the parse
(:func:`detached`), and one shared read-only list or dict per distinct value of the fields of
terms that repeat (:class:`FieldSharer`)."""

from __future__ import annotations

import sys
from typing import Any, NoReturn

#: The ints :func:`detached` made, by value (bounded: a process loads few distinct ones).
_INTS: dict[int, int] = {}
_MAX_INTS = 100_000


def detached(value: Any) -> Any:
    """A deep copy of a parsed JSON *value* in which every string and number is a new object
    (dict keys interned).

    Why: when a large document is parsed and only part of it is kept (the terms of ``graph.json``,
    ~260 MB parsed at 100k terms; the passage ids of the BM25 metadata), the rest is freed, but
    CPython returns memory to the system only a whole arena (1 MiB) at a time, and the strings and
    numbers kept from the parse pin nearly every arena: at 100k terms ~170 MB of ``graph.json``
    stayed resident for nothing. What is made from detached copies keeps nothing of the parse.
    """
    kind = type(value)
    if kind is str:
        return value[:1] + value[1:] if len(value) > 1 else value
    if kind is dict:
        return {sys.intern(detached(k)): detached(v) for k, v in value.items()}
    if kind is list:
        return [detached(v) for v in value]
    if kind is int:
        # a new object (small ints are the interpreter's own), one per value (line numbers recur)
        copy = value + 0
        return _INTS.setdefault(copy, copy) if len(_INTS) < _MAX_INTS else copy
    if kind is float:
        return value + 0.0
    return value  # None, True, False


class FrozenList(list[Any]):
    """A list that refuses to change: one instance stands for every equal list field of the terms
    of a loaded glossary (:class:`FieldSharer`). Equal to a list of the same items."""

    __slots__ = ()

    def _refuse(self, *_args: Any, **_kw: Any) -> NoReturn:
        raise TypeError("the terms of a loaded glossary are read-only")

    append = extend = insert = remove = pop = clear = sort = reverse = _refuse
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse


class FrozenDict(dict[Any, Any]):
    """A dict that refuses to change (see :class:`FrozenList`). Equal to a dict of the same items."""

    __slots__ = ()

    def _refuse(self, *_args: Any, **_kw: Any) -> NoReturn:
        raise TypeError("the terms of a loaded glossary are read-only")

    __setitem__ = __delitem__ = __ior__ = update = setdefault = pop = popitem = clear = _refuse


class FieldSharer:
    """Gives objects one shared read-only list or dict per distinct value of some fields.

    At 100k terms most terms have no aliases, entry keys, editorial names, mentions or label
    origins, and a handful of source and category lists recur: ~500 bytes of containers per term,
    ~50 MB in all, that one instance per distinct value replaces.
    """

    def __init__(self, when_empty: tuple[str, ...], when_equal: tuple[str, ...]) -> None:
        """*when_empty*: fields shared only when empty (their values rarely repeat otherwise);
        *when_equal*: fields whose equal values are shared (lists of strings, flat dicts)."""
        self._empty, self._equal = when_empty, when_equal
        self._seen: dict[tuple[Any, ...], FrozenList | FrozenDict] = {}

    def _shared(self, value: Any) -> Any:
        kind = type(value)
        if kind is list:
            key: tuple[Any, ...] = ("list", *value)
            make: Any = FrozenList
        elif kind is dict:
            key, make = ("dict", *sorted(value.items())), FrozenDict
        else:
            return value
        shared = self._seen.get(key)
        if shared is None:
            shared = self._seen[key] = make(value)
        return shared

    def share(self, obj: Any) -> Any:
        """Replace the fields of *obj* by the shared instances; returns *obj*."""
        for name in self._empty:
            value = getattr(obj, name)
            if not value:
                setattr(obj, name, self._shared(value))
        for name in self._equal:
            setattr(obj, name, self._shared(getattr(obj, name)))
        return obj
