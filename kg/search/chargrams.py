"""BM25 over Chinese character unigrams and bigrams (plus Latin words): the ``chars`` stage.

jieba cuts a paraphrase into different words than the definition it paraphrases
("按需分配显存" against "显存按需分配的块"), so the word-level BM25 of
:mod:`kg.search.lexical` misses it, while the characters and character pairs still
overlap. This index scores the same term documents over those units.

Tokens are kept as 32-bit CRC hashes in a sorted array, not as a vocabulary dict: every
array of the index (hashes, and the BM25 score matrix that ``bm25s`` computes, in CSC
form) is a ``.npy`` file that :meth:`CharGramIndex.load` memory-maps, so a served
artifact holds no per-token Python objects, however many terms it has. Two tokens
sharing a hash (rare at 32 bits) only merge their postings.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from kg.detached import detached
from kg.search.tokenize import _CJK_RUN, _WORD, STOPWORDS, _latin_tokens
from kg.textnorm import fold

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "CharGramIndex", "char_tokens"]

FORMAT_NAME = "kg.search.chargrams"
FORMAT_VERSION = 1  # bump when char_tokens changes (saved indexes must be rebuilt)
_META = "meta.json"
_ARRAYS = ("hashes", "data", "indices", "indptr")
_SPACES = re.compile(r"\s+")
MAX_DF_SHARE = 0.02  # tokens in more than this share of the documents are skipped by search…
MIN_CAP = 2000  # …when that share is above this many documents
# function characters that pair with everything: as unigrams they only cost time
_ZH_STOPCHARS = frozenset(w for w in STOPWORDS if len(w) == 1 and not w.isascii())


def char_tokens(text: str) -> list[str]:
    """Folded text as tokens: per run of Chinese characters its characters (function
    characters left out) and every adjacent pair; Latin/digit words as the jieba tokenizer
    cuts them (stopwords left out)."""
    folded = _SPACES.sub(" ", fold(text))
    out: list[str] = []
    pos = 0
    for m in _CJK_RUN.finditer(folded):
        _latin(folded[pos : m.start()], out)
        run = m.group()
        out.extend(ch for ch in run if ch not in _ZH_STOPCHARS)
        out.extend(run[i : i + 2] for i in range(len(run) - 1))
        pos = m.end()
    _latin(folded[pos:], out)
    return out


def _latin(text: str, out: list[str]) -> None:
    for m in _WORD.finditer(text):
        out.extend(t for t in _latin_tokens(m.group()) if t not in STOPWORDS)


def _hash(token: str) -> int:
    return zlib.crc32(token.encode("utf-8"))  # stable across processes, unlike hash()


class CharGramIndex:
    """BM25 (Lucene scoring, ``bm25s``) over ``(doc_id, text)`` documents cut by :func:`char_tokens`."""

    def __init__(self, docs: Iterable[tuple[str, str]], *, k1: float = 1.2, b: float = 0.75) -> None:
        ids: list[str] = []
        hashed: list[list[int]] = []
        for doc_id, text in docs:
            ids.append(doc_id)
            hashed.append([_hash(t) for t in char_tokens(text)])
        if len(set(ids)) != len(ids):
            raise ValueError("duplicate doc_id")
        self._doc_ids: list[str] = ids
        self._params = {"k1": float(k1), "b": float(b)}
        hashes = np.array(sorted({h for doc in hashed for h in doc}), dtype=np.uint32)
        self._arrays: dict[str, NDArray[Any]] = {"hashes": hashes}
        if hashes.size:
            import bm25s

            column = {int(h): i for i, h in enumerate(hashes)}
            bm25 = bm25s.BM25(method="lucene", k1=k1, b=b)
            corpus = [[column[h] for h in doc] for doc in hashed]
            bm25.index(
                (corpus, {str(h): i for h, i in column.items()}),
                create_empty_token=False,
                show_progress=False,
            )
            for name in ("data", "indices", "indptr"):
                self._arrays[name] = np.ascontiguousarray(bm25.scores[name])

    def __len__(self) -> int:
        return len(self._doc_ids)

    @property
    def doc_ids(self) -> Sequence[str]:
        """Document ids in index order."""
        return tuple(self._doc_ids)

    def search(self, query: str, k: int = 10) -> list[tuple[str, float]]:
        """The best *k* ``(doc_id, score)`` pairs, best first, every score > 0; ties keep index order."""
        hashes = self._arrays["hashes"]
        if k <= 0 or not hashes.size:
            return []
        wanted = np.unique(np.array([_hash(t) for t in char_tokens(query)], dtype=np.uint32))
        if not wanted.size:
            return []
        cols = np.searchsorted(hashes, wanted)
        inside = cols < hashes.size
        cols, wanted = cols[inside], wanted[inside]
        cols = cols[hashes[cols] == wanted]  # tokens no document has are left out
        indptr, indices, data = self._arrays["indptr"], self._arrays["indices"], self._arrays["data"]
        # a character found in most of a large glossary's documents weighs little and costs a
        # long posting list: above the cap it is left out (never on a glossary of fewer
        # documents than MIN_CAP, so the bundled one is scored in full)
        cap = max(MIN_CAP, int(MAX_DF_SHARE * len(self._doc_ids)))
        cols = cols[(indptr[cols + 1] - indptr[cols]) <= cap]
        if not cols.size:
            return []
        docs = np.concatenate([indices[indptr[c] : indptr[c + 1]] for c in cols])
        weights = np.concatenate([data[indptr[c] : indptr[c + 1]] for c in cols]).astype(np.float64)
        scores = np.bincount(docs, weights=weights, minlength=len(self._doc_ids))
        hits = np.flatnonzero(scores > 0)
        order = hits[np.argsort(-scores[hits], kind="stable")][:k]
        return [(self._doc_ids[i], float(scores[i])) for i in order]

    # -- persistence -------------------------------------------------------

    def save(self, directory: str | Path) -> None:
        """Write ``meta.json`` and one ``.npy`` file per array under *directory*."""
        path = Path(directory)
        path.mkdir(parents=True, exist_ok=True)
        for name, arr in self._arrays.items():
            np.save(path / f"{name}.npy", arr, allow_pickle=False)
        meta = {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "params": self._params,
            "doc_ids": self._doc_ids,
        }
        (path / _META).write_text(json.dumps(meta, ensure_ascii=False, indent=1), encoding="utf-8")

    @classmethod
    def load(
        cls, directory: str | Path, *, mmap: bool = True, ids: Mapping[str, str] | None = None
    ) -> CharGramIndex:
        """Read an index written by :meth:`save`, its arrays memory-mapped unless *mmap* is False.
        *ids*: document id → the same string already in memory, kept instead of a copy.
        ``ValueError`` for a foreign or outdated format."""
        path = Path(directory)
        meta = json.loads((path / _META).read_text(encoding="utf-8"))
        if meta.get("format") != FORMAT_NAME or meta.get("version") != FORMAT_VERSION:
            raise ValueError(f"{path}: not a {FORMAT_NAME} v{FORMAT_VERSION} index: rebuild")
        index = cls.__new__(cls)
        index._params = dict(meta["params"])
        index._doc_ids = (
            [ids.get(d) or detached(d) for d in meta["doc_ids"]] if ids else detached(meta["doc_ids"])
        )
        index._arrays = {}
        for name in _ARRAYS:
            file = path / f"{name}.npy"
            if file.exists():
                index._arrays[name] = np.load(file, mmap_mode="r" if mmap else None, allow_pickle=False)
        return index
