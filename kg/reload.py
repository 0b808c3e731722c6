"""Which artifact version the workers of one ``glossary serve`` serve, and how they learn of a new one.

A reload is *requested* (SIGHUP to the server, or ``POST /admin/reload``): the requester resolves
the published artifact (the ``<artifact>`` symlink a build switches) to its version directory
**once**, verifies that version completely (:func:`kg.verify.check_artifact`: every checksum,
the graph's shape, the index format and encoder, the refusal model), pins it so no build prunes
it meanwhile, and writes it as the new *target* into the server's reload channel: a small JSON
file (``reload.json``) in a directory ``glossary serve`` creates for its workers, with a
generation number. Each worker polls that file (one ``stat`` every quarter second), loads the
target in a background thread and swaps it in; a worker started later (one that replaced a dead
worker) loads the current target at startup. Every worker thus serves the very version the
requester verified, never "whatever the link points at when it looks", which a build publishing
at the same moment could make differ between workers.

A version that does not verify is refused (:class:`~kg.errors.ArtifactRefused`) before any
worker sees it: the server keeps serving what it has. Workers report what they serve (and the
last error) in ``worker-<pid>.json`` next to the channel, which the admin endpoint reads to say
when every worker has moved.

No FastAPI here (:mod:`api.reload` is the app side).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from kg.build import pin_directory
from kg.errors import ArtifactRefused
from kg.verify import ArtifactCheck, artifact_content_hash, check_artifact, read_manifest, resolve_artifact

CHANNEL_FILE = "reload.json"
LOCK_FILE = ".lock"
WORKER_PREFIX = "worker-"


@dataclass(frozen=True)
class Target:
    """A version every worker should serve: its directory, content hash and generation."""

    generation: int
    path: str
    content_sha256: str | None
    version: str | None
    requested_at: float
    by: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def verified_version(
    artifact: str | os.PathLike[str], encoder_spec: str | None
) -> tuple[Path, ArtifactCheck]:
    """The version *artifact* points at now, verified and pinned; :class:`ArtifactRefused` with the
    problems when it is not intact (nothing is pinned then)."""
    root = resolve_artifact(artifact)
    check = check_artifact(root, encoder_spec)
    if check.problems:
        shown = "; ".join(str(p) for p in check.problems[:3])
        more = f" (and {len(check.problems) - 3} more)" if len(check.problems) > 3 else ""
        raise ArtifactRefused(
            f"the artifact published at {Path(artifact).name} ({root.name}) is not served: {shown}{more}; "
            "the server keeps serving the version it has",
            {"version": root.name, "problems": [p.to_dict() for p in check.problems]},
        )
    if not pin_directory(root):
        raise ArtifactRefused(
            f"the version {root.name} was removed before it could be pinned: rebuild, then reload again",
            {"version": root.name},
        )
    return root, check


class ReloadChannel:
    """The reload directory of one ``glossary serve``: the target, and each worker's report."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.path = self.directory / CHANNEL_FILE

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        fd = os.open(self.directory / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def stamp(self) -> tuple[int, int, int] | None:
        """A cheap fingerprint of the target file (changes when a new target is written)."""
        try:
            st = self.path.stat()
        except OSError:
            return None
        return st.st_mtime_ns, st.st_ino, st.st_size

    def read(self) -> Target | None:
        """The current target; None when none was written (or the file is unreadable)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return Target(**data)
        except (OSError, ValueError, TypeError):
            return None

    def publish(self, path: Path, by: str) -> Target:
        """Write *path* (a verified version directory) as the next target."""
        manifest = read_manifest(path) or {}
        with self._locked():
            current = self.read()
            target = Target(
                generation=(current.generation + 1) if current else 1,
                path=str(path),
                content_sha256=artifact_content_hash(manifest),
                version=str(manifest["version"]) if "version" in manifest else path.name,
                requested_at=time.time(),
                by=by,
            )
            _write_json(self.path, target.to_dict())
        return target

    def report(self, status: dict[str, Any]) -> None:
        """This worker's state (``pid``, ``generation``, ``content_sha256``, ``error`` …)."""
        with contextlib.suppress(OSError):
            _write_json(self.directory / f"{WORKER_PREFIX}{os.getpid()}.json", {"pid": os.getpid(), **status})

    def workers(self) -> list[dict[str, Any]]:
        """The reports of the workers that are alive (a dead worker's report is removed)."""
        out = []
        for path in sorted(self.directory.glob(f"{WORKER_PREFIX}*.json")):
            try:
                status = json.loads(path.read_text(encoding="utf-8"))
                pid = int(status["pid"])
            except (OSError, ValueError, KeyError, TypeError):
                continue
            if _alive(pid):
                out.append(status)
            else:
                path.unlink(missing_ok=True)
        return out


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _write_json(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data), encoding="utf-8")
    os.replace(tmp, path)
