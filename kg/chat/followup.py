"""Which term a follow-up is about: the term under discussion, or another one it leads to.

"What is it used for?" after PagedAttention is about PagedAttention; "Which collective op does it
lean on?" after tensor parallelism is about AllReduce. Hand rules (neighbours first, else the
referent) got the second kind wrong whenever the answer was not a graph neighbour, or a
neighbour ranked lower than a better hit. This stage ranks the candidates — the referent, and
the best hits of the question searched with and without the referent's name — by a small
learned linear model over search ranks, graph links and the question's shape
(:data:`FEATURES`). Its weights are fitted by ``tests/data/make_followup_ranker.py`` on the
dev conversations only (never the blind test split) and stored in
``kg/chat/data/followup_ranker.json``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from kg.chat.intents import ASKS_ATTRIBUTE
from kg.chat.retrieve import Retrieval
from kg.search.engine import SearchEngine
from kg.store import Glossary

__all__ = [
    "FEATURES",
    "RANKED_INTENTS",
    "FollowupRanker",
    "candidate_features",
    "default_ranker",
    "definition_mentions",
    "is_yes_no",
]

#: Intents whose follow-ups may be answered with another term than the one under discussion.
RANKED_INTENTS = ("which", "definition", "howto_why")

#: Candidates taken from each search (with and without the referent's name).
POOL_DEPTH = 8

MODEL_PATH = Path(__file__).parent / "data" / "followup_ranker.json"


# "which …" / "哪个 …": a relation question that asks for a term by what it does to the referent
_ASKS_WHICH = re.compile(
    r"哪(?:个|種|种|些|一|套|类|類|家|款|条|項|项)|\bwhich\b|^(?:and )?what(?:'s| is)? (?:built|used|layered|based)\b"
)


def ranks(intent: str, question: str) -> bool:
    """Whether a follow-up of this intent is ranked: which, definition and how/why ones, and
    relation questions that ask "which …" or "what's built on / based on it" (the others, "它和
    NVSwitch 是什么关系", keep the rules)."""
    return intent in RANKED_INTENTS or (intent == "relation" and bool(_ASKS_WHICH.search(question)))


#: A yes/no question asks about a property of its subject, not for another term: "Is a lower value
#: of it better?", "Does it need a draft model?", "它能单独拿来用吗？" — not "Is there a way to …?"
#: nor "有没有别的办法？", which ask for a term.
_YES_NO_EN = re.compile(
    r"^(?:and |so |but |ok,? |then )?(?:is|are|was|were|does|do|did|can|could|will|would|should|has|have)\b"
    r"(?!\s+(?:there|any|anything|some|something)\b)"
)
_YES_NO_ZH = re.compile(r"(?:吗|么|嘛)\s*[？?。!！]*\s*$")
_ASKS_FOR_ONE_ZH = re.compile(r"哪|什么|啥|谁|有没有|有无")


def is_yes_no(question: str) -> bool:
    """Whether *question* asks yes or no (about its subject), not for a term."""
    q = question.strip().lower()
    if _YES_NO_EN.match(q):
        return True
    return bool(_YES_NO_ZH.search(q)) and not _ASKS_FOR_ONE_ZH.search(q)


FEATURES: tuple[str, ...] = (
    "ref",  # the candidate is the term under discussion
    "plain_rr",  # 1 / (1 + rank) in the search without the referent's name (0: not in the pool)
    "plain_top",  # ranked first there, named terms and the referent left out
    "subst_rr",  # 1 / (1 + rank) in the search with the pronoun replaced by the referent's name
    "dense_rr",  # 1 / (1 + dense rank) in the search without the referent's name
    "neighbour",  # a graph neighbour of the referent
    "name_ext",  # its English name extends the referent's ("Autoscaling" → "Autoscaling window")
    "confused",  # a confused_with edge to the referent
    "last",  # among the previous answer's terms
    "named",  # the question names it
    "ref_which",  # referent x "which" intent
    "ref_definition",
    "ref_howto",
    "ref_relation",  # referent x a relation question that asks "which …" ("Which op does it lean on?")
    "ref_attribute",  # referent x the question asks a fact (who made it, when)
    "ref_demonstrative",  # referent x the pointer is a demonstrative (这个 / this), not 它 / it
    "ref_yesno",  # referent x a yes/no question ("Is a lower value of it better?", "它需要…吗？")
    "named_which",  # named x "which" intent
    "named_definition",  # named x "definition" intent: the question's own subject
    "rules",  # the rules' own choice (kg/chat/decide.py's candidate for "which", else the referent)
)


@lru_cache(maxsize=8)
def _named_by_definitions(glossary: Glossary) -> dict[str, frozenset[str]]:
    """Term id → every term its own definitions name (the ``mention`` evidence of its edges)."""
    out: dict[str, set[str]] = {}
    for t in glossary.terms:
        for e in glossary.edges_of(t):
            for ev in e.items:
                if ev.origin == "mention" and ev.subject == t:
                    out.setdefault(t, set()).add(e.target if e.source == t else e.source)
    return {t: frozenset(v) for t, v in out.items()}


@lru_cache(maxsize=8)
def generic_terms(glossary: Glossary) -> frozenset[str]:
    """The terms more than :data:`GENERIC_MENTIONS` definitions name (GPU, token, inference …):
    a question that names one says little about what it is about."""
    named_by = Counter(x for v in _named_by_definitions(glossary).values() for x in v)
    return frozenset(x for x, n in named_by.items() if n > GENERIC_MENTIONS)


@lru_cache(maxsize=8)
def definition_mentions(glossary: Glossary) -> dict[str, frozenset[str]]:
    """Term id → the terms its own definitions name (the ``mention`` evidence of its edges):
    "LMCache 是一个对接 vLLM 的开源 KV Cache 库" names vLLM. Names so common in the texts that
    being named says nothing (:func:`generic_terms`: GPU, token, inference, LLM, kernel, KV cache
    — "推理引擎" names inference) are left out."""
    generic = generic_terms(glossary)
    return {t: frozenset(v - generic) for t, v in _named_by_definitions(glossary).items()}


#: A term named by more definitions than this is too common to tell which term a text is about.
GENERIC_MENTIONS = 20


def _rr(rank: int | None) -> float:
    return 0.0 if rank is None else 1.0 / (1.0 + rank)


def candidate_features(
    glossary: Glossary,
    *,
    referent: str,
    intent: str,
    question: str,
    plain: Retrieval,
    substituted: Retrieval,
    last_terms: Sequence[str],
    demonstrative: bool,
    rules: str | None = None,
) -> dict[str, dict[str, float]]:
    """The candidates of one follow-up and their features (:data:`FEATURES`), by term id."""
    named = set(plain.named) | set(substituted.named)
    plain_ids = [h.term_id for h in plain.hits]
    subst_ids = [h.term_id for h in substituted.hits]
    dense_ids = [h.term_id for h in plain.dense_order()]
    pool = list(
        dict.fromkeys(
            [referent, *([rules] if rules else []), *plain_ids[:POOL_DEPTH], *subst_ids[:POOL_DEPTH]]
        )
    )
    pool = [t for t in pool if t in glossary]
    first_other = next((t for t in plain_ids if t != referent and t not in named), None)
    neighbours = set(glossary.neighbours(referent))
    confused = {e.target if e.source == referent else e.source for e in glossary.confusables(referent)}
    label = (glossary.terms[referent].labels.get("en") or "").lower()
    ext = re.compile(rf"(?<![a-z0-9]){re.escape(label)}(?![a-z0-9])") if len(label) >= 4 else None
    attribute = bool(ASKS_ATTRIBUTE.search(question))
    yes_no = float(is_yes_no(question))
    last = set(last_terms)
    out: dict[str, dict[str, float]] = {}
    for t in pool:
        is_ref = float(t == referent)
        en = (glossary.terms[t].labels.get("en") or "").lower()
        f = {
            "ref": is_ref,
            "plain_rr": _rr(plain_ids.index(t) if t in plain_ids else None),
            "plain_top": float(t == first_other),
            "subst_rr": _rr(subst_ids.index(t) if t in subst_ids else None),
            "dense_rr": _rr(dense_ids.index(t) if t in dense_ids else None),
            "neighbour": float(t in neighbours),
            "name_ext": float(bool(ext and t != referent and ext.search(en))),
            "confused": float(t in confused),
            "last": float(t in last and t != referent),
            "named": float(t in named and t != referent),
            "ref_which": is_ref * (intent == "which"),
            "ref_definition": is_ref * (intent == "definition"),
            "ref_howto": is_ref * (intent == "howto_why"),
            "ref_relation": is_ref * (intent == "relation"),
            "ref_attribute": is_ref * attribute,
            "ref_demonstrative": is_ref * demonstrative,
            "ref_yesno": is_ref * yes_no,
            "named_which": float(t in named and t != referent) * (intent == "which"),
            "named_definition": float(t in named and t != referent) * (intent == "definition"),
            "rules": float(t == rules),
        }
        out[t] = f
    return out


@dataclass(frozen=True)
class FollowupRanker:
    """A linear score over :data:`FEATURES`; the best-scoring candidate is the answer's term."""

    weights: dict[str, float]
    #: the encoder whose search ranks it was fitted on: with another encoder (a hashing test
    #: encoder, another model) the rank features mean something else, and the rules decide alone
    encoder_id: str | None = None

    def fits(self, engine: SearchEngine) -> bool:
        """Whether *engine* ranks with the encoder the weights were fitted on."""
        dense = engine.dense
        return dense is not None and self.encoder_id is not None and dense.index_encoder_id == self.encoder_id

    def score(self, feats: dict[str, float]) -> float:
        """The candidate's score (higher is likelier the term the follow-up is about)."""
        return sum(self.weights.get(k, 0.0) * v for k, v in feats.items())

    def choose(self, candidates: dict[str, dict[str, float]]) -> str | None:
        """The best candidate (ties keep the pool's order: referent, then search order)."""
        if not candidates:
            return None
        return max(candidates, key=lambda t: self.score(candidates[t]))

    @classmethod
    def load(cls, path: Path = MODEL_PATH) -> FollowupRanker | None:
        """The fitted ranker, or None when its file is absent (the rules then decide alone)."""
        if not path.exists():
            return None
        doc = json.loads(path.read_text(encoding="utf-8"))
        weights = {k: float(v) for k, v in doc["weights"].items()}
        unknown = set(weights) - set(FEATURES)
        if unknown:
            raise ValueError(f"{path}: unknown follow-up features {sorted(unknown)}")
        return cls(weights, doc.get("encoder_id"))


@lru_cache(maxsize=1)
def default_ranker() -> FollowupRanker | None:
    """The ranker shipped in ``kg/chat/data`` (loaded once per process)."""
    return FollowupRanker.load()
