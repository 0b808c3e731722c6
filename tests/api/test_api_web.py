"""The web page (served offline, no CDN) and the layout endpoint it draws from."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

AssertError = Callable[[Any, int, str], dict[str, Any]]


def test_page_and_assets(client: TestClient, assert_error: AssertError) -> None:
    r = client.get("/")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    html = r.text
    assert 'src="/static/app.js"' in html and 'href="/static/app.css"' in html
    assert 'id="search"' in html and 'id="chat-form"' in html
    for name, kind in (("app.js", "javascript"), ("app.css", "css"), ("favicon.svg", "svg")):
        asset = client.get(f"/static/{name}")
        assert asset.status_code == 200 and kind in asset.headers["content-type"]
    # nothing is fetched from another origin: no CDN, works offline
    for text in (html, client.get("/static/app.js").text, client.get("/static/app.css").text):
        assert not re.search(r"(src|href)=\"(https?:)?//", text)
        assert "https://" not in text.replace("http://www.w3.org/2000/svg", "")
    js = client.get("/static/app.js").text
    for endpoint in ("/v1/suggest", "/v1/chat", "/v1/terms/", "/layout", "/v1/lookup"):
        assert endpoint in js
    assert_error(client.get("/static/../app.py"), 404, "not_found")
    assert_error(client.get("/static/secret.txt"), 404, "not_found")


def test_layout(client: TestClient, assert_error: AssertError) -> None:
    r = client.get("/v1/terms/time-to-first-token/layout", params={"limit": 8})
    assert r.status_code == 200, r.text
    assert r.headers.get("etag")
    body = r.json()
    assert body["id"] == "time-to-first-token"
    nodes = {n["id"]: n for n in body["nodes"]}
    assert len(nodes) == 9 and body["truncated"] is True
    center = nodes["time-to-first-token"]
    assert center["center"] and (center["x"], center["y"]) == (0.5, 0.5)
    assert all(0 <= n["x"] <= 1 and 0 <= n["y"] <= 1 for n in nodes.values())
    assert len({(n["x"], n["y"]) for n in nodes.values()}) == len(nodes)  # no two nodes on one spot
    assert {e["type"] for e in body["edges"]} <= {"related_to", "confused_with"}
    assert all(e["source"] in nodes and e["target"] in nodes and e["evidence"] for e in body["edges"])
    # stable across calls (seeded layout), cacheable
    again = client.get("/v1/terms/time-to-first-token/layout", params={"limit": 8})
    assert again.json() == body
    assert (
        client.get(
            "/v1/terms/time-to-first-token/layout",
            params={"limit": 8},
            headers={"if-none-match": r.headers["etag"]},
        ).status_code
        == 304
    )


def test_layout_confusables_come_first_and_errors(client: TestClient, assert_error: AssertError) -> None:
    body = client.get("/v1/terms/post-training-quantization/layout", params={"limit": 2}).json()
    assert any(e["type"] == "confused_with" for e in body["edges"])
    details = assert_error(client.get("/v1/terms/no-such-term/layout"), 404, "term_not_found")
    assert "suggestions" in details
    assert_error(client.get("/v1/terms/vllm/layout", params={"limit": 0}), 422, "invalid_request")
