"""Several ``glossary serve`` replicas behind nginx on loopback, sessions in Redis (``glossary deploy-local``).

>>> with LocalDeployment(Path("build/artifact"), replicas=2, port=8080) as d:   # doctest: +SKIP
...     httpx.get(d.url + "/v1/terms/kv-cache")

What it starts, all on 127.0.0.1, each child in its own process group, logs in the run directory:

1. ``redis-server`` on a free port without persistence (unless a session store is given, e.g.
   ``GLOSSARY_SESSIONS=redis://…``): every replica keeps the chat sessions there, so a follow-up
   keeps its context whichever replica answers it;
2. *replicas* ``glossary serve`` processes on free ports, all on the same artifact (read only:
   they never write into it when it is complete), each naming itself in the ``X-Glossary-Replica``
   header (``r1``, ``r2`` …), all sharing one reload channel (``<run>/reload``): a reload
   requested from any of them (SIGHUP, ``POST /admin/reload``) is verified once and every
   worker of every replica moves to that version;
3. nginx on the given port, its configuration written from :mod:`kg.deploy.nginx` into the run
   directory, started once every replica answers ``/readyz``.

:meth:`LocalDeployment.stop` stops nginx first (it finishes the requests in flight), then the
replicas, then Redis.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from kg.deploy import nginx
from kg.deploy.processes import Child, free_port, http_ok, redis_pong, start, wait_until

REPLICA_HEADER = "X-Glossary-Replica"


@dataclass
class Replica:
    """One ``glossary serve`` of the deployment."""

    name: str
    port: int
    child: Child

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"


class LocalDeployment:
    """Redis, *replicas* ``glossary serve`` and nginx on loopback; a context manager."""

    def __init__(
        self,
        artifact: Path,
        *,
        replicas: int = 2,
        port: int = 0,
        workers: int = 1,
        run_dir: Path | None = None,
        sessions: str | None = None,
        ready_timeout: float = 180.0,
        log: Callable[[str], None] = lambda _m: None,
        command: str = "glossary deploy-local",
        env: dict[str, str] | None = None,
    ) -> None:
        if replicas < 1 or workers < 1:
            raise ValueError("replicas and workers must be at least 1")
        self.artifact = artifact.absolute()
        self.n_replicas = replicas
        self.port = port or free_port()
        self.workers = workers
        self.own_run_dir = run_dir is None
        self.run_dir = (run_dir or Path(tempfile.mkdtemp(prefix="glossary-deploy-"))).absolute()
        self.sessions = sessions
        self.ready_timeout = ready_timeout
        self.log = log
        self.command = command
        self.extra_env = dict(env or {})  # for every replica, over this process's environment
        self.redis: Child | None = None
        self.replicas: list[Replica] = []
        self.nginx: Child | None = None
        self.nginx_conf = self.run_dir / "nginx.conf"

    @property
    def url(self) -> str:
        """The deployment's address: nginx."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def reload_dir(self) -> Path:
        return self.run_dir / "reload"

    # --- starting -----------------------------------------------------------------------------

    def start(self) -> LocalDeployment:
        """Start everything (stopping what was started if a part fails); returns self."""
        binary = nginx.nginx_binary()
        if binary is None:
            raise RuntimeError("nginx is not installed (Debian: apt-get install nginx)")
        self.run_dir.mkdir(parents=True, exist_ok=True)
        try:
            if self.sessions is None:
                self.sessions = self._start_redis()
            self._start_replicas()
            self._start_nginx(binary)
        except BaseException:
            self.stop()
            raise
        return self

    def _start_redis(self) -> str:
        exe = shutil.which("redis-server")
        if exe is None:
            raise RuntimeError(
                "redis-server is not installed (Debian: apt-get install redis-server), and no session "
                "store was given (--sessions / GLOSSARY_SESSIONS=redis://host:port/db)"
            )
        port = free_port()
        data = self.run_dir / "redis"
        data.mkdir(exist_ok=True)
        cmd = [exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        self.redis = start("redis-server", [*cmd, "--dir", str(data)], self.run_dir / "logs" / "redis.log")
        wait_until(self.redis, redis_pong(port), 20.0, "answering PING")
        url = f"redis://127.0.0.1:{port}/0"
        self.log(f"redis-server on {url} (no persistence)")
        return url

    def replica_env(self, name: str) -> dict[str, str]:
        """The environment of one replica: sessions, its name, its share of the cores."""
        assert self.sessions is not None
        env = {
            k: v for k, v in os.environ.items() if k not in ("GLOSSARY_RELOAD_DIR", "GLOSSARY_ARTIFACT_LINK")
        }
        env.update(self.extra_env)
        env["GLOSSARY_SESSIONS"] = self.sessions
        env["GLOSSARY_REPLICA"] = name
        # the query encoder's threads: share the cores among every worker of every replica
        env.setdefault(
            "OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // (self.n_replicas * self.workers)))
        )
        env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        return env

    def replica_command(self, port: int) -> list[str]:
        return [
            sys.executable,
            *("-m", "kg.cli", "serve", "--host", "127.0.0.1", "--port", str(port)),
            *("--workers", str(self.workers), "--artifact", str(self.artifact)),
            *("--reload-dir", str(self.reload_dir), "--sessions", str(self.sessions)),
        ]

    def _start_replicas(self) -> None:
        self.reload_dir.mkdir(parents=True, exist_ok=True)
        for i in range(1, self.n_replicas + 1):
            name, port = f"r{i}", free_port()
            child = start(
                f"replica {name}",
                self.replica_command(port),
                self.run_dir / "logs" / f"replica-{name}.log",
                self.replica_env(name),
            )
            self.replicas.append(Replica(name, port, child))
        for r in self.replicas:
            took = wait_until(r.child, http_ok(r.url + "/readyz"), self.ready_timeout, "ready (/readyz)")
            self.log(f"replica {r.name}: glossary serve on {r.url}, ready ({took:.1f} s)")

    def site(self) -> nginx.Site:
        return nginx.Site(
            listen=f"127.0.0.1:{self.port}",
            upstreams=tuple(r.address for r in self.replicas),
            command=self.command,
        )

    def _start_nginx(self, binary: str) -> None:
        user = nginx.worker_user()
        nginx.prepare_run_dir(self.run_dir, owner=user[0] if user else None)
        self.nginx_conf.write_text(nginx.render_main(self.site(), self.run_dir, user=user), encoding="utf-8")
        check = subprocess.run(
            nginx.check_command(binary, self.run_dir, self.nginx_conf), capture_output=True, text=True
        )
        if check.returncode != 0:
            raise RuntimeError(f"nginx -t refused {self.nginx_conf}:\n{check.stderr}")
        self.nginx = start(
            "nginx",
            nginx.nginx_command(binary, self.run_dir, self.nginx_conf),
            self.run_dir / "logs" / "nginx.log",
        )
        wait_until(self.nginx, http_ok(self.url + "/readyz"), 20.0, "answering through to a replica")
        self.log(
            f"nginx on {self.url} -> {', '.join(r.address for r in self.replicas)} (config {self.nginx_conf})"
        )

    # --- running ------------------------------------------------------------------------------

    def reload(self) -> None:
        """SIGHUP to every replica: each verifies the published artifact and asks for it through
        the shared reload channel (the first one moves every worker; the others find it served)."""
        for r in self.replicas:
            r.child.send(signal.SIGHUP)

    def replica(self, name: str) -> Replica:
        return next(r for r in self.replicas if r.name == name)

    def dead(self) -> list[Child]:
        """The children that have exited."""
        children = [c for c in (self.redis, self.nginx, *(r.child for r in self.replicas)) if c is not None]
        return [c for c in children if not c.alive()]

    # --- stopping -----------------------------------------------------------------------------

    def stop(self) -> None:
        """nginx (graceful: SIGQUIT lets it finish the requests in flight), the replicas, Redis."""
        if self.nginx is not None:
            self.nginx.stop(signal.SIGQUIT, timeout=15)
        for r in self.replicas:
            r.child.stop(signal.SIGTERM, timeout=30)
        if self.redis is not None:
            self.redis.stop(signal.SIGTERM, timeout=10)
        if self.own_run_dir:
            shutil.rmtree(self.run_dir, ignore_errors=True)

    def __enter__(self) -> LocalDeployment:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
