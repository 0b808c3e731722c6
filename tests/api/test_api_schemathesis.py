"""Property-based conformance: schemathesis against the app's own OpenAPI, in process (ASGI).

Every operation gets generated requests, valid and invalid (bounded: 25 examples per operation
and phase, derandomized so a run is repeatable). No response may be a server error (5xx), and
every response must match the schema documented for its status code and content type.

A second run draws its strings from all of Unicode (``codec=None``: astral characters, NUL,
combining marks, right-to-left text…) and, where an operation takes a JSON body, puts one hostile
value into the generated body: ``NaN``, ``Infinity``, ``-Infinity`` (which Python's JSON parser
accepts) or a lone surrogate escape (``"\\ud800"``). Schemathesis itself generates neither
(its floats are finite, and it leaves out surrogates, category Cs, even with ``codec=None``), so
the hostile-body test adds them and sends the body as those bytes. Every such body must get 422.

The app is created at import (schemathesis reads its OpenAPI then, from ``app.openapi()``; that
needs no data) and gets the real graph and a real engine (hashing encoder, for speed) from a
fixture before any request.
``schemathesis.pytest.from_fixture`` would avoid that but does not work with pytest 9.

The tests are parametrized explicitly, one pytest item per (operation, generation mode), and draw
their cases from the public ``APIOperation.as_strategy``. ``schema.parametrize()`` builds its items
in a collector of its own whose node ids do not name the operation (under pytest-xdist the reports
could not say which operation ran where). Plain parametrization gives each operation its own node
id, which xdist distributes like any other test, and a failure names its operation.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
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


def _schema() -> Any:
    """The app's OpenAPI for schemathesis, read without a request: a request would start the app's
    lifespan, which schemathesis keeps running for the whole process, before the fixture below gives
    the app its graph; the first test of a process (under pytest-xdist, any test) would then be
    served "no artifact" (503)."""
    loaded = schemathesis.openapi.from_dict(app.openapi())
    loaded.app, loaded.location = app, "/openapi.json"
    return loaded


schema = _schema()
unicode_schema = _schema()
unicode_schema.config.generation.codec = None  # any code point (schemathesis still omits surrogates)
SETTINGS = settings(
    max_examples=25,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
MODES = [GenerationMode.POSITIVE, GenerationMode.NEGATIVE]


def _operations(api: Any) -> list[Any]:
    """Every operation of *api*'s OpenAPI (a schema it cannot read fails collection, loudly)."""
    return [result.ok() for result in api.get_all_operations()]


def _runs(operations: list[Any]) -> list[Any]:
    """(operation, mode) pairs: valid requests for every operation, invalid ones for each operation
    that takes an input (one with no parameter and no body has no invalid request to make)."""
    return [
        pytest.param(op, mode, id=f"{op.label}-{mode.value}")
        for op in operations
        for mode in MODES
        if mode is GenerationMode.POSITIVE or op.body or any(True for _ in op.iter_parameters())
    ]


OPERATIONS = _operations(schema)
UNICODE_OPERATIONS = _operations(unicode_schema)


@pytest.fixture(autouse=True)
def _loaded(glossary: Glossary, engine: SearchEngine) -> Iterator[None]:
    app.state.glossary, app.state.engine = glossary, engine
    yield
    app.state.glossary = app.state.engine = None


def test_every_operation_is_tested() -> None:
    # the API has 21 operations today; a schema read that lost some would shrink this silently
    assert len(OPERATIONS) == len(UNICODE_OPERATIONS) >= 21
    assert len({op.label for op in OPERATIONS}) == len(OPERATIONS)
    assert len(_runs(OPERATIONS)) == 2 * len(OPERATIONS) - 3  # /healthz, /readyz, /v1/stats take no input


@pytest.mark.parametrize(("operation", "mode"), _runs(OPERATIONS))
@SETTINGS
@given(data=st.data())
def test_openapi_conformance(operation: Any, mode: GenerationMode, data: st.DataObject) -> None:
    case = data.draw(operation.as_strategy(generation_mode=mode), label="case")
    case.call_and_validate(checks=CHECKS)


# Values Python's JSON parser reads but JSON cannot hold: each must be refused (422), never a 500.
HOSTILE_VALUES: list[Any] = [
    math.nan,
    math.inf,
    -math.inf,
    "\ud800",
    "a\udfffb",
    "什么是\ud83d TTFT",
    {"\udc00": 1},
]


def _positions(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in a JSON value: the value itself, then its members, depth first."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _positions(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _positions(item, (*path, i))


def _put(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    copy: Any = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = _put(copy[path[0]], path[1:], new)
    return copy


class HostileBody(bytes):
    """A body this hook made (schemathesis sends some raw bytes bodies of its own)."""


def hostile(body: Any, data: st.DataObject) -> Any:
    """The generated JSON body with one value replaced by a hostile one, as the bytes of Python's
    ``json.dumps`` (``NaN`` / ``Infinity`` literals, ``\\ud800`` escapes); other bodies as they are."""
    if isinstance(body, bytes | str) or not isinstance(body, dict | list | int | float | bool | None):
        return body
    path = data.draw(st.sampled_from(list(_positions(body))), label="hostile position")
    value = data.draw(st.sampled_from(HOSTILE_VALUES), label="hostile value")
    return HostileBody(json.dumps(_put(body, path, value)).encode("ascii"))


@pytest.mark.parametrize(("operation", "mode"), _runs(UNICODE_OPERATIONS))
@SETTINGS
@given(data=st.data())
def test_openapi_unicode_and_hostile_json(operation: Any, mode: GenerationMode, data: st.DataObject) -> None:
    case = data.draw(operation.as_strategy(generation_mode=mode), label="case")
    if operation.body:  # an operation that takes a JSON body gets a hostile one
        case.body = hostile(case.body, data)
    response = case.call_and_validate(checks=CHECKS)
    if isinstance(case.body, HostileBody):
        assert response.status_code == 422, (case.body, response.text[:300])
        assert response.json()["error"]["details"]["errors"][0]["type"] in (
            "json_non_finite_number",
            "json_lone_surrogate",
        )
