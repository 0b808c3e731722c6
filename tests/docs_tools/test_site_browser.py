"""The static glossary site of the real corpus in headless Debian Chromium, opened from file://
(no server): search from the index page, a term page with its definitions, a confused-with link.

Uses the Chromium set-up of tests/api/test_api_browser.py (Playwright drives /usr/bin/chromium and
never downloads a browser). Screenshots go to ``test-artifacts/`` (gitignored).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kg.export.site import write_site
from tests.api.test_api_browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def real_site(tmp_path_factory: Any, real_doc: dict[str, Any]) -> Path:
    out = tmp_path_factory.mktemp("site") / "glossary"
    write_site(real_doc, out)
    return out


@pytest.fixture
def page(tmp_path: Path) -> Any:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is absent: install the Debian packages `chromium` and `fonts-noto-cjk`")
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(tmp_path / "profile"),
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1200, "height": 800},
            locale="zh-CN",
        )
        page = context.pages[0] if context.pages else context.new_page()
        page.problems = []  # type: ignore[attr-defined]
        page.on("console", lambda m: m.type == "error" and page.problems.append(f"console: {m.text}"))  # type: ignore[attr-defined]
        page.on("pageerror", lambda e: page.problems.append(f"pageerror: {e}"))  # type: ignore[attr-defined]
        page.on(
            "request",
            lambda r: r.url.startswith("file://") or page.problems.append(f"non-file request: {r.url}"),  # type: ignore[attr-defined]
        )
        try:
            yield page
        finally:
            context.close()


def result_ids(page: Any) -> list[str]:
    return page.eval_on_selector_all("#results a[data-term]", "els => els.map(e => e.dataset.term)")


def test_search_then_term_page_from_file_url(page: Any, real_site: Path) -> None:
    page.goto((real_site / "index.html").as_uri())
    page.wait_for_selector("#q")
    assert page.locator("section.category").count() >= 5

    # an abbreviation, a Chinese name typed without spaces, pinyin, a loose spelling
    for query, term in [
        ("TTFT", "time-to-first-token"),
        ("首token时间", "time-to-first-token"),
        ("shoutoken", "time-to-first-token"),
        ("kv-cache", "kv-cache"),
    ]:
        page.fill("#q", query)
        page.wait_for_selector(f'#results a[data-term="{term}"]', timeout=5_000)
        assert result_ids(page)[0] == term, (query, result_ids(page)[:5])
    page.fill("#q", "TTFT")
    page.wait_for_selector('#results a[data-term="time-to-first-token"]')
    page.screenshot(path=str(ARTIFACTS / "site-01-search.png"))

    page.fill("#q", "zzzz-no-such-term")
    page.wait_for_selector("#results .r-empty")

    page.fill("#q", "TTFT")
    page.wait_for_selector('#results a[data-term="time-to-first-token"]')
    page.press("#q", "Enter")  # opens the first result
    page.wait_for_url("**/terms/time-to-first-token.html")
    assert "首 token" in page.inner_text("h1")
    assert page.locator("section.defs li").count() >= 3  # one per source
    assert page.locator("section.defs .src a").count() >= 3
    confused = page.locator("section.confused a.confused-link")
    assert confused.count() >= 1
    assert "易混淆" in page.inner_text("section.confused h2")
    page.screenshot(path=str(ARTIFACTS / "site-02-term.png"), full_page=True)

    other = confused.first.get_attribute("data-term")
    confused.first.click()
    page.wait_for_url(f"**/terms/{other}.html")
    back = page.locator('section.confused a.confused-link[data-term="time-to-first-token"]')
    assert back.count() == 1  # the pair shows on both terms
    assert page.problems == []  # type: ignore[attr-defined]
