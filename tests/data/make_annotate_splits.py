"""Split the blind labelled doc paragraphs (tests/data/annotate_paragraphs.jsonl, written from
the sources by someone who never saw the annotation engine) into dev and test halves.

    python tests/data/make_annotate_splits.py    # writes annotate_dev.jsonl, annotate_test.jsonl

Deterministic and stratified: within each (lang, format) group, paragraphs are ordered by the
SHA-256 of their id and alternate dev, test, dev, … Tune only on dev; the test half is reported
beside it by `glossary eval-annotate` and never looked at paragraph by paragraph.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).parent
SOURCE = HERE / "annotate_paragraphs.jsonl"
DEV = HERE / "annotate_dev.jsonl"
TEST = HERE / "annotate_test.jsonl"


def split(lines: list[str]) -> tuple[list[str], list[str]]:
    """(dev, test) lines of the JSON lines *lines*, stratified by ``lang`` and ``format``."""
    groups: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for line in lines:
        if not line.strip():
            continue
        row = json.loads(line)
        groups[(row["lang"], row["format"])].append((row["id"], line))
    dev: list[str] = []
    test: list[str] = []
    for key in sorted(groups):
        ordered = sorted(groups[key], key=lambda r: hashlib.sha256(r[0].encode()).hexdigest())
        for i, (_, line) in enumerate(ordered):
            (dev if i % 2 == 0 else test).append(line)
    return dev, test


def main() -> None:
    dev, test = split(SOURCE.read_text(encoding="utf-8").splitlines())
    DEV.write_text("\n".join(dev) + "\n", encoding="utf-8")
    TEST.write_text("\n".join(test) + "\n", encoding="utf-8")
    print(f"dev {len(dev)}, test {len(test)}")


if __name__ == "__main__":
    main()
