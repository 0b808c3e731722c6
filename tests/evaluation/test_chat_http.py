"""Chat evaluation over HTTP: `glossary serve` with two workers answers every turn as the
in-process pipeline does, and never forgets a conversation (shared SQLite sessions)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg.chat.evaluate import evaluate_chat, load_conversations
from kg.chat.refusal import RefusalModel, attach_refusal_model
from kg.evaluation.chat_http import HttpChat, served
from kg.search.engine import SearchEngine
from kg.store import Glossary

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_http_replay_matches_in_process(hash_artifact: Path) -> None:
    artifact = hash_artifact
    assert (artifact / "chat" / "refusal.json").is_file()  # `glossary build` trains it
    convs = load_conversations(REPO / "tests" / "data" / "chat_eval.jsonl")[:12]
    g = Glossary.load(artifact)
    engine = SearchEngine.for_artifact(artifact, g.terms.values())
    model = RefusalModel.load(artifact)
    assert model is not None
    attach_refusal_model(engine, model)
    local = evaluate_chat(g, engine, convs, with_search=False)
    with served(artifact, workers=2) as url:
        client = HttpChat(url)
        remote = evaluate_chat(g, engine, convs, answer_fn=client, with_search=False)
        client.close()
    assert client.turns == sum(len(c.turns) for c in convs) and client.resets == 0
    pairs = zip(local["per_turn"], remote["per_turn"], strict=True)
    assert all(
        a["first_citation"] == b["first_citation"] and a["grounded"] == b["grounded"] for a, b in pairs
    )
