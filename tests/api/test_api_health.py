"""Liveness, readiness and loading the artifact in the lifespan."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.settings import Settings


def test_healthz(client: TestClient) -> None:
    resp = client.get("/healthz")
    assert resp.status_code == 200
    assert resp.json() == {"status": "ok"}


def test_readyz_with_glossary(client: TestClient, graph_doc: dict[str, Any]) -> None:
    resp = client.get("/readyz")
    assert resp.status_code == 200
    body = resp.json()
    artifact = body.pop("artifact")
    assert body == {
        "status": "ready",
        "terms": len(graph_doc["nodes"]),
        "edges": len(graph_doc["edges"]),
        "search": {"loaded": True, "dense": True, "encoder": "hash:64", "error": None},
        # a graph given without a manifest: its version is the graph document's hash
        "version": resp.headers["X-Glossary-Version"],
    }
    assert len(body["version"]) == 16
    assert (
        artifact["version"] is None and artifact["generation"] == 0 and artifact["last_reload_error"] is None
    )


def test_readyz_degraded_without_search_index(make_client: Any, assert_error: Any) -> None:
    """Graph loaded, no search index in the artifact: 200 "degraded", search routes 503."""
    client = make_client(engine=None)
    body = client.get("/readyz").json()
    assert body["status"] == "degraded"
    assert body["search"]["loaded"] is False and body["search"]["dense"] is False
    assert "no search index" in body["search"]["error"]
    assert client.get("/v1/terms/vllm").status_code == 200
    details = assert_error(client.get("/v1/search", params={"q": "ttft"}), 503, "artifact_unavailable")
    assert details == {}
    assert_error(client.get("/v1/suggest", params={"q": "tt"}), 503, "artifact_unavailable")


def test_readyz_503_without_artifact(make_client: Any, assert_error: Any, tmp_path: Path) -> None:
    client = make_client(glossary=None, artifact_dir=tmp_path / "missing")
    assert client.get("/healthz").status_code == 200
    details = assert_error(client.get("/readyz"), 503, "artifact_unavailable")
    assert details == {}
    assert_error(client.get("/v1/terms"), 503, "artifact_unavailable")


@pytest.fixture(scope="module")
def built(bundled_build: Callable[[], Any]) -> Any:
    """The bundled corpus's graph, built once (as `glossary build` does before writing)."""
    return bundled_build()


def _artifact(built: Any, out: Path, engine: Any = None) -> Path:
    """An artifact as `glossary build` writes it (checksummed manifest), with the search index
    of *engine* when given."""
    from kg.build import write_artifact

    extra = {"search": lambda tmp: engine.save(tmp / "search")} if engine is not None else None
    return write_artifact(built, out, extra=extra)


def test_lifespan_loads_artifact_dir(built: Any, graph_doc: dict[str, Any], tmp_path: Path) -> None:
    art = _artifact(built, tmp_path / "artifact")
    app = create_app(Settings(artifact_dir=art))
    with TestClient(app) as client:
        assert client.get("/readyz").json()["terms"] == len(graph_doc["nodes"])
        assert client.get("/v1/terms/vllm").status_code == 200


def test_lifespan_refuses_a_graph_without_a_manifest(graph_doc: dict[str, Any], tmp_path: Path) -> None:
    """A hand-made graph.json (no checksummed manifest) is not served as ready (issue 10)."""
    (tmp_path / "graph.json").write_text(json.dumps(graph_doc, ensure_ascii=False), encoding="utf-8")
    with TestClient(create_app(Settings(artifact_dir=tmp_path))) as client:
        assert client.get("/readyz").status_code == 503
        assert "manifest.json" in client.get("/readyz").json()["error"]["message"]


def test_lifespan_loads_search_index(built: Any, engine: Any, tmp_path: Path) -> None:
    """graph.json + search/ (as `glossary build` writes them) → both loaded, engine warmed up."""
    art = _artifact(built, tmp_path / "artifact", engine)
    with TestClient(create_app(Settings(artifact_dir=art))) as client:
        body = client.get("/readyz").json()
        assert body["status"] == "ready"
        assert body["search"] == {"loaded": True, "dense": True, "encoder": "hash:64", "error": None}
        hits = client.get("/v1/search", params={"q": "張量並行"}).json()["results"]
        assert hits[0]["id"] == "tensor-parallelism"


def test_lifespan_encoder_mismatch_is_degraded(built: Any, engine: Any, tmp_path: Path) -> None:
    art = _artifact(built, tmp_path / "artifact", engine)
    with TestClient(create_app(Settings(artifact_dir=art, encoder="hash:32"))) as client:
        body = client.get("/readyz").json()
        assert body["status"] == "degraded"
        assert "encoder" in body["search"]["error"]
        assert str(tmp_path) not in body["search"]["error"]  # paths relative to the artifact only
        assert client.get("/v1/search", params={"q": "ttft"}).status_code == 503


def test_settings_from_env(monkeypatch: Any) -> None:
    monkeypatch.setenv("GLOSSARY_MAX_QUERY_CHARS", "10")
    monkeypatch.setenv("GLOSSARY_CORS_ORIGINS", '["https://a.example"]')
    s = Settings()
    assert s.max_query_chars == 10
    assert s.cors_origins == ["https://a.example"]
    assert s.artifact_dir == Path("build/artifact")
    assert s.max_body_bytes == 65536
    assert s.encoder is None and s.warm_up is True
    monkeypatch.setenv("GLOSSARY_ENCODER", "hash:64")
    assert Settings().encoder == "hash:64"


def test_openapi_documents_every_route(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    paths = spec["paths"]
    expected = {
        "/healthz",
        "/readyz",
        "/v1/terms",
        "/v1/terms/{term_id}",
        "/v1/lookup",
        "/v1/suggest",
        "/v1/search",
        "/v1/terms/{term_id}/related",
        "/v1/terms/{term_id}/confused-with",
        "/v1/terms/{term_id}/neighbors",
        "/v1/graph/path",
        "/v1/graph/subgraph",
        "/v1/compare",
        "/v1/stats",
        "/v1/export",
        # chatbot (POST) and the web page's layout
        "/v1/ask",
        "/v1/chat",
        "/v1/chat/completions",
        "/v1/terms/{term_id}/layout",
        # docs tooling: term annotation and tooltip cards
        "/v1/annotate",
        "/v1/terms/{term_id}/card",
    }
    assert set(paths) == expected
    for path, ops in paths.items():
        ok = (ops.get("get") or ops["post"])["responses"]["200"]["content"]
        if path != "/v1/export":
            assert "$ref" in ok["application/json"]["schema"], path
    assert "ErrorResponse" in spec["components"]["schemas"]
