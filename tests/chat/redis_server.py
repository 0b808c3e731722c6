"""A throwaway ``redis-server`` on loopback for the Redis session-store tests.

CI installs Debian's ``redis-server`` (``.ci/run``) and never starts it globally: each test
session starts its own on a free port, without persistence, and stops it. Tests skip only when
the binary is absent.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

import pytest

REDIS_SERVER = shutil.which("redis-server")
SKIP_REASON = "redis-server is not installed (CI installs Debian's redis-server: see .ci/run)"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def redis_server(timeout: float = 20.0) -> Iterator[str]:
    """Run a private redis-server until the block ends; yields ``redis://127.0.0.1:PORT/0``."""
    if REDIS_SERVER is None:
        pytest.skip(SKIP_REASON)
    port = _free_port()
    cmd = [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    # its log goes to a file, not a pipe: a full pipe would stall the server
    with tempfile.TemporaryFile() as log, subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT) as proc:
        try:
            _wait_for_pong(proc, port, log, timeout)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


def _wait_for_pong(proc: subprocess.Popen[bytes], port: int, log: IO[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            log.seek(0)
            out = log.read().decode(errors="replace")
            raise RuntimeError(f"redis-server exited with {proc.returncode}: {out[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                if s.recv(64).startswith(b"+PONG"):
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError("redis-server did not answer PING")
        time.sleep(0.05)
