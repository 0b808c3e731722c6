"""``glossary build --watch``: rebuild when a corpus file changes.

Watched: ``manifest.json``, ``categories.json``, ``overlay.json`` and every source file the
manifest lists (read again after each change, so a source added to the manifest is watched
from then on). The files are polled (``stat``, every ``poll`` seconds: a handful of files, no
inotify dependency, works on network file systems). A change is *debounced*: the build starts
once the files have stayed unchanged for ``debounce`` seconds (an editor's save is often a
truncate then a write, or several files are edited together), and only when their content
differs from what was last built (a ``touch`` rebuilds nothing).

A build that fails (a bad source: ``file:line``; the artifact locked by another build) publishes
nothing, so the last good artifact stays; the watch reports the error and goes on. After a build
that carried the previous refusal model (see :mod:`kg.rebuild`), the model is fitted and
published as the next version; a further change cancels that fit (the next build starts at once
and its own fit follows).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from pathlib import Path

from kg.build import default_corpus_dir
from kg.chat.refusal import FitCancelled
from kg.errors import BuildLocked
from kg.rebuild import Builder, Outcome

CORPUS_FILES = ("manifest.json", "categories.json", "overlay.json")

Snapshot = tuple[tuple[str, int, int, int], ...]


def watched_files(corpus: Path) -> list[Path]:
    """The corpus files a build reads; the manifest's sources as it lists them now (an unreadable
    manifest: none, until it is fixed)."""
    files = [corpus / name for name in CORPUS_FILES]
    try:
        manifest = json.loads((corpus / "manifest.json").read_text(encoding="utf-8"))
        sources = manifest.get("sources", []) if isinstance(manifest, dict) else []
        files += [
            corpus / s["file"] for s in sources if isinstance(s, dict) and isinstance(s.get("file"), str)
        ]
    except (OSError, ValueError):
        pass
    return list(dict.fromkeys(files))


def snapshot(files: list[Path]) -> Snapshot:
    """(path, mtime ns, size, inode) of each file; -1s for a missing one."""
    out = []
    for f in files:
        try:
            st = f.stat()
            out.append((str(f), st.st_mtime_ns, st.st_size, st.st_ino))
        except OSError:
            out.append((str(f), -1, -1, -1))
    return tuple(out)


def content_digest(files: list[Path]) -> str:
    """SHA-256 over the files' paths and contents (what a build would read)."""
    digest = hashlib.sha256()
    for f in files:
        digest.update(str(f).encode() + b"\0")
        try:
            digest.update(hashlib.sha256(f.read_bytes()).digest())
        except OSError as exc:
            digest.update(f"unreadable {exc.errno}".encode())
    return digest.hexdigest()


def watch(
    builder: Builder,
    *,
    debounce: float = 0.3,
    poll: float = 0.2,
    on_build: Callable[[Outcome], None] = lambda o: None,
    on_refit: Callable[[Outcome | None], None] = lambda o: None,
    on_error: Callable[[BaseException], None] = lambda e: None,
    on_skip: Callable[[str], None] = lambda why: None,
    stop: Callable[[], bool] = lambda: False,
) -> None:
    """Build now, then after every change, until *stop* returns True (checked every *poll* s).

    The callbacks report each published build, each refit (None when none was published),
    each failure, and changes that needed no build.
    """
    corpus = builder.corpus or default_corpus_dir()
    built: str | None = None
    files = watched_files(corpus)
    snap = snapshot(files)
    pending = True
    while not stop():
        if pending:
            pending = False
            files = watched_files(corpus)
            snap = snapshot(files)  # before reading: a change during the build is seen after it
            digest = content_digest(files)
            if digest == built:
                on_skip("the files changed on disk but not in content")
            else:
                built = digest
                outcome, error = _attempt(lambda: builder.build("carry"))
                if error is not None:
                    on_error(error)
                    if isinstance(error, BuildLocked):  # another build held the artifact: try again
                        built, pending = None, True
                elif outcome is not None:
                    on_build(outcome)
                    if not outcome.refusal_current:
                        _refit(builder, _changed(files, snap), on_refit, on_error, on_skip)
        time.sleep(poll)
        files = watched_files(corpus)
        now = snapshot(files)
        if now != snap:
            snap = _settle(files, now, debounce, poll, stop)
            pending = True


def _changed(files: list[Path], snap: Snapshot) -> Callable[[], bool]:
    return lambda: snapshot(files) != snap


def _refit(
    builder: Builder,
    cancel: Callable[[], bool],
    on_refit: Callable[[Outcome | None], None],
    on_error: Callable[[BaseException], None],
    on_skip: Callable[[str], None],
) -> None:
    try:
        outcome, error = _attempt(lambda: builder.refit(cancel=cancel))
    except FitCancelled:
        on_skip("refusal model fit cancelled: the files changed again")
        return
    if error is not None:
        on_error(error)
    else:
        on_refit(outcome)


def _settle(
    files: list[Path], snap: Snapshot, debounce: float, poll: float, stop: Callable[[], bool]
) -> Snapshot:
    """Wait until the files have not changed for *debounce* seconds; their snapshot then."""
    quiet_since = time.monotonic()
    while not stop() and time.monotonic() - quiet_since < debounce:
        time.sleep(min(poll, debounce))
        now = snapshot(files)
        if now != snap:
            snap, quiet_since = now, time.monotonic()
    return snap


def _attempt(run: Callable[[], Outcome | None]) -> tuple[Outcome | None, Exception | None]:
    """*run*'s outcome, or the failure it raised (reported by the caller: the last good artifact
    stays published), never raised; :class:`FitCancelled` passes through."""
    try:
        return run(), None
    except FitCancelled:
        raise
    except Exception as exc:  # a bad source, a held lock, a full disk: report, keep watching
        return None, exc
