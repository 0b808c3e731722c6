"""The HTTP load benchmark (kg.bench.http_load), briefly, against a live server on loopback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from api.app import create_app
from api.settings import Settings
from kg.bench.http_load import (
    Endpoint,
    Row,
    check_loopback,
    main,
    percentile,
    render_table,
    run_python,
    run_wrk,
    wrk_path,
)
from kg.chat.refusal import refusal_model_for
from kg.search.engine import SearchEngine
from kg.store import Glossary
from tests.api.live_server import serve


def test_percentile() -> None:
    values = [float(x) for x in range(1, 101)]
    assert percentile(values, 50) == 50.0
    assert percentile(values, 99) == 99.0
    assert percentile(values, 100) == 100.0
    assert percentile([], 50) == 0.0
    assert percentile([7.0], 99) == 7.0


def test_only_loopback() -> None:
    for url in ("http://127.0.0.1:8000", "http://localhost:1", "http://[::1]:80"):
        check_loopback(url)
    with pytest.raises(SystemExit, match="loopback"):
        check_loopback("http://example.org")


def test_targets() -> None:
    row = Row(
        "GET /x", "c", 32, 100, 0, 1.0, 2000.0, 5.0, 8.0, 15.0, 30.0, {"min_rps": 1500, "max_p99_ms": 20}
    )
    assert row.check().meets_targets is True
    row.p99_ms = 25.0
    assert row.check().meets_targets is False
    assert Row("GET /x", "c", 1, 1, 1, 1.0, 1.0, 1, 1, 1, 1, {}).check().meets_targets is None
    assert "| GET /x | c | 32 |" in render_table([row])


@pytest.fixture(scope="module")
def live(glossary: Glossary, engine: SearchEngine, tmp_path_factory: Any) -> Any:
    # the chat's refusal model is trained on first use (once per engine); train it before the
    # clock starts, or the first /v1/ask of a short benchmark window times out on a busy machine
    refusal_model_for(glossary, engine)
    app = create_app(Settings(artifact_dir=tmp_path_factory.mktemp("none")), glossary=glossary, engine=engine)
    with serve(app) as base:
        yield base


def test_python_client_counts_errors(live: str) -> None:
    ok = run_python(live, Endpoint("t", ["/v1/terms/vllm", "/v1/suggest?q=kv"]), 0.3, 4, 0.0)
    assert ok.requests > 0 and ok.errors == 0 and ok.rps > 0 and 0 < ok.p50_ms <= ok.p99_ms <= ok.max_ms
    bad = run_python(live, Endpoint("t", ["/v1/terms/no-such-term"]), 0.2, 2, 0.0)
    assert bad.requests == bad.errors > 0


def test_main_against_running_server(live: str, tmp_path: Path) -> None:
    out = tmp_path / "http.json"
    args = ["--base-url", live, "--duration", "0.3", "--warmup", "0", "--concurrency", "4", "--wrk", "no"]
    result = main([*args, "--out", str(out)])
    assert json.loads(out.read_text(encoding="utf-8")) == result
    assert result["server"]["started_by_benchmark"] is False and result["server"]["search"]["loaded"]
    names = {r["endpoint"] for r in result["results"]}
    assert {"GET /v1/terms/{id}", "GET /v1/lookup", "GET /v1/suggest", "GET /v1/search"} <= names
    assert all(r["errors"] == 0 and r["requests"] > 0 for r in result["results"])
    assert {r["concurrency"] for r in result["results"]} == {1, 4}  # search alone, too


def test_wrk_client(live: str) -> None:
    if wrk_path() is None:
        pytest.skip("wrk is not installed (apt-get install -y wrk)")
    paths = ["/v1/terms/vllm", "/v1/lookup?label=%E5%BC%B5%E9%87%8F%E4%B8%A6%E8%A1%8C", "/v1/suggest?q=kv"]
    row = run_wrk(live, Endpoint("t", paths), 1, 4, 0)
    assert row.requests > 0 and row.errors == 0 and row.client.startswith("wrk")
    bad = run_wrk(live, Endpoint("t", ["/v1/terms/no-such-term"]), 1, 2, 0)
    assert bad.errors == bad.requests > 0  # non-2xx counted as errors
