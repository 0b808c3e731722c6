"""GET /v1/lookup."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient


def test_lookup_abbreviation(client: TestClient) -> None:
    body = client.get("/v1/lookup", params={"label": "ttft"}).json()
    assert body["id"] == "time-to-first-token"
    assert body["match"] == "abbreviation"
    assert body["name"] == "TTFT"
    assert body["term"]["id"] == "time-to-first-token"
    assert isinstance(body["candidates"], list)


def test_lookup_traditional_chinese(client: TestClient) -> None:
    body = client.get("/v1/lookup", params={"label": "張量並行"}).json()
    assert body["id"] == "tensor-parallelism"
    assert body["query"] == "張量並行"


def test_lookup_preferred_label_and_lang(client: TestClient) -> None:
    body = client.get("/v1/lookup", params={"label": "vLLM", "lang": "zh"}).json()
    assert body["id"] == "vllm"
    assert body["match"] == "preferred-label"


def test_lookup_not_found_suggestions(client: TestClient, assert_error: Any) -> None:
    details = assert_error(client.get("/v1/lookup", params={"label": "vllmm"}), 404, "term_not_found")
    assert details["query"] == "vllmm"
    assert "vllm" in details["suggestions"]


def test_lookup_requires_label(client: TestClient, assert_error: Any) -> None:
    details = assert_error(client.get("/v1/lookup"), 422, "invalid_request")
    assert details["errors"][0]["loc"] == ["query", "label"]
    assert details["errors"][0]["type"] == "missing"


def test_query_too_long(client: TestClient, assert_error: Any) -> None:
    details = assert_error(client.get("/v1/lookup", params={"label": "a" * 2001}), 422, "invalid_request")
    assert details["max_query_chars"] == 2000
    assert details["length"] == len("label=") + 2001


def test_query_length_boundary(client: TestClient, assert_error: Any) -> None:
    # The whole decoded query string counts: "label=" + 1,994 chars is exactly 2,000.
    assert_error(client.get("/v1/lookup", params={"label": "a" * 1994}), 404, "term_not_found")
    details = assert_error(client.get("/v1/lookup", params={"label": "a" * 1995}), 422, "invalid_request")
    assert details == {"length": 2001, "max_query_chars": 2000}


def test_query_length_counts_decoded_characters(client: TestClient, assert_error: Any) -> None:
    # 1,990 Chinese characters are ~18,000 bytes percent-encoded but under the limit.
    assert_error(client.get("/v1/lookup", params={"label": "张" * 1990}), 404, "term_not_found")


def test_query_limit_from_settings(make_client: Any, assert_error: Any) -> None:
    client = make_client(max_query_chars=20)
    assert client.get("/v1/lookup", params={"label": "ttft"}).status_code == 200
    assert_error(client.get("/v1/lookup", params={"label": "x" * 14}), 404, "term_not_found")  # 20 chars
    assert_error(client.get("/v1/lookup", params={"label": "x" * 15}), 422, "invalid_request")


def test_lookup_joint_heading_names_each_part(client: TestClient) -> None:
    """A heading the sources state jointly ("AOT 与 JIT") finds each part; a part nothing names
    finds nothing rather than half the heading."""
    body = client.get("/v1/lookup", params={"label": "AOT 与 JIT"}).json()
    assert body["id"] == "ahead-of-time"
    assert body["match"] == "joint"
    assert [c["id"] for c in body["candidates"]] == ["just-in-time"]
    missing = client.get("/v1/lookup", params={"label": "TTFT / frobnicator"})
    assert missing.status_code == 404
