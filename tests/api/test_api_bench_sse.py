"""The SSE first-event benchmark's measuring code against a live server (no timing assertions)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from api.app import create_app
from api.settings import Settings
from kg.bench.sse_latency import _questions, measure
from kg.search.engine import SearchEngine
from kg.store import Glossary
from tests.api.live_server import serve


def test_measure_counts_every_streamed_request(
    glossary: Glossary, engine: SearchEngine, tmp_path: Any
) -> None:
    app = create_app(
        Settings(artifact_dir=tmp_path / "none", sessions="memory"), glossary=glossary, engine=engine
    )
    questions = _questions(Path("tests/data/chat_eval.jsonl"))[:5]
    with serve(app) as url:
        res = measure(url, questions)
    assert res["requests"] == 5 and res["errors"] == 0
    assert 0 < res["first_event_p50_ms"] <= res["full_stream_p50_ms"]
