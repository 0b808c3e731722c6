"""Child processes of a deployment: started in their own session, logged to a file, waited for,
and stopped (their own process group only, never by name)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx


def free_port() -> int:
    """A TCP port free on loopback now (the kernel's choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Child:
    """One started process: its name, command, log file and :class:`subprocess.Popen`."""

    name: str
    cmd: list[str]
    log_path: Path
    proc: subprocess.Popen[bytes]

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def log_tail(self, chars: int = 3000) -> str:
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")[-chars:]
        except OSError:
            return ""

    def send(self, sig: int) -> None:
        """Send *sig* to the process itself (not its group): e.g. SIGHUP to `glossary serve`."""
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.proc.pid, sig)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 20.0) -> int | None:
        """Send *sig* to the process group, wait up to *timeout* s, then SIGKILL it; the exit code."""
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, sig)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        return self.proc.returncode


def start(name: str, cmd: list[str], log_path: Path, env: dict[str, str] | None = None) -> Child:
    """Start *cmd* in a new session (its own process group), stdout and stderr into *log_path*
    (a file, not a pipe: a full pipe would stall the child)."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("ab") as log:
        proc = subprocess.Popen(
            cmd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return Child(name, cmd, log_path, proc)


def wait_until(
    child: Child, ready: Callable[[], bool], timeout: float, what: str, interval: float = 0.05
) -> float:
    """Seconds until *ready()* is true; RuntimeError (with the child's log) if the child exits or
    *timeout* passes first."""
    t0 = time.monotonic()
    while True:
        if not child.alive():
            raise RuntimeError(
                f"{child.name} exited with code {child.proc.returncode} before {what}:\n{child.log_tail()}"
            )
        if ready():
            return time.monotonic() - t0
        if time.monotonic() - t0 > timeout:
            raise RuntimeError(f"{child.name}: not {what} after {timeout:.0f} s:\n{child.log_tail()}")
        time.sleep(interval)


def http_ok(url: str) -> Callable[[], bool]:
    """A probe: *url* answers 200."""

    def probe() -> bool:
        try:
            return httpx.get(url, timeout=2.0).status_code == 200
        except httpx.HTTPError:
            return False

    return probe


def redis_pong(port: int) -> Callable[[], bool]:
    """A probe: the redis-server on loopback *port* answers PING."""

    def probe() -> bool:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(64).startswith(b"+PONG")
        except OSError:
            return False

    return probe
