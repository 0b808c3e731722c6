"""Heavy-request benchmark: cheap and normal requests while clients send maximum-size ones.

    python -m kg.bench.heavy_load --duration 10 --out docs/bench/heavy.json

On loopback only, bounded in time and in requests. Without ``--base-url`` it starts
``glossary serve`` itself (as :mod:`kg.bench.http_load` does: a free port, the default number
of workers), warms it up, then measures with one keep-alive connection each (latency, not
throughput):

1. **unloaded**: ``GET /v1/search`` over normal questions (those of the retrieval and chat
   evaluation sets, ~1,300 of at most 200 characters, never one twice in a run: the
   query-vector cache holds 256, so every search encodes its query), ``GET /v1/terms/{id}``,
   and maximum-size searches (below) one at a time;
2. **loaded**: the same two while ``--heavy-clients`` (4) clients each send maximum-size
   searches: ``max_query_chars`` (2,000) characters of Chinese prose, a different one every
   time (no vector cache helps). Targets (issue 10): normal search p99 ≤ 3 × its unloaded p99,
   ``/v1/terms/{id}`` p99 ≤ 50 ms;
3. **chat flood** (``--flood``, 100): ``GET /v1/stats`` and ``GET /v1/graph/path`` while that
   many clients send 1,000-character chat messages; target p99 ≤ 50 ms (more heavy chats than a
   worker's 40 AnyIO threads used to take every thread of the sync routes: 5–9 s).

Heavy clients are well behaved by default: after a 503 ``overloaded`` they wait what its
``Retry-After`` says (``--ignore-retry-after``: they send the next request at once). Every
answer they get is counted by status, with the share of searches answered ``truncated``.

The JSON written to ``--out`` holds the machine (load average before and after: other work
on the machine skews every figure), the settings, and one row per (phase, endpoint) with
p50/p90/p99/max latency in ms, errors and targets, plus the heavy clients' tallies.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from kg.bench.http_load import (
    MAX_REQUESTS,
    Row,
    _get,
    _run_async,
    percentile,
    render_table,
    serve_settings,
    target_server,
)

DEFAULT_QUERIES = tuple(
    Path("tests/data") / f"{name}.jsonl"
    for name in ("retrieval_dev", "retrieval_holdout", "chat_blind_dev", "chat_blind_test", "chat_eval")
)
NORMAL_MAX_CHARS = 200  # the API's default `long_query_chars`: longer is a long request
MAX_QUERY_CHARS = 2000  # the API's default `max_query_chars`: the whole decoded query string
MAX_MESSAGE_CHARS = 1000  # the chat's longest message
TERMS_P99_MS = 50.0
SEARCH_P99_FACTOR = 3.0
# A background client waits at most this long after a 503: within a phase, and under uvicorn's
# keep-alive timeout (5 s), so it never reuses a connection the server is closing at that instant.
RETRY_AFTER_CAP_S = 4.0

# Chinese prose the heavy queries are cut from (glossary-style sentences, ~300 characters).
PROSE = (
    "张量并行把单个层的权重矩阵切分到多张卡上并行计算，每一步都需要在卡之间通信来汇总结果。"
    "流水线并行则把不同的层放在不同的卡上，请求像流水一样依次经过各个阶段，阶段之间传递激活值。"
    "键值缓存保存了已经计算过的注意力键和值，解码阶段每生成一个词元只需要计算新的部分。"
    "连续批处理让新的请求在任意一步加入正在运行的批次，而不必等待整批请求全部结束。"
    "投机解码先用一个小模型起草若干个词元，再由大模型一次验证，接受的部分直接输出。"
    "量化用更少的比特表示权重或激活值，以降低显存占用和带宽压力，但可能损失一些精度。"
)


def normal_questions(paths: Sequence[Path]) -> list[str]:
    """Distinct questions of at most :data:`NORMAL_MAX_CHARS` characters from JSON lines (a
    ``query`` or ``question`` field, or the ``user`` of each of the ``turns``), shuffled with a
    fixed seed so that languages and kinds mix."""
    out: dict[str, None] = {}
    for path in paths:
        if not path.exists():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            texts = [row.get("query"), row.get("question")]
            texts += [t.get("user") for t in row.get("turns", []) if isinstance(t, dict)]
            for text in texts:
                if isinstance(text, str) and text.strip() and len(text) <= NORMAL_MAX_CHARS:
                    out[text] = None
    questions = list(out) or ["how to reduce time to first token", "张量并行", "KV cache 量化"]
    random.Random(0).shuffle(questions)
    return questions


def heavy_text(i: int, length: int) -> str:
    """The *i*-th maximum-size text: *length* characters of :data:`PROSE`, each one different."""
    head = f"第{i}问："
    start = (i * 37) % len(PROSE)
    body = (PROSE * (length // len(PROSE) + 2))[start : start + length]
    return (head + body)[:length]


@dataclass
class Tally:
    """What one or more closed-loop clients got: latencies of 2xx answers (s), statuses."""

    latencies: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    transport_errors: int = 0
    transport_error_kinds: Counter[str] = field(default_factory=Counter)
    searches: int = 0  # 2xx answers of /v1/search
    truncated: int = 0  # … that say `truncated`
    retry_wait_s: float = 0.0

    @property
    def requests(self) -> int:
        return sum(self.statuses.values()) + self.transport_errors


Request = tuple[str, str, dict[str, Any] | None]  # method, path, JSON body
MakeRequest = Callable[[int], Request]


async def closed_loop(
    client: httpx.AsyncClient,
    make: MakeRequest,
    tally: Tally,
    until: Callable[[], bool],
    *,
    offset: int = 0,
    stride: int = 1,
    honor_retry_after: bool = True,
) -> None:
    """Send ``make(i)`` one after another (offset, offset + stride, …) until *until()* or
    :data:`MAX_REQUESTS`; after a 503 wait its Retry-After (capped) when *honor_retry_after*."""
    i = offset
    while not until() and tally.requests < MAX_REQUESTS:
        method, path, body = make(i)
        i += stride
        t0 = time.perf_counter()
        try:
            resp = await client.request(method, path, json=body)
        except httpx.HTTPError as exc:
            tally.transport_errors += 1
            tally.transport_error_kinds[type(exc).__name__] += 1
            continue
        dt = time.perf_counter() - t0
        tally.statuses[resp.status_code] += 1
        if resp.status_code < 300:
            tally.latencies.append(dt)
            if path.startswith("/v1/search"):
                tally.searches += 1
                tally.truncated += bool(resp.json().get("truncated"))
        elif resp.status_code == 503 and honor_retry_after:
            try:
                wait = min(RETRY_AFTER_CAP_S, float(resp.headers.get("retry-after", "1")))
            except ValueError:
                wait = 1.0
            tally.retry_wait_s += wait
            await asyncio.sleep(wait)


def _client(base_url: str, connections: int = 1) -> httpx.AsyncClient:
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    return httpx.AsyncClient(base_url=base_url, limits=limits, timeout=60.0)


async def measure(
    base_url: str, name: str, make: MakeRequest, n_paths: int, duration: float, start: int = 0
) -> Row:
    """One connection, closed loop, for *duration* seconds, requests ``make(start)``, ``make(start
    + 1)``… (modulo *n_paths*): a :class:`Row` without targets (``requests`` says where it ended)."""
    tally = Tally()
    deadline = time.perf_counter() + duration
    async with _client(base_url) as client:
        t0 = time.perf_counter()
        await closed_loop(
            client, lambda i: make(i % n_paths), tally, lambda: time.perf_counter() >= deadline, offset=start
        )
        wall = time.perf_counter() - t0
    ms = sorted(x * 1000 for x in tally.latencies)
    errors = tally.requests - len(ms)
    return Row(
        endpoint=name,
        client="python (asyncio + httpx, same machine)",
        concurrency=1,
        requests=tally.requests,
        errors=errors,
        duration_s=round(wall, 2),
        rps=round(tally.requests / wall, 1) if wall else 0.0,
        p50_ms=round(percentile(ms, 50), 2),
        p90_ms=round(percentile(ms, 90), 2),
        p99_ms=round(percentile(ms, 99), 2),
        max_ms=round(ms[-1], 2) if ms else 0.0,
        targets={},
    )


@contextlib.asynccontextmanager
async def background(
    base_url: str, clients: int, make: MakeRequest, honor_retry_after: bool, ramp: float
) -> Any:
    """*clients* closed-loop clients (one connection each) running *make* until the block ends;
    yields their :class:`Tally` (one for all)."""
    tally = Tally()
    stop = asyncio.Event()
    async with contextlib.AsyncExitStack() as stack:
        conns = [await stack.enter_async_context(_client(base_url)) for _ in range(clients)]

        async def one(j: int, client: httpx.AsyncClient) -> None:
            await asyncio.sleep(ramp * j / max(clients, 1))  # spread the connections over the workers
            await closed_loop(
                client,
                make,
                tally,
                stop.is_set,
                offset=j,
                stride=clients,
                honor_retry_after=honor_retry_after,
            )

        tasks = [asyncio.create_task(one(j, c)) for j, c in enumerate(conns)]
        await asyncio.sleep(ramp + 1.0)  # every heavy client has requests in flight
        try:
            yield tally
        finally:
            stop.set()
            await asyncio.gather(*tasks)


def heavy_summary(tally: Tally, clients: int, what: str) -> dict[str, Any]:
    ms = sorted(x * 1000 for x in tally.latencies)
    return {
        "what": what,
        "clients": clients,
        "requests": tally.requests,
        "statuses": {str(k): v for k, v in sorted(tally.statuses.items())},
        "transport_errors": tally.transport_errors,
        "transport_error_kinds": dict(tally.transport_error_kinds),
        "server_errors_other_than_503": sum(v for k, v in tally.statuses.items() if k >= 500 and k != 503),
        "answered_p50_ms": round(percentile(ms, 50), 1),
        "answered_p99_ms": round(percentile(ms, 99), 1),
        "truncated_share": round(tally.truncated / tally.searches, 3) if tally.searches else None,
        "retry_after_waited_s": round(tally.retry_wait_s, 1),
    }


async def run_phases(
    base: str, args: argparse.Namespace, questions: list[str], term_ids: list[str]
) -> dict[str, Any]:
    searches = [_get("/v1/search", q=q, limit=10) for q in questions]
    terms = [f"/v1/terms/{quote(t)}" for t in term_ids]

    def search(i: int) -> Request:
        return ("GET", searches[i], None)

    def term(i: int) -> Request:
        return ("GET", terms[i], None)

    q_len = MAX_QUERY_CHARS - len("q=")

    def heavy_search(i: int) -> Request:
        return ("GET", _get("/v1/search", q=heavy_text(i, q_len)), None)

    def heavy_chat(i: int) -> Request:
        return ("POST", "/v1/chat", {"message": heavy_text(i, MAX_MESSAGE_CHARS)})

    cheap: list[Request] = [
        ("GET", "/v1/stats", None),
        ("GET", _get("/v1/graph/path", **{"from": term_ids[0], "to": term_ids[-1]}), None),
    ]
    honor = not args.ignore_retry_after
    d = args.duration
    rows: list[Row] = []

    # warm-up: every kind of request once (the encoder's long lane loads its model)
    async with _client(base) as client:
        for method, path, body in [search(0), term(0), heavy_search(10_000), heavy_chat(10_000), *cheap]:
            await client.request(method, path, json=body)

    print("unloaded: normal search, terms…", file=sys.stderr)
    search_alone = await measure(base, "GET /v1/search (normal)", search, len(searches), d)
    search_alone.note = "unloaded"
    terms_alone = await measure(base, "GET /v1/terms/{id}", term, len(terms), d)
    terms_alone.note = "unloaded"
    heavy_alone = await measure(base, "GET /v1/search (maximum size)", heavy_search, 1_000_000, d, 20_000)
    heavy_alone.note = "unloaded: one maximum-size search at a time"
    rows += [search_alone, terms_alone, heavy_alone]

    print(
        f"loaded: {args.heavy_clients} clients sending {MAX_QUERY_CHARS}-character searches…", file=sys.stderr
    )
    async with background(base, args.heavy_clients, heavy_search, honor, args.ramp) as heavy:
        # (the loaded phase goes on where the unloaded one ended: no question is searched twice)
        search_loaded = await measure(
            base, "GET /v1/search (normal)", search, len(searches), d, start=search_alone.requests
        )
        terms_loaded = await measure(base, "GET /v1/terms/{id}", term, len(terms), d)
    search_loaded.targets = {"max_p99_ms": round(SEARCH_P99_FACTOR * search_alone.p99_ms, 2)}
    search_loaded.note = f"while {args.heavy_clients} clients send maximum-size searches"
    terms_loaded.targets = {"max_p99_ms": TERMS_P99_MS}
    terms_loaded.note = search_loaded.note
    rows += [search_loaded.check(), terms_loaded.check()]
    result: dict[str, Any] = {
        "heavy_search": heavy_summary(
            heavy, args.heavy_clients, f"GET /v1/search, q = {q_len} Chinese characters"
        ),
    }

    if args.flood:
        print(
            f"chat flood: {args.flood} clients sending {MAX_MESSAGE_CHARS}-character messages…",
            file=sys.stderr,
        )
        async with background(base, args.flood, heavy_chat, honor, args.ramp) as flood:
            for request in cheap:
                name = f"{request[0]} {request[1].split('?')[0]}"
                row = await measure(base, name, _constant(request), 1, d)
                row.targets = {"max_p99_ms": TERMS_P99_MS}
                row.note = f"while {args.flood} clients send {MAX_MESSAGE_CHARS}-character chat messages"
                rows.append(row.check())
        result["chat_flood"] = heavy_summary(
            flood, args.flood, f"POST /v1/chat, {MAX_MESSAGE_CHARS} Chinese characters"
        )
    print("fault inputs: hostile bodies and odd requests…", file=sys.stderr)
    result["faults"] = await fault_phase(base)
    result["rows"] = rows
    return result


#: Raw request bodies no well-behaved client sends (sent as bytes: Python's JSON encoder would refuse some).
HOSTILE_BODIES: tuple[bytes, ...] = (
    b'{"question": NaN}',
    b'{"question": Infinity}',
    b'{"message": -Infinity}',
    b'{"question": "\\ud800"}',
    b'{"message": "a\\udfff b"}',
    b'{"message": "x", "session_id": "\\ud83d"}',
    b'{"question": ',
    b"\xff\xfe\x00",
    b"[]",
    b'{"question": ""}',
    b'{"question": "' + b"a" * 2000 + b'"}',
    b'{"messages": [{"role": "user", "content": NaN}]}',
    b'{"messages": [{"role": "user", "content": [{"type": "text", "text": "\\udc00"}]}]}',
    b'{"question": {"nested": [1, 2, {"deep": null}]}}',
)
HOSTILE_GETS: tuple[str, ...] = (
    "/v1/search?q=%F0%9F%98%80%00%01",
    "/v1/search?q=" + "%E5%BC%A0" * 3000,
    "/v1/search?q=ttft&offset=-1",
    "/v1/search?q=ttft&offset=99999999999999999999",
    "/v1/search?q=ttft&limit=NaN",
    "/v1/terms/..%2F..%2Fetc%2Fpasswd",
    "/v1/terms/%00",
    "/v1/graph/path?from=a&to=b",
    "/v1/export?format=../../x",
    "/v1/lookup?q=",
    "/v1/terms/",
)


async def fault_phase(base: str) -> dict[str, Any]:
    """Send every hostile input once to every JSON endpoint (and odd GETs, HEADs): count statuses.

    Target: no 5xx but 503 (an overloaded lane) — bad input gets a 4xx in the one error shape.
    """
    statuses: dict[str, int] = {}
    bad: list[str] = []
    sent = 0
    async with _client(base) as client:
        requests: list[tuple[str, str, bytes | None]] = [
            ("POST", path, body)
            for path in ("/v1/ask", "/v1/chat", "/v1/chat/completions")
            for body in HOSTILE_BODIES
        ]
        requests += [(m, path, None) for path in HOSTILE_GETS for m in ("GET", "HEAD")]
        for method, path, body in requests:
            headers = {"content-type": "application/json"} if body is not None else {}
            try:
                r = await client.request(method, path, content=body, headers=headers)
                code = str(r.status_code)
            except httpx.HTTPError as exc:
                code = type(exc).__name__
            sent += 1
            statuses[code] = statuses.get(code, 0) + 1
            if not code.isdigit() or (code.startswith("5") and code != "503"):
                bad.append(f"{method} {path[:60]} {(body or b'')[:40]!r} -> {code}")
    return {
        "inputs_tried": sent,
        "statuses": statuses,
        "server_errors_other_than_503": len(bad),
        "failures": bad,
    }


def _constant(request: Request) -> MakeRequest:
    return lambda i: request


def _term_ids(base: str) -> list[str]:
    with httpx.Client(base_url=base, timeout=30.0) as client:
        ids: list[str] = []
        while True:
            page = client.get("/v1/terms", params={"limit": 200, "offset": len(ids)}).json()
            ids += [t["id"] for t in page["items"]]
            if len(ids) >= page["total"] or not page["items"]:
                return ids


def parse_args(argv: Sequence[str] | None, prog: str) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    p.add_argument("--base-url", help="Load a server already running on loopback (default: start one).")
    p.add_argument(
        "--artifact", type=Path, help="Artifact for the server it starts (default: glossary serve's)."
    )
    p.add_argument(
        "--workers", type=int, default=None, help="Workers of the server it starts (default: serve's)."
    )
    p.add_argument("--duration", type=float, default=10.0, help="Seconds per measurement (≤ 120).")
    p.add_argument(
        "--heavy-clients", type=int, default=4, help="Clients sending maximum-size searches (1-64)."
    )
    p.add_argument(
        "--flood",
        type=int,
        default=100,
        help="Clients sending long chat messages (0-256; 0: skip); the default is more than AnyIO's "
        "40 threads per worker for the default 2 workers.",
    )
    p.add_argument("--ramp", type=float, default=1.0, help="Seconds over which background clients start.")
    p.add_argument(
        "--ignore-retry-after",
        action="store_true",
        help="Background clients send their next request at once after a 503.",
    )
    p.add_argument(
        "--queries",
        type=Path,
        nargs="+",
        default=list(DEFAULT_QUERIES),
        help="JSON lines of normal questions (`query`, `question` or `turns[].user` fields).",
    )
    p.add_argument("--out", type=Path, help="Write the JSON result here (e.g. docs/bench/heavy.json).")
    args = p.parse_args(argv)
    if (
        not 0 < args.duration <= 120
        or not 1 <= args.heavy_clients <= 64
        or not 0 <= args.flood <= 256
        or not 0 <= args.ramp <= 10
    ):
        p.error("bounds: 0 < --duration ≤ 120, 1 ≤ --heavy-clients ≤ 64, 0 ≤ --flood ≤ 256, 0 ≤ --ramp ≤ 10")
    return args


def main(argv: Sequence[str] | None = None, prog: str = "python -m kg.bench.heavy_load") -> dict[str, Any]:
    """Run the benchmark; print the table; write ``--out``; return the result."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    args = parse_args(argv, prog)
    load_before = os.getloadavg()
    workers, _ = serve_settings(args)
    with contextlib.ExitStack() as stack:
        server: dict[str, Any]
        base, startup = target_server(args, stack)
        if startup is None:
            server = {"started_by_benchmark": False, "base_url": base}
        else:
            server = {"started_by_benchmark": True, "workers": workers, "time_to_ready_s": round(startup, 2)}
        ready = httpx.get(base + "/readyz", timeout=10).json()
        server.update(terms=ready.get("terms"), search=ready.get("search"))
        phases = _run_async(run_phases(base, args, normal_questions(args.queries), _term_ids(base)))
    rows: list[Row] = phases.pop("rows")
    met = [r.meets_targets for r in rows if r.meets_targets is not None]
    result: dict[str, Any] = {
        "command": f"{prog} " + " ".join(sys.argv[1:] if argv is None else argv),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "loadavg_before": [round(x, 2) for x in load_before],
            "loadavg_after": [round(x, 2) for x in os.getloadavg()],
        },
        "settings": {
            "duration_s": args.duration,
            "heavy_clients": args.heavy_clients,
            "flood": args.flood,
            "honor_retry_after": not args.ignore_retry_after,
        },
        "server": server,
        "targets": {
            "search_p99": f"loaded ≤ {SEARCH_P99_FACTOR:g} × unloaded",
            "terms_p99_ms": TERMS_P99_MS,
            "cheap_routes_p99_ms_during_flood": TERMS_P99_MS,
        },
        "all_targets_met": (all(met) if met else None)
        if phases.get("faults", {}).get("server_errors_other_than_503", 0) == 0
        else False,
        "notes": [
            "client and server share the machine's cores; one connection per measured endpoint",
            "closed loop: each connection sends its next request when the last one is answered",
        ],
        "results": [asdict(r) for r in rows],
        **phases,
    }
    print(render_table(rows))
    for key in ("heavy_search", "chat_flood"):
        if key in result:
            h = result[key]
            print(
                f"{key}: {h['clients']} clients, {h['requests']} requests, statuses {h['statuses']}, "
                f"answered p50 {h['answered_p50_ms']} ms / p99 {h['answered_p99_ms']} ms, "
                f"truncated share {h['truncated_share']}"
            )
    if "faults" in result:
        f = result["faults"]
        print(
            f"fault inputs: {f['inputs_tried']} tried, statuses {f['statuses']}, 5xx other than 503: "
            f"{f['server_errors_other_than_503']}"
        )
    print(f"all targets met: {result['all_targets_met']}")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return result


if __name__ == "__main__":
    main()
