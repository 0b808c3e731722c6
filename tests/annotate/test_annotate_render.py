"""HTML output: the page's own markup untouched, every inserted text escaped; term cards."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

from kg.annotate import AnnotateOptions, Annotator, render_card_html, rewrite, term_card
from kg.store import Glossary


class _Events(HTMLParser):
    """The page as parse events; the tags the annotator inserts are told apart and left out."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.events: list[tuple[Any, ...]] = []
        self.inserted: list[dict[str, str | None]] = []
        self._skip: list[bool] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        mine = dict(attrs).get("class") == "gkg-term"
        self._skip.append(mine)
        if mine:
            self.inserted.append(dict(attrs))
        else:
            self.events.append(("start", tag, tuple(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("a", "abbr") and self._skip and self._skip[-1]:
            self._skip.pop()
            return
        if self._skip:
            self._skip.pop()
        self.events.append(("end", tag))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.events.append(("startend", tag, tuple(attrs)))

    def handle_data(self, data: str) -> None:
        if self.events and self.events[-1][0] == "data":
            self.events[-1] = ("data", self.events[-1][1] + data)
        else:
            self.events.append(("data", data))

    def handle_comment(self, data: str) -> None:
        self.events.append(("comment", data))


def _parse(html: str) -> _Events:
    p = _Events()
    p.feed(html)
    p.close()
    return p


PAGE = """<!DOCTYPE html><html><head><title>TTFT</title></head><body>
<h2 id="kv">KV cache</h2>
<p class="lead" data-note='TTFT &amp; TPOT'>vLLM's <b>PagedAttention</b> keeps the KV cache in blocks;
TTFT &lt; 1 s &amp; TPOT&nbsp;stays flat. <a href="/x">TTFT link</a> <img src="ttft.png" alt="TTFT"/></p>
<!-- TPOT --><ul><li>H100s and TPUs</li></ul>
</body></html>"""


def test_rewritten_html_keeps_the_page_markup(annotator: Annotator) -> None:
    annotation = annotator.annotate(PAGE, AnnotateOptions(format="html"))
    assert len(annotation.mentions) >= 6
    for markup in ("link", "abbr"):
        out = rewrite(annotation, markup)  # type: ignore[arg-type]
        before, after = _parse(PAGE), _parse(out)
        assert after.events == before.events, markup  # same tags, attributes, text and comments
        assert len(after.inserted) == len(annotation.mentions)
        # outside the inserted tags every character is the page's own
        stripped = out
        for m in annotation.mentions:
            stripped = stripped.replace(_open(annotator, m, markup), "", 1)
        assert stripped.replace("</a>", "").replace("</abbr>", "") == PAGE.replace("</a>", "").replace(
            "</abbr>", ""
        )


def _open(annotator: Annotator, m: Any, markup: str) -> str:
    from kg.annotate.render import open_tag

    return open_tag(m, markup)  # type: ignore[arg-type]


def test_links_carry_the_term_and_its_url(annotator: Annotator) -> None:
    annotation = annotator.annotate(
        "TTFT", AnnotateOptions(base_url="https://d.example/", url_template="{base}/t/{id}")
    )
    out = rewrite(annotation)
    assert (
        out
        == '<a class="gkg-term" href="https://d.example/t/time-to-first-token" data-term="time-to-first-token" data-lang="zh">TTFT</a>'
    )
    abbr = _parse(rewrite(annotation, "abbr")).inserted[0]
    assert abbr["data-term"] == "time-to-first-token"
    assert abbr["title"] and abbr["title"].startswith("Time To First Token: ")


def test_a_text_page_comes_back_as_escaped_html(annotator: Annotator) -> None:
    annotation = annotator.annotate('a < b & "TTFT" <script>', AnnotateOptions())
    out = rewrite(annotation)
    assert out.startswith("a &lt; b &amp; &quot;<a ")
    assert out.endswith("&quot; &lt;script&gt;")


def test_a_markdown_page_stays_markdown(annotator: Annotator) -> None:
    page = "# TTFT\n\nThe `TTFT` of the KV cache & [TPOT](x).\n"
    out = rewrite(annotator.annotate(page, AnnotateOptions(format="markdown")))
    assert out == page.replace(
        "KV cache",
        '<a class="gkg-term" href="/terms/kv-cache" data-term="kv-cache" data-lang="zh">KV cache</a>',
    )


def _hostile_glossary(graph_doc: dict[str, Any]) -> Glossary:
    """The real graph with one term whose label and definition hold markup and quotes."""
    doc = {**graph_doc, "nodes": [dict(n) for n in graph_doc["nodes"]]}
    node = next(n for n in doc["nodes"] if n["id"] == "time-to-first-token")
    node["labels"] = {"en": '<img src=x onerror="alert(1)">TTFT', "zh": "首 token 时间"}
    node["definitions"] = [
        {
            "lang": "en",
            "text": 'Time "to" <b>first</b> token & more.',
            "source": "002",
            "section": None,
            "line": 1,
            "note": None,
        }
    ]
    return Glossary(doc)


def test_every_inserted_text_is_escaped(graph_doc: dict[str, Any]) -> None:
    annotator = Annotator(_hostile_glossary(graph_doc))
    annotation = annotator.annotate("TTFT", AnnotateOptions(base_url='"><script>x</script>', lang="en"))
    for markup in ("link", "abbr"):
        out = rewrite(annotation, markup)  # type: ignore[arg-type]
        assert "<script>" not in out and "<img" not in out and "<b>" not in out
        parsed = _parse(out)
        assert [e[0] for e in parsed.events] == ["data"]  # no element but the inserted one
        attrs = parsed.inserted[0]
        if markup == "abbr":
            assert (
                attrs["title"]
                == '<img src=x onerror="alert(1)">TTFT: Time "to" <b>first</b> token & more. [002]'
            )
        else:
            assert attrs["href"] == '"><script>x</script>/terms/time-to-first-token'


def test_card_html_is_escaped_and_warns_of_confusables(graph_doc: dict[str, Any], glossary: Glossary) -> None:
    card = term_card(_hostile_glossary(graph_doc), "time-to-first-token", "en")
    html = render_card_html(card)
    assert "<img" not in html and "<b>first</b>" not in html and "&lt;b&gt;first&lt;/b&gt;" in html
    assert "often confused with" in html and 'data-term="time-per-output-token"' in html
    zh = render_card_html(term_card(glossary, "time-to-first-token", "zh"))
    assert "易混淆 / often confused with" in zh and 'lang="zh"' in zh and "首 token 时间" in zh


def test_card_is_bilingual_with_a_sourced_sentence(glossary: Glossary) -> None:
    card = term_card(glossary, "time-to-first-token", "zh", base_url="https://d.example")
    assert card.labels == {"en": "Time To First Token", "zh": "首 token 时间"}
    assert card.abbreviations == ["TTFT"]
    assert card.definition is not None and card.definition.lang == "zh" and card.definition.source == "002"
    assert card.url == "https://d.example/terms/time-to-first-token"
    confused = {c.id: c for c in card.confused_with}
    assert "time-per-output-token" in confused and confused["time-per-output-token"].evidence
