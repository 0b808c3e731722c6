"""Markdown export: anchors, links, ordering, escaping (checked on rendered HTML too)."""

from __future__ import annotations

import re

import pytest

from kg.export import to_markdown
from kg.export.markdown import escape

LINK = re.compile(r"\]\(#([^)]+)\)")


def _blocks(md: str) -> dict[str, str]:
    """Term id → the Markdown of its entry (from its ### heading to the next heading)."""
    out = {}
    for part in re.split(r"\n(?=#{2,3} )", md):
        m = re.match(r'### <a id="([^"]+)"></a>', part)
        if m:
            out[m.group(1)] = part
    return out


def _line(block: str, prefix: str) -> str:
    lines = [ln for ln in block.splitlines() if ln.startswith(prefix)]
    return lines[0] if lines else ""


def test_one_anchor_per_node_and_all_links_resolve(doc):
    md = to_markdown(doc)
    for node in doc["nodes"]:
        assert md.count(f'<a id="{node["id"]}"></a>') == 1
    anchors = re.findall(r'<a id="([^"]+)"></a>', md)
    assert len(anchors) == len(set(anchors))
    targets = set(LINK.findall(md))
    assert targets and targets <= set(anchors)


def test_edges_become_links_on_both_terms(doc, expected_related, expected_confused):
    blocks = _blocks(to_markdown(doc))
    assert set(blocks) == {n["id"] for n in doc["nodes"]}
    for nid, block in blocks.items():
        assert set(LINK.findall(_line(block, "Related:"))) == expected_related[nid]
        assert set(LINK.findall(_line(block, "Often confused with:"))) == expected_confused[nid]
    assert "ghost-node" not in to_markdown(doc)


def test_labels_names_and_definitions(doc):
    md = to_markdown(doc)
    blocks = _blocks(md)
    assert "**Time to first token · 首 token 延迟**" in blocks["time-to-first-token"]
    assert "**显存墙**" in blocks["memory-wall"]
    assert "Abbreviations: TTFT" in blocks["time-to-first-token"]
    assert "Aliases: 首 token 时间, time-to-first-token" in blocks["time-to-first-token"]
    for node in doc["nodes"]:
        bullets = [ln for ln in blocks[node["id"]].splitlines() if ln.startswith("- ")]
        assert len(bullets) == len(node["definitions"])
        for bullet, d in zip(bullets, node["definitions"], strict=True):
            assert bullet.endswith(f"[[{d['source']}](#source-{d['source']})]")
    assert '<a id="source-001"></a>' in md and '<a id="source-002"></a>' in md


def test_sections_sorted_by_category_label_and_terms_by_label(doc):
    md = to_markdown(doc)
    sections = re.findall(r"^## (.+)$", md, flags=re.M)
    assert sections == [
        "Compression · 量化与压缩",
        "Memory · 显存",
        "Performance metrics · 性能指标",
        "Uncategorised · 未分类",
        "Sources · 来源",
    ]
    metrics = md.split("## Performance metrics")[1].split("\n## ")[0]
    order = re.findall(r'### <a id="([^"]+)"></a>', metrics)
    assert order == ["decode", "prefill", "time-per-output-token", "time-to-first-token"]


def test_term_in_two_categories_written_once_with_see_also(doc):
    md = to_markdown(doc)
    memory = md.split("## Memory")[1].split("\n## ")[0]
    assert '<a id="kv-cache"></a>' in memory
    see_also = _line(memory, "See also:")
    assert set(LINK.findall(see_also)) == {"decode", "4-bit-quantization"}


def test_special_characters_are_escaped(doc):
    md = to_markdown(doc)
    assert "key \\& value cache \\<KV\\>" in md
    # Every "<" is either escaped or opens one of the page's own anchors.
    assert not re.search(r"(?<!\\)<(?!a id=\"|/a>)", md)
    assert "\\<见 decode\\>" in md
    assert "\\`past\\_key\\_values\\` 的 \\*K\\* \\| \\*V\\*" in md


@pytest.mark.parametrize(
    ("raw", "escaped"),
    [
        ("a|b", "a\\|b"),
        ("*x* _y_ `z`", "\\*x\\* \\_y\\_ \\`z\\`"),
        ("<b>", "\\<b\\>"),
        ("[x](y)", "\\[x\\](y)"),
        ("- item", "\\- item"),
        ("1. item", "1\\. item"),
        ("2) item", "2\\) item"),
        ("4-bit", "4-bit"),
        ("C# & F#", "C\\# \\& F\\#"),
        ("two\nlines", "two lines"),
    ],
)
def test_escape(raw, escaped):
    assert escape(raw) == escaped


def test_rendered_html_shows_text_literally(doc):
    markdown_it = pytest.importorskip("markdown_it")
    html = markdown_it.MarkdownIt("commonmark").render(to_markdown(doc))
    assert "key &amp; value cache &lt;KV&gt;" in html
    assert "<em>" not in html and "<code>past" not in html and "<table" not in html
    assert "*K* | *V*" in html
    assert '<a href="#time-to-first-token">' in html
    assert '<a id="time-to-first-token"></a>' in html
    assert "<strong>Time to first token · 首 token 延迟</strong>" in html
