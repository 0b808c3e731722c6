"""The sentence-transformers backend with the all-MiniLM-L6-v2 model bundled in a Python package."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from embeddings import SentenceTransformerEncoder, make_encoder

pytestmark = pytest.mark.slow


@pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is None,
    reason="sentence-transformers is not installed (optional extra: pip install 'glossary-kg[st]')",
)
def test_bundled_minilm_similarity_ordering() -> None:
    encoder = make_encoder("minilm-bundled")
    assert isinstance(encoder, SentenceTransformerEncoder)
    # The id must not contain the site-packages path, which differs between machines.
    assert encoder.id == "st:sentence-transformers/all-MiniLM-L6-v2@gt-bundled:plain"
    assert encoder.dim == 384

    passages = [
        "A cat is sleeping on the sofa.",
        "The central bank raised interest rates again.",
        "Heavy rain is expected across the region tomorrow.",
    ]
    p = encoder.encode_passages(passages, batch_size=2)
    q = encoder.encode_queries(["a kitten naps on the couch", "monetary policy and inflation"])
    assert p.shape == (3, 384)
    assert q.shape == (2, 384)
    assert p.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(p, axis=1), 1.0, atol=1e-4)
    scores = q @ p.T
    assert list(np.argmax(scores, axis=1)) == [0, 1]
    assert scores[0, 0] > scores[0, 1] + 0.2
    assert encoder.encode_queries([]).shape == (0, 384)
