"""``glossary bench-memory`` at scale: the streamed vectors of a million-term build, at a tiny size.

From 500k terms the synthetic build composes its passage vectors block by block while the index
adds them (:func:`kg.bench.synthetic.passage_vector_blocks`, :func:`embeddings.build_index_from_blocks`);
these tests run that path on a few thousand terms (``--stream-from``) and check it gives what the
one-array path gives. No timing or memory figure is asserted (the command measures them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from embeddings import build_index, build_index_from_blocks, make_encoder
from kg.bench.memory_bench import check_targets, run_benchmark
from kg.bench.synthetic import passage_vector_blocks, passage_vectors, synthetic_corpus
from kg.build import build_graph
from kg.model import Term
from kg.search.passages import passages


@pytest.fixture(scope="module")
def real_terms() -> list[Term]:
    return [t for t in build_graph().terms if t.defined]


@pytest.mark.parametrize("chunk", [7, 500, 20_000])
def test_vector_blocks_are_the_vectors_of_one_array(real_terms: list[Term], chunk: int) -> None:
    corpus = synthetic_corpus(len(real_terms) + 400, real_terms, seed=3)
    items = passages(corpus.terms)
    encoder = make_encoder("hash:32")
    whole, info = passage_vectors(corpus, items, encoder, budget_s=0.0, calibration=60, seed=3)
    assert info["name"] == "composed-from-real-encodings"
    got, starts = [], []
    block_info, blocks = passage_vector_blocks(
        corpus, list(items), encoder, budget_s=0.0, calibration=60, seed=3, chunk=chunk
    )
    assert "compose_s" not in block_info.get("timings_s", {})  # composed as the blocks are read
    for start, block in blocks:
        starts.append(start)
        got.append(block)
    assert starts == sorted(starts) and starts[0] == 0
    # the same vectors whatever the block size, to float32 rounding: BLAS picks its kernel (and so
    # its summation order) by the matrix's shape, so a block of 7 rows may differ in the last bit
    np.testing.assert_allclose(np.concatenate(got), whole, rtol=0, atol=1e-6)
    assert block_info["weights"] == info["weights"] and block_info["fidelity"] == info["fidelity"]
    assert (
        block_info["timings_s"]["compose_s"] >= 0
        and block_info["composed_passages"] == len(corpus.recipes) - 60
    )
    if chunk == 7:
        assert len(got) == -(-block_info["composed_passages"] // 7)


def test_index_from_blocks_is_the_index_of_one_array() -> None:
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((300, 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    ids = [f"t{i}#def0" for i in range(300)]
    blocks = [vectors[i : i + 70] for i in range(0, 300, 70)]

    flat = build_index_from_blocks(blocks, ids, 16, encoder_id="hash:16")
    assert flat.kind == "flat" and list(flat.ids) == ids
    same = build_index(vectors, ids, encoder_id="hash:16")
    assert flat.search(vectors[:5], 10) == same.search(vectors[:5], 10)

    hnsw = build_index_from_blocks(blocks, ids, 16, encoder_id="hash:16", hnsw_threshold=100)
    assert hnsw.kind == "hnsw" and len(hnsw) == 300
    assert [hits[0][0] for hits in hnsw.search(vectors[:20], 5)] == ids[:20]
    sq8 = build_index_from_blocks(
        blocks, ids, 16, encoder_id="hash:16", hnsw_threshold=100, quantize="sq8", train_size=100
    )
    assert sq8.kind == "hnsw-sq8" and len(sq8) == 300
    assert sum(hits[0][0] == i for hits, i in zip(sq8.search(vectors[:20], 5), ids, strict=False)) >= 18
    assert build_index_from_blocks([vectors], ids, 16, encoder_id="e", quantize="sq8").kind == "flat-sq8"

    with pytest.raises(ValueError, match="vectors but"):
        build_index_from_blocks(blocks[:-1], ids, 16)
    with pytest.raises(ValueError, match="more than"):
        build_index_from_blocks([*blocks, vectors[:1]], ids, 16)
    with pytest.raises(ValueError, match="shape"):
        build_index_from_blocks([vectors[:, :8]], ids, 16)
    with pytest.raises(ValueError, match="unique"):
        build_index_from_blocks(blocks, ids[:-1] + ids[:1], 16)
    bad = vectors.copy()
    bad[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        build_index_from_blocks([bad], ids, 16)


def test_streamed_build_is_profiled_probed_and_reused(tmp_path: Path) -> None:
    """The 1M path end to end at 1,200 terms: a streamed HNSW build (--build-only), then a --reuse
    run that profiles and probes it; sq8 only up to --quantized-up-to; results in size order."""
    keep = tmp_path / "keep"
    common: dict[str, Any] = {
        "encoder": "hash:64",
        "rounds": 1,
        "max_queries": 8,
        "hnsw_threshold": 1000,
        "stream_from": 1000,
        "encode_budget_s": 0.0,
    }
    built = run_benchmark(
        [1200, 900],
        keep,
        command="test",
        quantize=[None, "sq8"],
        quantized_up_to=1000,
        build_only=True,
        **common,
    )
    assert built["build_only"] and [(r["size"], r["quantize"]) for r in built["results"]] == [
        (900, None),
        (900, "sq8"),
        (1200, None),
    ]
    big = built["results"][-1]["build"]
    assert big["vectors_streamed"] and big["index_kind"] == "hnsw" and big["terms"] == 1200
    assert big["vectors"]["timings_s"]["compose_s"] >= 0  # filled in once the blocks were read
    assert not built["results"][0]["build"]["vectors_streamed"]
    assert (keep / "synthetic-1200" / "graph.json").exists()
    record = json.loads((keep / "synthetic-1200.build.json").read_text(encoding="utf-8"))
    assert record["vectors_streamed"] and record["passages"] == big["passages"]

    report = run_benchmark([1200], keep, command="test", reuse=True, **common)
    (res,) = report["results"]
    assert res["build"]["reused"] and res["probe"]["terms"] == 1200 == res["profile"]["terms"]
    assert res["probe"]["index_kind"] == "hnsw" and res["profile"]["passages"] == big["passages"]
    row = report["summary"][0]
    assert row["build_peak_rss_mb"] == big["build_peak_rss_mb"] and row["search_p50_ms"] > 0


def test_million_term_targets() -> None:
    def result(size: int, build_peak: float, p50: float) -> dict:
        return {
            "size": size,
            "quantize": None,
            "build": {"build_peak_rss_mb": build_peak},
            "probe": {"peak_rss_mb": 9_999.0, "latency_ms": {"p50": p50}},
        }

    rows = {t["target"]: t for t in check_targets([result(1_000_000, 11_000.0, 31.0)])}
    build = rows["1M terms: build peak RSS (the synthetic build on this machine) (float32 vectors)"]
    assert (build["value"], build["unit"], build["status"]) == (11_000.0, "MB", "PASS")
    assert rows["1M terms: hybrid search p50 (float32 vectors)"]["status"] == "FAIL"
    assert rows["100k terms: hybrid search p50"]["status"] == "n/a"
