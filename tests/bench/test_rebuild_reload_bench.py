"""``glossary bench-rebuild`` and ``glossary bench-reload`` end to end, with their smallest
settings (one edit and one CLI build; one reload) and the hashing encoder: the reports are
complete and render. No timing is asserted here (the commands check their own targets); what is
asserted is what must hold at any speed: one passage encoded per edit, no failed request and no
stale version during reloads.

``bench-rebuild`` keeps a cold cache of its own by design (its full build fits the refusal model
from nothing); ``bench-reload``'s builder process starts from a cache holding the unedited
corpus's refusal model (tests/refusal_cache.py), since what it measures starts after that first
build."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kg.benchreport import render_rebuild, render_reload
from kg.cli import app

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_bench_rebuild_reports_an_incremental_rebuild(tmp_path: Path, quick_fits: None) -> None:
    """The command's report (quick refusal fits: this checks what it measures and reports,
    not the model)."""
    out = tmp_path / "rebuild.json"
    args = [
        "bench-rebuild",
        "--runs",
        "1",
        "--cli-runs",
        "1",
        "--encoder",
        "hash:64",
        "--out",
        str(out),
        "--no-doc",
    ]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    d = json.loads(out.read_text(encoding="utf-8"))
    assert d["full_build"]["encoded"] >= d["passages"] > 0 and d["full_build"]["refusal"] == "fitted"
    assert [r["encoded"] for r in d["rebuilds"]] == [1]  # the edited passage only
    assert all(r["refusal"] == "carried" and not r["refusal_current"] for r in d["rebuilds"])
    assert len(d["refits"]) == 1 and all(r["refusal_current"] for r in d["refits"])
    # the edit made a new artifact, and its refit another one (a new refusal model)
    versions = [d["full_build"], d["rebuilds"][0], d["refits"][0]]
    assert len({v["content_sha256"] for v in versions}) == 3
    assert 0.0 <= d["refusal_agreement"]["same_decision"] <= 1.0 and d["cli_rebuilds"][0]["wall_s"] > 0
    assert d["targets"][0]["value"] == d["rebuild"]["median_s"]
    assert "## Incremental rebuild" in render_rebuild(d)


@pytest.mark.slow
def test_bench_reload_reports_no_failure_and_no_stale_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seeded_cache_home: Path
) -> None:
    monkeypatch.chdir(REPO)  # the workload's questions: tests/data/retrieval_dev.jsonl
    out = tmp_path / "reload.json"
    args = ["bench-reload", "--reloads", "1", "--concurrency", "4", "--encoder", "hash:64", "--out", str(out)]
    res = CliRunner().invoke(app, [*args, "--no-doc"])
    assert res.exit_code == 0, res.output
    d = json.loads(out.read_text(encoding="utf-8"))
    assert d["all"]["requests"] > 0 and d["all"]["failed"] == 0 and d["during_swap"]["requests"] > 0
    assert d["old_version_after_reload_answered"] == 0
    (cycle,) = d["cycles"]
    assert cycle["old"] != cycle["new"] and cycle["served_during_swap"][cycle["new"]] > 0
    assert all(t["status"] == "met" for t in d["targets"])
    assert "## Reload under load" in render_reload(d)
