"""GET /v1/suggest and /v1/search (real graph; engine with the hashing encoder)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from kg.search.snippets import SNIPPET_CHARS, trim
from kg.store import Glossary

# --- suggest -----------------------------------------------------------------


def test_suggest_chinese_prefix(client: TestClient) -> None:
    body = client.get("/v1/suggest", params={"q": "张量"}).json()
    assert body["query"] == "张量"
    first = body["items"][0]
    assert first == {
        "id": "tensor-parallelism",
        "name": "张量并行",
        "kind": "label",
        "method": "prefix",
        "label": "张量并行",  # the prefix is Chinese: so is the label
        "labels": first["labels"],
    }
    assert first["labels"]["zh"] == "张量并行" and "en" in first["labels"]


def test_suggest_traditional_and_case_insensitive(client: TestClient) -> None:
    assert client.get("/v1/suggest", params={"q": "張量"}).json()["items"][0]["id"] == "tensor-parallelism"
    ids = [i["id"] for i in client.get("/v1/suggest", params={"q": "KV"}).json()["items"]]
    assert ids == [i["id"] for i in client.get("/v1/suggest", params={"q": "kv"}).json()["items"]]
    assert "kv-cache" in ids


def test_suggest_abbreviation_and_alias(client: TestClient) -> None:
    items = client.get("/v1/suggest", params={"q": "ttf"}).json()["items"]
    ttft = next(i for i in items if i["id"] == "time-to-first-token")
    assert ttft["kind"] in ("label", "abbr")
    exact = client.get("/v1/suggest", params={"q": "TTFT"}).json()["items"][0]
    assert exact["id"] == "time-to-first-token" and exact["method"] == "exact" and exact["kind"] == "abbr"


def test_suggest_infix(client: TestClient) -> None:
    items = client.get("/v1/suggest", params={"q": "attention", "limit": 20}).json()["items"]
    assert items[0]["id"] == "attention"
    assert any(i["id"] == "ring-attention" and i["method"] == "infix" for i in items)


def test_suggest_limit_and_lang(client: TestClient) -> None:
    items = client.get("/v1/suggest", params={"q": "p", "limit": 3, "lang": "zh"}).json()["items"]
    assert len(items) == 3
    assert all(i["label"] == i["labels"].get("zh", i["labels"].get("en")) for i in items)
    assert len(client.get("/v1/suggest", params={"q": "p", "limit": 20}).json()["items"]) == 20


def test_suggest_empty_prefix(client: TestClient) -> None:
    assert client.get("/v1/suggest", params={"q": ""}).json() == {"query": "", "items": []}
    assert client.get("/v1/suggest", params={"q": "   "}).json()["items"] == []
    assert client.get("/v1/suggest", params={"q": "zzzqqqxx"}).json()["items"] == []


@pytest.mark.parametrize(
    ("params", "loc"),
    [
        ({"q": "kv", "limit": 0}, ["query", "limit"]),
        ({"q": "kv", "limit": 21}, ["query", "limit"]),
        ({"q": "x" * 201}, ["query", "q"]),
        ({"q": "kv", "lang": "fr"}, ["query", "lang"]),
        ({}, ["query", "q"]),
    ],
)
def test_suggest_bad_params(
    client: TestClient, assert_error: Any, params: dict[str, Any], loc: list[str]
) -> None:
    details = assert_error(client.get("/v1/suggest", params=params), 422, "invalid_request")
    assert details["errors"][0]["loc"] == loc


# --- search ------------------------------------------------------------------


def test_search_traditional_finds_tensor_parallelism(client: TestClient, glossary: Glossary) -> None:
    body = client.get("/v1/search", params={"q": "張量並行"}).json()
    assert body["query"] == "張量並行" and body["mode"] == "hybrid"
    assert body["offset"] == 0 and body["limit"] == 10
    assert body["truncated"] is False and body["reason"] is None and body["took_ms"] >= 0
    top = body["results"][0]
    assert top["id"] == "tensor-parallelism"
    assert top["label"] == "张量并行"  # the query is Chinese
    assert top["matched"] == "张量并行"
    assert "parallelism" in top["categories"]
    assert top["snippet"] and len(top["snippet"]) <= SNIPPET_CHARS
    term = glossary.terms["tensor-parallelism"]
    zh_defs = [trim(d.text) for d in term.definitions if d.lang == "zh"]
    assert top["snippet"] in {trim(d.text) for d in term.definitions} and zh_defs
    assert "explain" not in top
    scores = [r["score"] for r in body["results"]]
    assert scores == sorted(scores, reverse=True)


def test_search_result_fields(client: TestClient) -> None:
    body = client.get("/v1/search", params={"q": "ttft", "limit": 3}).json()
    assert set(body) == {
        "query",
        "mode",
        "total",
        "offset",
        "limit",
        "truncated",
        "reason",
        "took_ms",
        "results",
    }
    assert body["results"][0]["id"] == "time-to-first-token"
    assert set(body["results"][0]) == {"id", "labels", "label", "score", "snippet", "categories", "matched"}
    assert body["results"][0]["label"] == body["results"][0]["labels"]["en"]


def test_search_lang_param(client: TestClient) -> None:
    top = client.get("/v1/search", params={"q": "張量並行", "lang": "en", "limit": 1}).json()["results"][0]
    assert top["label"] == top["labels"]["en"]


@pytest.mark.parametrize("mode", ["hybrid", "semantic", "lexical"])
def test_search_modes(client: TestClient, mode: str) -> None:
    body = client.get("/v1/search", params={"q": "KV cache", "mode": mode, "explain": True}).json()
    assert body["mode"] == mode
    assert body["results"] and body["total"] >= len(body["results"])
    stages = set().union(*(r["explain"]["components"] for r in body["results"]))
    if mode == "semantic":
        assert stages == {"dense"}
    elif mode == "lexical":
        assert "dense" not in stages and "exact" in stages
    else:
        assert {"dense", "exact"} <= stages


def test_search_explain(client: TestClient, glossary: Glossary) -> None:
    results = client.get("/v1/search", params={"q": "KV cache", "explain": "true", "limit": 5}).json()[
        "results"
    ]
    for r in results:
        ex = r["explain"]
        assert set(ex) == {"components", "ranks", "passage"}
        assert set(ex["ranks"]) <= set(ex["components"]) | {"exact"}
        assert r["score"] == pytest.approx(sum(ex["components"].values()), abs=1e-4)
        if ex["passage"]:  # the snippet is the definition the dense stage matched
            assert ex["passage"].startswith(r["id"] + "#def")
            n = int(ex["passage"].split("#def")[1])
            assert r["snippet"] == trim(glossary.terms[r["id"]].definitions[n].text)


def test_search_pagination(client: TestClient) -> None:
    whole = client.get("/v1/search", params={"q": "prefill decode", "limit": 20}).json()
    first = client.get("/v1/search", params={"q": "prefill decode", "limit": 10}).json()
    second = client.get("/v1/search", params={"q": "prefill decode", "limit": 10, "offset": 10}).json()
    assert whole["total"] == first["total"] == second["total"] >= 20
    assert [r["id"] for r in first["results"] + second["results"]] == [r["id"] for r in whole["results"]]
    assert second["offset"] == 10 and second["limit"] == 10
    past = client.get("/v1/search", params={"q": "prefill decode", "offset": 10_000}).json()
    assert past["results"] == [] and past["total"] == whole["total"]


@pytest.mark.parametrize("q", ["", "   ", "\t"])
def test_search_empty_query(client: TestClient, q: str) -> None:
    resp = client.get("/v1/search", params={"q": q})
    assert resp.status_code == 200
    body = resp.json()
    assert body["results"] == [] and body["total"] == 0
    assert body["reason"] == "empty query: nothing to search for"


def test_search_no_match_reason(client: TestClient) -> None:
    body = client.get("/v1/search", params={"q": "🙂", "mode": "lexical"}).json()
    assert body["results"] == [] and body["reason"] == "no term matches the query"


def test_search_query_too_long(client: TestClient, assert_error: Any) -> None:
    details = assert_error(client.get("/v1/search", params={"q": "a" * 2001}), 422, "invalid_request")
    assert details == {"length": len("q=") + 2001, "max_query_chars": 2000}
    assert client.get("/v1/search", params={"q": "a" * 1998}).status_code == 200  # exactly 2,000


@pytest.mark.parametrize(
    ("params", "loc"),
    [
        ({"q": "ttft", "mode": "fuzzy"}, ["query", "mode"]),
        ({"q": "ttft", "limit": 0}, ["query", "limit"]),
        ({"q": "ttft", "limit": 51}, ["query", "limit"]),
        ({"q": "ttft", "offset": -1}, ["query", "offset"]),
        ({"q": "ttft", "explain": "maybe"}, ["query", "explain"]),
        ({"q": "ttft", "lang": "de"}, ["query", "lang"]),
        ({}, ["query", "q"]),
    ],
)
def test_search_bad_params(
    client: TestClient, assert_error: Any, params: dict[str, Any], loc: list[str]
) -> None:
    details = assert_error(client.get("/v1/search", params=params), 422, "invalid_request")
    assert details["errors"][0]["loc"] == loc


def test_search_odd_text_is_not_an_error(client: TestClient) -> None:
    for q in ["\x00\x01", "💥" * 50, "SELECT * FROM terms;", "../../etc/passwd", "％ＴＴＦＴ"]:
        assert client.get("/v1/search", params={"q": q}).status_code == 200, q
