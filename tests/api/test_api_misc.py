"""Compare, stats, export, and the HTTP plumbing (errors, gzip, CORS, body limit)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import PlainTextResponse

from api.app import create_app
from api.settings import Settings


def test_compare_vllm_sglang(client: TestClient) -> None:
    body = client.get("/v1/compare", params={"a": "vllm", "b": "sglang"}).json()
    assert body["a"]["id"] == "vllm" and body["b"]["id"] == "sglang"
    assert body["a"]["definitions"] and body["b"]["definitions"]
    assert body["differences"]
    assert any("SGLang" in d["evidence"] and "vLLM" in d["evidence"] for d in body["differences"])
    assert all(d["doc"] and d["line"] > 0 for d in body["differences"])
    assert any(e["type"] == "confused_with" for e in body["direct_edges"])
    assert all(t["id"] not in ("vllm", "sglang") for t in body["shared_neighbors"])


def test_compare_by_names(client: TestClient) -> None:
    body = client.get("/v1/compare", params={"a": "TTFT", "b": "張量並行"}).json()
    assert body["a"]["id"] == "time-to-first-token"
    assert body["b"]["id"] == "tensor-parallelism"


def test_compare_unknown(client: TestClient, assert_error: Any) -> None:
    details = assert_error(
        client.get("/v1/compare", params={"a": "vllm", "b": "sglangx"}), 404, "term_not_found"
    )
    assert "sglang" in details["suggestions"]


def test_stats(client: TestClient, graph_doc: dict[str, Any]) -> None:
    body = client.get("/v1/stats").json()
    assert body["terms"] == len(graph_doc["nodes"])
    assert body["edges"] == len(graph_doc["edges"])
    assert set(body["terms_by_source"]) == {s["id"] for s in graph_doc["sources"]}
    assert set(body["terms_by_category"]) == {c["id"] for c in graph_doc["categories"]}
    assert sum(body["edges_by_type"].values()) == len(graph_doc["edges"])
    assert set(body["edges_by_type"]) == {"related_to", "confused_with"}
    assert sum(body["edges_by_source"].values()) == len(graph_doc["edges"])


def test_export_json_etag(client: TestClient, graph_doc: dict[str, Any]) -> None:
    resp = client.get("/v1/export", params={"format": "json"})
    assert resp.status_code == 200
    assert resp.headers["content-type"].startswith("application/json")
    assert {n["id"] for n in resp.json()["nodes"]} == {n["id"] for n in graph_doc["nodes"]}
    assert resp.headers["cache-control"] == "public, max-age=300"
    again = client.get(
        "/v1/export", params={"format": "json"}, headers={"If-None-Match": resp.headers["etag"]}
    )
    assert again.status_code == 304


@pytest.mark.parametrize(
    ("fmt", "media", "needle"),
    [
        ("csv", "text/csv", "time-to-first-token"),
        ("markdown", "text/markdown", "vLLM"),
        ("tbx", "application/x-tbx+xml", "<tbx"),
        ("skos-turtle", "text/turtle", "skos:"),
        ("jsonld", "application/ld+json", "@context"),
        ("mkdocs-abbr", "text/markdown", "*[TTFT]: "),
        ("docusaurus", "application/json", '"relatedTerms"'),
    ],
)
def test_export_formats(client: TestClient, fmt: str, media: str, needle: str) -> None:
    resp = client.get("/v1/export", params={"format": fmt})
    assert resp.status_code == 200, resp.text
    assert resp.headers["content-type"].startswith(media)
    assert needle in resp.text
    assert resp.headers["etag"]


def test_export_unknown_format(client: TestClient, assert_error: Any) -> None:
    details = assert_error(client.get("/v1/export", params={"format": "xlsx"}), 422, "invalid_request")
    assert details["errors"][0]["loc"] == ["query", "format"]
    json.dumps(details)


def test_export_missing_module(client: TestClient, assert_error: Any, monkeypatch: Any) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "kg.export", None)  # import now raises ImportError
    assert_error(client.get("/v1/export", params={"format": "json"}), 503, "export_unavailable")


def test_gzip_big_response(client: TestClient) -> None:
    resp = client.get("/v1/terms", params={"limit": 200}, headers={"Accept-Encoding": "gzip"})
    assert resp.status_code == 200
    assert resp.headers["content-encoding"] == "gzip"
    assert len(resp.json()["items"]) == 200


def test_no_gzip_small_response(client: TestClient) -> None:
    resp = client.get("/healthz", headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in resp.headers


def test_cors_any_origin(client: TestClient) -> None:
    resp = client.get("/v1/stats", headers={"Origin": "https://example.org"})
    assert resp.headers["access-control-allow-origin"] == "*"


def test_cors_configured_origins(make_client: Any) -> None:
    client = make_client(cors_origins=["https://ok.example"])
    ok = client.get("/healthz", headers={"Origin": "https://ok.example"})
    assert ok.headers["access-control-allow-origin"] == "https://ok.example"
    no = client.get("/healthz", headers={"Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in no.headers
    pre = client.options(
        "/v1/terms",
        headers={"Origin": "https://ok.example", "Access-Control-Request-Method": "GET"},
    )
    assert pre.status_code == 200
    assert "GET" in pre.headers["access-control-allow-methods"]


def test_unknown_route_404(client: TestClient, assert_error: Any) -> None:
    details = assert_error(client.get("/v1/nope"), 404, "not_found")
    assert details == {"path": "/v1/nope"}


def test_wrong_method_405(client: TestClient, assert_error: Any) -> None:
    details = assert_error(client.delete("/v1/terms/vllm"), 405, "method_not_allowed")
    assert details["method"] == "DELETE"


def test_body_too_large_content_length(make_client: Any, assert_error: Any) -> None:
    client = make_client(max_body_bytes=100)
    details = assert_error(client.post("/v1/terms", content=b"x" * 101), 413, "payload_too_large")
    assert details == {"max_body_bytes": 100, "received_bytes": 101}
    # Within the limit the request reaches routing (GET-only resource → 405).
    assert client.post("/v1/terms", content=b"x" * 100).status_code == 405


def test_body_too_large_streamed(glossary: Any, assert_error: Any) -> None:
    """No route reads a body, so add one to the real app to exercise the streamed-size check."""
    app = create_app(Settings(max_body_bytes=10), glossary=glossary)

    async def echo(request: Request) -> PlainTextResponse:
        return PlainTextResponse(str(len(await request.body())))

    app.add_route("/echo", echo, methods=["POST"])
    client = TestClient(app)

    def chunks() -> Any:
        yield b"12345"
        yield b"67890"
        yield b"X"

    resp = client.post("/echo", content=chunks())
    assert "content-length" not in resp.request.headers
    details = assert_error(resp, 413, "payload_too_large")
    assert details == {"max_body_bytes": 10, "received_bytes": 11}
    ok = client.post("/echo", content=iter([b"12345", b"67890"]))
    assert ok.status_code == 200 and ok.text == "10"


def test_unexpected_error_500(glossary: Any, assert_error: Any) -> None:
    app = create_app(Settings(), glossary=glossary)

    async def boom(request: Request) -> PlainTextResponse:
        raise RuntimeError("secret internals")

    app.add_route("/boom", boom)
    client = TestClient(app, raise_server_exceptions=False)
    details = assert_error(client.get("/boom"), 500, "internal_error")
    assert details == {}
    assert "secret" not in client.get("/boom").text


class EchoBody(BaseModel):
    text: str


def test_undecodable_json_body_is_422(glossary: Any, assert_error: Any) -> None:
    """FastAPI says 400 for a body that is not UTF-8; the API documents 422 for any invalid body."""
    app = create_app(Settings(), glossary=glossary)

    @app.post("/echo-json")
    def echo(body: EchoBody) -> dict[str, str]:
        return {"text": body.text}

    client = TestClient(app)
    headers = {"Content-Type": "application/json"}
    details = assert_error(
        client.post("/echo-json", content=b'{"text": "\xff"}', headers=headers), 422, "invalid_request"
    )
    assert details["errors"][0]["type"] == "body_unparsable"
    syntax = assert_error(
        client.post("/echo-json", content=b'{"text": ', headers=headers), 422, "invalid_request"
    )
    assert syntax["errors"][0]["type"] == "json_invalid"
    assert client.post("/echo-json", json={"text": "ok"}).json() == {"text": "ok"}
