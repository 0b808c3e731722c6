"""BM25 keyword index over glossary documents (``bm25s``, Lucene scoring).

Documents are ``(doc_id, text)`` pairs; both documents and queries go through
the same :class:`~kg.search.tokenize.Tokenizer`. The index saves to a directory
(``meta.json`` plus ``bm25s`` numpy/JSON files) that records the tokenizer's
vocabulary, so :meth:`LexicalIndex.load` rebuilds the identical tokenizer.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from kg.detached import detached
from kg.search.tokenize import TOKENIZER_VERSION, Tokenizer
from kg.textnorm import readings

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "LexicalIndex"]

FORMAT_NAME = "kg.search.lexical"
FORMAT_VERSION = 1
_META = "meta.json"
_BM25_DIR = "bm25"


def _bm25_class() -> Any:
    """``bm25s.BM25``, imported lazily (the import costs ~0.2 s)."""
    import bm25s

    return bm25s.BM25


class LexicalIndex:
    """BM25 over ``(doc_id, text)`` documents.

    *tokenizer* defaults to a vocabulary-free :class:`Tokenizer`; pass one built
    from the glossary names so that multi-character terms stay whole. *method*
    is a ``bm25s`` scoring method; ``lucene`` (default) gives 0 to documents
    sharing no token with the query, which :meth:`search` relies on.
    """

    def __init__(
        self,
        docs: Iterable[tuple[str, str]],
        tokenizer: Tokenizer | None = None,
        *,
        method: str = "lucene",
        k1: float = 1.5,
        b: float = 0.75,
    ) -> None:
        if method in ("bm25+", "bm25l"):
            raise ValueError(f"method {method!r} scores non-matching documents above 0; use lucene")
        self._tokenizer = tokenizer if tokenizer is not None else Tokenizer()
        self._params = {"method": method, "k1": float(k1), "b": float(b)}
        ids: list[str] = []
        token_lists: list[list[str]] = []
        seen: set[str] = set()
        for doc_id, text in docs:
            if doc_id in seen:
                raise ValueError(f"duplicate doc_id {doc_id!r}")
            seen.add(doc_id)
            ids.append(doc_id)
            token_lists.append(self._tokenizer.tokenize(text))
        self._doc_ids: list[str] = ids
        self._bm25: Any = self._build(token_lists) if any(token_lists) else None

    def _build(self, token_lists: list[list[str]]) -> Any:
        vocab: dict[str, int] = {}
        for tok in sorted({t for tokens in token_lists for t in tokens}):
            vocab[tok] = len(vocab)
        corpus_ids = [[vocab[t] for t in tokens] for tokens in token_lists]
        bm25 = _bm25_class()(**self._params)
        bm25.index((corpus_ids, vocab), create_empty_token=False, show_progress=False)
        return bm25

    # -- queries -----------------------------------------------------------

    @property
    def tokenizer(self) -> Tokenizer:
        """The tokenizer shared by documents and queries."""
        return self._tokenizer

    @property
    def doc_ids(self) -> Sequence[str]:
        """Document ids in index order."""
        return tuple(self._doc_ids)

    def __len__(self) -> int:
        return len(self._doc_ids)

    def search(self, query: str, k: int = 10) -> list[tuple[str, float]]:
        """The best *k* ``(doc_id, score)`` pairs, best first, every score finite and > 0.

        An empty query, one made only of stopwords or punctuation, or one whose
        tokens no document contains, gives ``[]``. Ties keep index order.
        """
        if k <= 0 or self._bm25 is None:
            return []
        vocab: dict[str, int] = self._bm25.vocab_dict
        token_ids = list(dict.fromkeys(vocab[t] for t in self._tokenizer.tokenize(query) if t in vocab))
        if not token_ids:
            return []
        scores = np.asarray(self._bm25.get_scores_from_ids(token_ids), dtype=np.float64)
        hits = np.flatnonzero(np.isfinite(scores) & (scores > 0))
        if hits.size == 0:
            return []
        order = hits[np.argsort(-scores[hits], kind="stable")][:k]
        return [(self._doc_ids[i], float(scores[i])) for i in order]

    def coverage(self, query: str) -> tuple[int, int]:
        """``(tokens, known)``: the query's tokens and how many of them any document contains.

        The share of unknown words is evidence that a question is about something else
        ("baking cookies" next to "batch size"); the chatbot's refusal model reads it.
        """
        tokens = self._tokenizer.tokenize(query)
        if self._bm25 is None:
            return len(tokens), 0
        vocab: dict[str, int] = self._bm25.vocab_dict
        return len(tokens), sum(t in vocab for t in tokens)

    def unknown_words(self, query: str) -> list[str]:
        """The query's tokens that no document contains, in query order."""
        tokens = self._tokenizer.tokenize(query)
        if self._bm25 is None:
            return tokens
        vocab: dict[str, int] = self._bm25.vocab_dict
        return [t for t in tokens if t not in vocab]

    def near_known(self, word: str) -> bool:
        """Whether *word* is a known word with one character swapped for another of the same
        sound ("教准" for 校准, "模形" for 模型): the slip of a pinyin input method, not a new word."""
        if self._bm25 is None or len(word) < 2:
            return False
        index = self._one_off_index()
        for i, ch in enumerate(word):
            for known in index.get(f"{word[:i]}?{word[i + 1 :]}", ()):
                if readings(ch) & readings(known[i]):
                    return True
        return False

    def _one_off_index(self) -> dict[str, list[str]]:
        """ "ab?d" → the known words that read so with one character masked (built on first use)."""
        cached: dict[str, list[str]] | None = getattr(self, "_one_off", None)
        if cached is None:
            cached = {}
            for w in self._bm25.vocab_dict:
                if len(w) >= 2:
                    for i in range(len(w)):
                        cached.setdefault(f"{w[:i]}?{w[i + 1 :]}", []).append(w)
            self._one_off = cached
        return cached

    # -- persistence -------------------------------------------------------

    def save(self, directory: str | Path) -> None:
        """Write the index to *directory* (created if missing): ``meta.json`` + ``bm25/``."""
        path = Path(directory)
        path.mkdir(parents=True, exist_ok=True)
        meta = {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "tokenizer": {"version": TOKENIZER_VERSION, "vocabulary": list(self._tokenizer.vocabulary)},
            "params": self._params,
            "doc_ids": self._doc_ids,
            "has_bm25": self._bm25 is not None,
        }
        if self._bm25 is not None:
            self._bm25.save(str(path / _BM25_DIR), show_progress=False)
        (path / _META).write_text(json.dumps(meta, ensure_ascii=False, indent=1), encoding="utf-8")

    @classmethod
    def load(
        cls,
        directory: str | Path,
        tokenizer: Tokenizer | None = None,
        *,
        mmap: bool = True,
        ids: Mapping[str, str] | None = None,
    ) -> LexicalIndex:
        """Read an index written by :meth:`save` (its arrays memory-mapped unless *mmap* is False).
        *ids*: document id → the same string already in memory (the terms' ids), kept instead of
        a copy.

        The tokenizer is rebuilt from the saved vocabulary unless *tokenizer* is
        given (it must then have the same vocabulary). Raises ``ValueError`` for a
        foreign or outdated format, ``FileNotFoundError`` when files are missing.
        """
        path = Path(directory)
        meta = json.loads((path / _META).read_text(encoding="utf-8"))
        if meta.get("format") != FORMAT_NAME or meta.get("version") != FORMAT_VERSION:
            raise ValueError(f"{path}: not a {FORMAT_NAME} v{FORMAT_VERSION} index")
        tok_meta = meta["tokenizer"]
        if tok_meta.get("version") != TOKENIZER_VERSION:
            raise ValueError(
                f"{path}: built with tokenizer v{tok_meta.get('version')}, this is v{TOKENIZER_VERSION}; rebuild"
            )
        vocabulary = tuple(tok_meta["vocabulary"])
        if tokenizer is None:
            tokenizer = Tokenizer(vocabulary)
        elif tokenizer.vocabulary != vocabulary:
            raise ValueError("tokenizer vocabulary differs from the saved index")
        index = cls.__new__(cls)
        index._tokenizer = tokenizer
        index._params = dict(meta["params"])
        # not strings of the parse: the rest of meta (the vocabulary) is garbage
        index._doc_ids = (
            [ids.get(d) or detached(d) for d in meta["doc_ids"]] if ids else detached(meta["doc_ids"])
        )
        index._bm25 = None
        if meta["has_bm25"]:
            # memory-mapped: a query reads only its tokens' columns, and replicas share the pages
            index._bm25 = _bm25_class().load(str(path / _BM25_DIR), show_progress=False, mmap=mmap)
        return index
