"""Fixtures shared by several test directories."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.chat.redis_server import redis_server


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A private redis-server on loopback for the whole test session (skips if not installed)."""
    with redis_server() as url:
        yield url


@pytest.fixture(scope="session")
def hash_artifact(tmp_path_factory: Any) -> Path:
    """`glossary build --encoder hash:64` of the real corpus (a few seconds), as a user builds it."""
    out = tmp_path_factory.mktemp("hash-artifact") / "artifact"
    cmd = [sys.executable, "-m", "kg.cli", "build", "--encoder", "hash:64", "--artifact", str(out)]
    subprocess.run(cmd, check=True, capture_output=True, timeout=300, cwd=Path(__file__).resolve().parents[1])
    return out
