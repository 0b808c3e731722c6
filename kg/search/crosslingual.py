"""The language shift: moving English queries to the Chinese side of the embedding space.

Multilingual encoders place a text by what it says *and* by its language: an English
question lands nearer English passages than a Chinese passage that says the same thing.
Most of the glossary's definitions are Chinese, so English descriptions of Chinese-only
terms ranked their answer second to sixth behind English-labelled terms they mention.

The shift subtracts the mean language difference from English query vectors. The
difference is measured on the glossary itself, at build time: for every term with both a
Chinese and an English label, encode the two labels (passage mode, as the passages are) and
average ``zh − en``. No evaluation query takes part. Adding that offset to an English
query vector (then re-normalising) is the vector analogue of translating it, at no
per-query cost; ``glossary eval`` measures it against the same engine without the shift
(the ``hybrid-noshift`` row of docs/EVAL.md). Chinese queries are left as they are:
shifting them toward English lost more than it gained (measured; the corpus is mostly
Chinese).

Refs: Libovický, Rosa & Fraser, "On the Language Neutrality of Pre-trained Multilingual
Representations" (2020) — removing language centroids improves cross-lingual retrieval.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from kg.model import Term
from kg.textnorm import has_cjk

#: Scale of the offset applied to English queries: 1.0 removes the whole mean difference.
DEFAULT_SHIFT = 1.0
#: Fewer label pairs than this give a noisy mean: no offset is stored.
MIN_PAIRS = 20
#: More pairs than this are sampled evenly (a 100k-term glossary need not encode 200k labels).
MAX_PAIRS = 1000


def label_pairs(terms: Iterable[Term]) -> list[tuple[str, str]]:
    """(Chinese label, English label) of every term that has both from the sources (an editorial
    name is not a translation the sources make), sorted for determinism."""
    pairs = set()
    for t in terms:
        if "editorial" in (t.label_origin.get("zh"), t.label_origin.get("en")):
            continue
        zh, en = t.labels.get("zh"), t.labels.get("en")
        if zh and en and has_cjk(zh) and not has_cjk(en):
            pairs.add((zh, en))
    return sorted(pairs)


def language_offset(
    encoder: Any, terms: Iterable[Term], max_pairs: int = MAX_PAIRS
) -> tuple[NDArray[np.float32] | None, int]:
    """Mean ``passage(zh) − passage(en)`` over the terms' label pairs, and how many pairs it used.

    ``None`` when there are fewer than :data:`MIN_PAIRS` pairs (a monolingual glossary).
    Above *max_pairs*, an evenly spaced sample of the sorted pairs is used.
    """
    pairs = label_pairs(terms)
    if len(pairs) < MIN_PAIRS:
        return None, len(pairs)
    if len(pairs) > max_pairs:
        step = len(pairs) / max_pairs
        pairs = [pairs[int(i * step)] for i in range(max_pairs)]
    zh = encoder.encode_passages([z for z, _ in pairs])
    en = encoder.encode_passages([e for _, e in pairs])
    offset = np.asarray(zh - en, dtype=np.float32).mean(axis=0)
    return offset.astype(np.float32), len(pairs)


def check_offset(values: Sequence[float] | None, dim: int) -> NDArray[np.float32] | None:
    """A stored offset as a vector, or ``ValueError`` when it does not fit the index."""
    if values is None:
        return None
    vec = np.asarray(values, dtype=np.float32)
    if vec.shape != (dim,) or not np.all(np.isfinite(vec)):
        raise ValueError(f"the language offset has shape {vec.shape} (want ({dim},)) or is not finite")
    return vec


def shift_query(
    query: str, vec: NDArray[np.float32], offset: NDArray[np.float32] | None, scale: float
) -> NDArray[np.float32]:
    """*vec* (1 × dim) moved by ``scale × offset`` when *query* has no Chinese, re-normalised."""
    if offset is None or scale == 0.0 or has_cjk(query):
        return vec
    moved = vec + scale * offset
    norm = np.linalg.norm(moved, axis=1, keepdims=True)
    if not np.all(norm > 0):
        return vec
    return np.asarray(moved / norm, dtype=np.float32)
