"""Property-based conformance: schemathesis against the app's own OpenAPI, in process (ASGI).

Every operation gets generated requests, valid and invalid (bounded: 25 examples per operation
and phase, derandomized so a run is repeatable). No response may be a server error (5xx), and
every response must match the schema documented for its status code and content type.

The app is created at import (schemathesis reads its OpenAPI then; that needs no data) and gets
the real graph and a real engine (hashing encoder, for speed) from a fixture before any request.
``schemathesis.pytest.from_fixture`` would avoid that but does not work with pytest 9.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from api.app import create_app
from api.settings import Settings
from kg.search.engine import SearchEngine
from kg.store import Glossary

CHECKS = [not_a_server_error, response_schema_conformance, status_code_conformance, content_type_conformance]

app = create_app(Settings(artifact_dir=Path(__file__).parent / "no-such-artifact", sessions="memory"))
schema = schemathesis.openapi.from_asgi("/openapi.json", app)


@pytest.fixture(autouse=True)
def _loaded(glossary: Glossary, engine: SearchEngine) -> Iterator[None]:
    app.state.glossary, app.state.engine = glossary, engine
    yield
    app.state.glossary = app.state.engine = None


@schema.parametrize()
@settings(
    max_examples=25,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
def test_openapi_conformance(case: Any) -> None:
    case.call_and_validate(checks=CHECKS)
