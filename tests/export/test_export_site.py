"""The static site: files, links that resolve offline, escaping, the search index, safety, the CLI.
(In a browser: tests/docs_tools/test_site_browser.py.)"""

from __future__ import annotations

import copy
import json
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from typer.testing import CliRunner

from kg.export.site import MARKER, SiteError, term_file, write_site


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.refs: list[str] = []  # href and src values
        self.scripts: list[str] = []
        self.anchors: list[dict[str, str]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        if a.get("id"):
            self.ids.add(a["id"])
        for key in ("href", "src"):
            if key in a:
                self.refs.append(a[key])
        if tag == "script":
            self.scripts.append(a.get("src", ""))
        if tag == "a":
            self.anchors.append(a)

    def handle_data(self, data):
        self.text.append(data)


def parse(path: Path) -> _Page:
    p = _Page()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def read_index(site: Path) -> dict:
    text = (site / "assets" / "search-index.js").read_text(encoding="utf-8")
    prefix = "window.GKG_INDEX = "
    assert text.startswith(prefix) and text.endswith(";\n")
    return json.loads(text[len(prefix) : -2])


@pytest.fixture
def site(tmp_path, doc) -> Path:
    out = tmp_path / "site"
    write_site(doc, out)
    return out


def test_files(site, doc):
    assert (site / "index.html").is_file() and (site / "sources.html").is_file()
    for node in doc["nodes"]:
        assert (site / "terms" / term_file(node["id"])).is_file()
    assert sorted(p.name for p in (site / "assets").iterdir()) == ["search-index.js", "site.css", "site.js"]
    summary = json.loads((site / MARKER).read_text(encoding="utf-8"))
    assert summary["terms"] == len(doc["nodes"]) and summary["confused_edges"] == 2


def test_every_link_resolves_offline(site):
    pages = sorted(site.rglob("*.html"))
    parsed = {p: parse(p) for p in pages}
    checked = 0
    for page, info in parsed.items():
        for ref in info.refs:
            parts = urlsplit(ref)
            assert not parts.scheme and not parts.netloc, f"{page.name}: external reference {ref}"
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            assert target.is_file(), f"{page.name}: {ref}"
            if parts.fragment and target.suffix == ".html":
                assert unquote(parts.fragment) in parsed[target].ids, f"{page.name}: {ref}"
            checked += 1
    assert checked > 50


def test_term_page(site):
    page = parse(site / "terms" / "time-to-first-token.html")
    text = "".join(page.text)
    assert "Time to first token" in text and "首 token 延迟" in text
    assert "从请求到达到首个 token 输出的时间，对应 prefill 阶段。" in text
    assert "Time from request arrival to the first output token." in text
    confused = [a for a in page.anchors if a.get("class") == "confused-link"]
    related = [a for a in page.anchors if a.get("class") == "related-link"]
    assert [a["href"] for a in confused] == ["time-per-output-token.html"]
    assert [a["href"] for a in related] == ["prefill.html"]
    assert "TTFT 与 TPOT" in text and "对应 prefill 阶段" in text  # the evidence of both edges
    assert "../sources.html#source-002" in page.refs
    assert "易混淆 · Often confused with" in text
    # the incoming edge shows on the other term too
    back = parse(site / "terms" / "time-per-output-token.html")
    assert [a["href"] for a in back.anchors if a.get("class") == "confused-link"] == [
        "time-to-first-token.html"
    ]


def test_odd_text_is_escaped(tmp_path, doc):
    odd = copy.deepcopy(doc)
    odd["nodes"][0]["labels"]["en"] = '<script>alert("x")</script> & co'
    odd["nodes"][0]["definitions"][0]["text"] = "<img src=x onerror=alert(1)> 'q' \"dq\""
    odd["nodes"][0]["id"] = "../../etc/passwd"
    for e in odd["edges"]:
        for end in ("source", "target"):
            if e[end] == "time-to-first-token":
                e[end] = "../../etc/passwd"
    out = tmp_path / "odd"
    write_site(odd, out)
    name = term_file("../../etc/passwd")
    assert "/" not in name and (out / "terms" / name).is_file()
    page = parse(out / "terms" / name)
    assert page.scripts == ["../assets/search-index.js", "../assets/site.js"]  # no injected script
    html = (out / "terms" / name).read_text(encoding="utf-8")
    assert "&lt;img src=x onerror=alert(1)&gt; &#x27;q&#x27; &quot;dq&quot;" in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co" in html
    entry = next(t for t in read_index(out)["terms"] if t["id"] == "../../etc/passwd")
    assert entry["en"] == '<script>alert("x")</script> & co' and entry["url"] == f"terms/{name}"
    assert "</script" not in (out / "assets" / "search-index.js").read_text(encoding="utf-8")


def test_search_index_keys(site):
    terms = {t["id"]: t for t in read_index(site)["terms"]}
    ttft = terms["time-to-first-token"]
    assert "ttft" in ttft["keys"] and "首token延迟" in ttft["keys"]  # folded: case, spaces by Chinese
    assert "timetofirsttoken" in ttft["loose"]
    assert ttft["pinyin"] == "shoutokenyanchi"
    assert ttft["url"] == "terms/time-to-first-token.html"
    assert terms["memory-wall"]["en"] == "" and terms["memory-wall"]["zh"] == "显存墙"


def test_deterministic(tmp_path, doc):
    a, b = tmp_path / "a", tmp_path / "b"
    write_site(doc, a)
    write_site(doc, b)
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert all((a / f).read_bytes() == (b / f).read_bytes() for f in files)


def test_refuses_a_foreign_directory_and_replaces_its_own(tmp_path, doc):
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(SiteError):
        write_site(doc, foreign)
    assert (foreign / "notes.txt").read_text(encoding="utf-8") == "mine"

    out = tmp_path / "site"
    write_site(doc, out)
    fewer = copy.deepcopy(doc)
    fewer["nodes"] = [n for n in fewer["nodes"] if n["id"] != "decode"]
    write_site(fewer, out)
    assert not (out / "terms" / "decode.html").exists()  # no stale page
    assert (out / "terms" / "prefill.html").is_file()


def test_cli_site(tmp_path, doc):
    from kg.cli import app

    artifact = tmp_path / "artifact"
    artifact.mkdir()
    doc["edges"] = [e for e in doc["edges"] if e["target"] != "ghost-node"]  # a graph.json may not dangle
    (artifact / "graph.json").write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["site", "--out", str(out), "--artifact", str(artifact)])
    assert res.exit_code == 0, res.output
    assert f"wrote {len(doc['nodes'])} term pages" in res.output
    assert (out / "terms" / "prefill.html").is_file()
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "x").write_text("x", encoding="utf-8")
    res = CliRunner().invoke(app, ["site", "--out", str(tmp_path / "busy"), "--artifact", str(artifact)])
    assert res.exit_code == 2
