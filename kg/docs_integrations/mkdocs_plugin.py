"""MkDocs plugin: link every page's glossary terms, show their cards on hover and focus, and
generate a bilingual glossary page.

``mkdocs.yml``::

    plugins:
      - search
      - glossary-kg:
          artifact: build/artifact        # or a graph.json; relative to mkdocs.yml
          # api_url: http://127.0.0.1:8000  # instead: a running `glossary serve`

What it does, per build:

- ``on_files``: adds the glossary page (:func:`kg.docs_integrations.glossary_page.glossary_markdown`,
  ``glossary.md`` unless ``glossary_page`` says otherwise; a page of your own with that name is
  kept, and its ``<!-- glossary-kg -->`` line is replaced by the glossary), the tooltip script and
  stylesheet, and a ``cards.js`` whose content is filled in once every page is read;
- ``on_page_content``: after Markdown became HTML, annotates the page with the shared engine
  (:mod:`kg.annotate`, HTML mode, so code, links and headings are skipped) in the page's
  language (``glossary_lang`` or ``lang`` in the page's meta, else the ``lang`` option, else read
  from the page's script), by default the first mention of each term only; each mention becomes
  ``<a class="gkg-term" href="…glossary/#gkg-<id>" data-term="<id>" data-gkg-lang="zh|en">``;
- ``on_env``: writes the cards of every term linked anywhere, in the languages used, into
  ``assets/glossary-kg/cards.js`` (the site needs no server and no network to show them).

With ``artifact`` everything runs in process, offline; with ``api_url`` the page annotation goes
through ``POST /v1/annotate``, the cards through ``GET /v1/terms/{id}/card`` and the glossary
page through ``GET /v1/export?format=json`` (:mod:`kg.docs_integrations.backend`). A page opts
out with ``glossary: false`` in its meta; ``exclude_pages`` takes glob patterns of source paths.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, get_plugin_logger
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

from kg.annotate import AnnotateOptions
from kg.annotate.card import term_url
from kg.annotate.options import OCCURRENCES, check_url_template
from kg.docs_integrations.assets import asset_text
from kg.docs_integrations.backend import ApiBackend, Backend, BackendError, LocalBackend
from kg.docs_integrations.glossary_page import ANCHOR_PREFIX, DEFAULT_TITLE, glossary_markdown

log = get_plugin_logger("glossary-kg")

ASSET_DIR = "assets/glossary-kg"
STATIC_ASSETS = ("gkg-tooltip.css", "gkg-tooltip.js", "gkg-mkdocs.js")
CARDS_FILE = "cards.js"
MARKER = "<!-- glossary-kg -->"
LANGS = ("zh", "en")
# the opening tag kg.annotate.render.rewrite writes for a link (only the plugin's own insertions)
_TERM_TAG = re.compile(r'<a class="gkg-term" href="')


class GlossaryKGConfig(base.Config):
    artifact = c.Optional(c.Type(str))
    api_url = c.Optional(c.Type(str))
    api_timeout = c.Type((int, float), default=30)
    lang = c.Choice(("auto", *LANGS), default="auto")
    occurrences = c.Choice(OCCURRENCES, default="first")
    skip_headings = c.Type(bool, default=True)
    context = c.Type(bool, default=True)
    include_categories = c.ListOfItems(c.Type(str), default=[])
    exclude_categories = c.ListOfItems(c.Type(str), default=[])
    include_ids = c.ListOfItems(c.Type(str), default=[])
    exclude_ids = c.ListOfItems(c.Type(str), default=[])
    include_mentioned = c.Type(bool, default=False)
    exclude_pages = c.ListOfItems(c.Type(str), default=[])
    glossary_page = c.Type(str, default="glossary.md")
    glossary_title = c.Type(str, default=DEFAULT_TITLE)
    url_template = c.Optional(c.Type(str))
    tooltips = c.Type(bool, default=True)


class GlossaryKGPlugin(BasePlugin[GlossaryKGConfig]):
    """The ``glossary-kg`` plugin (entry point in the ``mkdocs.plugins`` group); see the module."""

    def __init__(self) -> None:
        self.backend: Backend | None = None
        self.linked: dict[str, set[str]] = {lang: set() for lang in LANGS}
        self.glossary_file: File | None = None
        self.cards_file: File | None = None
        self.own_glossary_page = False

    # --- configuration ----------------------------------------------------------------------
    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        cfg = self.config
        if bool(cfg.artifact) == bool(cfg.api_url):
            raise PluginError("glossary-kg: set exactly one of `artifact` (a local artifact) and `api_url`")
        if not cfg.glossary_page and not cfg.url_template:
            raise PluginError(
                "glossary-kg: with no `glossary_page`, set `url_template` (where terms link to)"
            )
        if cfg.url_template:
            try:
                check_url_template(cfg.url_template)
            except ValueError as exc:
                raise PluginError(f"glossary-kg: `{exc}`") from None
        self._close()
        try:
            if cfg.artifact:
                root = Path(config.config_file_path or ".").resolve().parent
                self.backend = LocalBackend(root / cfg.artifact)
            else:
                self.backend = ApiBackend(str(cfg.api_url), timeout=float(cfg.api_timeout))
        except BackendError as exc:
            raise PluginError(f"glossary-kg: {exc}") from None
        self.linked = {lang: set() for lang in LANGS}
        self.glossary_file = self.cards_file = None
        self.own_glossary_page = False
        if cfg.tooltips:
            config.extra_css.append(f"{ASSET_DIR}/gkg-tooltip.css")
            for name in (CARDS_FILE, "gkg-tooltip.js", "gkg-mkdocs.js"):
                config.extra_javascript.append(f"{ASSET_DIR}/{name}")
        return config

    # --- files: the glossary page and the assets ---------------------------------------------
    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        page = self.config.glossary_page
        if page:
            own = files.get_file_from_path(page)
            if own is not None:
                self.own_glossary_page, self.glossary_file = True, own
            else:
                self.glossary_file = File.generated(config, page, content=self._glossary_markdown())
                files.append(self.glossary_file)
        if self.config.tooltips:
            for name in STATIC_ASSETS:
                files.append(File.generated(config, f"{ASSET_DIR}/{name}", content=asset_text(name)))
            self.cards_file = File.generated(config, f"{ASSET_DIR}/{CARDS_FILE}", content=_cards_js({}))
            files.append(self.cards_file)
        return files

    def _glossary_markdown(self, heading: bool = True) -> str:
        assert self.backend is not None
        try:
            glossary = self.backend.glossary()
        except BackendError as exc:
            raise PluginError(f"glossary-kg: {exc}") from None
        return glossary_markdown(
            glossary,
            self.config.glossary_title,
            include_mentioned=self.config.include_mentioned,
            heading=heading,
        )

    def on_page_markdown(self, markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        if self.own_glossary_page and page.file is self.glossary_file:
            if MARKER in markdown:
                return markdown.replace(MARKER, self._glossary_markdown(heading=False), 1)
            log.info("%s is your own page; put %s where the glossary goes", page.file.src_uri, MARKER)
        return markdown

    # --- pages: annotate after Markdown → HTML -----------------------------------------------
    def on_page_content(self, html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        if not self._annotated(page):
            return html
        assert self.backend is not None
        lang = page_lang(page.meta, self.config.lang)
        options = AnnotateOptions(
            format="html",
            lang=lang,  # type: ignore[arg-type]
            occurrences=self.config.occurrences,  # type: ignore[arg-type]
            skip_headings=self.config.skip_headings,
            include_categories=tuple(self.config.include_categories),
            exclude_categories=tuple(self.config.exclude_categories),
            include_ids=tuple(self.config.include_ids),
            exclude_ids=tuple(self.config.exclude_ids),
            include_mentioned=self.config.include_mentioned,
            context=self.config.context,
            url_template=self._url_template(page),
        )
        try:
            result = self.backend.annotate_html(html, options)
        except BackendError as exc:
            raise PluginError(f"glossary-kg: page {page.file.src_uri}: {exc}") from None
        self.linked.setdefault(result.lang, set()).update(result.term_ids)
        return _TERM_TAG.sub(f'<a class="gkg-term" data-gkg-lang="{result.lang}" href="', result.html)

    def _annotated(self, page: Page) -> bool:
        if self.glossary_file is not None and page.file is self.glossary_file:
            return False
        if page.meta.get("glossary") is False:
            return False
        return not any(fnmatch.fnmatch(page.file.src_uri, pat) for pat in self.config.exclude_pages)

    def _url_template(self, page: Page | None) -> str:
        """Where a term links to from *page* (relative), or from the site root (None)."""
        if self.config.url_template:
            return str(self.config.url_template)
        assert self.glossary_file is not None
        target = self.glossary_file.url
        rel = get_relative_url(target, page.file.url) if page is not None else target
        # `rel` is literal text of the template; {id} is filled in URL-quoted, as anchor() quotes it
        return rel.replace("{", "{{").replace("}", "}}") + "#" + ANCHOR_PREFIX + "{id}"

    # --- cards: every linked term, written once every page is read ----------------------------
    def on_env(self, env: Any, *, config: MkDocsConfig, files: Files) -> Any:
        if self.cards_file is None or self.backend is None:
            return env
        template = self._url_template(None)
        cards: dict[str, dict[str, Any]] = {}
        try:
            for lang in LANGS:
                if self.linked.get(lang):
                    cards[lang] = self.backend.cards(sorted(self.linked[lang]), lang)
        except BackendError as exc:
            raise PluginError(f"glossary-kg: {exc}") from None
        for by_id in cards.values():
            for card in by_id.values():  # links from the site root (the script resolves them)
                card["url"] = term_url(card["id"], "", template)
                for other in card.get("confused_with") or []:
                    other["url"] = term_url(other["id"], "", template)
        self.cards_file.content_string = _cards_js(cards)
        total = sum(len(v) for v in cards.values())
        log.info("%d term cards from the %s", total, self.backend.describe())
        return env

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        self._close()

    def on_build_error(self, *, error: Exception) -> None:
        self._close()

    def _close(self) -> None:
        if isinstance(self.backend, ApiBackend):
            self.backend.close()
        self.backend = None


def page_lang(meta: Mapping[str, Any], default: str = "auto") -> str | None:
    """The language a page is annotated in: ``glossary_lang`` or ``lang`` in its meta, else
    *default*; ``None`` (read it from the page's script) for ``auto`` or anything else."""
    for key in ("glossary_lang", "lang"):
        value = str(meta.get(key) or "").strip().lower()
        if value[:2] in LANGS:
            return value[:2]
    return default if default in LANGS else None


def _cards_js(cards: dict[str, dict[str, Any]]) -> str:
    """The cards as a script (a page opened from disk cannot fetch a JSON file)."""
    data = json.dumps(cards, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    data = data.replace("</", "<\\/")  # no "</" in the script text, whatever the cards say
    return "window.GKG_CARDS = " + data + ";\n"
