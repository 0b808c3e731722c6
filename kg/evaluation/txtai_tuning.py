"""Choose txtai's settings on the dev split: the grid, the tuner and the committed choice.

``glossary eval-tune-txtai`` runs :func:`tune` over every :class:`TxtaiSettings` of the
grid (tokenizer × normalisation × documents × dense weight) on the dev queries only,
and :func:`write_tuned` stores the chosen settings, the dev MRR of every configuration,
the command and the date in :data:`TUNED_PATH`; ``glossary eval`` reads it back with
:func:`load_tuned` for its ``txtai-tuned`` system.

Cost: one txtai index per (tokenizer, normalisation, documents), built from vectors
computed once (passage vectors from the artifact's own index, term-document vectors
through the persistent vector cache). Each query is searched once per index for its
dense and sparse candidate lists; every dense weight is then one call of txtai's own
fusion on those lists (:meth:`TxtaiIndex.fuse`), not a new search.

The best configuration has the highest dev MRR; ties go to the higher recall@1, then to
the first in grid order.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from embeddings import Encoder
from kg.evaluation.dataset import ResolvedQuery
from kg.evaluation.metrics import rank_of, reciprocal_rank
from kg.evaluation.txtai_configurable import (
    DOCUMENTS,
    NORMALIZATIONS,
    TOKENIZERS,
    TxtaiIndex,
    TxtaiSettings,
    glossary_cjk_names,
    roll_up,
    txtai_documents,
)
from kg.store import Glossary

TUNED_PATH = Path(__file__).with_name("txtai_tuned.json")
"""The committed choice of ``glossary eval-tune-txtai``."""

DENSE_WEIGHTS = tuple(round(0.1 * i, 1) for i in range(11))


@dataclass(frozen=True)
class Grid:
    """The values searched on each axis."""

    tokenizers: tuple[str, ...] = TOKENIZERS
    normalizations: tuple[str, ...] = NORMALIZATIONS
    documents: tuple[str, ...] = DOCUMENTS
    dense_weights: tuple[float, ...] = DENSE_WEIGHTS

    def settings(self) -> list[TxtaiSettings]:
        """Every configuration, in grid order (documents, tokenizer, normalisation, weight)."""
        return [
            TxtaiSettings(tok, norm, docs, w)
            for docs in self.documents
            for tok in self.tokenizers
            for norm in self.normalizations
            for w in self.dense_weights
        ]

    def to_dict(self) -> dict[str, list[Any]]:
        return {
            "tokenizer": list(self.tokenizers),
            "normalize": list(self.normalizations),
            "documents": list(self.documents),
            "dense_weight": list(self.dense_weights),
        }


@dataclass(frozen=True)
class ConfigScore:
    """Dev scores of one configuration."""

    settings: TxtaiSettings
    n: int
    mrr: float
    recall_at_1: float

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.settings.to_dict(),
            "mrr": round(self.mrr, 6),
            "recall_at_1": round(self.recall_at_1, 6),
        }


@dataclass(frozen=True)
class TuningResult:
    """Every configuration's dev scores, in grid order, and the best one."""

    grid: Grid
    scores: list[ConfigScore]
    seconds: float

    @property
    def best(self) -> ConfigScore:
        order = {id(s): i for i, s in enumerate(self.scores)}
        return max(self.scores, key=lambda s: (round(s.mrr, 9), round(s.recall_at_1, 9), -order[id(s)]))


def document_vectors(glossary: Glossary, encoder: Encoder, documents: str) -> NDArray[np.float32]:
    """Passage-mode vectors of :func:`txtai_documents` (encoded with ``encoder``; wrap it in a cache)."""
    texts = [text for _, text in txtai_documents(glossary, documents)]
    return np.asarray(encoder.encode_passages(texts), dtype=np.float32)


def artifact_vectors(glossary: Glossary, dense: Any, documents: str) -> NDArray[np.float32]:
    """Vectors of :func:`txtai_documents` for a built artifact's dense index ``dense`` (a ``DenseIndex``).

    Passages reuse the index's own vectors (``ValueError`` when they are not the
    glossary's passages: rebuild); term documents are encoded in passage mode through
    the persistent vector cache (:class:`embeddings.cache.CachingEncoder`), once.
    """
    if documents == "passages":
        ids = [pid for pid, _ in txtai_documents(glossary, "passages")]
        if list(dense.index.ids) != ids:
            raise ValueError("the vector index does not match the passages: rebuild")
        return np.asarray(dense.index.faiss_index.reconstruct_n(0, len(ids)), dtype=np.float32)
    from embeddings.cache import CachingEncoder, VectorCache

    return document_vectors(glossary, CachingEncoder(dense.encoder, VectorCache.default()), documents)


def tune(
    glossary: Glossary,
    queries: Sequence[ResolvedQuery],
    encoder: Encoder,
    vectors: Mapping[str, NDArray[np.floating[Any]]],
    *,
    grid: Grid | None = None,
    progress: Callable[[str], None] | None = None,
) -> TuningResult:
    """Score every configuration of ``grid`` on ``queries`` (dev only: this is where txtai is tuned).

    ``vectors`` maps each ``documents`` value of the grid to the passage-mode vectors of
    :func:`txtai_documents`. Query vectors are encoded once and shared by every index.
    """
    grid = grid or Grid()
    start = time.perf_counter()
    names = glossary_cjk_names(glossary)
    query_cache: dict[str, NDArray[np.float32]] = {}
    rr: dict[TxtaiSettings, list[float]] = {}
    for docs in grid.documents:
        doc_list = txtai_documents(glossary, docs)
        for tok in grid.tokenizers:
            for norm in grid.normalizations:
                index = TxtaiIndex(
                    doc_list,
                    vectors[docs],
                    encoder,
                    tokenizer=tok,
                    normalize=norm,
                    names=names,
                    query_cache=query_cache,
                )
                per_weight: dict[float, list[float]] = {w: [] for w in grid.dense_weights}
                for q in queries:
                    channels = index.channels(q.text)
                    for w in grid.dense_weights:
                        ranking = roll_up(index.fuse(channels, w), 10)
                        per_weight[w].append(reciprocal_rank(rank_of(q.term_id, ranking)))
                for w, values in per_weight.items():
                    rr[TxtaiSettings(tok, norm, docs, w)] = values
                if progress:
                    best = max(float(np.mean(v)) if v else 0.0 for v in per_weight.values())
                    progress(f"{docs}/{tok}/{norm}: best MRR over the weights {best:.3f}")
    scores = []
    for settings in grid.settings():
        values = rr[settings]
        n = len(values)
        mrr = sum(values) / n if n else 0.0
        r1 = sum(1 for v in values if v == 1.0) / n if n else 0.0
        scores.append(ConfigScore(settings, n, mrr, r1))
    return TuningResult(grid, scores, time.perf_counter() - start)


# --- the table and the committed file ---------------------------------------------------------


def render_table(result: TuningResult) -> str:
    """Markdown: one row per (documents, tokenizer, normalisation), dev MRR per dense weight."""
    weights = result.grid.dense_weights
    header = ["documents", "tokenizer", "normalize", *[f"w={w:.1f}" for w in weights]]
    lines = [
        "| " + " | ".join(header) + " |",
        "| " + " | ".join([":---"] * 3 + ["---:"] * len(weights)) + " |",
    ]
    by_key = {(s.settings.index_key, s.settings.dense_weight): s for s in result.scores}
    best = result.best.settings
    for docs in result.grid.documents:
        for tok in result.grid.tokenizers:
            for norm in result.grid.normalizations:
                cells = []
                for w in weights:
                    s = by_key[((tok, norm, docs), w)]
                    text = f"{s.mrr:.3f}"
                    cells.append(f"**{text}**" if s.settings == best else text)
                lines.append("| " + " | ".join([docs, tok, norm, *cells]) + " |")
    return "\n".join(lines) + "\n"


def write_tuned(
    path: Path,
    result: TuningResult,
    *,
    command: str,
    split: str,
    encoder_id: str,
    queries: int,
    evaluated: int,
) -> dict[str, Any]:
    """Write the choice and every configuration's dev scores as JSON; returns what was written."""
    best = result.best
    doc: dict[str, Any] = {
        "command": command,
        "date": dt.datetime.now(dt.UTC).date().isoformat(),
        "split": split,
        "queries": queries,
        "evaluated": evaluated,
        "encoder": encoder_id,
        "grid": result.grid.to_dict(),
        "configurations": len(result.scores),
        "seconds": round(result.seconds, 1),
        "chosen": best.to_dict(),
        "results": [s.to_dict() for s in result.scores],
    }
    path.write_text(_dumps(doc), encoding="utf-8")
    return doc


def _dumps(doc: Mapping[str, Any]) -> str:
    """JSON with one line per top-level key and per configuration (diffs stay readable)."""
    lines = []
    for key, value in doc.items():
        if key == "results":
            rows = ",\n".join("  " + json.dumps(r, ensure_ascii=False) for r in value)
            lines.append(f" {json.dumps(key)}: [\n{rows}\n ]")
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def load_tuned(path: Path = TUNED_PATH) -> tuple[TxtaiSettings, dict[str, Any]]:
    """The chosen settings and the whole document; ``FileNotFoundError`` / ``ValueError`` if absent or bad."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(doc, dict) or "chosen" not in doc:
        raise ValueError(f"{path}: no 'chosen' settings")
    return TxtaiSettings.from_dict(doc["chosen"]), doc
