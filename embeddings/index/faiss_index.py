"""FAISS implementation of :class:`~embeddings.index.base.VectorIndex`, plus build and load.

Small corpora use an exact ``IndexFlatIP``; from ``hnsw_threshold`` vectors on, an
``IndexHNSWFlat`` (inner product) keeps query latency low at a small recall cost.
FAISS identifies vectors by position, so the passage ids live in a parallel list.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import faiss
import numpy as np
from numpy.typing import ArrayLike

from embeddings.index.base import IndexKind, SearchHit
from embeddings.index.packed import PackedStrings
from embeddings.index.store import kind_of, read_index_dir, write_index_dir

DEFAULT_HNSW_THRESHOLD = 20_000
DEFAULT_HNSW_M = 32
DEFAULT_EF_CONSTRUCTION = 80
DEFAULT_EF_SEARCH = 64

# faiss's bundled type hints omit some SWIG classes (SearchParametersHNSW); reach
# them through an Any-typed alias rather than a version-dependent "type: ignore".
_faiss: Any = faiss


class FaissVectorIndex:
    """A FAISS inner-product index whose rows are named by passage ids."""

    def __init__(
        self,
        index: Any,
        ids: Sequence[str],
        *,
        encoder_id: str | None = None,
        ef_search: int = DEFAULT_EF_SEARCH,
    ) -> None:
        """Wrap an already filled ``IndexFlatIP`` / ``IndexHNSWFlat``; ``ids[i]`` names row ``i``."""
        if int(index.ntotal) != len(ids):
            raise ValueError(f"index holds {index.ntotal} vectors but {len(ids)} ids were given")
        if ef_search < 1:
            raise ValueError(f"ef_search must be >= 1, got {ef_search}")
        self._index = index
        self._kind: IndexKind = kind_of(index)
        self._ids: Sequence[str] = PackedStrings(ids)  # one string, not one per id
        self._encoder_id = encoder_id
        self.ef_search = ef_search

    @property
    def kind(self) -> IndexKind:
        """``"flat"``, ``"hnsw"``, ``"flat-sq8"`` or ``"hnsw-sq8"``."""
        return self._kind

    @property
    def dim(self) -> int:
        """Vector dimension."""
        return int(self._index.d)

    @property
    def encoder_id(self) -> str | None:
        """Id of the encoder that produced the vectors, if it was given."""
        return self._encoder_id

    @property
    def ids(self) -> Sequence[str]:
        """Passage ids; position ``i`` is faiss row ``i``."""
        return self._ids

    @property
    def faiss_index(self) -> Any:
        """The underlying faiss index (read-only use, e.g. ``reconstruct``)."""
        return self._index

    def __len__(self) -> int:
        return len(self._ids)

    def search(self, query_vectors: ArrayLike, k: int) -> list[list[SearchHit]]:
        """Top-``k`` ``(id, score)`` hits per query row, best first.

        A ``(dim,)`` vector is one query. ``k`` is capped at the index size; an empty
        index or ``k == 0`` gives one empty list per query, and ``(0, dim)`` queries
        give ``[]``. Non-finite query components are treated as 0, and padding (-1)
        results and non-finite scores are dropped, so no NaN ever reaches a caller.
        """
        if k < 0:
            raise ValueError(f"k must be >= 0, got {k}")
        queries = np.asarray(query_vectors, dtype=np.float32)
        if queries.ndim == 1:
            queries = queries.reshape(1, -1)
        if queries.ndim != 2 or queries.shape[1] != self.dim:
            raise ValueError(
                f"expected query vectors of shape (n, {self.dim}) or ({self.dim},), got {queries.shape}"
            )
        n = queries.shape[0]
        if n == 0:
            return []
        k_eff = min(k, len(self._ids))
        if k_eff == 0:
            return [[] for _ in range(n)]
        queries = np.ascontiguousarray(np.nan_to_num(queries, nan=0.0, posinf=0.0, neginf=0.0))
        if self._kind in ("hnsw", "hnsw-sq8"):
            # Per-call parameters instead of mutating index.hnsw.efSearch, which would
            # race between threads; efSearch below k would return fewer than k hits.
            params = _faiss.SearchParametersHNSW(efSearch=max(self.ef_search, k_eff))
            scores, positions = self._index.search(queries, k_eff, params=params)
        else:
            scores, positions = self._index.search(queries, k_eff)
        return [
            [
                (self._ids[int(pos)], float(score))
                for score, pos in zip(score_row, pos_row, strict=True)
                if pos >= 0 and math.isfinite(float(score))
            ]
            for score_row, pos_row in zip(scores, positions, strict=True)
        ]

    def save(self, directory: str | os.PathLike[str], *, encoder_id: str | None = None) -> Path:
        """Write ``vectors.faiss``, ``ids.json`` and ``manifest.json`` into ``directory``.

        ``encoder_id`` overrides the one given at build time; one of them is required,
        because an index whose encoder is unknown could not be verified when loaded.
        Returns the manifest path.
        """
        eid = encoder_id or self._encoder_id
        if not eid:
            raise ValueError("cannot save an index without an encoder_id; pass it to build_index or save")
        return write_index_dir(Path(directory), self._index, list(self._ids), encoder_id=eid)

    def __repr__(self) -> str:
        return f"FaissVectorIndex(kind={self._kind!r}, count={len(self)}, dim={self.dim}, encoder_id={self._encoder_id!r})"


def build_index(
    vectors: ArrayLike,
    ids: Sequence[str],
    *,
    encoder_id: str | None = None,
    hnsw_threshold: int = DEFAULT_HNSW_THRESHOLD,
    hnsw_m: int = DEFAULT_HNSW_M,
    ef_construction: int = DEFAULT_EF_CONSTRUCTION,
    ef_search: int = DEFAULT_EF_SEARCH,
    quantize: str | None = None,
) -> FaissVectorIndex:
    """Index ``vectors`` (``(n, dim)``, expected L2-normalised) under the passage ``ids``.

    Builds an exact flat index below ``hnsw_threshold`` vectors and HNSW at or above it
    (``hnsw_threshold=0`` always builds HNSW). *quantize* ``"sq8"`` stores each vector component
    as one byte (faiss ``QT_8bit``, trained on *vectors*): a quarter of the memory and of the
    file, for approximate scores (opt-in: ``glossary build --vectors sq8``). Raises :class:`ValueError` for a shape
    mismatch, duplicate or non-string ids, or non-finite vectors.
    """
    arr = np.asarray(vectors, dtype=np.float32)
    if arr.ndim != 2 or arr.shape[1] < 1:
        raise ValueError(f"expected vectors of shape (n, dim) with dim >= 1, got {arr.shape}")
    id_list = list(ids)
    if len(id_list) != arr.shape[0]:
        raise ValueError(f"{arr.shape[0]} vectors but {len(id_list)} ids")
    if not all(isinstance(i, str) for i in id_list):
        raise ValueError("ids must be strings")
    if len(set(id_list)) != len(id_list):
        raise ValueError("ids must be unique")
    if not np.isfinite(arr).all():
        # Refused rather than repaired: encoders already sanitise, so this is a caller bug.
        raise ValueError("vectors contain NaN or infinite values")
    arr = np.ascontiguousarray(arr)
    index = _empty_index(arr.shape[0], arr.shape[1], hnsw_threshold, hnsw_m, ef_construction, quantize)
    if arr.shape[0]:
        if not index.is_trained:
            index.train(arr)
        index.add(arr)
    return FaissVectorIndex(index, id_list, encoder_id=encoder_id, ef_search=ef_search)


def _empty_index(
    n: int, dim: int, hnsw_threshold: int, hnsw_m: int, ef_construction: int, quantize: str | None
) -> Any:
    """The empty faiss index :func:`build_index` fills for *n* vectors of *dim* components."""
    if quantize not in (None, "sq8"):
        raise ValueError(f"unknown quantization {quantize!r} (want None or 'sq8')")
    index: Any
    sq8: Any = faiss.ScalarQuantizer.QT_8bit
    if n >= hnsw_threshold:
        if quantize:
            index = faiss.IndexHNSWSQ(dim, sq8, hnsw_m, faiss.METRIC_INNER_PRODUCT)
        else:
            index = faiss.IndexHNSWFlat(dim, hnsw_m, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = ef_construction
    elif quantize:
        index = faiss.IndexScalarQuantizer(dim, sq8, faiss.METRIC_INNER_PRODUCT)
    else:
        index = faiss.IndexFlatIP(dim)
    return index


def build_index_from_blocks(
    blocks: Iterable[ArrayLike],
    ids: Sequence[str],
    dim: int,
    *,
    encoder_id: str | None = None,
    hnsw_threshold: int = DEFAULT_HNSW_THRESHOLD,
    hnsw_m: int = DEFAULT_HNSW_M,
    ef_construction: int = DEFAULT_EF_CONSTRUCTION,
    ef_search: int = DEFAULT_EF_SEARCH,
    quantize: str | None = None,
    train_size: int = 200_000,
) -> FaissVectorIndex:
    """:func:`build_index` for vectors that come in consecutive blocks (row ``i`` of all the
    blocks together is ``ids[i]``), each added as it comes: the caller never holds every vector
    next to the index's own copy (a million 384-d vectors are 2 GB). Same index type and checks
    as :func:`build_index`. A flat index holds the same vectors as :func:`build_index` would;
    an HNSW graph built block by block is another graph of the same kind (insertion order and
    batches shape it). *quantize* ``"sq8"`` trains the quantizer on the first *train_size*
    vectors (all of them when there are fewer), kept until then. Raises :class:`ValueError` as
    :func:`build_index` does, and when the blocks do not hold ``len(ids)`` rows of *dim*."""
    id_list = list(ids)
    if not all(isinstance(i, str) for i in id_list):
        raise ValueError("ids must be strings")
    if len(set(id_list)) != len(id_list):
        raise ValueError("ids must be unique")
    if dim < 1:
        raise ValueError(f"dim must be >= 1, got {dim}")
    index = _empty_index(len(id_list), dim, hnsw_threshold, hnsw_m, ef_construction, quantize)
    waiting: list[np.ndarray] = []  # blocks kept until the quantizer is trained
    rows = 0
    for block in blocks:
        arr = np.ascontiguousarray(np.asarray(block, dtype=np.float32))
        if arr.ndim != 2 or arr.shape[1] != dim:
            raise ValueError(f"expected vector blocks of shape (n, {dim}), got {arr.shape}")
        if not np.isfinite(arr).all():
            raise ValueError("vectors contain NaN or infinite values")
        rows += arr.shape[0]
        if rows > len(id_list):
            raise ValueError(f"more than the {len(id_list)} vectors of the ids")
        if index.is_trained:
            index.add(arr)
            continue
        waiting.append(arr)
        if rows >= min(train_size, len(id_list)):
            sample = np.concatenate(waiting)
            index.train(sample[:train_size])
            del sample
            while waiting:
                index.add(waiting.pop(0))
    if rows != len(id_list):
        raise ValueError(f"{rows} vectors but {len(id_list)} ids")
    return FaissVectorIndex(index, id_list, encoder_id=encoder_id, ef_search=ef_search)


def load_index(
    directory: str | os.PathLike[str],
    *,
    expected_encoder_id: str,
    expected_dim: int,
    ef_search: int = DEFAULT_EF_SEARCH,
    mmap: bool = True,
) -> FaissVectorIndex:
    """Load an index saved by :meth:`FaissVectorIndex.save`, verifying encoder, dim and checksums;
    *mmap*: map the vectors from the file instead of copying them into memory (see
    :func:`~embeddings.index.store.read_index_dir`).

    Raises :class:`~embeddings.errors.IndexMismatchError` or
    :class:`~embeddings.errors.IndexCorruptError` (see
    :func:`~embeddings.index.store.read_index_dir`); a failing index is never returned.
    """
    loaded = read_index_dir(
        directory, expected_encoder_id=expected_encoder_id, expected_dim=expected_dim, mmap=mmap
    )
    return FaissVectorIndex(
        loaded.index, loaded.ids, encoder_id=loaded.manifest["encoder_id"], ef_search=ef_search
    )
