"""`glossary export --format mkdocs-abbr` in a real mkdocs-material build, configured as in
docs/DOCS-TOOLING.md (abbr + pymdownx.snippets auto_append), offline."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from kg.export import to_mkdocs_abbr

pytest.importorskip("mkdocs", reason="needs the docs extra: pip install -e '.[docs]'")
pytest.importorskip("material", reason="needs the docs extra: pip install -e '.[docs]'")

CONFIG = """site_name: abbr test
theme:
  name: material
  font: false
markdown_extensions:
  - abbr
  - attr_list
  - pymdownx.snippets:
      base_path: [{root}]
      auto_append:
        - includes/abbreviations.md
"""


def test_material_site_shows_abbreviation_tooltips(tmp_path: Path, small_doc, no_network) -> None:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    (tmp_path / "includes").mkdir()
    (tmp_path / "includes" / "abbreviations.md").write_text(to_mkdocs_abbr(small_doc), encoding="utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text(
        "# Latency\n\nWe watch TTFT and TPOT; `TTFT` in code stays plain. INT4 weights.\n", encoding="utf-8"
    )
    (tmp_path / "mkdocs.yml").write_text(CONFIG.format(root=tmp_path), encoding="utf-8")
    build(load_config(config_file=str(tmp_path / "mkdocs.yml")))

    page = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    found = {
        text: html.unescape(title)
        for title, text in re.findall(r'<abbr title="([^"]*)">([^<]+)</abbr>', page)
    }
    assert found == {
        "TTFT": "Time to first token · 首 token 延迟 — Time from request arrival to the first output token.",
        "TPOT": "Time per output token · 每 token 输出时间 — 首 token 之后每个 token 的平均生成时间。",
        "INT4": "4-bit quantization · 4 比特量化 — 把权重压到 4 比特。",
    }
    assert "<code>TTFT</code>" in page
    assert no_network == []
