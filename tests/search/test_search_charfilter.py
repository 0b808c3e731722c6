"""CharFilter returns exactly what a full rapidfuzz scan returns, on real and random names."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from rapidfuzz import fuzz, process

from kg.build import BuildResult
from kg.search.charfilter import CharFilter
from kg.textnorm import name_key


def _full_scan(query: str, strings: list[str], cutoff: float) -> list[tuple[str, float, int]]:
    found = process.extract(query, strings, scorer=fuzz.ratio, score_cutoff=cutoff, limit=None)
    return [(s, float(score), int(i)) for s, score, i in found]


def _same(a: list[tuple[str, float, int]], b: list[tuple[str, float, int]]) -> bool:
    return sorted(a, key=lambda x: x[2]) == sorted(b, key=lambda x: x[2])


@pytest.fixture(scope="module")
def names(bundled_build: Callable[[], BuildResult]) -> list[str]:
    return sorted({name_key(n) for t in bundled_build().terms for n in t.all_names()} - {""})


@pytest.mark.parametrize("cutoff", [50.0, 75.0, 78.9, 90.0, 100.0])
@pytest.mark.parametrize(
    "query",
    [
        "kvcach",
        "pagedattn",
        "flashatention",
        "张亮并行",
        "ttft是啥",
        "specultivedecoding",
        "x",
        "并行",
        "a" * 300,
    ],
)
def test_same_as_full_scan_on_real_names(names: list[str], query: str, cutoff: float) -> None:
    assert _same(CharFilter(names).extract(query, cutoff), _full_scan(query, names, cutoff))


def test_same_as_full_scan_on_random_strings() -> None:
    rng = random.Random(7)
    alphabet = "abcdeé张量并行 -" + "".join(chr(0x4E00 + i) for i in range(40))
    strings = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14))) for _ in range(600)]
    cf = CharFilter(strings)
    assert len(cf) == len(strings)
    for _ in range(200):
        q = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))
        cutoff = rng.choice([40.0, 60.0, 75.0, 85.0])
        assert _same(cf.extract(q, cutoff), _full_scan(q, strings, cutoff)), (q, cutoff)


def test_empty_inputs() -> None:
    assert CharFilter([]).extract("abc", 75.0) == []
    assert CharFilter(["abc"]).extract("", 75.0) == _full_scan("", ["abc"], 75.0)


def test_token_sort_equivalence() -> None:
    """The matcher scores word order with fuzz.ratio on token-sorted forms: the same as token_sort_ratio."""
    from kg.search.labels import _token_sorted

    pairs = [
        ("attention flash", "flash attention"),
        ("batching continuous", "continuos batching"),
        ("a b", "b  a"),
    ]
    for a, b in pairs:
        assert fuzz.ratio(_token_sorted(a), _token_sorted(b)) == pytest.approx(fuzz.token_sort_ratio(a, b))
