"""POST /v1/annotate and GET /v1/terms/{id}/card over HTTP: answers, markup, limits and errors."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

import pytest
from fastapi.testclient import TestClient

PAGE_HTML = '<h2>TTFT</h2><p title="TPOT">vLLM\'s <b>KV caches</b> &amp; <code>TTFT</code> cut TTFT.</p>'


def test_annotate_returns_spans_into_the_page(client: TestClient) -> None:
    text = "vLLM's PagedAttention keeps KV caches; 首 token 延迟 (TTFT) drops."
    resp = client.post("/v1/annotate", json={"text": text})
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["lang"] == "en" and body["format"] == "text" and body["html"] is None
    assert body["count"] == len(body["mentions"]) >= 5
    for m in body["mentions"]:
        assert text[m["start"] : m["end"]] == m["text"]
        assert m["url"] == f"/terms/{m['term_id']}"
    assert body["terms"][:3] == ["vllm", "pagedattention", "kv-cache"]
    ttft = next(m for m in body["mentions"] if m["text"] == "TTFT")
    assert ttft["match"] == "abbreviation" and ttft["definition"]["source"] == "002"


def test_annotate_html_output_keeps_the_page(client: TestClient) -> None:
    resp = client.post(
        "/v1/annotate",
        json={"text": PAGE_HTML, "format": "html", "output": "html", "base_url": "https://d.example"},
    )
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert [m["text"] for m in body["mentions"]] == ["vLLM's", "KV caches", "TTFT"]
    html = body["html"]
    assert html.startswith(
        '<h2>TTFT</h2><p title="TPOT"><a class="gkg-term" href="https://d.example/terms/vllm"'
    )
    assert "<code>TTFT</code>" in html and "&amp;" in html
    tags: list[str] = []

    class Tags(HTMLParser):
        def handle_starttag(self, tag: str, attrs: Any) -> None:
            if dict(attrs).get("class") != "gkg-term":
                tags.append(tag)

    Tags().feed(html)
    assert tags == ["h2", "p", "b", "code"]


def test_annotate_abbr_markup_and_options(client: TestClient) -> None:
    body = client.post(
        "/v1/annotate",
        json={
            "text": "## One\n\nTTFT, TTFT and TPOT.\n\n## Two\n\nTTFT.",
            "format": "markdown",
            "occurrences": "first",
            "exclude_ids": ["time-per-output-token"],
            "output": "html",
            "markup": "abbr",
            "lang": "zh",
        },
    ).json()
    assert [m["text"] for m in body["mentions"]] == ["TTFT"]
    assert body["lang"] == "zh" and body["mentions"][0]["label"] == "首 token 时间"
    assert '<abbr class="gkg-term" data-term="time-to-first-token" title="首 token 时间: ' in body["html"]


@pytest.mark.parametrize(
    "body",
    [
        {"text": "x", "format": "pdf"},
        {"text": "x", "output": "pdf"},
        {"text": "x", "markup": "span"},
        {"text": "x", "lang": "fr"},
        {"text": "x", "occurrences": "some"},
        {"text": "x", "url_template": "/terms/"},
        {"text": "x", "url_template": "{base}/{id}/{oops}"},
        {"text": "x", "include_ids": [""]},
        {"text": "x", "include_ids": ["a"] * 201},
        {"text": "x", "base_url": "b" * 501},
        {"text": "x", "unknown": 1},
        {"format": "text"},
        {"text": 3},
        [],
    ],
)
def test_annotate_bad_requests_get_422(client: TestClient, assert_error: Any, body: Any) -> None:
    details = assert_error(client.post("/v1/annotate", json=body), 422, "invalid_request")
    assert details["errors"]


def test_annotate_bad_json_and_methods(client: TestClient, assert_error: Any) -> None:
    assert_error(
        client.post("/v1/annotate", content=b"{not json", headers={"content-type": "application/json"}),
        422,
        "invalid_request",
    )
    assert_error(
        client.post("/v1/annotate", content=b"\xff\xfe", headers={"content-type": "application/json"}),
        422,
        "invalid_request",
    )
    assert_error(
        client.post("/v1/annotate", content=b'{"text": NaN}', headers={"content-type": "application/json"}),
        422,
        "invalid_request",
    )
    assert_error(client.get("/v1/annotate"), 405, "method_not_allowed")


def test_annotate_has_its_own_body_limit(make_client: Any, assert_error: Any) -> None:
    client = make_client(max_annotate_body_bytes=200, max_body_bytes=50)
    ok = client.post("/v1/annotate", json={"text": "TTFT " * 20})  # over the general limit, under its own
    assert ok.status_code == 200 and ok.json()["count"] == 20
    details = assert_error(client.post("/v1/annotate", json={"text": "TTFT " * 60}), 413, "payload_too_large")
    assert details["max_body_bytes"] == 200
    assert_error(client.post("/v1/ask", json={"question": "TTFT " * 20}), 413, "payload_too_large")


def test_annotate_without_a_glossary_is_503(make_client: Any, assert_error: Any) -> None:
    client = make_client(glossary=None, engine=None)
    assert_error(client.post("/v1/annotate", json={"text": "TTFT"}), 503, "artifact_unavailable")
    assert_error(client.get("/v1/terms/vllm/card"), 503, "artifact_unavailable")


def test_annotate_overloaded_is_503_with_retry_after(make_client: Any, assert_error: Any) -> None:
    client = make_client()
    from api.concurrency import lanes_of

    client.post("/v1/annotate", json={"text": "TTFT"})  # lanes exist now
    lane = lanes_of(client.app).annotate  # type: ignore[arg-type]
    lane.inflight = lane.slots + (lane.queue or 0)  # as if full
    try:
        resp = client.post("/v1/annotate", json={"text": "TTFT"})
    finally:
        lane.inflight = 0
    details = assert_error(resp, 503, "overloaded")
    assert details["lane"] == "annotate" and int(resp.headers["retry-after"]) >= 1


def test_card_json_is_bilingual_with_the_confusables(client: TestClient) -> None:
    resp = client.get("/v1/terms/time-to-first-token/card", params={"lang": "zh"})
    assert resp.status_code == 200 and resp.headers["etag"]
    card = resp.json()
    assert card["label"] == "首 token 时间" and card["labels"]["en"] == "Time To First Token"
    assert card["definition"]["lang"] == "zh" and card["definition"]["source"] == "002"
    assert card["confused_with_heading"] == "易混淆 / often confused with"
    assert "time-per-output-token" in {c["id"] for c in card["confused_with"]}
    en = client.get("/v1/terms/time-to-first-token/card").json()
    assert en["lang"] == "en" and en["label"] == "Time To First Token"
    again = client.get(
        "/v1/terms/time-to-first-token/card",
        headers={"if-none-match": resp.headers["etag"]},
        params={"lang": "zh"},
    )
    assert again.status_code == 304


def test_card_html_fragment(client: TestClient) -> None:
    resp = client.get(
        "/v1/terms/time-to-first-token/card",
        params={"lang": "zh", "format": "html", "base_url": "https://d.example"},
    )
    assert resp.status_code == 200 and resp.headers["content-type"] == "text/html; charset=utf-8"
    assert resp.text.startswith('<div class="gkg-card" lang="zh" data-term="time-to-first-token">')
    assert (
        "易混淆 / often confused with" in resp.text
        and 'href="https://d.example/terms/time-per-output-token"' in resp.text
    )


def test_card_errors(client: TestClient, assert_error: Any) -> None:
    details = assert_error(client.get("/v1/terms/time-to-first-tokn/card"), 404, "term_not_found")
    assert "time-to-first-token" in details["suggestions"]
    assert_error(client.get("/v1/terms/vllm/card", params={"lang": "fr"}), 422, "invalid_request")
    assert_error(client.get("/v1/terms/vllm/card", params={"format": "xml"}), 422, "invalid_request")
    assert_error(client.get("/v1/terms/vllm/card", params={"base_url": "x" * 501}), 422, "invalid_request")
