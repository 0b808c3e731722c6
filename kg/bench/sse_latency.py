"""Time to the first streamed event of ``POST /v1/chat`` over HTTP on loopback.

Starts ``glossary serve`` (one worker) on 127.0.0.1, replays the first user turn of every
conversation in the chat evaluation set one request at a time (streaming), and records the
time from sending the request to receiving the first complete SSE event, and to the last.
Bounded: one request per question, each with a timeout. Target: first event <= 100 ms.
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path
from typing import Any

import httpx

from kg.bench.http_load import free_port, percentile, running, serve_command

TARGET_FIRST_EVENT_MS = 100.0


def _questions(path: Path) -> list[str]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            out.append(json.loads(line)["turns"][0]["user"])
    return out


def measure(base_url: str, questions: list[str], timeout: float = 10.0) -> dict[str, Any]:
    """First-event and full-stream latency (ms) of one streamed chat request per question."""
    first, full, errors = [], [], 0
    with httpx.Client(base_url=base_url, timeout=timeout) as client:
        for q in [questions[0], *questions]:  # the first request is a warm-up, not timed
            t0 = time.perf_counter()
            got_first = None
            try:
                with client.stream("POST", "/v1/chat", json={"message": q, "stream": True}) as resp:
                    if resp.status_code != 200:
                        errors += 1
                        continue
                    for line in resp.iter_lines():
                        if got_first is None and line.startswith("data:"):
                            got_first = time.perf_counter()
            except httpx.HTTPError:
                errors += 1
                continue
            if got_first is None:
                errors += 1
                continue
            first.append((got_first - t0) * 1000.0)
            full.append((time.perf_counter() - t0) * 1000.0)
    first, full = first[1:], full[1:]
    fs, ls = sorted(first), sorted(full)
    return {
        "requests": len(first),
        "errors": errors,
        "first_event_p50_ms": round(statistics.median(fs), 2) if fs else None,
        "first_event_p95_ms": round(percentile(fs, 95), 2) if fs else None,
        "first_event_max_ms": round(fs[-1], 2) if fs else None,
        "full_stream_p50_ms": round(statistics.median(ls), 2) if ls else None,
        "full_stream_p95_ms": round(percentile(ls, 95), 2) if ls else None,
    }


def run(data: Path, artifact: Path | None, out: Path | None, command: str) -> dict[str, Any]:
    """Start a server, measure, stop it; write JSON to *out* when given."""
    port = free_port()
    with running(serve_command(port, 1, artifact), f"http://127.0.0.1:{port}/readyz"):
        res = measure(f"http://127.0.0.1:{port}", _questions(data))
    res.update(
        {
            "command": command,
            "endpoint": "POST /v1/chat (stream)",
            "server": "glossary serve, 1 worker, 127.0.0.1",
            "questions": str(data),
            "target_first_event_ms": TARGET_FIRST_EVENT_MS,
            "status": "PASS"
            if res["first_event_p95_ms"] is not None and res["first_event_p95_ms"] <= TARGET_FIRST_EVENT_MS
            else "FAIL",
        }
    )
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    return res
