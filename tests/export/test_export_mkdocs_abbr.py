"""mkdocs-material abbreviations: parsed back by Python-Markdown's own ``abbr`` extension (the
component mkdocs-material uses), line format, odd characters, shared abbreviations."""

from __future__ import annotations

import copy
import re
import xml.etree.ElementTree as ET

import markdown
import pytest

from kg.export import export, to_mkdocs_abbr
from kg.export.mkdocs_abbr import matchable

# The extension's own definition pattern (markdown/extensions/abbr.py, AbbrBlockprocessor.RE).
ABBR_LINE = re.compile(r"^[*]\[(?P<abbr>[^\\]*?)\][ ]?:[ ]*\n?[ ]*(?P<title>.*)$")


def abbr_titles(page: str, abbreviations: str) -> dict[str, set[str]]:
    """Render *page* with the abbreviations file appended (as pymdownx.snippets auto_append does)
    and return every ``<abbr>``'s text → its titles."""
    html = markdown.markdown(page + "\n\n" + abbreviations, extensions=["abbr"])
    root = ET.fromstring(f"<div>{html}</div>")
    out: dict[str, set[str]] = {}
    for el in root.iter("abbr"):
        out.setdefault(el.text or "", set()).add(el.get("title") or "")
    return out


def test_lines_follow_the_extension_syntax(doc):
    text = to_mkdocs_abbr(doc)
    lines = text.splitlines()
    assert text.endswith("\n") and all(lines)
    assert [ABBR_LINE.match(ln).group("abbr") for ln in lines] == ["INT4", "TPOT", "TTFT", "W4"]
    # KV$ ends with a non-word character: \bKV\$\b can never match a page, so it is left out
    assert "KV$" not in text and not matchable("KV$")


def test_rendered_page_gets_the_tooltips(doc):
    titles = abbr_titles("Lower TTFT, then TPOT; INT4 (W4) weights. ttft stays plain.", to_mkdocs_abbr(doc))
    assert titles["TTFT"] == {
        "Time to first token · 首 token 延迟 — Time from request arrival to the first output token."
    }
    assert titles["TPOT"] == {
        "Time per output token · 每 token 输出时间 — 首 token 之后每个 token 的平均生成时间。"
    }
    assert titles["INT4"] == titles["W4"] == {"4-bit quantization · 4 比特量化 — 把权重压到 4 比特。"}
    assert "ttft" not in titles  # case-sensitive, as abbreviations must be


def test_odd_characters_survive_as_text(doc):
    odd = copy.deepcopy(doc)
    ttft = odd["nodes"][0]
    ttft["labels"]["en"] = 'Time "to" <first> & token'
    ttft["definitions"][1]["text"] = "Line one\n*[TPOT]: injected\n\tline <b>two</b> & 'three'."
    text = to_mkdocs_abbr(odd)
    assert len(text.splitlines()) == 4  # the newline in the definition did not add a definition
    titles = abbr_titles("TTFT and TPOT", text)
    assert titles["TTFT"] == {
        "Time \"to\" <first> & token · 首 token 延迟 — Line one *[TPOT]: injected line <b>two</b> & 'three'."
    }
    assert titles["TPOT"] == {
        "Time per output token · 每 token 输出时间 — 首 token 之后每个 token 的平均生成时间。"
    }


def test_shared_abbreviation_names_every_term(doc):
    shared = copy.deepcopy(doc)
    shared["nodes"][1]["abbreviations"].append("TTFT")  # TPOT's node now claims TTFT too
    line = next(ln for ln in to_mkdocs_abbr(shared).splitlines() if ln.startswith("*[TTFT]"))
    assert "Time to first token" in line and "Time per output token" in line and "; " in line


def test_long_titles_are_cut(doc):
    long = copy.deepcopy(doc)
    long["nodes"][0]["definitions"][1]["text"] = "x" * 500
    line = next(ln for ln in to_mkdocs_abbr(long).splitlines() if ln.startswith("*[TTFT]"))
    assert len(ABBR_LINE.match(line).group("title")) <= 200 and line.endswith("…")


@pytest.mark.parametrize("abbr", ["A\\B", "(KV)", "KV$", "-EP", ""])
def test_unmatchable_abbreviations(abbr):
    assert not matchable(abbr)


def test_no_abbreviations_gives_an_empty_file(doc):
    for n in doc["nodes"]:
        n["abbreviations"] = []
    assert export(doc, "mkdocs-abbr") == ("", "text/markdown; charset=utf-8")
