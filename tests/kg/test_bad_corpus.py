"""Bad corpus input: every mistake in the manifest, categories.json, overlay.json or a source is a
``file:line`` message and exit 2 (never a traceback); parsing is linear in the line length, lines
are capped, a source listed twice is refused, and control characters are stripped with a warning."""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kg.build import MAX_LINE_CHARS, build_graph
from kg.cli import app
from kg.parsers import PARSERS
from kg.parsers.common import SourceError, is_personal_data

# --- helpers ----------------------------------------------------------------------------------


def _manifest(corpus: Path) -> dict[str, Any]:
    return json.loads((corpus / "manifest.json").read_text(encoding="utf-8"))


def _write_manifest(corpus: Path, data: Any) -> str:
    text = json.dumps(data, ensure_ascii=False, indent=1)
    (corpus / "manifest.json").write_text(text, encoding="utf-8")
    return text


def _line_of(text: str, needle: str, nth: int = 0) -> int:
    """1-based line of the *nth* occurrence of *needle* in *text*."""
    starts = [m.start() for m in re.finditer(re.escape(needle), text)]
    return text.count("\n", 0, starts[nth]) + 1


def _fails(corpus: Path, file: str, line: int | None, words: str) -> SourceError:
    """The build raises a SourceError naming *file* (and *line*) and *words*; the CLI exits 2 with
    ``file:line`` and no traceback."""
    with pytest.raises(SourceError) as exc:
        build_graph(corpus)
    err = exc.value
    assert Path(err.file).name == file, err
    if line is not None:
        assert err.line == line, err
    assert re.search(words, err.message, re.IGNORECASE), err.message
    res = CliRunner().invoke(app, ["build", "--corpus", str(corpus), "--artifact", str(corpus / "out")])
    assert res.exit_code == 2, res.output
    assert f"{file}:{err.line}:" in res.output.replace("\n", "")
    assert "Traceback" not in res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)
    assert not (corpus / "out").exists()
    return err


# --- manifest.json ----------------------------------------------------------------------------


def test_manifest_unknown_key(corpus_copy: Path) -> None:
    data = _manifest(corpus_copy)
    data["sources"][2]["parsr"] = "gloss_lines"
    text = _write_manifest(corpus_copy, data)
    _fails(corpus_copy, "manifest.json", _line_of(text, '"parsr"'), r"unknown key.*parsr")


def test_manifest_missing_parser(corpus_copy: Path) -> None:
    data = _manifest(corpus_copy)
    del data["sources"][1]["parser"]
    text = _write_manifest(corpus_copy, data)
    _fails(corpus_copy, "manifest.json", _line_of(text, '"id": "001"'), r"001.*missing.*parser")


def test_manifest_unknown_parser(corpus_copy: Path) -> None:
    data = _manifest(corpus_copy)
    data["sources"][3]["parser"] = "tables"
    text = _write_manifest(corpus_copy, data)
    _fails(corpus_copy, "manifest.json", _line_of(text, '"tables"'), r"unknown parser 'tables'")


def test_manifest_directory_as_file(corpus_copy: Path) -> None:
    data = _manifest(corpus_copy)
    data["sources"][0]["file"] = "sources"
    text = _write_manifest(corpus_copy, data)
    _fails(corpus_copy, "manifest.json", _line_of(text, '"sources",'), r"directory")


def test_manifest_missing_file(corpus_copy: Path) -> None:
    data = _manifest(corpus_copy)
    data["sources"][0]["file"] = "sources/nope.txt"
    text = _write_manifest(corpus_copy, data)
    _fails(corpus_copy, "manifest.json", _line_of(text, "nope.txt"), r"not found")


def test_manifest_list_instead_of_object(corpus_copy: Path) -> None:
    _write_manifest(corpus_copy, _manifest(corpus_copy)["sources"])
    _fails(corpus_copy, "manifest.json", 1, r"object")


def test_manifest_source_as_list(corpus_copy: Path) -> None:
    data = _manifest(corpus_copy)
    data["sources"][1] = ["001", "sources/001_ad403664db526fab.txt"]
    text = _write_manifest(corpus_copy, data)
    _fails(corpus_copy, "manifest.json", _line_of(text, '"001",') - 1, r"sources\[1\].*object")


def test_manifest_wrong_types(corpus_copy: Path) -> None:
    data = _manifest(corpus_copy)
    data["sources"][0]["priority"] = "high"
    text = _write_manifest(corpus_copy, data)
    _fails(corpus_copy, "manifest.json", _line_of(text, '"high"'), r"priority.*integer")


def test_manifest_sources_not_a_list(corpus_copy: Path) -> None:
    _write_manifest(corpus_copy, {"sources": {"000": "x"}})
    _fails(corpus_copy, "manifest.json", 2, r"sources.*list")


def test_same_source_listed_twice_is_refused(corpus_copy: Path) -> None:
    data = _manifest(corpus_copy)
    again = dict(data["sources"][3])
    data["sources"].append(again)
    text = _write_manifest(corpus_copy, data)
    _fails(corpus_copy, "manifest.json", _line_of(text, '"id": "004"', 1), r"listed twice|twice")
    # the same file under another id duplicates every definition too
    again["id"] = "005"
    text = _write_manifest(corpus_copy, data)
    _fails(corpus_copy, "manifest.json", _line_of(text, '"id": "005"'), r"004.*(twice|same file)")
    # and so does a copy of it under another name
    src = corpus_copy / data["sources"][3]["file"]
    (corpus_copy / "sources" / "copy.txt").write_bytes(src.read_bytes())
    again["file"] = "sources/copy.txt"
    text = _write_manifest(corpus_copy, data)
    _fails(corpus_copy, "manifest.json", _line_of(text, '"id": "005"'), r"same content.*004")


# --- categories.json and overlay.json -------------------------------------------------------


def test_categories_missing(corpus_copy: Path) -> None:
    (corpus_copy / "categories.json").unlink()
    _fails(corpus_copy, "categories.json", 1, r"not found")


def test_categories_invalid_json(corpus_copy: Path) -> None:
    path = corpus_copy / "categories.json"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[5] = lines[5].rstrip(",")  # a missing comma
    path.write_text("\n".join(lines), encoding="utf-8")
    _fails(corpus_copy, "categories.json", 7, r"invalid JSON")


@pytest.mark.parametrize(
    ("mutate", "needle", "words"),
    [
        (lambda c: c["topics"], None, r"object"),
        (lambda c: {**c, "topics": {"a": 1}}, '"topics"', r"topics.*list"),
        (lambda c: {**c, "sectons": c["sections"]}, '"sectons"', r"unknown key"),
        (lambda c: {"topics": c["topics"]}, None, r"sections"),
        (lambda c: {**c, "topics": [*c["topics"], {"labels": {}}]}, None, r"topics\[1[0-9]\].*id"),
        (
            lambda c: {**c, "sections": {**c["sections"], "001": {"模型、应用与数据表示": "nonsense"}}},
            '"nonsense"',
            r"unknown topic 'nonsense'",
        ),
    ],
)
def test_categories_invalid_shape(
    corpus_copy: Path, mutate: Callable[[dict[str, Any]], Any], needle: str | None, words: str
) -> None:
    path = corpus_copy / "categories.json"
    text = json.dumps(mutate(json.loads(path.read_text(encoding="utf-8"))), ensure_ascii=False, indent=1)
    path.write_text(text, encoding="utf-8")
    _fails(corpus_copy, "categories.json", _line_of(text, needle) if needle else None, words)


def test_overlay_of_the_wrong_shape(corpus_copy: Path) -> None:
    path = corpus_copy / "overlay.json"
    decisions = json.loads(path.read_text(encoding="utf-8"))["decisions"]
    path.write_text(json.dumps(decisions, ensure_ascii=False, indent=1), encoding="utf-8")
    _fails(corpus_copy, "overlay.json", 1, r"object")
    text = json.dumps({"decisions": [decisions[0], "drop it"]}, ensure_ascii=False, indent=1)
    path.write_text(text, encoding="utf-8")
    _fails(corpus_copy, "overlay.json", _line_of(text, '"drop it"'), r"decision 1.*object")


# --- sources: linear parsing, capped lines, control characters -------------------------------

LONG = 100_000
#: Each shape of pathological line, as a function of its length in characters.
SHAPES: dict[str, Callable[[int], str]] = {
    "latin": lambda n: "a" * n,
    "digits": lambda n: "1" * n,
    "cjk": lambda n: "推" * n,
    "dotted": lambda n: "a." * (n // 2),
    "at-signs": lambda n: "a@" * (n // 2),
    "domain": lambda n: "x@" + "a.b-" * (n // 4),
    "phone-like": lambda n: "(1" * (n // 2),
    "words": lambda n: "word " * (n // 5),
    "glosses": lambda n: "TTFT（推理）" * (n // 8),
}


def _seconds(run: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    run()
    return time.perf_counter() - t0


def _linear(run: Callable[[str], object], shape: Callable[[int], str]) -> tuple[bool, str]:
    """Whether *run* takes linear time on lines of *shape*: under 2 s on a LONG-character line
    outright, or under 30 times its time on a line ten times shorter (linear code takes about 10
    times as long, quadratic code 100 times). The ratio keeps a busy machine from failing it."""
    short, long = shape(LONG // 10), shape(LONG)
    run(short)  # warm-up: the first call of a parser loads what it needs (jieba's dictionary …)
    t_long = _seconds(lambda: run(long))
    if t_long < 2.0:
        return True, f"{t_long:.2f} s"
    t_short = _seconds(lambda: run(short))
    return t_long < 30 * t_short, f"{t_long:.2f} s vs {t_short:.3f} s on a tenth of it"


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_personal_data_check_is_linear(shape: str) -> None:
    ok, took = _linear(is_personal_data, SHAPES[shape])
    assert ok, f"{shape}: {took}"


def test_personal_data_check_still_finds_addresses() -> None:
    assert is_personal_data("写信到 wang.xiaoming@example.com 即可")
    assert is_personal_data("a+b@mail.example.org")
    assert is_personal_data("电话 +86 138-0013-8000")
    assert not is_personal_data("the @ sign and user@localhost are not addresses")
    assert not is_personal_data("GB200 NVL72 与 H100 80GB")


@pytest.mark.parametrize("parser", sorted(PARSERS))
def test_every_parser_is_linear_on_a_long_line(parser: str) -> None:
    head = "术语表\n\nTTFT（首 token 延迟）\nTTFT 是从请求发出到返回第一个 token 的时间。\n\n"

    def run(line: str) -> None:
        with contextlib.suppress(SourceError):  # a layout error is fine; the time is what is measured
            PARSERS[parser](head + line + "\n", "x", "x.txt")

    for shape, make in SHAPES.items():
        ok, took = _linear(run, make)
        assert ok, f"{parser} on a {LONG}-character {shape} line: {took}"


def test_overlong_line_is_refused_with_file_and_line(corpus_copy: Path) -> None:
    src = next((corpus_copy / "sources").glob("004_*.txt"))
    lines = src.read_text(encoding="utf-8").splitlines()
    lines.insert(6, "长" * (MAX_LINE_CHARS + 1))
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    t0 = time.perf_counter()
    _fails(corpus_copy, src.name, 7, rf"{MAX_LINE_CHARS + 1} characters.*limit")
    assert time.perf_counter() - t0 < 10.0


def test_bundled_sources_are_under_the_line_limit() -> None:
    from kg.build import default_corpus_dir

    for src in (default_corpus_dir() / "sources").glob("*.txt"):
        longest = max(len(line) for line in src.read_text(encoding="utf-8").splitlines())
        assert longest < MAX_LINE_CHARS // 1.5, src.name


def test_nul_and_terminal_escapes_are_stripped_with_a_warning(
    built, corpus_copy: Path, seeded_cache_home: Path
) -> None:
    src = next((corpus_copy / "sources").glob("004_*.txt"))
    lines = src.read_text(encoding="utf-8").splitlines()
    text_lines = [i for i, line in enumerate(lines) if len(line.strip()) > 6]
    first, second = text_lines[2], text_lines[5]
    lines[first] = "\x1b[31m" + lines[first][:3] + "\x00" + lines[first][3:] + "\x1b[0m\x07"
    lines[second] = "\x1b]0;pwned\x07" + lines[second] + "\x9b2J\x7f\x00"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = build_graph(corpus_copy)
    # the graph reads as if the characters had never been there
    assert result.document()["nodes"] == built.document()["nodes"]
    assert result.document()["edges"] == built.document()["edges"]
    warnings = result.report["input_warnings"]
    assert [(w["source"], w["line"]) for w in warnings] == [("004", first + 1), ("004", second + 1)]
    assert all("control character" in w["message"] for w in warnings)
    artifact = corpus_copy / "out"
    res = CliRunner().invoke(
        app, ["build", "--corpus", str(corpus_copy), "--artifact", str(artifact), "--encoder", "hash:64"]
    )
    assert res.exit_code == 0, res.output
    out = res.output.replace("\n", "")
    # the stripped corpus is the bundled one, to its refusal model's key: read from the seeded cache
    assert "(cached)" in out
    assert f"{src.name}:{first + 1}" in out and f"{src.name}:{second + 1}" in out
    assert "control character" in out and "\x1b" not in res.output
