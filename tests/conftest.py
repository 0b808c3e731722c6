"""Fixtures shared by several test directories."""

from __future__ import annotations

import pickle
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kg.build import BuildResult, build_graph
from tests.chat.redis_server import redis_server
from tests.refusal_cache import QUICK_SAMPLE, seed_refusal_cache


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A private redis-server on loopback for the whole test session (skips if not installed)."""
    with redis_server() as url:
        yield url


@pytest.fixture(scope="session")
def bundled_build() -> Callable[[], BuildResult]:
    """``bundled_build()`` → the bundled corpus built in memory (``build_graph()``), as every
    directory's "real graph" fixture wants it. The build runs once per session (a few seconds
    each time it is repeated); every call returns a copy of its own (a pickle round trip), so
    that a fixture or test changing what it got changes nobody else's. The tests of the build's
    own determinism build again instead (tests/kg/test_ids.py, tests/kg/test_mentioned.py)."""
    blob = pickle.dumps(build_graph())

    def copy() -> BuildResult:
        result: BuildResult = pickle.loads(blob)
        return result

    return copy


@pytest.fixture(scope="session")
def hash_artifact(tmp_path_factory: Any) -> Path:
    """`glossary build --encoder hash:64` of the real corpus, as a user builds it, with its refusal
    model fitted on the quick sample (``QUICK_SAMPLE``, tests/refusal_cache.py): the tests that
    use it serve, reload, export and replay that artifact; how well a model refuses is judged on
    the real encoder's artifact (tests/chat, `glossary eval-refusal`)."""
    import os

    from kg.chat.refusal import SAMPLE_ENV

    out = tmp_path_factory.mktemp("hash-artifact") / "artifact"
    cmd = [sys.executable, "-m", "kg.cli", "build", "--encoder", "hash:64", "--artifact", str(out)]
    env = {**os.environ, SAMPLE_ENV: QUICK_SAMPLE}
    subprocess.run(
        cmd, check=True, capture_output=True, timeout=300, cwd=Path(__file__).resolve().parents[1], env=env
    )
    return out


@pytest.fixture(scope="session")
def quick_hash_artifact(hash_artifact: Path) -> Path:
    """:func:`hash_artifact`, named for what the pipeline tests rely on: a quick refusal fit."""
    return hash_artifact


@pytest.fixture
def quick_fits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Refusal models fitted in this test (and the processes it starts) sample the training
    questions: for tests of when a model is fitted, carried or cached — the build pipeline —
    not of how well it refuses."""
    from kg.chat.refusal import SAMPLE_ENV

    monkeypatch.setenv(SAMPLE_ENV, QUICK_SAMPLE)


@pytest.fixture
def quick_cache_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, quick_fits: None, quick_hash_artifact: Path
) -> Path:
    """:func:`seeded_cache_home` for quick fits: the cache holds the quick model of the bundled
    corpus (``hash:64``), and every fit of the test is a quick one."""
    home = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    seed_refusal_cache(quick_hash_artifact)
    return home


@pytest.fixture
def seeded_cache_home(quick_cache_home: Path) -> Path:
    """``XDG_CACHE_HOME`` of the test's own (no vectors), holding only the refusal model fitted
    for the bundled corpus with ``hash:64`` (:func:`seed_refusal_cache`); the test's own fits are
    quick ones, so that a build of the bundled corpus reads that model."""
    return quick_cache_home
