"""An artifact is verified before it is served.

Every file ``write_artifact`` writes is covered by a SHA-256 checksum in ``manifest.json``;
:func:`kg.verify.verify_artifact` checks them all, the shape of ``graph.json`` and that the
encoder instantiated for queries produces the encoder id recorded in ``search/engine.json``;
``Glossary.load`` checks ``graph.json``; ``glossary verify`` runs the same checks. Problems name
the file relative to the artifact, never an absolute server path, and never surface as a traceback.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kg.build import BuildResult, write_artifact
from kg.cli import app
from kg.errors import ArtifactError
from kg.store import Glossary
from kg.verify import Problem, check_artifact, verify_artifact


@pytest.fixture(scope="module")
def template(built: BuildResult, tmp_path_factory: Any) -> Path:
    """A real artifact (graph, report, BM25 + FAISS with the hashing encoder, refusal model),
    written once; each test gets a copy."""
    from kg.chat.refusal import fit_refusal_model
    from kg.search.engine import SearchEngine

    engine = SearchEngine.build(built.terms, "hash:64")
    model = fit_refusal_model(Glossary(built.document()), engine)
    out = write_artifact(
        built,
        tmp_path_factory.mktemp("template") / "artifact",
        extra={"search": lambda tmp: engine.save(tmp / "search"), "chat": model.save},
    )
    return out.resolve()  # the version directory


@pytest.fixture
def art(template: Path, tmp_path: Path) -> Path:
    """A private copy of the template artifact (a plain directory)."""
    dst = tmp_path / "srv" / "artifact"
    shutil.copytree(template, dst)
    return dst


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def _manifest(root: Path) -> dict[str, Any]:
    return json.loads((root / "manifest.json").read_text(encoding="utf-8"))


def _reseal(root: Path, *names: str) -> None:
    """Record the current checksum of *names* in the manifest (as a careless hand edit would),
    so that a test reaches the checks behind the checksums."""
    manifest = _manifest(root)
    for name in names:
        manifest["checksums"][name] = hashlib.sha256((root / name).read_bytes()).hexdigest()
        if name == "graph.json":
            manifest["graph_sha256"] = manifest["checksums"][name]
    (root / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")


def _assert_relative(problems: list[Problem] | str, root: Path) -> None:
    text = problems if isinstance(problems, str) else "\n".join(f"{p.file} {p.message}" for p in problems)
    assert str(root) not in text and str(root.parent) not in text, text
    assert "/tmp/" not in text and "Traceback" not in text, text


def _flip(path: Path, count: int = 400) -> None:
    data = bytearray(path.read_bytes())
    step = max(1, len(data) // count)
    for i in range(0, min(len(data), step * count), step):
        data[i] ^= 0xFF
    path.write_bytes(bytes(data))


# --- checksums ----------------------------------------------------------------------------------


def test_manifest_covers_every_file_with_a_checksum(art: Path) -> None:
    manifest = _manifest(art)
    files = _files(art) - {"manifest.json"}
    assert set(manifest["checksums"]) == files
    assert {"graph.json", "report.json", "search/engine.json", "chat/refusal.json"} <= files
    assert any(f.startswith("search/lexical/") for f in files) and "search/dense/vectors.faiss" in files
    for name, digest in manifest["checksums"].items():
        assert hashlib.sha256((art / name).read_bytes()).hexdigest() == digest, name
    assert manifest["graph_sha256"] == manifest["checksums"]["graph.json"]


def test_intact_artifact_verifies(art: Path) -> None:
    assert verify_artifact(art) == []
    check = check_artifact(art)
    assert check.status == "ready" and check.problems == []
    assert check.graph_error is None and check.search_error is None and check.chat_error is None
    assert check.path == art.resolve() and check.version == _manifest(art)["version"]
    res = CliRunner().invoke(app, ["verify", "--artifact", str(art)])
    assert res.exit_code == 0, res.output
    assert "ok" in res.output


def test_edited_graph_is_not_loaded(art: Path) -> None:
    doc = json.loads((art / "graph.json").read_text(encoding="utf-8"))
    a, b = doc["nodes"][0], doc["nodes"][1]
    a["labels"], b["labels"] = b["labels"], a["labels"]  # a label swap: still valid JSON
    (art / "graph.json").write_text(json.dumps(doc, ensure_ascii=False, indent=1), encoding="utf-8")
    with pytest.raises(ArtifactError) as exc:
        Glossary.load(art)
    assert exc.value.message.startswith("graph.json: ") and "checksum" in exc.value.message
    _assert_relative(exc.value.message, art)
    problems = verify_artifact(art)
    assert [(p.file, p.part) for p in problems] == [("graph.json", "graph")]
    _assert_relative(problems, art)
    check = check_artifact(art)
    assert check.status == "unavailable" and check.graph_error is not None
    assert "graph.json" in check.graph_error.message
    res = CliRunner().invoke(app, ["verify", "--artifact", str(art)])
    assert res.exit_code == 2 and "graph.json: " in res.output


def test_flipped_bytes_in_the_bm25_index_are_caught(art: Path) -> None:
    victim = next(p for p in sorted((art / "search" / "lexical").rglob("*")) if p.suffix == ".npy")
    rel = victim.relative_to(art).as_posix()
    _flip(victim)
    assert len(Glossary.load(art)) > 400  # the graph is intact and still served
    problems = verify_artifact(art)
    assert [(p.file, p.part) for p in problems] == [(rel, "search")]
    _assert_relative(problems, art)
    check = check_artifact(art)
    assert check.status == "degraded" and check.graph_error is None and check.chat_error is None
    assert check.search_error is not None and rel in check.search_error.message
    _assert_relative(check.search_error.message, art)


def test_a_changed_encoder_spec_is_caught_even_with_a_matching_checksum(art: Path) -> None:
    engine_json = art / "search" / "engine.json"
    meta = json.loads(engine_json.read_text(encoding="utf-8"))
    meta["dense"]["spec"] = "hash:384"
    engine_json.write_text(json.dumps(meta, indent=1), encoding="utf-8")
    unsealed = verify_artifact(art)
    assert {p.file for p in unsealed} == {"search/engine.json"} and len(unsealed) == 2
    _reseal(art, "search/engine.json")
    problems = verify_artifact(art)
    assert len(problems) == 1, problems
    p = problems[0]
    assert (p.file, p.part) == ("search/engine.json", "search")
    assert "hash:384" in p.message and "hash:64" in p.message and "encoder" in p.message
    check = check_artifact(art)
    assert check.status == "degraded" and check.search_error is not None and check.graph_error is None


def test_the_encoder_asked_for_must_be_the_recorded_one(art: Path) -> None:
    assert verify_artifact(art, encoder_spec="hash:64") == []
    problems = verify_artifact(art, encoder_spec="hash:32")
    assert [(p.file, p.part) for p in problems] == [("search/engine.json", "search")]
    assert "hash:32" in problems[0].message
    bad = verify_artifact(art, encoder_spec="no-such-encoder")
    assert [(p.file, p.part) for p in bad] == [("search/engine.json", "search")]


def _cut_mid_utf8(data: bytes) -> bytes:
    i = len(data) // 2
    while data[i] < 0x80 or data[i] & 0xC0 != 0x80:  # a continuation byte: inside a character
        i += 1
    return data[:i]


GRAPH_SHAPES: dict[str, Callable[[bytes], bytes]] = {
    "truncated mid-UTF-8": _cut_mid_utf8,
    "empty file": lambda _: b"",
    "binary": lambda _: b"\x89PNG\r\n\x1a\n\x00\x00",
    "a list": lambda _: b"[]",
    "an empty object": lambda _: b"{}",
    "no nodes": lambda d: json.dumps({k: v for k, v in json.loads(d).items() if k != "nodes"}).encode(),
    "nodes not a list": lambda d: json.dumps({**json.loads(d), "nodes": {"a": 1}}).encode(),
    "a node without id": lambda d: json.dumps(
        {**json.loads(d), "nodes": [{"labels": {}}, *json.loads(d)["nodes"][1:]]}
    ).encode(),
    "a node of the wrong type": lambda d: json.dumps(
        {**json.loads(d), "nodes": [7, *json.loads(d)["nodes"][1:]]}
    ).encode(),
    "an edge to no node": lambda d: json.dumps(
        {**json.loads(d), "edges": [{**json.loads(d)["edges"][0], "target": "nowhere"}]}
    ).encode(),
    "edges not a list": lambda d: json.dumps({**json.loads(d), "edges": "none"}).encode(),
    "another format": lambda d: json.dumps({**json.loads(d), "format": "something-else"}).encode(),
}


@pytest.mark.parametrize("shape", list(GRAPH_SHAPES))
@pytest.mark.parametrize("sealed", [False, True], ids=["checksum-mismatch", "checksum-matches"])
def test_odd_graph_gives_a_clear_error_naming_the_file(art: Path, shape: str, sealed: bool) -> None:
    graph = art / "graph.json"
    graph.write_bytes(GRAPH_SHAPES[shape](graph.read_bytes()))
    if sealed:
        _reseal(art, "graph.json")
    with pytest.raises(ArtifactError) as exc:
        Glossary.load(art)
    message = exc.value.message
    assert message.startswith("graph.json: "), message
    _assert_relative(message, art)
    if shape == "truncated mid-UTF-8":
        assert "UTF-8" in message or "truncated" in message
    problems = verify_artifact(art)
    assert problems and {p.file for p in problems} == {"graph.json"}
    _assert_relative(problems, art)
    check = check_artifact(art)
    assert check.status == "unavailable" and check.graph_error is not None
    res = CliRunner().invoke(app, ["verify", "--artifact", str(art)])
    assert res.exit_code == 2 and "graph.json: " in res.output and "Traceback" not in res.output


def test_missing_and_uncovered_files_are_problems(art: Path) -> None:
    (art / "search" / "dense" / "ids.json").unlink()
    (art / "search" / "extra.bin").write_bytes(b"\x00" * 10)
    (art / "notes.txt").write_text("hi", encoding="utf-8")
    problems = {p.file: p for p in verify_artifact(art)}
    assert set(problems) == {"search/dense/ids.json", "search/extra.bin", "notes.txt"}
    assert "missing" in problems["search/dense/ids.json"].message
    assert (
        "checksum" in problems["search/extra.bin"].message and problems["search/extra.bin"].part == "search"
    )
    assert problems["notes.txt"].part == "other"
    check = check_artifact(art)
    assert check.status == "degraded" and check.graph_error is None and check.search_error is not None


def test_damaged_refusal_model_only_affects_the_chat_part(art: Path) -> None:
    (art / "chat" / "refusal.json").write_text('{"format": 99}', encoding="utf-8")
    _reseal(art, "chat/refusal.json")
    problems = verify_artifact(art)
    assert [(p.file, p.part) for p in problems] == [("chat/refusal.json", "chat")]
    check = check_artifact(art)
    assert check.status == "degraded" and check.chat_error is not None
    assert check.graph_error is None and check.search_error is None


def test_manifest_missing_or_unreadable(art: Path) -> None:
    (art / "manifest.json").write_text("{", encoding="utf-8")
    problems = verify_artifact(art)
    assert [(p.file, p.part) for p in problems] == [("manifest.json", "manifest")]
    with pytest.raises(ArtifactError, match=r"^manifest.json: "):
        Glossary.load(art)
    (art / "manifest.json").unlink()
    problems = verify_artifact(art)
    assert [(p.file, p.part) for p in problems] == [("manifest.json", "manifest")]
    assert "missing" in problems[0].message
    check = check_artifact(art)
    assert check.status == "unavailable" and check.graph_error is not None
    assert check.search_error is not None and check.chat_error is not None
    # a bare graph.json (hand-assembled, no manifest) still loads as a graph; verify says why
    # it is not verified
    assert len(Glossary.load(art)) > 400


def test_artifact_of_an_older_build_without_checksums(art: Path) -> None:
    manifest = _manifest(art)
    del manifest["checksums"]
    (art / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    assert len(Glossary.load(art)) > 400  # graph_sha256 still covers the graph
    problems = verify_artifact(art)
    assert problems and "graph.json" not in {p.file for p in problems}
    assert {p.part for p in problems} == {"search", "chat", "report"}
    assert all("checksum" in p.message for p in problems)
    check = check_artifact(art)
    assert check.status == "degraded" and check.graph_error is None and check.search_error is not None
    (art / "graph.json").write_bytes((art / "graph.json").read_bytes().replace(b'"labels"', b'"labels" ', 1))
    with pytest.raises(ArtifactError, match=r"^graph.json: .*checksum"):
        Glossary.load(art)


def test_missing_artifact(tmp_path: Path) -> None:
    problems = verify_artifact(tmp_path / "nothing")
    assert problems and problems[0].part == "manifest"
    _assert_relative(problems, tmp_path)
    with pytest.raises(ArtifactError) as exc:
        Glossary.load(tmp_path / "nothing")
    assert exc.value.message.startswith("graph.json: ")
    _assert_relative(exc.value.message, tmp_path)
    res = CliRunner().invoke(app, ["verify", "--artifact", str(tmp_path / "nothing")])
    assert res.exit_code == 2


def test_a_published_artifact_is_read_from_one_version(built: BuildResult, tmp_path: Path) -> None:
    link = write_artifact(built, tmp_path / "artifact")
    g = Glossary.load(link)
    assert g.artifact_dir == link.resolve() and g.artifact_dir != link
    assert verify_artifact(link) == []
    check = check_artifact(link)
    assert check.path == link.resolve() and check.status == "ready"


def test_cli_verify_lists_every_problem(art: Path) -> None:
    _flip(art / "report.json", 10)
    (art / "search" / "dense" / "ids.json").unlink()
    res = CliRunner().invoke(app, ["verify", "--artifact", str(art)])
    assert res.exit_code == 2
    assert "report.json: " in res.output and "search/dense/ids.json: " in res.output
    js = CliRunner().invoke(app, ["verify", "--artifact", str(art), "--json"])
    assert js.exit_code == 2
    body = json.loads(js.output)
    assert body["status"] == "degraded"
    assert {p["file"] for p in body["problems"]} == {"report.json", "search/dense/ids.json"}


def test_cli_readers_check_what_they_read(art: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["stats", "--artifact", str(art), "--json"]).exit_code == 0
    assert runner.invoke(app, ["export", "--format", "json", "--artifact", str(art)]).exit_code == 0
    _flip(art / "report.json", 10)
    stats = runner.invoke(app, ["stats", "--artifact", str(art), "--json"])
    assert stats.exit_code == 2 and "report.json" in stats.output
    (art / "graph.json").write_bytes((art / "graph.json").read_bytes()[:-100])
    exp = runner.invoke(app, ["export", "--format", "json", "--artifact", str(art)])
    assert exp.exit_code == 2 and "graph.json: " in exp.output and "Traceback" not in exp.output
    look = runner.invoke(app, ["lookup", "TTFT", "--artifact", str(art)])
    assert look.exit_code == 2 and "graph.json: " in look.output
