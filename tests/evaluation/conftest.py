"""Fixtures for the evaluation tests: one real build of the bundled corpus per session."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from kg.build import BuildResult
from kg.store import Glossary

DATASET = Path(__file__).resolve().parents[1] / "data" / "retrieval_dev.jsonl"


@pytest.fixture(scope="session")
def real_glossary(bundled_build: Callable[[], BuildResult]) -> Glossary:
    """The glossary built in memory from the bundled corpus."""
    return Glossary(bundled_build().document())


@pytest.fixture(scope="session")
def dataset_path() -> Path:
    """``tests/data/retrieval_dev.jsonl``."""
    return DATASET
