"""txtai hybrid search with the settings a careful txtai user would tune: the fair anchor.

:class:`TxtaiSettings` names one configuration:

- ``tokenizer`` of txtai's BM25: ``"txtai"`` (txtai's own UAX #29 tokenizer, which cuts
  Chinese into single characters) or jieba (``"jieba-search"``: ``cut_for_search``,
  ``"jieba-plain"``: ``cut``), optionally with the glossary's Chinese names added to
  jieba's dictionary (``"-names"``), through :class:`JiebaBM25`;
- ``normalize``: txtai's ``"default"`` BM25 normalisation (convex fusion) or ``"bb25"``
  (Bayesian calibration, log-odds fusion; txtai >= 9.14);
- ``documents``: ``"passages"`` (those of :func:`kg.search.passages.passages`, hits rolled
  up to terms by max score) or ``"terms"`` (one document per defined term,
  :func:`kg.search.passages.term_document`);
- ``dense_weight``: txtai's hybrid ``weights`` (dense share; BM25 gets the rest).

:class:`TxtaiIndex` is a real txtai ``Embeddings`` (``method: external``, the project's
encoder through ``instructions`` as in :mod:`kg.evaluation.txtai_baseline`) built for
one (tokenizer, normalize, documents) triple; the dense weight is a search argument.
:meth:`TxtaiIndex.channels` and :meth:`TxtaiIndex.fuse` split txtai's own search into
its dense and sparse candidate lists and txtai's own ``Hybrid`` fusion, so a tuner can
try every weight from one pair of lists (a test checks it equals ``Embeddings.search``).

This module imports txtai only when an index is built.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from embeddings import Encoder
from kg.evaluation.txtai_baseline import PASSAGE_TAG, QUERY_TAG, passive_openmp
from kg.search.passages import passages, term_document, term_of
from kg.store import Glossary
from kg.textnorm import has_cjk

TOKENIZERS = ("txtai", "jieba-search", "jieba-plain", "jieba-search-names", "jieba-plain-names")
NORMALIZATIONS = ("default", "bb25")
DOCUMENTS = ("passages", "terms")

#: How many documents a search asks txtai for before the roll-up to terms (txtai itself
#: fetches ten times as many from each channel before fusing).
CANDIDATES = 50

JIEBA_BM25_PATH = f"{__name__}.JiebaBM25"
"""txtai ``scoring.method`` value for :class:`JiebaBM25` (a class path txtai resolves)."""

_WORDLIKE = re.compile(r"\w")

Hits = list[tuple[str, float]]


@dataclass(frozen=True)
class TxtaiSettings:
    """One txtai configuration (see the module docstring for the values)."""

    tokenizer: str = "txtai"
    normalize: str = "default"
    documents: str = "passages"
    dense_weight: float = 0.5

    def __post_init__(self) -> None:
        for value, allowed, what in (
            (self.tokenizer, TOKENIZERS, "tokenizer"),
            (self.normalize, NORMALIZATIONS, "normalize"),
            (self.documents, DOCUMENTS, "documents"),
        ):
            if value not in allowed:
                raise ValueError(f"unknown txtai {what} {value!r} (one of {', '.join(allowed)})")
        if not 0.0 <= self.dense_weight <= 1.0:
            raise ValueError(f"dense_weight {self.dense_weight} is not within [0, 1]")

    @property
    def index_key(self) -> tuple[str, str, str]:
        """What needs an index of its own: (tokenizer, normalize, documents)."""
        return (self.tokenizer, self.normalize, self.documents)

    def label(self) -> str:
        """A short one-line description, e.g. ``jieba-search/bb25/passages w=0.7``."""
        return f"{self.tokenizer}/{self.normalize}/{self.documents} w={self.dense_weight:.1f}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> TxtaiSettings:
        """Read back :meth:`to_dict`; ``ValueError`` on a missing or unknown value."""
        try:
            return cls(
                tokenizer=str(raw["tokenizer"]),
                normalize=str(raw["normalize"]),
                documents=str(raw["documents"]),
                dense_weight=float(raw["dense_weight"]),
            )
        except KeyError as exc:
            raise ValueError(f"txtai settings lack {exc}") from exc


# --- documents -----------------------------------------------------------------------


def txtai_documents(glossary: Glossary, documents: str) -> list[tuple[str, str]]:
    """(document id, text): the search passages, or one document per term that has passages."""
    found = passages(glossary.terms.values())
    if documents == "passages":
        return found
    if documents != "terms":
        raise ValueError(f"unknown txtai documents {documents!r}")
    ids = dict.fromkeys(term_of(pid) for pid, _ in found)
    return [(tid, term_document(glossary.terms[tid])) for tid in ids]


def roll_up(hits: Iterable[tuple[str, float]], k: int = 10) -> list[str]:
    """Term ids of (document id, score) hits, best first: max score per term, first hit breaks ties."""
    best: dict[str, float] = {}
    for doc_id, score in hits:
        tid = term_of(doc_id)
        if tid not in best or score > best[tid]:
            best[tid] = score
    order = {tid: i for i, tid in enumerate(best)}
    return sorted(best, key=lambda t: (-best[t], order[t]))[:k]


# --- jieba inside txtai's BM25 -----------------------------------------------------------


def glossary_cjk_names(glossary: Glossary) -> tuple[str, ...]:
    """Every name of every term that holds Chinese, lower-cased (the text is), sorted."""
    return tuple(sorted({n.lower() for t in glossary.terms.values() for n in t.all_names() if has_cjk(n)}))


@lru_cache(maxsize=2)
def _jieba(words: tuple[str, ...]) -> Any:
    """A private initialised ``jieba.Tokenizer`` with *words* added as a txtai user would (``add_word``)."""
    import logging

    import jieba

    logging.getLogger("jieba").setLevel(logging.WARNING)
    jt = jieba.Tokenizer()
    jt.initialize()
    for word in words:
        jt.add_word(word)
    return jt


def jieba_tokenizer(mode: str, words: Sequence[str] = ()) -> Callable[[str], list[str]]:
    """Lower-case, cut with jieba (``"search"``: ``cut_for_search``, ``"plain"``: ``cut``), keep word tokens."""
    if mode not in ("search", "plain"):
        raise ValueError(f"unknown jieba mode {mode!r}")
    jt = _jieba(tuple(words))
    cut = jt.cut_for_search if mode == "search" else jt.cut

    def tokenize(text: str) -> list[str]:
        return [w for w in (t.strip() for t in cut(text.lower())) if w and _WORDLIKE.search(w)]

    return tokenize


def _jieba_bm25_class() -> type:
    from txtai.scoring import BM25

    class _JiebaBM25(BM25):
        """txtai's BM25 whose tokenizer is jieba (config ``jieba: {mode, words}``)."""

        def loadtokenizer(self) -> Callable[[str], list[str]]:
            cfg = self.config["jieba"]
            return jieba_tokenizer(cfg["mode"], cfg.get("words", ()))

    return _JiebaBM25


def __getattr__(name: str) -> Any:
    # txtai resolves ``JIEBA_BM25_PATH`` by attribute; the class is made on first use so that
    # importing this module does not import txtai (and torch)
    if name == "JiebaBM25":
        cls = _jieba_bm25_class()
        globals()["JiebaBM25"] = cls
        return cls
    raise AttributeError(name)


def scoring_config(tokenizer: str, normalize: str, names: Sequence[str] = ()) -> dict[str, Any]:
    """txtai's ``scoring`` setting: its hybrid default (BM25, terms index, normalised) with our choices."""
    norm: bool | str = True if normalize == "default" else "bb25"
    if tokenizer == "txtai":
        return {"method": "bm25", "terms": True, "normalize": norm}
    mode = tokenizer.split("-")[1]
    words = list(names) if tokenizer.endswith("-names") else []
    return {
        "method": JIEBA_BM25_PATH,
        "terms": True,
        "normalize": norm,
        "jieba": {"mode": mode, "words": words},
    }


# --- the index -------------------------------------------------------------------------


class EncoderTransform:
    """txtai's external transform: tagged documents from a vector table, tagged queries through the encoder.

    ``query_cache`` (optional, shared between indexes) keeps query vectors, for a tuner
    that searches the same queries in many indexes; leave it out when timing searches.
    """

    def __init__(
        self,
        encoder: Encoder,
        documents: Sequence[str],
        vectors: NDArray[np.floating[Any]],
        query_cache: dict[str, NDArray[np.float32]] | None = None,
    ) -> None:
        vecs = np.asarray(vectors, dtype=np.float32)
        if vecs.shape != (len(documents), encoder.dim):
            raise ValueError(
                f"document vectors have shape {vecs.shape}, expected {(len(documents), encoder.dim)}"
            )
        self.encoder = encoder
        self.table: dict[str, NDArray[np.float32]] = dict(zip(documents, vecs, strict=True))
        self.query_cache = query_cache

    def __call__(self, texts: Sequence[str]) -> NDArray[np.float32]:
        out = np.zeros((len(texts), self.encoder.dim), dtype=np.float32)
        queries: list[tuple[int, str]] = []
        for i, tagged in enumerate(texts):
            tag, body = tagged[:1], tagged[1:]
            if tag == PASSAGE_TAG and body in self.table:
                out[i] = self.table[body]
            elif tag == QUERY_TAG:
                cached = None if self.query_cache is None else self.query_cache.get(body)
                if cached is None:
                    queries.append((i, body))
                else:
                    out[i] = cached
            else:
                raise ValueError(f"txtai passed an unknown or untagged text to the transform: {tagged!r:.80}")
        if queries:
            rows, bodies = zip(*queries, strict=True)
            vecs = self.encoder.encode_queries(list(bodies))
            out[list(rows)] = vecs
            if self.query_cache is not None:
                self.query_cache.update(zip(bodies, vecs, strict=True))
        return out


class TxtaiIndex:
    """A txtai hybrid ``Embeddings`` over one document set with one tokenizer and normalisation."""

    def __init__(
        self,
        docs: Sequence[tuple[str, str]],
        vectors: NDArray[np.floating[Any]],
        encoder: Encoder,
        *,
        tokenizer: str = "txtai",
        normalize: str = "default",
        names: Sequence[str] = (),
        query_cache: dict[str, NDArray[np.float32]] | None = None,
        candidates: int = CANDIDATES,
    ) -> None:
        """Index ``docs`` (id, text) with their passage-mode ``vectors`` (aligned rows).

        ``names`` are the words the ``-names`` jieba tokenizers add to jieba's dictionary.
        """
        passive_openmp()
        from txtai import Embeddings  # heavy import (torch): only when an index is built

        TxtaiSettings(tokenizer=tokenizer, normalize=normalize)  # validates
        self.docs = list(docs)
        self.candidates = candidates
        transform = EncoderTransform(encoder, [text for _, text in self.docs], vectors, query_cache)

        def call(texts: Sequence[str]) -> NDArray[np.float32]:
            # txtai instantiates any callable that is not a plain function
            return transform(texts)

        self.config: dict[str, Any] = {
            "method": "external",
            "transform": call,
            "instructions": {"query": QUERY_TAG, "data": PASSAGE_TAG},
            "hybrid": True,
            "scoring": scoring_config(tokenizer, normalize, names),
        }
        self.embeddings = Embeddings(dict(self.config))
        self.embeddings.index((doc_id, text, None) for doc_id, text in self.docs)
        if self.embeddings.ann is None or self.embeddings.scoring is None:
            raise RuntimeError("txtai built no hybrid index (dense and sparse) from this configuration")

    def search(self, query: str, dense_weight: float, limit: int | None = None) -> Hits:
        """txtai's own ``Embeddings.search``: (document id, score), best first."""
        results = self.embeddings.search(query, limit or self.candidates, weights=dense_weight)
        return [(str(doc_id), float(score)) for doc_id, score in results]

    def channels(self, query: str, limit: int | None = None) -> tuple[Hits, Hits]:
        """The dense and sparse candidate lists txtai's hybrid search fuses (ten times ``limit`` each)."""
        from txtai.embeddings.search import Search

        n = 10 * (limit or self.candidates)
        search = Search(self.embeddings)
        dense = search.dense([query], n)[0]
        sparse = search.sparse([query], n)[0]
        return dense, sparse

    def fuse(self, channels: tuple[Hits, Hits], dense_weight: float, limit: int | None = None) -> Hits:
        """txtai's ``Hybrid`` fusion of :meth:`channels` for one dense weight."""
        from txtai.embeddings.search import Hybrid

        fused = Hybrid(self.embeddings.scoring)(
            channels, [dense_weight, 1.0 - dense_weight], limit or self.candidates
        )
        return [(str(doc_id), float(score)) for doc_id, score in fused]

    def rank(self, query: str, dense_weight: float, k: int = 10) -> list[str]:
        """Term ids for ``query``, best first (documents rolled up by max score)."""
        return roll_up(self.search(query, dense_weight), k)

    def __len__(self) -> int:
        return len(self.docs)


class TxtaiTuned:
    """The evaluated system: one :class:`TxtaiIndex` searched with the tuned :class:`TxtaiSettings`.

    >>> tuned = TxtaiTuned(glossary, encoder, settings, vectors)   # doctest: +SKIP
    >>> tuned.rank("TTFT")[:1]                                      # doctest: +SKIP
    """

    def __init__(
        self,
        glossary: Glossary,
        encoder: Encoder,
        settings: TxtaiSettings,
        vectors: NDArray[np.floating[Any]],
    ) -> None:
        """``vectors``: passage-mode vectors of ``txtai_documents(glossary, settings.documents)``."""
        self.settings = settings
        self.index = TxtaiIndex(
            txtai_documents(glossary, settings.documents),
            vectors,
            encoder,
            tokenizer=settings.tokenizer,
            normalize=settings.normalize,
            names=glossary_cjk_names(glossary),
        )

    def rank(self, query: str, k: int = 10) -> list[str]:
        """Term ids for ``query``, best first."""
        return self.index.rank(query, self.settings.dense_weight, k)
