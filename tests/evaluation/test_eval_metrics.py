"""Ranking metrics on hand-made rankings, where every expected number is worked out by hand."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np
import pytest

from kg.evaluation.metrics import (
    MRR_CUTOFF,
    compute_metrics,
    latency_stats,
    rank_of,
    reciprocal_rank,
    score_ranks,
)


@dataclass(frozen=True)
class Q:
    term_id: str
    kind: str
    lang: str


def test_rank_of_is_one_based_first_occurrence() -> None:
    assert rank_of("b", ["a", "b", "c", "b"]) == 2
    assert rank_of("a", ["a"]) == 1
    assert rank_of("z", ["a", "b"]) is None
    assert rank_of("a", []) is None


def test_reciprocal_rank_cutoff_at_ten() -> None:
    assert MRR_CUTOFF == 10
    assert reciprocal_rank(1) == 1.0
    assert reciprocal_rank(4) == 0.25
    assert reciprocal_rank(10) == pytest.approx(0.1)
    assert reciprocal_rank(11) == 0.0
    assert reciprocal_rank(None) == 0.0


def test_score_ranks_by_hand() -> None:
    s = score_ranks([1, 3, None, 11, 5])
    assert s.n == 5
    assert s.recall_at_1 == pytest.approx(1 / 5)
    assert s.recall_at_5 == pytest.approx(3 / 5)  # ranks 1, 3, 5
    assert s.mrr == pytest.approx((1 + 1 / 3 + 0 + 0 + 1 / 5) / 5)


def test_score_ranks_empty_and_perfect() -> None:
    empty = score_ranks([])
    assert (empty.n, empty.recall_at_1, empty.recall_at_5, empty.mrr) == (0, 0.0, 0.0, 0.0)
    perfect = score_ranks([1, 1, 1])
    assert (perfect.recall_at_1, perfect.recall_at_5, perfect.mrr) == (1.0, 1.0, 1.0)


def test_compute_metrics_overall_and_groups() -> None:
    queries = [
        Q("ttft", "abbrev", "en"),  # rank 1
        Q("tpot", "abbrev", "zh"),  # rank 2
        Q("kv", "reverse_zh", "zh"),  # missing
        Q("tp", "reverse_zh", "zh"),  # rank 6: in R@5? no; MRR 1/6
    ]
    rankings = [
        ["ttft", "tpot"],
        ["ttft", "tpot", "tpot"],
        ["a", "b", "c"],
        ["a", "b", "c", "d", "e", "tp", "tp"],
    ]
    m = compute_metrics(queries, rankings)
    assert m.overall.n == 4
    assert m.overall.recall_at_1 == pytest.approx(1 / 4)
    assert m.overall.recall_at_5 == pytest.approx(2 / 4)
    assert m.overall.mrr == pytest.approx((1 + 1 / 2 + 0 + 1 / 6) / 4)
    assert list(m.by_kind) == ["abbrev", "reverse_zh"]
    assert m.by_kind["abbrev"].mrr == pytest.approx((1 + 1 / 2) / 2)
    assert m.by_kind["abbrev"].recall_at_1 == pytest.approx(1 / 2)
    assert m.by_kind["reverse_zh"].mrr == pytest.approx((0 + 1 / 6) / 2)
    assert m.by_kind["reverse_zh"].recall_at_5 == 0.0
    assert m.by_lang["en"].n == 1 and m.by_lang["en"].mrr == 1.0
    assert m.by_lang["zh"].n == 3
    assert m.by_lang["zh"].mrr == pytest.approx((1 / 2 + 0 + 1 / 6) / 3)
    assert m.latency is None
    json.dumps(m.to_dict())  # plain data


def test_compute_metrics_gold_beyond_cutoff_counts_zero() -> None:
    ranking = [f"t{i}" for i in range(1, 12)]  # gold "t11" at rank 11
    m = compute_metrics([Q("t11", "k", "en")], [ranking])
    assert m.overall.mrr == 0.0
    assert m.overall.recall_at_5 == 0.0


def test_compute_metrics_rejects_misaligned_inputs() -> None:
    with pytest.raises(ValueError, match="rankings"):
        compute_metrics([Q("a", "k", "en")], [])
    with pytest.raises(ValueError, match="timings"):
        compute_metrics([Q("a", "k", "en")], [["a"]], [0.1, 0.2])


def test_latency_median_and_p95() -> None:
    seconds = [i / 1000 for i in range(1, 21)]  # 1..20 ms
    lat = latency_stats(seconds)
    assert lat.n == 20
    assert lat.median_ms == pytest.approx(10.5)
    assert lat.p95_ms == pytest.approx(float(np.percentile(np.arange(1, 21), 95)))
    assert lat.p95_ms == pytest.approx(19.05)
    one = latency_stats([0.004])
    assert one.median_ms == pytest.approx(4.0) and one.p95_ms == pytest.approx(4.0)
    assert math.isnan(latency_stats([]).median_ms)


def test_compute_metrics_with_timings() -> None:
    m = compute_metrics([Q("a", "k", "en"), Q("b", "k", "en")], [["a"], ["a", "b"]], [0.002, 0.004])
    assert m.latency is not None
    assert m.latency.median_ms == pytest.approx(3.0)
