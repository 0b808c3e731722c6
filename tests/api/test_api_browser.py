"""The web page in headless Debian Chromium (driven by Playwright): autocomplete, term view with
its SVG neighbourhood, and a streamed chat answer whose cited terms link to the term view.

Needs ``/usr/bin/chromium`` (Debian packages ``chromium`` and ``fonts-noto-cjk`` for the Chinese
text in screenshots); skipped with a message when it is absent. Playwright only drives that
binary: it never downloads a browser. Screenshots go to ``test-artifacts/`` (gitignored).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from api.app import create_app
from api.settings import Settings
from kg.search.engine import SearchEngine
from kg.store import Glossary
from tests.api.live_server import serve

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture
def page(glossary: Glossary, engine: SearchEngine, tmp_path: Path) -> Any:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is absent: install the Debian packages `chromium` and `fonts-noto-cjk`")
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    app = create_app(
        Settings(artifact_dir=tmp_path / "none", sessions="memory"), glossary=glossary, engine=engine
    )
    with serve(app) as url, sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(tmp_path / "profile"),  # a fresh --user-data-dir
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1400, "height": 900},
            locale="zh-CN",
        )
        page = context.pages[0] if context.pages else context.new_page()
        page.base_url = url  # type: ignore[attr-defined]
        page.problems = []  # type: ignore[attr-defined]
        page.on("console", lambda m: m.type == "error" and page.problems.append(f"console: {m.text}"))  # type: ignore[attr-defined]
        page.on("pageerror", lambda e: page.problems.append(f"pageerror: {e}"))  # type: ignore[attr-defined]
        page.on(
            "request",
            lambda r: r.url.startswith(url) or page.problems.append(f"off-origin request: {r.url}"),  # type: ignore[attr-defined]
        )
        try:
            yield page
        finally:
            context.close()


def test_chat_streams_an_answer_with_cited_term_links(page: Any) -> None:
    page.goto(page.base_url + "/")
    page.wait_for_selector("#chat-input")
    page.screenshot(path=str(ARTIFACTS / "01-home.png"))

    # autocomplete → term view with the neighbourhood drawing
    page.fill("#search", "TTF")
    page.wait_for_selector("#suggestions li[data-id]", timeout=10_000)
    page.screenshot(path=str(ARTIFACTS / "02-autocomplete.png"))
    page.click('#suggestions li[data-id="time-to-first-token"]')
    page.wait_for_selector("#term svg.graph .node.center", timeout=10_000)
    assert "首 token 时间" in page.inner_text("#term h2")
    assert page.locator("#term .defs li").count() >= 3  # one per source
    assert page.locator("#term svg.graph .node").count() >= 3
    assert page.locator("#term svg.graph line.edge").count() >= 2
    assert "confused_with" in page.inner_text("#term .legend")

    # chat: the answer streams in and its citations link to terms
    page.fill("#chat-input", "什么是 TTFT？")
    page.press("#chat-input", "Enter")
    page.wait_for_selector('.msg.bot[data-state="done"]', timeout=15_000)
    bot = page.locator(".msg.bot").last
    assert "首 token 时间" in bot.inner_text()
    assert bot.locator('a.term-link[data-term="time-to-first-token"]').count() >= 1
    assert bot.locator("sup a").count() >= 2  # [n] markers
    page.screenshot(path=str(ARTIFACTS / "03-chat-answer.png"))

    # a follow-up with a pronoun, then open a cited term from the answer
    page.fill("#chat-input", "那它和 TPOT 有什么区别？")
    page.press("#chat-input", "Enter")
    page.wait_for_function("() => document.querySelectorAll('.msg.bot[data-state=\"done\"]').length >= 2")
    bot = page.locator(".msg.bot").last
    link = bot.locator('a.term-link[data-term="time-per-output-token"]').first
    link.click()
    page.wait_for_function(
        "() => document.querySelector('#term h2')?.textContent.includes('单 token 输出时间')"
    )
    page.screenshot(path=str(ARTIFACTS / "04-follow-up-and-term.png"), full_page=True)

    # an out-of-domain question is refused, with nearest terms as links
    page.fill("#chat-input", "今天上海天气怎么样？")
    page.press("#chat-input", "Enter")
    page.wait_for_function("() => document.querySelectorAll('.msg.bot[data-state=\"done\"]').length >= 3")
    refusal = page.locator(".msg.bot").last
    assert "refusal" in (refusal.get_attribute("class") or "")
    assert refusal.locator(".cites").count() == 0 and refusal.locator("a.term-link").count() >= 1
    page.screenshot(path=str(ARTIFACTS / "05-refusal.png"))
    assert page.problems == []  # type: ignore[attr-defined]
