"""Helpers for the MkDocs plugin and widget tests: a real MkDocs site in a tmp dir, the plugin's
entry point, a static file server on loopback, and an HTML reader."""

from __future__ import annotations

import functools
import json
import threading
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
PLUGIN = "glossary-kg"

# the pages of the test site: English, Chinese (read from its script), a page whose meta sets
# the language, and a page that opts out
PAGES = {
    "index.md": (
        "# Serving latency\n\n"
        "Long prompts raise TTFT; the KV cache grows in decode. TTFT again, later.\n\n"
        "Inline `TTFT` code and a [TTFT link](https://example.org/ttft) stay as they are.\n\n"
        "## TPOT in a heading\n\n"
        "```python\nTPOT = measure('TPOT')\n```\n\n"
        "vLLM's PagedAttention keeps KV caches in blocks; TPOT follows the first token.\n\n"
        "In Chinese: [专家并行](zh/intro.md).\n"
    ),
    "zh/intro.md": "# 专家并行\n\n专家并行（EP）把 expert 分到不同卡。首 token 时间取决于 prefill；量化可以降低显存。\n",
    "meta.md": "---\nglossary_lang: zh\n---\n\n# Meta\n\nThe KV cache and TTFT, shown with Chinese cards.\n",
    "skip.md": "---\nglossary: false\n---\n\n# Skip\n\nTTFT and the KV cache stay plain here.\n",
}


def declared_entry_point() -> str:
    """The plugin's entry point as pyproject.toml declares it."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return str(project["entry-points"]["mkdocs.plugins"][PLUGIN])


def write_project(
    root: Path, plugin: dict[str, Any], pages: dict[str, str] = PAGES, theme: str = "material", **extra: Any
) -> Path:
    """A MkDocs project under *root*: ``mkdocs.yml`` (JSON is YAML) and the pages; returns the config."""
    docs = root / "docs"
    for name, text in pages.items():
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_text(text, encoding="utf-8")
    theme_cfg: dict[str, Any] = {"name": theme}
    if theme == "material":
        theme_cfg["font"] = False  # no Google Fonts
    config = {
        "site_name": "Serving notes",
        "theme": theme_cfg,
        "plugins": ["search", {PLUGIN: plugin}],
        **extra,
    }
    path = root / "mkdocs.yml"
    path.write_text(json.dumps(config, ensure_ascii=False, indent=1), encoding="utf-8")
    return path


def build(config_file: Path) -> Path:
    """``mkdocs build`` in process; returns the site directory."""
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config

    cfg = load_config(config_file=str(config_file))
    mkdocs_build(cfg)
    return Path(cfg.site_dir)


def read_cards(site: Path) -> dict[str, dict[str, Any]]:
    text = (site / "assets" / "glossary-kg" / "cards.js").read_text(encoding="utf-8")
    prefix = "window.GKG_CARDS = "
    assert text.startswith(prefix) and text.rstrip().endswith(";")
    return json.loads(text[len(prefix) :].rstrip().rstrip(";"))


class Html(HTMLParser):
    """Ids, links, term links (with the elements they sit in) and text of one page."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.hrefs: list[str] = []
        self.terms: list[dict[str, str]] = []  # attributes, plus "text" and "inside"
        self.stack: list[str] = []
        self._term: dict[str, str] | None = None
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if a.get("id"):
            self.ids.add(a["id"])
        if "href" in a:
            self.hrefs.append(a["href"])
        if tag == "a" and a.get("class") == "gkg-term":
            self._term = {**a, "text": "", "inside": " ".join(self.stack)}
            self.terms.append(self._term)
        if tag not in ("br", "img", "input", "meta", "link", "hr"):
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a":
            self._term = None
        if tag in self.stack:
            while self.stack and self.stack.pop() != tag:
                pass

    def handle_data(self, data: str) -> None:
        if self._term is not None:
            self._term["text"] += data


@contextmanager
def static_server(directory: Path) -> Iterator[str]:
    """Serve *directory* over HTTP on 127.0.0.1 (a random free port) until the block ends."""

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(directory))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="static-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@contextmanager
def chromium_page(profile: Path, allowed: Callable[[str], bool], **context: Any) -> Iterator[Any]:
    """A page of headless Debian Chromium (the set-up of tests/api/test_api_browser.py) that
    records console errors, page errors and requests *allowed* refuses in ``page.problems``."""
    from playwright.sync_api import sync_playwright

    from tests.api.test_api_browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS

    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is absent: install the Debian packages `chromium` and `fonts-noto-cjk`")
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_ARGS,
            **{"viewport": {"width": 1200, "height": 800}, "locale": "zh-CN", **context},
        )
        page = ctx.pages[0] if ctx.pages else ctx.new_page()
        page.problems = []
        page.on("console", lambda m: m.type == "error" and page.problems.append(f"console: {m.text}"))
        page.on("pageerror", lambda e: page.problems.append(f"pageerror: {e}"))
        page.on("request", lambda r: allowed(r.url) or page.problems.append(f"request: {r.url}"))
        try:
            yield page
        finally:
            ctx.close()
