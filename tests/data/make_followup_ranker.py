"""Fit kg/chat/data/followup_ranker.json: which term a follow-up pointing back is about.

    python tests/data/make_followup_ranker.py [--artifact build/artifact] [--check]

The dev conversations are replayed through the chatbot with the ranker switched off (the rules
alone decide). At every follow-up the ranker would see (kg/chat/followup.py), the candidates'
features are recorded, with the label "is the turn's first gold concept". A logistic regression
(scikit-learn) over those rows gives the weights. Only the dev splits are read: the blind test
split (chat_blind_test.jsonl) is never replayed here.

Before fitting on every dev split, it prints leave-one-split-out accuracy: for each dev split,
the ranker fitted on the others, against the rules' own choice, on the turns whose gold concept
is in the candidate pool — the figure that says whether the ranker generalises.
``--check`` stops after that report and writes nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))

import kg.chat.bot as bot  # noqa: E402
from kg.chat.evaluate import _resolve_concept, load_conversations  # noqa: E402
from kg.chat.followup import FEATURES, MODEL_PATH  # noqa: E402
from kg.chat.model import ConversationState  # noqa: E402
from kg.chat.refusal import RefusalModel, attach_refusal_model  # noqa: E402
from kg.search.engine import SearchEngine  # noqa: E402
from kg.store import Glossary  # noqa: E402

#: The dev conversation splits (the blind test split is never read).
DEV_SPLITS = {
    "dev": "chat_blind_dev.jsonl",
    "dev2": "chat_blind_dev2.jsonl",
    "dev3": "chat_blind_dev3.jsonl",
    "dev4": "chat_blind_dev4.jsonl",
    "dev5": "chat_blind_dev5.jsonl",
    "dev6": "chat_blind_dev6.jsonl",
    "dev7": "chat_blind_dev7.jsonl",
    "dev8": "chat_blind_dev8.jsonl",
    "dev9": "chat_blind_dev9.jsonl",
    "dev10": "chat_blind_dev10.jsonl",
    "dev11": "chat_blind_dev11.jsonl",
    "dev12": "chat_blind_dev12.jsonl",
    "dev13": "chat_blind_dev13.jsonl",
    "dev14": "chat_blind_dev14.jsonl",
}


VERBOSE = "-v" in sys.argv


class _Off:
    """A ranker that never overrides, so the rules alone drive the replay."""

    def choose(self, candidates: dict[str, dict[str, float]]) -> str | None:
        return None

    def fits(self, engine: SearchEngine) -> bool:
        return True


@contextmanager
def _recording(sink: list[dict[str, dict[str, float]]]) -> Iterator[None]:
    real_features, real_ranker = bot.candidate_features, bot.default_ranker

    def record(*args: Any, **kwargs: Any) -> dict[str, dict[str, float]]:
        feats = real_features(*args, **kwargs)
        sink.append(feats)
        return feats

    bot.candidate_features = record
    bot.default_ranker = lambda: _Off()  # type: ignore[assignment]
    try:
        yield
    finally:
        bot.candidate_features, bot.default_ranker = real_features, real_ranker


def collect(glossary: Glossary, engine: SearchEngine, split: str) -> list[dict[str, Any]]:
    """Every ranked follow-up of *split*: its candidates, gold and the rules' first citation."""
    rows: list[dict[str, Any]] = []
    for conv in load_conversations(HERE / DEV_SPLITS[split]):
        state = ConversationState()
        for i, turn in enumerate(conv.turns, 1):
            sink: list[dict[str, dict[str, float]]] = []
            with _recording(sink):
                ans = bot.answer(glossary, engine, turn.user, context=state)
            if not sink or not turn.cite:
                continue
            gold = _resolve_concept(glossary, turn.cite[0])
            if not gold:
                continue
            rows.append(
                {
                    "split": split,
                    "turn": f"{conv.id}#{i}",
                    "candidates": sink[-1],
                    "gold": sorted(gold),
                    "rules": ans.citations[0].term_id if ans.citations else None,
                    "question": turn.user,
                }
            )
    return rows


def fit(rows: list[dict[str, Any]]) -> dict[str, float]:
    """Logistic-regression weights over the candidate rows of *rows*."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    x, y = [], []
    for r in rows:
        if not any(t in r["gold"] for t in r["candidates"]):
            continue  # nothing to learn: the gold concept is not a candidate
        for t, f in r["candidates"].items():
            x.append([f[k] for k in FEATURES])
            y.append(int(t in r["gold"]))
    model = LogisticRegression(C=1.0, max_iter=2000, class_weight="balanced")
    model.fit(np.array(x), np.array(y))
    return {k: round(float(w), 4) for k, w in zip(FEATURES, model.coef_[0], strict=True)}


def _choose(weights: dict[str, float], cands: dict[str, dict[str, float]]) -> str:
    return max(cands, key=lambda t: sum(weights[k] * v for k, v in cands[t].items()))


def report(rows: list[dict[str, Any]]) -> None:
    """Leave-one-split-out: the ranker fitted on the other splits against the rules."""
    for split in DEV_SPLITS:
        held = [r for r in rows if r["split"] == split]
        if not held:
            continue
        w = fit([r for r in rows if r["split"] != split])
        ranked = sum(_choose(w, r["candidates"]) in r["gold"] for r in held)
        rules = sum(r["rules"] in r["gold"] for r in held)
        pooled = sum(any(t in r["gold"] for t in r["candidates"]) for r in held)
        if VERBOSE:
            for r in held:
                c = _choose(w, r["candidates"])
                if (c in r["gold"]) != (r["rules"] in r["gold"]):
                    print(
                        f"  {'+' if c in r['gold'] else '-'} {r['turn']} {r['question'][:60]!r} ranker {c} rules {r['rules']} gold {r['gold']}"
                    )
        print(
            f"{split}: {len(held)} follow-ups ({pooled} with gold in the pool): "
            f"ranker fitted on the others {ranked}, rules {rules}"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--artifact", type=Path, default=ROOT / "build" / "artifact")
    ap.add_argument("-v", action="store_true", help="with --check: print the turns the two disagree on")
    ap.add_argument("--check", action="store_true", help="report leave-one-split-out only")
    args = ap.parse_args()
    glossary = Glossary.load(args.artifact)
    artifact = glossary.artifact_dir or args.artifact
    engine = SearchEngine.for_artifact(artifact, glossary.terms.values())
    refusal = RefusalModel.load(artifact)
    if refusal is not None:
        attach_refusal_model(engine, refusal)
    rows = [r for split in DEV_SPLITS for r in collect(glossary, engine, split)]
    report(rows)
    if args.check:
        return
    weights = fit(rows)
    doc = {
        "about": "kg/chat/followup.py; fitted by tests/data/make_followup_ranker.py on the dev splits",
        "splits": list(DEV_SPLITS),
        "follow_ups": len(rows),
        "encoder_id": engine.dense.index_encoder_id if engine.dense is not None else None,
        "weights": weights,
    }
    MODEL_PATH.write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {MODEL_PATH.relative_to(ROOT)}: {weights}")


if __name__ == "__main__":
    main()
