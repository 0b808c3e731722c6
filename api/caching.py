"""ETag + Cache-Control helpers for cacheable GET responses, and the rendered-export cache.

Most GET routes build their body (cheap) and tag it with its hash (:func:`cached_response`).
``/v1/export`` cannot afford that: rendering SKOS Turtle takes about a second. Its tag is computed
from what determines the bytes — the artifact version (a hash of the loaded graph document), the
format and the exporter's code — so a conditional GET is answered (304) before anything is
rendered (:func:`export_etag`, :func:`not_modified`), and rendered exports are kept per artifact
version and format in a bounded LRU (:class:`RenderCache`).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from functools import lru_cache
from pathlib import Path

from fastapi import Request, Response

from kg.store import Glossary

CACHE_CONTROL = "public, max-age=300"


def strong_etag(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest() + '"'


def _matches(if_none_match: str, etag: str) -> bool:
    if if_none_match.strip() == "*":
        return True
    # If-None-Match uses the weak comparison: a W/ prefix does not matter.
    tags = [t.strip().removeprefix("W/") for t in if_none_match.split(",")]
    return etag in tags


def not_modified(request: Request, etag: str) -> bool:
    """True when the request's If-None-Match already holds *etag* (answer 304)."""
    inm = request.headers.get("if-none-match")
    return inm is not None and _matches(inm, etag)


def cached_response(request: Request, body: bytes, media_type: str) -> Response:
    """*body* with a strong ETag and Cache-Control; 304 when If-None-Match already holds it."""
    etag = strong_etag(body)
    headers = {"ETag": etag, "Cache-Control": CACHE_CONTROL}
    if not_modified(request, etag):
        return Response(status_code=304, headers=headers)
    return Response(content=body, media_type=media_type, headers=headers)


# --- artifact version and export tags ---------------------------------------------------------

_versions: weakref.WeakKeyDictionary[Glossary, str] = weakref.WeakKeyDictionary()
_versions_lock = threading.Lock()


def artifact_version(glossary: Glossary) -> str:
    """A hash of the graph document *glossary* serves (canonical JSON), computed once per glossary
    (about 6 ms for the bundled corpus)."""
    with _versions_lock:
        version = _versions.get(glossary)
    if version is None:
        canonical = json.dumps(glossary.document, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        version = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
        with _versions_lock:
            _versions[glossary] = version
    return version


@lru_cache(maxsize=1)
def exporter_fingerprint() -> str:
    """The package version and a hash of the exporter's source files: a new exporter (same
    artifact) gets new tags, so no client keeps an export rendered by the old code."""
    try:
        package = importlib.metadata.version("glossary-kg")
    except importlib.metadata.PackageNotFoundError:
        package = "unknown"
    digest = hashlib.sha256(package.encode())
    try:
        spec = importlib.util.find_spec("kg.export")
    except (ImportError, ValueError):
        spec = None
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for folder in locations:
        for path in sorted(Path(folder).glob("*.py")):
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def export_etag(glossary: Glossary, fmt: str) -> str:
    """The strong ETag of ``/v1/export?format=fmt``, without rendering it."""
    key = "\0".join(("export", artifact_version(glossary), fmt, exporter_fingerprint()))
    return '"' + hashlib.sha256(key.encode("utf-8")).hexdigest() + '"'


# --- rendered exports ---------------------------------------------------------------------------

Rendered = tuple[bytes, str]  # body, media type


class RenderCache:
    """Rendered bodies by key (artifact version, format), least recently used dropped past
    *max_entries* (0: nothing kept). Thread-safe; one render per key at a time, so concurrent
    requests for the same export wait for the first render instead of repeating it."""

    def __init__(self, max_entries: int) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[Hashable, Rendered] = OrderedDict()
        self._lock = threading.Lock()
        self._key_locks: dict[Hashable, threading.Lock] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def _lookup(self, key: Hashable) -> Rendered | None:
        with self._lock:
            hit = self._entries.get(key)
            if hit is not None:
                self._entries.move_to_end(key)
            return hit

    def get_or_render(self, key: Hashable, render: Callable[[], Rendered]) -> Rendered:
        if self.max_entries <= 0:
            return render()
        hit = self._lookup(key)
        if hit is not None:
            return hit
        with self._lock:
            key_lock = self._key_locks.setdefault(key, threading.Lock())
        with key_lock:
            try:
                hit = self._lookup(key)  # rendered by the request we waited for
                if hit is not None:
                    return hit
                rendered = render()
                with self._lock:
                    self._entries[key] = rendered
                    while len(self._entries) > self.max_entries:
                        self._entries.popitem(last=False)
                return rendered
            finally:
                with self._lock:
                    self._key_locks.pop(key, None)
