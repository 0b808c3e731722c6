"""Write corpus/examples.jsonl: example questions users ask about each term (kg/search/examples.py).

    python tests/data/make_examples.py

From the in-domain questions written blind for training only (refusal_indomain_train.jsonl,
refusal_indomain_train2.jsonl and refusal_indomain_train3.jsonl, examples_train4.jsonl: questions
that describe a term's use without naming it, two or three per entry of every source, and
examples_train5.jsonl: why / symptom, how-to and which questions, one to three per entry), each with
the names of the term that answers it. A question that
also occurs in any evaluation split (chat, retrieval; dev, holdout or test) is left out, so that
no evaluated question is ever an example of its own answer.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).parent
OUT = HERE.parent.parent / "corpus" / "examples.jsonl"
SOURCES = (
    "refusal_indomain_train.jsonl",
    "refusal_indomain_train2.jsonl",
    "refusal_indomain_train3.jsonl",
    "examples_train4.jsonl",
    "examples_train5.jsonl",
    "examples_train6.jsonl",
)


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def evaluated_questions() -> set[str]:
    """Every question of every evaluation split."""
    seen: set[str] = set()
    for name in (
        "chat_blind_dev.jsonl",
        "chat_blind_dev2.jsonl",
        "chat_blind_dev3.jsonl",
        "chat_blind_dev4.jsonl",
        "chat_blind_dev5.jsonl",
        "chat_blind_dev6.jsonl",
        "chat_blind_dev7.jsonl",
        "chat_blind_dev8.jsonl",
        "chat_blind_dev9.jsonl",
        "chat_blind_dev10.jsonl",
        "chat_blind_test.jsonl",
        "chat_eval.jsonl",
    ):
        seen |= {t["user"].strip() for conv in _rows(HERE / name) for t in conv["turns"]}
    for name in ("retrieval_dev.jsonl", "retrieval_holdout.jsonl", "retrieval_test.jsonl"):
        seen |= {q["query"].strip() for q in _rows(HERE / name)}
    return seen


def examples() -> list[dict]:
    skip = evaluated_questions()
    out: list[dict] = []
    for name in SOURCES:
        for row in _rows(HERE / name):
            text = row["text"].strip()
            if text in skip or not row.get("gold"):
                continue
            skip.add(text)
            out.append({"text": text, "gold": row["gold"]})
    return out


def render() -> str:
    return "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in examples())


if __name__ == "__main__":
    OUT.write_text(render(), encoding="utf-8")
    print(f"{len(examples())} example questions -> {OUT}")
