"""Example questions: how users ask about each term, as a search stage of its own.

A corpus may hold ``examples.jsonl``: questions people ask, each with the names of the term that
answers it (``{"text": "How do I stop one huge prompt from stalling everyone's stream?",
"gold": ["Chunked prefill"]}``). The bundled file holds the in-domain questions written blind for
training the chat's refusal model (``tests/data/refusal_indomain_train*.jsonl``) and questions
written blind to describe each entry's use without naming it (``tests/data/examples_train4.jsonl``)
or to ask why, how or which with it as the answer (``tests/data/examples_train5.jsonl``), made into
``corpus/examples.jsonl`` by ``tests/data/make_examples.py``; never a question of an evaluation
split.

Why a stage: a definition says what a term *is*; a user asks what it *does for them* ("how do I
serve thousands of fine-tuned variants on one base model?" → LoRA). The encoder places such a
question far from the Chinese definition but close to another user's question about the same
term. Example questions are encoded in query mode (question against question) and a term's score
is its best example's cosine; the stage's ranks enter the fusion like any other's
(:class:`kg.search.engine.FusionWeights.examples`). A term with no example is simply not ranked
by this stage.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from kg.parsers.common import SourceError
from kg.textnorm import clean

__all__ = ["EXAMPLES_FILE", "ExampleIndex", "read_examples", "resolve_examples"]

EXAMPLES_FILE = "examples.jsonl"


def read_examples(corpus_dir: Path) -> list[tuple[str, list[str], int]]:
    """(question, names of the answering term, line) of ``examples.jsonl``; [] without the file.

    A bad line raises :class:`~kg.parsers.common.SourceError` naming the file and line.
    """
    path = Path(corpus_dir) / EXAMPLES_FILE
    if not path.is_file():
        return []
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise SourceError(str(path), 1, f"not UTF-8 ({exc.reason})") from exc
    out: list[tuple[str, list[str], int]] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SourceError(str(path), n, f"not JSON: {exc.msg}") from exc
        if not isinstance(row, dict):
            raise SourceError(str(path), n, "each line is an object with 'text' and 'gold'")
        question, gold = row.get("text"), row.get("gold")
        if not isinstance(question, str) or not question.strip():
            raise SourceError(str(path), n, "'text' must be a non-empty string")
        if not isinstance(gold, list) or not gold or not all(isinstance(g, str) and g.strip() for g in gold):
            raise SourceError(str(path), n, "'gold' must be a non-empty list of term names")
        out.append((question.strip(), [g.strip() for g in gold], n))
    return out


def resolve_examples(
    rows: Iterable[tuple[str, list[str], int]], lookup: Any
) -> tuple[list[tuple[str, str]], list[int]]:
    """(term id, question) for rows whose names all designate one term; and the lines that do not.

    *lookup* is :meth:`kg.store.Glossary.lookup` (name → hits). A question whose names lead to
    no term, or to several, is left out (its line is returned) rather than guessed.
    """
    kept: list[tuple[str, str]] = []
    skipped: list[int] = []
    for question, names, line in rows:
        ids = {hits[0].term.id for n in names if (hits := lookup(n))}
        if len(ids) == 1:
            kept.append((ids.pop(), question))
        else:
            skipped.append(line)
    return kept, skipped


class ExampleIndex:
    """Query-mode vectors of example questions, each the question of one term."""

    def __init__(self, term_ids: Sequence[str], texts: Sequence[str], vectors: NDArray[np.float32]) -> None:
        if len(term_ids) != len(texts) or len(texts) != vectors.shape[0]:
            raise ValueError("example index: term ids, texts and vectors differ in length")
        self.term_ids = list(term_ids)
        self.texts = list(texts)
        self.vectors = vectors
        self._ids = np.array(self.term_ids, dtype=object)

    def __len__(self) -> int:
        return len(self.term_ids)

    @classmethod
    def build(cls, encoder: Any, items: Sequence[tuple[str, str]]) -> ExampleIndex:
        """Encode *items* ((term id, question)) in query mode."""
        texts = [q for _, q in items]
        # cleaned as the engine cleans a query (kg.textnorm.clean), so that a question asked
        # again word for word meets its own example
        cleaned = [clean(q) for q in texts]
        vectors = np.asarray(encoder.encode_queries(cleaned), dtype=np.float32) if texts else None
        dim = int(encoder.dim)
        return cls(
            [t for t, _ in items], texts, vectors if vectors is not None else np.zeros((0, dim), np.float32)
        )

    def search(self, query_vector: NDArray[np.float32], k: int) -> list[tuple[str, float]]:
        """(term id, best example cosine), best first, at most *k* terms."""
        if not len(self):
            return []
        sims = self.vectors @ np.asarray(query_vector, dtype=np.float32).reshape(-1)
        order = np.argsort(-sims, kind="stable")
        out: list[tuple[str, float]] = []
        seen: set[str] = set()
        for i in order:
            tid = self.term_ids[int(i)]
            if tid in seen:
                continue
            score = float(sims[int(i)])
            if not np.isfinite(score):
                continue
            seen.add(tid)
            out.append((tid, score))
            if len(out) >= k:
                break
        return out

    def save(self, directory: Path) -> None:
        """Write ``vectors.npy`` and ``examples.json`` under *directory*."""
        directory.mkdir(parents=True, exist_ok=True)
        np.save(directory / "vectors.npy", self.vectors)
        (directory / "examples.json").write_text(
            json.dumps({"term_ids": self.term_ids, "texts": self.texts}, ensure_ascii=False), encoding="utf-8"
        )

    @classmethod
    def load(cls, directory: Path, mmap: bool = True) -> ExampleIndex:
        """Read what :meth:`save` wrote (the vectors memory-mapped by default)."""
        meta = json.loads((directory / "examples.json").read_text(encoding="utf-8"))
        vectors = np.load(directory / "vectors.npy", mmap_mode="r" if mmap else None)
        return cls(meta["term_ids"], meta["texts"], vectors)
