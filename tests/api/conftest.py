"""Fixtures for the HTTP API tests: one built graph per session, one client factory."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.settings import Settings
from kg.build import BuildResult
from kg.search.engine import SearchEngine
from kg.store import Glossary

MakeClient = Callable[..., TestClient]


@pytest.fixture(scope="session")
def graph_doc(bundled_build: Callable[[], BuildResult]) -> dict[str, Any]:
    """The export document of the real bundled corpus, built once (~2 s)."""
    return bundled_build().document()


@pytest.fixture(scope="session")
def glossary(graph_doc: dict[str, Any]) -> Glossary:
    return Glossary(graph_doc)


@pytest.fixture(scope="session")
def engine(glossary: Glossary) -> SearchEngine:
    """A real search engine over the real graph, with the fast hashing encoder (not semantic)."""
    return SearchEngine.build(list(glossary.terms.values()), "hash:64")


@pytest.fixture
def make_client(glossary: Glossary, engine: SearchEngine, tmp_path: Any) -> Iterator[MakeClient]:
    """``make_client(**settings_overrides)`` → a TestClient on the real graph and search engine.

    Pass ``glossary=None`` / ``engine=None`` to leave them to the lifespan (loaded from ``artifact_dir``).
    Chat sessions are in memory unless ``sessions=...`` asks for a shared store.
    """
    clients: list[TestClient] = []

    def factory(
        *, glossary: Glossary | None = glossary, engine: SearchEngine | None = engine, **overrides: Any
    ) -> TestClient:
        overrides.setdefault("artifact_dir", tmp_path / "no-artifact")
        overrides.setdefault("sessions", "memory")  # no shared file between tests unless asked for
        client = TestClient(create_app(Settings(**overrides), glossary=glossary, engine=engine))
        client.__enter__()  # run the lifespan
        clients.append(client)
        return client

    yield factory
    for c in clients:
        c.__exit__(None, None, None)


@pytest.fixture
def client(make_client: MakeClient) -> TestClient:
    return make_client()


def _assert_error(resp: Any, status: int, code: str) -> dict[str, Any]:
    """The response is the one error body with this status and code; returns ``details``."""
    assert resp.status_code == status, resp.text
    assert resp.headers["content-type"].startswith("application/json")
    body = resp.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message", "details"}
    assert body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    assert isinstance(body["error"]["details"], dict)
    return body["error"]["details"]


@pytest.fixture
def assert_error() -> Callable[[Any, int, str], dict[str, Any]]:
    """``assert_error(resp, status, code)``: checks the exact error body shape, returns ``details``."""
    return _assert_error
