"""The MkDocs plugin in real mkdocs-material builds of a small site, with the real glossary: from a
`glossary build` artifact offline, and from a running API (uvicorn on loopback), which must give
the same site. (In a browser: tests/docs_tools/test_mkdocs_browser.py.)"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from api.app import create_app
from api.settings import Settings
from kg.docs_integrations.assets import NAMES, asset_text
from kg.store import Glossary
from kg.verify import read_graph
from tests.api.live_server import serve
from tests.docs_tools.conftest import refuse_network
from tests.docs_tools.mkdocs_helpers import Html, build, read_cards, write_project

pytest.importorskip("mkdocs", reason="needs the docs extra: pip install -e '.[docs]'")
pytest.importorskip("material", reason="needs the docs extra: pip install -e '.[docs]'")

pytestmark = pytest.mark.usefixtures("plugin_entry_point")


def page(site: Path, path: str) -> Html:
    return Html((site / path).read_text(encoding="utf-8"))


def terms_by_id(html: Html) -> dict[str, list[dict[str, str]]]:
    out: dict[str, list[dict[str, str]]] = {}
    for t in html.terms:
        out.setdefault(t["data-term"], []).append(t)
    return out


@pytest.fixture(scope="module")
def glossary(hash_artifact: Path) -> Glossary:
    return Glossary(read_graph(hash_artifact))


@pytest.fixture(scope="module")
def offline_site(
    tmp_path_factory: pytest.TempPathFactory, hash_artifact: Path, plugin_entry_point: str
) -> Path:
    """The test site built from the artifact with every outgoing connection refused."""
    with pytest.MonkeyPatch.context() as mp:
        attempts = refuse_network(mp)
        site = build(write_project(tmp_path_factory.mktemp("offline"), {"artifact": str(hash_artifact)}))
    assert attempts == []  # nothing left the machine
    return site


def test_pages_link_terms_in_their_language(offline_site: Path, glossary: Glossary) -> None:
    index = page(offline_site, "index.html")
    found = terms_by_id(index)
    assert {"time-to-first-token", "kv-cache", "decode", "vllm", "pagedattention"} <= set(found)
    # the first mention only; never in code, a link or a heading
    assert [t["text"] for t in found["time-to-first-token"]] == ["TTFT"]
    assert [t["text"] for t in found["kv-cache"]] == ["KV cache"]
    assert [t["text"] for t in found["vllm"]] == ["vLLM's"]
    for t in index.terms:
        assert not set(t["inside"].split()) & {"code", "pre", "h1", "h2", "a"}, t
        assert t["data-gkg-lang"] == "en"
        assert t["href"] == f"glossary/#gkg-{t['data-term']}"
    tpot = found["time-per-output-token"]  # in the heading and the code block: skipped; then linked
    assert [t["text"] for t in tpot] == ["TPOT"] and "h2" not in tpot[0]["inside"]
    raw = (offline_site / "index.html").read_text(encoding="utf-8")
    assert "<code>TTFT</code>" in raw and 'href="https://example.org/ttft">TTFT link</a>' in raw

    zh = terms_by_id(page(offline_site, "zh/intro/index.html"))  # read as Chinese from its script
    assert {"expert-parallelism", "time-to-first-token", "prefill"} <= set(zh)
    assert all(t["data-gkg-lang"] == "zh" for ts in zh.values() for t in ts)
    assert zh["time-to-first-token"][0]["href"] == "../../glossary/#gkg-time-to-first-token"

    meta = page(offline_site, "meta/index.html").terms  # English text, `glossary_lang: zh` in its meta
    assert meta and all(t["data-gkg-lang"] == "zh" for t in meta)
    assert page(offline_site, "skip/index.html").terms == []  # `glossary: false`
    assert page(offline_site, "glossary/index.html").terms == []  # the glossary itself


def test_every_term_link_lands_on_a_glossary_entry(offline_site: Path) -> None:
    entries = page(offline_site, "glossary/index.html").ids
    for path in ("index.html", "zh/intro/index.html", "meta/index.html"):
        for t in page(offline_site, path).terms:
            assert t["href"].rsplit("#", 1)[1] in entries, (path, t)


def test_glossary_page(offline_site: Path, glossary: Glossary) -> None:
    raw = (offline_site / "glossary" / "index.html").read_text(encoding="utf-8")
    html = Html(raw)
    defined = [t for t in glossary.terms.values() if t.defined]
    entries = re.findall(r'<dt id="gkg-([^"]+)" class="gkg-entry"', raw)
    assert sorted(entries) == sorted(t.id for t in defined)  # every defined term, once
    # one section per category, bilingual titles; terms under their first category
    for cid, cat in glossary.categories.items():
        if any(t.categories[:1] == [cid] for t in defined):
            title = f"{cat['labels']['en']} · {cat['labels']['zh']}"
            assert re.search(rf"<h2 id=\"[^\"]*\">{re.escape(title)}", raw), title
    # every in-page link resolves (terms, sources)
    for href in html.hrefs:
        if href.startswith("#"):
            assert href[1:] in html.ids, href

    ttft = raw[raw.index('<dt id="gkg-time-to-first-token"') :]
    ttft = ttft[: ttft.index("</dd>")]
    term = glossary.terms["time-to-first-token"]
    assert '<span lang="en">Time To First Token</span> · <span lang="zh">首 token 时间</span>' in ttft
    assert "Abbreviations · 缩写: <strong>TTFT</strong>" in ttft
    for alias in term.aliases:
        assert alias in ttft
    for d in term.definitions:  # every source's definition with where it comes from
        assert d.text.split("，")[0][:12] in ttft
        assert f"[{d.source}]</a>" in ttft and f"line {d.line}" in ttft
    confused = {e.target if e.source == term.id else e.source for e in glossary.confusables(term.id)}
    assert confused
    callout = ttft[ttft.index('class="admonition warning gkg-confused"') :]
    callout = callout[: callout.index("</div>")]
    assert '<p class="admonition-title">易混淆 / often confused with</p>' in callout
    assert set(re.findall(r'href="#gkg-([^"]+)"', callout)) == confused
    assert "<q>" in callout


def test_cards_and_assets(offline_site: Path, glossary: Glossary) -> None:
    cards = read_cards(offline_site)
    linked = {
        lang: {t["data-term"] for p in ("index.html", "zh/intro/index.html", "meta/index.html")
               for t in page(offline_site, p).terms if t["data-gkg-lang"] == lang}
        for lang in ("en", "zh")
    }  # fmt: skip
    assert {lang: set(c) for lang, c in cards.items()} == linked  # the cards of the linked terms only
    card = cards["en"]["time-to-first-token"]
    term = glossary.terms["time-to-first-token"]
    assert card["label"] == "Time To First Token" and card["labels"] == term.labels
    assert card["abbreviations"] == ["TTFT"]
    assert card["definition"]["source"] in term.sources
    assert card["url"] == "glossary/#gkg-time-to-first-token"  # from the site root
    confused = {e.target if e.source == term.id else e.source for e in glossary.confusables(term.id)}
    assert {c["id"] for c in card["confused_with"]} == confused
    assert all(c["url"] == f"glossary/#gkg-{c['id']}" and c["evidence"] for c in card["confused_with"])
    assert card["confused_with_heading"] == "often confused with / 易混淆"
    assert cards["zh"]["time-to-first-token"]["label"] == "首 token 时间"

    # the assets are in the site, referenced by every page, and fetch nothing from elsewhere
    raw = (offline_site / "index.html").read_text(encoding="utf-8")
    for name in ("gkg-tooltip.css", "gkg-tooltip.js", "gkg-mkdocs.js", "cards.js"):
        assert f"assets/glossary-kg/{name}" in raw
        assert (offline_site / "assets" / "glossary-kg" / name).is_file()
    for name in NAMES:
        assert not re.search(r"(?:https?:)?//[a-z0-9.-]+\.[a-z]", asset_text(name)), name
    small = sum(len(asset_text(n).encode()) for n in ("gkg-tooltip.css", "gkg-tooltip.js", "gkg-mkdocs.js"))
    assert small < 16_000


def test_api_build_gives_the_same_site(tmp_path: Path, hash_artifact: Path, offline_site: Path) -> None:
    calls: Counter[str] = Counter()
    app = create_app(Settings(artifact_dir=hash_artifact, sessions="memory", warm_up=False))

    async def recorded(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            calls[f"{scope['method']} {scope['path']}"] += 1
        await app(scope, receive, send)

    with serve(recorded) as url:  # type: ignore[arg-type]
        site = build(write_project(tmp_path / "api", {"api_url": url}))
    annotated = 3  # index, zh/intro, meta (skip.md opts out, the glossary is not annotated)
    assert calls["POST /v1/annotate"] == annotated
    assert calls["GET /v1/export"] == 1
    cards = read_cards(site)
    assert sum(v for k, v in calls.items() if k.endswith("/card")) == sum(len(c) for c in cards.values())
    assert cards == read_cards(offline_site)
    for path in (
        "index.html",
        "zh/intro/index.html",
        "meta/index.html",
        "skip/index.html",
        "glossary/index.html",
    ):
        assert (site / path).read_text(encoding="utf-8") == (offline_site / path).read_text(
            encoding="utf-8"
        ), path


def build_error(config: Path, caplog: pytest.LogCaptureFixture) -> str:
    """The message a failed build gives (mkdocs logs a plugin's error, then aborts)."""
    from mkdocs.exceptions import Abort, PluginError

    with pytest.raises((PluginError, Abort)) as exc:
        build(config)
    return f"{exc.value} {caplog.text}"


def test_api_down_is_a_clear_error(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from tests.api.live_server import free_port

    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    assert f"glossary-kg: GET {url}/v1/export" in build_error(
        write_project(tmp_path, {"api_url": url}), caplog
    )


@pytest.mark.parametrize(
    ("plugin", "message"),
    [
        ({}, "exactly one of `artifact`"),
        ({"artifact": "a", "api_url": "http://127.0.0.1:1"}, "exactly one of `artifact`"),
        ({"artifact": "nowhere"}, "nowhere"),
        ({"artifact": "graph.json", "glossary_page": ""}, "set `url_template`"),
        ({"artifact": "graph.json", "url_template": "https://x.example/"}, "must hold {id}"),
        (
            {"artifact": "graph.json", "url_template": "https://x.example/{id}/{lang}"},
            "may hold only {base} and {id}",
        ),
    ],
)
def test_bad_configuration(
    tmp_path: Path, graph_json: Path, plugin: dict[str, Any], message: str, caplog: pytest.LogCaptureFixture
) -> None:
    assert message in build_error(write_project(tmp_path, plugin), caplog)


def test_own_glossary_page_default_theme_and_options(
    tmp_path: Path, graph_json: Path, small_doc: dict[str, Any]
) -> None:
    """A graph.json, mkdocs' own theme, every mention, a page of one's own holding the glossary."""
    pages = {
        "index.md": "# Notes\n\nTTFT, then TTFT again; INT4 weights. TPOT.\n",
        "terms.md": "# Our terms\n\nIntro of our own.\n\n<!-- glossary-kg -->\n",
        "drafts/wip.md": "# WIP\n\nTTFT.\n",
    }
    plugin = {
        "artifact": "graph.json",
        "glossary_page": "terms.md",
        "occurrences": "all",
        "exclude_ids": ["time-per-output-token"],
        "lang": "zh",
        "exclude_pages": ["drafts/*"],
    }
    site = build(write_project(tmp_path, plugin, pages, theme="mkdocs", use_directory_urls=False))
    index = page(site, "index.html")
    assert [(t["text"], t["href"]) for t in index.terms] == [
        ("TTFT", "terms.html#gkg-time-to-first-token"),
        ("TTFT", "terms.html#gkg-time-to-first-token"),
        ("INT4", "terms.html#gkg-4-bit-quantization"),
    ]
    assert {t["data-gkg-lang"] for t in index.terms} == {"zh"}
    assert page(site, "drafts/wip.html").terms == []
    terms = (site / "terms.html").read_text(encoding="utf-8")
    assert "Intro of our own." in terms and "<!-- glossary-kg -->" not in terms
    assert terms.count('class="gkg-entry"') == len(small_doc["nodes"])
    assert "glossary.html" not in {p.name for p in site.iterdir()}  # no generated page
    assert "assets/glossary-kg/gkg-tooltip.js" in (site / "index.html").read_text(encoding="utf-8")


def test_odd_text_is_escaped(tmp_path: Path, small_doc: dict[str, Any]) -> None:
    import json

    doc = small_doc
    doc["categories"][0]["labels"]["en"] = "Metrics <b>*bold*</b> # [x](y)"
    node = doc["nodes"][0]
    node["aliases"].append('<script>alert("x")</script>')
    node["definitions"][0]["text"] += " & <i>not markup</i>\n\nstill one block"
    (tmp_path / "odd.json").write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    site = build(write_project(tmp_path, {"artifact": "odd.json"}, {"index.md": "# X\n\nTTFT.\n"}))
    raw = (site / "glossary" / "index.html").read_text(encoding="utf-8")
    assert "<script>alert" not in raw and "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in raw
    assert "&lt;i&gt;not markup&lt;/i&gt; still one block" in raw
    assert "Metrics &lt;b&gt;*bold*&lt;/b&gt; # [x](y)" in raw
    assert raw.count('class="gkg-entry"') == len(doc["nodes"])
