"""Fixtures for the embeddings tests.

The project is not necessarily pip-installed in the test environment and pytest's
default import mode puts only this directory on ``sys.path``, so the repository
root is added here to make ``import embeddings`` resolve to the source tree.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from embeddings import HashingEncoder  # noqa: E402


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """Absolute path of the repository (for subprocess tests)."""
    return REPO_ROOT


@pytest.fixture(scope="session")
def hashing_encoder() -> HashingEncoder:
    """The deterministic test encoder, 64 dimensions."""
    return HashingEncoder(64)


@pytest.fixture(scope="session")
def glossary_texts() -> list[str]:
    """200 distinct glossary-like passages (bilingual, so the hasher sees CJK too)."""
    topics = ["张量并行", "流水线并行", "KV 缓存", "连续批处理", "投机解码", "量化", "预填充", "解码"]
    return [
        f"{topics[i % len(topics)]} entry {i}: term number {i} describes concept {i * 7919 % 1000}"
        for i in range(200)
    ]


@pytest.fixture(scope="session")
def random_unit_vectors() -> np.ndarray:
    """2,000 random unit vectors of dimension 32 (fixed seed)."""
    rng = np.random.default_rng(1234)
    vecs = rng.standard_normal((2000, 32)).astype(np.float32)
    return vecs / np.linalg.norm(vecs, axis=1, keepdims=True)
