"""Fixtures for the graph tests: one real build of the bundled corpus per session."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from kg.build import BuildResult, default_corpus_dir
from kg.store import Glossary

CORPUS = default_corpus_dir()


@pytest.fixture(scope="session")
def built(bundled_build: Callable[[], BuildResult]) -> BuildResult:
    return bundled_build()


@pytest.fixture(scope="session")
def glossary(built: BuildResult) -> Glossary:
    return Glossary(built.document())


@pytest.fixture
def corpus_copy(tmp_path: Path) -> Path:
    """A writable copy of the bundled corpus, for tests that break or extend it."""
    dst = tmp_path / "corpus"
    shutil.copytree(CORPUS, dst, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    return dst
