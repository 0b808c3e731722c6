"""On-disk format of a vector index: ``vectors.faiss`` + ``ids.json`` + ``manifest.json``.

The manifest records which encoder made the vectors and a sha256 of each data file,
so that :func:`read_index_dir` can refuse an index built by another model or damaged
on disk instead of silently serving wrong neighbours.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import faiss

from embeddings.errors import IndexCorruptError, IndexMismatchError, IndexNotFoundError
from embeddings.index.base import IndexKind

FORMAT_VERSION = 1
VECTORS_FILE = "vectors.faiss"
IDS_FILE = "ids.json"
MANIFEST_FILE = "manifest.json"
REBUILD_HINT = "rebuild it with `glossary build`"
#: faiss's flag for reading flat codes in place from a memory-mapped file (faiss >= 1.10).
_MMAP_FLAG: int = int(getattr(faiss, "IO_FLAG_MMAP_IFC", 0))


@dataclass(frozen=True)
class LoadedIndex:
    """What :func:`read_index_dir` returns once every check has passed."""

    index: Any
    ids: list[str]
    manifest: dict[str, Any]


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file, read in 1 MiB chunks so large indexes are not held twice."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def kind_of(index: Any) -> IndexKind:
    """``"flat"``, ``"hnsw"``, ``"flat-sq8"`` or ``"hnsw-sq8"`` for the faiss index types this
    package builds."""
    if isinstance(index, faiss.IndexHNSWFlat):
        return "hnsw"
    if isinstance(index, faiss.IndexFlatIP):
        return "flat"
    if isinstance(index, faiss.IndexHNSWSQ) and _is_sq8(index.storage):
        return "hnsw-sq8"
    if isinstance(index, faiss.IndexScalarQuantizer) and _is_sq8(index):
        return "flat-sq8"
    raise TypeError(f"unsupported faiss index type {type(index).__name__}")


def _is_sq8(index: Any) -> bool:
    sq = faiss.downcast_index(index) if not isinstance(index, faiss.IndexScalarQuantizer) else index
    return isinstance(sq, faiss.IndexScalarQuantizer) and int(sq.sq.qtype) == int(
        faiss.ScalarQuantizer.QT_8bit
    )


def write_index_dir(directory: Path, index: Any, ids: list[str], *, encoder_id: str) -> Path:
    """Write the three files into ``directory`` (created if needed) and return the manifest path.

    Each file is written to a temporary name and renamed into place, and the manifest
    goes last: a crash midway leaves data files that disagree with the manifest, which
    :func:`read_index_dir` reports as corrupt rather than loading half an index.
    """
    directory.mkdir(parents=True, exist_ok=True)
    vectors_path = directory / VECTORS_FILE
    ids_path = directory / IDS_FILE

    tmp_vectors = directory / f".{VECTORS_FILE}.tmp"
    faiss.write_index(index, str(tmp_vectors))
    os.replace(tmp_vectors, vectors_path)
    _atomic_write(ids_path, json.dumps(ids, ensure_ascii=False).encode("utf-8"))

    kind = kind_of(index)
    manifest: dict[str, Any] = {
        "format_version": FORMAT_VERSION,
        "encoder_id": encoder_id,
        "dim": int(index.d),
        "count": int(index.ntotal),
        "kind": kind,
        "metric": "inner_product",
        "faiss_version": faiss.__version__,
        "files": {
            VECTORS_FILE: {"sha256": sha256_file(vectors_path), "bytes": vectors_path.stat().st_size},
            IDS_FILE: {"sha256": sha256_file(ids_path), "bytes": ids_path.stat().st_size},
        },
    }
    if kind in ("hnsw", "hnsw-sq8"):
        manifest["hnsw"] = {
            "M": int(index.hnsw.nb_neighbors(1)),
            "efConstruction": int(index.hnsw.efConstruction),
        }
    manifest_path = directory / MANIFEST_FILE
    _atomic_write(manifest_path, (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode("utf-8"))
    return manifest_path


def read_manifest(directory: str | os.PathLike[str]) -> dict[str, Any]:
    """Parse and shape-check ``manifest.json`` (no checksum or encoder checks)."""
    path = Path(directory) / MANIFEST_FILE
    if not Path(directory).is_dir():
        raise IndexNotFoundError(
            f"no vector index at {directory}: directory does not exist; build it with `glossary build`"
        )
    if not path.is_file():
        raise IndexNotFoundError(
            f"no vector index at {directory}: {MANIFEST_FILE} is missing; build it with `glossary build`"
        )
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise IndexCorruptError(f"{path} is unreadable ({exc}); {REBUILD_HINT}") from exc
    if not isinstance(manifest, dict):
        raise IndexCorruptError(f"{path} is not a JSON object; {REBUILD_HINT}")
    expected_types: dict[str, type | tuple[type, ...]] = {
        "format_version": int,
        "encoder_id": str,
        "dim": int,
        "count": int,
        "kind": str,
        "files": dict,
    }
    for key, typ in expected_types.items():
        if not isinstance(manifest.get(key), typ):
            raise IndexCorruptError(f"{path}: field {key!r} is missing or has the wrong type; {REBUILD_HINT}")
    return manifest


def read_index_dir(
    directory: str | os.PathLike[str], *, expected_encoder_id: str, expected_dim: int, mmap: bool = True
) -> LoadedIndex:
    """Load and verify an index directory written by :func:`write_index_dir`.

    With *mmap* (the default) the vectors (and HNSW links) stay in the file, memory-mapped
    read-only (faiss ``IO_FLAG_MMAP_IFC``): every process serving the same artifact shares
    those pages (the page cache) instead of holding its own copy (~230 MB at 100k terms), and
    the kernel may drop them under pressure. They still count in each process's RSS once a
    search has touched them (HNSW searches touch most of the file within a few queries).
    Search results are the same either way (tested).

    Raises :class:`IndexMismatchError` when it was made by another encoder, with another
    dimension or in another format version, and :class:`IndexCorruptError` (or its
    subclass :class:`IndexNotFoundError`) when a file is missing, fails its checksum,
    cannot be parsed, or disagrees with the manifest.
    """
    root = Path(directory)
    manifest = read_manifest(root)
    if manifest["format_version"] != FORMAT_VERSION:
        raise IndexMismatchError(
            f"index at {root} has format version {manifest['format_version']}, this code reads "
            f"version {FORMAT_VERSION}; {REBUILD_HINT}"
        )
    stored_id, stored_dim = manifest["encoder_id"], manifest["dim"]
    if stored_id != expected_encoder_id or stored_dim != expected_dim:
        raise IndexMismatchError(
            f"index at {root} was built by encoder {stored_id!r} (dim {stored_dim}), but the configured "
            f"encoder is {expected_encoder_id!r} (dim {expected_dim}); {REBUILD_HINT} using the configured encoder"
        )

    for name in (VECTORS_FILE, IDS_FILE):
        _verify_checksum(root, name, manifest["files"])

    ids = _parse_ids(root / IDS_FILE)
    try:
        index = faiss.read_index(str(root / VECTORS_FILE), _MMAP_FLAG if mmap else 0)
    except Exception as exc:  # faiss reports every parse failure as a bare RuntimeError
        raise IndexCorruptError(
            f"{root / VECTORS_FILE} is not a readable faiss index ({exc}); {REBUILD_HINT}"
        ) from exc

    try:
        kind = kind_of(index)
    except TypeError as exc:
        raise IndexCorruptError(f"{root / VECTORS_FILE}: {exc}; {REBUILD_HINT}") from exc
    problems = []
    if kind != manifest["kind"]:
        problems.append(f"kind is {kind}, manifest says {manifest['kind']}")
    if index.metric_type != faiss.METRIC_INNER_PRODUCT:
        problems.append("metric is not inner product")
    if int(index.d) != stored_dim:
        problems.append(f"dimension is {index.d}, manifest says {stored_dim}")
    if int(index.ntotal) != manifest["count"] or len(ids) != manifest["count"]:
        problems.append(f"{index.ntotal} vectors and {len(ids)} ids, manifest says {manifest['count']}")
    if problems:
        raise IndexCorruptError(f"index at {root} is inconsistent: {'; '.join(problems)}; {REBUILD_HINT}")
    return LoadedIndex(index=index, ids=ids, manifest=manifest)


def _verify_checksum(root: Path, name: str, files: dict[str, Any]) -> None:
    path = root / name
    entry = files.get(name)
    expected = entry.get("sha256") if isinstance(entry, dict) else None
    if not isinstance(expected, str):
        raise IndexCorruptError(f"{root / MANIFEST_FILE} has no sha256 for {name}; {REBUILD_HINT}")
    if not path.is_file():
        raise IndexCorruptError(f"{path} is missing; {REBUILD_HINT}")
    actual = sha256_file(path)
    if actual != expected:
        raise IndexCorruptError(
            f"{path} fails its checksum (sha256 {actual[:12]}…, manifest says {expected[:12]}…); {REBUILD_HINT}"
        )


def _parse_ids(path: Path) -> list[str]:
    try:
        ids = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise IndexCorruptError(f"{path} is unreadable ({exc}); {REBUILD_HINT}") from exc
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise IndexCorruptError(f"{path} is not a JSON list of strings; {REBUILD_HINT}")
    if len(set(ids)) != len(ids):
        raise IndexCorruptError(f"{path} contains duplicate ids; {REBUILD_HINT}")
    return ids


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
