"""Vector indexes over passage embeddings: protocol, FAISS implementation, on-disk format."""

from embeddings.index.base import IndexKind, SearchHit, VectorIndex
from embeddings.index.faiss_index import (
    DEFAULT_EF_SEARCH,
    DEFAULT_HNSW_THRESHOLD,
    FaissVectorIndex,
    build_index,
    build_index_from_blocks,
    load_index,
)
from embeddings.index.store import FORMAT_VERSION, IDS_FILE, MANIFEST_FILE, VECTORS_FILE, read_manifest

__all__ = [
    "DEFAULT_EF_SEARCH",
    "DEFAULT_HNSW_THRESHOLD",
    "FORMAT_VERSION",
    "IDS_FILE",
    "MANIFEST_FILE",
    "VECTORS_FILE",
    "FaissVectorIndex",
    "IndexKind",
    "SearchHit",
    "VectorIndex",
    "build_index",
    "build_index_from_blocks",
    "load_index",
    "read_manifest",
]
