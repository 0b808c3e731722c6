"""Exact candidate filter for fuzzy name matching: skip the names that cannot reach the cutoff.

rapidfuzz's ``fuzz.ratio`` is the normalised Indel similarity ``2·LCS(a, b) / (|a| + |b|)``.
The longest common subsequence is never longer than the multiset intersection of the two
strings' characters, nor than the shorter string. So with each name's length and a small
histogram of its characters (:data:`BUCKETS` buckets by code point; two characters sharing a
bucket can only raise the bound) we get an upper bound on its score for any query, computed
for all names at once with numpy. Names whose bound is under the cutoff are skipped; the
others are scored by rapidfuzz as before, so the result is the same as a full scan (tested).

At 100k synthetic terms a full scan of every name was most of a short query's search time
(`glossary bench-search` measures it); the filter leaves a few hundred names to score. Names
are kept sorted by length so that only the admissible length window is looked at.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray
from rapidfuzz import fuzz, process

#: Histogram buckets (code point modulo this).
BUCKETS = 32


def _histogram(text: str) -> NDArray[np.uint8]:
    h = np.zeros(BUCKETS, dtype=np.uint8)
    for ch in text:
        b = ord(ch) % BUCKETS
        if h[b] < 255:
            h[b] += 1
    return h


class CharFilter:
    """Strings indexed for ``fuzz.ratio`` search with a cutoff; results as ``process.extract``."""

    def __init__(self, strings: Sequence[str]) -> None:
        order = sorted(range(len(strings)), key=lambda i: (len(strings[i]), i))
        self._order = np.asarray(order, dtype=np.int32 if len(order) < 2**31 else np.int64)  # row -> index
        self._strings = [strings[i] for i in order]
        self._lengths = np.asarray([len(s) for s in self._strings], dtype=np.int32)
        hist = np.zeros((len(order), BUCKETS), dtype=np.uint8)
        for row, s in enumerate(self._strings):
            hist[row] = _histogram(s)
        # one contiguous row per bucket: a query reads only the buckets its characters fall in
        self._buckets = np.ascontiguousarray(hist.T)
        del hist

    def __len__(self) -> int:
        return len(self._strings)

    def extract(self, query: str, cutoff: float) -> list[tuple[str, float, int]]:
        """``(string, score 0–100, index into the constructor's list)`` for every string whose
        ``fuzz.ratio`` with *query* is at least *cutoff* (0–100), best first."""
        n = len(query)
        c = cutoff / 100.0
        if n == 0 or n > 255 or not self._strings or c <= 0.0:  # (uint8 histograms: counts ≤ 255)
            scored = process.extract(query, self._strings, scorer=fuzz.ratio, score_cutoff=cutoff, limit=None)
            return [(s, float(score), int(self._order[row])) for s, score, row in scored]
        # 2·min(la, lb) / (la + lb) >= c  bounds the admissible lengths
        lo = int(np.searchsorted(self._lengths, c * n / (2.0 - c) - 1e-9, side="left"))
        hi = int(np.searchsorted(self._lengths, (2.0 - c) * n / c + 1e-9, side="right"))
        if lo >= hi:
            return []
        # the characters shared with each name, bucket by bucket; a bucket the query has no
        # character in adds min(count, 0) = 0, so only the query's own buckets are read (at a
        # million names, a few rows of the table instead of all 32). At most n <= 255 characters
        # are shared: one byte each
        q = _histogram(query)
        shared = np.zeros(hi - lo, dtype=np.uint8)
        part = np.empty(hi - lo, dtype=np.uint8)
        for b in np.flatnonzero(q).tolist():
            np.minimum(self._buckets[b, lo:hi], q[b], out=part)
            shared += part
        bound = 2.0 * shared / (n + self._lengths[lo:hi])
        rows = lo + np.nonzero(bound >= c - 1e-9)[0]
        if rows.size == 0:
            return []
        candidates = [self._strings[r] for r in rows]
        scored = process.extract(query, candidates, scorer=fuzz.ratio, score_cutoff=cutoff, limit=None)
        return [(s, float(score), int(self._order[rows[k]])) for s, score, k in scored]
