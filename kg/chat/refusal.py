"""Is a question about the glossary at all? A small learned decision, not hand patterns.

A small neural network (one hidden layer, averaged over a few seeds) over evidence the earlier
stages already computed (no extra search):

==================  ===========================================================================
feature             meaning
==================  ===========================================================================
``top_score``       the best hybrid (fused) score
``dense_top``       the best raw cosine of the dense stage (question vs. a term's passage)
``dense_gap``       how far that cosine stands above the fifth best (a peaked ranking)
``lexical_top``     log(1 + best BM25 score)
``fuzzy_top``       best fuzzy name ratio (typos of names)
``exact``           the question's core is exactly a glossary name
``name_cover``      share of the question covered by glossary names
``names``           how many names it mentions (capped at 3)
``unknown``         name-shaped words the glossary has never seen ("ZeRO-Infinity", capped at 3)
``oov_share``       share of the question's words (jieba + Latin) no term's text contains
``tokens``          log(1 + number of words)
``framed``          a question frame matched (definition, comparison …)
``near_names``      share of the question's Latin words that are words of glossary names, or a
                    typo of one (rapidfuzz ratio ≥ 85: "decodng", "RadixAtention")
``zh_names``        share of the question's Chinese character pairs found in glossary names
                    ("投机解吗" shares 投机, 机解 with 投机解码; "今天天气" shares none)
``topic``           P(in domain) of a linear model over the question's own embedding (what the
                    question is about, whatever its words: cookies and weather vs. GPU serving)
``text_topic``      P(in domain) of a linear model over the question's character n-grams
                    (:mod:`kg.chat.textgrams`: "1440p", "NFT", "词法分析" say another field
                    where the embedding hears only "GPU" and "token")
``name_prior``      how in-domain the question's most telling name is: the smoothed share of
                    training questions naming that term that were in the domain ("TPOT" only
                    ever occurs in questions about serving; "GPU" and "token" also in questions
                    about gaming and NFTs)
==================  ===========================================================================

``topic``, ``text_topic`` and ``name_prior`` are stacked: they are learned from the same questions, and the
main model learns from their out-of-fold values, so it never sees a score that was fitted on
the question it is scoring.

It is trained per search engine (the dense and lexical scores depend on the encoder and the
corpus) on labelled questions (``kg/chat/data/refusal_train.jsonl``: the dev split of the
blind chat set, the original chat conversations and the retrieval dev queries — never the
test split), when ``glossary build`` writes an artifact (``chat/refusal.json``) or, for an
engine without one, on first use. The threshold is chosen on cross-validated probabilities:
the lowest one that refuses :data:`TARGET_OOD_RECALL` of the out-of-domain training questions.
scikit-learn is needed only to train; answering is two small matrix products.

Why a hidden layer: the evidence interacts (a how-to question with no glossary name but a
close dense match is in the domain; the same dense score on a question naming only "GPU" is
not). On 5-fold cross-validation over the training questions, at the threshold that refuses
94 % of the out-of-domain ones, the logistic regression answered 94.9 % of the in-domain
questions and one hidden layer of 16 units 96.7 % (mean of three seeds; 8, 32 and two layers
were no better). The logistic regression is still fitted and saved (``coef``): its weights say
which evidence counts, and a model without hidden weights answers with it.
"""

from __future__ import annotations

import json
import math
import os
import re
import threading
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from kg.chat.intents import Parsed, parse
from kg.chat.linking import _EN_STOP, Analysis, Linker, linker_for
from kg.chat.retrieve import Retrieval, retrieve
from kg.chat.textgrams import TextTopic, fit_text_topic
from kg.search.engine import SearchEngine
from kg.store import Glossary
from kg.textnorm import fold, is_cjk_char

__all__ = [
    "FEATURES",
    "TRAINING_DATA",
    "FitCancelled",
    "RefusalModel",
    "fit_refusal_model",
    "load_examples",
    "question_features",
    "refusal_key",
    "refusal_model_for",
]

FEATURES: tuple[str, ...] = (
    "top_score",
    "dense_top",
    "dense_gap",
    "lexical_top",
    "fuzzy_top",
    "exact",
    "name_cover",
    "names",
    "unknown",
    "oov_share",
    "tokens",
    "framed",
    "near_names",
    "zh_names",
    "topic",
    "text_topic",
    "name_prior",
)
FORMAT_VERSION = 6
#: Hidden units, L2 penalty and seeds of the network (see the module docstring).
HIDDEN_UNITS = 16
HIDDEN_ALPHA = 0.1
HIDDEN_SEEDS = (0, 1, 2)
#: Weight of the prior in :meth:`RefusalModel.name_prior` (a name seen in two training questions
#: moves half-way from the overall in-domain rate to its own).
NAME_PRIOR_WEIGHT = 2.0
TRAINING_DATA = Path(__file__).parent / "data" / "refusal_train.jsonl"
#: Share of out-of-domain training questions the chosen threshold must refuse (cross-validated).
#: The training negatives are harder than real traffic (near-domain traps are most of them), so
#: this is lower than the 95 % the chat must refuse in use. Chosen on the blind dev split with the
#: second training pair added (refusal_*_train2.jsonl): 0.90 → wrongful refusals 0.8 %,
#: out-of-domain refused 92.9 %; 0.92 → 2.1 %, 94.3 %; 0.94 → 2.9 %, 95.7 %; 0.96 → 4.9 %, 97.1 %.
TARGET_OOD_RECALL = 0.94
ARTIFACT_FILE = Path("chat") / "refusal.json"


_LATIN = re.compile(r"[a-z][a-z0-9'’-]{2,}")


@dataclass(frozen=True)
class _NameParts:
    names: tuple[str, ...]  # folded
    words: frozenset[str]
    word_list: tuple[str, ...]
    bigrams: frozenset[str]


@lru_cache(maxsize=8)
def name_parts(engine: SearchEngine) -> _NameParts:
    """Latin words and Chinese character pairs of every glossary name (cached per engine)."""
    names = [n for t in engine.terms.values() for n in t.all_names()]
    words = {w for n in names for w in _LATIN.findall(fold(n))}
    bigrams = set()
    for n in names:
        zh = "".join(ch for ch in fold(n) if is_cjk_char(ch))
        bigrams |= {zh[i : i + 2] for i in range(len(zh) - 1)}
    folded = tuple(sorted({fold(n) for n in names}))
    return _NameParts(folded, frozenset(words), tuple(sorted(words)), frozenset(bigrams))


@lru_cache(maxsize=8)
def glossary_text(engine: SearchEngine) -> str:
    """Every name, definition and note of the glossary, folded and with no whitespace, as one
    string: whether two words ever stand side by side in the sources' texts."""
    parts: list[str] = []
    for t in engine.terms.values():
        parts += [*t.all_names(), *(d.text for d in t.definitions), *(d.note or "" for d in t.definitions)]
    return re.sub(r"\s+", "", fold("\n".join(parts)))


@lru_cache(maxsize=8)
def name_segments(engine: SearchEngine) -> frozenset[str]:
    """The words (jieba's) of every glossary name, folded: 影子 of 影子流量, 模型 of 稠密模型."""
    import jieba

    return frozenset(
        w for t in engine.terms.values() for n in t.all_names() for w in jieba.lcut(fold(n)) if w.strip()
    )


@lru_cache(maxsize=8)
def text_words(engine: SearchEngine) -> tuple[str, ...]:
    """Every Latin word (folded, sorted) of the glossary's names, definitions and notes."""
    words: set[str] = set()
    for t in engine.terms.values():
        texts = [*t.all_names(), *(d.text for d in t.definitions), *(d.note or "" for d in t.definitions)]
        for text in texts:
            words.update(w.strip("'’-") for w in _LATIN.findall(fold(text)))
    return tuple(sorted(words))


def _name_shares(engine: SearchEngine, text: str) -> tuple[float, float]:
    """(near_names, zh_names) of *text*; see the module docstring."""
    from rapidfuzz import fuzz, process

    parts = name_parts(engine)
    folded = fold(text)
    words = [w for w in _LATIN.findall(folded) if w not in _EN_STOP]
    near = 0
    for w in words:
        if w in parts.words or (
            len(w) >= 5 and process.extractOne(w, parts.word_list, scorer=fuzz.ratio, score_cutoff=85)
        ):
            near += 1
    zh = "".join(ch if is_cjk_char(ch) else " " for ch in folded)
    pairs = [p for run in zh.split() for p in (run[i : i + 2] for i in range(len(run) - 1))]
    zh_share = sum(p in parts.bigrams for p in pairs) / len(pairs) if pairs else 0.0
    return (near / len(words) if words else 0.0), zh_share


def question_features(
    engine: SearchEngine, parsed: Parsed, analysis: Analysis, retrieval: Retrieval
) -> dict[str, float]:
    """The features of one question (see the module docstring), from what the stages found.

    ``topic`` is left at 0.5 here; :meth:`RefusalModel.in_domain` fills it from the question's
    embedding (:func:`question_vector`).
    """
    hits = retrieval.hits
    dense = sorted((h.raw["dense"] for h in hits if "dense" in h.raw), reverse=True)
    lexical = [h.raw["lexical"] for h in hits if "lexical" in h.raw]
    fuzzy = [h.raw["fuzzy"] for h in hits if "fuzzy" in h.raw]
    body = parsed.body.text if parsed.body else parsed.folded
    covered = sum(s.end - s.start for s in analysis.spans)
    n_tokens, known = engine.lexical.coverage(retrieval.query or body)
    dense_top = dense[0] if dense else 0.0
    near_names, zh_names = _name_shares(engine, retrieval.query or body)
    return {
        # the fused score without the examples stage: the training questions are themselves the
        # examples (kg/search/examples.py), and a feature that knows them would not generalise
        "top_score": max((h.rrf - h.components.get("examples", 0.0) for h in hits), default=0.0),
        "dense_top": dense_top,
        "dense_gap": dense_top - dense[min(4, len(dense) - 1)] if dense else 0.0,
        "lexical_top": math.log1p(max(lexical)) if lexical else 0.0,
        "fuzzy_top": max(fuzzy) if fuzzy else 0.0,
        "exact": float(any("exact" in h.components for h in hits[:3])),
        "name_cover": min(1.0, covered / max(1, len(fold(body)))),
        "names": float(min(3, len({s.term_id for s in analysis.spans}))),
        "unknown": float(min(3, len(analysis.unknown))),
        "oov_share": (n_tokens - known) / n_tokens if n_tokens else 1.0,
        "tokens": math.log1p(n_tokens),
        "framed": float(parsed.matched),
        "near_names": near_names,
        "zh_names": zh_names,
        "topic": 0.5,
        "text_topic": 0.5,
        "name_prior": 0.5,
    }


def question_vector(engine: SearchEngine, retrieval: Retrieval) -> np.ndarray | None:
    """The query vector the dense stage computed for this question (cached, not re-encoded)."""
    if engine.dense is None or not retrieval.query.strip():
        return None
    # the text the dense stage encoded (spaced between scripts, cut), so the cached vector is hit:
    # the raw body ("报oom了") would be encoded a second time for a third of the questions
    text = SearchEngine.query_text(retrieval.query)
    return np.asarray(engine.dense.query_vector(text), dtype=np.float64).reshape(-1)


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


@dataclass
class RefusalModel:
    """P(in domain | features) and the threshold to answer: one-hidden-layer networks over the
    standardised features (averaged), or the logistic regression when there are none."""

    mean: list[float]
    scale: list[float]
    coef: list[float]
    intercept: float
    threshold: float
    features: tuple[str, ...] = FEATURES
    encoder_id: str | None = None
    trained_on: dict[str, Any] = field(default_factory=dict)
    topic_coef: list[float] = field(default_factory=list)  # over the question's embedding
    topic_intercept: float = 0.0
    # term id -> [in-domain, out-of-domain] training questions naming it; the in-domain rate
    name_counts: dict[str, list[int]] = field(default_factory=dict)
    base_rate: float = 0.5
    # one network per seed: {"w1": n_features x hidden, "b1": hidden, "w2": hidden, "b2": float}
    networks: list[dict[str, Any]] = field(default_factory=list)
    text_topic: TextTopic = field(default_factory=TextTopic)  # over the question's characters

    def topic(self, vector: np.ndarray | None) -> float:
        """P(in domain) from the embedding alone; 0.5 without one (or of another size)."""
        if vector is None or len(self.topic_coef) != vector.shape[0]:
            return 0.5
        return _sigmoid(float(vector @ np.array(self.topic_coef)) + self.topic_intercept)

    def name_prior(self, names: Sequence[str]) -> float:
        """The highest smoothed in-domain rate of the training questions naming one of *names*;
        the overall rate when none is named (or none was seen in training)."""
        return name_prior(self.name_counts, self.base_rate, names)

    def probability(self, feats: dict[str, float]) -> float:
        """P(in domain) for one question's features."""
        x = np.array([feats[f] for f in self.features], dtype=np.float64)
        z = (x - np.array(self.mean)) / np.array(self.scale)
        if not self.networks:
            return _sigmoid(float(z @ np.array(self.coef) + self.intercept))
        probs = []
        for net in self.networks:
            h = np.maximum(0.0, z @ np.asarray(net["w1"]) + np.asarray(net["b1"]))
            probs.append(_sigmoid(float(h @ np.asarray(net["w2"]) + float(net["b2"]))))
        return float(np.mean(probs))

    def in_domain(
        self,
        feats: dict[str, float],
        vector: np.ndarray | None = None,
        names: Sequence[str] = (),
        text: str = "",
    ) -> tuple[bool, float]:
        """``(answer?, probability)``; *vector* (the question's embedding) sets ``topic``, *text*
        (the question's body, as :func:`question_features` read it) ``text_topic`` and *names*
        (the terms the question names) ``name_prior``."""
        feats["topic"] = self.topic(vector)
        feats["text_topic"] = self.text_topic.probability(text) if text else 0.5
        feats["name_prior"] = self.name_prior(names)
        p = self.probability(feats)
        return p >= self.threshold, p

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT_VERSION,
            "features": list(self.features),
            "mean": self.mean,
            "scale": self.scale,
            "coef": self.coef,
            "intercept": self.intercept,
            "threshold": self.threshold,
            "encoder_id": self.encoder_id,
            "trained_on": self.trained_on,
            "topic_coef": self.topic_coef,
            "topic_intercept": self.topic_intercept,
            "name_counts": self.name_counts,
            "base_rate": self.base_rate,
            "networks": self.networks,
            "text_topic": self.text_topic.to_dict(),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RefusalModel:
        if d.get("format") != FORMAT_VERSION or tuple(d.get("features", ())) != FEATURES:
            raise ValueError("refusal model of another format: rebuild the artifact (`glossary build`)")
        n = len(FEATURES)
        if not all(len(d[k]) == n for k in ("mean", "scale", "coef")):
            raise ValueError("refusal model: vectors of the wrong length")
        networks = [dict(net) for net in d.get("networks") or []]
        for net in networks:
            w1, b1, w2 = (np.asarray(net[k], dtype=np.float64) for k in ("w1", "b1", "w2"))
            if w1.shape != (n, b1.shape[0]) or w2.shape != b1.shape:
                raise ValueError("refusal model: network weights of the wrong shape")
        return cls(
            [float(v) for v in d["mean"]],
            [float(v) for v in d["scale"]],
            [float(v) for v in d["coef"]],
            float(d["intercept"]),
            float(d["threshold"]),
            FEATURES,
            d.get("encoder_id"),
            dict(d.get("trained_on") or {}),
            [float(v) for v in d.get("topic_coef", [])],
            float(d.get("topic_intercept", 0.0)),
            {str(k): [int(v[0]), int(v[1])] for k, v in dict(d.get("name_counts") or {}).items()},
            float(d.get("base_rate", 0.5)),
            networks,
            TextTopic.from_dict(dict(d.get("text_topic") or {})),
        )

    def save(self, artifact_dir: Path) -> Path:
        """Write ``chat/refusal.json`` under *artifact_dir* (write then rename: never half a file)."""
        path = Path(artifact_dir) / ARTIFACT_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
        tmp.write_text(json.dumps(self.to_dict(), indent=1), encoding="utf-8")
        os.replace(tmp, path)
        return path

    @classmethod
    def load(cls, artifact_dir: Path) -> RefusalModel | None:
        """The model saved in *artifact_dir*, None when there is none; ``ValueError`` when it is of
        another format or damaged."""
        path = Path(artifact_dir) / ARTIFACT_FILE
        if not path.is_file():
            return None
        return cls.from_dict(json.loads(path.read_text(encoding="utf-8")))


def load_examples(path: Path = TRAINING_DATA) -> list[tuple[str, bool]]:
    """``(question, in_domain)`` pairs of the packaged training file."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            out.append((str(row["text"]), bool(row["in_domain"])))
    return out


#: Environment variable: fit on a stratified sample of this many training questions instead of
#: all of them. The tests of the build pipeline (rebuilds, watch, imports) set it, since what
#: they check is when a model is fitted, carried or cached, not how well it refuses: a fit then
#: takes seconds instead of most of a minute. The sample size is part of the fit's cache key,
#: and ``trained_on["examples"]`` records how many questions a model saw.
SAMPLE_ENV = "GLOSSARY_REFUSAL_SAMPLE"
#: The smallest sample accepted (both classes need enough questions for five folds).
MIN_SAMPLE = 100


def training_sample() -> int | None:
    """The sample size :data:`SAMPLE_ENV` asks for, None when unset (a fit on every question)."""
    raw = os.environ.get(SAMPLE_ENV, "").strip()
    if not raw:
        return None
    try:
        n = int(raw)
    except ValueError:
        raise ValueError(f"{SAMPLE_ENV} must be a number of training questions, not {raw!r}") from None
    if n < MIN_SAMPLE:
        raise ValueError(f"{SAMPLE_ENV} must be at least {MIN_SAMPLE} (got {n})")
    return n


def stratified_sample(examples: Sequence[tuple[str, bool]], n: int) -> list[tuple[str, bool]]:
    """*n* of *examples*, each class in its own share, chosen with a fixed seed and kept in the
    file's order (the same sample on every machine)."""
    if n >= len(examples):
        return list(examples)
    y = np.array([label for _, label in examples], dtype=bool)
    rng = np.random.default_rng(0)
    keep: list[int] = []
    for cls in (True, False):
        idx = np.flatnonzero(y == cls)
        k = max(1, round(n * idx.size / y.size))
        keep.extend(int(i) for i in rng.permutation(idx)[:k])
    return [examples[i] for i in sorted(keep)]


def training_examples() -> list[tuple[str, bool]]:
    """The packaged training questions, or the sample :data:`SAMPLE_ENV` asks for."""
    examples = load_examples()
    n = training_sample()
    return stratified_sample(examples, n) if n is not None else examples


def name_prior(counts: dict[str, list[int]], base_rate: float, names: Sequence[str]) -> float:
    """Max over *names* of (in-domain + w·base) / (all + w), w = :data:`NAME_PRIOR_WEIGHT`."""
    best = None
    for n in names:
        if n in counts:
            yes, no = counts[n]
            rate = (yes + NAME_PRIOR_WEIGHT * base_rate) / (yes + no + NAME_PRIOR_WEIGHT)
            best = rate if best is None else max(best, rate)
    return base_rate if best is None else best


def _count_names(names: Sequence[Sequence[str]], labels: np.ndarray) -> dict[str, list[int]]:
    counts: dict[str, list[int]] = {}
    for ids, label in zip(names, labels, strict=True):
        for tid in set(ids):
            c = counts.setdefault(tid, [0, 0])
            c[0 if label else 1] += 1
    return counts


def features_of(
    glossary: Glossary, engine: SearchEngine, text: str
) -> tuple[dict[str, float], np.ndarray | None, str]:
    """Features, embedding and body (what ``text_topic`` reads) of a question asked on its own
    (no conversation), as the pipeline computes them."""
    feats, vector, _, body = _features_and_names(glossary, engine, text)
    return feats, vector, body


def _features_and_names(
    glossary: Glossary, engine: SearchEngine, text: str, parsed: Parsed | None = None
) -> tuple[dict[str, float], np.ndarray | None, list[str], str]:
    """Features, embedding, named terms and body of a question asked on its own (*parsed*: the
    question as :func:`_parsed` reads it, when the caller has it already)."""
    linker = linker_for(glossary, engine)
    if parsed is None:
        parsed = _parsed(glossary, linker, text)
    analysis = linker.analyse(parsed)
    body = _body(parsed)
    retrieval = retrieve(linker, analysis, body)
    return (
        question_features(engine, parsed, analysis, retrieval),
        question_vector(engine, retrieval),
        list(retrieval.named),
        body,
    )


def _parsed(glossary: Glossary, linker: Linker, text: str) -> Parsed:
    """*text* normalised and parsed, as the chat pipeline's first two stages read it."""
    from kg.chat.normalize import known_words, normalize

    return parse(normalize(text, known_words(glossary), linker.vocabulary, glossary).text)


def _body(parsed: Parsed) -> str:
    return parsed.body.text if parsed.body else parsed.folded


def _prime(engine: SearchEngine, parsed: Sequence[Parsed]) -> None:
    """Batch-encode the texts the searches of the *parsed* questions will embed (their bodies)."""
    if engine.dense is None:
        return
    engine.dense.prime([SearchEngine.query_text(body) for body in map(_body, parsed) if body.strip()])


def _threshold(probs: np.ndarray, labels: np.ndarray) -> float:
    """The lowest probability threshold refusing TARGET_OOD_RECALL of the negatives."""
    neg = np.sort(probs[~labels])
    if neg.size == 0:
        return 0.5
    k = min(neg.size - 1, math.ceil(TARGET_OOD_RECALL * neg.size) - 1)
    return float(min(0.95, max(0.05, neg[k] + 1e-6)))


def _cache_key(glossary: Glossary, engine: SearchEngine) -> str | None:
    """What determines a fit on the packaged data: the training file, the code and learned weights
    that compute the features (kg/chat, kg/search, embeddings: ``*.py`` and ``*.json``, e.g. the
    search fusion), the example questions the search ranks by, the graph's names and texts and the
    encoder (None without a dense stage)."""
    import hashlib

    if engine.dense is None:
        return None
    h = hashlib.sha256()
    root = Path(__file__).resolve().parents[2]
    code = sorted(
        p
        for d in ("kg/chat", "kg/search", "embeddings")
        for ext in ("*.py", "*.json")
        for p in (root / d).rglob(ext)
    )
    for part in (TRAINING_DATA.read_bytes(), engine.dense.spec.encode(), *(p.read_bytes() for p in code)):
        h.update(hashlib.sha256(part).digest())
    sample = training_sample()
    if sample is not None:  # a fit on a sample is another model (the key of a full fit is unchanged)
        h.update(f"sample={sample}".encode())
    if engine.examples is not None:  # the examples stage's questions move the search's scores
        h.update(hashlib.sha256("\n".join(engine.examples.texts).encode()).digest())
    for tid in sorted(glossary.terms):
        term = glossary.terms[tid]
        h.update(
            json.dumps(
                [tid, term.all_names(), [d.text for d in term.definitions]], ensure_ascii=False
            ).encode()
        )
    return h.hexdigest()[:32]


def _cache_dir() -> Path:
    import tempfile

    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
        tempfile.gettempdir(), f"glossary-kg-{os.getuid()}"
    )
    return Path(base) / "glossary-kg" / "refusal"


class FitCancelled(Exception):
    """A fit stopped because its caller asked (``cancel()`` returned True)."""


def refusal_key(glossary: Glossary, engine: SearchEngine) -> str | None:
    """What a fit on the packaged data depends on, as a key (None without a dense stage): a
    model whose ``trained_on["key"]`` is this key is the model a fit would give now."""
    return _cache_key(glossary, engine)


def is_cached(key: str | None) -> bool:
    """A fit for *key* (:func:`refusal_key`) is in the cache: :func:`fit_refusal_model` reads it."""
    return key is not None and (_cache_dir() / f"{key}.json").is_file()


def fit_refusal_model(
    glossary: Glossary,
    engine: SearchEngine,
    examples: Sequence[tuple[str, bool]] | None = None,
    *,
    cancel: Callable[[], bool] | None = None,
) -> RefusalModel:
    """Train on *examples* (default: the packaged training file) with this engine's features.

    The fit is deterministic, so a fit on the packaged data is cached (keyed by the data, this
    code, the graph and the encoder): rebuilding the same corpus does not train again. Its key
    is recorded in ``trained_on["key"]``. *cancel* is asked between batches of questions; when it
    returns True the fit stops with :class:`FitCancelled` (``glossary build --watch`` does so
    when a source changes again).
    """
    glossary = glossary.defined_view()  # the graph the chat pipeline reasons over (kg/chat/bot.py)
    key = _cache_key(glossary, engine) if examples is None else None
    if key is not None:
        cached = _cache_dir() / f"{key}.json"
        try:
            model = RefusalModel.from_dict(json.loads(cached.read_text(encoding="utf-8")))
            model.trained_on["key"] = key
            return model
        except (OSError, ValueError, KeyError):
            pass
    model = _fit(glossary, engine, examples, cancel)
    if key is not None:
        model.trained_on["key"] = key
        _write_cache(_cache_dir() / f"{key}.json", model.to_dict())
    return model


def _write_cache(path: Path, doc: dict[str, Any]) -> None:
    """Write *doc* to the cache file *path* atomically (a temporary file, then a rename), so that
    concurrent builds never read half a file. A read-only cache is no reason to fail a build."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(doc), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass


def _fit(
    glossary: Glossary,
    engine: SearchEngine,
    examples: Sequence[tuple[str, bool]] | None = None,
    cancel: Callable[[], bool] | None = None,
) -> RefusalModel:
    try:
        from joblib import Parallel, delayed
        from sklearn.linear_model import LogisticRegression
        from sklearn.model_selection import StratifiedKFold, cross_val_predict
        from sklearn.neural_network import MLPClassifier
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler
    except ImportError as exc:  # pragma: no cover - scikit-learn is a core dependency
        raise RuntimeError("training the refusal model needs scikit-learn: pip install scikit-learn") from exc
    examples = list(examples if examples is not None else training_examples())
    rows: list[tuple[dict[str, float], np.ndarray | None, list[str], str]] = []
    for i in range(0, len(examples), 128):
        if cancel is not None and cancel():
            raise FitCancelled
        chunk = [q for q, _ in examples[i : i + 128]]
        # each question normalised and parsed once, for the batch encoding and its features
        linker = linker_for(glossary, engine)
        parsed = [_parsed(glossary, linker, q) for q in chunk]
        _prime(engine, parsed)
        rows.extend(_features_and_names(glossary, engine, q, p) for q, p in zip(chunk, parsed, strict=True))
    y = np.array([label for _, label in examples], dtype=bool)
    if y.all() or not y.any():
        raise ValueError("the refusal model needs in-domain and out-of-domain examples")
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
    topic_coef: list[float] = []
    topic_intercept = 0.0
    topic_oof = np.full(len(rows), 0.5)
    if all(v is not None for _, v, _, _ in rows):
        V = np.vstack([v for _, v, _, _ in rows if v is not None])
        topic_oof, topic_coef, topic_intercept = _topic_fit(V, y, folds)
    text_oof, text_topic = _text_topic_fit([body for _, _, _, body in rows], y, folds)
    for (feats, _, _, _), p, pt in zip(rows, topic_oof, text_oof, strict=True):
        feats["topic"] = float(p)
        feats["text_topic"] = float(pt)
    # name_prior, out of fold: a question's own label never counts for its names
    named = [ids for _, _, ids, _ in rows]
    for train, held in folds.split(np.zeros(len(y)), y):
        counts = _count_names([named[i] for i in train], y[train])
        rate = float(y[train].mean())
        for i in held:
            rows[i][0]["name_prior"] = name_prior(counts, rate, named[i])
    name_counts = _count_names(named, y)
    X = np.array([[feats[f] for f in FEATURES] for feats, _, _, _ in rows])

    def model() -> Any:
        return make_pipeline(
            StandardScaler(), LogisticRegression(C=1.0, class_weight="balanced", max_iter=1000)
        )

    def network(seed: int) -> Any:
        return make_pipeline(
            StandardScaler(),
            MLPClassifier(
                hidden_layer_sizes=(HIDDEN_UNITS,), alpha=HIDDEN_ALPHA, max_iter=2000, random_state=seed
            ),
        )

    # the threshold comes from out-of-fold probabilities of the same averaged networks
    # (folds and seeds are fitted on every core: each fit is the one a sequential loop makes,
    # bit for bit, so the model does not depend on the machine's core count)
    jobs = _fit_jobs()
    cv = np.mean(
        [
            cross_val_predict(network(seed), X, y, cv=folds, method="predict_proba", n_jobs=jobs)[:, 1]
            for seed in HIDDEN_SEEDS
        ],
        axis=0,
    )
    threshold = _threshold(cv, y)
    fitted = model().fit(X, y)
    scaler, lr = fitted.steps[0][1], fitted.steps[1][1]
    networks = []
    for fitted_network in Parallel(n_jobs=jobs)(delayed(network(seed).fit)(X, y) for seed in HIDDEN_SEEDS):
        mlp = fitted_network.steps[1][1]
        # the pipeline's scaler is fitted on the same X as the logistic regression's: one mean/scale
        networks.append(
            {
                "w1": mlp.coefs_[0].tolist(),
                "b1": mlp.intercepts_[0].tolist(),
                "w2": mlp.coefs_[1][:, 0].tolist(),
                "b2": float(mlp.intercepts_[1][0]),
            }
        )
    dense = engine.dense
    return RefusalModel(
        mean=[float(v) for v in scaler.mean_],
        scale=[float(v) if v > 0 else 1.0 for v in scaler.scale_],
        coef=[float(v) for v in lr.coef_[0]],
        intercept=float(lr.intercept_[0]),
        threshold=threshold,
        encoder_id=None if dense is None else dense.spec,
        trained_on={
            "examples": len(examples),
            "in_domain": int(y.sum()),
            "out_of_domain": int((~y).sum()),
            "model": f"MLP({HIDDEN_UNITS}) x {len(HIDDEN_SEEDS)} seeds",
            "cv_ood_refused": round(float((cv[~y] < threshold).mean()), 4),
            "cv_in_domain_answered": round(float((cv[y] >= threshold).mean()), 4),
        },
        topic_coef=topic_coef,
        topic_intercept=topic_intercept,
        name_counts=dict(sorted(name_counts.items())),
        base_rate=float(y.mean()),
        networks=networks,
        text_topic=text_topic,
    )


def _fit_jobs() -> int:
    """Processes for the networks' fits: the machine's cores, at most one per fold."""
    return max(1, min(5, os.cpu_count() or 1))


def _topic_fit(V: np.ndarray, y: np.ndarray, folds: Any) -> tuple[np.ndarray, list[float], float]:
    """The topic model over the questions' embeddings: out-of-fold probabilities, coefficients,
    intercept. It depends on nothing but *V* and *y* (not on the graph), so it is cached by their
    bytes: a rebuild after an edit that leaves the questions' vectors as they were (nearly every
    edit) skips its ~10 s of fitting. A change of the fitting code below changes :data:`_TOPIC`."""
    import hashlib

    import sklearn
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_predict

    key = hashlib.sha256(
        b"\0".join(
            (_TOPIC.encode(), sklearn.__version__.encode(), np.ascontiguousarray(V).tobytes(), y.tobytes())
        )
    ).hexdigest()[:32]
    path = _cache_dir() / f"topic-{key}.json"
    try:
        d = json.loads(path.read_text(encoding="utf-8"))
        oof = np.asarray(d["oof"], dtype=np.float64)
        if oof.shape == (len(y),) and len(d["coef"]) == V.shape[1]:
            return oof, [float(v) for v in d["coef"]], float(d["intercept"])
    except (OSError, ValueError, KeyError, TypeError):
        pass

    def topic_model() -> Any:
        return LogisticRegression(C=16.0, class_weight="balanced", max_iter=3000)

    oof = cross_val_predict(topic_model(), V, y, cv=folds, method="predict_proba")[:, 1]
    fitted = topic_model().fit(V, y)
    coef, intercept = [float(v) for v in fitted.coef_[0]], float(fitted.intercept_[0])
    _write_cache(path, {"oof": oof.tolist(), "coef": coef, "intercept": intercept})
    return oof, coef, intercept


def _text_topic_fit(bodies: list[str], y: np.ndarray, folds: Any) -> tuple[np.ndarray, TextTopic]:
    """:func:`kg.chat.textgrams.fit_text_topic`, cached by the bodies, the labels and the code
    that fits it (``textgrams.py``, scikit-learn's version): like the topic model it does not
    depend on the graph, and a rebuild after an edit reads the questions' bodies as before."""
    import hashlib

    import sklearn

    from kg.chat import textgrams

    key = hashlib.sha256(
        b"\0".join(
            (
                _TOPIC.encode(),  # the folds
                sklearn.__version__.encode(),
                Path(textgrams.__file__).read_bytes(),
                "\n".join(bodies).encode("utf-8", "surrogatepass"),
                y.tobytes(),
            )
        )
    ).hexdigest()[:32]
    path = _cache_dir() / f"text-topic-{key}.json"
    try:
        d = json.loads(path.read_text(encoding="utf-8"))
        oof = np.asarray(d["oof"], dtype=np.float64)
        if oof.shape == (len(y),):
            return oof, TextTopic.from_dict(d["model"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    oof, model = fit_text_topic(bodies, y, folds)
    _write_cache(path, {"oof": oof.tolist(), "model": model.to_dict()})
    return oof, model


#: What the topic fit is (part of its cache key): model, hyper-parameters, folds.
_TOPIC = "LogisticRegression(C=16.0, class_weight=balanced, max_iter=3000); StratifiedKFold(5, shuffle, 0)"

_MODELS: weakref.WeakKeyDictionary[SearchEngine, RefusalModel] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def attach_refusal_model(engine: SearchEngine, model: RefusalModel) -> None:
    """Use *model* for questions answered with *engine* (the API lifespan loads it from the artifact)."""
    with _LOCK:
        _MODELS[engine] = model


def refusal_model_for(glossary: Glossary, engine: SearchEngine) -> RefusalModel:
    """The model attached to *engine*, else one trained now (once per engine)."""
    with _LOCK:
        model = _MODELS.get(engine)
        if model is None:
            model = _MODELS[engine] = fit_refusal_model(glossary, engine)
        return model
