"""Optional backend: any sentence-transformers model available locally (the ``st`` extra).

sentence-transformers (and so torch) is imported only when the first text is
encoded, so that merely choosing or describing this backend costs nothing. Hub
access is switched off: a model must be a local directory or already in the
Hugging Face cache, and nothing is ever downloaded.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from embeddings.encoders.base import (
    DEFAULT_BATCH_SIZE,
    E5_MAX_TOKENS,
    FitCache,
    FittedQuery,
    FloatMatrix,
    Progress,
    check_texts,
    empty_embeddings,
    encode_in_batches,
    finalize_embeddings,
    fit_to_window,
)

E5_QUERY_PREFIX = "query: "
E5_PASSAGE_PREFIX = "passage: "
INSTALL_HINT = "install the st extra: pip install 'glossary-kg[st]'"


def _looks_like_path(name: str) -> bool:
    return name.startswith(("/", "./", "../", "~")) or Path(name).expanduser().exists()


def _is_e5(name: str) -> bool:
    # Only the last path component decides: a parent directory called "e5-cache"
    # must not turn prefixes on for an unrelated model stored below it.
    return "e5" in Path(name.rstrip("/")).name.lower()


def _import_sentence_transformers() -> Any:
    # Set before the import: huggingface_hub reads these once, at import time.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import sentence_transformers
    except ImportError as exc:
        raise ImportError(
            f"the sentence-transformers backend needs sentence-transformers; {INSTALL_HINT}"
        ) from exc
    return sentence_transformers


class SentenceTransformerEncoder:
    """:class:`~embeddings.encoders.base.Encoder` backed by ``sentence_transformers.SentenceTransformer``.

    ``name_or_path`` is a local model directory or a model name already in the
    Hugging Face cache (e.g. ``"intfloat/multilingual-e5-small"``, ``"BAAI/bge-m3"``).
    Prefixes default to ``"query: "`` / ``"passage: "`` for e5-family models (name
    contains ``e5``) and to nothing otherwise; pass ``""`` to switch one off.
    ``id_name`` replaces the model path in :attr:`id`, for models whose location
    differs between machines (e.g. one bundled inside a Python package).
    """

    def __init__(
        self,
        name_or_path: str | os.PathLike[str],
        *,
        query_prefix: str | None = None,
        passage_prefix: str | None = None,
        id_name: str | None = None,
        device: str = "cpu",
    ) -> None:
        """Configure (but do not load) the model; a path that does not exist fails here."""
        name = os.fspath(name_or_path)
        if not name.strip():
            raise ValueError("a sentence-transformers model name or path is required")
        if _looks_like_path(name):
            path = Path(name).expanduser().resolve()
            if not path.is_dir():
                raise FileNotFoundError(f"sentence-transformers model directory not found: {path}")
            name = str(path)
        self.name_or_path = name
        e5 = _is_e5(name)
        self.query_prefix = query_prefix if query_prefix is not None else (E5_QUERY_PREFIX if e5 else "")
        self.passage_prefix = (
            passage_prefix if passage_prefix is not None else (E5_PASSAGE_PREFIX if e5 else "")
        )
        self._id_name = id_name or name
        self._device = device
        self._model: Any = None
        self._dim: int | None = None
        # Guards lazy loading and encoding: Hugging Face fast tokenizers raise
        # "Already borrowed" when one instance is used from several threads at once.
        self._lock = threading.Lock()
        self._fits = FitCache()

    @property
    def id(self) -> str:
        """``"st:<name>:<prefix variant>"``: the same model with other prefixes gives other vectors."""
        return f"st:{self._id_name}:{self._prefix_variant()}"

    def _prefix_variant(self) -> str:
        if not self.query_prefix and not self.passage_prefix:
            return "plain"
        if (self.query_prefix, self.passage_prefix) == (E5_QUERY_PREFIX, E5_PASSAGE_PREFIX):
            return "e5-prefix"
        digest = hashlib.sha256(f"{self.query_prefix}\0{self.passage_prefix}".encode()).hexdigest()
        return f"prefix-{digest[:8]}"

    @property
    def dim(self) -> int:
        """Embedding dimension reported by the model (loads it on first access)."""
        with self._lock:
            self._get_model()
            assert self._dim is not None
            return self._dim

    @property
    def max_tokens(self) -> int:
        """The model's window (``max_seq_length``: 512 for e5, 256 for MiniLM); loads the model."""
        with self._lock:
            return self._window(self._get_model())

    @staticmethod
    def _window(model: Any) -> int:
        window = int(getattr(model, "max_seq_length", 0) or getattr(model.tokenizer, "model_max_length", 0))
        return window if 0 < window < 1_000_000 else E5_MAX_TOKENS

    def fit_query(self, text: str) -> FittedQuery:
        """*text*, or its longest prefix whose tokens (query prefix and specials included) fit the
        window: sentence-transformers would cut the tokens anyway; this says so."""
        return self._fits.get(text, self._fit)

    def _fit(self, text: str) -> FittedQuery:
        with self._lock:
            model = self._get_model()
            tokenizer = model.tokenizer

            def count(t: str) -> int:
                return len(tokenizer(self.query_prefix + t, add_special_tokens=True)["input_ids"])

            return fit_to_window(text, count, self._window(model))

    def _get_model(self) -> Any:
        # Caller holds self._lock.
        if self._model is None:
            st = _import_sentence_transformers()
            try:
                model = st.SentenceTransformer(self.name_or_path, device=self._device, local_files_only=True)
            except OSError as exc:
                raise OSError(
                    f"cannot load sentence-transformers model {self.name_or_path!r} from local files "
                    f"(downloads are disabled): {exc}"
                ) from exc
            # Renamed in sentence-transformers 6; keep working with 3.x-5.x.
            get_dim = (
                getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
            )
            dim = get_dim()
            if not dim:
                raise RuntimeError(f"model {self.name_or_path!r} does not report its embedding dimension")
            self._dim = int(dim)
            self._model = model
        return self._model

    def _run(self, texts: list[str], prefix: str, batch_size: int) -> Any:
        with self._lock:
            model = self._get_model()
            return model.encode(
                [prefix + t for t in texts],
                batch_size=batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )

    def encode_queries(self, texts: Sequence[str]) -> FloatMatrix:
        """Embed raw query texts (the query prefix is added here), each cut to the window:
        float32 ``(n, dim)``."""
        items = check_texts(texts)
        if not items:
            return empty_embeddings(self.dim)
        fitted = [self.fit_query(t).text for t in items]
        return finalize_embeddings(self._run(fitted, self.query_prefix, DEFAULT_BATCH_SIZE), self.dim)

    def encode_passages(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
        progress: Progress = False,
    ) -> FloatMatrix:
        """Embed passages ``batch_size`` at a time (passage prefix added), reporting to ``progress``."""
        items = check_texts(texts)
        if not items:
            return empty_embeddings(self.dim)
        dim = self.dim
        return encode_in_batches(
            items,
            lambda chunk: self._run(chunk, self.passage_prefix, batch_size),
            dim,
            batch_size=batch_size,
            progress=progress,
        )

    def __repr__(self) -> str:
        return f"SentenceTransformerEncoder({self.name_or_path!r})"
