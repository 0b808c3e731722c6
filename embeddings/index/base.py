"""The :class:`VectorIndex` protocol: nearest-neighbour search over passage vectors by string id."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Literal, Protocol, TypeAlias, runtime_checkable

from numpy.typing import ArrayLike

IndexKind: TypeAlias = Literal["flat", "hnsw", "flat-sq8", "hnsw-sq8"]
SearchHit: TypeAlias = tuple[str, float]
"""``(passage id, inner-product score)``; with unit vectors the score is a cosine similarity."""


@runtime_checkable
class VectorIndex(Protocol):
    """A searchable set of vectors, each identified by a passage id."""

    @property
    def kind(self) -> IndexKind:
        """``"flat"`` (exact) or ``"hnsw"`` (approximate, for large corpora); ``-sq8``: vectors
        stored as 8-bit scalar-quantised codes (a quarter of the memory, approximate scores)."""
        ...

    @property
    def dim(self) -> int:
        """Vector dimension."""
        ...

    @property
    def encoder_id(self) -> str | None:
        """Id of the encoder that produced the vectors, if known."""
        ...

    @property
    def ids(self) -> Sequence[str]:
        """Passage ids in insertion order (position ``i`` is vector ``i``)."""
        ...

    def __len__(self) -> int:
        """Number of vectors."""
        ...

    def search(self, query_vectors: ArrayLike, k: int) -> list[list[SearchHit]]:
        """Top-``k`` hits for each query row (a ``(dim,)`` vector counts as one query), best first."""
        ...

    def save(self, directory: str | os.PathLike[str], *, encoder_id: str | None = None) -> Path:
        """Write the index, its ids and a checksummed manifest into ``directory``."""
        ...
