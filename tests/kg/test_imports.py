"""Imports of a team's own glossary (kg/imports): one small glossary written in every format reads
into the same terms, categories and edges; format details; `glossary init`; a corpus mixing the
bundled sources with an imported CSV."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kg.build import BuildResult, build_graph, default_corpus_dir
from kg.cli import app
from kg.export.tbx import node_id as export_node_id
from kg.export.tbx import xml_id
from kg.imports import IMPORTERS
from kg.imports.records import term_line_names
from kg.imports.starter import TEMPLATE_COLUMNS, write_starter
from kg.imports.table import COLUMNS
from kg.imports.tbx import node_id
from tests.kg.imports_helpers import SAMPLES, corpus_with, edge_pairs, names, sample_corpus

# The sample glossary (tests/kg/import_samples/team.*), as written by hand in each file.
EXPECTED_NAMES = {
    "time-to-first-token": (
        {"en": "Time to first token", "zh": "首 token 延迟"},
        {"first-token latency"},
        {"TTFT"},
    ),
    "time-per-output-token": ({"en": "Time per output token", "zh": "每 token 输出时间"}, set(), {"TPOT"}),
    "prefill": ({"en": "Prefill", "zh": "预填充"}, set(), set()),
    "kv-cache": ({"en": "KV cache", "zh": "KV 缓存"}, {"key-value cache"}, set()),
}
EXPECTED_DEFINITIONS = {
    "time-to-first-token": "The time from sending a request to receiving the first output token.",
    "time-per-output-token": "The average time between two output tokens after the first.",
    "prefill": "The phase that reads the whole prompt before the first token is produced.",
    "kv-cache": "The keys and values of past tokens, kept so that decoding does not compute them again.",
}
# the Sphinx sample states its relations in the definitions (paragraphs joined, roles as text)
SPHINX_DEFINITIONS = {
    "time-to-first-token": EXPECTED_DEFINITIONS["time-to-first-token"] + " See Prefill.",
    "kv-cache": EXPECTED_DEFINITIONS["kv-cache"][:-1] + "; filled by prefill.",
}
EXPECTED_CATEGORIES = {
    "time-to-first-token": ["metrics"],
    "time-per-output-token": ["metrics"],
    "prefill": ["metrics"],
    "kv-cache": ["attention-kv"],
}
STATED_EDGES = {
    (frozenset({"time-to-first-token", "prefill"}), "related_to"),
    (frozenset({"time-to-first-token", "time-per-output-token"}), "confused_with"),
    (frozenset({"kv-cache", "prefill"}), "related_to"),
}
# format → (sample file, parser, the edges the file can state, whether it names the definitions' source)
SAMPLE_FILES: dict[str, tuple[str, str, set[tuple[frozenset[str], str]], bool]] = {
    "csv": ("team.csv", "csv", STATED_EDGES, True),
    "tsv": ("team.tsv", "tsv", STATED_EDGES, True),
    "json": ("team.json", "json", STATED_EDGES, True),
    "tbx-v3": ("team.tbx", "tbx", STATED_EDGES, True),
    "tbx-2008": ("team-tbx2008.tbx", "tbx", STATED_EDGES, True),
    "skos-turtle": ("team.ttl", "skos-turtle", STATED_EDGES, False),
    "skos-jsonld": ("team.jsonld", "skos-jsonld", STATED_EDGES, False),
    # Markdown states no relation; Sphinx states :term: references (related_to) only
    "markdown": ("team.md", "markdown", set(), False),
    "sphinx": ("team.rst", "sphinx", {e for e in STATED_EDGES if e[1] == "related_to"}, False),
}


@pytest.fixture(scope="module")
def sample_builds(tmp_path_factory: Any) -> dict[str, BuildResult]:
    out = {}
    for fmt, (file, parser, _, _) in SAMPLE_FILES.items():
        out[fmt] = build_graph(sample_corpus(tmp_path_factory.mktemp(fmt), file, parser))
    return out


def test_every_importer_has_a_sample() -> None:
    assert {parser for _, parser, _, _ in SAMPLE_FILES.values()} == set(IMPORTERS)


@pytest.mark.parametrize("fmt", sorted(SAMPLE_FILES))
def test_the_sample_glossary_reads_the_same_in_every_format(fmt: str, sample_builds) -> None:
    _file, _parser, edges, cites = SAMPLE_FILES[fmt]
    doc = sample_builds[fmt].document()
    nodes = {n["id"]: n for n in doc["nodes"]}
    assert set(nodes) == set(EXPECTED_NAMES)
    for nid, node in nodes.items():
        assert names(node) == EXPECTED_NAMES[nid], nid
        expected = (
            SPHINX_DEFINITIONS.get(nid, EXPECTED_DEFINITIONS[nid])
            if fmt == "sphinx"
            else EXPECTED_DEFINITIONS[nid]
        )
        assert [d["text"] for d in node["definitions"]] == [expected], nid
        # a file that names the definitions' source gives it; otherwise the source is the file's id
        assert {d["source"] for d in node["definitions"]} == {"Team wiki" if cites else "team"}
        assert node["categories"] == EXPECTED_CATEGORIES[nid], nid
        assert node["sources"] == ["team"]
    assert edge_pairs(doc) == edges
    assert sample_builds[fmt].report["input_warnings"] == []


def test_stated_edges_carry_their_origin_and_place(sample_builds) -> None:
    doc = sample_builds["csv"].document()
    by_pair = {frozenset((e["source"], e["target"])): e for e in doc["edges"]}
    ttft_prefill = by_pair[frozenset({"time-to-first-token", "prefill"})]
    assert (ttft_prefill["source"], ttft_prefill["origin"]) == ("time-to-first-token", "stated-related")
    assert (ttft_prefill["doc"], ttft_prefill["line"], ttft_prefill["evidence"]) == (
        "team",
        2,
        "related: Prefill",
    )
    confused = by_pair[frozenset({"time-to-first-token", "time-per-output-token"})]
    assert confused["origin"] == "stated-confused" and confused["evidence"] == "confused_with: TPOT"


def test_entries_keep_their_file_lines(sample_builds) -> None:
    docs = {fmt: {n["id"]: n for n in b.document()["nodes"]} for fmt, b in sample_builds.items()}
    assert docs["csv"]["kv-cache"]["entries"] == ["team:5"]  # the row's line
    # an entry per definition, on its line (the ':' line, the <descrip> line)
    md = (SAMPLES / "team.md").read_text(encoding="utf-8").splitlines()
    marker = next(i for i, ln in enumerate(md, 1) if ln.startswith(": The keys"))
    assert docs["markdown"]["kv-cache"]["entries"] == [f"team:{marker}"]
    tbx = (SAMPLES / "team.tbx").read_text(encoding="utf-8").splitlines()
    definition_line = next(i for i, ln in enumerate(tbx, 1) if "keys and values" in ln)
    assert docs["tbx-v3"]["kv-cache"]["definitions"][0]["line"] == definition_line


def test_other_languages_are_skipped_and_reported(sample_builds) -> None:
    skipped = sample_builds["tbx-2008"].report["skipped"]
    assert [s["reason"] for s in skipped] == ["<langSet> language 'de' is not read"]
    ttl = sample_builds["skos-turtle"].document()
    prefill = next(n for n in ttl["nodes"] if n["id"] == "prefill")
    assert all("Prompt" not in d["text"] for d in prefill["definitions"])  # the @de definition


def test_markdown_skips_prose_and_code_blocks(sample_builds) -> None:
    report = sample_builds["markdown"].report
    assert [s["text"] for s in report["skipped"]] == ["Terms our runbooks use. This paragraph is not a term."]
    assert all("Not a term" not in str(n) for n in sample_builds["markdown"].document()["nodes"])


def test_sphinx_term_roles_are_stated_relations(sample_builds) -> None:
    doc = sample_builds["sphinx"].document()
    kv = next(n for n in doc["nodes"] if n["id"] == "kv-cache")
    # the role keeps its text, the label between the items is left out
    assert kv["definitions"][0]["text"].endswith("filled by prefill.")
    assert "_kv-cache" not in kv["definitions"][0]["text"]
    edge = next(e for e in doc["edges"] if e["source"] == "kv-cache")
    assert edge["evidence"] == "them again; filled by prefill."
    assert (edge["origin"], edge["target"]) == ("stated-related", "prefill")


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (["Time to first token (TTFT)"], [("Time to first token", "label"), ("TTFT", "abbr")]),
        (["TTFT (Time to first token)"], [("Time to first token", "label"), ("TTFT", "abbr")]),
        (["KV cache（KV 缓存）"], [("KV cache", "label"), ("KV 缓存", "label")]),
        (["HBM", "High-bandwidth memory"], [("HBM", "abbr"), ("High-bandwidth memory", "label")]),
        # a parenthesis that is neither the other script nor an acronym qualifies the name
        (["Sampling (decode)"], [("Sampling (decode)", "label")]),
        (
            ["L0/L1/L2 caches (GPU)", "L0/L1/L2 caches"],
            [("L0/L1/L2 caches (GPU)", "label"), ("L0/L1/L2 caches", "alias")],
        ),
        (
            ["预填充", "Prefill", "prefill stage"],
            [("预填充", "label"), ("Prefill", "label"), ("prefill stage", "alias")],
        ),
    ],
)
def test_term_lines(lines: list[str], expected: list[tuple[str, str]]) -> None:
    assert [(n.text, n.kind) for n in term_line_names(lines)] == expected


def test_tbx_ids_are_read_as_the_export_writes_them() -> None:
    for raw in ("kv-cache", "2-4-sparsity", "预填充", "a b/c"):
        assert node_id(xml_id(raw)) == raw == export_node_id(xml_id(raw))


def test_template_columns_are_documented() -> None:
    assert set(TEMPLATE_COLUMNS) <= set(COLUMNS)
    doc = (Path(__file__).resolve().parents[2] / "docs" / "IMPORTS.md").read_text(encoding="utf-8")
    for column in COLUMNS:
        assert f"`{column}`" in doc, column
    for parser in IMPORTERS:
        assert f"`{parser}`" in doc, parser


# --- categories, ids and self-references: warnings, not errors ---------------------------------


def test_an_unknown_category_is_reported_and_the_topic_inferred(tmp_path: Path) -> None:
    csv_text = (
        "en,zh,definition,category\n"
        "Prefill,预填充,The phase that reads the prompt.,Latency stuff\n"
        "Decode,解码,The phase that writes tokens after prefill.,Latency stuff\n"
    )
    result = build_graph(corpus_with(tmp_path, {"team.csv": csv_text}, "csv"))
    warnings = result.report["input_warnings"]
    assert [(w["file"], w["line"]) for w in warnings] == [("team.csv", 2)]  # once per category
    assert "'Latency stuff' is not a topic" in warnings[0]["message"]
    assert all(n["categories"] == [] or n["categories_inferred"] for n in result.document()["nodes"])


def test_categories_json_sections_map_a_teams_own_categories(tmp_path: Path) -> None:
    cats = json.loads((default_corpus_dir() / "categories.json").read_text(encoding="utf-8"))
    cats["sections"] = {"team": {"Latency stuff": "metrics"}}
    csv_text = "en,definition,category\nPrefill,The phase that reads the prompt.,Latency stuff\n"
    result = build_graph(corpus_with(tmp_path, {"team.csv": csv_text}, "csv", categories=cats))
    assert result.document()["nodes"][0]["categories"] == ["metrics"]
    assert result.report["input_warnings"] == []


def test_a_given_id_that_the_rules_do_not_give_is_reported(tmp_path: Path) -> None:
    csv_text = "id,en,definition\nttft,Time to first token,The time to the first output token.\n"
    result = build_graph(corpus_with(tmp_path, {"team.csv": csv_text}, "csv"))
    assert [n["id"] for n in result.document()["nodes"]] == ["time-to-first-token"]
    (w,) = result.report["input_warnings"]
    assert w["line"] == 2 and "'ttft' becomes 'time-to-first-token'" in w["message"]


def test_a_relation_to_the_entrys_own_term_is_reported(tmp_path: Path) -> None:
    csv_text = "en,abbreviation,definition,related\nTime to first token,TTFT,The first token's wait.,TTFT\n"
    result = build_graph(corpus_with(tmp_path, {"team.csv": csv_text}, "csv"))
    assert result.document()["edges"] == []
    (w,) = result.report["input_warnings"]
    assert w["line"] == 2 and "column 'related'" in w["message"] and "own term" in w["message"]


def test_related_items_may_be_ids_of_the_file(tmp_path: Path) -> None:
    csv_text = (
        "id,en,definition,related\n"
        "time-to-first-token,Time to first token,The wait for the first output token.,pf\n"
        "pf,Prefill,The phase that reads the prompt.,\n"
    )
    result = build_graph(corpus_with(tmp_path, {"team.csv": csv_text}, "csv"))
    assert edge_pairs(result.document()) == {(frozenset({"time-to-first-token", "prefill"}), "related_to")}


def test_the_rules_also_read_imported_definitions(tmp_path: Path) -> None:
    csv_text = (
        "en,definition\n"
        "Prefill,The phase that reads the whole prompt.\n"
        "Time to first token,The wait for the first output token; prefill dominates it.\n"
    )
    rules = build_graph(corpus_with(tmp_path / "rules", {"team.csv": csv_text}, "csv"))
    stated = build_graph(corpus_with(tmp_path / "stated", {"team.csv": csv_text}, "csv", relations="stated"))
    assert [(e["source"], e["target"], e["origin"]) for e in rules.document()["edges"]] == [
        ("time-to-first-token", "prefill", "mention")
    ]
    assert stated.document()["edges"] == []


# --- what our exports write besides the terms: name origins, mentioned-only nodes, evidence items ---


def test_csv_export_columns_name_origins_and_mentioned_rows(tmp_path: Path) -> None:
    """Label origins and editorial names are read; a ``kind: mentioned`` row is no entry (nor are
    relations to it): the build finds PyTorch in the definition itself, with the rule's edge."""
    csv_text = (
        "id,label_en,label_zh,label_en_origin,label_zh_origin,editorial_names,abbreviations,"
        "definition_en,related,kind,mentioned_in\n"
        "prefill,Prefill,预填充,editorial,rule,Prefill | PF,PF,The phase that reads the prompt in PyTorch.,"
        "pytorch,defined,\n"
        "pytorch,PyTorch,,source,,,,,prefill,mentioned,000:377\n"
    )
    result = build_graph(corpus_with(tmp_path, {"team.csv": csv_text}, "csv", relations="stated"))
    doc = result.document()
    nodes = {n["id"]: n for n in doc["nodes"]}
    assert nodes["prefill"]["label_origin"] == {"en": "editorial", "zh": "rule"}
    assert set(nodes["prefill"]["editorial_names"]) == {"Prefill", "PF"}
    assert nodes["pytorch"]["kind"] == "mentioned"
    assert [(m["source"], m["term"]) for m in nodes["pytorch"]["mentioned_in"]] == [("team", "prefill")]
    assert [(e["source"], e["target"], e["origin"]) for e in doc["edges"]] == [
        ("prefill", "pytorch", "mention")
    ]
    assert [(s["line"], s["text"]) for s in result.report["skipped"]] == [(3, "PyTorch"), (2, "pytorch")]


def test_json_edge_items_are_statements_and_mentioned_nodes_are_not_read(tmp_path: Path) -> None:
    doc_text = json.dumps(
        {
            "nodes": [
                {"id": "a", "labels": {"en": "Alpha"}, "definitions": [{"text": "Runs on Beta."}]},
                {"id": "b", "labels": {"en": "Beta"}, "definitions": [{"text": "Holds Alpha."}]},
                {"id": "pytorch", "kind": "mentioned", "labels": {"en": "PyTorch"}, "mentioned_in": []},
            ],
            "edges": [
                {
                    "source": "b",
                    "target": "a",
                    "type": "related_to",
                    "evidence": "Holds Alpha.",
                    "origin": "mention",
                    "items": [
                        {"text": "Runs on Beta.", "origin": "xref", "subject": "a"},
                        {"text": "Holds Alpha.", "origin": "mention", "subject": "b"},
                    ],
                },
                {"source": "a", "target": "pytorch", "type": "related_to", "origin": "mention"},
            ],
        },
        indent=1,
    )
    result = build_graph(corpus_with(tmp_path, {"g.json": doc_text}, "json", relations="stated"))
    doc = result.document()
    assert [n["id"] for n in doc["nodes"]] == ["alpha", "beta"]  # PyTorch: no definition names it
    (edge,) = doc["edges"]
    # one edge, each item a statement of its subject; the xref heads it, so Alpha is the source
    assert (edge["source"], edge["target"], edge["origin"], edge["evidence"]) == (
        "alpha",
        "beta",
        "xref",
        "Runs on Beta.",
    )
    assert [(x["subject"], x["origin"]) for x in edge["items"]] == [("alpha", "xref"), ("beta", "mention")]
    assert len(result.report["skipped"]) == 2  # the mentioned node and its edge


# --- glossary init ------------------------------------------------------------------------------


def test_init_writes_a_corpus_that_builds_as_is(tmp_path: Path, quick_fits: None) -> None:
    runner = CliRunner()
    res = runner.invoke(app, ["init", str(tmp_path / "team")])
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in (tmp_path / "team").iterdir()) == [
        "categories.json",
        "glossary.csv",
        "manifest.json",
    ]
    result = build_graph(tmp_path / "team")
    doc = result.document()
    assert sorted(n["id"] for n in doc["nodes"]) == ["cold-start", "time-to-first-token", "warm-pool"]
    assert edge_pairs(doc) == {
        (frozenset({"warm-pool", "cold-start"}), "related_to"),
        (frozenset({"cold-start", "time-to-first-token"}), "confused_with"),
    }
    assert result.report["input_warnings"] == []
    out = tmp_path / "artifact"
    res = runner.invoke(
        app, ["build", "--corpus", str(tmp_path / "team"), "--artifact", str(out), "--encoder", "none"]
    )
    assert res.exit_code == 0, res.output
    assert (out / "graph.json").is_file()
    # never over an existing corpus
    before = (tmp_path / "team" / "glossary.csv").read_text(encoding="utf-8")
    res = runner.invoke(app, ["init", str(tmp_path / "team")])
    assert res.exit_code == 2 and "not overwriting" in res.output
    assert (tmp_path / "team" / "glossary.csv").read_text(encoding="utf-8") == before


# --- a corpus mixing the bundled sources with an imported CSV ------------------------------------


def test_bundled_sources_plus_a_teams_csv(built: BuildResult, tmp_path: Path) -> None:
    """`glossary init --with-bundled`: the bundled graph, plus the team's rows merged into it by the
    same rules (same names → one term), stated relations resolved against the bundled terms too."""
    corpus = tmp_path / "mixed"
    write_starter(corpus, with_bundled=True)
    with (corpus / "glossary.csv").open("a", encoding="utf-8") as f:
        f.write(
            "Request router,请求路由器,,,Sends each request to a replica that holds its prefix.,Team wiki,serving,KV cache,\n"
        )
    mixed = build_graph(corpus)
    bundled_doc, doc = built.document(), mixed.document()
    before = {n["id"]: n for n in bundled_doc["nodes"]}
    after = {n["id"]: n for n in doc["nodes"]}
    assert set(after) == set(before) | {"warm-pool", "request-router"}
    # the seed sources parse exactly as without the CSV
    assert mixed.report["raw_entries_per_source"] == {**built.report["raw_entries_per_source"], "team": 4}
    # a row naming a bundled term joins it: its definition is added, the bundled ones kept
    ttft = after["time-to-first-token"]
    assert ttft["sources"] == [*before["time-to-first-token"]["sources"], "team"]
    assert [d["source"] for d in ttft["definitions"]][-1] == "Team wiki"
    assert ttft["definitions"][:-1] == before["time-to-first-token"]["definitions"]
    # stated relations resolve against the whole corpus
    pairs = edge_pairs(doc)
    kv = next(n["id"] for n in doc["nodes"] if n["labels"].get("en") == "KV cache")
    assert (frozenset({"request-router", kv}), "related_to") in pairs
    assert (frozenset({"cold-start", "time-to-first-token"}), "confused_with") in pairs
    # every bundled edge is still there (between the same terms, of the same type)
    assert edge_pairs(bundled_doc) <= pairs
    assert mixed.report["input_warnings"] == []


def test_the_bundled_build_reads_no_import(built: BuildResult) -> None:
    assert {s.parser for s in built.sources} <= {"sentences", "table3", "gloss_lines", "headings"}
    assert not any(e.origin.startswith("stated") for e in built.edges)
