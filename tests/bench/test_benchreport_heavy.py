"""bench-report renders docs/bench/heavy.json into BENCHMARKS.md and beside the guarantees in
RELIABILITY.md (the fault-and-load figures of issue 10 come from the command, not by hand)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from kg.benchreport import write_report

REPO = Path(__file__).resolve().parents[2]


def test_heavy_figures_go_to_both_documents(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    bench.mkdir()
    shutil.copy(REPO / "docs" / "bench" / "heavy.json", bench / "heavy.json")
    (tmp_path / "RELIABILITY.md").write_text("# Reliability\n\nGuarantees.\n", encoding="utf-8")
    written = write_report(bench, tmp_path / "BENCHMARKS.md")
    assert written == ["heavy", "heavy (RELIABILITY.md)"]
    data = json.loads((bench / "heavy.json").read_text(encoding="utf-8"))
    for name in ("BENCHMARKS.md", "RELIABILITY.md"):
        text = (tmp_path / name).read_text(encoding="utf-8")
        assert "<!-- BEGIN heavy -->" in text and data["command"] in text
        assert f"**{data['faults']['inputs_tried']} tried**" in text
        assert "5xx other than 503" in text
    assert "Guarantees." in (tmp_path / "RELIABILITY.md").read_text(encoding="utf-8")
