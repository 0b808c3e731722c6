"""Several replicas behind nginx against one process: ``glossary bench-http --replicas 2``.

Starts :class:`kg.deploy.local.LocalDeployment` (redis-server, *N* ``glossary serve`` replicas,
nginx, all on loopback) and measures, in the same run:

- **throughput**: the same closed-loop load (``--concurrency`` keep-alive connections, the
  ``bench-http`` workload's term pages and searches) against one replica directly — one
  process — and through nginx to all *N*, alternating the order each round (``--rounds``);
  medians per target and their ratio, errors of every run. ``wrk`` when installed, else the
  Python client. Which replica answered each request through nginx comes from nginx's access
  log (``upstream=``);
- **conversations**: the multi-turn conversations of ``tests/data/chat_eval.jsonl``, each turn
  a new request through nginx (round robin: consecutive turns land on different replicas).
  Every turn's ``X-Glossary-Replica`` is counted, and so are ``session_reset`` answers (target
  0); a follow-up *keeps its context* when it continues the same session and its answer and
  terms are those the same conversation gets from one process alone.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import platform
import re
import statistics
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import httpx

from kg.bench.http_load import Endpoint, Row, run_python, run_wrk, workload, wrk_path
from kg.deploy.local import REPLICA_HEADER, LocalDeployment

DEFAULT_OUT = Path("docs/bench/replicas.json")
DEFAULT_CONVERSATIONS = Path("tests/data/chat_eval.jsonl")
LOADED = ("GET /v1/terms/{id}", "GET /v1/search")


def _log(message: str) -> None:
    print(message, file=sys.stderr)


def conversations(path: Path) -> list[dict[str, Any]]:
    """The conversations of more than one turn (``{"id", "turns": [{"user": …}, …]}``)."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if len(r.get("turns", [])) > 1]


def converse(base_url: str, convs: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Each conversation's turns sent to *base_url* in order (one keep-alive client): what
    answered each, and what it answered."""
    out = []
    with httpx.Client(base_url=base_url, timeout=60.0) as client:
        for conv in convs:
            sid: str | None = None
            turns = []
            for turn in conv["turns"]:
                body: dict[str, Any] = {"message": turn["user"]}
                if sid is not None:
                    body["session_id"] = sid
                r = client.post("/v1/chat", json=body)
                rec: dict[str, Any] = {"status": r.status_code, "replica": r.headers.get(REPLICA_HEADER)}
                if r.status_code == 200:
                    data = r.json()
                    rec.update(
                        session_id=data["session_id"],
                        continued=sid is not None and data["session_id"] == sid,
                        session_reset=bool(data["session_reset"]),
                        terms=data["terms"],
                        answer=data["answer"],
                    )
                    sid = data["session_id"]
                turns.append(rec)
            out.append(turns)
    return out


def score_conversations(
    convs: list[dict[str, Any]], alone: list[list[dict[str, Any]]], through: list[list[dict[str, Any]]]
) -> dict[str, Any]:
    """Turns per replica, replica switches, session resets and follow-ups that kept their context."""
    per_replica: collections.Counter[str] = collections.Counter()
    follow_ups = kept = resets = switches = errors = 0
    lost: list[dict[str, Any]] = []
    for conv, ref, got in zip(convs, alone, through, strict=True):
        for i, (a, b) in enumerate(zip(ref, got, strict=True)):
            per_replica[b["replica"] or "?"] += 1
            errors += b["status"] != 200
            resets += bool(b.get("session_reset"))
            if i == 0:
                continue
            follow_ups += 1
            switches += b["replica"] != got[i - 1]["replica"]
            same = b.get("continued") and not b.get("session_reset")
            same = same and (b.get("terms"), b.get("answer")) == (a.get("terms"), a.get("answer"))
            kept += bool(same)
            if not same and len(lost) < 5:
                lost.append({"conversation": conv["id"], "turn": i + 1, "replica": b["replica"]})
    return {
        "conversations": len(convs),
        "turns": sum(len(t) for t in through),
        "turns_per_replica": dict(sorted(per_replica.items())),
        "follow_ups": follow_ups,
        "follow_ups_on_another_replica": switches,
        "follow_ups_kept_context": kept,
        "session_resets": resets,
        "errors": errors,
        "lost_examples": lost,
    }


def drain(replica_urls: list[str]) -> None:
    """Wait until every replica has finished the requests of a run whose client went away.

    When wrk stops, the searches its connections had sent stay in the replica's search lane
    (queued work is not cancelled), and they would take the next run's queue slots: 503
    ``overloaded`` that no client of that run caused. The lane is first come, first served, so
    one search answered means everything queued before it is done."""
    for url in replica_urls:
        httpx.get(url + "/v1/search", params={"q": "drain", "limit": 1}, timeout=120.0)


def _measure(
    base: str, ep: Endpoint, args: argparse.Namespace, use_wrk: bool, replica_urls: list[str]
) -> Row:
    """Warm up, drain, measure, drain (see :func:`drain`)."""
    run = run_wrk if use_wrk else run_python
    if args.warmup > 0:
        run(base, ep, args.warmup, args.concurrency, 0.0)
        drain(replica_urls)
    row = run(base, ep, args.duration, args.concurrency, 0.0)
    drain(replica_urls)
    return row


def upstream_counts(access_log: Path, upstreams: dict[str, str]) -> dict[str, int]:
    """Requests per replica name in nginx's access log (its ``upstream=`` field; a request
    retried on another replica lists both)."""
    counts: collections.Counter[str] = collections.Counter()
    pattern = re.compile(r"upstream=(\S+(?:, \S+)*)")
    try:
        text = access_log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    for m in pattern.finditer(text):
        for addr in m.group(1).split(", "):
            counts[upstreams.get(addr.strip(), addr.strip())] += 1
    return dict(sorted(counts.items()))


def run(args: argparse.Namespace, prog: str, argv: list[str]) -> dict[str, Any]:
    """The benchmark (see the module docstring); returns the result written to ``--out``."""
    from kg.bench.http_load import serve_settings

    _workers, artifact = serve_settings(args)
    workers = args.workers or 1
    use_wrk = args.wrk == "auto" and wrk_path() is not None
    client = "wrk (1 thread, same machine)" if use_wrk else "python (asyncio + httpx, same machine)"
    convs = conversations(args.conversations)
    load_before = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M:%S")
    t_start = time.perf_counter()
    deployment = LocalDeployment(
        artifact,
        replicas=args.replicas,
        workers=workers,
        log=_log,
        command=f"{prog} --replicas {args.replicas}",
    )
    with deployment as d:
        one = d.replicas[0]
        endpoints = [e for e in workload(d.url, args.queries) if e.name in LOADED]
        rows: list[dict[str, Any]] = []
        for rnd in range(args.rounds):
            order = [("one process", one.url), (f"nginx, {args.replicas} replicas", d.url)]
            drained = {one.url: [one.url], d.url: [r.url for r in d.replicas]}
            if rnd % 2:
                order.reverse()  # drift on a shared machine must not favour one side
            for ep in endpoints:
                for target, base in order:
                    _log(f"round {rnd + 1}/{args.rounds}: {ep.name} against {target} ({client.split()[0]})…")
                    row = _measure(base, ep, args, use_wrk, drained[base])
                    rows.append({"round": rnd + 1, "target": target, **asdict(row)})
        time.sleep(1.5)  # nginx flushes its access log every second
        per_replica_load = upstream_counts(
            d.run_dir / "logs" / "access.log", {r.address: r.name for r in d.replicas}
        )
        _log(f"{len(convs)} conversations against one process, then through nginx…")
        alone = converse(one.url, convs)
        through = converse(d.url, convs)
        chat = score_conversations(convs, alone, through)
        replicas = [{"name": r.name, "address": r.address} for r in d.replicas]
    summary = []
    for ep in endpoints:
        med: dict[str, dict[str, Any]] = {}
        for target in {r["target"] for r in rows}:
            mine = [r for r in rows if r["endpoint"] == ep.name and r["target"] == target]
            med[target] = {
                "rps_median": round(statistics.median(r["rps"] for r in mine), 1),
                "p50_ms_median": round(statistics.median(r["p50_ms"] for r in mine), 2),
                "p99_ms_median": round(statistics.median(r["p99_ms"] for r in mine), 2),
                "errors": sum(r["errors"] for r in mine),
                "rps_runs": [r["rps"] for r in mine],
            }
        (one_key,) = [k for k in med if k == "one process"]
        (many_key,) = [k for k in med if k != "one process"]
        ratio = (
            med[many_key]["rps_median"] / med[one_key]["rps_median"] if med[one_key]["rps_median"] else None
        )
        summary.append(
            {
                "endpoint": ep.name,
                "one_process": med[one_key],
                "through_nginx": med[many_key],
                "ratio_rps": round(ratio, 2) if ratio is not None else None,
            }
        )
    errors = sum(r["errors"] for r in rows) + chat["errors"]
    targets = [
        {
            "target": "errors (load and conversations)",
            "limit": 0,
            "value": errors,
            "status": _met(errors == 0),
        },
        {
            "target": "session resets",
            "limit": 0,
            "value": chat["session_resets"],
            "status": _met(chat["session_resets"] == 0),
        },
        {
            "target": "follow-ups that kept their context",
            "limit": chat["follow_ups"],
            "value": chat["follow_ups_kept_context"],
            "status": _met(chat["follow_ups_kept_context"] == chat["follow_ups"]),
        },
        {
            "target": "follow-ups answered by another replica than the turn before",
            "limit": "> 0",
            "value": chat["follow_ups_on_another_replica"],
            "status": _met(chat["follow_ups_on_another_replica"] > 0),
        },
    ]
    return {
        "command": f"{prog} " + " ".join(argv),
        "started_at": started,
        "duration_s": round(time.perf_counter() - t_start, 1),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "loadavg_before": [round(x, 2) for x in load_before],
            "loadavg_after": [round(x, 2) for x in os.getloadavg()],
        },
        "settings": {
            "replicas": args.replicas,
            "workers_per_replica": workers,
            "rounds": args.rounds,
            "duration_s": args.duration,
            "warmup_s": args.warmup,
            "concurrency": args.concurrency,
            "client": client,
            "artifact": str(artifact),
            "sessions": "redis-server on loopback, no persistence (started by the benchmark)",
        },
        "replicas": replicas,
        "notes": [
            "one process: the same load sent straight to replica r1 (the other replicas idle); through "
            "nginx: round robin over every replica",
            "client, nginx and replicas share the machine's cores",
            "searches cycle through the questions of the bench-http workload; each replica keeps the query "
            "vectors of recent queries, as in bench-http",
            "after each warm-up and each run, every replica finishes the searches left by the client that "
            "went away before the next run starts (a search answered on each: the lane is first come, first served)",
        ],
        "summary": summary,
        "requests_per_replica_through_nginx": per_replica_load,
        "conversations": chat,
        "targets": targets,
        "runs": rows,
    }


def _met(ok: bool) -> str:
    return "met" if ok else "not met"
