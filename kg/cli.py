"""The ``glossary`` command: build, stats, lookup, export, bench (typer)."""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from kg.build import BuildResult, build_graph, default_corpus_dir, write_artifact
from kg.errors import GlossaryError
from kg.parsers.common import SourceError

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Bilingual LLM-inference glossary graph.")
console = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)

DEFAULT_ARTIFACT = Path("build/artifact")
CorpusOpt = typer.Option(None, "--corpus", help="Corpus directory (manifest.json, sources/, overlay.json).")
ArtifactOpt = typer.Option(DEFAULT_ARTIFACT, "--artifact", help="Artifact directory.")
FormatOpt = typer.Option("json", "--format", help="json | csv | tbx | skos-turtle | jsonld | markdown")
JsonOpt = typer.Option(False, "--json", help="Print JSON.")


def _build(corpus: Path | None) -> BuildResult:
    try:
        return build_graph(corpus)
    except SourceError as exc:
        err.print(f"[red]build failed:[/red] {exc}")
        raise typer.Exit(2) from exc


@app.command()
def build(corpus: Path | None = CorpusOpt, out: Path = ArtifactOpt) -> None:
    """Parse the sources, merge terms, link them and write the artifact atomically."""
    with console.status("building the term graph…"):
        result = _build(corpus)
        path = write_artifact(result, out)
    r = result.report
    console.print(
        f"[green]built[/green] {path}: {r['nodes']} nodes, "
        f"{sum(r['edges_by_type'].values())} edges in {result.timings['total_s']:.2f} s"
    )
    if r["unexplained_entries"]:
        console.print(
            f"[yellow]{len(r['unexplained_entries'])} unexplained entries[/yellow] (see report.json)"
        )


def _load_report(artifact: Path) -> dict:
    path = artifact / "report.json"
    if not path.exists():
        err.print(f"[red]no artifact at {artifact}[/red]: run `glossary build` first")
        raise typer.Exit(2)
    return json.loads(path.read_text(encoding="utf-8"))


@app.command()
def stats(artifact: Path = ArtifactOpt, as_json: bool = JsonOpt) -> None:
    """Entries per source, nodes, edges by type, merges, overlay decisions, unexplained entries."""
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
    )
    summary = {k: r[k] for k in keys}
    summary["unexplained_entries"] = len(r["unexplained_entries"])
    summary["stale_overlay_decisions"] = len(r["stale_overlay_decisions"])
    summary["dropped_aliases"] = len(r["dropped_aliases"])
    summary["unresolved_references"] = len(r["unresolved_references"])
    if as_json:
        print(json.dumps(summary, ensure_ascii=False, indent=1))
        return
    table = Table(title="glossary stats", show_header=False)
    for k, v in summary.items():
        table.add_row(k, json.dumps(v, ensure_ascii=False) if isinstance(v, dict) else str(v))
    console.print(table)


@app.command()
def lookup(text: str, artifact: Path = ArtifactOpt, lang: str | None = None) -> None:
    """Find a term by any label, alias or abbreviation (case-, width- and script-insensitive)."""
    from kg.store import Glossary

    try:
        g = Glossary.load(artifact)
    except GlossaryError as exc:
        err.print(f"[red]{exc.message}[/red]")
        raise typer.Exit(2) from exc
    hits = g.lookup(text, lang)
    if not hits:
        err.print(f"no term named {text!r}; nearest: {', '.join(g.suggest_ids(text))}")
        raise typer.Exit(1)
    for h in hits:
        t = h.term
        console.print(
            f"[bold]{t.id}[/bold]  {t.labels.get('en', '')} · {t.labels.get('zh', '')}  ({h.match}: {h.name})"
        )
        if t.abbreviations or t.aliases:
            console.print(f"  names: {', '.join(t.abbreviations + t.aliases)}")
        for d in t.definitions:
            console.print(f"  [{d.source}] {d.text}")


@app.command()
def export(fmt: str = FormatOpt, artifact: Path = ArtifactOpt) -> None:
    """Print the whole graph in an export format."""
    doc = (
        json.loads((artifact / "graph.json").read_text(encoding="utf-8"))
        if (artifact / "graph.json").exists()
        else None
    )
    if doc is None:
        doc = _build(None).document()
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


RunsOpt = typer.Option(5, help="Number of full builds to time.")
BenchOutOpt = typer.Option(None, help="Also write the result as JSON here.")


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
        out.write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":  # pragma: no cover
    app()
