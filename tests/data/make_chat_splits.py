"""Split the blind chat set (tests/data/blind/*.jsonl, written from the sources by a helper
who never saw the bot) into dev and test halves.

    python tests/data/make_chat_splits.py        # writes chat_blind_dev.jsonl, chat_blind_test.jsonl

Deterministic: within each (file, kind of the first turn) group, items are ordered by the
SHA-256 of their id and alternate dev, test, dev, … Tune only on dev; the test half is
reported beside it and never looked at item by item.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).parent
SOURCES = ("chat_single_zh.jsonl", "chat_single_en.jsonl", "chat_conversations.jsonl")


def split() -> tuple[list[str], list[str]]:
    dev: list[str] = []
    test: list[str] = []
    for name in SOURCES:
        groups: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for line in (HERE / "blind" / name).read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            groups[row["turns"][0]["kind"]].append((row["id"], line))
        for kind in sorted(groups):
            ordered = sorted(groups[kind], key=lambda r: hashlib.sha256(r[0].encode()).hexdigest())
            for i, (_, line) in enumerate(ordered):
                (dev if i % 2 == 0 else test).append(line)
    return dev, test


def main() -> None:
    dev, test = split()
    (HERE / "chat_blind_dev.jsonl").write_text("\n".join(dev) + "\n", encoding="utf-8")
    (HERE / "chat_blind_test.jsonl").write_text("\n".join(test) + "\n", encoding="utf-8")
    print(f"dev {len(dev)}, test {len(test)}")


if __name__ == "__main__":
    main()
