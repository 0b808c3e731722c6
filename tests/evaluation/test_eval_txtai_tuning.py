"""The txtai tuner (kg/evaluation/txtai_tuning.py) and its configurable index on a small subgraph."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kg.evaluation.dataset import Query, ResolvedQuery, load_queries, resolve_gold
from kg.evaluation.metrics import rank_of, reciprocal_rank
from kg.evaluation.txtai_configurable import (
    TxtaiIndex,
    TxtaiSettings,
    TxtaiTuned,
    glossary_cjk_names,
    jieba_tokenizer,
    roll_up,
    scoring_config,
    txtai_documents,
)
from kg.evaluation.txtai_tuning import (
    TUNED_PATH,
    ConfigScore,
    Grid,
    TuningResult,
    document_vectors,
    load_tuned,
    render_table,
    tune,
    write_tuned,
)
from kg.store import Glossary
from tests.evaluation.test_eval_txtai import sub_glossary


class NoiseEncoder:
    """A useless dense model: a fixed pseudo-random unit vector per text (so BM25 must do the work)."""

    id = "noise:32"
    dim = 32

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
            v = np.random.default_rng(seed).standard_normal(self.dim)
            out[i] = v / np.linalg.norm(v)
        return out

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts)

    def encode_passages(
        self, texts: Sequence[str], *, batch_size: int = 64, progress: Any = False
    ) -> np.ndarray:
        return self._encode(texts)


# --- settings, table and file (no txtai) -----------------------------------------------------


def test_settings_validate_and_round_trip() -> None:
    s = TxtaiSettings("jieba-search-names", "bb25", "terms", 0.7)
    assert TxtaiSettings.from_dict(json.loads(json.dumps(s.to_dict()))) == s
    assert s.index_key == ("jieba-search-names", "bb25", "terms") and "w=0.7" in s.label()
    for bad in (
        {"tokenizer": "whitespace"},
        {"normalize": "minmax"},
        {"documents": "chunks"},
        {"dense_weight": 1.5},
    ):
        with pytest.raises(ValueError):
            TxtaiSettings(**{**s.to_dict(), **bad})
    with pytest.raises(ValueError, match="lack"):
        TxtaiSettings.from_dict({"tokenizer": "txtai"})


def test_scoring_config_is_txtais_hybrid_default_plus_the_choices() -> None:
    assert scoring_config("txtai", "default") == {"method": "bm25", "terms": True, "normalize": True}
    assert scoring_config("txtai", "bb25")["normalize"] == "bb25"
    jieba = scoring_config("jieba-plain-names", "default", ["张量并行"])
    assert jieba["method"].endswith("txtai_configurable.JiebaBM25")
    assert jieba["jieba"] == {"mode": "plain", "words": ["张量并行"]}
    assert scoring_config("jieba-search", "default", ["张量并行"])["jieba"] == {"mode": "search", "words": []}


def test_jieba_tokenizers_modes_and_added_names() -> None:
    text = "张量切片并行的通信开销 KV Cache"
    plain = jieba_tokenizer("plain")(text)
    assert "张量切片并行" not in plain and "kv" in plain and "cache" in plain  # lower-cased Latin words
    named = jieba_tokenizer("plain", ["张量切片并行"])(text)
    assert "张量切片并行" in named and "张量" not in named
    search = jieba_tokenizer("search", ["张量切片并行"])(text)
    assert {"张量切片并行", "张量", "并行"} <= set(search)  # search mode adds the sub-words
    assert all(t.strip() for t in plain)


def test_roll_up_takes_the_best_passage_per_term() -> None:
    hits = [("a#def0", 0.9), ("b#def1", 0.8), ("a#def1", 0.95), ("c", 0.8), ("b#def0", 0.1)]
    assert roll_up(hits) == ["a", "b", "c"]  # b and c tie at 0.8: first hit first
    assert roll_up(hits, 1) == ["a"]


def _score(tok: str, w: float, mrr: float, r1: float) -> ConfigScore:
    return ConfigScore(TxtaiSettings(tok, "default", "passages", w), 10, mrr, r1)


def test_best_is_highest_mrr_then_recall_then_grid_order() -> None:
    grid = Grid(tokenizers=("txtai", "jieba-plain"), normalizations=("default",), documents=("passages",))
    scores = [
        _score("txtai", 0.1, 0.7, 0.5),
        _score("txtai", 0.2, 0.8, 0.5),
        _score("jieba-plain", 0.3, 0.8, 0.6),
    ]
    assert TuningResult(grid, scores, 1.0).best is scores[2]
    scores[2] = _score("jieba-plain", 0.3, 0.8, 0.5)  # full tie: the first in grid order
    assert TuningResult(grid, scores, 1.0).best is scores[1]


def test_write_then_load_tuned(tmp_path: Path) -> None:
    grid = Grid(
        tokenizers=("txtai",), normalizations=("bb25",), documents=("terms",), dense_weights=(0.0, 0.5)
    )
    scores = [_score("txtai", 0.0, 0.5, 0.4), _score("txtai", 0.5, 0.75, 0.6)]
    result = TuningResult(grid, scores, 3.2)
    path = tmp_path / "tuned.json"
    written = write_tuned(
        path,
        result,
        command="glossary eval-tune-txtai",
        split="dev.jsonl",
        encoder_id="x",
        queries=11,
        evaluated=10,
    )
    settings, doc = load_tuned(path)
    assert settings == scores[1].settings
    assert doc == json.loads(path.read_text(encoding="utf-8")) == written
    assert doc["command"] == "glossary eval-tune-txtai" and doc["split"] == "dev.jsonl" and doc["date"]
    assert [r["mrr"] for r in doc["results"]] == [0.5, 0.75] and doc["configurations"] == 2
    bad = tmp_path / "bad.json"
    bad.write_text("{}", encoding="utf-8")
    with pytest.raises(ValueError, match="chosen"):
        load_tuned(bad)


def test_the_committed_choice_is_the_best_dev_configuration() -> None:
    settings, doc = load_tuned(TUNED_PATH)
    assert doc["split"] == "tests/data/retrieval_dev.jsonl"  # tuned on dev, never on test or holdout
    assert doc["command"].startswith("glossary eval-tune-txtai")
    results = doc["results"]
    assert len(results) == doc["configurations"] > 100
    best = max(r["mrr"] for r in results)
    assert doc["chosen"]["mrr"] == best
    assert settings in {TxtaiSettings.from_dict(r) for r in results if r["mrr"] == best}


# --- the tuner on a real txtai index -----------------------------------------------------------


@pytest.fixture(scope="module")
def small(real_glossary: Glossary, dataset_path: Path) -> tuple[Glossary, list[ResolvedQuery]]:
    pytest.importorskip("txtai")
    resolved, _ = resolve_gold(real_glossary, load_queries(dataset_path))
    ids = list(dict.fromkeys(r.term_id for r in resolved))[:25]
    sub = sub_glossary(real_glossary, ids)
    # queries BM25 can answer: the terms' Chinese labels (dense is noise here)
    zh = [(t.id, t.labels["zh"]) for t in sub.terms.values() if t.defined and "zh" in t.labels]
    queries = [
        ResolvedQuery(Query(f"s{i}", label, "label", "zh", (label,)), tid)
        for i, (tid, label) in enumerate(zh)
    ]
    assert len(queries) >= 10
    return sub, queries


@pytest.mark.slow
def test_tuner_picks_the_best_configuration_and_it_is_what_the_system_scores(
    small: tuple[Glossary, list[ResolvedQuery]],
) -> None:
    sub, queries = small
    encoder = NoiseEncoder()
    grid = Grid(
        tokenizers=("txtai", "jieba-plain-names"),
        normalizations=("default", "bb25"),
        documents=("passages", "terms"),
        dense_weights=(0.0, 0.5, 1.0),
    )
    vectors = {docs: document_vectors(sub, encoder, docs) for docs in grid.documents}
    lines: list[str] = []
    result = tune(sub, queries, encoder, vectors, grid=grid, progress=lines.append)
    assert len(result.scores) == len(grid.settings()) == 24 and len(lines) == 8
    by = {s.settings: s for s in result.scores}
    best = result.best
    assert best.mrr == max(s.mrr for s in result.scores)
    # noise vectors: dense alone is poor, BM25 over the labels near perfect, so the tuner avoids w=1.0
    assert best.settings.dense_weight < 1.0 and best.mrr >= 0.9
    assert by[TxtaiSettings("txtai", "default", "passages", 1.0)].mrr < best.mrr - 0.3
    # the tuner's fast path (one search, every weight fused) scores what txtai's own search returns
    for settings in (best.settings, TxtaiSettings("txtai", "bb25", "terms", 0.5)):
        system = TxtaiTuned(sub, encoder, settings, vectors[settings.documents])
        rr = [reciprocal_rank(rank_of(q.term_id, system.rank(q.text))) for q in queries]
        assert sum(rr) / len(rr) == pytest.approx(by[settings].mrr)
    table = render_table(result)
    assert table.count("\n") == 2 + 8 and f"**{best.mrr:.3f}**" in table


@pytest.mark.slow
def test_index_fast_path_equals_txtai_search_and_documents_are_terms(
    small: tuple[Glossary, list[ResolvedQuery]],
) -> None:
    sub, queries = small
    encoder = NoiseEncoder()
    docs = txtai_documents(sub, "terms")
    assert [d for d, _ in docs] == list(dict.fromkeys(d for d, _ in docs)) and all(
        "#" not in d for d, _ in docs
    )
    assert {d for d, _ in docs} == {p.split("#")[0] for p, _ in txtai_documents(sub, "passages")}
    index = TxtaiIndex(
        docs,
        document_vectors(sub, encoder, "terms"),
        encoder,
        tokenizer="jieba-search-names",
        normalize="bb25",
        names=glossary_cjk_names(sub),
    )
    assert len(index) == len(docs)
    for q in queries[:5]:
        channels = index.channels(q.text)
        for w in (0.0, 0.3, 1.0):
            assert [d for d, _ in index.fuse(channels, w)] == [d for d, _ in index.search(q.text, w)]
    with pytest.raises(ValueError, match="shape"):
        TxtaiIndex(docs, np.zeros((1, encoder.dim)), encoder)
