"""The drop-in widget in headless Debian Chromium: a static page served from one loopback origin
(python's http.server) loads ``/widget.js`` from the API on another port; its terms get linked
through ``POST /v1/annotate``, hovering or focusing one shows its card, Escape closes it; the
same page from an origin the API does not allow is refused (CORS) and stays as it was.
Screenshots go to ``test-artifacts/`` (docs/img/widget-*.png are copies)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from api.app import create_app
from api.settings import Settings
from tests.api.live_server import serve
from tests.api.test_api_browser import ARTIFACTS
from tests.docs_tools.mkdocs_helpers import chromium_page, static_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TIP = "#gkg-tip"
PAGE = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Serving notes</title><link rel="icon" href="data:,"></head>
<body>
<main>
<h1>TTFT in a heading</h1>
<p>Long prompts raise <b>TTFT</b>; the KV cache grows in decode. TTFT again, later.</p>
<p>Inline <code>TPOT</code> and a <a href="#nowhere">TPOT link</a> stay as they are.
vLLM's PagedAttention keeps KV caches in blocks.</p>
<pre>TTFT = measure()</pre>
<p class="gkg-skip">TPOT here is opted out.</p>
<p>An emoji 😀 before TPOT: offsets count code points on the server, UTF-16 units here.</p>
<p>专家并行（EP）把 expert 分到不同卡。</p>
</main>
<script src="{api}/widget.js" data-api="{api}"></script>
</body>
</html>
"""


@pytest.fixture
def servers(tmp_path: Path, hash_artifact: Path) -> Any:
    """Two static origins for the same page (the first allowed by the API, the second not) and the API."""
    www = tmp_path / "www"
    www.mkdir()
    with static_server(www) as allowed, static_server(www) as refused:
        settings = Settings(
            artifact_dir=hash_artifact, sessions="memory", warm_up=False, cors_origins=[allowed]
        )
        with serve(create_app(settings)) as api:
            (www / "page.html").write_text(PAGE.format(api=api), encoding="utf-8")
            yield allowed, refused, api


def terms(page: Any) -> list[dict[str, str]]:
    return page.eval_on_selector_all(
        "a.gkg-term",
        """els => els.map(a => ({id: a.dataset.term, text: a.textContent, href: a.getAttribute('href'),
            lang: a.dataset.gkgLang, bad: !!a.parentElement.closest('h1, code, pre, a, .gkg-skip')}))""",
    )


def test_widget_links_terms_and_shows_cards(servers: Any, tmp_path: Path) -> None:
    allowed, _, api = servers

    def ok(url: str) -> bool:
        return url.startswith((allowed, api))

    with chromium_page(tmp_path / "profile", ok) as page:
        page.goto(f"{allowed}/page.html")
        page.wait_for_selector("html[data-gkg-widget]")
        assert page.get_attribute("html", "data-gkg-widget") == "done"
        found = terms(page)
        by_id = {t["id"]: t for t in found}
        assert len(by_id) == len(found)  # the first mention of each term only
        assert by_id["time-to-first-token"]["text"] == "TTFT"
        assert by_id["kv-cache"]["text"] == "KV cache"
        assert by_id["vllm"]["text"] == "vLLM's"
        assert by_id["expert-parallelism"]["text"] == "专家并行"
        # code, links, the heading and the opted-out paragraph skipped: TPOT is linked after the emoji
        assert by_id["time-per-output-token"]["text"] == "TPOT"
        assert page.evaluate(
            "() => document.querySelector('a.gkg-term[data-term=time-per-output-token]')"
            ".parentElement.textContent.startsWith('An emoji')"
        )
        assert not any(t["bad"] for t in found)
        assert all(t["href"] == f"{api}/#term/{t['id']}" and t["lang"] == "en" for t in found)
        assert page.inner_text("main pre") == "TTFT = measure()"  # the page's own text unchanged

        # hover: the card, from GET /v1/terms/{id}/card, with the confused-with warning
        term = page.locator('a.gkg-term[data-term="time-to-first-token"]')
        term.hover()
        page.wait_for_selector(f"{TIP} .gkg-card[data-term='time-to-first-token']", state="visible")
        card = page.locator(f"{TIP} .gkg-card")
        assert card.locator(".gkg-card-label").inner_text() == "Time To First Token"
        assert "易混淆" in card.locator(".gkg-card-confused-title").inner_text()
        other = card.locator(".gkg-card-confused li a").first
        assert other.get_attribute("href") == f"{api}/#term/{other.get_attribute('data-term')}"
        assert card.locator(".gkg-card-more a").get_attribute("href") == f"{api}/#term/time-to-first-token"
        assert term.get_attribute("aria-describedby") == "gkg-tip"
        page.screenshot(path=str(ARTIFACTS / "widget-01-hover.png"))
        page.mouse.move(5, 790)
        page.wait_for_selector(TIP, state="hidden")

        # keyboard: the term links are in the tab order; focus shows the card, Escape closes it
        first, second = found[0]["id"], found[1]["id"]  # document order
        page.keyboard.press("Tab")
        assert page.evaluate("() => document.activeElement.dataset.term") == first
        page.wait_for_selector(f"{TIP} .gkg-card[data-term='{first}']", state="visible")
        page.keyboard.press("Tab")
        assert page.evaluate("() => document.activeElement.dataset.term") == second
        page.wait_for_selector(f"{TIP} .gkg-card[data-term='{second}']", state="visible")
        assert page.evaluate("() => document.activeElement.getAttribute('aria-describedby')") == "gkg-tip"
        page.screenshot(path=str(ARTIFACTS / "widget-02-focus.png"))
        page.keyboard.press("Escape")
        page.wait_for_selector(TIP, state="hidden")
        assert page.evaluate("() => document.activeElement.getAttribute('aria-describedby')") is None
        assert page.problems == []


def test_a_disallowed_origin_is_refused(servers: Any, tmp_path: Path) -> None:
    _, refused, api = servers
    # what the browser asks first: the API says no to that origin
    pre = httpx.options(
        f"{api}/v1/annotate",
        headers={
            "Origin": refused,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type",
        },
    )
    assert pre.status_code == 400 and pre.json()["error"]["code"] == "cors_preflight_rejected"

    with chromium_page(tmp_path / "profile", lambda u: u.startswith((refused, api))) as page:
        page.goto(f"{refused}/page.html")
        page.wait_for_selector("html[data-gkg-widget]")
        assert page.get_attribute("html", "data-gkg-widget") == "error"
        assert page.locator("a.gkg-term").count() == 0  # the page stays as it was
        blocked = [p for p in page.problems if "CORS policy" in p]
        assert blocked and all(p in blocked or "Failed to load resource" in p for p in page.problems)
