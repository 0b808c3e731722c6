"""Build a corpus into an artifact, reusing what a rebuild does not have to redo.

A :class:`Builder` is what ``glossary build`` (once) and ``glossary build --watch`` (after every
change) run. What a rebuild after editing one entry reuses:

* **passage vectors** — the encoder is wrapped in :class:`embeddings.cache.CachingEncoder`:
  a text the model has embedded before (same encoder id, same text) is read from the cache, so
  only new or changed passages are encoded (the language offset's label texts and the chat's
  training questions go through the same cache);
* **the encoder itself** — a Builder keeps its model loaded between rebuilds (``--watch``);
* **the chat's refusal model** — its fit is cached by everything it depends on (the training
  questions, the code, the graph's names and texts, the encoder; :func:`kg.chat.refusal.refusal_key`),
  and its topic part by the questions' vectors alone. An edit changes the graph, so the fit
  must run again: about 3-5 s of feature extraction once the vectors are cached (50-70 s
  before). ``refusal="fit"`` (``glossary build``) fits it before publishing: the artifact is
  exact. ``refusal="carry"`` (``--watch``) publishes the graph and indexes at once with the
  previous version's model, recorded as not current (``refusal_current: false`` in the
  manifest), then :meth:`Builder.refit` fits it and publishes it as the next version. Between
  the two (a few seconds) the chat decides "is this about the glossary?" with coefficients
  fitted on the graph before the edit: one entry moves those features little (measured by
  ``glossary bench-rebuild``: ``refusal_agreement``).

Nothing here imports FastAPI.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from kg.build import LOCK_TIMEOUT_S, BuildResult, build_graph, republish, write_artifact
from kg.errors import ArtifactError
from kg.verify import read_manifest, resolve_artifact

RefusalMode = Literal["fit", "carry"]


@dataclass
class Outcome:
    """What one build or refit published, and where its time went."""

    artifact: Path
    version: str
    content_sha256: str
    timings: dict[str, float] = field(default_factory=dict)
    passages: int = 0
    encoded: int | None = 0  # texts the model encoded (cache misses); None: no vector cache
    reused: int | None = 0  # texts read from the vector cache
    refusal: str = ""  # fitted | cached | carried | none
    refusal_current: bool = True
    result: BuildResult | None = field(default=None, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "content_sha256": self.content_sha256,
            "timings": {k: round(v, 3) for k, v in self.timings.items()},
            "passages": self.passages,
            "encoded": self.encoded,
            "reused": self.reused,
            "refusal": self.refusal,
            "refusal_current": self.refusal_current,
        }


class Builder:
    """Builds *corpus* (None: the bundled one) into *artifact* with *encoder_spec* (None: lexical
    only). *vector_cache*: a :class:`embeddings.cache.VectorCache`, ``"default"`` (the user's
    cache directory) or None (encode everything)."""

    def __init__(
        self,
        corpus: Path | None,
        artifact: Path,
        encoder_spec: str | None,
        *,
        vector_cache: Any = "default",
        progress: bool = False,
        lock_timeout: float = LOCK_TIMEOUT_S,
        status: Callable[[str], Any] | None = None,
        quantize: str | None = None,
    ) -> None:
        self.corpus = corpus
        self.quantize = quantize  # "sq8": 8-bit vectors (SearchEngine.build)
        self.artifact = artifact
        self.encoder_spec = encoder_spec
        self.progress = progress
        self.lock_timeout = lock_timeout
        self.status = status
        if vector_cache == "default":
            from embeddings.cache import VectorCache

            vector_cache = VectorCache.default()
        self.vector_cache = vector_cache
        self._encoder: Any = None
        # what the last build published: the graph and engine a refit trains on
        self._last: tuple[Any, Any, Path] | None = None

    @property
    def encoder(self) -> Any:
        """The encoder (made once, kept loaded), behind the vector cache when there is one."""
        if self._encoder is None and self.encoder_spec:
            from embeddings import make_encoder

            encoder = make_encoder(self.encoder_spec)
            if self.vector_cache is not None:
                from embeddings.cache import CachingEncoder

                encoder = CachingEncoder(encoder, self.vector_cache)
            self._encoder = encoder
        return self._encoder

    def last_built(self) -> tuple[Any, Any]:
        """The glossary and search engine of what :meth:`build` last published."""
        if self._last is None:
            raise RuntimeError("nothing built yet")
        return self._last[0], self._last[1]

    def _say(self, message: str) -> None:
        if self.status is not None:
            self.status(message)

    def _examples(self, glossary: Any) -> list[tuple[str, str]]:
        """The corpus's example questions (kg/search/examples.py), resolved to term ids."""
        from kg.build import default_corpus_dir
        from kg.search.examples import EXAMPLES_FILE, read_examples, resolve_examples

        corpus = Path(self.corpus) if self.corpus is not None else default_corpus_dir()
        kept, skipped = resolve_examples(read_examples(corpus), glossary.lookup)
        if skipped:
            self._say(
                f"{len(skipped)} example questions of {corpus / EXAMPLES_FILE} name no single term and "
                f"were left out (lines {', '.join(map(str, skipped[:8]))}{' …' if len(skipped) > 8 else ''})"
            )
        return kept

    def build(self, refusal: RefusalMode = "fit") -> Outcome:
        """Parse, merge, link, index and publish; raises :class:`~kg.parsers.common.SourceError`
        (nothing published) for a bad corpus, :class:`~kg.errors.BuildLocked` when another build
        holds the artifact."""
        from kg.search.engine import SearchEngine
        from kg.search.passages import passages
        from kg.store import Glossary

        t0 = time.perf_counter()
        result = build_graph(self.corpus)
        t_graph = time.perf_counter()
        encoder = self.encoder
        counted = hasattr(encoder, "encoded")
        before = (encoder.encoded, encoder.reused) if counted else (0, 0)
        self._say(
            f"indexing {len(result.terms)} terms (encoder: {self.encoder_spec or 'none, lexical only'})"
        )
        glossary = Glossary(result.document())
        examples = self._examples(glossary)
        engine = SearchEngine.build(
            result.terms,
            self.encoder_spec,
            progress=self.progress,
            encoder=encoder,
            examples=examples,
            quantize=self.quantize,
        )
        t_index = time.perf_counter()
        after = (encoder.encoded, encoder.reused) if hasattr(encoder, "encoded") else (0, 0)
        model, how, current = self._refusal_model(glossary, engine, refusal)
        t_refusal = time.perf_counter()

        def save_chat(tmp: Path) -> None:
            if model is not None:
                model.save(tmp)

        write_artifact(
            result,
            self.artifact,
            extra={"search": lambda tmp: engine.save(tmp / "search"), "chat": save_chat},
            lock_timeout=self.lock_timeout,
            meta={"refusal_current": current},
        )
        t_write = time.perf_counter()
        published = resolve_artifact(self.artifact)
        self._last = (glossary, engine, published)
        result.timings.update(
            {"index_s": t_index - t_graph, "refusal_s": t_refusal - t_index, "write_s": t_write - t_refusal}
        )
        manifest = read_manifest(published) or {}
        return Outcome(
            artifact=self.artifact,
            version=str(manifest.get("version", published.name)),
            content_sha256=str(manifest.get("content_sha256", "")),
            timings={
                "graph_s": t_graph - t0,
                "index_s": t_index - t_graph,
                "refusal_s": t_refusal - t_index,
                "write_s": t_write - t_refusal,
                "total_s": t_write - t0,
            },
            passages=len(passages(result.terms)) if self.encoder_spec else 0,
            encoded=after[0] - before[0] if counted else None,
            reused=after[1] - before[1] if counted else None,
            refusal=how,
            refusal_current=current,
            result=result,
        )

    def _refusal_model(self, glossary: Any, engine: Any, mode: RefusalMode) -> tuple[Any, str, bool]:
        """(model, how it was obtained, whether it is the one a fit on this graph gives)."""
        from kg.chat.refusal import RefusalModel, fit_refusal_model, is_cached, refusal_key

        # the key of what fit_refusal_model fits (and caches): the graph without its mentioned-only nodes
        key = refusal_key(glossary.defined_view(), engine)
        if mode == "carry":
            previous = self._previous_model()
            if previous is not None:
                current = key is not None and previous.trained_on.get("key") == key
                return previous, "carried" if not current else "cached", current
        how = "cached" if is_cached(key) else "fitted"
        if how == "fitted":
            self._say("training the chatbot's refusal model")
        model: RefusalModel = fit_refusal_model(glossary, engine)
        return model, how, True

    def _previous_model(self) -> Any:
        """The refusal model of the published version, when it was trained for this encoder."""
        from kg.chat.refusal import RefusalModel

        try:
            model = RefusalModel.load(resolve_artifact(self.artifact))
        except (OSError, ValueError, KeyError):
            return None
        if model is None or model.encoder_id != self.encoder_spec:
            return None
        return model

    def refit(self, cancel: Callable[[], bool] | None = None) -> Outcome | None:
        """Fit the refusal model for what :meth:`build` last published and publish it as the
        next version (the graph and indexes copied, verified by their checksums). None when the
        model there is already current, or another build published since (then that build's
        model is the one to fit). Raises :class:`kg.chat.refusal.FitCancelled` when *cancel*
        says so."""
        from kg.chat.refusal import fit_refusal_model

        if self._last is None:
            return None
        glossary, engine, base = self._last
        manifest = read_manifest(base) or {}
        if manifest.get("refusal_current", True):
            return None
        t0 = time.perf_counter()
        model = fit_refusal_model(glossary, engine, cancel=cancel)
        t_fit = time.perf_counter()
        try:
            republish(
                self.artifact,
                {"chat": model.save},
                base=base,
                replace=("chat",),
                lock_timeout=self.lock_timeout,
                meta={"refusal_current": True},
            )
        except ArtifactError:  # another build published meanwhile: its own refit follows
            return None
        published = resolve_artifact(self.artifact)
        self._last = (glossary, engine, published)
        new = read_manifest(published) or {}
        t_write = time.perf_counter()
        return Outcome(
            artifact=self.artifact,
            version=str(new.get("version", published.name)),
            content_sha256=str(new.get("content_sha256", "")),
            timings={"refusal_s": t_fit - t0, "write_s": t_write - t_fit, "total_s": t_write - t0},
            refusal="fitted",
            refusal_current=True,
        )
