"""LexicalIndex: BM25 ranking on bilingual text, empty/odd queries, save/load."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from kg.search import LexicalIndex, Tokenizer


def _top(index: LexicalIndex, query: str) -> str:
    hits = index.search(query, k=3)
    assert hits, f"no hit for {query!r}"
    return hits[0][0]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("首token延迟", "ttft"),
        ("首 Token 延遲是什么？", "ttft"),
        ("TTFT", "ttft"),
        ("ＴＴＦＴ", "ttft"),
        ("什么是连续批处理", "continuous-batching"),
        ("in-flight batching", "continuous-batching"),
        ("張量並行", "tensor-parallelism"),
        ("流水线气泡", "pipeline-parallelism"),
        ("投机解码怎么降低延迟", "speculative-decoding"),
        ("speculative decoding", "speculative-decoding"),
        ("Triton Inference Server", "triton-inference-server"),
        ("Python GPU kernel 语言", "openai-triton"),
        ("allreduce 集合通信", "all-reduce"),
        ("KV缓存", "kv-cache"),
        ("HTTP 字节", "ttfb"),
        ("Hopper", "h100"),
    ],
)
def test_expected_document_ranks_first(index: LexicalIndex, query: str, expected: str) -> None:
    assert _top(index, query) == expected


def test_scores_positive_finite_sorted_and_bounded_by_k(index: LexicalIndex) -> None:
    hits = index.search("GPU 显存 token", k=5)
    assert 0 < len(hits) <= 5
    scores = [s for _, s in hits]
    assert all(isinstance(s, float) and math.isfinite(s) and s > 0 for s in scores)
    assert scores == sorted(scores, reverse=True)
    assert len({d for d, _ in hits}) == len(hits)


def test_only_matching_documents_returned(index: LexicalIndex) -> None:
    hits = index.search("Hopper", k=50)
    assert [d for d, _ in hits] == ["h100"]


@pytest.mark.parametrize(
    "query",
    [
        "",
        "   ",
        "\n",
        "？！。",
        "the of a what is",
        "的 是 什么 吗",
        "xyzzy plugh",
        "囧囧",
        "😀😀",
        "\x00\x1b",
    ],
)
def test_empty_stopword_or_unknown_query_gives_nothing(index: LexicalIndex, query: str) -> None:
    assert index.search(query) == []


def test_k_limits(index: LexicalIndex) -> None:
    assert index.search("token", k=0) == []
    assert index.search("token", k=-3) == []
    assert len(index.search("token", k=1)) == 1
    assert len(index.search("token", k=1000)) <= len(index)


def test_deterministic(index: LexicalIndex) -> None:
    assert index.search("GPU token 通信", k=10) == index.search("GPU token 通信", k=10)


def test_long_and_weird_query(index: LexicalIndex) -> None:
    assert index.search("🚀" * 5000 + " TTFT")[0][0] == "ttft"
    assert index.search("连续批处理 " * 2000)[0][0] == "continuous-batching"


def test_duplicate_doc_id_rejected(tokenizer: Tokenizer) -> None:
    with pytest.raises(ValueError, match="duplicate"):
        LexicalIndex([("a", "x"), ("a", "y")], tokenizer)


def test_bm25_plus_rejected() -> None:
    with pytest.raises(ValueError):
        LexicalIndex([("a", "x")], method="bm25+")


def test_empty_corpus_and_empty_documents(tokenizer: Tokenizer, tmp_path: Path) -> None:
    empty = LexicalIndex([], tokenizer)
    assert len(empty) == 0 and empty.search("TTFT") == []
    blank = LexicalIndex([("a", ""), ("b", "的了")], tokenizer)
    assert blank.search("TTFT") == []
    blank.save(tmp_path / "blank")
    assert LexicalIndex.load(tmp_path / "blank").search("TTFT") == []
    some = LexicalIndex([("a", ""), ("b", "TTFT 首 token 延迟")], tokenizer)
    assert [d for d, _ in some.search("ttft")] == ["b"]


def test_default_tokenizer_works_without_vocabulary(docs: list[tuple[str, str]]) -> None:
    idx = LexicalIndex(docs)
    assert idx.search("PagedAttention")[0][0] == "paged-attention"


def test_save_load_round_trip(index: LexicalIndex, tmp_path: Path) -> None:
    target = tmp_path / "lex"
    index.save(target)
    meta = json.loads((target / "meta.json").read_text(encoding="utf-8"))
    assert meta["format"] == "kg.search.lexical" and meta["version"] == 1
    assert "首token延迟" in meta["tokenizer"]["vocabulary"]
    loaded = LexicalIndex.load(target)
    assert loaded.doc_ids == index.doc_ids
    assert loaded.tokenizer.vocabulary == index.tokenizer.vocabulary
    for query in ["首token延迟", "什么是连续批处理", "GPU 显存", "張量並行", "allreduce"]:
        assert loaded.search(query, k=5) == index.search(query, k=5)


def test_load_rejects_other_format_or_version(index: LexicalIndex, tmp_path: Path) -> None:
    index.save(tmp_path)
    meta_path = tmp_path / "meta.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    meta["version"] = 999
    meta_path.write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(ValueError):
        LexicalIndex.load(tmp_path)
    meta["version"], meta["tokenizer"]["version"] = 1, -1
    meta_path.write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(ValueError, match="rebuild"):
        LexicalIndex.load(tmp_path)


def test_load_with_mismatched_tokenizer(index: LexicalIndex, tmp_path: Path) -> None:
    index.save(tmp_path)
    with pytest.raises(ValueError):
        LexicalIndex.load(tmp_path, tokenizer=Tokenizer(["别的词"]))
    assert LexicalIndex.load(tmp_path, tokenizer=index.tokenizer).search("TTFT")[0][0] == "ttft"


def test_missing_files(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        LexicalIndex.load(tmp_path / "nothing")


def test_unknown_words_and_same_sound_typos(tokenizer: Tokenizer) -> None:
    """A word no document holds is unknown; one a pinyin input method slips into (one character
    swapped for another of the same sound) is near a known word, a coinage of other sounds not."""
    index = LexicalIndex([("calib", "量化前用校准数据统计激活范围"), ("model", "模型的权重")], tokenizer)
    assert index.unknown_words("校准") == []
    assert index.unknown_words("教准") == ["教准"]
    assert index.near_known("教准")  # jiao zhun: 校 reads jiao too
    assert index.near_known("模形")  # mo xing
    assert not index.near_known("蒸发")  # no known word one character away
    assert not index.near_known("标准")  # one character away from 校准, but another sound
    assert not index.near_known("x")
