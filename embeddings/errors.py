"""Typed errors of the vector-index layer.

Callers (the CLI, the API at start-up) catch :class:`VectorIndexError` to turn any
problem with a stored index into one clear message; the subclasses say whether the
fix is a rebuild with another encoder (:class:`IndexMismatchError`) or a rebuild
because the files on disk cannot be trusted (:class:`IndexCorruptError`).
"""

from __future__ import annotations


class VectorIndexError(Exception):
    """Base class of every error raised while building, saving or loading a vector index."""


class IndexMismatchError(VectorIndexError):
    """The stored index was built by another encoder, with another dimension or file format."""


class IndexCorruptError(VectorIndexError):
    """A stored index file is missing, unreadable, or does not match its manifest."""


class IndexNotFoundError(IndexCorruptError):
    """No index has been built at the given directory.

    A subclass of :class:`IndexCorruptError` because a missing manifest is a missing
    file; it exists separately so that a caller can say "build it" instead of
    "it is damaged".
    """
