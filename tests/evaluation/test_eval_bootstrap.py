"""Paired bootstrap intervals and win/loss counts (kg/evaluation/bootstrap.py)."""

from __future__ import annotations

import pytest

from kg.evaluation.bootstrap import paired_bootstrap, win_loss


def test_identical_systems_differ_by_exactly_zero() -> None:
    scores = [1.0, 0.5, 0.0, 1.0, 0.333, 0.25] * 10
    ci = paired_bootstrap(scores, list(scores))
    assert (ci.n, ci.diff, ci.low, ci.high) == (60, 0.0, 0.0, 0.0)
    assert not ci.above_zero
    assert win_loss(scores, scores).to_dict() == {"wins": 0, "losses": 0, "ties": 60}


def test_a_clearly_better_system_has_its_interval_above_zero() -> None:
    better = [1.0] * 80 + [0.5] * 20
    worse = [0.5] * 80 + [0.5] * 20
    ci = paired_bootstrap(better, worse)
    assert ci.diff == pytest.approx(0.4)
    assert 0.0 < ci.low <= ci.diff <= ci.high
    assert ci.above_zero
    # the other way round: the interval is below zero
    flipped = paired_bootstrap(worse, better)
    assert flipped.diff == pytest.approx(-0.4) and flipped.high < 0.0
    assert win_loss(better, worse).to_dict() == {"wins": 80, "losses": 0, "ties": 20}


def test_a_noisy_small_difference_straddles_zero() -> None:
    a = [1.0, 0.0] * 30
    b = [0.0, 1.0] * 30
    a[0], b[0] = 1.0, 0.0  # unchanged: 30 wins, 30 losses
    ci = paired_bootstrap(a, b)
    assert ci.diff == 0.0 and ci.low < 0.0 < ci.high
    assert win_loss(a, b).to_dict() == {"wins": 30, "losses": 30, "ties": 0}


def test_seeded_reproducible_and_seed_matters() -> None:
    a = [1.0, 0.5, 0.0, 1.0, 0.2, 0.9, 0.1] * 5
    b = [0.5, 0.5, 0.5, 0.2, 0.2, 1.0, 0.0] * 5
    assert paired_bootstrap(a, b) == paired_bootstrap(a, b)
    assert paired_bootstrap(a, b, seed=1) != paired_bootstrap(a, b, seed=2)
    wide = paired_bootstrap(a, b, confidence=0.99)
    narrow = paired_bootstrap(a, b, confidence=0.5)
    assert wide.low < narrow.low and narrow.high < wide.high


def test_unpaired_scores_are_refused_and_empty_is_zero() -> None:
    with pytest.raises(ValueError, match="equal lengths"):
        paired_bootstrap([1.0, 0.5], [1.0])
    with pytest.raises(ValueError, match="equal lengths"):
        win_loss([1.0], [])
    assert paired_bootstrap([], []).to_dict() == {"n": 0, "diff": 0.0, "low": 0.0, "high": 0.0}
