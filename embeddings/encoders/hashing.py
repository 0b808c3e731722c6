"""A deterministic feature-hashing encoder for tests and development. NOT a semantic model.

It maps words and character n-grams to signed buckets with a stable hash, so equal
texts get equal vectors and texts sharing many n-grams get similar ones, but it
knows nothing about meaning or translation. It exists to exercise the index layer
quickly and reproducibly without loading any model.

Like e5 it reads at most :data:`~embeddings.encoders.base.E5_MAX_TOKENS` tokens of a query
(its tokens: each CJK character, each Latin word, each other symbol, plus two specials), so
that tests see the same truncation as the real model.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Sequence

import numpy as np

from embeddings.encoders.base import (
    DEFAULT_BATCH_SIZE,
    E5_MAX_TOKENS,
    FittedQuery,
    FloatMatrix,
    Progress,
    check_texts,
    empty_embeddings,
    encode_in_batches,
    finalize_embeddings,
    fit_to_window,
)

_WORD = re.compile(r"\w+")
# the window's tokens: a CJK character, a run of other word characters, any other symbol
_CJK = "\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+|[^\w\s]")
_SPECIALS = 2


class HashingEncoder:
    """Test/dev :class:`~embeddings.encoders.base.Encoder`: hashed words and character n-grams.

    Queries and passages are encoded identically, so a passage used as a query finds
    itself with similarity 1.0. An empty text encodes to the zero vector.
    """

    def __init__(self, dim: int = 64, *, ngram: int = 3) -> None:
        """``dim`` buckets (>= 2); character ``ngram`` length used besides whole words."""
        if dim < 2:
            raise ValueError(f"HashingEncoder dim must be >= 2, got {dim}")
        if ngram < 1:
            raise ValueError(f"ngram must be >= 1, got {ngram}")
        self._dim = dim
        self._ngram = ngram

    @property
    def id(self) -> str:
        """``"hash:<dim>"``, plus the n-gram length when it is not the default 3."""
        return f"hash:{self._dim}" if self._ngram == 3 else f"hash:{self._dim}:n{self._ngram}"

    @property
    def dim(self) -> int:
        """Number of hash buckets."""
        return self._dim

    @property
    def max_tokens(self) -> int:
        """The window of a query, in this encoder's tokens: 512, as e5's."""
        return E5_MAX_TOKENS

    def fit_query(self, text: str) -> FittedQuery:
        """*text*, or its longest prefix of at most :attr:`max_tokens` tokens (specials included)."""
        return fit_to_window(text, lambda t: _SPECIALS + len(_TOKEN.findall(t)), self.max_tokens)

    def _features(self, text: str) -> Iterator[str]:
        lowered = text.lower()
        for word in _WORD.findall(lowered):
            yield "w:" + word
        padded = f" {lowered} "
        for i in range(max(len(padded) - self._ngram + 1, 0)):
            yield "c:" + padded[i : i + self._ngram]

    def _embed_one(self, text: str) -> np.ndarray:
        vec = np.zeros(self._dim, dtype=np.float32)
        for feature in self._features(text):
            # blake2b, not hash(): Python's str hash is salted per process.
            digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
            value = int.from_bytes(digest, "little")
            sign = 1.0 if value & 1 else -1.0
            vec[(value >> 1) % self._dim] += sign
        return vec

    def _embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return empty_embeddings(self._dim)
        return np.stack([self._embed_one(t) for t in texts])

    def encode_queries(self, texts: Sequence[str]) -> FloatMatrix:
        """Embed texts (as passages, but cut to the window): float32 ``(n, dim)``, unit or zero rows."""
        items = check_texts(texts)
        if not items:
            return empty_embeddings(self._dim)
        return finalize_embeddings(self._embed([self.fit_query(t).text for t in items]), self._dim)

    def encode_passages(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
        progress: Progress = False,
    ) -> FloatMatrix:
        """Embed passages in batches, reporting to ``progress`` after each batch."""
        items = check_texts(texts)
        if not items:
            return empty_embeddings(self._dim)
        return encode_in_batches(items, self._embed, self._dim, batch_size=batch_size, progress=progress)

    def __repr__(self) -> str:
        return f"HashingEncoder(dim={self._dim})"
