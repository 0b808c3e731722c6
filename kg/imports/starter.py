"""``glossary init DIR``: a starter corpus a team edits into its own glossary.

It writes ``manifest.json`` (one CSV source, ``team``), ``glossary.csv`` (the documented columns
and three example rows that show names, an abbreviation, a stated relation and a confusable
pair) and ``categories.json`` (the bundled topics, so categories mean the same as in the bundled
graph). With ``with_bundled`` it also copies the bundled sources, their manifest entries, their
section map and the editorial overlay, so the corpus is the bundled glossary plus the team's.
``glossary build --corpus DIR`` builds either as written.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path
from typing import Any

from kg.imports.table import COLUMNS

#: The columns of the template, in order (kg/imports/table.py documents each).
TEMPLATE_COLUMNS: tuple[str, ...] = COLUMNS[:9]
EXAMPLE_ROWS: tuple[dict[str, str], ...] = (
    {
        "en": "Warm pool",
        "zh": "预热池",
        "aliases": "warm replicas",
        "definition": "Replicas kept loaded and idle so that a burst of requests never waits for a cold start.",
        "source": "Team wiki",
        "category": "serving",
        "related": "Cold start",
    },
    {
        "en": "Cold start",
        "zh": "冷启动",
        "definition": "The delay before a new replica can serve: pulling the image, loading the weights "
        "and warming up the kernels.",
        "source": "Team wiki",
        "category": "serving",
        "confused_with": "TTFT",
    },
    {
        "en": "Time to first token",
        "zh": "首 token 延迟",
        "abbreviation": "TTFT",
        "definition": "The time from sending a request to receiving the first output token.",
        "source": "Team wiki",
        "category": "metrics",
    },
)
TEAM_SOURCE: dict[str, Any] = {
    "id": "team",
    "file": "glossary.csv",
    "title": "Our glossary",
    "description": "The team's own glossary: one row per term (columns in docs/IMPORTS.md).",
    "language": "en",
    "parser": "csv",
}


def template_csv() -> str:
    """The CSV template: the header and the example rows."""
    buf = io.StringIO(newline="")
    writer = csv.DictWriter(buf, fieldnames=list(TEMPLATE_COLUMNS), lineterminator="\n")
    writer.writeheader()
    for row in EXAMPLE_ROWS:
        writer.writerow(row)
    return buf.getvalue()


def write_starter(directory: Path, with_bundled: bool = False, bundled: Path | None = None) -> list[Path]:
    """Write a starter corpus into *directory* (created if needed); returns the files written.

    Raises :class:`FileExistsError` when *directory* already holds a ``manifest.json`` (a corpus
    is never overwritten). *bundled* is the bundled corpus (default: ``corpus/``).
    """
    from kg.build import default_corpus_dir

    bundled = bundled or default_corpus_dir()
    directory = Path(directory)
    if (directory / "manifest.json").exists():
        raise FileExistsError(f"{directory / 'manifest.json'} exists: not overwriting a corpus")
    directory.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    categories = json.loads((bundled / "categories.json").read_text(encoding="utf-8"))
    sources: list[dict[str, Any]] = []
    if with_bundled:
        (directory / "sources").mkdir(exist_ok=True)
        for src in json.loads((bundled / "manifest.json").read_text(encoding="utf-8"))["sources"]:
            target = directory / "sources" / Path(src["file"]).name
            shutil.copyfile(bundled / src["file"], target)
            written.append(target)
            sources.append({**src, "file": f"sources/{target.name}"})
        if (bundled / "overlay.json").exists():
            shutil.copyfile(bundled / "overlay.json", directory / "overlay.json")
            written.append(directory / "overlay.json")
    else:
        categories["sections"] = {}
    sources.append(dict(TEAM_SOURCE))
    files = {
        "manifest.json": json.dumps({"sources": sources}, ensure_ascii=False, indent=2) + "\n",
        "categories.json": json.dumps(categories, ensure_ascii=False, indent=2) + "\n",
        "glossary.csv": template_csv(),
    }
    for name, text in files.items():
        (directory / name).write_text(text, encoding="utf-8")
        written.append(directory / name)
    return written
