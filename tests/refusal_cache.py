"""Seeding a test's own cache with a refusal model that a session build already fitted."""

from __future__ import annotations

import json
import os
from pathlib import Path

#: Training questions a quick refusal fit samples (``GLOSSARY_REFUSAL_SAMPLE``, kg/chat/refusal.py):
#: about 10 s a fit instead of about 45 s with the hashing encoder. For tests of when a model is
#: fitted, carried or cached (the build pipeline), not of how well it refuses.
QUICK_SAMPLE = "400"


def seed_refusal_cache(artifact: Path) -> str:
    """Put the refusal model of *artifact* in the refusal-model cache of the current
    ``XDG_CACHE_HOME`` (which must be a test's own), under its key, as the build that fitted it
    left it in its own cache; returns the key.

    The cache is keyed by everything a fit depends on (kg/chat/refusal.py: the training data,
    the code, the graph's names and texts, the encoder), so a build of the same corpus with the
    same encoder reads it instead of fitting again (``refusal: "cached"``); any other graph (an
    edit) or encoder misses it and fits for real. This is what a test that builds the bundled
    corpus with ``hash:64`` as a starting point (not what it checks) uses to skip the ~30 s fit
    that ``hash_artifact``'s build already made."""
    from kg.chat.refusal import _cache_dir, is_cached
    from kg.verify import resolve_artifact

    assert os.environ.get("XDG_CACHE_HOME"), "seed a test's own cache, not the user's"
    doc = json.loads((resolve_artifact(artifact) / "chat" / "refusal.json").read_text(encoding="utf-8"))
    key = str(doc["trained_on"]["key"])
    path = _cache_dir() / f"{key}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert is_cached(key)
    return key
