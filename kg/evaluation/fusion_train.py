"""Learn the fusion weights of :mod:`kg.search.fusion` on labelled queries (the dev split only).

    glossary train-fusion                  # writes kg/search/fusion_model.json
    glossary train-fusion --profile chat   # + dev chat first turns: kg/search/fusion_chat_model.json

For every query, the candidates are the union of the stages' top hits
(:meth:`SearchEngine.candidates`); the gold term must beat every other candidate. A pairwise
logistic regression (no intercept) learns ``w`` from the differences ``x_gold − x_other``, so
``w · x`` ranks. The regularisation ``C`` is chosen by query-grouped cross-validation on the same
split (MRR@10 of the held-out folds), which the file records next to the hand fusion's MRR on the
same queries. scikit-learn is imported here only: the engine reads the weights as plain JSON.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from kg.evaluation.dataset import Query, resolve_gold
from kg.search.engine import SearchEngine
from kg.search.fusion import FEATURES, FusionModel, candidate_features, stage_tops
from kg.store import Glossary

__all__ = ["CHAT_KINDS", "Group", "chat_queries", "collect", "cross_validate", "fit", "train"]

C_GRID = (0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
FOLDS = 5
NEGATIVES = 30  # the other candidates a gold term is paired with: the hand fusion's best
EXACT_FIRST = 100.0  # as in SearchEngine._fuse: an exact name ranks first whatever the weights


#: Chat turn kinds whose opening questions teach the chat profile: questions that describe what
#: the asker needs (a symptom, a goal, a role) rather than name it.
CHAT_KINDS = ("howto", "which")


def chat_queries(splits: Sequence[tuple[str, Path]]) -> list[Query]:
    """The opening turns of the conversations in *splits* (name, file) whose kind is in
    :data:`CHAT_KINDS`, as labelled queries: the gold is the first cited concept's names, the id
    ``split:conversation``. Follow-ups are left out: their words point at the conversation."""
    from kg.chat.evaluate import load_conversations

    out: list[Query] = []
    for name, path in splits:
        for conv in load_conversations(path):
            first = conv.turns[0]
            if first.kind in CHAT_KINDS and first.cite:
                kind = f"howto_{conv.lang}"
                out.append(Query(f"{name}:{conv.id}", first.user, kind, conv.lang, first.cite[0]))
    return out


@dataclass
class Group:
    """One query's candidates: features, hand-fusion scores, and which row is the gold term."""

    x: NDArray[np.float64]
    hand: NDArray[np.float64]
    exact: NDArray[np.float64]
    gold: int  # row of the gold term, -1 when no stage found it


def collect(engine: SearchEngine, glossary: Glossary, queries: Sequence[Query]) -> list[Group]:
    """The candidate groups of the resolvable *queries* (gold problems are left out)."""
    resolved, _ = resolve_gold(glossary, queries)
    groups = []
    for q in resolved:
        hits, info = engine.candidates(q.text)
        tops = stage_tops(hits)
        x = np.array([candidate_features(h, info, tops) for h in hits], dtype=np.float64).reshape(
            -1, len(FEATURES)
        )
        ids = [h.term_id for h in hits]
        groups.append(
            Group(
                x=x,
                hand=np.array([h.rrf for h in hits], dtype=np.float64),
                exact=np.array([EXACT_FIRST * ("exact" in h.components) for h in hits], dtype=np.float64),
                gold=ids.index(q.term_id) if q.term_id in ids else -1,
            )
        )
    return groups


def _mrr(groups: Sequence[Group], scores: Sequence[NDArray[np.float64]], cutoff: int = 10) -> float:
    total = 0.0
    for g, s in zip(groups, scores, strict=True):
        if g.gold < 0:
            continue
        # ties count against the gold term
        rank = 1 + int(np.sum(s > s[g.gold])) + int(np.sum(s[: g.gold] == s[g.gold]))
        total += 1.0 / rank if rank <= cutoff else 0.0
    return total / max(len(groups), 1)


def model_mrr(groups: Sequence[Group], weights: NDArray[np.float64]) -> float:
    """MRR@10 of ``w · x`` (exact names first) over *groups*."""
    return _mrr(groups, [g.x @ weights + g.exact for g in groups])


def hand_mrr(groups: Sequence[Group]) -> float:
    """MRR@10 of the hand-weighted fusion over *groups*."""
    return _mrr(groups, [g.hand for g in groups])


def fit(groups: Sequence[Group], c: float) -> NDArray[np.float64]:
    """Pairwise logistic regression: the weights ``w`` (one per feature)."""
    from sklearn.linear_model import LogisticRegression

    diffs: list[NDArray[np.float64]] = []
    for g in groups:
        if g.gold < 0 or g.exact[g.gold]:
            continue  # an exact name ranks first anyway: nothing to learn from it
        others = [i for i in np.argsort(-g.hand, kind="stable") if i != g.gold][:NEGATIVES]
        diffs.extend(g.x[g.gold] - g.x[i] for i in others)
    if not diffs:
        return np.zeros(len(FEATURES))
    d = np.array(diffs)
    x = np.vstack([d, -d])
    y = np.concatenate([np.ones(len(d)), np.zeros(len(d))])
    clf = LogisticRegression(C=c, fit_intercept=False, max_iter=5000)
    clf.fit(x, y)
    return np.asarray(clf.coef_[0], dtype=np.float64)


def cross_validate(groups: Sequence[Group], c: float, folds: int = FOLDS) -> float:
    """MRR@10 of held-out folds (queries dealt round-robin, so the split is deterministic)."""
    scores: list[float] = []
    for k in range(folds):
        train = [g for i, g in enumerate(groups) if i % folds != k]
        test = [g for i, g in enumerate(groups) if i % folds == k]
        scores.append(model_mrr(test, fit(train, c)) * len(test))
    return sum(scores) / len(groups)


def train(
    engine: SearchEngine, glossary: Glossary, queries: Sequence[Query], *, data: str, command: str
) -> tuple[FusionModel, dict[str, Any]]:
    """Learn the model on *queries*; the report holds the cross-validated MRR of each ``C``."""
    if engine.dense is None:
        raise ValueError("the learned fusion needs the dense stage: build with an encoder")
    groups = collect(engine, glossary, queries)
    cv = {c: round(cross_validate(groups, c), 4) for c in C_GRID}
    best = max(C_GRID, key=lambda c: (cv[c], -c))
    weights = fit(groups, best)
    stages = ["dense", "lexical", "mention", "fuzzy"]
    stages += ["chars"] if engine.chars is not None else []
    stages += ["examples"] if engine.examples is not None else []
    meta = {
        "command": command,
        "date": dt.date.today().isoformat(),
        "data": data,
        "queries": len(groups),
        "found": sum(g.gold >= 0 for g in groups),
        "encoder_id": engine.dense.index_encoder_id,
        "stages": stages,
        "C": best,
        "cv_mrr": cv,
        "hand_mrr": round(hand_mrr(groups), 4),
        "train_mrr": round(model_mrr(groups, weights), 4),
    }
    model = FusionModel(dict(zip(FEATURES, weights.tolist(), strict=True)), meta)
    return model, meta
