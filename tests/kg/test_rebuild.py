"""Incremental rebuilds (kg/rebuild.py) and `glossary build --watch` (kg/watch.py), on a copy of
the real corpus with the hashing encoder and caches of the test's own.

Each test's cache starts with one entry: the refusal model of the unedited corpus, which the
session's ``quick_hash_artifact`` build already fitted on a sample of the training questions
(tests/refusal_cache.py, ``GLOSSARY_REFUSAL_SAMPLE``). The first build of
each test reads it (``refusal: "cached"``) instead of fitting it again; every edited graph misses
it and is fitted for real, and the build from nothing at the end of the first test fits from an
empty cache."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from kg.bench.rebuild_bench import definitions, edit_entry
from kg.chat.refusal import RefusalModel
from kg.rebuild import Builder
from kg.verify import read_manifest, resolve_artifact, verify_artifact

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def cache_home(quick_cache_home: Path) -> Path:
    """The test's own XDG_CACHE_HOME: no vectors, the unedited corpus's refusal model. Every
    refusal fit here is a quick one (``quick_fits``): these tests check when a model is fitted,
    carried or cached, not how well it refuses."""
    return quick_cache_home


def test_a_rebuild_encodes_only_the_edited_passage_and_ends_where_a_full_build_does(
    corpus_copy: Path, tmp_path: Path, cache_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    builder = Builder(corpus_copy, tmp_path / "artifact", "hash:64")
    first = builder.build("fit")
    # every passage encoded (no vectors cached); the refusal model of this very graph read from the cache
    assert first.encoded == first.reused + first.encoded > 0 and first.refusal == "cached"
    assert read_manifest(resolve_artifact(tmp_path / "artifact"))["refusal_current"] is True

    line = edit_entry(corpus_copy, definitions(first)[1], "t1")
    second = builder.build("carry")
    assert second.encoded == 1  # the edited definition's passage, nothing else
    assert second.reused >= first.encoded - 1
    assert second.content_sha256 != first.content_sha256
    assert second.refusal == "carried" and not second.refusal_current
    published = resolve_artifact(tmp_path / "artifact")
    assert read_manifest(published)["refusal_current"] is False and verify_artifact(published) == []
    graph = json.loads((published / "graph.json").read_text(encoding="utf-8"))
    assert any("修订 t1" in d["text"] for n in graph["nodes"] for d in n["definitions"]), line

    refit = builder.refit()
    assert refit is not None and refit.refusal_current
    published = resolve_artifact(tmp_path / "artifact")
    manifest = read_manifest(published)
    assert manifest["refusal_current"] is True and manifest["derived_from"] == second.version
    model = RefusalModel.load(published)
    assert model is not None and model.trained_on["key"]
    assert builder.refit() is None  # already current

    # the same corpus built from nothing (no cache of any kind) is the same artifact, byte for byte
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "other-cache"))
    fresh = Builder(corpus_copy, tmp_path / "fresh", "hash:64", vector_cache=None).build("fit")
    assert fresh.refusal == "fitted"
    assert fresh.content_sha256 == refit.content_sha256


def test_a_bad_edit_publishes_nothing(corpus_copy: Path, tmp_path: Path, cache_home: Path) -> None:
    from kg.parsers.common import SourceError

    builder = Builder(corpus_copy, tmp_path / "artifact", "hash:64")
    good = builder.build("carry")  # no earlier model to carry: this graph's own (here from the cache)
    assert good.refusal == "cached" and good.refusal_current
    (corpus_copy / "overlay.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(SourceError):
        builder.build("carry")
    assert read_manifest(resolve_artifact(tmp_path / "artifact"))["version"] == good.version


# --- glossary build --watch ----------------------------------------------------------------


def _wait_for(predicate: Any, timeout: float, what: str, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if proc.poll() is not None:
            raise AssertionError(f"watch exited ({proc.returncode}) waiting for {what}")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def _version(artifact: Path) -> str | None:
    try:
        return str((read_manifest(resolve_artifact(artifact)) or {}).get("version"))
    except Exception:
        return None


@pytest.mark.slow
def test_watch_rebuilds_on_change_and_survives_a_broken_source(
    corpus_copy: Path, tmp_path: Path, cache_home: Path
) -> None:
    artifact = tmp_path / "artifact"
    log = tmp_path / "watch.log"
    cmd = [sys.executable, "-m", "kg.cli", "build", "--watch", "--corpus", str(corpus_copy)]
    cmd += ["--artifact", str(artifact), "--encoder", "hash:64", "--debounce", "0.2"]
    with log.open("w") as out:
        proc = subprocess.Popen(
            cmd,
            cwd=REPO,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
            env={**os.environ, "COLUMNS": "300"},
        )
    try:
        _wait_for(lambda: _version(artifact) not in (None, "None"), 180, "the first build", proc)
        first = _version(artifact)
        defs = json.loads((resolve_artifact(artifact) / "graph.json").read_text(encoding="utf-8"))
        assert defs["nodes"]

        # an edit: a new version with the edited text, then its refit refusal model
        source = next(p for p in (corpus_copy / "sources").iterdir() if p.name.startswith("004"))
        text = source.read_text(encoding="utf-8")
        source.write_text(text.replace("上下文越长", "上下文(修订)越长", 1), encoding="utf-8")
        _wait_for(lambda: "refusal model refit" in log.read_text(), 120, "the rebuild and refit", proc)
        edited = _version(artifact)
        assert edited != first
        graph = (resolve_artifact(artifact) / "graph.json").read_text(encoding="utf-8")
        assert "上下文(修订)越长" in graph
        assert read_manifest(resolve_artifact(artifact))["refusal_current"] is True

        # a broken manifest: the error with file:line, the last good artifact stays
        manifest = corpus_copy / "manifest.json"
        good = manifest.read_text(encoding="utf-8")
        manifest.write_text(good.replace('"parser": "headings"', '"parser": "nope"'), encoding="utf-8")
        _wait_for(lambda: "build failed" in log.read_text(), 60, "the failed build", proc)
        assert "manifest.json:" in log.read_text() and _version(artifact) == edited
        assert verify_artifact(artifact) == []

        # fixed: it rebuilds (same content as before the break: same content hash), and the model it
        # carries is the one fitted for this very graph: current, nothing to refit
        before = (read_manifest(resolve_artifact(artifact)) or {})["content_sha256"]
        manifest.write_text(good, encoding="utf-8")
        _wait_for(lambda: log.read_text().count("] published") >= 4, 120, "the build after the fix", proc)
        assert _version(artifact) != edited
        published = read_manifest(resolve_artifact(artifact)) or {}
        assert published["content_sha256"] == before and published["refusal_current"] is True

        # touched, not changed: nothing to rebuild
        os.utime(source)
        _wait_for(lambda: "nothing to rebuild" in log.read_text(), 30, "the touch", proc)
        assert proc.poll() is None
        # first build, edit, its refit, the fix: no refit after the fix
        assert log.read_text().count("] published") == 4
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
    assert "stopped watching" in log.read_text()
