"""The Sphinx extension on real Sphinx builds: the generated glossary, objects.inv read with
sphobjinv, ``:term:`` links into it from a second project through intersphinx (local inventory,
no network), auto-linking of plain mentions, incremental rebuilds, and the real graph."""

from __future__ import annotations

import copy
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from kg.docs_integrations.rst import escape, glossary_rst, term_line, term_ref
from kg.export._names import unique_names

pytest.importorskip("sphinx", reason="needs the docs extra: pip install -e '.[docs]'")
sphobjinv = pytest.importorskip("sphobjinv", reason="needs the docs extra: pip install -e '.[docs]'")

EXT = "kg.docs_integrations.sphinx_ext"


class _Links(HTMLParser):
    """Every element id, and every <a> with its href, text and classes (its own and its children's)."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[dict[str, str]] = []
        self._open: dict[str, str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a":
            self._open = {"href": a.get("href", ""), "class": a.get("class", ""), "text": ""}
            self.links.append(self._open)
        elif self._open is not None and a.get("class"):
            self._open["class"] += " " + a["class"]

    def handle_endtag(self, tag: str) -> None:
        if tag == "a":
            self._open = None

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._open["text"] += data


def parse(html: str) -> _Links:
    p = _Links()
    p.feed(html)
    return p


def inventory(outdir: Path) -> dict[tuple[str, str], str]:
    """(domain:role, name) → expanded URI, read from objects.inv by sphobjinv."""
    inv = sphobjinv.Inventory(fname_zlib=str(outdir / "objects.inv"))
    return {(f"{o.domain}:{o.role}", o.name): o.uri_expanded for o in inv.objects}


def all_names(doc: dict[str, Any]) -> set[str]:
    """Every label, abbreviation and alias, with repeats inside a node (any case) removed: written
    out from the document here, not taken from the code under test."""
    out: set[str] = set()
    for n in doc["nodes"]:
        seen: set[str] = set()
        for name in [*n["labels"].values(), *n["abbreviations"], *n["aliases"]]:
            if name.casefold() not in seen:
                seen.add(name.casefold())
                out.add(name)
    return out


# --- the reST, without Sphinx ------------------------------------------------------------------


def test_term_lines_and_text_are_escaped():
    assert term_line("ops : byte") == r"ops \: byte"  # not "term : classifier"
    assert term_line(".. not a comment") == r"\.. not a comment"
    assert term_line("a*b*\n  c_") == r"a\*b\* c\_"
    assert escape("`x` |y| [1]_ name_ ::") == r"\`x\` \|y\| \[1\]\_ name\_ \:\:"
    assert term_ref("Prefill", "prefill") == ":term:`Prefill`"
    assert term_ref("a <b>", "ab") == r":ref:`a \<b\> <kg-ab>`"  # a role cannot carry "<...>" as a target


def test_rst_lists_every_name_once_and_the_confusables(small_doc):
    rst = glossary_rst(small_doc)
    assert rst.count(".. _kg-time-to-first-token:") == 1
    assert "\n   TTFT\n" in rst and "\n   首 token 延迟\n" in rst
    ttft = rst[rst.index("\n   Time to first token\n") :]
    ttft = (
        ttft[: ttft.index("\n   Time per output token\n")] if "\n   Time per output token\n" in ttft else ttft
    )
    assert "**易混淆 / often confused with:** :term:`Time per output token`" in ttft
    assert "“TTFT 与 TPOT”" in ttft


# --- real Sphinx builds ----------------------------------------------------------------------------


def test_glossary_page_and_inventory(sphinx_build, graph_json, small_doc):
    b = sphinx_build(
        "kgdocs",
        {"extensions": [EXT], "glossary_kg_artifact": "../../graph.json"},
        {"index": "Docs\n====\n\n.. toctree::\n\n   glossary\n"},
    )
    assert b.warnings == ""
    assert ".. kg-glossary::" in (b.srcdir / "glossary.rst").read_text(encoding="utf-8")  # generated page
    inv = inventory(b.outdir)
    terms = {name for (role, name) in inv if role == "std:term"}
    assert terms == all_names(small_doc)
    labels = {name for (role, name) in inv if role == "std:label" and name.startswith("kg-")}
    assert labels == {f"kg-{n['id']}" for n in small_doc["nodes"]}

    page = parse(b.html("glossary"))
    for (role, name), uri in inv.items():
        if role in ("std:term", "std:label") and uri.startswith("glossary.html#"):
            assert uri.split("#", 1)[1] in page.ids, name  # every published anchor exists
    # the "often confused with" line links TTFT's entry to TPOT's
    tpot = inv["std:term", "Time per output token"].split("#", 1)[1]
    assert any(a["href"] == f"#{tpot}" and "std-term" in a["class"] for a in page.links)
    html = b.html("glossary")
    assert "易混淆 / often confused with:" in html and "Performance metrics · 性能指标" in html
    assert "缓存 `past_key_values` 的 *K* | *V* 张量" in html  # markup characters stay text


def test_odd_names_build_cleanly(sphinx_build, tmp_path, small_doc):
    odd = copy.deepcopy(small_doc)
    odd["nodes"].append(
        {
            "id": "odd-one",
            "labels": {"en": "ops : byte <ratio>", "zh": "`怪`名"},
            "aliases": ["..dots", "x*y*", "a_b_", "|sub|"],
            "abbreviations": [],
            "definitions": [{"lang": "en", "text": "Text with :role:`x` and `code` and ::", "source": "001"}],
            "categories": [],
            "sources": ["001"],
        }
    )
    odd["edges"].append(
        {
            "source": "prefill",
            "target": "odd-one",
            "type": "confused_with",
            "evidence": "<odd> *x*",
            "doc": "001",
        }
    )
    (tmp_path / "odd.json").write_text(json.dumps(odd, ensure_ascii=False), encoding="utf-8")
    b = sphinx_build(
        "odd", {"extensions": [EXT], "glossary_kg_artifact": "../../odd.json"}, {"index": "Odd\n===\n"}
    )
    assert b.warnings == ""
    terms = {name for (role, name) in inventory(b.outdir) if role == "std:term"}
    assert {"ops : byte <ratio>", "`怪`名", "..dots", "x*y*", "a_b_", "|sub|"} <= terms
    html = b.html("glossary")
    assert "Text with :role:`x` and `code` and ::" in html
    # prefill's confusable has a name no role can carry: linked through its kg- label instead
    assert 'href="#kg-odd-one"' in html


def test_intersphinx_term_links_resolve_into_the_first_project(sphinx_build, graph_json, no_network):
    first = sphinx_build(
        "kgdocs",
        {"extensions": [EXT], "glossary_kg_artifact": "../../graph.json"},
        {"index": "Docs\n====\n"},
    )
    assert first.warnings == ""
    inv = inventory(first.outdir)
    second = sphinx_build(
        "consumer",
        {
            "extensions": ["sphinx.ext.intersphinx"],
            "intersphinx_mapping": {"kg": (str(first.outdir), None)},  # a local directory: no fetch
            "intersphinx_timeout": 1,
        },
        {
            "index": "Consumer\n========\n\n"
            "We measure :term:`TTFT` and :term:`首 token 延迟`, size the :term:`kv cache` (any case), "
            "avoid :external+kg:term:`prompt processing` stalls and read :ref:`Prefill <kg:kg-prefill>`.\n"
        },
    )
    assert second.warnings == "", second.warnings
    assert no_network == []
    links = {a["text"]: a["href"] for a in parse(second.html("index")).links if "external" in a["class"]}
    base = str(first.outdir)
    expected = {
        "TTFT": inv["std:term", "TTFT"],
        "首 token 延迟": inv["std:term", "首 token 延迟"],
        "kv cache": inv["std:term", "KV cache"],
        "prompt processing": inv["std:term", "prompt processing"],
        "Prefill": inv["std:label", "kg-prefill"],
    }
    for text, uri in expected.items():
        assert links[text] == f"{base}/{uri}", text
        target = parse(first.html("glossary"))
        assert uri.split("#", 1)[1] in target.ids


def test_unresolvable_term_is_reported(sphinx_build, graph_json, no_network):
    """The check above can fail: a term the first project does not have gives a warning."""
    first = sphinx_build(
        "kgdocs", {"extensions": [EXT], "glossary_kg_artifact": "../../graph.json"}, {"index": "D\n=\n"}
    )
    second = sphinx_build(
        "consumer",
        {"extensions": ["sphinx.ext.intersphinx"], "intersphinx_mapping": {"kg": (str(first.outdir), None)}},
        {"index": "C\n=\n\nSee :term:`no such term`.\n"},
    )
    assert "no such term" in second.warnings


AUTOLINK_PAGE = """Lowering TTFT
=============

We lower TTFT with shorter prompts; the KV caches grow during decode. Again TTFT.
``TTFT`` in code and `a link about TTFT <https://example.invalid/>`_ stay as they are.

.. code-block:: text

   TTFT in a code block

显存墙很重要，prefill 是计算密集的。
"""


def test_autolink_links_first_plain_mentions_only(sphinx_build, graph_json):
    b = sphinx_build(
        "auto",
        {"extensions": [EXT], "glossary_kg_artifact": "../../graph.json", "glossary_kg_autolink": True},
        {"index": ".. toctree::\n\n   page\n   glossary\n", "page": AUTOLINK_PAGE},
    )
    assert b.warnings == ""
    html = b.html("page")
    terms = [a for a in parse(html).links if "std-term" in a["class"]]
    # "decode" and "prefill" are everyday words to the engine: this five-term graph gives their
    # sentences no support, so they stay plain (the real graph's test below links them)
    assert [a["text"] for a in terms] == ["TTFT", "KV caches", "显存墙"]
    assert all(a["href"].startswith("glossary.html#") for a in terms)
    assert "<h1>Lowering TTFT" in html  # the title is left alone
    assert "TTFT in a code block" in html and "Again TTFT." in html
    glossary_links = [a for a in parse(b.html("glossary")).links if a["href"].startswith("glossary.html")]
    assert glossary_links == []  # the glossary page itself is not auto-linked


def test_autolink_off_by_default_and_all_mentions_on_request(sphinx_build, graph_json):
    off = sphinx_build(
        "off", {"extensions": [EXT], "glossary_kg_artifact": "../../graph.json"}, {"index": AUTOLINK_PAGE}
    )
    assert not [a for a in parse(off.html("index")).links if "std-term" in a["class"]]
    every = sphinx_build(
        "every",
        {
            "extensions": [EXT],
            "glossary_kg_artifact": "../../graph.json",
            "glossary_kg_autolink": True,
            "glossary_kg_autolink_all": True,
        },
        {"index": AUTOLINK_PAGE},
    )
    texts = [a["text"] for a in parse(every.html("index")).links if "std-term" in a["class"]]
    assert texts.count("TTFT") == 2


REAL_AUTOLINK_PAGE = """Serving notes
=============

Each decode step emits one token per request in the batch, and the KV cache grows with it.
Before you start, export your Hugging Face token. ``TTFT`` stays code, :term:`TTFT` is linked
by hand, and `a link about prefill <https://example.invalid/>`_ stays a plain link.

张量并行把每层的矩阵切到多张 GPU 上。

.. code-block:: text

   tensor parallelism in a code block
"""


def test_autolink_uses_the_annotation_engine_on_the_real_graph(sphinx_build, tmp_path, real_doc):
    graph = tmp_path / "real-graph.json"
    graph.write_text(json.dumps(real_doc, ensure_ascii=False), encoding="utf-8")
    b = sphinx_build(
        "real-auto",
        {
            "extensions": [EXT],
            "glossary_kg_artifact": "../../real-graph.json",
            "glossary_kg_autolink": True,
            "glossary_kg_autolink_all": True,  # every mention: the auth token must stay plain on its own
        },
        {"index": ".. toctree::\n\n   page\n   glossary\n", "page": REAL_AUTOLINK_PAGE},
    )
    assert b.warnings == ""
    html = b.html("page")
    terms = [a for a in parse(html).links if "std-term" in a["class"]]
    texts = [a["text"] for a in terms]
    # plain mentions became links to the glossary entries, in reading order
    assert texts[:3] == ["decode", "token", "batch"] and "KV cache" in texts and "张量并行" in texts
    assert "GPU" in texts
    assert all(a["href"].startswith("glossary.html#") for a in terms)
    glossary_ids = parse(b.html("glossary")).ids
    assert all(a["href"].split("#", 1)[1] in glossary_ids for a in terms)
    # the hand-written :term: is the only TTFT link; the code literal, the link text, the code
    # block and the heading are untouched; the auth token is no LLM token (one token link only)
    assert texts.count("TTFT") == 1 and texts.count("token") == 1
    assert "prefill" not in texts and "tensor parallelism" not in texts
    assert '<code class="docutils literal notranslate"><span class="pre">TTFT</span></code>' in html
    assert "<h1>Serving notes" in html


def test_own_page_is_kept_and_graph_changes_rebuild(sphinx_build, graph_json, small_doc):
    own = "My glossary\n===========\n\nIntro.\n\n.. kg-glossary::\n"
    conf = {"extensions": [EXT], "glossary_kg_artifact": "../../graph.json"}
    b = sphinx_build("own", conf, {"index": ".. toctree::\n\n   glossary\n", "glossary": own})
    assert b.warnings == ""
    assert (b.srcdir / "glossary.rst").read_text(encoding="utf-8") == own
    assert "Intro." in b.html("glossary")
    assert ("std:term", "Speculative decoding") not in inventory(b.outdir)

    changed = copy.deepcopy(small_doc)
    changed["nodes"].append(
        {
            "id": "speculative-decoding",
            "labels": {"en": "Speculative decoding"},
            "aliases": [],
            "abbreviations": [],
            "definitions": [],
            "categories": [],
            "sources": [],
        }
    )
    graph_json.write_text(json.dumps(changed, ensure_ascii=False), encoding="utf-8")
    again = sphinx_build("own", conf, {}, fresh=False)  # incremental: the page depends on the graph
    assert ("std:term", "Speculative decoding") in inventory(again.outdir)


def test_missing_artifact_names_the_path(sphinx_build, tmp_path):
    from sphinx.errors import ExtensionError

    with pytest.raises(ExtensionError, match=re.escape(str(tmp_path / "nowhere"))):
        sphinx_build(
            "missing", {"extensions": [EXT], "glossary_kg_artifact": "../../nowhere"}, {"index": "X\n=\n"}
        )


@pytest.mark.slow
def test_real_artifact_publishes_every_name(sphinx_build, hash_artifact):
    """The whole real glossary, read from a `glossary build` artifact (checksums verified)."""
    from kg.verify import read_graph

    doc = read_graph(hash_artifact)
    b = sphinx_build(
        "real", {"extensions": [EXT], "glossary_kg_artifact": str(hash_artifact)}, {"index": "R\n=\n"}
    )
    assert b.warnings == ""
    inv = inventory(b.outdir)
    terms = {name for (role, name) in inv if role == "std:term"}
    expected = {name for names in unique_names(doc).values() for name in names}
    assert terms == expected and len(terms) >= len(doc["nodes"])
    assert {name for (role, name) in inv if role == "std:label" and name.startswith("kg-")} == {
        f"kg-{n['id']}" for n in doc["nodes"]
    }
    confused = sum(1 for e in doc["edges"] if e["type"] == "confused_with")
    assert b.html("glossary").count("易混淆 / often confused with:") == len(
        {n for e in doc["edges"] if e["type"] == "confused_with" for n in (e["source"], e["target"])}
    )
    assert confused > 0
