"""The heavy-request benchmark (kg.bench.heavy_load), briefly, against a live server on loopback.

No timing is asserted: the latency targets are checked by the benchmark itself
(``python -m kg.bench.heavy_load``, results in docs/bench/heavy.json), not by unit tests.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from api.app import create_app
from api.settings import Settings
from kg.bench.heavy_load import MAX_MESSAGE_CHARS, heavy_text, main, parse_args
from kg.build import BuildResult
from kg.search.engine import SearchEngine
from kg.store import Glossary
from tests.api.live_server import serve


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory, bundled_build: Callable[[], BuildResult]) -> Iterator[str]:
    glossary = Glossary(bundled_build().document())
    engine = SearchEngine.build(list(glossary.terms.values()), "hash:64")
    settings = Settings(artifact_dir=tmp_path_factory.mktemp("none"), sessions="memory", warm_up=False)
    with serve(create_app(settings, glossary=glossary, engine=engine)) as url:
        yield url


def test_heavy_texts_are_maximal_and_all_different() -> None:
    texts = [heavy_text(i, 1998) for i in range(200)]
    assert all(len(t) == 1998 for t in texts)
    assert len(set(texts)) == 200
    assert len(heavy_text(3, MAX_MESSAGE_CHARS)) == MAX_MESSAGE_CHARS


def test_bounds() -> None:
    assert parse_args([], "p").heavy_clients == 4
    for bad in (["--duration", "0"], ["--duration", "500"], ["--heavy-clients", "0"], ["--flood", "1000"]):
        with pytest.raises(SystemExit):
            parse_args(bad, "p")


def test_only_loopback() -> None:
    with pytest.raises(SystemExit, match="loopback"):
        main(["--base-url", "http://example.org", "--duration", "1"])


def test_main_against_running_server(live: str, tmp_path: Path) -> None:
    out = tmp_path / "heavy.json"
    result = main(
        [
            "--base-url",
            live,
            "--duration",
            "0.4",
            "--heavy-clients",
            "2",
            "--flood",
            "6",
            "--ramp",
            "0",
            "--out",
            str(out),
        ]
    )
    assert json.loads(out.read_text(encoding="utf-8")) == json.loads(json.dumps(result, ensure_ascii=False))
    rows = {(r["endpoint"], r["note"]) for r in result["results"]}
    assert ("GET /v1/search (normal)", "unloaded") in rows and ("GET /v1/terms/{id}", "unloaded") in rows
    assert len(result["results"]) == 7  # unloaded ×3, loaded ×2, flood ×2
    loaded = [r for r in result["results"] if not r["note"].startswith("unloaded")]
    assert all(r["targets"] and r["meets_targets"] is not None for r in loaded)
    heavy = result["heavy_search"]
    assert heavy["requests"] > 0 and heavy["server_errors_other_than_503"] == 0
    assert heavy["truncated_share"] == 1.0  # every maximum-size query is cut to the encoder's window
    flood = result["chat_flood"]
    assert flood["clients"] == 6 and flood["transport_errors"] == 0
    assert set(flood["statuses"]) <= {"200", "503"}
    assert all(r["errors"] == 0 for r in result["results"])
