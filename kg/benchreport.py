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


def render_rebuild(d: dict[str, Any]) -> str:
    """Rebuild after one edited entry against a full build (``glossary bench-rebuild``)."""
    r, full = d["rebuild"], d["full_build"]
    ft = full["timings"]
    lines = [
        "## Incremental rebuild (one edited entry)",
        "",
        f"Command: `{d['command']}` (started {d['started_at']}, {d['duration_s']} s; {d['machine']['cpus']} CPUs, "
        f"load average before {d['machine']['loadavg_before'][0]}). Corpus: the bundled one copied to a "
        f"temporary directory ({_fmt(d['terms'])} terms, {_fmt(d['passages'])} passages), encoder "
        f"`{d['encoder']}`, empty caches of its own. Each rebuild follows an edit of one definition line.",
        "",
        "| build | runs | median s | graph s | indexes s | refusal model s | write s | texts encoded |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
        f"| full build, cold caches | 1 | {_fmt(ft['total_s'], 2)} | {_fmt(ft['graph_s'], 2)} | "
        f"{_fmt(ft['index_s'], 2)} | {_fmt(ft['refusal_s'], 2)} | {_fmt(ft['write_s'], 2)} | {_fmt(full['encoded'])} |",
        f"| rebuild after an edit (`--watch`, published) | {r['runs']} | **{_fmt(r['median_s'], 2)}** | "
        f"{_fmt(r['graph_median_s'], 2)} | {_fmt(r['index_median_s'], 2)} | {_fmt(r['refusal_median_s'], 2)} "
        f"(carried) | {_fmt(r['write_median_s'], 2)} | {_fmt(r['encoded_median'])} |",
        f"| then: refusal model refit, published (`--watch`) | {len(d['refits'])} | {_fmt(d['refit_median_s'], 2)} "
        "| – | – | (all) | – | 0 |",
        f"| `glossary build` after an edit (new process) | {len(d['cli_rebuilds'])} | "
        f"{_fmt(d['cli_rebuild_median_s'], 2)} | – | – | – | – | – |",
    ]
    agreement = d.get("refusal_agreement")
    if agreement:
        lines += [
            "",
            f"Between a rebuild and its refit the artifact carries the refusal model of the version before "
            f"the edit. On the model's {_fmt(agreement['questions'])} training questions, with the edited "
            f"graph's features, it takes the same answer/refuse decision as the refit model for "
            f"**{agreement['same_decision'] * 100:.2f} %** of them (answered: {agreement['answered_by_carried']} "
            f"vs {agreement['answered_by_refit']}).",
        ]
    lines += ["", "| target | limit | measured | status |", "|---|---:|---:|---|"]
    for t in d["targets"]:
        lines.append(
            f"| {t['target']} | {_fmt(t['limit'])} {t['unit']} | {_fmt(t['value'], 2)} {t['unit']} | {t['status']} |"
        )
    lines += ["", "Raw output: [bench/rebuild.json](bench/rebuild.json)."]
    return "\n".join(lines)


def render_reload(d: dict[str, Any]) -> str:
    """Reload under load (``glossary bench-reload``): failures and latency per window."""
    st = d["settings"]
    lines = [
        "## Reload under load",
        "",
        f"Command: `{d['command']}` (started {d['started_at']}; {d['machine']['cpus']} CPUs, load average before "
        f"{d['machine']['loadavg_before'][0]}). `glossary serve` with {st['workers']} workers and encoder "
        f"`{st['encoder']}` on loopback, {st['concurrency']} connections cycling through the `bench-http` "
        f"workload (term pages, lookups, suggestions, searches) for {d['duration_s']} s; {st['reloads']} times "
        "a definition is edited and rebuilt beside the server (build), then `POST /admin/reload` swaps it in "
        "(swap: from the request until every worker serves the new version, plus 0.5 s).",
        "",
        "| window | requests | failed | p50 ms | p99 ms | p99 term/lookup/suggest ms | p99 search ms | max ms |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for key, label in (
        ("steady", "steady (no build, no swap)"),
        ("during_build", "during a rebuild"),
        ("during_swap", "**during a swap**"),
        ("all", "all"),
    ):
        w = d[key]
        lines.append(
            f"| {label} | {_fmt(w['requests'])} | {_fmt(w['failed'])} | {_fmt(w['p50_ms'], 2)} | "
            f"{_fmt(w['p99_ms'], 2)} | {_fmt(w.get('p99_other_ms'), 2)} | {_fmt(w.get('p99_search_ms'), 2)} | "
            f"{_fmt(w['max_ms'], 2)} |"
        )
    rss = d["worker_rss_mb"]

    def mb(point: dict[str, Any]) -> str:
        return " / ".join(f"{v:.0f}" for v in point.values() if v is not None) + " MB"

    per_reload = "; ".join(mb(c["worker_rss_mb"]) for c in d["cycles"] if c.get("worker_rss_mb"))
    lines += [
        "",
        f"Swap (admin request until every worker serves the new version): "
        f"{', '.join(f'{x:.2f}' for x in d['swap_s'])} s; rebuild: {', '.join(f'{x:.2f}' for x in d['build_s'])} s. "
        f"Requests sent after a reload answered that the old version served: "
        f"**{d['old_version_after_reload_answered']}**. Worker RSS (one figure per worker): at start "
        f"{mb(rss['started'])}, after the warm-up load {mb(rss['after_warm_up'])}, after each reload {per_reload}; "
        f"at the end {mb(rss['after_run'])}.",
        "",
        "| target | limit | measured | status |",
        "|---|---:|---:|---|",
    ]
    for t in d["targets"]:
        lines.append(f"| {t['target']} | {t['limit']} | {t['value']} | {t['status']} |")
    lines += ["", "Raw output: [bench/reload.json](bench/reload.json)."]
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


def _structure_rows(res: dict[str, Any]) -> dict[str, tuple[float, float | None]]:
    """step -> (RSS delta MB, retained Python MB) of one profiled size."""
    prof = res["profile"]
    kept = {r["structure"]: r["python_mb"] for r in prof.get("retained", [])}
    return {s["step"]: (s["rss_delta_mb"], kept.get(s["step"])) for s in prof["steps"]}


def render_memory(d: dict[str, Any]) -> str:
    """Per-replica memory (``glossary bench-memory``): per structure, then build/RSS/latency per size."""
    from kg.bench.memory_bench import STEP_LABELS

    lines = [
        "## Memory per replica",
        "",
        f"Command: `{d['command']}` (started {d.get('started_at', '?')}, {d.get('duration_s', '?')} s; "
        f"machine load: {json.dumps(d.get('machine_load', {}))}). Synthetic corpora of `kg/bench/synthetic.py`; "
        "each size is built, profiled and probed in fresh processes (`kg/bench/memory_bench.py`).",
        "",
        "### Where the memory goes",
        "",
        "RSS delta: resident memory added while the structure was loaded, in load order (allocator "
        "slack and transient garbage included). Kept: bytes of the Python objects it retains "
        "afterwards (each object counted once); FAISS and the encoder live outside Python.",
        "",
    ]
    columns: list[tuple[str, dict[str, Any]]] = []
    base = d.get("baseline")

    def title(r: dict[str, Any]) -> str:
        return f"{r['size']:,} terms" + (f" {r['quantize']}" if r.get("quantize") else "")

    if base:
        columns += [(f"before: {title(r)}", r) for r in base["results"]]
    columns += [(title(r), r) for r in d["results"]]
    head = "| structure | " + " | ".join(f"{c} RSS delta MB | {c} kept MB" for c, _ in columns) + " |"
    lines += [head, "|---|" + "---:|---:|" * len(columns)]
    tables = [_structure_rows(r) for _, r in columns]
    for step, label in STEP_LABELS.items():
        if not any(step in t for t in tables):
            continue
        cells = []
        for t in tables:
            delta, kept = t.get(step, (None, None))
            cells += [_fmt(delta), _fmt(kept)]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    peaks = []
    for _, r in columns:
        first = r["profile"]["after_first_query_mb"]
        peaks += [_fmt(first.get("hwm", first.get("ru_maxrss"))), "–"]
    lines.append("| **peak RSS after the first query** | " + " | ".join(peaks) + " |")
    if base:
        lines += [
            "",
            f"Before: `{base['command']}` at commit {base.get('commit', '?')}.",
        ]
    lines += [
        "",
        "### Build, memory and latency by size",
        "",
        "| terms | passages | vectors | index | build s | build peak RSS MB | artifact MB | RSS loaded MB | "
        "peak RSS MB | anon MB | file-backed MB | PSS MB | RSS after all queries MB | load s | "
        "search p50 ms | search p99 ms |",
        "|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in d["summary"]:
        lines.append(
            f"| {_fmt(s['terms'])} | {_fmt(s['passages'])} | {s['vectors']} ({s.get('storage', 'float32')}) | {s['index_kind']} | {_fmt(s['build_s'])} | "
            f"{_fmt(s['build_peak_rss_mb'])} | {_fmt(s['artifact_mb'])} | {_fmt(s['loaded_rss_mb'])} | "
            f"{_fmt(s['peak_rss_mb'])} | {_fmt(s['anon_mb'])} | {_fmt(s['file_mb'])} | {_fmt(s['pss_mb'])} | "
            f"{_fmt(s['end_rss_mb'])} | {_fmt(s['load_s'])} | {_fmt(s['search_p50_ms'])} | {_fmt(s['search_p99_ms'])} |"
        )
    lines += [
        "",
        "Peak RSS: VmHWM of the probe process (load + first query, as in `glossary bench-search`); anon / "
        "file-backed / PSS: the profile process after its first query. File-backed pages (memory-mapped "
        "vectors, the encoder's weights) are shared by every replica that maps the same files. Search "
        "p50/p99: the `glossary bench-search` probe after one warm-up round; the engine keeps the vectors "
        "of its last 256 queries and the dev set has fewer, so the timed rounds do not encode queries "
        "(the dense stage with encoding is `dense stage p50` of the search section).",
        "",
        "File-backed MB after the first query varies from run to run: one HNSW search reads a few "
        "thousand vectors spread over the whole file, and for each page it faults the kernel maps the "
        "neighbouring pages already in the page cache (fault-around), so how much of the vectors' file "
        "a first query maps depends on what the page cache holds, not on the process. Anon MB is what a "
        "replica holds on its own.",
        *_build_notes(d),
        "",
        "Vectors: `float32` is the default; `sq8` (`glossary build --vectors sq8`) stores each vector "
        "component as one byte (faiss scalar quantizer), a quarter of the vectors' file and resident "
        "pages. It is opt-in: on the bundled corpus `glossary eval` gives a lower hybrid MRR with sq8 "
        "vectors on the holdout queries than with float32 ones (compare `glossary build --vectors sq8` "
        "then `glossary eval --data tests/data/retrieval_holdout.jsonl` with the default build).",
        "",
        "| target | limit | measured | status |",
        "|---|---:|---:|---|",
    ]
    for t in d["targets"]:
        lines.append(
            f"| {t['target']} | {_fmt(t['limit'])} {t['unit']} | {_fmt(t['value'])} {t['unit']} | {t['status']} |"
        )
    lines += ["", "Raw output: [bench/memory.json](bench/memory.json)."]
    return "\n".join(lines)


def _size_names(rows: list[dict[str, Any]]) -> str:
    """ "100,000, 1,000,000 sq8": the sizes of *rows*, each with its quantisation."""
    return ", ".join(f"{r['size']:,}" + (f" {r['quantize']}" if r.get("quantize") else "") for r in rows)


def _build_notes(d: dict[str, Any]) -> list[str]:
    """Which builds were reused, and the stages of the builds that recorded them (peak RSS as each ends)."""
    out: list[str] = []
    reused = [r for r in d["results"] if r["build"].get("reused")]
    if reused:
        names = _size_names(reused)
        out += [
            "",
            f"Reused artifacts (`--reuse`): {names}; their build s and build peak RSS are those of the "
            "run that built them.",
        ]
    streamed = [r for r in d["results"] if r["build"].get("vectors_streamed")]
    if streamed:
        names = _size_names(streamed)
        out += [
            "",
            f"Streamed vectors ({names}): from 500,000 terms the synthetic build composes its passage "
            "vectors block by block while the index adds them (`passage_vector_blocks` in "
            "`kg/bench/synthetic.py`, `build_index_from_blocks` in `embeddings`), so they are never all "
            "in one array next to the index's copy; the same vectors, so its embeddings stage is the "
            "encodings and the fit, and its index stage composes and adds (an HNSW graph built block by "
            "block). Smaller synthetic builds and `glossary build` compose or encode every vector first.",
        ]
    staged = [r for r in d["results"] if r["build"].get("stage_peak_rss_mb")]
    if staged:
        out += ["", "| build | stage | s | peak RSS at its end MB |", "|---|---|---:|---:|"]
        for r in staged:
            b = r["build"]
            title = f"{r['size']:,} terms" + (f" {r['quantize']}" if r.get("quantize") else "")
            for stage, peak in b["stage_peak_rss_mb"].items():
                secs = b.get("generate_s") if stage == "generate" else b["timings_s"].get(f"{stage}_s")
                out.append(f"| {title} | {stage} | {_fmt(secs)} | {_fmt(peak)} |")
    return out


def render_replicas(d: dict[str, Any]) -> str:
    """Replicas behind nginx against one process (``glossary bench-http --replicas N``)."""
    st, chat = d["settings"], d["conversations"]
    lines = [
        "## Replicas behind nginx",
        "",
        f"Command: `{d['command']}` (started {d['started_at']}, {d['duration_s']} s; {d['machine']['cpus']} CPUs, "
        f"load average before {d['machine']['loadavg_before'][0]}). {st['replicas']} `glossary serve` replicas "
        f"({st['workers_per_replica']} worker each) behind nginx on loopback, chat sessions in Redis "
        f"(`glossary deploy-local`). Client: {st['client']}, {st['concurrency']} connections, "
        f"{st['duration_s']:g} s per run after {st['warmup_s']:g} s of warm-up, {st['rounds']} rounds alternating "
        "which target goes first; medians of the rounds.",
        "",
        *[f"- {n}" for n in d.get("notes", [])],
        "",
        "| endpoint | one process req/s | through nginx req/s | ratio | one process p50 / p99 ms | "
        "through nginx p50 / p99 ms | errors | req/s of each round (one; nginx) |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for s in d["summary"]:
        one, many = s["one_process"], s["through_nginx"]
        runs = (
            ", ".join(_fmt(x, 0) for x in one["rps_runs"])
            + "; "
            + ", ".join(_fmt(x, 0) for x in many["rps_runs"])
        )
        lines.append(
            f"| {s['endpoint']} | {_fmt(one['rps_median'])} | {_fmt(many['rps_median'])} | "
            f"**{_fmt(s['ratio_rps'], 2)}×** | {_fmt(one['p50_ms_median'], 2)} / {_fmt(one['p99_ms_median'], 2)} | "
            f"{_fmt(many['p50_ms_median'], 2)} / {_fmt(many['p99_ms_median'], 2)} | "
            f"{one['errors'] + many['errors']} | {runs} |"
        )
    per = d.get("requests_per_replica_through_nginx") or {}
    lines += [
        "",
        "Requests each replica answered through nginx during the load (nginx's access log): "
        + (", ".join(f"{k} {_fmt(v)}" for k, v in per.items()) or "–")
        + ".",
        "",
        f"Conversations: the {chat['conversations']} multi-turn conversations of `tests/data/chat_eval.jsonl`, "
        f"{chat['turns']} turns through nginx, each a new request; turns answered per replica "
        f"(`X-Glossary-Replica`): {', '.join(f'{k} {v}' for k, v in chat['turns_per_replica'].items())}. "
        f"Of {chat['follow_ups']} follow-ups, {chat['follow_ups_on_another_replica']} were answered by another "
        f"replica than the turn before, **{chat['follow_ups_kept_context']}** kept their context (same session, "
        "and the answer and terms the conversation gets from one process alone), "
        f"**{chat['session_resets']}** session resets.",
        "",
        "| target | limit | measured | status |",
        "|---|---:|---:|---|",
    ]
    for t in d["targets"]:
        lines.append(f"| {t['target']} | {t['limit']} | {t['value']} | {t['status']} |")
    lines += ["", "Raw output: [bench/replicas.json](bench/replicas.json)."]
    return "\n".join(lines)


def write_report(bench_dir: Path, doc: Path) -> list[str]:
    """Render every known JSON in *bench_dir* into *doc*; return the sections written."""
    written = []
    renderers = (
        ("search", render_search),
        ("http", render_http),
        ("sse", render_sse),
        ("heavy", render_heavy),
        ("rebuild", render_rebuild),
        ("reload", render_reload),
        ("annotate", render_annotate),
        ("memory", render_memory),
        ("replicas", render_replicas),
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
