"""Fixtures shared by several test directories."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.chat.redis_server import redis_server


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A private redis-server on loopback for the whole test session (skips if not installed)."""
    with redis_server() as url:
        yield url
