"""The chat evaluation: report shape on a small set, and the targets on the real set with the real engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kg.chat.evaluate import (
    TARGET_FIRST_CITATION,
    Conversation,
    check_targets,
    evaluate_chat,
    load_conversations,
    render_markdown,
)
from kg.search.engine import SearchEngine
from kg.store import Glossary

SMALL = [
    {
        "id": "t1",
        "lang": "zh",
        "turns": [
            {"user": "什么是 TTFT？", "cite": ["TTFT"], "kind": "definition"},
            {"user": "那它和 TPOT 有什么区别？", "cite": ["TTFT", "TPOT"], "kind": "comparison"},
        ],
    },
    {
        "id": "t2",
        "lang": "en",
        "turns": [
            {"user": "Who won the 2022 FIFA World Cup?", "cite": [], "kind": "out_of_domain"},
            {"user": "What is vLLM?", "cite": ["No Such Term Anywhere"], "kind": "definition"},
            {"user": "What is vLLM?", "cite": ["TTFT"], "kind": "definition"},  # a deliberate miss
        ],
    },
]


@pytest.fixture
def small(tmp_path: Path) -> list[Conversation]:
    path = tmp_path / "chat.jsonl"
    path.write_text("\n".join(json.dumps(c, ensure_ascii=False) for c in SMALL) + "\n\n", encoding="utf-8")
    return load_conversations(path)


def test_report_on_a_small_set(glossary: Glossary, engine: SearchEngine, small: list[Conversation]) -> None:
    report = evaluate_chat(glossary, engine, small)
    ds, o = report["dataset"], report["overall"]
    assert (ds["conversations"], ds["turns"], ds["scored_citation"], ds["scored_refusal"]) == (2, 5, 3, 1)
    assert ds["unresolved"] == [{"id": "t2", "turn": 2, "names": ["No Such Term Anywhere"]}]
    assert o["first_citation_accuracy"] == pytest.approx(2 / 3)
    assert o["ood_refusal_rate"] == 1.0
    assert report["by_kind"]["out_of_domain"]["refusal_rate"] == 1.0
    assert report["by_lang"]["zh"]["first_citation_accuracy"] == 1.0
    assert [(f["id"], f["turn"]) for f in report["failures"]] == [("t2", 3)]
    assert report["latency"]["n"] == 5 and report["latency"]["p50_ms"] > 0
    lines = check_targets(report)
    assert lines[0].startswith("FAIL") and lines[1].startswith("PASS")
    md = render_markdown(report, command="glossary eval-chat")
    assert md.startswith("## Chat evaluation") and "glossary eval-chat" in md
    assert "No Such Term Anywhere" in md and "t2 turn 3" in md and "66.7%" in md
    json.dumps(report)  # plain data


def test_bad_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "x", "lang": "zh", "turns": []}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.jsonl:1"):
        load_conversations(path)


def test_dataset_gold_names_all_resolve(glossary: Glossary, chat_eval_path: Path) -> None:
    convs = load_conversations(chat_eval_path)
    assert len(convs) == 76
    missing = [(c.id, n) for c in convs for t in c.turns for n in t.cite if not glossary.lookup(n)]
    assert missing == []


@pytest.mark.slow
def test_targets_with_the_real_engine(
    glossary: Glossary, real_engine: SearchEngine, chat_eval_path: Path
) -> None:
    real_engine.search("warm up 预热")
    report = evaluate_chat(glossary, real_engine, load_conversations(chat_eval_path))
    o = report["overall"]
    assert o["first_citation_accuracy"] >= TARGET_FIRST_CITATION, render_markdown(report, command="test")
    assert o["ood_refusal_rate"] == 1.0, report["failures"]
    # target 60 ms p50 in process (measured ~17 ms); a loaded CI machine gets twice the budget
    assert report["latency"]["p50_ms"] <= 120
