"""A mkdocs-material site built with the plugin, in headless Debian Chromium over HTTP on loopback:
hovering a term shows its card (with the confused-with warning), keyboard focus shows it too and
Escape closes it, a Chinese page shows Chinese cards after instant navigation, and the site asks
nothing of any other host. Screenshots go to ``test-artifacts/`` (gitignored;
docs/img/mkdocs-*.png are copies)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.api.test_api_browser import ARTIFACTS
from tests.docs_tools.mkdocs_helpers import build, chromium_page, static_server, write_project

pytest.importorskip("mkdocs", reason="needs the docs extra: pip install -e '.[docs]'")
pytest.importorskip("material", reason="needs the docs extra: pip install -e '.[docs]'")

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TIP = "#gkg-tip"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, hash_artifact: Path, plugin_entry_point: str) -> Path:
    root = tmp_path_factory.mktemp("material")
    config = write_project(root, {"artifact": str(hash_artifact)}, theme="material")
    # instant navigation: pages are swapped in by script, the tooltip must keep working
    text = config.read_text(encoding="utf-8").replace(
        '"font": false', '"font": false, "features": ["navigation.instant"]'
    )
    config.write_text(text, encoding="utf-8")
    return build(config)


def visible(page: Any) -> bool:
    return bool(page.eval_on_selector(TIP, "t => !t.hidden && t.offsetHeight > 0"))


def test_hover_and_focus_show_the_card(site: Path, tmp_path: Path) -> None:
    with static_server(site) as url, chromium_page(tmp_path / "profile", lambda u: u.startswith(url)) as page:
        page.goto(url + "/")
        term = page.locator('article a.gkg-term[data-term="time-to-first-token"]')
        assert term.count() == 1 and term.inner_text() == "TTFT"

        term.hover()
        page.wait_for_selector(f"{TIP} .gkg-card[data-term='time-to-first-token']", state="visible")
        card = page.locator(f"{TIP} .gkg-card")
        assert card.locator(".gkg-card-label").inner_text() == "Time To First Token"
        assert "首 token 时间" in card.locator(".gkg-card-names").inner_text()
        assert card.locator(".gkg-card-definition").inner_text()
        assert "[0" in card.locator(".gkg-card-source").inner_text()  # the source id
        confused = card.locator(".gkg-card-confused")
        assert "易混淆" in confused.locator(".gkg-card-confused-title").inner_text()
        assert confused.locator("li a").count() >= 1
        assert term.get_attribute("aria-describedby") == "gkg-tip"
        assert page.get_attribute(TIP, "role") == "tooltip"
        page.screenshot(path=str(ARTIFACTS / "mkdocs-01-hover.png"))

        # the card's link to a confusable term lands on its glossary entry
        other = confused.locator("li a").first
        other_id = other.get_attribute("data-term")
        assert other.get_attribute("href") == f"{url}/glossary/#gkg-{other_id}"

        # pointer away: the card goes
        page.mouse.move(5, 790)
        page.wait_for_selector(TIP, state="hidden")
        assert term.get_attribute("aria-describedby") is None

        # keyboard: Tab until a term link has focus; its card shows; Escape closes it
        focused = ""
        for _ in range(80):
            page.keyboard.press("Tab")
            focused = page.evaluate(
                "() => document.activeElement.matches('a.gkg-term') ? document.activeElement.dataset.term : ''"
            )
            if focused:
                break
        assert focused, "no term link reached with Tab"
        page.wait_for_selector(f"{TIP} .gkg-card[data-term='{focused}']", state="visible")
        assert page.evaluate("() => document.activeElement.getAttribute('aria-describedby')") == "gkg-tip"
        page.screenshot(path=str(ARTIFACTS / "mkdocs-02-focus.png"))
        page.keyboard.press("Escape")
        page.wait_for_selector(TIP, state="hidden")
        assert page.evaluate("() => document.activeElement.matches('a.gkg-term')")  # focus stays

        # instant navigation to the Chinese page: Chinese cards
        page.click('article a[href$="zh/intro/"]')
        page.wait_for_url("**/zh/intro/")
        zh = page.locator('article a.gkg-term[data-term="expert-parallelism"]')
        zh.hover()
        page.wait_for_selector(f"{TIP} .gkg-card[data-term='expert-parallelism']", state="visible")
        assert page.locator(f"{TIP} .gkg-card").get_attribute("lang") == "zh"
        assert page.locator(f"{TIP} .gkg-card-label").inner_text() == "专家并行"
        page.screenshot(path=str(ARTIFACTS / "mkdocs-03-zh.png"))

        # the term link opens the glossary entry
        zh.click()
        page.wait_for_url("**/glossary/#gkg-expert-parallelism")
        assert page.locator("#gkg-expert-parallelism").is_visible()

        # an entry with its confused-with callout, linking to the other entries
        page.evaluate(
            "() => { document.getElementById('gkg-time-to-first-token').scrollIntoView(); scrollBy(0, -60); }"
        )
        entry = page.locator("#gkg-time-to-first-token + dd")
        callout = entry.locator(".gkg-confused")
        assert callout.is_visible() and "易混淆" in callout.locator(".admonition-title").inner_text()
        assert callout.locator('a[href$="#gkg-time-per-output-token"]').count() == 1
        page.screenshot(path=str(ARTIFACTS / "mkdocs-04-glossary.png"))
        assert page.problems == []
