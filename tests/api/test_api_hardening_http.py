"""Hardening of the HTTP layer (issue 10, parts 2 and 5).

No input gives a 500: bodies with non-finite numbers (``NaN``, ``Infinity``: Python's JSON
parser accepts them) or lone surrogates (``"\\ud800"``) are refused with 422 in the one error
body before any route runs; the CORS preflight's refusal uses that body too; after any error the
keep-alive connection stays usable; ``HEAD`` works wherever ``GET`` does; ``offset`` has one cap.

HTTP hygiene: no trailing-slash redirect (whose ``Location`` came from the ``Host`` header),
security headers on every response, conditional GETs of ``/v1/export`` answered without
rendering, rendered exports cached per artifact version (bounded).
"""

from __future__ import annotations

import http.client
import json
import math
import re
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from api.app import create_app
from api.errors import error_response
from api.routes.web import STATIC_DIR
from api.schemas.common import MAX_OFFSET
from api.settings import Settings
from kg.search.engine import SearchEngine
from kg.store import Glossary
from tests.api.live_server import serve

AssertError = Callable[[Any, int, str], dict[str, Any]]
MakeClient = Callable[..., TestClient]
JSON = {"Content-Type": "application/json"}


# --- 2. no 500s on any input -----------------------------------------------------------------

NON_FINITE_BODIES = [
    ("/v1/ask", b'{"question": NaN}', ["body", "question"]),
    ("/v1/ask", b'{"question": Infinity}', ["body", "question"]),
    ("/v1/chat", b'{"message": Infinity}', ["body", "message"]),
    ("/v1/chat", b'{"message": -Infinity}', ["body", "message"]),
    ("/v1/chat", b'{"message": "hi", "session_id": NaN}', ["body", "session_id"]),
    # extra fields are allowed here: the value never reaches validation, it must still be refused
    (
        "/v1/chat/completions",
        b'{"messages": [{"role": "user", "content": "hi"}], "temperature": NaN}',
        ["body", "temperature"],
    ),
    (
        "/v1/chat/completions",
        b'{"messages": [{"role": "user", "content": [{"type": "text", "text": Infinity}]}]}',
        ["body", "messages", 0, "content", 0, "text"],
    ),
]


@pytest.mark.parametrize(("path", "body", "loc"), NON_FINITE_BODIES)
def test_non_finite_numbers_are_422(
    client: TestClient, assert_error: AssertError, path: str, body: bytes, loc: list[Any]
) -> None:
    details = assert_error(client.post(path, content=body, headers=JSON), 422, "invalid_request")
    assert details["errors"][0]["type"] == "json_non_finite_number"
    assert details["errors"][0]["loc"] == loc


SURROGATE_BODIES = [
    ("/v1/ask", b'{"question": "\\ud800"}', ["body", "question"]),
    ("/v1/ask", b'{"question": "what is \\udfff TTFT"}', ["body", "question"]),
    ("/v1/ask", b'{"question": "ok", "extra": "\\ud800"}', ["body", "extra"]),  # was echoed by the 422
    ("/v1/ask", b'{"question": "ok", "\\ud800": 1}', ["body", "\\ud800"]),  # in a key
    ("/v1/chat", b'{"message": "\\ud800"}', ["body", "message"]),
    ("/v1/chat", b'{"message": "hi", "session_id": "\\udc00abc"}', ["body", "session_id"]),
    ("/v1/chat/completions", b'{"messages": [{"role": "user", "content": "\\udc00 what"}]}',
     ["body", "messages", 0, "content"]),
    (
        "/v1/chat/completions",
        b'{"messages": [{"role": "user", "content": [{"type": "text", "text": "\\ud83d"}]}]}',
        ["body", "messages", 0, "content", 0, "text"],
    ),
    ("/v1/chat/completions", b'{"model": "\\ud800", "messages": [{"role": "user", "content": "hi"}]}',
     ["body", "model"]),
]  # fmt: skip


@pytest.mark.parametrize(("path", "body", "loc"), SURROGATE_BODIES)
def test_lone_surrogates_are_422(
    client: TestClient, assert_error: AssertError, path: str, body: bytes, loc: list[Any]
) -> None:
    resp = client.post(path, content=body, headers=JSON)
    details = assert_error(resp, 422, "invalid_request")
    assert details["errors"][0]["type"] == "json_lone_surrogate"
    assert details["errors"][0]["loc"] == loc
    resp.content.decode("utf-8")  # the error body itself is valid UTF-8


def test_the_guard_reads_json_as_fastapi_does(client: TestClient, assert_error: AssertError) -> None:
    """Bodies FastAPI parses as JSON (``application/json``, ``application/*+json``) are checked;
    others are not JSON to the API (FastAPI's own 422), and `NaN` inside a string is text."""
    no_type = client.post("/v1/ask", content=b'{"question": NaN}')
    assert_error(no_type, 422, "invalid_request")
    vendor = client.post(
        "/v1/ask", content=b'{"question": "\\ud800"}', headers={"Content-Type": "application/vnd.x+json"}
    )
    assert_error(vendor, 422, "invalid_request")
    assert vendor.json()["error"]["details"]["errors"][0]["type"] == "json_lone_surrogate"
    text = client.post("/v1/ask", content=b'{"question": NaN}', headers={"Content-Type": "text/plain"})
    assert_error(text, 422, "invalid_request")  # FastAPI's own 422: the model got no JSON object
    for question in ("NaN", "Infinity", "-Infinity", "\\\\ud800"):  # strings, and an escaped backslash
        body = ('{"question": "what is ' + question + '"}').encode()
        assert client.post("/v1/ask", content=body, headers=JSON).status_code == 200


def test_surrogate_pairs_and_unicode_are_accepted(client: TestClient) -> None:
    for text in ("\\ud83d\\ude00 什么是 TTFT？", "什么是 KV cache？ \U0001f600", "\\u0000ttft"):
        resp = client.post("/v1/ask", content=('{"question": "' + text + '"}').encode(), headers=JSON)
        assert resp.status_code == 200, resp.text
        resp = client.post("/v1/chat", content=('{"message": "' + text + '"}').encode(), headers=JSON)
        assert resp.status_code == 200, resp.text


def test_error_body_always_encodes() -> None:
    """Defence in depth: whatever a handler puts in ``details`` is turned into valid JSON."""
    resp = error_response(
        422, "invalid_request", "x", {"input": [math.nan, math.inf, -math.inf, "a\ud800b", {"\udfff": 1}]}
    )
    body = json.loads(bytes(resp.body).decode("utf-8"))  # strict UTF-8, standard JSON
    value = body["error"]["details"]["input"]
    assert value[:3] == ["NaN", "Infinity", "-Infinity"]
    assert "\ud800" not in value[3] and value[3].startswith("a") and value[3].endswith("b")
    assert "\udfff" not in json.dumps(value[4])


def test_cors_preflight_refusal_uses_the_error_body(
    make_client: MakeClient, assert_error: AssertError
) -> None:
    client = make_client(cors_origins=["https://ok.example"])
    bad_method = client.options(
        "/v1/terms", headers={"Origin": "https://ok.example", "Access-Control-Request-Method": "DELETE"}
    )
    details = assert_error(bad_method, 400, "cors_preflight_rejected")
    assert details["failures"] == ["method"]
    assert "access-control-allow-methods" in bad_method.headers  # what is allowed, as before
    bad_origin = client.options(
        "/v1/terms", headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "GET"}
    )
    assert assert_error(bad_origin, 400, "cors_preflight_rejected")["failures"] == ["origin"]
    ok = client.options(
        "/v1/terms", headers={"Origin": "https://ok.example", "Access-Control-Request-Method": "GET"}
    )
    assert ok.status_code == 200


# Query parameters for the GET routes that require some (a new route must be added here).
ROUTE_QUERIES: dict[str, dict[str, str]] = {
    "/v1/lookup": {"label": "ttft"},
    "/v1/search": {"q": "kv cache"},
    "/v1/suggest": {"q": "kv"},
    "/v1/graph/path": {"from": "vllm", "to": "sglang"},
    "/v1/graph/subgraph": {"ids": "vllm,sglang"},
    "/v1/compare": {"a": "vllm", "b": "sglang"},
    "/v1/export": {"format": "csv"},
}
PATH_PARAMS = {"term_id": "vllm", "name": "app.js"}


def _routes(routes: list[Any], prefix: str = "") -> Iterator[tuple[str, set[str]]]:
    """(path, methods) of every route, included routers expanded (FastAPI keeps them nested)."""
    for route in routes:
        if hasattr(route, "original_router"):
            context_prefix = getattr(getattr(route, "include_context", None), "prefix", "") or ""
            yield from _routes(route.original_router.routes, prefix + context_prefix)
        elif isinstance(route, APIRoute | Route):
            yield prefix + route.path, set(route.methods or ())


def _get_routes(client: TestClient) -> Iterator[tuple[str, dict[str, str]]]:
    for template, methods in _routes(client.app.routes):  # type: ignore[attr-defined]
        if "GET" not in methods:
            continue
        names = re.findall(r"{(\w+)(?::\w+)?}", template)
        assert set(names) <= set(PATH_PARAMS), f"add a sample value for {names} of {template}"
        path = template
        for name in names:
            path = re.sub(r"{" + name + r"(:\w+)?}", PATH_PARAMS[name], path)
        yield path, ROUTE_QUERIES.get(template, {})


def test_head_works_wherever_get_does(client: TestClient) -> None:
    seen = 0
    for path, params in _get_routes(client):
        get, again = client.get(path, params=params), client.get(path, params=params)
        head = client.head(path, params=params)
        assert get.status_code == 200, (path, get.text[:300])
        assert head.status_code == 200, (path, head.text[:300])
        assert head.content == b"", path
        # the same headers as a GET (but those that differ between two GETs: /v1/search's timing)
        varying = {k for k in get.headers if get.headers[k] != again.headers.get(k)}
        if b'"took_ms"' in get.content:  # a timing in the body: its length may differ by a digit
            varying.add("content-length")
        assert set(head.headers) == set(get.headers), path
        assert {k: v for k, v in head.headers.items() if k not in varying} == {
            k: v for k, v in get.headers.items() if k not in varying
        }, path
        seen += 1
    assert seen >= 20


def test_head_is_refused_where_get_is(client: TestClient) -> None:
    """A HEAD answer has no body: the status and headers are those of the error."""
    post_only = client.head("/v1/ask")
    assert post_only.status_code == 405 and post_only.content == b""
    assert post_only.headers["allow"] == "POST"
    assert post_only.headers["content-type"] == "application/json"
    assert client.head("/v1/nope").status_code == 404
    assert client.head("/v1/terms/no-such-term").status_code == 404
    assert client.head("/v1/terms", params={"limit": 0}).status_code == 422
    get_only = client.post("/v1/terms")
    assert get_only.status_code == 405 and get_only.headers["allow"] == "GET, HEAD"


def test_offset_has_one_cap_everywhere(client: TestClient, assert_error: AssertError) -> None:
    spec = client.get("/openapi.json").json()
    offsets = [
        (path, param)
        for path, item in spec["paths"].items()
        for op in item.values()
        for param in op.get("parameters", [])
        if param["name"] == "offset"
    ]
    assert {p for p, _ in offsets} >= {"/v1/terms", "/v1/search"}
    for path, param in offsets:
        assert param["schema"].get("maximum") == MAX_OFFSET, path
        assert param["schema"].get("minimum") == 0, path
    assert client.get("/v1/terms", params={"offset": MAX_OFFSET}).status_code == 200
    details = assert_error(client.get("/v1/terms", params={"offset": MAX_OFFSET + 1}), 422, "invalid_request")
    assert details["errors"][0]["loc"] == ["query", "offset"]


# --- keep-alive after errors (a real server) ---------------------------------------------------


def test_keep_alive_connection_survives_every_error(
    glossary: Glossary, engine: SearchEngine, tmp_path: Any
) -> None:
    app = create_app(
        Settings(artifact_dir=tmp_path / "none", sessions="memory", max_body_bytes=1000),
        glossary=glossary,
        engine=engine,
    )

    async def boom(request: Request) -> PlainTextResponse:
        raise RuntimeError("an unexpected failure")

    app.add_route("/boom", boom)
    big = b'{"question": "' + b"x" * 5000 + b'"}'
    cases: list[tuple[str, str, bytes | None, dict[str, str], int]] = [
        ("POST", "/v1/ask", b'{"question": NaN}', JSON, 422),
        ("POST", "/v1/chat", b'{"message": "\\ud800"}', JSON, 422),
        ("POST", "/v1/chat", b'{"message": Infinity}', JSON, 422),
        ("POST", "/v1/ask", b'{"question": ', JSON, 422),
        ("POST", "/v1/ask", b'{"question": "\xff"}', JSON, 422),
        ("POST", "/v1/ask", big, JSON, 413),  # refused by its Content-Length, body still sent
        ("GET", "/v1/nope", None, {}, 404),
        ("DELETE", "/v1/terms/vllm", None, {}, 405),
        ("GET", "/v1/terms/no-such-term", None, {}, 404),
        ("GET", "/v1/terms", None, {}, 200),
        ("GET", "/v1/terms?limit=0", None, {}, 422),
        ("HEAD", "/v1/terms/vllm", None, {}, 200),
        ("GET", "/boom", None, {}, 500),
        ("GET", "/healthz", None, {}, 200),
    ]
    with serve(app) as url:
        parts = urlsplit(url)
        conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=10)
        try:
            conn.connect()
            sock = conn.sock
            for method, path, body, headers, status in cases:
                conn.request(method, path, body=body, headers=headers)
                resp = conn.getresponse()
                data = resp.read()
                assert resp.status == status, (method, path, data[:200])
                assert resp.getheader("connection") != "close", (method, path)
                assert conn.sock is sock, f"the connection was closed after {method} {path}"
                if status >= 400 and method != "HEAD":
                    assert set(json.loads(data)) == {"error"}, (method, path)
        finally:
            conn.close()


# --- 5. HTTP hygiene ---------------------------------------------------------------------------


def test_no_trailing_slash_redirect_to_the_host_header(client: TestClient, assert_error: AssertError) -> None:
    resp = client.get("/v1/terms/", headers={"Host": "evil.example"}, follow_redirects=False)
    assert "location" not in resp.headers
    assert_error(resp, 404, "not_found")
    for path, params in _get_routes(client):  # no route answers with a redirect, with or without "/"
        for variant in (path, path.rstrip("/") + "/"):
            r = client.get(variant, params=params, headers={"Host": "evil.example"}, follow_redirects=False)
            assert not 300 <= r.status_code < 400 and "location" not in r.headers, variant


SECURITY_HEADERS = {"x-content-type-options": "nosniff", "x-frame-options": "DENY"}


def _csp(resp: Any) -> dict[str, list[str]]:
    directives: dict[str, list[str]] = {}
    for part in resp.headers["content-security-policy"].split(";"):
        if part.strip():
            name, *values = part.split()
            directives[name] = values
    return directives


def test_security_headers_on_page_api_and_errors(make_client: MakeClient) -> None:
    client = make_client(max_body_bytes=100)
    responses = {
        "page": client.get("/"),
        "script": client.get("/static/app.js"),
        "api": client.get("/v1/terms/vllm"),
        "not modified": client.get("/v1/terms/vllm", headers={"If-None-Match": "*"}),
        "not found": client.get("/v1/nope"),
        "validation": client.get("/v1/terms", params={"limit": 0}),
        "guard": client.post("/v1/ask", content=b'{"question": NaN}', headers=JSON),
        "too large": client.post("/v1/ask", content=b"x" * 101, headers=JSON),
        "preflight": client.options(
            "/v1/terms", headers={"Origin": "https://x.example", "Access-Control-Request-Method": "PUT"}
        ),
        "head": client.head("/v1/stats"),
    }
    for name, resp in responses.items():
        for header, value in SECURITY_HEADERS.items():
            assert resp.headers.get(header) == value, (name, header)
        csp = _csp(resp)
        assert csp["frame-ancestors"] == ["'none'"], name
        assert csp["object-src"] == ["'none'"], name


def test_page_csp_fits_the_page_without_inline_code(client: TestClient) -> None:
    csp = _csp(client.get("/"))
    assert csp["default-src"] == ["'self'"]
    assert csp["script-src"] == ["'self'"] and csp["style-src"] == ["'self'"]
    assert csp["connect-src"] == ["'self'"]
    assert csp["base-uri"] == ["'none'"] and csp["form-action"] == ["'self'"]
    html = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    # every <script> has a src and no content; no <style> element, style attribute or on* handler
    for attrs, content in re.findall(r"<script\b([^>]*)>(.*?)</script>", html, re.S):
        assert "src=" in attrs and not content.strip()
    assert not re.search(r"<style\b|\sstyle=|\son[a-z]+=|javascript:", html, re.I)
    js = (STATIC_DIR / "app.js").read_text(encoding="utf-8")
    assert not re.search(r"\beval\(|new Function\(|\.style\.cssText|setAttribute\(\s*[\"']style", js)


def test_docs_pages_keep_working_under_their_own_csp(client: TestClient) -> None:
    """FastAPI's /docs loads Swagger UI from its CDN with an inline script: it gets its own policy."""
    docs = client.get("/docs")
    assert docs.status_code == 200
    csp = _csp(docs)
    assert "https://cdn.jsdelivr.net" in csp["script-src"] and csp["frame-ancestors"] == ["'none'"]
    assert "https://cdn.jsdelivr.net" not in client.get("/").headers["content-security-policy"]


@pytest.fixture
def renders(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every call of the exporter, by format."""
    import kg.export

    calls: list[str] = []
    real = kg.export.export

    def counting(doc: Any, fmt: str) -> Any:
        calls.append(fmt)
        return real(doc, fmt)

    monkeypatch.setattr(kg.export, "export", counting)
    return calls


def test_export_304_is_answered_without_rendering(make_client: MakeClient, renders: list[str]) -> None:
    first = make_client().get("/v1/export", params={"format": "skos-turtle"})
    assert first.status_code == 200 and renders == ["skos-turtle"]
    etag = first.headers["etag"]
    fresh = make_client()  # another worker: nothing rendered or cached there yet
    again = fresh.get("/v1/export", params={"format": "skos-turtle"}, headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["etag"] == etag and again.headers["cache-control"] == "public, max-age=300"
    assert renders == ["skos-turtle"]  # the 304 rendered nothing
    weak = fresh.get("/v1/export", params={"format": "skos-turtle"}, headers={"If-None-Match": f"W/{etag}"})
    assert weak.status_code == 304 and renders == ["skos-turtle"]
    other = fresh.get("/v1/export", params={"format": "csv"}, headers={"If-None-Match": etag})
    assert other.status_code == 200 and other.headers["etag"] != etag  # the format is part of the tag


def test_export_etag_follows_the_artifact_version(
    make_client: MakeClient, graph_doc: dict[str, Any], renders: list[str]
) -> None:
    a = make_client().get("/v1/export", params={"format": "json"}).headers["etag"]
    assert make_client().get("/v1/export", params={"format": "json"}).headers["etag"] == a  # stable
    changed = json.loads(json.dumps(graph_doc))
    changed["nodes"][0]["labels"]["en"] = "Renamed"
    other = make_client(glossary=Glossary(changed), engine=None).get("/v1/export", params={"format": "json"})
    assert other.status_code == 200 and other.headers["etag"] != a and "Renamed" in other.text


def test_rendered_exports_are_cached_and_bounded(make_client: MakeClient, renders: list[str]) -> None:
    client = make_client()
    bodies = [client.get("/v1/export", params={"format": f}).content for f in ("tbx", "tbx", "csv", "tbx")]
    assert renders == ["tbx", "csv"]  # each format rendered once per artifact version
    assert bodies[0] == bodies[1] == bodies[3]
    renders.clear()
    small = make_client(export_cache_size=1)
    for f in ("tbx", "csv", "tbx"):
        assert small.get("/v1/export", params={"format": f}).status_code == 200
    assert renders == ["tbx", "csv", "tbx"]  # one entry kept: csv evicted tbx
    renders.clear()
    none = make_client(export_cache_size=0)
    for _ in range(2):
        none.get("/v1/export", params={"format": "csv"})
    assert renders == ["csv", "csv"]
