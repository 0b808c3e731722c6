"""jieba's segmentation of Chinese runs, cached: where a match may start or end (engine) and which
word precedes a match (context)."""

from __future__ import annotations

from typing import Any

_CUT_CACHE: dict[tuple[int, str], tuple[str, ...]] = {}
_MAX_CACHED = 100_000


def words(segmenter: Any, run: str) -> tuple[str, ...]:
    """jieba's words of *run* (dictionary words, no HMM: the same text always cuts the same way)."""
    key = (id(segmenter), run)
    got = _CUT_CACHE.get(key)
    if got is None:
        got = tuple(segmenter.cut(run, HMM=False))
        if len(_CUT_CACHE) >= _MAX_CACHED:
            _CUT_CACHE.clear()
        _CUT_CACHE[key] = got
    return got


_CUTS_CACHE: dict[tuple[int, str], frozenset[int]] = {}


def cuts(segmenter: Any, run: str) -> frozenset[int]:
    """Offsets inside *run* where jieba's words start or end."""
    key = (id(segmenter), run)
    got = _CUTS_CACHE.get(key)
    if got is None:
        out = {0}
        pos = 0
        for w in words(segmenter, run):
            pos += len(w)
            out.add(pos)
        got = frozenset(out)
        if len(_CUTS_CACHE) >= _MAX_CACHED:
            _CUTS_CACHE.clear()
        _CUTS_CACHE[key] = got
    return got


def clear_caches() -> None:
    """Forget the cached segmentations (benchmarks start each run cold)."""
    _CUT_CACHE.clear()
    _CUTS_CACHE.clear()
    _CUTS_CACHE.clear()
