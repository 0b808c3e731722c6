"""LabelMatcher: exact, fuzzy, find_mentions and suggest on the hand-made glossary."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from functools import partial
from itertools import pairwise

import pytest

from kg.search import LabelMatcher, Match, Span
from kg.textnorm import fold

# -- exact -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "term", "name"),
    [
        ("kv-cache", "kv-cache", "KV cache"),
        ("KV Cache", "kv-cache", "KV cache"),
        ("ＫＶ　Ｃａｃｈｅ", "kv-cache", "KV cache"),
        ("kv缓存", "kv-cache", "KV 缓存"),
        ("ＴＴＦＴ", "ttft", "TTFT"),
        ("ttft", "ttft", "TTFT"),
        ("張量並行", "tensor-parallelism", "张量并行"),
        ("Flash Attention", "flash-attention", "FlashAttention"),
        ("flash-attention", "flash-attention", "FlashAttention"),
        ("首token延遲", "ttft", "首 token 延迟"),
        ("allreduce", "all-reduce", "All-Reduce"),
        ("  time to FIRST token ", "ttft", "Time to first token"),
    ],
)
def test_exact_ignores_case_width_spacing_script(
    matcher: LabelMatcher, query: str, term: str, name: str
) -> None:
    assert matcher.exact(query) == [Match(term, name, matcher.exact(query)[0].kind, 1.0, "exact")]
    assert matcher.exact(query)[0].name == name


def test_exact_reports_kind(matcher: LabelMatcher) -> None:
    assert matcher.exact("TTFT")[0].kind == "abbr"
    assert matcher.exact("ITL")[0].kind == "alias"
    assert matcher.exact("Time to first token")[0].kind == "label"


def test_exact_ambiguous_name_lists_all_terms(matcher: LabelMatcher) -> None:
    assert [m.term_id for m in matcher.exact("triton")] == ["openai-triton", "triton-inference-server"]


@pytest.mark.parametrize("query", ["", "   ", "-", "？", "ttf", "tensor", "KV cache hit", "😀"])
def test_exact_misses(matcher: LabelMatcher, query: str) -> None:
    assert matcher.exact(query) == []


def test_same_key_variants_deduplicated_regardless_of_order() -> None:
    a = LabelMatcher([("kv", "KV-Cache", "label"), ("kv", "KV cache", "label")])
    b = LabelMatcher([("kv", "KV cache", "label"), ("kv", "KV-Cache", "label")])
    assert len(a) == len(b) == 1
    assert a.exact("kv cache") == b.exact("kv cache")


def test_unknown_kind_rejected() -> None:
    with pytest.raises(ValueError, match="kind"):
        LabelMatcher([("x", "X", "acronym")])


# -- fuzzy -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "term"),
    [
        ("pagedattn", "paged-attention"),
        ("paged attn", "paged-attention"),
        ("kv-cach", "kv-cache"),
        ("KV cahce", "kv-cache"),
        ("张亮并行", "tensor-parallelism"),
        ("張亮並行", "tensor-parallelism"),
        ("Flash Atention", "flash-attention"),
        ("flashatention", "flash-attention"),
        ("speculativ decoding", "speculative-decoding"),
        ("spec decoding", "speculative-decoding"),
        ("parallelism tensor", "tensor-parallelism"),
        ("contineous batching", "continuous-batching"),
        ("Triton Inferance Server", "triton-inference-server"),
        ("流水线并形", "pipeline-parallelism"),
    ],
)
def test_fuzzy_finds_typos_and_variants(matcher: LabelMatcher, query: str, term: str) -> None:
    results = matcher.fuzzy(query)
    assert results, query
    assert results[0].term_id == term
    assert results[0].method == "fuzzy"
    assert 0.7 <= results[0].score < 1.0


def test_fuzzy_wrong_character_prefers_closest(matcher: LabelMatcher) -> None:
    results = matcher.fuzzy("张亮并行")
    assert [m.term_id for m in results] == ["tensor-parallelism"]  # 专家并行 / 流水线并行 stay below cutoff
    low = matcher.fuzzy("张亮并行", cutoff=0.4)
    assert low[0].term_id == "tensor-parallelism"
    assert low[0].score > max(m.score for m in low[1:])


def test_fuzzy_exact_key_scores_one(matcher: LabelMatcher) -> None:
    results = matcher.fuzzy("ＴＴＦＴ")
    assert results[0] == Match("ttft", "TTFT", "abbr", 1.0, "exact")


@pytest.mark.parametrize(
    ("query", "only"),
    [
        ("TTFT", "ttft"),
        ("TTFB", "ttfb"),
        ("TP", "tensor-parallelism"),
        ("PP", "pipeline-parallelism"),
        ("EP", "expert-parallelism"),
        ("FP8", "fp8"),
        ("INT4", "int4"),
    ],
)
def test_fuzzy_short_abbreviations_are_not_typos_of_each_other(
    matcher: LabelMatcher, query: str, only: str
) -> None:
    assert [m.term_id for m in matcher.fuzzy(query, cutoff=0.3)] == [only]


def test_fuzzy_short_near_miss_only_as_weak_fallback(matcher: LabelMatcher) -> None:
    results = matcher.fuzzy("TTFX")
    assert {m.term_id for m in results} == {"ttft", "ttfb"}
    assert all(m.score < 0.5 for m in results)
    assert [m.name for m in results] == ["TTFB", "TTFT"]  # deterministic tie-break


@pytest.mark.parametrize("query", ["tq", "TX", "pq", "ab", "zzzzzz", "量子计算机", "", "  ", "😀", "。"])
def test_fuzzy_no_match(matcher: LabelMatcher, query: str) -> None:
    assert matcher.fuzzy(query) == []


def test_fuzzy_two_letter_abbreviations_never_cross(matcher: LabelMatcher) -> None:
    for query in ("TP", "PP", "EP", "tp", "ep"):
        for m in matcher.fuzzy(query, cutoff=0.0):
            assert m.score == 1.0


def test_fuzzy_scores_bounded_sorted_and_limited(matcher: LabelMatcher) -> None:
    results = matcher.fuzzy("parallelism", cutoff=0.3, limit=2)
    assert len(results) == 2
    all_results = matcher.fuzzy("parallelism", cutoff=0.3, limit=50)
    assert results == all_results[:2]
    scores = [m.score for m in all_results]
    assert scores == sorted(scores, reverse=True)
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert len({m.term_id for m in all_results}) == len(all_results)
    assert matcher.fuzzy("parallelism", limit=0) == []


def test_fuzzy_independent_of_input_order(matcher: LabelMatcher, names: list[tuple[str, str, str]]) -> None:
    shuffled = LabelMatcher(list(reversed(names)))
    for query in ("attention", "TTFX", "triton", "parallelism", "张亮并行", "time to first"):
        assert shuffled.fuzzy(query, cutoff=0.3) == matcher.fuzzy(query, cutoff=0.3)
        assert shuffled.suggest(query) == matcher.suggest(query)
        assert shuffled.find_mentions(query) == matcher.find_mentions(query)


# -- find_mentions -------------------------------------------------------------


def _ids(spans: list[Span]) -> list[str]:
    return [s.term_id for s in spans]


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        ("ttft是啥", ["ttft"]),
        ("TTFT是啥？", ["ttft"]),
        ("什么是连续批处理", ["continuous-batching"]),
        ("what's the difference between TTFT and TPOT?", ["ttft", "tpot"]),
        ("張量並行和流水线并行的区别", ["tensor-parallelism", "pipeline-parallelism"]),
        ("首 token 延迟和首token延遲", ["ttft", "ttft"]),
        ("TP/PP/EP", ["tensor-parallelism", "pipeline-parallelism", "expert-parallelism"]),
        ("kv-cache, KV Cache and kv缓存", ["kv-cache", "kv-cache", "kv-cache"]),
        ("Flash Attention vs PagedAttention", ["flash-attention", "paged-attention"]),
        ("Triton Inference Server 和 OpenAI Triton", ["triton-inference-server", "openai-triton"]),
        ("ＦＰ８ on Ｈ１００", ["fp8", "h100"]),
        ("用投机解码（speculative decoding）", ["speculative-decoding", "speculative-decoding"]),
        ("张量并行度怎么选", ["tensor-parallelism"]),
        ("time to first token vs time to first byte", ["ttft", "ttfb"]),
        ("in-flight batching", ["continuous-batching"]),
    ],
)
def test_find_mentions(matcher: LabelMatcher, text: str, terms: list[str]) -> None:
    assert _ids(matcher.find_mentions(text)) == terms


def test_find_mentions_plurals_and_separated_short_names() -> None:
    m = LabelMatcher(
        [
            ("tpu", "TPU", "abbr"),
            ("kv-cache", "KV cache", "label"),
            ("llm", "LLM", "abbr"),
            ("llm-d", "llm-d", "label"),
            ("op", "Op", "label"),
            ("tp", "TP", "abbr"),
        ]
    )
    # English plurals keep the "s" inside the span
    spans = m.find_mentions("TPUs and KV caches")
    assert [(s.term_id, s.text) for s in spans] == [("tpu", "tpus"), ("kv-cache", "kv caches")]
    # a short name written with a separator matches with it ("llm-d's" is llm-d, not LLM)
    assert _ids(m.find_mentions("what's llm-d's relationship to LLMs?")) == ["llm-d", "llm"]
    # no plural of a two-letter name, and no separator inside an abbreviation that has none
    assert _ids(m.find_mentions("the ops count")) == []
    assert _ids(m.find_mentions("t-p or TPs")) == []


@pytest.mark.parametrize(
    "text",
    [
        "output step stop",  # TP in "output", EP in "step", PP nowhere
        "the pptx files",  # (a plural is a mention: "TTFTs", see the test above)
        "H1000 and fp80 and int48",
        "t p and e-p and p p",  # abbreviations never span separators
        "tpot",  # TP is not inside TPOT; TPOT itself is a mention though
    ],
)
def test_find_mentions_respects_word_boundaries(matcher: LabelMatcher, text: str) -> None:
    spans = matcher.find_mentions(text)
    assert all(
        s.term_id not in {"tensor-parallelism", "pipeline-parallelism", "expert-parallelism"} for s in spans
    )
    assert all(s.term_id not in {"h100", "fp8", "int4", "ttft"} for s in spans)


def test_find_mentions_tpot_is_found_whole(matcher: LabelMatcher) -> None:
    assert _ids(matcher.find_mentions("tpot")) == ["tpot"]


def test_find_mentions_offsets_and_surface(matcher: LabelMatcher) -> None:
    text = "什么是 KV-Cache？和 TTFT 有关吗"
    folded = fold(text)
    spans = matcher.find_mentions(text)
    assert [(s.term_id, s.text) for s in spans] == [("kv-cache", "kv-cache"), ("ttft", "ttft")]
    for s in spans:
        assert folded[s.start : s.end] == s.text
    assert spans[0].name == "KV cache" and spans[0].kind == "label"
    assert spans[1].name == "TTFT" and spans[1].kind == "abbr"


def test_find_mentions_longest_first_and_non_overlapping(matcher: LabelMatcher) -> None:
    spans = matcher.find_mentions("Triton Inference Server")
    assert len(spans) == 1 and spans[0].term_id == "triton-inference-server"
    assert (spans[0].start, spans[0].end) == (0, 23)
    spans = matcher.find_mentions("OpenAI Triton kernel")
    assert _ids(spans) == ["openai-triton"]


def test_find_mentions_longest_wins_over_leftmost() -> None:
    m = LabelMatcher([("ab", "AB 模型", "label"), ("bcd", "模型并行化", "label")])
    assert _ids(m.find_mentions("ab模型并行化")) == ["bcd"]


def test_find_mentions_ambiguous_name(matcher: LabelMatcher) -> None:
    (span,) = matcher.find_mentions("triton kernels")
    assert span.term_ids == ("openai-triton", "triton-inference-server")
    assert span.term_id == "openai-triton"


@pytest.mark.parametrize(
    "text", ["", "   ", "😀🚀", "\x00\x07\x1b", "没有术语的一句话", "nothing here at all"]
)
def test_find_mentions_nothing(matcher: LabelMatcher, text: str) -> None:
    assert matcher.find_mentions(text) == []


def test_find_mentions_emoji_and_controls_around_names(matcher: LabelMatcher) -> None:
    assert _ids(matcher.find_mentions("🚀TTFT🚀\x00张量并行\x07")) == ["ttft", "tensor-parallelism"]


def test_find_mentions_long_text(matcher: LabelMatcher) -> None:
    text = ("连续批处理 and TTFT; 张量并行 " * 500)[:10_000]
    spans = matcher.find_mentions(text)
    assert len(spans) > 1000
    assert all(a.end <= b.start for a, b in pairwise(spans))


# -- suggest -------------------------------------------------------------------


def test_suggest_prefix_latin_prefers_latin_name(matcher: LabelMatcher) -> None:
    assert matcher.suggest("kv")[0] == Match("kv-cache", "KV cache", "label", round(2 / 7, 4), "prefix")


def test_suggest_chinese_and_traditional(matcher: LabelMatcher) -> None:
    assert matcher.suggest("張")[0].term_id == "tensor-parallelism"
    assert matcher.suggest("kv缓")[0].name == "KV 缓存"
    assert [m.term_id for m in matcher.suggest("投机")] == ["speculative-decoding"]


def test_suggest_exact_then_shorter(matcher: LabelMatcher) -> None:
    assert [m.name for m in matcher.suggest("tp")][:2] == ["TP", "TPOT"]
    assert matcher.suggest("tp")[0].method == "exact"
    assert [m.term_id for m in matcher.suggest("time")] == ["ttfb", "ttft", "tpot"]


def test_suggest_label_before_alias(matcher: LabelMatcher) -> None:
    results = matcher.suggest("tri")
    assert [(m.term_id, m.kind) for m in results] == [
        ("triton-inference-server", "label"),
        ("openai-triton", "alias"),
    ]


def test_suggest_infix_after_prefix(matcher: LabelMatcher) -> None:
    results = matcher.suggest("att")
    assert [m.term_id for m in results] == ["flash-attention", "paged-attention"]
    assert all(m.method == "infix" for m in results)
    assert [m.term_id for m in matcher.suggest("注意力")] == ["paged-attention"]
    assert [m.term_id for m in matcher.suggest("batching")] == ["continuous-batching"]
    # infix only at word starts: "tp" is not a word inside "expert parallelism"
    assert "expert-parallelism" not in [m.term_id for m in matcher.suggest("tp")]


def test_suggest_limit_and_empty(matcher: LabelMatcher) -> None:
    assert len(matcher.suggest("t", limit=3)) == 3
    assert matcher.suggest("t", limit=0) == []
    assert matcher.suggest("") == []
    assert matcher.suggest("  -") == []
    assert matcher.suggest("zzz") == []
    assert matcher.suggest("😀") == []


def test_suggest_scores_in_range(matcher: LabelMatcher) -> None:
    for prefix in ("t", "ti", "tim", "kv", "并", "att", "注意"):
        for m in matcher.suggest(prefix, limit=20):
            assert 0.0 < m.score <= 1.0


@pytest.mark.parametrize("method", ["exact", "fuzzy", "suggest", "find_mentions"])
def test_huge_weird_inputs_do_not_crash(matcher: LabelMatcher, method: str) -> None:
    fn: Callable[[str], object] = getattr(matcher, method)
    for text in [
        "x" * 10_000,
        "😀" * 10_000,
        "\x00" * 1000 + "ttft",
        "张" * 10_000,
        "\ufeff\u200b\u202e TTFT",
    ]:
        assert isinstance(fn(text), list)


# -- no algorithmic blow-up on ~3,000 names -----------------------------------------
# These bounds are ten times the medians a quiet machine measures: they catch a matcher that
# scans every name per character (hundreds of times slower), not a busy machine. The speed
# targets themselves are measured by `glossary bench-search` (docs/BENCHMARKS.md).


def _median_ms(fn: Callable[[], object], runs: int = 30) -> float:
    fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _question(n: int) -> str:
    base = "请问在 H100 上用张量并行和 continuous batching 时 TTFT 与 TPOT 怎么变？KV cache 命中率 fp8 量化。"
    return (base * (n // len(base) + 1))[:n]


def test_find_mentions_fast_on_big_vocabulary(big_matcher: LabelMatcher) -> None:
    text = _question(2000)
    assert {"ttft", "tpot", "h100"} <= {s.term_id for s in big_matcher.find_mentions(text)}
    assert _median_ms(lambda: big_matcher.find_mentions(text)) < 50.0


def test_suggest_fast_on_big_vocabulary(big_matcher: LabelMatcher) -> None:
    assert [m.name for m in big_matcher.suggest("ttf")][:2] == ["TTFB", "TTFT"]
    for prefix in ("k", "ka", "张", "pag"):
        assert _median_ms(partial(big_matcher.suggest, prefix, 10)) < 10.0


def test_fuzzy_reasonable_on_big_vocabulary(big_matcher: LabelMatcher) -> None:
    assert big_matcher.fuzzy("pagedattn")[0].term_id == "paged-attention"
    assert _median_ms(lambda: big_matcher.fuzzy("speculativ decoding")) < 200.0


def test_a_shared_key_goes_to_the_name_written_as_the_text_writes_it() -> None:
    # NVIDIA's "Tensor Core" and the TPU's "TensorCore" share the key "tensorcore"; the sources
    # write the TPU block without a space (NOTES.md's name trap), so that spelling names it
    m = LabelMatcher([("tensor-core", "Tensor Core", "label"), ("tensorcore-tpu", "TensorCore", "alias")])
    assert [x.term_id for x in m.exact("TensorCore")] == ["tensorcore-tpu", "tensor-core"]
    assert [x.term_id for x in m.exact("Tensor Core")] == ["tensor-core", "tensorcore-tpu"]
    assert [x.term_id for x in m.exact("tensor-core")] == ["tensor-core", "tensorcore-tpu"]  # the label first
    (span,) = m.find_mentions("TPU 里的 TensorCore 是什么")
    assert span.term_id == "tensorcore-tpu" and set(span.term_ids) == {"tensor-core", "tensorcore-tpu"}
    (span,) = m.find_mentions("NVIDIA 的 Tensor Core")
    assert span.term_id == "tensor-core"


@pytest.mark.parametrize(
    ("query", "term"),
    [
        ("pipeline", "pipeline-parallelism"),  # a word of one term's names
        ("Speculative", "speculative-decoding"),
        ("inference server", "triton-inference-server"),  # a run of words
        ("flash", "flash-attention"),  # a camel-case hump is a word
        ("parallelism", None),  # words of several terms' names
        ("TTFT", None),  # a name itself: exact, not a word of one
        ("pipe", None),  # not a whole word
        ("kv", None),  # too short to say
        ("张量", None),  # Latin words only
    ],
)
def test_word_of_one_name_finds_the_one_term_a_few_words_of_a_name_name(
    matcher: LabelMatcher, query: str, term: str | None
) -> None:
    assert matcher.word_of_one_name(query) == term
