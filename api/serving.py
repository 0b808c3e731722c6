"""Run the app under uvicorn for ``glossary serve``, with SIGHUP meaning "reload the artifact".

uvicorn's own supervisor answers SIGHUP by replacing every worker process (a new one started,
then the old one stopped). That reloads the artifact, but it closes every keep-alive connection
of the old workers (a client that sends a request on one as it closes gets an error), starts a
cold process per worker (~1.5 s each, the encoder loaded again) and, for those seconds, holds two
copies of the artifact per worker. Here SIGHUP keeps the processes: the supervisor verifies the
newly published version once and writes it into the server's reload channel (:mod:`kg.reload`);
each worker loads it in a background thread and swaps it in between requests
(:mod:`api.reload`), keeping its connections, its encoder and its other state. With one worker
there is no supervisor: the worker itself handles SIGHUP the same way.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from pathlib import Path
from typing import Any

import uvicorn
from uvicorn.config import STARTUP_FAILURE
from uvicorn.supervisors.multiprocess import Multiprocess

from kg.build import pin_directory, unpin_directory
from kg.errors import ArtifactRefused
from kg.reload import ReloadChannel, verified_version

log = logging.getLogger("uvicorn.error")


class ReloadingMultiprocess(Multiprocess):
    """uvicorn's supervisor, whose SIGHUP reloads the artifact in the workers instead of
    replacing them (other signals as uvicorn: TERM/INT stop, TTIN/TTOU add or remove a worker)."""

    def __init__(
        self, config: uvicorn.Config, sockets: list[Any], *, artifact: Path, encoder: str | None
    ) -> None:
        super().__init__(config, sockets)
        self.artifact = artifact
        self.encoder = encoder
        reload_dir = os.environ.get("GLOSSARY_RELOAD_DIR")
        self.channel = ReloadChannel(reload_dir) if reload_dir else None

    def handle_hup(self) -> None:
        if self.channel is None:  # not started by `glossary serve`: uvicorn's restart of the workers
            super().handle_hup()
            return
        request_reload(self.channel, self.artifact, self.encoder, "SIGHUP")


def request_reload(channel: ReloadChannel, artifact: Path, encoder: str | None, by: str) -> bool:
    """Verify the version *artifact* points at and make it the workers' target; False (logged)
    when it is refused or already the target."""
    try:
        root, _ = verified_version(artifact, encoder)
    except ArtifactRefused as exc:
        log.error("reload refused, the workers keep serving what they have: %s", exc.message)
        return False
    previous = channel.read()
    if previous is not None and Path(previous.path) == root:
        log.info("reload: %s is already served", root.name)
        return False
    target = channel.publish(root, by)
    if previous is not None and Path(previous.path) != root:
        unpin_directory(previous.path)  # the workers pin what they serve themselves
    pin_directory(root)
    log.warning("reload requested (%s): generation %d, version %s", by, target.generation, target.version)
    return True


def run(app: str, *, factory: bool, workers: int, **kwargs: Any) -> None:
    """``uvicorn.run(app, factory=…, workers=…, **kwargs)``, with the supervisor above for several
    workers. The workers read their settings from the environment (``GLOSSARY_*``), which
    ``glossary serve`` has set: ``GLOSSARY_ARTIFACT_LINK`` and ``GLOSSARY_RELOAD_DIR`` among them."""
    config = uvicorn.Config(app, factory=factory, workers=workers, **kwargs)
    server = uvicorn.Server(config)
    if workers > 1:
        sock = config.bind_socket()
        artifact = Path(os.environ.get("GLOSSARY_ARTIFACT_LINK") or os.environ["GLOSSARY_ARTIFACT_DIR"])
        ReloadingMultiprocess(
            config, [sock], artifact=artifact, encoder=os.environ.get("GLOSSARY_ENCODER") or None
        ).run()
        return
    config.load_app()
    with contextlib.suppress(KeyboardInterrupt):  # as uvicorn.run
        server.run()
    if not server.started:
        sys.exit(STARTUP_FAILURE)
