"""The chat evaluation: report shape on a small set, and the targets on the real set with the real engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kg.chat.evaluate import (
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
    {
        "id": "t3",
        "lang": "en",
        "turns": [
            {"user": "What does it stand for?", "cite": [], "kind": "clarify", "tags": ["pronoun"]},
            {"user": "What is KV cache?", "cite": [["KV cache"]], "kind": "definition"},
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
    assert (ds["conversations"], ds["turns"]) == (3, 7)
    assert (o["answerable"], o["out_of_domain"], o["clarify"]) == (4, 1, 1)
    assert ds["unresolved"] == [{"id": "t2", "turn": 2, "names": ["No Such Term Anywhere"]}]
    assert o["first_citation"] == pytest.approx(3 / 4)
    assert o["ood_refused"] == 1.0 and o["clarified"] == 1.0
    assert o["follow_ups"] == 3  # scored turns after a conversation's first (t2 turn 2 is unresolved)
    assert report["by_kind"]["out_of_domain"]["ood_refused"] == 1.0
    assert report["by_lang"]["zh"]["first_citation"] == 1.0
    assert report["by_tag"]["pronoun"]["n"] == 1
    assert [(f["id"], f["turn"]) for f in report["failures"]] == [("t2", 3)]
    # search R@1 is measured on first turns only (follow-ups need the conversation)
    assert o["searched"] == 1 and o["search_r1"] is not None  # t1 turn 1 (t2, t3 open out of scope)
    assert report["latency"]["n"] == 7 and report["latency"]["p50_ms"] > 0
    lines = check_targets(report)
    assert lines[0].startswith("FAIL")  # 75 % < 90 %
    assert any(line.startswith("PASS") and "out-of-domain" in line for line in lines)
    md = render_markdown({"dev": report, "test": report}, command="glossary eval-chat")
    assert md.startswith("## Chat evaluation") and "glossary eval-chat" in md
    assert "| metric | dev | test |" in md and "t2 turn 3" in md and "75.0%" in md
    assert "### Targets (test split)" in md
    json.dumps(report)  # plain data


def test_concepts_take_several_names(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    row = {
        "id": "x",
        "lang": "en",
        "turns": [
            {"user": "q", "cite": [["TTFT", "首 token 延迟"], "TPOT"], "kind": "comparison", "tags": ["typo"]}
        ],
    }
    path.write_text(json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8")
    (conv,) = load_conversations(path)
    assert conv.turns[0].cite == (("TTFT", "首 token 延迟"), ("TPOT",))
    assert conv.turns[0].tags == ("typo",)


def test_bad_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "x", "lang": "zh", "turns": []}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.jsonl:1"):
        load_conversations(path)


def test_dataset_gold_names_all_resolve(glossary: Glossary, chat_eval_path: Path) -> None:
    convs = load_conversations(chat_eval_path)
    assert len(convs) == 76
    missing = [
        (c.id, n) for c in convs for t in c.turns for names in t.cite for n in names if not glossary.lookup(n)
    ]
    assert missing == []


@pytest.mark.parametrize(
    ("name", "size"),
    [
        ("chat_blind_dev.jsonl", 300),
        ("chat_blind_dev2.jsonl", 250),
        ("chat_blind_dev3.jsonl", 230),
        ("chat_blind_dev4.jsonl", 55),
        ("chat_blind_dev5.jsonl", 40),
        ("chat_blind_dev6.jsonl", 60),
        ("chat_blind_dev7.jsonl", 35),
        ("chat_blind_dev8.jsonl", 65),
        ("chat_blind_test.jsonl", 300),
    ],
)
def test_blind_splits_resolve(glossary: Glossary, name: str, size: int) -> None:
    """Every concept a blind turn cites resolves to some term (a concept may list several names)."""
    convs = load_conversations(Path(__file__).resolve().parents[1] / "data" / name)
    assert len(convs) > size
    missing = [
        (c.id, names)
        for c in convs
        for t in c.turns
        for names in t.cite
        if not any(glossary.lookup(n) for n in names)
    ]
    assert missing == []


@pytest.mark.slow
def test_regression_floors_with_the_real_engine(
    glossary: Glossary, real_engine: SearchEngine, chat_eval_path: Path
) -> None:
    """Floors a little under the figures `glossary eval-chat` measured (docs/EVAL.md), so that a
    change that loses ground on the original or the blind dev set fails here; the targets of
    issue 9 are reported on the test split by the command, not asserted."""
    real_engine.search("warm up 预热")
    original = evaluate_chat(glossary, real_engine, load_conversations(chat_eval_path))["overall"]
    assert original["first_citation_any_gold"] >= 0.85, original
    assert original["ood_refused"] == 1.0, original
    dev_path = chat_eval_path.parent / "chat_blind_dev.jsonl"
    report = evaluate_chat(glossary, real_engine, load_conversations(dev_path))
    dev = report["overall"]
    assert dev["first_citation"] >= 0.62, dev
    assert dev["wrongful_refusal"] <= 0.12, dev
    assert dev["ood_refused"] >= 0.90, dev
    assert dev["first_citation_on_searched"] >= dev["search_r1"] - 0.03, dev
    assert report["latency"]["p50_ms"] <= 120  # in process; a loaded CI machine gets a wide budget
