"""Retrieval evaluation: the labelled dataset, ranking metrics, a txtai baseline and reports.

* :mod:`kg.evaluation.dataset` — :func:`load_queries`, :func:`load_query_files` (several files as one
  dataset), :func:`resolve_gold` (gold names → one term id).
* :mod:`kg.evaluation.metrics` — recall@1/@5, MRR@10 overall, per kind and per language; latency.
* :mod:`kg.evaluation.txtai_baseline` — :class:`TxtaiBaseline`, txtai hybrid search with our encoder.
* :mod:`kg.evaluation.txtai_configurable` — txtai hybrid with a chosen tokenizer, normalisation,
  documents and dense weight (the ``txtai-tuned`` system).
* :mod:`kg.evaluation.txtai_tuning` — ``glossary eval-tune-txtai``: those settings chosen on the dev split.
* :mod:`kg.evaluation.bootstrap` — paired bootstrap intervals and win/loss counts between two systems.
* :mod:`kg.evaluation.run` — :func:`evaluate`, :func:`render_markdown`, :func:`check_targets`.

Importing this package does not import txtai (nor torch): that happens when a
:class:`TxtaiBaseline` is built.
"""

from __future__ import annotations

from kg.evaluation.dataset import GoldProblem, Query, ResolvedQuery, load_queries, resolve_gold
from kg.evaluation.metrics import Latency, Scores, SystemMetrics, compute_metrics, rank_of, score_ranks
from kg.evaluation.run import check_targets, evaluate, render_markdown
from kg.evaluation.txtai_baseline import TxtaiBaseline

__all__ = [
    "GoldProblem",
    "Latency",
    "Query",
    "ResolvedQuery",
    "Scores",
    "SystemMetrics",
    "TxtaiBaseline",
    "check_targets",
    "compute_metrics",
    "evaluate",
    "load_queries",
    "rank_of",
    "render_markdown",
    "resolve_gold",
    "score_ranks",
]
