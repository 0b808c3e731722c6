"""Edges of a term, neighbours, paths and subgraphs."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from fastapi.testclient import TestClient


def test_confused_with_triton(client: TestClient) -> None:
    body = client.get("/v1/terms/triton/confused-with").json()
    assert body["term"]["id"] == "triton"
    [edge] = [e for e in body["edges"] if e["other"]["id"] == "triton-inference-server"]
    assert edge["type"] == "confused_with" and edge["direction"] == "both"
    assert "Triton" in edge["evidence"]
    assert edge["doc"] == "002" and edge["line"] > 0 and edge["origin"]
    assert edge["other"]["labels"]


def test_confused_with_is_symmetric(client: TestClient) -> None:
    body = client.get("/v1/terms/triton-inference-server/confused-with").json()
    assert "triton" in {e["other"]["id"] for e in body["edges"]}


def test_related(client: TestClient) -> None:
    body = client.get("/v1/terms/time-to-first-token/related").json()
    assert body["edges"]
    assert all(e["type"] == "related_to" for e in body["edges"])
    assert all(e["direction"] in ("in", "out") for e in body["edges"])
    assert all(e["other"]["id"] != "time-to-first-token" for e in body["edges"])


def test_edges_unknown_term(client: TestClient, assert_error: Any) -> None:
    details = assert_error(client.get("/v1/terms/tritton/related"), 404, "term_not_found")
    assert "triton" in details["suggestions"]


def test_neighbors_depth(client: TestClient) -> None:
    one = client.get("/v1/terms/vllm/neighbors").json()
    two = client.get("/v1/terms/vllm/neighbors", params={"depth": 2}).json()
    assert one["depth"] == 1 and one["types"] == ["related_to", "confused_with"]
    ids1 = {n["id"] for n in one["neighbors"]}
    ids2 = {n["id"] for n in two["neighbors"]}
    assert "sglang" in ids1
    assert ids1 < ids2
    assert all(n["distance"] == 1 for n in one["neighbors"])
    assert {n["distance"] for n in two["neighbors"]} == {1, 2}
    assert "vllm" not in ids2


def test_neighbors_types_filter(client: TestClient) -> None:
    body = client.get("/v1/terms/triton/neighbors", params={"types": "confused_with"}).json()
    assert body["types"] == ["confused_with"]
    assert "triton-inference-server" in {n["id"] for n in body["neighbors"]}


@pytest.mark.parametrize("params", [{"depth": 0}, {"depth": 4}, {"types": "bogus"}, {"types": ","}])
def test_neighbors_bad_params(client: TestClient, assert_error: Any, params: dict[str, Any]) -> None:
    assert_error(client.get("/v1/terms/vllm/neighbors", params=params), 422, "invalid_request")


def test_path(client: TestClient) -> None:
    body = client.get("/v1/graph/path", params={"from": "vllm", "to": "time-to-first-token"}).json()
    ids = body["ids"]
    assert ids[0] == "vllm" and ids[-1] == "time-to-first-token"
    assert body["length"] == len(ids) - 1 >= 1
    assert [t["id"] for t in body["terms"]] == ids
    assert len(body["edges"]) >= body["length"]
    hops = {frozenset((e["source"], e["target"])) for e in body["edges"]}
    assert hops == {frozenset(p) for p in itertools.pairwise(ids)}


def test_path_by_name(client: TestClient) -> None:
    body = client.get("/v1/graph/path", params={"from": "TTFT", "to": "vllm"}).json()
    assert body["from_id"] == "time-to-first-token" and body["to_id"] == "vllm"


def test_path_same_term(client: TestClient) -> None:
    body = client.get("/v1/graph/path", params={"from": "vllm", "to": "vllm"}).json()
    assert body["ids"] == ["vllm"] and body["length"] == 0 and body["edges"] == []


def test_path_none(client: TestClient, assert_error: Any) -> None:
    # Only confused_with edges: triton's component is {triton, triton-inference-server}.
    params = {"from": "triton", "to": "vllm", "types": "confused_with"}
    details = assert_error(client.get("/v1/graph/path", params=params), 404, "path_not_found")
    assert details == {"from": "triton", "to": "vllm", "types": ["confused_with"]}


def test_path_unknown(client: TestClient, assert_error: Any) -> None:
    details = assert_error(
        client.get("/v1/graph/path", params={"from": "vllm", "to": "zzzqqq-nothing"}), 404, "term_not_found"
    )
    assert isinstance(details["suggestions"], list)


def test_subgraph(client: TestClient) -> None:
    body = client.get("/v1/graph/subgraph", params={"ids": "vllm,sglang,triton"}).json()
    assert [n["id"] for n in body["nodes"]] == ["vllm", "sglang", "triton"]
    assert any({e["source"], e["target"]} == {"vllm", "sglang"} for e in body["edges"])
    assert all(e["source"] in {"vllm", "sglang", "triton"} for e in body["edges"])
    assert all(e["target"] in {"vllm", "sglang", "triton"} for e in body["edges"])


def test_subgraph_too_many_ids(client: TestClient, glossary: Any, assert_error: Any) -> None:
    ids = sorted(glossary.terms)[:101]
    details = assert_error(
        client.get("/v1/graph/subgraph", params={"ids": ",".join(ids)}), 422, "invalid_request"
    )
    assert details == {"count": 101, "max_ids": 100}
    ok = client.get("/v1/graph/subgraph", params={"ids": ",".join(ids[:100])})
    assert ok.status_code == 200 and len(ok.json()["nodes"]) == 100


def test_subgraph_unknown_id(client: TestClient, assert_error: Any) -> None:
    details = assert_error(
        client.get("/v1/graph/subgraph", params={"ids": "vllm,sglangg"}), 404, "term_not_found"
    )
    assert "sglang" in details["suggestions"]
