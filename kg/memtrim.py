"""Give the memory freed while loading back to the system (:func:`release_free_memory`)."""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
from functools import lru_cache
from typing import Any


@lru_cache(maxsize=1)
def _libc() -> Any:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:
        return None
    return libc if libc is not None and hasattr(libc, "malloc_trim") else None


def release_free_memory() -> bool:
    """Collect garbage, then ask glibc to return the free pages of its heap (``malloc_trim``).

    Loading an artifact frees large temporaries (the parsed graph, the tables the matchers are
    sorted from); glibc keeps the pages it had for them, scattered between live blocks, and only
    ``malloc_trim`` gives them back (~45 MB at 100k terms, `glossary bench-memory`). True when
    it ran (glibc), False elsewhere (nothing to do).
    """
    gc.collect()
    libc = _libc()
    if libc is None:
        return False
    libc.malloc_trim(0)
    return True
