"""Former term ids over HTTP: a 301 to the same URL with the current id on every route with a term
id in its path; former ids accepted where a term id is a query parameter; unknown ids still 404."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from kg.ids import legacy_hash_id
from kg.store import Glossary

FORMER = legacy_hash_id("数据并行")  # the id the build gave 数据并行 before pinyin ids
CURRENT = "data-parallelism"  # and, since its English name, no longer shuju-bingxing


def _term_routes(client: TestClient) -> list[str]:
    """Every GET path of the API with a ``{term_id}`` in it (from its OpenAPI, so new routes count)."""
    paths = client.get("/openapi.json").json()["paths"]
    return sorted(p for p, ops in paths.items() if "{term_id}" in p and "get" in ops)


def test_the_former_id_is_in_the_alias_table(glossary: Glossary) -> None:
    assert glossary.moved_to(FORMER) == CURRENT


def test_every_term_route_redirects_a_former_id(client: TestClient) -> None:
    routes = _term_routes(client)
    assert len(routes) >= 5  # the term, related, confused-with, neighbors, layout
    for route in routes:
        old, new = route.replace("{term_id}", FORMER), route.replace("{term_id}", CURRENT)
        resp = client.get(old, params={"lang": "zh"}, follow_redirects=False)
        assert resp.status_code == 301, (route, resp.text)
        assert resp.headers["location"] == f"{new}?lang=zh"
        assert resp.json()["error"]["code"] == "term_moved"
        assert resp.json()["error"]["details"] == {"id": FORMER, "current_id": CURRENT}
        followed = client.get(old, params={"lang": "zh"})
        assert followed.status_code == 200
        assert followed.json() == client.get(new, params={"lang": "zh"}).json()


def test_the_redirect_keeps_the_query_string_as_sent(client: TestClient) -> None:
    query = "depth=2&types=related_to%2Cconfused_with&lang=en"
    resp = client.get(f"/v1/terms/{FORMER}/neighbors?{query}", follow_redirects=False)
    assert resp.status_code == 301
    assert resp.headers["location"] == f"/v1/terms/{CURRENT}/neighbors?{query}"
    head = client.head(f"/v1/terms/{FORMER}", follow_redirects=False)
    assert head.status_code == 301 and head.headers["location"] == f"/v1/terms/{CURRENT}"


def test_unknown_ids_still_get_the_404_error(client: TestClient, assert_error: Any) -> None:
    for route in _term_routes(client):
        details = assert_error(client.get(route.replace("{term_id}", "zh-0000000000")), 404, "term_not_found")
        assert details["query"] == "zh-0000000000"


def test_current_ids_are_never_redirected(graph_doc: dict[str, Any], make_client: Any) -> None:
    doc = {**graph_doc, "id_aliases": {**graph_doc["id_aliases"], "vllm": "sglang"}}  # a bad table
    client = make_client(glossary=Glossary(doc))
    resp = client.get("/v1/terms/vllm", follow_redirects=False)
    assert resp.status_code == 200 and resp.json()["id"] == "vllm"


@pytest.mark.parametrize(
    ("path", "params"),
    [
        ("/v1/compare", {"a": FORMER, "b": "tensor-parallelism"}),
        ("/v1/graph/path", {"from": FORMER, "to": "数据并行"}),  # the same term: length 0
        ("/v1/graph/subgraph", {"ids": f"{FORMER},tensor-parallelism"}),
    ],
)
def test_former_ids_in_query_parameters_are_resolved(
    client: TestClient, path: str, params: dict[str, str]
) -> None:
    resp = client.get(path, params=params)
    assert resp.status_code == 200, resp.text
    assert CURRENT in resp.text and FORMER not in resp.text
