"""Held-out refusal questions: how many single questions the chatbot refuses, per kind.

The refusal model (:mod:`kg.chat.refusal`) learns from ``refusal_*_train{,2,3}.jsonl`` and the
dev conversations. ``tests/data/refusal_ood_train4.jsonl`` (invented names, near-domain traps)
and ``tests/data/refusal_indomain_train4.jsonl`` (typos, plurals, units, Traditional characters …)
were written blind the same way and are never trained on: they measure the refusal rules and the
threshold on questions nobody tuned on, beside the chat splits of ``glossary eval-chat``.

A question counts as refused when the answer cites nothing (the chat evaluation's rule).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kg.chat.model import Answer, ConversationState
from kg.evaluation.dataset import read_jsonl
from kg.search.engine import SearchEngine
from kg.store import Glossary

__all__ = ["RefusalSplit", "load_questions", "render_markdown", "score_refusals"]


@dataclass
class RefusalSplit:
    """One file's questions: refused and total per kind, and whether they are in the domain."""

    in_domain: bool
    refused: dict[str, int] = field(default_factory=dict)
    total: dict[str, int] = field(default_factory=dict)

    def rate(self, kind: str | None = None) -> float:
        """Share refused, of one kind or of all."""
        total = self.total.get(kind, 0) if kind else sum(self.total.values())
        refused = self.refused.get(kind, 0) if kind else sum(self.refused.values())
        return refused / total if total else 0.0


def _question(row: Any) -> dict[str, str]:
    if not isinstance(row, dict) or not isinstance(row.get("text"), str) or not row["text"].strip():
        raise ValueError('expected an object with a non-empty "text"')
    return {"text": row["text"], "kind": str(row.get("kind") or "-"), "lang": str(row.get("lang") or "")}


def load_questions(path: str | Path) -> list[dict[str, str]]:
    """Rows ``{"text", "kind", "lang"}`` of a JSON-lines file; ``ValueError`` names the bad line."""
    return read_jsonl(path, _question, "question")


def score_refusals(
    glossary: Glossary,
    engine: SearchEngine,
    rows: Iterable[dict[str, str]],
    *,
    in_domain: bool,
    answer_fn: Callable[[str], Answer] | None = None,
) -> RefusalSplit:
    """Answer each question on its own (a fresh conversation) and count the refused ones per kind."""
    if answer_fn is None:
        from kg.chat.bot import answer

        def answer_fn(text: str) -> Answer:
            return answer(glossary, engine, text, context=ConversationState())

    out = RefusalSplit(in_domain)
    for row in rows:
        kind = row["kind"]
        refused = not answer_fn(row["text"]).citations
        out.total[kind] = out.total.get(kind, 0) + 1
        out.refused[kind] = out.refused.get(kind, 0) + int(refused)
    return out


def render_markdown(splits: dict[str, RefusalSplit], *, command: str) -> str:
    """A table per split: refused of total per kind; out-of-domain splits should be refused,
    in-domain ones answered (their refused share is the wrongful-refusal rate)."""
    lines = [
        "## Refusal on questions never trained on",
        "",
        f"Command: `{command}`. Single questions written blind for the refusal model and never trained "
        "on; a question is refused when its answer cites nothing. Splits named `dev…` were read item "
        "by item to write decision rules (tests/data/README.md); those named `heldout…` were not.",
        "",
        "| split | kind | questions | refused | share refused | should be |",
        "|---|---|---:|---:|---:|---|",
    ]
    for name, split in splits.items():
        want = "answered" if split.in_domain else "refused"
        for kind in sorted(split.total):
            lines.append(
                f"| {name} | {kind} | {split.total[kind]} | {split.refused.get(kind, 0)} | "
                f"{split.rate(kind):.1%} | {want} |"
            )
        lines.append(
            f"| {name} | **all** | {sum(split.total.values())} | {sum(split.refused.values())} | "
            f"**{split.rate():.1%}** | {want} |"
        )
    return "\n".join(lines) + "\n"
