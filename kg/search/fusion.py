"""Learned fusion: a linear ranker over the stages' ranks and scores, read from a small JSON file.

The hand-weighted reciprocal-rank fusion of :class:`~kg.search.engine.SearchEngine` gives every
stage one weight for every query. The learned fusion scores each candidate (the union of the
stages' top hits) with ``w · x``, where ``x`` (:func:`candidate_features`) holds the candidate's
reciprocal rank in each stage, its score relative to the stage's best, and the same ranks
crossed with what the query is (:class:`QueryInfo`: Chinese or not, a short query about a name,
a long question that only mentions one). So a name found inside a long how-to question can weigh
less than the dense stage, while the same name alone still wins.

The weights are learned on the dev split only by ``glossary train-fusion``
(:mod:`kg.evaluation.fusion_train`, scikit-learn) and written to :data:`DEFAULT_PATH`, a
committed file; nothing is trained at serve time.

The chatbot ranks with a second model of the same form, :data:`CHAT_PATH`
(``glossary train-fusion --profile chat``): learned on the same dev queries plus the first turns
of the dev chat splits that ask how to do something or which term plays a role. Search-box
queries are mostly names and short descriptions; chat questions are symptoms and goals in whole
sentences, where the example questions and the dense stage say more than the words the question
shares with a definition. Each profile keeps the weights that suit its own traffic
(:meth:`SearchEngine.search`'s ``profile``). The engine falls back to the hand weights when
the file is absent, or was learned for another encoder or for stages this artifact lacks.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

__all__ = [
    "CHAT_PATH",
    "DEFAULT_PATH",
    "FEATURES",
    "PROFILE_PATHS",
    "STAGES",
    "FusionModel",
    "QueryInfo",
    "candidate_features",
    "load_default",
]

DEFAULT_PATH = Path(__file__).with_name("fusion_model.json")
#: The chatbot's model (``glossary train-fusion --profile chat``).
CHAT_PATH = Path(__file__).with_name("fusion_chat_model.json")
#: Where each ranking profile's model lives.
PROFILE_PATHS: dict[str, Path] = {"search": DEFAULT_PATH, "chat": CHAT_PATH}
FORMAT = "kg.search.fusion/1"

#: The ranked stages whose ranks the model reads (exact and near-exact names are flags).
STAGES: tuple[str, ...] = ("mention", "fuzzy", "lexical", "chars", "dense", "examples")
_RR_K = 5.0  # reciprocal rank (k + 1) / (k + rank): 1 at rank 1, 0.6 at rank 5, 0 when absent
_GAP = 0.2  # a cosine this far below the stage's best counts as nothing


@dataclass(frozen=True)
class QueryInfo:
    """What the query is, as the fusion reads it."""

    cjk: bool  # the query has Chinese characters
    topic: bool  # a short query whose names are its topic (see FusionWeights.topic_max_words)
    long: bool  # more than topic_max_words words outside the names


class _HitLike(Protocol):
    components: dict[str, float]
    ranks: dict[str, int]
    raw: dict[str, float]


def _feature_names() -> tuple[str, ...]:
    names = ["exact", "near_exact"]
    names += [f"rr_{s}" for s in STAGES if s != "mention"]
    names += ["rr_mention_topic", "rr_mention_long"]
    names += ["fuzzy_score", "lexical_rel", "chars_rel", "dense_rel", "examples_rel"]
    names += [f"rr_{s}_zh" for s in ("lexical", "chars", "dense", "examples")]
    names += ["rr_dense_long", "rr_examples_long"]
    return tuple(names)


#: Feature names, in the order of :func:`candidate_features`.
FEATURES: tuple[str, ...] = _feature_names()


def _rr(hit: _HitLike, stage: str) -> float:
    rank = hit.ranks.get(stage)
    return 0.0 if rank is None else (_RR_K + 1.0) / (_RR_K + rank)


def stage_tops(hits: Sequence[_HitLike]) -> dict[str, float]:
    """Each stage's best raw score among *hits* (BM25 scores and cosines)."""
    tops: dict[str, float] = {}
    for h in hits:
        for stage, value in h.raw.items():
            if value > tops.get(stage, float("-inf")):
                tops[stage] = value
    return tops


def candidate_features(hit: _HitLike, query: QueryInfo, tops: Mapping[str, float]) -> list[float]:
    """The feature vector of one candidate (names in :data:`FEATURES`)."""
    rr = {s: _rr(hit, s) for s in STAGES}
    zh = 1.0 if query.cjk else 0.0
    long = 1.0 if query.long else 0.0

    def rel(stage: str) -> float:  # BM25 score / the query's best
        top = tops.get(stage, 0.0)
        return hit.raw[stage] / top if stage in hit.raw and top > 0 else 0.0

    def cos(stage: str) -> float:  # 1 at the query's best cosine, 0 from _GAP below it
        if stage not in hit.raw:
            return 0.0
        return max(0.0, 1.0 - (tops[stage] - hit.raw[stage]) / _GAP)

    x = [float("exact" in hit.components), float("near_exact" in hit.components)]
    x += [rr[s] for s in STAGES if s != "mention"]
    m = rr["mention"]
    # a name that is the query's topic, or one mentioned in a long question (how-to, description)
    x += [m * query.topic, m * long]
    x += [hit.raw.get("fuzzy", 0.0), rel("lexical"), rel("chars"), cos("dense"), cos("examples")]
    x += [rr[s] * zh for s in ("lexical", "chars", "dense", "examples")]
    x += [rr["dense"] * long, rr["examples"] * long]
    return x


class FusionModel:
    """Linear weights over :data:`FEATURES`, with what they were learned for."""

    def __init__(self, weights: Mapping[str, float], meta: Mapping[str, Any] | None = None) -> None:
        unknown = set(weights) - set(FEATURES)
        if unknown:
            raise ValueError(f"unknown fusion features: {sorted(unknown)}")
        self.weights = [float(weights.get(name, 0.0)) for name in FEATURES]
        self.meta = dict(meta or {})

    @property
    def encoder_id(self) -> str | None:
        """The encoder whose cosines the weights were learned on."""
        value = self.meta.get("encoder_id")
        return None if value is None else str(value)

    @property
    def stages(self) -> tuple[str, ...]:
        """The stages the training artifact had (the engine falls back without one of them)."""
        return tuple(self.meta.get("stages", ()))

    def score(self, hit: _HitLike, query: QueryInfo, tops: Mapping[str, float]) -> float:
        """``w · x`` for one candidate; higher is better."""
        x = candidate_features(hit, query, tops)
        return sum(w * v for w, v in zip(self.weights, x, strict=True))

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            **self.meta,
            "weights": {n: round(w, 6) for n, w in zip(FEATURES, self.weights, strict=True)},
        }

    def save(self, path: Path) -> None:
        """Write the model as indented JSON."""
        path.write_text(json.dumps(self.to_dict(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> FusionModel:
        """Read a model written by :meth:`save`; ``ValueError`` for another format."""
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") != FORMAT:
            raise ValueError(f"{path}: not a {FORMAT} file")
        meta = {k: v for k, v in data.items() if k not in ("format", "weights")}
        return cls(data["weights"], meta)


def load_default(path: Path | None = None) -> FusionModel | None:
    """The committed model (:data:`DEFAULT_PATH`), or None when the file is absent or unreadable."""
    path = path or DEFAULT_PATH
    try:
        return FusionModel.load(path)
    except (OSError, ValueError, KeyError, json.JSONDecodeError):
        return None
