"""Vector index behaviour: flat vs HNSW, search edge cases, NaN safety, build validation."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from embeddings import FaissVectorIndex, HashingEncoder, VectorIndex, build_index, load_index


def _ids(n: int) -> list[str]:
    return [f"p{i}" for i in range(n)]


def _all_scores(results: list[list[tuple[str, float]]]) -> list[float]:
    return [score for hits in results for _, score in hits]


@pytest.mark.parametrize("threshold, kind", [(20_000, "flat"), (0, "hnsw")])
def test_exact_duplicate_ranks_first(
    hashing_encoder: HashingEncoder, glossary_texts: list[str], threshold: int, kind: str
) -> None:
    vectors = hashing_encoder.encode_passages(glossary_texts, batch_size=17)
    index = build_index(
        vectors, _ids(len(glossary_texts)), encoder_id=hashing_encoder.id, hnsw_threshold=threshold
    )
    assert isinstance(index, VectorIndex)
    assert index.kind == kind
    assert len(index) == len(glossary_texts)

    results = index.search(hashing_encoder.encode_queries(glossary_texts), k=5)
    assert [hits[0][0] for hits in results] == _ids(len(glossary_texts))
    for hits in results:
        assert hits[0][1] == pytest.approx(1.0, abs=1e-5)
        scores = [s for _, s in hits]
        assert scores == sorted(scores, reverse=True)


def test_hnsw_agrees_with_flat_on_random_vectors(random_unit_vectors: np.ndarray) -> None:
    ids = _ids(len(random_unit_vectors))
    flat = build_index(random_unit_vectors, ids)
    hnsw = build_index(random_unit_vectors, ids, hnsw_threshold=1000)
    assert (flat.kind, hnsw.kind) == ("flat", "hnsw")

    queries = random_unit_vectors[::20]
    flat_top = [hits[0][0] for hits in flat.search(queries, k=1)]
    hnsw_top = [hits[0][0] for hits in hnsw.search(queries, k=1)]
    assert flat_top == hnsw_top == ids[::20]

    # Recall@10 against the exact answer, for perturbed (non-duplicate) queries.
    rng = np.random.default_rng(7)
    noisy = queries + 0.3 * rng.standard_normal(queries.shape).astype(np.float32)
    exact = flat.search(noisy, k=10)
    approx = hnsw.search(noisy, k=10)
    overlap = [len({i for i, _ in a} & {i for i, _ in e}) / 10 for a, e in zip(approx, exact, strict=True)]
    assert sum(overlap) / len(overlap) >= 0.9


def test_single_vector_query_and_k_capping(random_unit_vectors: np.ndarray) -> None:
    index = build_index(random_unit_vectors[:5], _ids(5))
    results = index.search(random_unit_vectors[2], k=50)
    assert len(results) == 1
    assert len(results[0]) == 5
    assert results[0][0][0] == "p2"


def test_k_capping_on_hnsw_never_returns_padding(random_unit_vectors: np.ndarray) -> None:
    index = build_index(random_unit_vectors[:3], _ids(3), hnsw_threshold=0)
    hits = index.search(random_unit_vectors[:2], k=10)
    assert [len(h) for h in hits] == [3, 3]
    assert {i for h in hits for i, _ in h} <= {"p0", "p1", "p2"}


def test_empty_index_and_empty_queries() -> None:
    for threshold in (20_000, 0):
        empty = build_index(np.zeros((0, 8), dtype=np.float32), [], hnsw_threshold=threshold)
        assert len(empty) == 0
        assert empty.search(np.ones((2, 8), dtype=np.float32), k=3) == [[], []]
        assert empty.search(np.zeros((0, 8), dtype=np.float32), k=3) == []

    index = build_index(np.eye(8, dtype=np.float32), _ids(8))
    assert index.search(np.zeros((0, 8), dtype=np.float32), k=3) == []
    assert index.search(np.eye(8, dtype=np.float32)[:2], k=0) == [[], []]
    with pytest.raises(ValueError, match="k must be"):
        index.search(np.eye(8, dtype=np.float32)[:1], k=-1)
    with pytest.raises(ValueError, match="shape"):
        index.search(np.ones(7, dtype=np.float32), k=1)


def test_nan_query_never_yields_nan_scores(random_unit_vectors: np.ndarray) -> None:
    for threshold in (20_000, 0):
        index = build_index(random_unit_vectors[:100], _ids(100), hnsw_threshold=threshold)
        query = random_unit_vectors[:3].copy()
        query[0, :] = np.nan
        query[1, 0] = np.inf
        query[2, 5] = np.nan
        results = index.search(query, k=10)
        assert len(results) == 3
        assert all(math.isfinite(s) for s in _all_scores(results))
        # The partly-NaN query still finds its own vector.
        assert results[2][0][0] == "p2"


def test_build_validation(random_unit_vectors: np.ndarray) -> None:
    vecs = random_unit_vectors[:4]
    with pytest.raises(ValueError, match="ids"):
        build_index(vecs, _ids(3))
    with pytest.raises(ValueError, match="unique"):
        build_index(vecs, ["a", "b", "a", "c"])
    with pytest.raises(ValueError, match="shape"):
        build_index(vecs[0], ["a"])
    bad = vecs.copy()
    bad[1, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        build_index(bad, _ids(4))


def test_wrapping_requires_matching_ids(random_unit_vectors: np.ndarray) -> None:
    index = build_index(random_unit_vectors[:4], _ids(4))
    with pytest.raises(ValueError, match="ids"):
        FaissVectorIndex(index.faiss_index, _ids(3))


@pytest.mark.parametrize("threshold, kind", [(20_000, "flat-sq8"), (0, "hnsw-sq8")])
def test_sq8_vectors_find_the_same_nearest(
    random_unit_vectors: np.ndarray, tmp_path: Path, threshold: int, kind: str
) -> None:
    ids = _ids(len(random_unit_vectors))
    exact = build_index(random_unit_vectors, ids)
    sq8 = build_index(random_unit_vectors, ids, hnsw_threshold=threshold, quantize="sq8", encoder_id="e")
    assert sq8.kind == kind
    queries = random_unit_vectors[::20]
    assert [hits[0][0] for hits in sq8.search(queries, k=1)] == ids[::20]
    for a, e in zip(sq8.search(queries, k=3), exact.search(queries, k=3), strict=True):
        assert a[0][1] == pytest.approx(e[0][1], abs=0.02)  # approximate scores
    sq8.save(tmp_path / "idx", encoder_id="e")
    again = load_index(tmp_path / "idx", expected_encoder_id="e", expected_dim=sq8.dim)
    assert again.kind == kind
    assert again.search(queries, k=5) == sq8.search(queries, k=5)
    # a byte per component instead of four: ~3/4 of the vectors' bytes saved (same index kind)
    same_kind = build_index(random_unit_vectors, ids, hnsw_threshold=threshold, encoder_id="e")
    same_kind.save(tmp_path / "float32", encoder_id="e")
    saved = (tmp_path / "float32" / "vectors.faiss").stat().st_size - (
        tmp_path / "idx" / "vectors.faiss"
    ).stat().st_size
    assert saved >= 0.7 * random_unit_vectors.size * 4


def test_unknown_quantization_is_refused(random_unit_vectors: np.ndarray) -> None:
    with pytest.raises(ValueError, match="quantization"):
        build_index(random_unit_vectors[:5], _ids(5), quantize="pq4")
