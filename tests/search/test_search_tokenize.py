"""Tokenizer: folding, jieba with glossary words, Latin rules, stopwords, isolation."""

from __future__ import annotations

import time

import pytest

from kg.search import STOPWORDS, Tokenizer
from kg.search.tokenize import TOKENIZER_VERSION


def test_vocabulary_name_with_spaces_stays_one_token(tokenizer: Tokenizer) -> None:
    tokens = tokenizer.tokenize("首 token 延迟是什么？")
    assert tokens[0] == "首token延迟"
    assert "延迟" in tokens  # sub-word for recall
    assert "是" not in tokens and "什么" not in tokens


@pytest.mark.parametrize("text", ["首token延迟", "首 Token 延遲", "首ＴＯＫＥＮ延迟", "首  token\t延迟"])
def test_mixed_name_variants_fold_alike(tokenizer: Tokenizer, text: str) -> None:
    assert tokenizer.tokenize(text) == tokenizer.tokenize("首 token 延迟")


def test_long_chinese_word_has_sub_words(tokenizer: Tokenizer) -> None:
    tokens = tokenizer.tokenize("什么是连续批处理")
    assert "连续批处理" in tokens
    assert "批处理" in tokens
    assert "什么" not in tokens


def test_glossary_words_not_split(tokenizer: Tokenizer) -> None:
    tokens = tokenizer.tokenize("投机解码和张量并行、流水线并行的区别")
    for word in ("投机解码", "张量并行", "流水线并行"):
        assert word in tokens
    assert "区别" not in tokens and "的" not in tokens and "和" not in tokens


def test_traditional_equals_simplified(tokenizer: Tokenizer) -> None:
    assert tokenizer.tokenize("張量並行與流水線並行") == tokenizer.tokenize("张量并行与流水线并行")
    assert "张量并行" in tokenizer.tokenize("張量並行")


def test_full_width_and_case(tokenizer: Tokenizer) -> None:
    assert tokenizer.tokenize("ＦＰ８ ＩＮＴ４ Ｈ１００") == ["fp8", "int4", "h100"]
    assert tokenizer.tokenize("KV Cache") == ["kv", "cache"]


def test_latin_technical_tokens_kept(tokenizer: Tokenizer) -> None:
    tokens = tokenizer.tokenize("FP8 and INT4 on H100 / GB200: p99 KV latency")
    assert tokens == ["fp8", "int4", "h100", "gb200", "p99", "kv", "latency"]


def test_hyphenated_word_joined_and_split(tokenizer: Tokenizer) -> None:
    tokens = tokenizer.tokenize("All-Reduce")
    assert tokens == ["allreduce", "all", "reduce"]
    assert "allreduce" in tokenizer.tokenize("allreduce")
    assert tokenizer.tokenize("time_to-first") == ["timetofirst", "time", "first"]


def test_decimal_kept_and_dotted_word_split(tokenizer: Tokenizer) -> None:
    assert tokenizer.tokenize("gpt 4.5") == ["gpt", "4.5"]
    assert tokenizer.tokenize("vllm.ai") == ["vllm", "ai"]


def test_latin_inside_chinese(tokenizer: Tokenizer) -> None:
    tokens = tokenizer.tokenize("用fp8量化的all-reduce通信")
    assert {"fp8", "allreduce", "all", "reduce", "量化", "通信"} <= set(tokens)
    assert "的" not in tokens


def test_mixed_name_respects_latin_word_boundary() -> None:
    tok = Tokenizer(["KV 缓存"])
    assert "kv缓存" in tok.tokenize("KV缓存命中率")
    assert "kv缓存" not in tok.tokenize("xkv缓存")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "\n\t",
        "？！。，…",
        "the of a an is what how to and in for does",
        "的了是什么和与在",
        "是啥？吗",
    ],
)
def test_stopwords_and_punctuation_only_give_nothing(tokenizer: Tokenizer, text: str) -> None:
    assert tokenizer.tokenize(text) == []


def test_no_stopword_or_space_ever_emitted(tokenizer: Tokenizer) -> None:
    text = "What is the difference between TTFT 和 TPOT？ 它们是什么 的 了 在"
    tokens = tokenizer.tokenize(text)
    assert tokens == ["ttft", "tpot", "它们"]
    assert not any(t in STOPWORDS or not t.strip() or " " in t for t in tokens)


def test_private_jieba_instances_do_not_interfere() -> None:
    plain = Tokenizer()
    assert "连续批处理" not in plain.tokenize("连续批处理")
    custom = Tokenizer(["连续批处理"])
    assert "连续批处理" in custom.tokenize("连续批处理")
    # building the custom tokenizer must not leak its word into the first one
    assert "连续批处理" not in plain.tokenize("连续批处理")
    assert "连续批处理" not in Tokenizer(["张量并行"]).tokenize("连续批处理")

    import jieba

    assert "连续批处理" not in jieba.dt.FREQ  # the global tokenizer is untouched


def test_vocabulary_is_folded_sorted_unique() -> None:
    tok = Tokenizer(["KV Cache", "kv cache", "張量並行", "", "  "])
    assert tok.vocabulary == ("kv cache", "张量并行")
    assert Tokenizer(tok.vocabulary).vocabulary == tok.vocabulary
    assert isinstance(TOKENIZER_VERSION, int)


def test_same_vocabulary_builds_fast(tokenizer: Tokenizer) -> None:
    start = time.perf_counter()
    again = Tokenizer(tokenizer.vocabulary)
    assert time.perf_counter() - start < 0.2
    assert again.tokenize("什么是连续批处理") == tokenizer.tokenize("什么是连续批处理")


def test_callable(tokenizer: Tokenizer) -> None:
    assert tokenizer("TTFT") == ["ttft"]


@pytest.mark.parametrize(
    "text",
    [
        "🚀🔥 TTFT 😀 首token延迟 👍",
        "\x00\x01\x07 kv\x1bcache \x7f\u200b\ufeff",
        "\ud7ff\U0002a6d6𠀀 張量並行",
        "a" * 10_000,
        "连续批处理 TTFT all-reduce " * 400,
    ],
)
def test_weird_and_long_input_does_not_crash(tokenizer: Tokenizer, text: str) -> None:
    start = time.perf_counter()
    tokens = tokenizer.tokenize(text)
    assert time.perf_counter() - start < 2.0
    assert all(isinstance(t, str) and t and " " not in t for t in tokens)


def test_emoji_does_not_glue_tokens(tokenizer: Tokenizer) -> None:
    assert tokenizer.tokenize("TTFT😀TPOT") == ["ttft", "tpot"]
    assert "首token延迟" in tokenizer.tokenize("🚀首token延迟🚀")
