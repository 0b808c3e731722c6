"""Render the benchmark JSON files (``docs/bench/*.json``) as sections of docs/BENCHMARKS.md.

Each ``glossary bench-*`` command writes its raw measurements as JSON; ``glossary bench-report``
turns them into tables with :func:`kg.docsections.replace_section`, so no figure is typed by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kg.docsections import replace_section


def _fmt(v: Any, nd: int = 1) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:,.{nd}f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def render_search(d: dict[str, Any]) -> str:
    """Search latency, build time, index size and RSS per corpus, plus the targets."""
    lines = [
        "## Search speed and scale",
        "",
        f"Command: `{d['command']}` (started {d.get('started_at', '?')}, {d.get('duration_s', '?')} s; "
        f"machine load during the run: {json.dumps(d.get('machine_load', {}))}).",
        "",
        "| corpus | terms | passages | vectors | index | build s | embeddings s | index MB | "
        "search p50 ms | search p99 ms | dense stage p50 ms | labels stage p50 ms | peak RSS MB |",
        "|---|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in d["summary"]:
        lines.append(
            f"| {s['corpus']} | {_fmt(s['terms'])} | {_fmt(s['passages'])} | {s['vectors']} | {s['index_kind']} | "
            f"{_fmt(s['build_s'])} | {_fmt(s['embeddings_s'])} | {_fmt(s['index_mb'])} | {_fmt(s['search_p50_ms'])} | "
            f"{_fmt(s['search_p99_ms'])} | {_fmt(s['dense_stage_p50_ms'])} | {_fmt(s['labels_stage_p50_ms'])} | "
            f"{_fmt(s['peak_rss_mb'])} |"
        )
    projected = [s for s in d["summary"] if s.get("embeddings_projected_full_encode_s")]
    if projected:
        lines += [
            "",
            "Synthetic passage vectors are composed from real encodings (see `method` in the JSON); "
            "encoding every synthetic passage for real would take, projected from the measured "
            "throughput: "
            + ", ".join(
                f"{s['corpus']} {_fmt(s['embeddings_projected_full_encode_s'], 0)} s" for s in projected
            )
            + ".",
        ]
    lines += ["", "### Targets", "", "| target | limit | measured | status |", "|---|---:|---:|---|"]
    for t in d["targets"]:
        lines.append(
            f"| {t['target']} | {_fmt(t['limit'])} {t['unit']} | {_fmt(t['value'])} {t['unit']} | {t['status']} |"
        )
    lines += ["", "Raw output: [bench/search.json](bench/search.json)."]
    return "\n".join(lines)


def render_http(d: dict[str, Any]) -> str:
    """Requests/s and latency per endpoint and client, and the txtai serving comparison."""
    lines = [
        "## HTTP load (loopback)",
        "",
        f"Command: `{d['command']}`. Server: {json.dumps(d.get('server', {}), ensure_ascii=False)}.",
        "",
        *[f"- {n}" for n in d.get("notes", [])],
        "",
        "| endpoint | client | connections | req/s | p50 ms | p99 ms | errors | targets | met |",
        "|---|---|---:|---:|---:|---:|---:|---|---|",
    ]
    rows = list(d["results"]) + list((d.get("txtai") or {}).get("results", []))
    for r in rows:
        targets = ", ".join(f"{k}={v}" for k, v in (r.get("targets") or {}).items()) or "–"
        met = {True: "yes", False: "no", None: "–"}[r.get("meets_targets")]
        lines.append(
            f"| {r['endpoint']} | {r['client']} | {r['concurrency']} | {_fmt(r['rps'])} | {_fmt(r['p50_ms'])} | "
            f"{_fmt(r['p99_ms'])} | {r['errors']} | {targets} | {met} |"
        )
    if d.get("txtai"):
        lines += ["", f"txtai: {d['txtai'].get('server', '')}; {d['txtai'].get('what', '')}."]
    lines += ["", "Raw output: [bench/http.json](bench/http.json)."]
    return "\n".join(lines)


def render_sse(d: dict[str, Any]) -> str:
    """Time to the first streamed chat event."""
    return "\n".join(
        [
            "## Chat streaming (first event over HTTP)",
            "",
            f"Command: `{d['command']}` — {d['server']}, {d['endpoint']}, one request at a time, "
            f"first user turn of each conversation in `{d['questions']}`.",
            "",
            "| requests | errors | first event p50 ms | p95 ms | max ms | full stream p50 ms | p95 ms | target | status |",
            "|---:|---:|---:|---:|---:|---:|---:|---|---|",
            f"| {d['requests']} | {d['errors']} | {_fmt(d['first_event_p50_ms'])} | {_fmt(d['first_event_p95_ms'])} | "
            f"{_fmt(d['first_event_max_ms'])} | {_fmt(d['full_stream_p50_ms'])} | {_fmt(d['full_stream_p95_ms'])} | "
            f"p95 <= {d['target_first_event_ms']} ms | {d['status']} |",
            "",
            "Raw output: [bench/sse.json](bench/sse.json).",
        ]
    )


def render_heavy(d: dict[str, Any]) -> str:
    """Normal traffic while heavy requests (maximum-size queries, chat floods) run (issue 10)."""
    lines = [
        "## Heavy requests against normal traffic",
        "",
        f"Command: `{d['command']}` — glossary serve, {d['server']['workers']} workers, "
        f"{d['settings']['heavy_clients']} clients sending maximum-size searches, then a flood of "
        f"{d['settings']['flood']} clients sending 1,000-character chat messages; "
        f"load average before {d['machine']['loadavg_before'][0]}.",
        "",
        "| endpoint | condition | requests | errors | p50 ms | p99 ms | meets target |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for r in d["results"]:
        met = "–" if r.get("meets_targets") is None else ("yes" if r["meets_targets"] else "NO")
        lines.append(
            f"| {r['endpoint']} | {r.get('note', '')} | {r['requests']} | {r['errors']} | "
            f"{_fmt(r['p50_ms'])} | {_fmt(r['p99_ms'])} | {met} |"
        )
    lines += [
        "",
        "| heavy load | requests | statuses | 5xx other than 503 | answered p50 ms | answered p99 ms |",
    ]
    lines += ["|---|---:|---|---:|---:|---:|"]
    for key in ("heavy_search", "chat_flood"):
        h = d.get(key)
        if h:
            statuses = ", ".join(f"{k}: {v}" for k, v in sorted(h["statuses"].items()))
            lines.append(
                f"| {h['what']} ({h['clients']} clients) | {h['requests']} | {statuses} | "
                f"{h['server_errors_other_than_503']} | {_fmt(h['answered_p50_ms'])} | {_fmt(h['answered_p99_ms'])} |"
            )
    faults = d.get("faults")
    if faults:
        statuses = ", ".join(f"{k}: {v}" for k, v in sorted(faults["statuses"].items()))
        lines += [
            "",
            f"Fault inputs (NaN / Infinity / lone surrogates / truncated and non-UTF-8 JSON in every chat "
            f"body, odd GETs and HEADs): **{faults['inputs_tried']} tried**, statuses {statuses}; "
            f"5xx other than 503: **{faults['server_errors_other_than_503']}** (target 0).",
        ]
    targets = "; ".join(f"{k}: {v}" for k, v in d["targets"].items())
    lines += ["", f"Targets: {targets}. All met: **{'yes' if d['all_targets_met'] else 'NO'}**."]
    lines += ["", "Raw output: [bench/heavy.json](bench/heavy.json)."]
    return "\n".join(lines)


def render_annotate(d: dict[str, Any]) -> str:
    """Annotation speed over one large Markdown page (issue 12)."""
    m = d["machine"]
    return "\n".join(
        [
            "## Term annotation speed",
            "",
            f"Command: `{d['command']}` — one Markdown page of {_fmt(d['page_bytes'])} bytes built from the "
            f"glossary's own definitions (headings, lists, tables, links, code blocks; "
            f"{_fmt(d['mentions'])} mentions found), annotated {d['runs']} times with the default options, "
            "the jieba cache cleared before each run; Python "
            f"{m['python']}, {m['cpus']} CPUs, load average before {m['loadavg_1m_before']}.",
            "",
            "| page bytes | mentions | median s | min s | max s | CPU median s | s per MB | annotator build s | target | status |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---|---|",
            f"| {_fmt(d['page_bytes'])} | {_fmt(d['mentions'])} | {d['median_s']} | {d['min_s']} | {d['max_s']} "
            f"| {d.get('cpu_median_s', '–')} "
            f"| {d['seconds_per_mb']} | {d['annotator_build_s']} | ≤ {d['target_s_per_mb']} s per MB | {d['status']} |",
            "",
            "Raw output: [bench/annotate.json](bench/annotate.json).",
        ]
    )


def write_report(bench_dir: Path, doc: Path) -> list[str]:
    """Render every known JSON in *bench_dir* into *doc*; return the sections written."""
    written = []
    renderers = (
        ("search", render_search),
        ("http", render_http),
        ("sse", render_sse),
        ("heavy", render_heavy),
        ("annotate", render_annotate),
    )
    for name, render in renderers:
        path = bench_dir / f"{name}.json"
        if path.exists():
            replace_section(
                doc, name, render(json.loads(path.read_text(encoding="utf-8"))), title="Benchmarks"
            )
            written.append(name)
    heavy = bench_dir / "heavy.json"
    reliability = doc.parent / "RELIABILITY.md"
    if heavy.exists() and reliability.exists():
        # the fault-and-load figures also stand in docs/RELIABILITY.md, beside the guarantees
        text = render_heavy(json.loads(heavy.read_text(encoding="utf-8")))
        replace_section(
            reliability, "heavy", text.replace("## Heavy requests", "## Measured: heavy requests", 1)
        )
        written.append("heavy (RELIABILITY.md)")
    return written
