"""Bad imported glossaries: every mistake is a ``file:line`` message naming the column or element,
exit 2 from ``glossary build`` with no traceback, and the last good artifact stays as it was.

Each case is (parser, file name, content, the text on the line the error must name, words of the
message). Malformed rows, unknown columns, encoding errors, duplicate ids and names, and relations
to names no entry has are covered for each format that can have them.
"""

from __future__ import annotations

import contextlib
import re
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kg.build import build_graph
from kg.chat.refusal import SAMPLE_ENV
from kg.cli import app
from kg.imports import IMPORTERS
from kg.parsers.common import SourceError
from kg.verify import resolve_artifact
from tests.kg.imports_helpers import SAMPLES, corpus_with
from tests.refusal_cache import QUICK_SAMPLE

CSV_HEAD = "en,zh,definition\n"
TBX_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<tbx type="TBX-Basic" xmlns="urn:iso:std:iso:30042:ed-2">\n<text><body>\n'
TBX_TAIL = "</body></text>\n</tbx>\n"
TTL_HEAD = "@prefix skos: <http://www.w3.org/2004/02/skos/core#> .\n@prefix ex: <https://example.com/g/> .\n"


def _entry(cid: str, en: str, extra: str = "") -> str:
    return (
        f'<conceptEntry id="{cid}">\n{extra}<langSec xml:lang="en">\n'
        f'<descrip type="definition">Definition of {en}.</descrip>\n'
        f"<termSec><term>{en}</term></termSec>\n</langSec>\n</conceptEntry>\n"
    )


def _node(nid: str, en: str, extra: str = "") -> str:
    return f'{{"id": "{nid}", {extra}"labels": {{"en": "{en}"}}, "definitions": [{{"text": "About {en}."}}]}}'


LONG = "x" * 200
# (case id, parser, file, content, text on the line the error names (None: line 1), message words)
CASES: list[tuple[str, str, str, str | bytes, str | None, str]] = [
    # --- CSV / TSV
    (
        "csv-unknown-column",
        "csv",
        "g.csv",
        "en,zh,definiton\nA,甲,x\n",
        "definiton",
        r"column 3: unknown column 'definiton'",
    ),
    ("csv-repeated-column", "csv", "g.csv", "en,zh,EN\nA,甲,B\n", "EN", r"column 3: 'EN' repeats column 1"),
    ("csv-no-name-column", "csv", "g.csv", "definition,source\nx,y\n", None, r"no 'en' and no 'zh' column"),
    (
        "csv-too-many-fields",
        "csv",
        "g.csv",
        CSV_HEAD + "Prefill,预填充,reads the prompt, then stops\n",
        "then stops",
        r"malformed row: field 4 \('then stops'\) has no column \(a comma inside a cell that is not quoted\?\)",
    ),
    (
        "csv-too-few-fields",
        "csv",
        "g.csv",
        CSV_HEAD + "Prefill,预填充\n",
        "Prefill",
        r"malformed row: 2 fields, the header has 3 \(missing: definition\)",
    ),
    (
        "csv-quote-never-closed",
        "csv",
        "g.csv",
        CSV_HEAD + 'Prefill,预填充,ok\nDecode,解码,"never closed\nTTFT,首,x\n',
        "never closed",
        r"malformed row: unexpected end of data \(a quote opened and never closed\?\)",
    ),
    (
        "csv-stray-quote",
        "csv",
        "g.csv",
        CSV_HEAD + 'Prefill,预填充,"a" b\n',
        '"a" b',
        r"malformed row: ',' expected",
    ),
    (
        "csv-no-name",
        "csv",
        "g.csv",
        CSV_HEAD + "Prefill,预填充,ok\n,,a definition\n",
        "a definition",
        r"column 'en' and column 'zh': both empty",
    ),
    (
        "csv-name-too-long",
        "csv",
        "g.csv",
        CSV_HEAD + f"{LONG},长,x\n",
        LONG,
        r"column 'en': a name of 200 characters",
    ),
    (
        "csv-not-utf8",
        "csv",
        "g.csv",
        (CSV_HEAD + "Prefill,预填充,ok\n").encode() + "Decode,解码,x\n".encode("gbk"),
        "Decode",
        r"not valid UTF-8 \(byte 0x[0-9a-f]{2} at column 8\): save the file as UTF-8",
    ),
    (
        "csv-duplicate-id",
        "csv",
        "g.csv",
        "id,en,definition\nx,Prefill,a\nx,Decode,b\n",
        "Decode",
        r"column 'id': duplicate id 'x' \(first on line 2\)",
    ),
    (
        "csv-duplicate-name",
        "csv",
        "g.csv",
        "en,definition\nKV cache,a\nkv-cache,b\n",
        "kv-cache",
        r"column 'en': 'kv-cache' is already a name of the entry on line 2 \('KV cache'\)",
    ),
    (
        "csv-duplicate-abbreviation",
        "csv",
        "g.csv",
        "en,abbreviation,definition\nTime to first token,TTFT,a\nTime to fast token,TTFT,b\n",
        "fast",
        r"column 'abbreviation': 'TTFT' is already a name of the entry on line 2",
    ),
    (
        "csv-dangling-related",
        "csv",
        "g.csv",
        "en,definition,related\nPrefill,reads the prompt,\nTTFT,first token,Prefill | Decode\n",
        "first token",
        r"column 'related': no entry has the name 'Decode'",
    ),
    (
        "csv-dangling-confused-with",
        "csv",
        "g.csv",
        "en,definition,confused_with\nPrefill,reads the prompt,TTFB\n",
        "Prefill",
        r"column 'confused_with': no entry has the name 'TTFB'",
    ),
    (
        "csv-note-alone",
        "csv",
        "g.csv",
        "en,note\nPrefill,a note\n",
        "a note",
        r"column 'note': a note needs a definition",
    ),
    ("csv-header-only", "csv", "g.csv", "en,zh,definition\n", None, r"no entries found"),
    (
        "tsv-stray-tab",
        "tsv",
        "g.tsv",
        "en\tzh\tdefinition\nPrefill\t预填充\treads\tthe prompt\n",
        "Prefill",
        r"field 4 .*a tab inside",
    ),
    (
        "tsv-unknown-column",
        "tsv",
        "g.tsv",
        "en\tchinese\nPrefill\t预填充\n",
        "chinese",
        r"column 2: unknown column 'chinese'",
    ),
    # --- TBX
    (
        "tbx-not-well-formed",
        "tbx",
        "g.tbx",
        TBX_HEAD
        + '<conceptEntry id="c1">\n<langSec xml:lang="en"><termSec><term>Prefill</termSec>\n'
        + TBX_TAIL,
        "</termSec>",
        r"not well-formed XML: mismatched tag \(column \d+\)",
    ),
    (
        "tbx-wrong-root",
        "tbx",
        "g.tbx",
        '<?xml version="1.0"?>\n<html><body/></html>\n',
        "<html>",
        r"root element <html>: not TBX",
    ),
    (
        "tbx-no-entry",
        "tbx",
        "g.tbx",
        TBX_HEAD + TBX_TAIL,
        "<tbx",
        r"no <conceptEntry> \(TBX v3\) or <termEntry>",
    ),
    (
        "tbx-no-term",
        "tbx",
        "g.tbx",
        TBX_HEAD
        + '<conceptEntry id="c1">\n<langSec xml:lang="en">\n<termSec>\n<note>x</note></termSec>\n</langSec>\n</conceptEntry>\n'
        + TBX_TAIL,
        "<termSec>",
        r"<termSec>: no <term>",
    ),
    (
        "tbx-no-english-or-chinese",
        "tbx",
        "g.tbx",
        TBX_HEAD
        + '<conceptEntry id="c9">\n<langSec xml:lang="de"><termSec><term>Vorbefüllung</term></termSec></langSec>\n</conceptEntry>\n'
        + TBX_TAIL,
        'id="c9"',
        r"<conceptEntry id='c9'>: no <term> in English or Chinese",
    ),
    (
        "tbx-duplicate-id",
        "tbx",
        "g.tbx",
        TBX_HEAD + _entry("c1", "Prefill") + _entry("c1", "Decode") + TBX_TAIL,
        "Definition of Decode",  # the second <conceptEntry> is two lines above
        r"<conceptEntry> id: duplicate id 'c1'",
    ),
    (
        "tbx-ref-to-no-id",
        "tbx",
        "g.tbx",
        TBX_HEAD + _entry("c1", "Prefill", '<ref type="crossReference" target="nope"/>\n') + TBX_TAIL,
        'target="nope"',
        r"<ref type=\"crossReference\" target='nope'>: no entry of this file has the id 'nope'",
    ),
    (
        "tbx-ref-to-no-name",
        "tbx",
        "g.tbx",
        TBX_HEAD + _entry("c1", "Prefill", '<ref type="crossReference">Decode</ref>\n') + TBX_TAIL,
        ">Decode<",
        r"<ref type=\"crossReference\">: no entry has the name 'Decode'",
    ),
    (
        "tbx-entity-declaration",
        "tbx",
        "g.tbx",
        '<?xml version="1.0"?>\n<!DOCTYPE tbx [\n<!ENTITY a "aaaaaaaaaa">\n]>\n<tbx>&a;</tbx>\n',
        "<!ENTITY",
        r"<!ENTITY a>: entity declarations are not read",
    ),
    (
        "tbx-undefined-entity",
        "tbx",
        "g.tbx",
        TBX_HEAD + _entry("c1", "Prefill&nbsp;stage") + TBX_TAIL,
        "&nbsp;",
        r"not well-formed XML: undefined entity",
    ),
    # --- SKOS (Turtle, JSON-LD)
    (
        "skos-turtle-syntax",
        "skos-turtle",
        "g.ttl",
        TTL_HEAD + 'ex:a a skos:Concept ;\n  skos:prefLabel "Prefill@en .\n',
        "Prefill@en",
        r"not valid Turtle: .*\(column \d+\)",
    ),
    (
        "skos-turtle-no-concept",
        "skos-turtle",
        "g.ttl",
        TTL_HEAD + "ex:s a skos:ConceptScheme .\n",
        None,
        r"no skos:Concept",
    ),
    (
        "skos-two-preflabels",
        "skos-turtle",
        "g.ttl",
        TTL_HEAD + '\nex:a a skos:Concept ;\n  skos:prefLabel "Prefill"@en, "Pre-fill"@en .\n',
        "ex:a a",
        r"skos:prefLabel: two in language 'en' \('Pre-fill', 'Prefill'\); SKOS allows one",
    ),
    (
        "skos-related-not-a-concept",
        "skos-turtle",
        "g.ttl",
        TTL_HEAD + 'ex:a a skos:Concept ;\n  skos:prefLabel "Prefill"@en ;\n  skos:related ex:nope .\n',
        "ex:a a",
        r"skos:related: <https://example.com/g/nope> is not a skos:Concept of this file",
    ),
    (
        "skos-duplicate-identifier",
        "skos-turtle",
        "g.ttl",
        TTL_HEAD
        + "@prefix dcterms: <http://purl.org/dc/terms/> .\n"
        + 'ex:a a skos:Concept ; dcterms:identifier "x" ; skos:prefLabel "Prefill"@en .\n'
        + 'ex:b a skos:Concept ; dcterms:identifier "x" ; skos:prefLabel "Decode"@en .\n',
        "ex:b a",
        r"dcterms:identifier: duplicate id 'x'",
    ),
    (
        "skos-jsonld-invalid",
        "skos-jsonld",
        "g.jsonld",
        '{\n  "@graph": [\n    {"@id": "x",}\n  ]\n}\n',
        '"x",}',
        r"invalid JSON: .*\(column \d+\)",
    ),
    (
        "skos-jsonld-remote-context",
        "skos-jsonld",
        "g.jsonld",
        '{\n  "@context": "https://schema.org/",\n  "@graph": []\n}\n',
        "schema.org",
        r"@context: remote context 'https://schema.org/' is not fetched",
    ),
    (
        "csv-label-origin",
        "csv",
        "g.csv",
        "en,label_en_origin,definition\nPrefill,,ok\nDecode,guessed,x\n",
        "guessed",
        r"column 'label_en_origin': 'guessed' is not one of source, rule, editorial",
    ),
    (
        "csv-kind",
        "csv",
        "g.csv",
        "en,kind,definition\nPrefill,defined,ok\nDecode,alias,x\n",
        "alias",
        r"column 'kind': 'alias' is not one of defined, mentioned",
    ),
    (
        "csv-mentioned-with-definition",
        "csv",
        "g.csv",
        "en,kind,definition\nPrefill,,ok\nPyTorch,mentioned,A framework.\n",
        "PyTorch",
        r"row: marked mentioned only \(a name no entry defines\), yet it has a definition",
    ),
    (
        "csv-editorial-name-of-no-name",
        "csv",
        "g.csv",
        "en,abbreviation,editorial_names,definition\nPrefill,,,ok\nTime to first token,TTFT,TPOT,x\n",
        "TPOT",
        r"column 'editorial_names': 'TPOT' is not a name of the entry",
    ),
    # --- JSON (the export document)
    ("json-invalid", "json", "g.json", '{\n  "nodes": [\n    {"id": "a"\n  ]\n}\n', "  ]", r"invalid JSON"),
    (
        "json-unknown-key",
        "json",
        "g.json",
        '{"nodes": [\n'
        + _node("prefill", "Prefill")
        + ",\n"
        + _node("decode", "Decode", '"labls": {}, ')
        + "\n]}\n",
        "labls",
        r"nodes\[1\]\.labls: unknown key",
    ),
    (
        "json-duplicate-id",
        "json",
        "g.json",
        '{"nodes": [\n' + _node("prefill", "Prefill") + ",\n" + _node("prefill", "Decode") + "\n]}\n",
        "Decode",
        r"nodes\[1\]\.id: duplicate id 'prefill' \(first on line 2\)",
    ),
    (
        "json-edge-to-no-node",
        "json",
        "g.json",
        '{"nodes": [\n'
        + _node("prefill", "Prefill")
        + '\n],\n"edges": [\n{"source": "prefill", "target": "decode", "type": "related_to"}\n]}\n',
        '"target": "decode"',
        r"edges\[0\]\.target: 'decode' is not the id of a node of this file",
    ),
    (
        "json-edge-type",
        "json",
        "g.json",
        '{"nodes": [\n'
        + _node("a", "A1")
        + ",\n"
        + _node("b", "B1")
        + '\n],\n"edges": [\n{"source": "a", "target": "b", "type": "similar"}\n]}\n',
        '"similar"',
        r"edges\[0\]\.type: 'similar' is not one of related_to, confused_with",
    ),
    (
        "json-label-origin",
        "json",
        "g.json",
        '{"nodes": [\n'
        + _node("a", "A1")
        + ",\n"
        + _node("b", "B1", '"label_origin": {"en": "overlay"}, ')
        + "\n]}\n",
        '"overlay"',
        r"nodes\[1\]\.label_origin\.en: 'overlay' is not one of source, rule, editorial",
    ),
    (
        "json-kind",
        "json",
        "g.json",
        '{"nodes": [\n' + _node("a", "A1") + ",\n" + _node("b", "B1", '"kind": "named", ') + "\n]}\n",
        '"named"',
        r"nodes\[1\]\.kind: 'named' is not one of defined, mentioned",
    ),
    (
        "json-item-subject",
        "json",
        "g.json",
        '{"nodes": [\n'
        + _node("a", "A1")
        + ",\n"
        + _node("b", "B1")
        + '\n],\n"edges": [\n{"source": "a", "target": "b", "type": "related_to", "items": [\n'
        + '{"text": "A1 uses B1.", "origin": "mention", "subject": "c"}]}\n]}\n',
        '"subject": "c"',
        r"edges\[0\]\.items\[0\]\.subject: 'c' is not an end of the edge",
    ),
    (
        "json-labels-list",
        "json",
        "g.json",
        '{"nodes": [\n{"id": "a",\n "labels": ["A1"]}\n]}\n',
        '"labels"',
        r"nodes\[0\]\.labels: must be an object, not list",
    ),
    # --- Markdown
    (
        "markdown-definition-without-term",
        "markdown",
        "g.md",
        "# Glossary\n\n: a definition of nothing\n",
        ": a definition",
        r"':' definition with no term line before it",
    ),
    ("markdown-no-item", "markdown", "g.md", "# Glossary\n\nJust prose.\n", None, r"no definition-list item"),
    (
        "markdown-duplicate-term",
        "markdown",
        "g.md",
        "Prefill\n: reads the prompt\n\nPre-fill\n: reads it again\n",
        "Pre-fill",
        r"term line: 'Pre-fill' is already a name of the entry on line 1",
    ),
    (
        "markdown-term-too-long",
        "markdown",
        "g.md",
        f"{LONG}\n: a definition\n",
        LONG,
        r"term line of 200 characters",
    ),
    # --- Sphinx
    (
        "sphinx-no-glossary",
        "sphinx",
        "g.rst",
        "Title\n=====\n\nText.\n",
        None,
        r"no '\.\. glossary::' directive",
    ),
    (
        "sphinx-term-without-definition",
        "sphinx",
        "g.rst",
        ".. glossary::\n\n   Prefill\n      Reads the prompt.\n\n   Decode\n\nAfter.\n",
        "Decode",
        r"glossary term 'Decode' has no definition",
    ),
    (
        "sphinx-dangling-term-role",
        "sphinx",
        "g.rst",
        ".. glossary::\n\n   Prefill\n      Reads the prompt,\n      unlike :term:`decode`.\n",
        ":term:`decode`",
        r":term:`decode`: no entry has the name 'decode'",
    ),
    (
        "sphinx-bad-indentation",
        "sphinx",
        "g.rst",
        ".. glossary::\n\n   Prefill\n      Reads the prompt.\n  Decode\n      Writes tokens.\n",
        "  Decode",
        r"indented 2 spaces: the glossary's terms are indented 3",
    ),
]

# line offsets for cases whose error names a line other than the needle's
OFFSETS = {"tbx-duplicate-id": -2}


def _line(content: str | bytes, needle: str | None) -> int:
    if needle is None:
        return 1
    text = content.decode("utf-8", "replace") if isinstance(content, bytes) else content
    pos = text.index(needle) if needle in text else text.encode("utf-8", "replace").decode().index(needle)
    return text.count("\n", 0, pos) + 1


@pytest.fixture(scope="module")
def good_artifact(tmp_path_factory: Any) -> Path:
    """A published artifact built from the CSV sample: every failing build below targets it."""
    root = tmp_path_factory.mktemp("good")
    corpus = corpus_with(
        root / "corpus", {"team.csv": (SAMPLES / "team.csv").read_text(encoding="utf-8")}, "csv"
    )
    out = root / "artifact"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(SAMPLE_ENV, QUICK_SAMPLE)  # what fails below is the build, not the model
        res = CliRunner().invoke(
            app, ["build", "--corpus", str(corpus), "--artifact", str(out), "--encoder", "none"]
        )
    assert res.exit_code == 0, res.output
    return out


def _snapshot(artifact: Path) -> tuple[str, bytes]:
    version = resolve_artifact(artifact)
    return version.name, (version / "graph.json").read_bytes()


def test_every_importer_has_error_cases() -> None:
    assert {parser for _, parser, *_ in CASES} == set(IMPORTERS)


@pytest.mark.parametrize(
    ("case", "parser", "file", "content", "needle", "words"), CASES, ids=[c[0] for c in CASES]
)
def test_bad_import_names_file_line_and_column_and_keeps_the_artifact(
    case: str,
    parser: str,
    file: str,
    content: str | bytes,
    needle: str | None,
    words: str,
    tmp_path: Path,
    good_artifact: Path,
) -> None:
    corpus = corpus_with(tmp_path, {file: content}, parser)
    with pytest.raises(SourceError) as exc:
        build_graph(corpus)
    err = exc.value
    assert Path(err.file).name == file, err
    assert err.line == _line(content, needle) + OFFSETS.get(case, 0), err
    assert re.search(words, err.message), err.message
    before = _snapshot(good_artifact)
    res = CliRunner().invoke(app, ["build", "--corpus", str(corpus), "--artifact", str(good_artifact)])
    assert res.exit_code == 2, res.output
    assert f"{file}:{err.line}:" in res.output.replace("\n", "")
    assert "Traceback" not in res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)
    assert _snapshot(good_artifact) == before  # the last good artifact is untouched


def test_manifest_relations_value_is_checked(tmp_path: Path) -> None:
    corpus = corpus_with(tmp_path, {"g.csv": CSV_HEAD + "Prefill,预填充,ok\n"}, "csv", relations="some")
    with pytest.raises(SourceError) as exc:
        build_graph(corpus)
    text = (corpus / "manifest.json").read_text(encoding="utf-8")
    assert Path(exc.value.file).name == "manifest.json"
    assert exc.value.line == _line(text, '"relations"')
    assert "'relations' is 'some' (one of rules, stated)" in exc.value.message


def test_an_ambiguous_relation_target_is_refused(tmp_path: Path) -> None:
    """A name that two terms answer to (here loosely: "warmup" is the name key of the alias
    "warm up" and of the label "Warm-up") cannot say which one it means."""
    content = "en,aliases,definition,related\nPrefill,warm up,a,\nWarm-up,,b,\nTTFT,,c,warmup\n"
    corpus = corpus_with(tmp_path, {"g.csv": content}, "csv")
    with pytest.raises(SourceError) as exc:
        build_graph(corpus)
    assert exc.value.line == 4
    assert "column 'related': 'warmup' names 2 terms (prefill, warm-up)" in exc.value.message


# every importer stays linear on a very long line and on many lines (like the seed parsers,
# tests/kg/test_bad_corpus.py)
LONG_LINE = "长" * 60_000
SAMPLE_OF = {
    "csv": "team.csv",
    "tsv": "team.tsv",
    "json": "team.json",
    "tbx": "team.tbx",
    "skos-turtle": "team.ttl",
    "skos-jsonld": "team.jsonld",
    "markdown": "team.md",
    "sphinx": "team.rst",
}


@pytest.mark.parametrize("parser", sorted(IMPORTERS))
def test_every_importer_is_fast_on_long_lines_and_many_lines(parser: str) -> None:
    text = (SAMPLES / SAMPLE_OF[parser]).read_text(encoding="utf-8")
    many_lines = "Term\n: a definition\n" + "more text\n" * 20_000 + "\n" * 20_000 + ": again\n"
    for shaped in (LONG_LINE, "a " * 30_000, "(" * 30_000, "`" * 30_000, "|" * 30_000, many_lines):
        t0 = time.perf_counter()
        with contextlib.suppress(SourceError):
            IMPORTERS[parser](text + "\n" + shaped + "\n", "x", "x")
        assert time.perf_counter() - t0 < 2.0, (parser, shaped[:5])
