"""``glossary bench-search``: the quick variant end to end, the synthetic corpus and its vectors.

No timing is asserted: the speed targets are checked by the benchmark command itself
(``glossary bench-search``, results in docs/bench/search.json), not by unit tests.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from embeddings import make_encoder
from kg.bench.search_bench import BenchConfig, check_targets, parse_sizes
from kg.bench.synthetic import SYNTHETIC_SOURCE, passage_vectors, synthetic_corpus
from kg.build import BuildResult
from kg.cli import app
from kg.model import Term
from kg.search.passages import passages
from kg.textnorm import name_key


@pytest.fixture(scope="module")
def real_terms(bundled_build: Callable[[], BuildResult]) -> list[Term]:
    return [t for t in bundled_build().terms if t.defined]  # what the search indexes hold


def test_quick_benchmark_command_writes_a_complete_report(tmp_path: Path) -> None:
    out = tmp_path / "search.json"
    res = CliRunner().invoke(app, ["bench-search", "--quick", "--sizes", "900", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "targets" in res.output
    report = json.loads(out.read_text(encoding="utf-8"))

    assert report["quick"] is True
    assert report["machine"]["cpu_count"] >= 1 and report["machine"]["faiss"]
    assert report["config"]["encoder"] == "hash:64"
    full = report["full"]
    assert full["build"]["vectors"]["name"] == "real"
    assert full["build"]["index_kind"] == "flat"
    assert full["probe"]["terms"] == full["build"]["terms"]
    assert full["probe"]["latency_ms"]["n"] == 40  # 40 queries x 1 round
    assert full["probe"]["peak_rss_mb"] > 0

    (syn,) = report["synthetic"]
    assert syn["size"] == 900 and syn["build"]["terms"] == 900 == syn["probe"]["terms"]
    # the quick config forces both the composed vectors and an HNSW index on it
    assert syn["build"]["vectors"]["name"] == "composed-from-real-encodings"
    assert syn["build"]["vectors"]["projected_full_encode_s"] is not None
    assert syn["build"]["index_kind"] == "hnsw"
    assert syn["build"]["index_bytes"]["search_total"] > syn["build"]["index_bytes"]["dense"] > 0
    for key in ("lexical_s", "embeddings_s", "index_s", "total_s"):
        assert syn["build"]["timings_s"][key] >= 0

    assert [row["corpus"] for row in report["summary"]] == ["full", "synthetic 900"]
    stages = syn["probe"]["stage_latency_ms"]
    assert {"labels", "bm25", "dense", "query_encode", "vector_search", "fuzzy_every_query"} <= set(stages)
    assert all(row["dense_stage_p50_ms"] is not None for row in report["summary"])
    assert set(report["ratios"]) == {"synthetic 900"}
    statuses = {t["id"]: t["status"] for t in report["targets"]}
    assert statuses["synthetic.100k.search_p50"] == "n/a"
    assert {statuses[k] for k in ("full.search_p50", "full.build", "full.peak_rss")} <= {"PASS", "FAIL"}
    assert "other_processes_cores" in syn["machine_load"]["probe"]


def test_check_targets_pass_fail_and_na() -> None:
    def corpus(p50: float) -> dict:
        return {
            "build": {"timings_s": {"total_s": 10.0}, "passages": 5, "index_kind": "hnsw"},
            "probe": {"latency_ms": {"p50": p50, "p99": 70.0}, "peak_rss_mb": 300.0, "stage_latency_ms": {}},
        }

    report = {"full": corpus(20.0), "synthetic": [{"size": 100_000, **corpus(31.0)}]}
    got = {t["id"]: t["status"] for t in check_targets(report)}
    assert got == {
        "full.search_p50": "PASS",
        "full.search_p99": "FAIL",
        "full.build": "PASS",
        "full.peak_rss": "PASS",
        "synthetic.100k.search_p50": "FAIL",
    }
    report["synthetic"] = []
    assert check_targets(report)[-1]["status"] == "n/a"


def test_parse_sizes_and_quick_config() -> None:
    assert parse_sizes("10000, 100000") == (10_000, 100_000)
    assert parse_sizes(None) is None
    with pytest.raises(ValueError):
        parse_sizes("0")
    cfg = BenchConfig.quick_config()
    assert cfg.quick and cfg.encoder.startswith("hash:") and cfg.rounds == 1


def test_synthetic_corpus_is_deterministic_and_realistic(real_terms: list[Term]) -> None:
    n = len(real_terms) + 800
    a = synthetic_corpus(n, real_terms, seed=7)
    b = synthetic_corpus(n, real_terms, seed=7)
    assert [t.to_dict() for t in a.terms] == [t.to_dict() for t in b.terms]
    assert [t.to_dict() for t in synthetic_corpus(n, real_terms, seed=8).terms] != [
        t.to_dict() for t in a.terms
    ]

    assert len(a.terms) == n and a.n_real == len(real_terms) and a.n_synthetic == 800
    ids = [t.id for t in a.terms]
    assert len(set(ids)) == n and not any("#" in i for i in ids)
    label_keys = [name_key(v) for t in a.terms for v in t.labels.values()]
    assert len(set(label_keys)) == len(label_keys)  # no two terms share a label

    syn = [t for t in a.terms if t.sources == [SYNTHETIC_SOURCE]]
    assert len(syn) == 800
    counts = Counter(len(t.definitions) for t in syn)
    assert set(counts) <= {1, 2, 3} and counts[1] > counts[2] > 0
    assert sum("zh" in t.labels for t in syn) > 400 and sum("en" in t.labels for t in syn) > 400
    assert {d.lang for t in syn for d in t.definitions} == {"zh", "en"}
    assert any(t.abbreviations for t in syn) and any(t.aliases for t in syn)
    # every synthetic passage has a recipe; real passages have none
    pids = [pid for pid, _ in passages(a.terms)]
    assert set(a.recipes) == {p for p in pids if p.split("#")[0] in {t.id for t in syn}}

    small = synthetic_corpus(50, real_terms, seed=7)
    assert len(small.terms) == 50 and small.n_synthetic == 0


@pytest.mark.parametrize(("budget", "method"), [(1e9, "real"), (0.0, "composed-from-real-encodings")])
def test_passage_vectors_methods(real_terms: list[Term], budget: float, method: str) -> None:
    corpus = synthetic_corpus(len(real_terms) + 300, real_terms, seed=1)
    items = passages(corpus.terms)
    encoder = make_encoder("hash:32")
    vectors, info = passage_vectors(corpus, items, encoder, budget_s=budget, calibration=60, seed=1)
    assert info["name"] == method
    assert vectors.shape == (len(items), 32) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    # real terms' passages are always the encoder's own vectors
    real_rows = [i for i, (pid, _) in enumerate(items) if pid not in corpus.recipes]
    expected = encoder.encode_passages([items[i][1] for i in real_rows])
    assert np.allclose(vectors[real_rows], expected, atol=1e-5)
    assert info["projected_full_encode_s"] is not None
    if method != "real":
        assert info["composed_passages"] == len(corpus.recipes) - 60
        assert set(info["weights"]) == {"heading", "modifiers", "clauses", "global"}
        assert info["fidelity"]["held_out_passages"] == 30
        again, _ = passage_vectors(corpus, items, encoder, budget_s=budget, calibration=60, seed=1)
        assert np.array_equal(vectors, again)
