"""Mentioned-only nodes over HTTP: the full node, lookup, lists, stats and the chat."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient


def test_term_detail_of_a_mentioned_node_says_it_is_not_defined(client: TestClient) -> None:
    body = client.get("/v1/terms/pytorch").json()
    assert body["kind"] == "mentioned" and body["label"] == "PyTorch"
    assert body["definitions"] == [] and body["categories"] == []
    assert body["note"].startswith("PyTorch is not defined in the glossary; it is mentioned in 14 sentences")
    assert len(body["mentioned_in"]) == 14
    site = next(m for m in body["mentioned_in"] if (m["source"], m["line"]) == ("000", 377))
    assert site == {
        "source": "000",
        "line": 377,
        "sentence": "torch.compile 是 PyTorch 的编译入口，把模型捕获成图交给编译器后端，而不是逐个执行每个操作。",
        "term": "torch-compile",
    }
    assert body["edge_counts"]["related_to"] >= 10
    zh = client.get("/v1/terms/pytorch", params={"lang": "zh"}).json()
    assert zh["note"].startswith("PyTorch 不是词表中定义的术语")


def test_a_defined_term_has_no_note(client: TestClient) -> None:
    body = client.get("/v1/terms/time-to-first-token").json()
    assert body["kind"] == "defined" and body["note"] is None and body["mentioned_in"] == []


def test_lookup_and_list_mark_the_kind(client: TestClient, graph_doc: dict[str, Any]) -> None:
    hit = client.get("/v1/lookup", params={"label": "rccl"}).json()
    assert hit["id"] == "rccl" and hit["term"]["kind"] == "mentioned"
    mentioned = client.get("/v1/terms", params={"kind": "mentioned", "limit": 200}).json()
    defined = client.get("/v1/terms", params={"kind": "defined", "limit": 1}).json()
    expected = sum(1 for n in graph_doc["nodes"] if n["kind"] == "mentioned")
    assert mentioned["total"] == expected > 0 and all(t["kind"] == "mentioned" for t in mentioned["items"])
    assert defined["total"] + mentioned["total"] == len(graph_doc["nodes"])
    stats = client.get("/v1/stats").json()
    assert stats["mentioned_terms"] == expected and stats["terms"] == len(graph_doc["nodes"])


def test_unknown_kind_is_a_422(client: TestClient, assert_error: Any) -> None:
    details = assert_error(client.get("/v1/terms", params={"kind": "guessed"}), 422, "invalid_request")
    assert details["errors"][0]["loc"] == ["query", "kind"]


def test_ask_about_a_mentioned_name(client: TestClient) -> None:
    resp = client.post("/v1/ask", json={"question": "What is TorchDynamo?"})
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["grounded"] and body["terms"] == ["torchdynamo"]
    assert body["answer"].startswith("**TorchDynamo** is not defined in the glossary; it is mentioned in:")
    [c] = body["citations"]
    # cited under the entry whose text mentions it (torch.compile), the one a reader can open
    assert (c["kind"], c["source"], c["line"], c["term_id"]) == ("mention", "002", 80, "torch-compile")
