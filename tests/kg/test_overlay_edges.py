"""Edge decisions of the overlay: the corrected edges, and bad decisions named by file and line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kg.build import BuildResult
from kg.model import Edge
from kg.overlay import apply_edge_decisions, load_overlay
from kg.parsers.common import SourceError


def _edges_between(built: BuildResult, a: str, b: str, type_: str) -> list[Edge]:
    return [e for e in built.edges if e.type == type_ and {e.source, e.target} == {a, b}]


@pytest.mark.parametrize(
    ("a", "b", "type_"),
    [
        ("roofline-ridge", "compute-bound", "confused_with"),
        ("roofline-ridge", "memory-bound", "confused_with"),
        ("kernel", "triton-inference-server", "confused_with"),
        ("inference-engine", "training", "confused_with"),
        ("nvlink", "nvswitch", "confused_with"),
        ("neural-processing-unit", "engine", "related_to"),
        ("openvino", "vpu", "related_to"),
        ("operator", "gpu-node", "related_to"),
        ("roofline-ridge", "roofline", "related_to"),
    ],
)
def test_wrong_edges_are_gone(built: BuildResult, a: str, b: str, type_: str) -> None:
    assert _edges_between(built, a, b, type_) == []


def test_corrected_edges_carry_the_sources_words(built: BuildResult) -> None:
    (fp_int,) = _edges_between(built, "floating-point-data-formats", "integer-data-formats", "confused_with")
    # once overlay decisions, now read by the contrast rules (kg.contrasts, kg.relations)
    assert fp_int.origin == "comparative" and fp_int.doc == "001" and "整数格式" in fp_int.evidence
    (sym,) = _edges_between(built, "symmetric-quantization", "asymmetric-quantization", "confused_with")
    assert sym.origin == "paired-definition" and "非对称" in sym.evidence
    assert not _edges_between(built, "dynamic-range-quantization", "integer-data-formats", "confused_with")
    assert built.report["stale_overlay_decisions"] == []
    assert _edges_between(built, "roofline-ridge", "roofline-model", "related_to")
    # a dropped contrast keeps the relation the text does state
    assert _edges_between(built, "nvlink", "nvswitch", "related_to")
    assert _edges_between(built, "memory-bound", "compute-bound", "confused_with")


def _overlay(tmp_path: Path, *decisions: dict[str, Any]) -> Path:
    path = tmp_path / "overlay.json"
    lines = ['{"decisions": [', ",\n".join(json.dumps(d, ensure_ascii=False) for d in decisions), "]}"]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _edge(action: str, type_: str, a: str, b: str, **extra: Any) -> dict[str, Any]:
    return {"op": "edge", "action": action, "type": type_, "between": [a, b], "reason": "r", **extra}


def _resolve(name: str) -> set[str]:
    return {"kv cache": {"kv"}, "prefill": {"pf"}, "decode": {"dc"}, "node": {"n1", "n2"}}.get(
        name.lower(), set()
    )


EDGES = [
    Edge("pf", "dc", "confused_with", "ev", "contrast", "002", 1),
    Edge("pf", "kv", "related_to", "ev", "mention", "002", 1),
]


def test_drop_add_and_stale(tmp_path: Path) -> None:
    path = _overlay(
        tmp_path,
        _edge("drop", "confused_with", "decode", "prefill"),
        _edge("drop", "confused_with", "KV cache", "prefill"),
        _edge("add", "related_to", "decode", "KV cache", source="002", line=7, evidence="decode 读 KV cache"),
    )
    decisions = load_overlay(path)
    out = apply_edge_decisions(EDGES, _resolve, decisions, str(path))
    assert [(e.source, e.target, e.type, e.origin) for e in out] == [
        ("pf", "kv", "related_to", "mention"),
        ("dc", "kv", "related_to", "overlay"),
    ]
    assert [d.used for d in decisions] == [1, 0, 1]  # the second finds no edge: stale


@pytest.mark.parametrize(
    ("decision", "message"),
    [
        ({"action": "move", "type": "related_to", "between": ["a", "b"]}, "action"),
        ({"action": "drop", "type": "similar_to", "between": ["a", "b"]}, "type"),
        ({"action": "drop", "type": "related_to", "between": ["a"]}, "two term names"),
        ({"action": "add", "type": "related_to", "between": ["a", "b"]}, "evidence"),
    ],
)
def test_bad_edge_decisions_name_file_and_line(
    tmp_path: Path, decision: dict[str, Any], message: str
) -> None:
    path = _overlay(tmp_path, {"op": "edge", "reason": "r", **decision})
    with pytest.raises(SourceError, match=rf"overlay.json:2: .*{message}"):
        load_overlay(path)


def test_a_name_must_not_name_several_terms(tmp_path: Path) -> None:
    path = _overlay(
        tmp_path,
        _edge("drop", "related_to", "Node", "prefill"),
    )
    with pytest.raises(SourceError, match=r"overlay.json:2: .*'Node' names 2 terms"):
        apply_edge_decisions(EDGES, _resolve, load_overlay(path), str(path))


def test_a_name_of_no_term_leaves_the_decision_stale(tmp_path: Path) -> None:
    path = _overlay(
        tmp_path,
        _edge("drop", "related_to", "no such", "prefill"),
    )
    decisions = load_overlay(path)
    assert apply_edge_decisions(EDGES, _resolve, decisions, str(path)) == EDGES
    assert decisions[0].used == 0
