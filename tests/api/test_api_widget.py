"""The drop-in widget over HTTP: GET /widget.js and /widget.css, and the CORS that lets a page of
another origin annotate through POST /v1/annotate (and nothing else by POST).
(In a browser, from a second origin: tests/docs_tools/test_widget_browser.py.)"""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from kg.docs_integrations.assets import asset_text

PAGE = "https://docs.example"


def preflight(client: TestClient, path: str, origin: str, method: str = "POST") -> Any:
    return client.options(
        path,
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": method,
            "Access-Control-Request-Headers": "content-type",
        },
    )


def test_widget_script_and_stylesheet(client: TestClient) -> None:
    js = client.get("/widget.js")
    assert js.status_code == 200
    assert js.headers["content-type"] == "text/javascript; charset=utf-8"
    assert js.headers["x-content-type-options"] == "nosniff"  # served as script, so browsers run it
    # the tooltip first, then the widget that drives it: one file, no dependencies
    assert js.text == asset_text("gkg-tooltip.js") + "\n" + asset_text("gkg-widget.js")
    assert "/v1/annotate" in js.text and "import " not in js.text
    again = client.get("/widget.js", headers={"If-None-Match": js.headers["etag"]})
    assert again.status_code == 304
    css = client.get("/widget.css")
    assert css.status_code == 200 and css.headers["content-type"] == "text/css; charset=utf-8"
    assert ".gkg-tip" in css.text
    assert client.head("/widget.js").status_code == 200


def test_any_origin_may_annotate_by_default(client: TestClient) -> None:
    pre = preflight(client, "/v1/annotate", PAGE)
    assert pre.status_code == 200
    assert "POST" in pre.headers["access-control-allow-methods"]
    resp = client.post("/v1/annotate", json={"text": "TTFT"}, headers={"Origin": PAGE})
    assert resp.status_code == 200 and resp.headers["access-control-allow-origin"] == "*"
    assert resp.json()["terms"] == ["time-to-first-token"]
    card = client.get("/v1/terms/time-to-first-token/card?lang=zh", headers={"Origin": PAGE})
    assert card.headers["access-control-allow-origin"] == "*"


def test_post_is_allowed_only_on_the_listed_paths(client: TestClient, assert_error: Any) -> None:
    for path in ("/v1/chat", "/v1/ask", "/v1/search"):
        details = assert_error(preflight(client, path, PAGE), 400, "cors_preflight_rejected")
        assert details["failures"] == ["method"] and details["allowed_methods"] == ["GET", "HEAD"]
    assert preflight(client, "/v1/search", PAGE, "GET").status_code == 200


def test_configured_origins_and_paths(make_client: Any, assert_error: Any) -> None:
    client = make_client(cors_origins=[PAGE], cors_post_paths=["/v1/annotate", "/v1/chat"])
    ok = preflight(client, "/v1/annotate", PAGE)
    assert ok.status_code == 200 and ok.headers["access-control-allow-origin"] == PAGE
    assert preflight(client, "/v1/chat", PAGE).status_code == 200
    refused = assert_error(
        preflight(client, "/v1/annotate", "https://evil.example"), 400, "cors_preflight_rejected"
    )
    assert refused["failures"] == ["origin"]
    resp = client.post("/v1/annotate", json={"text": "TTFT"}, headers={"Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in resp.headers  # the browser keeps the answer from the page
