"""Paired bootstrap over queries: how sure is a difference of mean scores between two systems?

Both systems answer the same queries, so the per-query scores come in pairs. A
resample draws ``n`` queries with replacement and takes the mean of their paired
differences; the 95 % interval is the 2.5th to 97.5th percentile of those means
(percentile bootstrap). The generator is seeded, so a report is reproducible.

>>> ci = paired_bootstrap([1.0, 0.5, 1.0], [0.5, 0.5, 1.0])
>>> round(ci.diff, 3), ci.low >= 0.0
(0.167, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

RESAMPLES = 2000
SEED = 14
CONFIDENCE = 0.95


@dataclass(frozen=True)
class DiffCI:
    """Mean of ``a - b`` over ``n`` paired queries with its bootstrap interval [low, high]."""

    n: int
    diff: float
    low: float
    high: float

    @property
    def above_zero(self) -> bool:
        """The whole interval is above 0: ``a`` is better than ``b`` at this confidence."""
        return self.low > 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class WinLoss:
    """Queries where ``a`` scores higher (wins), lower (losses) or the same (ties) as ``b``."""

    wins: int
    losses: int
    ties: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _paired(a: Sequence[float], b: Sequence[float]) -> np.ndarray:
    if len(a) != len(b):
        raise ValueError(f"paired scores need equal lengths, got {len(a)} and {len(b)}")
    return np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)


def paired_bootstrap(
    a: Sequence[float],
    b: Sequence[float],
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    confidence: float = CONFIDENCE,
) -> DiffCI:
    """Mean of ``a[i] - b[i]`` and its percentile bootstrap interval (``ValueError`` if unpaired).

    No queries give ``DiffCI(0, 0.0, 0.0, 0.0)``.
    """
    d = _paired(a, b)
    n = len(d)
    if n == 0:
        return DiffCI(0, 0.0, 0.0, 0.0)
    rng = np.random.default_rng(seed)
    means = d[rng.integers(0, n, size=(resamples, n))].mean(axis=1)
    tail = (1.0 - confidence) / 2.0 * 100.0
    low, high = np.percentile(means, [tail, 100.0 - tail])
    return DiffCI(n, float(d.mean()), float(low), float(high))


def win_loss(a: Sequence[float], b: Sequence[float], *, tolerance: float = 1e-12) -> WinLoss:
    """How many paired queries ``a`` wins, loses and ties against ``b``."""
    d = _paired(a, b)
    return WinLoss(int((d > tolerance).sum()), int((d < -tolerance).sum()), int((abs(d) <= tolerance).sum()))
