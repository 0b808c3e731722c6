"""Where docs integrations read the glossary from: a built artifact directory or a graph.json file."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from kg.errors import ArtifactError
from kg.verify import GRAPH, parse_graph, read_graph, resolve_artifact

_CACHE: dict[tuple[str, int, int], dict[str, Any]] = {}


def graph_file(path: str | os.PathLike[str]) -> Path:
    """The graph.json that *path* stands for: *path* itself when it is a file, else the artifact's."""
    p = Path(path)
    return p if p.is_file() else resolve_artifact(p) / GRAPH


def load_graph(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The export document at *path* (an artifact directory, checked against its manifest, or a
    graph.json file, read as it is). Cached per file, size and modification time, because a docs
    build asks for it once per page. Raises :class:`kg.errors.ArtifactError` saying what is wrong."""
    p = Path(path)
    gfile = graph_file(p)
    try:
        st = gfile.stat()
    except OSError:
        return read_graph(p)  # raises ArtifactError naming what is missing
    key = (str(gfile.resolve()), st.st_mtime_ns, st.st_size)
    if key not in _CACHE:
        if p.is_file():
            try:
                doc = parse_graph(p.read_bytes())
            except ValueError as exc:
                raise ArtifactError(f"{p}: {exc}") from None
        else:
            doc = read_graph(p)
        _CACHE.clear()  # one graph per build: keep only the newest
        _CACHE[key] = doc
    return _CACHE[key]
