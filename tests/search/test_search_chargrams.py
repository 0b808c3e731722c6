"""The CJK character-gram BM25 stage (kg/search/chargrams.py) on the small hand-made glossary."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kg.search import LexicalIndex
from kg.search.chargrams import CharGramIndex, char_tokens


def test_tokens_are_characters_pairs_and_latin_words() -> None:
    tokens = char_tokens("什么是 KV-Cache 的分页")
    assert {"分", "页", "分页", "kvcache", "kv", "cache"} <= set(tokens)
    assert "的" not in tokens and "什么" in tokens  # function characters alone are dropped, pairs kept
    assert char_tokens("連續批處理") == char_tokens("连续批处理")  # folded first


def test_finds_a_chinese_paraphrase_that_jieba_words_miss(
    index: LexicalIndex, docs: list[tuple[str, str]]
) -> None:
    # jieba cuts the query into 请求 / 到达 / 开始, and TTFB's "到达客户端" wins on words; the
    # character pair 求到 of "从请求到达到返回…" occurs only in the TTFT definition
    query = "从请求到达开始算"
    assert index.search(query, 1)[0][0] != "ttft"
    chars = CharGramIndex(docs)
    assert chars.search(query, 1)[0][0] == "ttft"


def test_save_load_is_memory_mapped_and_identical(tmp_path: Path, docs: list[tuple[str, str]]) -> None:
    chars = CharGramIndex(docs)
    chars.save(tmp_path / "chars")
    loaded = CharGramIndex.load(tmp_path / "chars")
    assert isinstance(loaded._arrays["data"], np.memmap)
    for query in ("显存按分页的块来管理", "all-reduce 通信", "zzz 无关"):
        assert loaded.search(query, 5) == chars.search(query, 5)
    assert chars.search("zzz", 5) == [] and chars.search("", 5) == []
    assert CharGramIndex([]).search("显存", 3) == []


def test_characters_in_too_many_documents_are_skipped_on_large_glossaries(
    monkeypatch: pytest.MonkeyPatch, docs: list[tuple[str, str]]
) -> None:
    chars = CharGramIndex(docs)
    query = "显存碎片"  # 显 and 存 occur in several definitions, 碎片 only in PagedAttention's
    full = chars.search(query, 10)
    assert len(full) > 1
    monkeypatch.setattr("kg.search.chargrams.MIN_CAP", 1)
    monkeypatch.setattr("kg.search.chargrams.MAX_DF_SHARE", 0.0)
    capped = chars.search(query, 10)
    assert [d for d, _ in capped] == ["paged-attention"]
