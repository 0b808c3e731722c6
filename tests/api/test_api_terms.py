"""GET /v1/terms and /v1/terms/{id}."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.schemas.common import MAX_OFFSET


def test_list_default_page(client: TestClient, graph_doc: dict[str, Any]) -> None:
    body = client.get("/v1/terms").json()
    assert body["total"] == len(graph_doc["nodes"])
    assert body["limit"] == 50 and body["offset"] == 0
    assert len(body["items"]) == 50
    ids = [t["id"] for t in body["items"]]
    assert ids == sorted(ids)
    assert set(body["items"][0]) >= {"id", "label", "labels", "abbreviations", "categories", "sources"}


def test_list_pages_do_not_overlap(client: TestClient) -> None:
    first = client.get("/v1/terms", params={"limit": 10, "offset": 0}).json()["items"]
    second = client.get("/v1/terms", params={"limit": 10, "offset": 10}).json()["items"]
    assert len(first) == len(second) == 10
    assert not {t["id"] for t in first} & {t["id"] for t in second}


def test_list_offset_past_end_is_empty(client: TestClient) -> None:
    body = client.get("/v1/terms", params={"offset": MAX_OFFSET}).json()  # the cap: 422 past it
    assert body["items"] == [] and body["total"] > 0


@pytest.mark.parametrize("limit", [0, 201, -1])
def test_list_limit_bounds(client: TestClient, assert_error: Any, limit: int) -> None:
    details = assert_error(client.get("/v1/terms", params={"limit": limit}), 422, "invalid_request")
    [err] = details["errors"]
    assert err["loc"] == ["query", "limit"]


def test_list_limit_200_ok(client: TestClient) -> None:
    assert len(client.get("/v1/terms", params={"limit": 200}).json()["items"]) == 200


def test_list_negative_offset(client: TestClient, assert_error: Any) -> None:
    details = assert_error(client.get("/v1/terms", params={"offset": -1}), 422, "invalid_request")
    assert details["errors"][0]["loc"] == ["query", "offset"]


def test_list_filters(client: TestClient) -> None:
    body = client.get("/v1/terms", params={"category": "metrics", "source": "002", "limit": 200}).json()
    assert body["total"] == len(body["items"]) > 0
    assert all("metrics" in t["categories"] and "002" in t["sources"] for t in body["items"])
    assert "time-to-first-token" in {t["id"] for t in body["items"]}


def test_list_lang_filter(client: TestClient, graph_doc: dict[str, Any]) -> None:
    for lang in ("en", "zh"):
        expected = sorted(
            n["id"]
            for n in graph_doc["nodes"]
            if lang in n["labels"] or any(d["lang"] == lang for d in n["definitions"])
        )
        got: list[str] = []
        for offset in range(0, len(graph_doc["nodes"]), 200):
            page = client.get("/v1/terms", params={"lang": lang, "limit": 200, "offset": offset}).json()
            assert page["total"] == len(expected)
            got += [t["id"] for t in page["items"]]
        assert got == expected
    # Some terms have no English at all (the corpus is mostly Chinese).
    assert len(expected) > 0


def test_list_lang_picks_label(client: TestClient) -> None:
    items = client.get("/v1/terms", params={"lang": "zh", "limit": 200}).json()["items"]
    assert all(t["label"] == t["labels"]["zh"] for t in items if "zh" in t["labels"])


def test_list_unknown_category_is_empty(client: TestClient) -> None:
    assert client.get("/v1/terms", params={"category": "nope"}).json() == {
        "total": 0,
        "limit": 50,
        "offset": 0,
        "items": [],
    }


def test_get_term(client: TestClient) -> None:
    resp = client.get("/v1/terms/time-to-first-token")
    assert resp.status_code == 200
    body = resp.json()
    assert body["id"] == "time-to-first-token"
    assert "TTFT" in body["abbreviations"]
    assert body["definitions"] and {"lang", "text", "source", "line"} <= set(body["definitions"][0])
    assert body["edge_counts"]["related_to"] >= 1
    assert set(body["edge_counts"]) == {"related_to", "confused_with"}


def test_get_term_edge_counts_match_graph(client: TestClient) -> None:
    counts = client.get("/v1/terms/triton").json()["edge_counts"]
    confused = client.get("/v1/terms/triton/confused-with").json()["edges"]
    related = client.get("/v1/terms/triton/related").json()["edges"]
    assert counts == {"related_to": len(related), "confused_with": len(confused)}


def test_get_term_label_lang(client: TestClient) -> None:
    zh = client.get("/v1/terms/tensor-parallelism", params={"lang": "zh"}).json()
    en = client.get("/v1/terms/tensor-parallelism", params={"lang": "en"}).json()
    assert zh["label"] == zh["labels"]["zh"]
    assert en["label"] == en["labels"]["en"]
    assert zh["label"] != en["label"]


def test_get_term_bad_lang(client: TestClient, assert_error: Any) -> None:
    assert_error(client.get("/v1/terms/vllm", params={"lang": "fr"}), 422, "invalid_request")


def test_unknown_term_404_with_suggestions(client: TestClient, assert_error: Any) -> None:
    details = assert_error(client.get("/v1/terms/tensor-paralelism"), 404, "term_not_found")
    assert details["query"] == "tensor-paralelism"
    assert "tensor-parallelism" in details["suggestions"]


def test_etag_304_round_trip(client: TestClient) -> None:
    first = client.get("/v1/terms/vllm")
    etag = first.headers["etag"]
    assert etag.startswith('"') and etag.endswith('"') and not etag.startswith("W/")
    assert first.headers["cache-control"] == "public, max-age=300"
    again = client.get("/v1/terms/vllm", headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert again.content == b""
    assert again.headers["etag"] == etag
    other = client.get("/v1/terms/vllm", headers={"If-None-Match": '"something-else"'})
    assert other.status_code == 200 and other.json() == first.json()


def test_etag_depends_on_body(client: TestClient) -> None:
    a = client.get("/v1/terms/vllm").headers["etag"]
    b = client.get("/v1/terms/sglang").headers["etag"]
    c = client.get("/v1/terms/vllm", params={"lang": "zh"}).headers["etag"]
    assert a != b
    assert client.get("/v1/terms/vllm").headers["etag"] == a
    assert isinstance(c, str)


def test_term_says_who_gave_its_labels(client: TestClient) -> None:
    """An English name no source gives (corpus/overlay.json ``english``) is marked editorial."""
    body = client.get("/v1/terms/data-parallelism").json()
    assert body["labels"] == {"en": "Data parallelism", "zh": "数据并行"}
    assert body["label_origin"] == {"en": "editorial", "zh": "source"}
    assert body["editorial_names"] == ["Data parallelism", "DP"]
    ttft = client.get("/v1/terms/time-to-first-token").json()
    assert set(ttft["label_origin"].values()) == {"source"}
    page = client.get("/v1/terms", params={"limit": 200}).json()
    assert all(set(item["label_origin"]) == set(item["labels"]) for item in page["items"])
