"""Build pipeline: atomic artifact, bad input, stable ids, personal data, CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kg.build import build_graph, write_artifact
from kg.cli import app
from kg.parsers.common import SourceError
from kg.parsers.headings import parse_headings
from kg.store import Glossary


def test_ids_are_stable_across_builds(built, corpus_copy: Path) -> None:
    again = build_graph(corpus_copy)
    assert [t.id for t in again.terms] == [t.id for t in built.terms]
    assert again.document()["edges"] == built.document()["edges"]
    assert again.document()["id_aliases"] == built.document()["id_aliases"]


def test_artifact_is_written_and_loadable(built, tmp_path: Path) -> None:
    out = write_artifact(built, tmp_path / "artifact")
    assert {p.name for p in out.iterdir()} >= {"graph.json", "report.json", "manifest.json"}
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["nodes"] == len(built.terms)
    assert len(Glossary.load(out)) == len(built.terms)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp dirs left


def test_bad_source_names_file_and_line_and_keeps_last_good_build(
    built, corpus_copy: Path, tmp_path: Path
) -> None:
    out = write_artifact(built, tmp_path / "artifact")
    before = (out / "graph.json").read_bytes()
    src = next((corpus_copy / "sources").glob("001_*.txt"))
    lines = src.read_text(encoding="utf-8").splitlines()
    del lines[20]  # break a three-line table row
    src.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(SourceError) as exc:
        build_graph(corpus_copy)
    assert exc.value.file.endswith(src.name) and exc.value.line > 1
    runner = CliRunner()
    res = runner.invoke(app, ["build", "--corpus", str(corpus_copy), "--artifact", str(out)])
    assert res.exit_code == 2
    assert src.name in res.output
    assert (out / "graph.json").read_bytes() == before


def test_empty_source_fails_with_file_and_line(corpus_copy: Path) -> None:
    src = next((corpus_copy / "sources").glob("004_*.txt"))
    src.write_text("  \n\n", encoding="utf-8")
    with pytest.raises(SourceError, match=rf"{src.name}:1: empty"):
        build_graph(corpus_copy)


def test_invalid_utf8_is_reported(corpus_copy: Path) -> None:
    src = next((corpus_copy / "sources").glob("002_*.txt"))
    src.write_bytes(src.read_bytes()[:200] + b"\n\xff\xfe broken\n")
    with pytest.raises(SourceError, match="UTF-8"):
        build_graph(corpus_copy)


CONTACT = """跳到正文
某某存储

TTFT(首 token 延迟)
TTFT(Time To First Token)是从请求发出到模型返回第一个 token 的时间。

联系人
王小明
电话
+86 138-0013-8000
邮箱
wang.xiaoming@example.com
微信: wxm_storage
邮箱由 AI 自动接收与分拣,7×24 小时在线
"""


def test_contact_block_never_reaches_the_graph(corpus_copy: Path) -> None:
    parsed = parse_headings(CONTACT, "009")
    assert [e.names[0].text for e in parsed.entries] == ["TTFT"]
    blob = json.dumps([e.__dict__ for e in parsed.entries], default=str, ensure_ascii=False)
    for secret in ["王小明", "138", "wang.xiaoming", "example.com", "wxm_storage"]:
        assert secret not in blob
    # and through the whole pipeline, as a fifth source
    (corpus_copy / "sources" / "009_contact.txt").write_text(CONTACT, encoding="utf-8")
    manifest = json.loads((corpus_copy / "manifest.json").read_text(encoding="utf-8"))
    manifest["sources"].append(
        {
            "id": "009",
            "file": "sources/009_contact.txt",
            "title": "t",
            "description": "d",
            "language": "zh",
            "parser": "headings",
        }
    )
    (corpus_copy / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False), encoding="utf-8")
    result = build_graph(corpus_copy)
    doc = json.dumps(result.document(), ensure_ascii=False)
    for secret in ["王小明", "138-0013-8000", "wang.xiaoming@example.com", "wxm_storage"]:
        assert secret not in doc
    ttft = next(t for t in result.terms if "TTFT" in t.abbreviations)
    assert "009" in ttft.sources


def test_cli_stats_lookup_export(built, tmp_path: Path) -> None:
    out = write_artifact(built, tmp_path / "artifact")
    runner = CliRunner()
    stats = runner.invoke(app, ["stats", "--artifact", str(out), "--json"])
    assert stats.exit_code == 0
    data = json.loads(stats.output)
    assert data["entries_per_source"] == {"000": 194, "001": 213, "002": 110, "004": 16}
    # the rules do the work: few decisions besides the English names no source gives
    editorial_names = data["overlay_by_op"].get("english", 0)
    assert data["unexplained_entries"] == 0 and data["overlay_decisions"] - editorial_names < 60
    # every term has an English name unless an editor could not give one, and stats say how many
    assert data["zh_only_without_en"] <= 5 and data["labels_by_origin"]["en"]["editorial"] >= editorial_names
    assert data["inferred_category_nodes"] > 0 and data["names_from_rules"] > 0
    assert data["duplicate_evidence_edges"] == 0 and data["pairs_with_both_types"] == 0
    # the completeness figures of issue 11, scored on the artifact itself
    assert data["hash_ids"] == 0
    assert data["contrast_pairs"]["pairs"] == 200 and data["contrast_pairs"]["precision"] >= 0.95
    edge_decisions = data["overlay_by_op"].get("edge", 0)
    assert edge_decisions < 0.03 * sum(data["edges_by_type"].values())  # the rules do the work
    look = runner.invoke(app, ["lookup", "ｋｖ-Cache", "--artifact", str(out)])
    assert look.exit_code == 0 and "kv-cache" in look.output
    missing = runner.invoke(app, ["lookup", "no such thing", "--artifact", str(out)])
    assert missing.exit_code == 1
    exp = runner.invoke(app, ["export", "--format", "json", "--artifact", str(out)])
    doc = json.loads(exp.output)
    node = doc["nodes"][0]
    assert {"id", "labels", "label_origin", "aliases", "definitions", "categories"} <= set(node)
    assert (
        {"lang", "text", "source", "section"} <= set(node["definitions"][0]) if node["definitions"] else True
    )
    assert {"source", "target", "type", "evidence", "origin"} <= set(doc["edges"][0])
