"""A small hand-made export document for the exporter tests.

It covers: bilingual labels, a node with only a Chinese label (and an English definition, so
the TBX writer must put it at concept level), an alias with ``&`` and ``<``, Markdown special
characters in a definition, an alias repeating a label, a node id starting with a digit (not an XML name), a node in two
categories, a node in none, ``related_to`` and ``confused_with`` edges, and an edge to a node
that does not exist (every exporter must ignore it).

pytest's default import mode puts only this directory on ``sys.path`` and the project is not
necessarily pip-installed, so the repository root is added to make ``import kg`` work.
"""

from __future__ import annotations

import copy
import re
import sys
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

DOC: dict[str, Any] = {
    "format": "glossary-kg",
    "version": 1,
    "sources": [
        {
            "id": "001",
            "file": "001_ad403664db526fab.txt",
            "title": "推理加速手册",
            "language": "zh",
            "description": "长文",
        },
        {
            "id": "002",
            "file": "002_5f868c8b64370bf3.txt",
            "title": "术语表",
            "language": "zh",
            "description": "核心术语",
        },
    ],
    "categories": [
        {"id": "metrics", "labels": {"en": "Performance metrics", "zh": "性能指标"}},
        {"id": "compression", "labels": {"en": "Compression", "zh": "量化与压缩"}},
        {"id": "memory", "labels": {"en": "Memory", "zh": "显存"}},
    ],
    "nodes": [
        {
            "id": "time-to-first-token",
            "labels": {"en": "Time to first token", "zh": "首 token 延迟"},
            "aliases": ["首 token 时间", "time-to-first-token"],
            "abbreviations": ["TTFT"],
            "definitions": [
                {
                    "lang": "zh",
                    "text": "从请求到达到首个 token 输出的时间，对应 prefill 阶段。",
                    "source": "002",
                    "section": "性能与指标",
                    "line": 19,
                    "note": None,
                },
                {
                    "lang": "en",
                    "text": "Time from request arrival to the first output token.",
                    "source": "001",
                    "section": None,
                    "line": 7,
                    "note": None,
                },
                {
                    "lang": "zh",
                    "text": "交互式场景最敏感的指标。",
                    "source": "001",
                    "section": None,
                    "line": 8,
                    "note": None,
                },
            ],
            "categories": ["metrics"],
            "sources": ["001", "002"],
        },
        {
            "id": "time-per-output-token",
            "labels": {"en": "Time per output token", "zh": "每 token 输出时间"},
            "aliases": [],
            "abbreviations": ["TPOT"],
            "definitions": [
                {
                    "lang": "zh",
                    "text": "首 token 之后每个 token 的平均生成时间。",
                    "source": "002",
                    "section": "性能与指标",
                    "line": 20,
                    "note": "打字速度",
                }
            ],
            "categories": ["metrics"],
            "sources": ["002"],
        },
        {
            "id": "prefill",
            "labels": {"en": "Prefill", "zh": "预填充"},
            "aliases": ["预填", "prompt processing"],
            "abbreviations": [],
            "definitions": [
                {
                    "lang": "zh",
                    "text": "一次性处理整个 prompt（计算密集）。",
                    "source": "002",
                    "section": None,
                    "line": 30,
                    "note": None,
                }
            ],
            "categories": ["metrics"],
            "sources": ["002"],
        },
        {
            "id": "decode",
            "labels": {"en": "Decode", "zh": "解码"},
            "aliases": ["解码", "decoding"],  # the first repeats the zh label
            "abbreviations": [],
            "definitions": [
                {
                    "lang": "zh",
                    "text": "逐 token 自回归生成（访存密集）。",
                    "source": "002",
                    "section": None,
                    "line": 30,
                    "note": None,
                }
            ],
            "categories": ["metrics", "memory"],
            "sources": ["002"],
        },
        {
            "id": "kv-cache",
            "labels": {"en": "KV cache", "zh": "KV 缓存"},
            "aliases": ["key & value cache <KV>", "键值缓存"],
            "abbreviations": ["KV$"],
            "definitions": [
                {
                    "lang": "zh",
                    "text": "缓存 `past_key_values` 的 *K* | *V* 张量，_避免_重复计算 <见 decode>。",
                    "source": "001",
                    "section": "显存",
                    "line": 120,
                    "note": None,
                }
            ],
            "categories": ["memory"],
            "sources": ["001"],
        },
        {
            "id": "memory-wall",
            "labels": {"zh": "显存墙"},
            "aliases": [],
            "abbreviations": [],
            "definitions": [
                {
                    "lang": "zh",
                    "text": "显存带宽跟不上算力增长。",
                    "source": "001",
                    "section": None,
                    "line": 200,
                    "note": None,
                },
                {
                    "lang": "en",
                    "text": "Memory bandwidth lags compute.",
                    "source": "001",
                    "section": None,
                    "line": 201,
                    "note": None,
                },
            ],
            "categories": [],
            "sources": ["001"],
        },
        {
            "id": "4-bit-quantization",
            "labels": {"en": "4-bit quantization", "zh": "4 比特量化"},
            "aliases": ["INT4 量化"],
            "abbreviations": ["INT4", "W4"],
            "definitions": [
                {
                    "lang": "zh",
                    "text": "把权重压到 4 比特。",
                    "source": "002",
                    "section": "量化与压缩",
                    "line": 40,
                    "note": None,
                }
            ],
            "categories": ["compression", "memory"],
            "sources": ["002"],
        },
    ],
    "edges": [
        {
            "source": "time-to-first-token",
            "target": "prefill",
            "type": "related_to",
            "evidence": "对应 prefill 阶段",
            "origin": "mention",
            "doc": "002",
            "line": 19,
        },
        {
            "source": "time-per-output-token",
            "target": "decode",
            "type": "related_to",
            "evidence": "对应 decode 阶段",
            "origin": "mention",
            "doc": "002",
            "line": 20,
        },
        {
            "source": "time-to-first-token",
            "target": "time-per-output-token",
            "type": "confused_with",
            "evidence": "TTFT 与 TPOT",
            "origin": "confusables-section",
            "doc": "002",
            "line": 60,
        },
        {
            "source": "prefill",
            "target": "decode",
            "type": "confused_with",
            "evidence": "prefill / decode",
            "origin": "contrast",
            "doc": "002",
            "line": 30,
        },
        {
            "source": "memory-wall",
            "target": "4-bit-quantization",
            "type": "related_to",
            "evidence": "量化缓解显存墙",
            "origin": "xref",
            "doc": "001",
            "line": 200,
        },
        {
            "source": "kv-cache",
            "target": "ghost-node",
            "type": "related_to",
            "evidence": "dangling",
            "origin": "mention",
            "doc": "001",
            "line": 121,
        },
    ],
}

# Expected undirected neighbourhoods, written out by hand (not computed by the code under test).
RELATED = {
    "time-to-first-token": {"prefill"},
    "prefill": {"time-to-first-token"},
    "time-per-output-token": {"decode"},
    "decode": {"time-per-output-token"},
    "memory-wall": {"4-bit-quantization"},
    "4-bit-quantization": {"memory-wall"},
    "kv-cache": set(),
}
CONFUSED = {
    "time-to-first-token": {"time-per-output-token"},
    "time-per-output-token": {"time-to-first-token"},
    "prefill": {"decode"},
    "decode": {"prefill"},
    "kv-cache": set(),
    "memory-wall": set(),
    "4-bit-quantization": set(),
}

_HAN = re.compile(r"[\u3400-\u9fff]")


def lang_by_script(text: str) -> str:
    """Test-side copy of the script rule: any Chinese character → zh, else en."""
    return "zh" if _HAN.search(text) else "en"


def expected_names(node: dict[str, Any]) -> dict[str, set[str]]:
    """Every name of a node (labels, abbreviations, aliases) by the language it belongs to."""
    out: dict[str, set[str]] = {}
    for lang, label in node["labels"].items():
        out.setdefault(lang, set()).add(label)
    for name in [*node["abbreviations"], *node["aliases"]]:
        out.setdefault(lang_by_script(name), set()).add(name)
    return out


@pytest.fixture
def doc() -> dict[str, Any]:
    """A fresh deep copy of :data:`DOC` (tests may not leak mutations)."""
    return copy.deepcopy(DOC)


@pytest.fixture
def nodes_by_id(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {n["id"]: n for n in doc["nodes"]}


@pytest.fixture
def expected_related() -> dict[str, set[str]]:
    return copy.deepcopy(RELATED)


@pytest.fixture
def expected_confused() -> dict[str, set[str]]:
    return copy.deepcopy(CONFUSED)


@pytest.fixture
def names_of():
    """``names_of(node)`` → expected names by language (see :func:`expected_names`)."""
    return expected_names
