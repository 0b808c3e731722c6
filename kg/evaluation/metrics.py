"""Ranking metrics: recall@1, recall@5 and MRR@10, overall and per group, plus latency.

Everything here is a pure function of (gold term, ranked term ids) pairs:

- the *rank* of a query is the 1-based position of the first occurrence of its gold
  term in the ranking, or ``None`` when absent;
- recall@k is the share of queries ranked at most k;
- MRR is the mean of ``1/rank`` over queries, counting ``0`` when the gold term is
  not within the first :data:`MRR_CUTOFF` (10) positions.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol

MRR_CUTOFF = 10


class Judged(Protocol):
    """What a metric needs to know of a query: its gold term and its groups."""

    @property
    def term_id(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def lang(self) -> str: ...


@dataclass(frozen=True)
class Scores:
    """Aggregate scores of a group of ``n`` queries (all 0.0 for an empty group)."""

    n: int
    recall_at_1: float
    recall_at_5: float
    mrr: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Latency:
    """Per-query latency in milliseconds."""

    n: int
    median_ms: float
    p95_ms: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SystemMetrics:
    """A system's scores overall, per query kind and per query language."""

    overall: Scores
    by_kind: dict[str, Scores]
    by_lang: dict[str, Scores]
    latency: Latency | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "overall": self.overall.to_dict(),
            "by_kind": {k: s.to_dict() for k, s in self.by_kind.items()},
            "by_lang": {k: s.to_dict() for k, s in self.by_lang.items()},
            "latency": self.latency.to_dict() if self.latency else None,
        }


def rank_of(gold: str, ranking: Sequence[str]) -> int | None:
    """1-based position of the first occurrence of ``gold`` in ``ranking``, or ``None``."""
    for i, term_id in enumerate(ranking, 1):
        if term_id == gold:
            return i
    return None


def reciprocal_rank(rank: int | None, cutoff: int = MRR_CUTOFF) -> float:
    """``1/rank`` when the gold term is within ``cutoff``, else ``0.0``."""
    return 1.0 / rank if rank is not None and rank <= cutoff else 0.0


def score_ranks(ranks: Sequence[int | None]) -> Scores:
    """Recall@1, recall@5 and MRR@10 of a list of ranks (``None`` = not found)."""
    n = len(ranks)
    if n == 0:
        return Scores(0, 0.0, 0.0, 0.0)
    return Scores(
        n=n,
        recall_at_1=sum(1 for r in ranks if r is not None and r <= 1) / n,
        recall_at_5=sum(1 for r in ranks if r is not None and r <= 5) / n,
        mrr=sum(reciprocal_rank(r) for r in ranks) / n,
    )


def latency_stats(seconds: Sequence[float]) -> Latency:
    """Median and 95th percentile (linear interpolation) of durations given in seconds."""
    if not seconds:
        return Latency(0, math.nan, math.nan)
    ms = sorted(s * 1000.0 for s in seconds)
    return Latency(len(ms), statistics.median(ms), _percentile(ms, 95.0))


def _percentile(sorted_values: Sequence[float], pct: float) -> float:
    """Percentile with linear interpolation between closest ranks (numpy's default)."""
    if len(sorted_values) == 1:
        return sorted_values[0]
    pos = (len(sorted_values) - 1) * pct / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def _grouped(
    queries: Sequence[Judged], ranks: Sequence[int | None], key: Callable[[Judged], str]
) -> dict[str, Scores]:
    groups: dict[str, list[int | None]] = {}
    for q, r in zip(queries, ranks, strict=True):
        groups.setdefault(key(q), []).append(r)
    return {name: score_ranks(groups[name]) for name in sorted(groups)}


def compute_metrics(
    queries: Sequence[Judged],
    rankings: Sequence[Sequence[str]],
    timings: Sequence[float] | None = None,
) -> SystemMetrics:
    """Scores of one system: ``rankings[i]`` is what it returned for ``queries[i]``.

    ``timings`` (seconds per query, aligned with ``queries``) adds median/p95 latency.
    ``ValueError`` when the sequences are not aligned.
    """
    if len(rankings) != len(queries):
        raise ValueError(f"{len(rankings)} rankings for {len(queries)} queries")
    if timings is not None and len(timings) != len(queries):
        raise ValueError(f"{len(timings)} timings for {len(queries)} queries")
    ranks = [rank_of(q.term_id, r) for q, r in zip(queries, rankings, strict=True)]
    return SystemMetrics(
        overall=score_ranks(ranks),
        by_kind=_grouped(queries, ranks, lambda q: q.kind),
        by_lang=_grouped(queries, ranks, lambda q: q.lang),
        latency=latency_stats(timings) if timings is not None else None,
    )
