"""Builds that cannot lose data.

* ``glossary serve`` on an artifact whose index is missing rebuilds only the index, from the
  artifact's own graph.json (never the bundled corpus over the user's graph), or refuses.
* Publishing is one atomic step: each build is a complete version directory
  (``<artifact>.d/<version>/``) and ``<artifact>`` is a symlink to it, replaced with one rename.
  A build killed (SIGKILL) at any step leaves the previous artifact intact and loadable; the next
  build recovers or cleans what it left; two builds into one directory queue on a lock.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import pickle
import shutil
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import kg.cli
from kg.build import (
    KEEP_VERSIONS,
    BuildResult,
    artifact_lock,
    build_graph,
    default_corpus_dir,
    recover_artifact,
    versions_dir,
    write_artifact,
)
from kg.cli import app
from kg.errors import BuildLocked
from kg.store import Glossary
from kg.verify import verify_artifact

REPO = Path(__file__).resolve().parents[2]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _smaller(result: BuildResult) -> BuildResult:
    """Another graph (one term fewer), to tell two builds apart."""
    other = copy.deepcopy(result)
    gone = other.terms.pop().id
    other.edges = [e for e in other.edges if gone not in (e.source, e.target)]
    return other


def _first_terms(result: BuildResult, n: int) -> BuildResult:
    """A small graph: the first *n* terms and the edges among them."""
    small = copy.deepcopy(result)
    small.terms = small.terms[:n]
    keep = {t.id for t in small.terms}
    small.edges = [e for e in small.edges if e.source in keep and e.target in keep]
    return small


def _blob_writer(tag: bytes) -> dict[str, Any]:
    """An ``extra`` writer adding a few files in subdirectories (like the search indexes)."""

    def write(tmp: Path) -> None:
        (tmp / "search" / "lexical").mkdir(parents=True)
        (tmp / "search" / "lexical" / "a.bin").write_bytes(tag * 1000)
        (tmp / "search" / "b.json").write_text(json.dumps({"tag": tag.decode()}), encoding="utf-8")

    return {"search": write}


def _leftovers(link: Path) -> list[str]:
    """Anything but the link, its versions and the lock: temp dirs, old copies, temp links."""
    out = [p.name for p in link.parent.iterdir() if p.name not in (link.name, versions_dir(link).name)]
    store = versions_dir(link)
    if store.exists():
        out += [
            f"{store.name}/{p.name}" for p in store.iterdir() if p.name.startswith(".") and p.name != ".lock"
        ]
    return out


# --- (b) versioned publish --------------------------------------------------------------------


def test_publish_swaps_a_symlink_to_a_complete_version(built: BuildResult, tmp_path: Path) -> None:
    link = tmp_path / "artifact"
    first = write_artifact(built, link, extra=_blob_writer(b"a"))
    assert first == link and link.is_symlink()
    target = os.readlink(link)
    assert not os.path.isabs(target) and target.startswith("artifact.d/")  # survives moving the parent
    v1 = link.resolve()
    assert v1.parent == versions_dir(link).resolve() and verify_artifact(link) == []
    write_artifact(_smaller(built), link, extra=_blob_writer(b"b"))
    v2 = link.resolve()
    assert v2 != v1 and v1.is_dir() and verify_artifact(v1) == []  # the previous build is kept
    assert len(Glossary.load(link)) == len(built.terms) - 1
    for _ in range(KEEP_VERSIONS + 1):
        write_artifact(built, link)
    versions = [p for p in versions_dir(link).iterdir() if not p.name.startswith(".")]
    assert len(versions) == KEEP_VERSIONS and link.resolve() in versions
    assert not v1.exists() and not v2.exists()
    assert _leftovers(link) == []


def test_a_plain_directory_artifact_is_migrated_without_a_gap(built: BuildResult, tmp_path: Path) -> None:
    link = tmp_path / "srv" / "artifact"
    shutil.copytree(write_artifact(built, tmp_path / "elsewhere").resolve(), link)  # the old layout
    before = _sha(link / "graph.json")
    write_artifact(_smaller(built), link)
    assert link.is_symlink() and len(Glossary.load(link)) == len(built.terms) - 1
    kept = [p for p in versions_dir(link).iterdir() if not p.name.startswith(".") and p != link.resolve()]
    assert len(kept) == 1 and _sha(kept[0] / "graph.json") == before  # the old artifact, kept
    assert _leftovers(link) == []


def test_a_symlink_of_the_users_own_is_followed(built: BuildResult, tmp_path: Path) -> None:
    real = tmp_path / "data" / "glossary"
    real.parent.mkdir()
    link = tmp_path / "artifact"
    link.symlink_to(real)
    write_artifact(built, link)
    assert link.is_symlink() and os.readlink(link) == str(real)  # the user's link is left alone
    assert real.is_symlink() and verify_artifact(link) == []


def test_leftovers_of_an_old_killed_build_are_recovered(built: BuildResult, tmp_path: Path) -> None:
    """The old publish (two renames) killed between them left only ``.artifact.old-PID``."""
    link = tmp_path / "artifact"
    old = tmp_path / ".artifact.old-4242"
    shutil.copytree(write_artifact(built, tmp_path / "x" / "x").resolve(), old)
    shutil.rmtree(tmp_path / "x")
    (tmp_path / ".artifact.tmp-abc123").mkdir()  # and a half-written temp directory
    (tmp_path / ".artifact.tmp-abc123" / "graph.json").write_text("{", encoding="utf-8")
    notes = recover_artifact(link)
    assert notes and link.is_symlink() and verify_artifact(link) == []
    assert len(Glossary.load(link)) == len(built.terms)
    assert _leftovers(link) == []


def test_leftovers_of_a_killed_new_build_are_cleaned(built: BuildResult, tmp_path: Path) -> None:
    link = write_artifact(built, tmp_path / "artifact")
    good = link.resolve()
    store = versions_dir(link)
    (store / ".tmp-20990101T000000-1-dead").mkdir()  # a version being written
    (store / ".tmp-20990101T000000-1-dead" / "graph.json").write_text("{", encoding="utf-8")
    (store / ".trash-old").mkdir()  # a version being deleted
    (tmp_path / ".artifact.lnk-999").symlink_to("artifact.d/nothing")  # a link not yet swapped
    recover_artifact(link)
    assert link.resolve() == good and _leftovers(link) == []


def test_a_dangling_link_is_pointed_at_the_newest_intact_version(built: BuildResult, tmp_path: Path) -> None:
    link = write_artifact(built, tmp_path / "artifact")
    first = link.resolve()
    write_artifact(_smaller(built), link)
    second = link.resolve()
    (second / "graph.json").write_text("{}", encoding="utf-8")  # damaged: not a candidate
    link.unlink()
    os.symlink("artifact.d/gone", link)
    recover_artifact(link)
    assert link.resolve() == first and verify_artifact(link) == []


# --- (b) the lock -----------------------------------------------------------------------------


def test_a_second_build_fails_cleanly_while_one_holds_the_lock(built: BuildResult, tmp_path: Path) -> None:
    link = write_artifact(built, tmp_path / "artifact")
    before = link.resolve()
    with artifact_lock(link, timeout=1.0), pytest.raises(BuildLocked) as exc:
        write_artifact(_smaller(built), link, lock_timeout=0.3)
    assert "another build" in exc.value.message
    assert link.resolve() == before and verify_artifact(link) == [] and _leftovers(link) == []


def test_a_second_build_queues_until_the_lock_is_free(built: BuildResult, tmp_path: Path) -> None:
    link = write_artifact(built, tmp_path / "artifact")
    held = threading.Event()

    def hold() -> None:
        with artifact_lock(link, timeout=1.0):
            held.set()
            time.sleep(0.6)

    t = threading.Thread(target=hold)
    t.start()
    held.wait(5)
    t0 = time.perf_counter()
    write_artifact(_smaller(built), link, lock_timeout=30)
    assert time.perf_counter() - t0 >= 0.4
    t.join()
    assert len(Glossary.load(link)) == len(built.terms) - 1 and verify_artifact(link) == []


def test_cli_build_reports_a_held_lock(tmp_path: Path, monkeypatch: Any, seeded_cache_home: Path) -> None:
    link = tmp_path / "artifact"
    monkeypatch.setattr(kg.cli, "BUILD_LOCK_TIMEOUT_S", 0.2)
    with artifact_lock(link, timeout=1.0):
        # the whole build runs before the lock is asked for; its refusal model comes from the seeded cache
        res = CliRunner().invoke(app, ["build", "--artifact", str(link), "--encoder", "hash:64"])
    assert res.exit_code == 2, res.output
    assert "another build" in res.output and not link.exists()


CONCURRENT = """
import pickle, sys, time
from pathlib import Path
from kg.build import write_artifact
result = pickle.loads(Path(sys.argv[1]).read_bytes())
def slow(tmp):
    (tmp / "search").mkdir()
    time.sleep(0.5)
    (tmp / "search" / "x.bin").write_bytes(sys.argv[3].encode() * 100)
write_artifact(result, Path(sys.argv[2]), extra={"search": slow})
print("published", sys.argv[3])
"""


def test_two_concurrent_builds_into_one_directory_both_publish_whole(
    built: BuildResult, tmp_path: Path
) -> None:
    pickled = tmp_path / "result.pickle"
    pickled.write_bytes(pickle.dumps(built))
    link = tmp_path / "srv" / "artifact"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", CONCURRENT, str(pickled), str(link), tag],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for tag in ("a", "b")
    ]
    for p in procs:
        _out, errs = p.communicate(timeout=120)
        assert p.returncode == 0, errs
    assert verify_artifact(link) == [] and _leftovers(link) == []
    versions = [p for p in versions_dir(link).iterdir() if not p.name.startswith(".")]
    assert len(versions) == 2 and all(verify_artifact(v) == [] for v in versions)


# --- (b) SIGKILL at every step ----------------------------------------------------------------

# Runs in a subprocess of its own (single-threaded): for each step k of a publish it forks a child
# that runs write_artifact and SIGKILLs itself at its k-th filesystem step (mkdir, rename, replace,
# symlink, exchange, rmtree, fsync); then checks that the artifact is loadable and whole (the old
# graph or the new one, never a mix), that the next build's recovery leaves no leftovers, and that
# the next build publishes. The same with kills at random times. Prints one JSON report.
CAMPAIGN = textwrap.dedent(
    """
    import json, os, pickle, random, shutil, signal, sys, time
    from pathlib import Path
    import kg.build as b
    from kg.store import Glossary
    from kg.verify import resolve_artifact, verify_artifact

    old_result, new_result = pickle.loads(Path(sys.argv[1]).read_bytes())
    work = Path(sys.argv[2])
    scenario = sys.argv[3]          # "steady" | "migrate" | "migrate-no-exchange"
    random_kills = int(sys.argv[4])

    def extra(tag):
        def write(tmp):
            (tmp / "search" / "lexical").mkdir(parents=True)
            (tmp / "search" / "lexical" / "a.bin").write_bytes(tag * 5000)
            (tmp / "search" / "engine-ish.json").write_text(json.dumps({"tag": tag.decode()}))
        return {"search": write}

    def fresh():
        if work.exists():
            shutil.rmtree(work)
        work.mkdir()
        link = work / "artifact"
        b.write_artifact(old_result, link, extra=extra(b"o"))
        if scenario.startswith("migrate"):  # the previous artifact is a plain directory (old layout)
            version = link.resolve()
            link.unlink()
            shutil.copytree(version, link)
            shutil.rmtree(work / "artifact.d")
        return link

    seed = fresh()
    OLD = (seed / "graph.json").read_bytes()
    NEW = None

    counter = [0]
    kill_at = [0]
    def step(fn):
        def wrapped(*a, **k):
            counter[0] += 1
            if counter[0] == kill_at[0]:
                os.kill(os.getpid(), signal.SIGKILL)
            return fn(*a, **k)
        return wrapped

    def child(k, delay=None):
        pid = os.fork()
        if pid == 0:
            try:
                if scenario == "migrate-no-exchange":
                    b._exchange = lambda x, y: False
                kill_at[0] = k
                for name in ("mkdir", "rename", "replace", "symlink", "fsync"):
                    setattr(os, name, step(getattr(os, name)))
                shutil.rmtree = step(shutil.rmtree)
                b._exchange = step(b._exchange)
                b.write_artifact(new_result, work / "artifact", extra=extra(b"n"))
                os._exit(0 if counter[0] else 3)
            except BaseException:
                os._exit(4)
        if delay is not None:
            time.sleep(delay)
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        return status

    def check(link, label):
        problems = []
        if not link.exists() and scenario != "migrate-no-exchange":
            problems.append("the artifact path resolves to nothing")  # the switch was not atomic
        try:  # what a reader sees right after the kill, before any recovery
            root = resolve_artifact(link)
            Glossary.load(link)
            if (root / "graph.json").read_bytes() not in (OLD, NEW):
                problems.append("graph is neither the old nor the new one")
            v = verify_artifact(link)
            if v:
                problems.append("verify: " + "; ".join(map(str, v)))
        except Exception as exc:
            problems.append(f"not loadable: {exc!r}")
        notes = b.recover_artifact(link)
        try:
            Glossary.load(link)
            if verify_artifact(link):
                problems.append("after recovery: " + "; ".join(map(str, verify_artifact(link))))
        except Exception as exc:
            problems.append(f"after recovery not loadable: {exc!r}")
        left = [p.name for p in work.iterdir() if p.name not in ("artifact", "artifact.d")]
        store = work / "artifact.d"
        if store.exists():
            left += [p.name for p in store.iterdir() if p.name.startswith(".") and p.name != ".lock"]
        if left:
            problems.append(f"leftovers after recovery: {left}")
        b.write_artifact(new_result, link, extra=extra(b"n"))
        if (link / "graph.json").read_bytes() != NEW:
            problems.append("the next build did not publish")
        return {"kill": label, "problems": problems, "notes": notes}

    # how many steps a whole publish takes
    link = fresh()
    pid = os.fork()
    if pid == 0:
        if scenario == "migrate-no-exchange":
            b._exchange = lambda x, y: False
        kill_at[0] = -1
        for name in ("mkdir", "rename", "replace", "symlink", "fsync"):
            setattr(os, name, step(getattr(os, name)))
        shutil.rmtree = step(shutil.rmtree)
        b._exchange = step(b._exchange)
        b.write_artifact(new_result, link, extra=extra(b"n"))
        Path(work.parent / "steps.txt").write_text(str(counter[0]))
        os._exit(0)
    os.waitpid(pid, 0)
    steps = int((work.parent / "steps.txt").read_text())
    NEW = (link / "graph.json").read_bytes()
    link = fresh()
    t0 = time.perf_counter()
    b.write_artifact(new_result, link, extra=extra(b"n"))
    duration = time.perf_counter() - t0

    results = []
    for k in range(1, steps + 1):
        link = fresh()
        status = child(k)
        r = check(link, f"step {k}/{steps}")
        r["killed"] = os.WIFSIGNALED(status)
        results.append(r)
    rng = random.Random(10)
    for i in range(random_kills):
        link = fresh()
        delay = rng.uniform(0, duration * 1.2)
        status = child(0, delay)
        r = check(link, f"after {delay * 1000:.1f} ms")
        r["killed"] = os.WIFSIGNALED(status)
        results.append(r)
    print(json.dumps({"steps": steps, "duration_s": duration, "results": results}))
    """
)


@pytest.mark.parametrize("scenario", ["steady", "migrate", "migrate-no-exchange"])
def test_sigkill_at_every_step_of_a_publish_keeps_an_artifact(
    built: BuildResult, tmp_path: Path, scenario: str
) -> None:
    small = _first_terms(built, 40)  # what is published does not matter here, only how
    pickled = tmp_path / "results.pickle"
    pickled.write_bytes(pickle.dumps((small, _smaller(small))))
    random_kills = 30 if scenario == "steady" else 10
    proc = subprocess.run(
        [sys.executable, "-c", CAMPAIGN, str(pickled), str(tmp_path / "work"), scenario, str(random_kills)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["steps"] >= 5, report
    step_kills = [r for r in report["results"] if r["kill"].startswith("step")]
    assert len(step_kills) == report["steps"] and all(r["killed"] for r in step_kills)
    failed = [r for r in report["results"] if r["problems"]]
    assert not failed, json.dumps(failed, indent=1)


# --- (a) serve never rebuilds the bundled corpus over the user's artifact -------------------


@pytest.fixture
def serve_calls(monkeypatch: Any) -> dict[str, Any]:
    """The uvicorn runner (api.serving.run) recorded; ``glossary build`` (the bundled corpus) must
    not be called."""
    import api.serving

    calls: dict[str, Any] = {}

    def no_build(**kwargs: Any) -> None:
        calls["build"] = kwargs
        raise AssertionError("serve rebuilt the bundled corpus over the user's artifact")

    monkeypatch.setattr(kg.cli, "build", no_build)
    monkeypatch.setattr(api.serving, "run", lambda app, **kw: calls.setdefault("run", kw))
    monkeypatch.setattr(kg.cli, "SERVE_INDEX_ENCODER", "hash:64")
    for name in (
        "GLOSSARY_ARTIFACT_DIR",
        "GLOSSARY_ARTIFACT_LINK",
        "GLOSSARY_RELOAD_DIR",
        "GLOSSARY_SESSIONS",
        "OMP_NUM_THREADS",
        "OMP_WAIT_POLICY",
    ):
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    return calls


@pytest.fixture(scope="module")
def custom(tmp_path_factory: Any) -> BuildResult:
    """A user's own glossary: one source of the bundled four (so not the bundled graph)."""
    corpus = tmp_path_factory.mktemp("custom") / "corpus"
    shutil.copytree(default_corpus_dir(), corpus, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    manifest = json.loads((corpus / "manifest.json").read_text(encoding="utf-8"))
    manifest["sources"] = [s for s in manifest["sources"] if s["id"] == "004"]
    (corpus / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return build_graph(corpus)


@pytest.mark.parametrize("index", ["missing", "older format"])
def test_serve_rebuilds_only_the_missing_index_from_the_artifacts_own_graph(
    custom: BuildResult, serve_calls: dict[str, Any], tmp_path: Path, index: str, quick_fits: None
) -> None:
    link = write_artifact(custom, tmp_path / "artifact")  # graph only, no search index
    if index == "older format":
        from kg.search.engine import ENGINE_FORMAT, SearchEngine

        engine = SearchEngine.build(custom.terms, "hash:32")
        engine.save(link / "search")  # an index written in place by an older version
        meta = json.loads((link / "search" / "engine.json").read_text(encoding="utf-8"))
        meta["format"] = ENGINE_FORMAT - 1
        (link / "search" / "engine.json").write_text(json.dumps(meta), encoding="utf-8")
    graph_before = _sha(link / "graph.json")
    res = CliRunner().invoke(app, ["serve", "--artifact", str(link)])
    assert res.exit_code == 0, res.output
    assert "build" not in serve_calls and "run" in serve_calls
    assert "graph.json" in res.output and "rebuilding" in res.output
    assert _sha(link / "graph.json") == graph_before  # the user's graph, untouched
    assert len(Glossary.load(link)) == len(custom.terms)
    assert (link / "search" / "engine.json").is_file() and (link / "chat" / "refusal.json").is_file()
    meta = json.loads((link / "search" / "engine.json").read_text(encoding="utf-8"))
    assert meta["dense"]["spec"] == ("hash:32" if index == "older format" else "hash:64")
    assert verify_artifact(link) == []
    assert serve_calls["run"]["workers"] >= 1


def test_serve_refuses_when_the_index_is_missing_and_the_graph_is_damaged(
    custom: BuildResult, serve_calls: dict[str, Any], tmp_path: Path
) -> None:
    link = write_artifact(custom, tmp_path / "artifact")
    (link / "graph.json").write_bytes((link / "graph.json").read_bytes()[:5000])
    before = {p.relative_to(tmp_path): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    res = CliRunner().invoke(app, ["serve", "--artifact", str(link)])
    assert res.exit_code == 2, res.output
    assert "graph.json" in res.output and "glossary build" in res.output
    assert "build" not in serve_calls and "run" not in serve_calls
    after = {p.relative_to(tmp_path): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert after == before


def test_serve_upgrades_an_artifact_built_before_checksums(
    custom: BuildResult, serve_calls: dict[str, Any], tmp_path: Path, quick_fits: None
) -> None:
    from kg.search.engine import SearchEngine

    engine = SearchEngine.build(custom.terms, "hash:32")
    link = write_artifact(custom, tmp_path / "v", extra={"search": lambda t: engine.save(t / "search")})
    old = tmp_path / "artifact"
    shutil.copytree(link.resolve(), old)  # the old layout, and an old manifest
    manifest = json.loads((old / "manifest.json").read_text(encoding="utf-8"))
    del manifest["checksums"]
    (old / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    graph_before = _sha(old / "graph.json")
    res = CliRunner().invoke(app, ["serve", "--artifact", str(old)])
    assert res.exit_code == 0, res.output
    assert "build" not in serve_calls and old.is_symlink()
    assert _sha(old / "graph.json") == graph_before and verify_artifact(old) == []


def test_serve_adds_a_missing_refusal_model_as_a_new_version(
    custom: BuildResult, serve_calls: dict[str, Any], tmp_path: Path, quick_fits: None
) -> None:
    from kg.search.engine import SearchEngine

    engine = SearchEngine.build(custom.terms, "hash:64")
    link = write_artifact(
        custom, tmp_path / "artifact", extra={"search": lambda t: engine.save(t / "search")}
    )
    before = link.resolve()
    res = CliRunner().invoke(app, ["serve", "--artifact", str(link)])
    assert res.exit_code == 0, res.output
    assert (link / "chat" / "refusal.json").is_file() and link.resolve() != before
    assert verify_artifact(link) == [] and verify_artifact(before) == []  # the previous one intact
    assert serve_calls["run"] and os.environ["GLOSSARY_ARTIFACT_DIR"] == str(link.resolve())


def test_serve_warns_about_a_damaged_artifact_and_still_starts(
    custom: BuildResult, serve_calls: dict[str, Any], tmp_path: Path
) -> None:
    from kg.chat.refusal import fit_refusal_model
    from kg.search.engine import SearchEngine

    engine = SearchEngine.build(custom.terms, "hash:64")
    model = fit_refusal_model(Glossary(custom.document()), engine)
    link = write_artifact(
        custom,
        tmp_path / "artifact",
        extra={"search": lambda t: engine.save(t / "search"), "chat": model.save},
    )
    victim = link / "search" / "dense" / "ids.json"
    victim.write_text(victim.read_text(encoding="utf-8").replace('"', "'", 2), encoding="utf-8")
    res = CliRunner().invoke(app, ["serve", "--artifact", str(link)])
    assert res.exit_code == 0, res.output
    assert "search/dense/ids.json" in res.output and "degraded" in res.output
    assert "run" in serve_calls and "build" not in serve_calls
