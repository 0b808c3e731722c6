"""One encoder wrapper for the evaluation tests: it records what goes through each e5 mode."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from embeddings import Encoder


@dataclass
class SpyEncoder:
    """Wraps a real encoder. ``queries`` / ``passages`` hold the texts of each mode; ``events``
    logs ``("encode", text)`` per query text, in order, and a test may append its own events to
    it; each query batch takes at least ``delay`` seconds."""

    inner: Encoder
    delay: float = 0.0
    queries: list[str] = field(default_factory=list)
    passages: list[str] = field(default_factory=list)
    events: list[tuple[str, str]] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.inner.id

    @property
    def dim(self) -> int:
        return self.inner.dim

    def encode_queries(self, texts: Sequence[str]) -> Any:
        self.queries.extend(texts)
        self.events.extend(("encode", t) for t in texts)
        time.sleep(self.delay)
        return self.inner.encode_queries(texts)

    def encode_passages(self, texts: Sequence[str], *, batch_size: int = 64, progress: Any = False) -> Any:
        self.passages.extend(texts)
        return self.inner.encode_passages(texts, batch_size=batch_size, progress=progress)
