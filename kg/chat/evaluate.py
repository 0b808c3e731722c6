"""Evaluate the chatbot on hand-written conversations (``tests/data/chat_eval.jsonl``).

>>> convs = load_conversations("tests/data/chat_eval.jsonl")                       # doctest: +SKIP
>>> report = evaluate_chat(glossary, engine, convs)                                 # doctest: +SKIP
>>> print(render_markdown(report, command="glossary eval-chat"))                    # doctest: +SKIP

Each conversation is replayed turn by turn in one :class:`ConversationState`. Scores:

- **first-citation accuracy** — share of answerable turns (non-empty ``cite``) whose FIRST
  citation is a term one of the turn's ``cite`` names designates (names resolved with
  :meth:`Glossary.lookup`, best hit); target ≥ 0.90. The strict variant requires the term of
  ``cite[0]``;
- **out-of-domain refusal rate** — share of ``out_of_domain`` turns answered with
  ``grounded=false`` and no citation; target 1.0;
- per-kind and per-language breakdowns, and the latency of :func:`kg.chat.answer`
  (retrieval answer, in process): p50 target ≤ 60 ms.

The report is a JSON-serialisable dict; :func:`render_markdown` and :func:`check_targets`
read every number from it.
"""

from __future__ import annotations

import datetime as dt
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kg.chat.bot import answer as default_answer
from kg.chat.model import Answer, ConversationState
from kg.evaluation.dataset import read_jsonl
from kg.search.engine import SearchEngine
from kg.store import Glossary

__all__ = [
    "TARGET_FIRST_CITATION",
    "TARGET_OOD_REFUSAL",
    "TARGET_P50_MS",
    "ChatTurn",
    "Conversation",
    "check_targets",
    "evaluate_chat",
    "load_conversations",
    "render_markdown",
]

TARGET_FIRST_CITATION = 0.90
TARGET_OOD_REFUSAL = 1.0
TARGET_P50_MS = 60.0
OOD_KIND = "out_of_domain"
KIND_TO_INTENT = {"abbrev": "abbreviation"}

AnswerFn = Callable[..., Answer]


@dataclass(frozen=True)
class ChatTurn:
    user: str
    cite: tuple[str, ...]
    kind: str


@dataclass(frozen=True)
class Conversation:
    id: str
    lang: str
    turns: tuple[ChatTurn, ...]
    note: str | None = None

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Conversation:
        turns = raw["turns"]
        if not isinstance(turns, list) or not turns:
            raise ValueError(f"conversation {raw.get('id')!r}: turns must be a non-empty list")
        return cls(
            id=str(raw["id"]),
            lang=str(raw["lang"]),
            turns=tuple(
                ChatTurn(str(t["user"]), tuple(str(n) for n in t.get("cite", [])), str(t["kind"]))
                for t in turns
            ),
            note=raw.get("note"),
        )


def load_conversations(path: str | Path) -> list[Conversation]:
    """Read a JSON Lines file of conversations; ``ValueError`` names the bad line."""
    return read_jsonl(path, Conversation.from_dict, "conversation")


def _resolve(glossary: Glossary, name: str) -> str | None:
    hits = glossary.lookup(name)
    return hits[0].term.id if hits else None


def _percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in [0, 100]); NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, math.ceil(q / 100 * len(ordered)) - 1))
    return ordered[k]


def _share(num: int, den: int) -> float | None:
    return None if den == 0 else num / den


def evaluate_chat(
    glossary: Glossary,
    engine: SearchEngine,
    conversations: Sequence[Conversation],
    *,
    answer_fn: AnswerFn = default_answer,
) -> dict[str, Any]:
    """Replay every conversation and score its turns (see the module docstring)."""
    per_turn: list[dict[str, Any]] = []
    unresolved: list[dict[str, Any]] = []
    timings: list[float] = []
    for conv in conversations:
        state = ConversationState()
        for i, turn in enumerate(conv.turns, 1):
            start = time.perf_counter()
            ans = answer_fn(glossary, engine, turn.user, context=state)
            ms = (time.perf_counter() - start) * 1000.0
            timings.append(ms)
            resolved = {n: _resolve(glossary, n) for n in turn.cite}
            missing = [n for n, tid in resolved.items() if tid is None]
            if missing:
                unresolved.append({"id": conv.id, "turn": i, "names": missing})
            gold = [tid for tid in resolved.values() if tid is not None]
            first = ans.citations[0].term_id if ans.citations else None
            row: dict[str, Any] = {
                "id": conv.id,
                "turn": i,
                "lang": conv.lang,
                "kind": turn.kind,
                "question": turn.user,
                "intent": ans.intent,
                "grounded": ans.grounded,
                "first_citation": first,
                "terms": ans.terms[:5],
                "gold": gold,
                "ms": round(ms, 3),
            }
            if turn.kind == OOD_KIND or not turn.cite:
                row["scored"] = "refusal"
                row["ok"] = not ans.grounded and not ans.citations
            elif gold:
                row["scored"] = "citation"
                row["ok"] = first in gold
                row["strict_ok"] = resolved.get(turn.cite[0]) is not None and first == resolved[turn.cite[0]]
            else:
                row["scored"] = None
                row["ok"] = None
            row["intent_agrees"] = ans.intent == KIND_TO_INTENT.get(turn.kind, turn.kind)
            per_turn.append(row)
    return _summarise(per_turn, unresolved, timings, conversations)


def _group(rows: list[dict[str, Any]], field: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for value in sorted({r[field] for r in rows}):
        sel = [r for r in rows if r[field] == value]
        cite = [r for r in sel if r["scored"] == "citation"]
        refuse = [r for r in sel if r["scored"] == "refusal"]
        out[value] = {
            "n": len(sel),
            "first_citation_accuracy": _share(sum(bool(r["ok"]) for r in cite), len(cite)),
            "scored_citation": len(cite),
            "refusal_rate": _share(sum(bool(r["ok"]) for r in refuse), len(refuse)),
            "scored_refusal": len(refuse),
            "p50_ms": round(_percentile([r["ms"] for r in sel], 50), 3),
        }
    return out


def _summarise(
    rows: list[dict[str, Any]],
    unresolved: list[dict[str, Any]],
    timings: list[float],
    conversations: Sequence[Conversation],
) -> dict[str, Any]:
    cite = [r for r in rows if r["scored"] == "citation"]
    refuse = [r for r in rows if r["scored"] == "refusal"]
    answerable_refused = [r for r in cite if not r["grounded"]]
    return {
        "generated_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "dataset": {
            "conversations": len(conversations),
            "turns": len(rows),
            "scored_citation": len(cite),
            "scored_refusal": len(refuse),
            "unresolved": unresolved,
        },
        "overall": {
            "first_citation_accuracy": _share(sum(bool(r["ok"]) for r in cite), len(cite)),
            "first_citation_strict": _share(sum(bool(r.get("strict_ok")) for r in cite), len(cite)),
            "ood_refusal_rate": _share(sum(bool(r["ok"]) for r in refuse), len(refuse)),
            "answerable_refused": len(answerable_refused),
            "intent_agreement": _share(sum(bool(r["intent_agrees"]) for r in rows), len(rows)),
        },
        "latency": {
            "n": len(timings),
            "p50_ms": round(_percentile(timings, 50), 3),
            "p95_ms": round(_percentile(timings, 95), 3),
            "max_ms": round(max(timings), 3) if timings else math.nan,
        },
        "by_kind": _group(rows, "kind"),
        "by_lang": _group(rows, "lang"),
        "failures": [r for r in rows if r["ok"] is False],
        "per_turn": rows,
    }


# --- targets and markdown ------------------------------------------------------------------


def _line(ok: bool, text: str) -> str:
    return f"{'PASS' if ok else 'FAIL'}: {text}"


def check_targets(report: dict[str, Any]) -> list[str]:
    """The issue's targets as ``PASS: …`` / ``FAIL: …`` lines."""
    o, lat = report["overall"], report["latency"]
    acc, ood, p50 = o["first_citation_accuracy"], o["ood_refusal_rate"], lat["p50_ms"]
    return [
        _line(
            acc is not None and acc >= TARGET_FIRST_CITATION - 1e-9,
            f"first-citation accuracy {_pct(acc)} >= {TARGET_FIRST_CITATION:.0%}",
        ),
        _line(
            ood is not None and ood >= TARGET_OOD_REFUSAL - 1e-9,
            f"out-of-domain refusal rate {_pct(ood)} >= {TARGET_OOD_REFUSAL:.0%}",
        ),
        _line(
            p50 == p50 and p50 <= TARGET_P50_MS, f"answer latency p50 {_ms(p50)} ms <= {TARGET_P50_MS:.0f} ms"
        ),
    ]


def _pct(v: float | None) -> str:
    return "–" if v is None else f"{v * 100:.1f}%"


def _ms(v: float | None) -> str:
    return "–" if v is None or v != v else f"{v:.1f}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    out = [
        "| " + " | ".join(header) + " |",
        "| " + " | ".join([":---"] + ["---:"] * (len(header) - 1)) + " |",
    ]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def _group_rows(groups: dict[str, dict[str, Any]]) -> list[list[str]]:
    return [
        [
            f"`{k}`",
            str(g["n"]),
            _pct(g["first_citation_accuracy"]),
            _pct(g["refusal_rate"]),
            _ms(g["p50_ms"]),
        ]
        for k, g in groups.items()
    ]


def render_markdown(report: dict[str, Any], *, command: str, heading: str = "## Chat evaluation") -> str:
    """A ``docs/EVAL.md`` section: command, date, dataset, overall / per-kind / per-language tables,
    failures, unresolved gold names and the targets."""
    ds, o, lat = report["dataset"], report["overall"], report["latency"]
    date = str(report.get("generated_at", ""))[:10] or dt.date.today().isoformat()
    lines = [heading, "", "Command:", "", "```sh", command, "```", "", f"Date: {date}", ""]
    lines.append(
        f"Dataset: {ds['conversations']} conversations, {ds['turns']} turns "
        f"({ds['scored_citation']} answerable, {ds['scored_refusal']} out of domain); "
        f"{len(ds['unresolved'])} turns with gold names that do not resolve."
    )
    lines += ["", "### Overall", ""]
    lines += _table(
        ["metric", "value"],
        [
            ["first-citation accuracy", _pct(o["first_citation_accuracy"])],
            ["first citation = first gold name (strict)", _pct(o["first_citation_strict"])],
            ["out-of-domain refusal rate", _pct(o["ood_refusal_rate"])],
            ["answerable turns refused", str(o["answerable_refused"])],
            ["intent = gold kind", _pct(o["intent_agreement"])],
            [
                "latency p50 / p95 / max (ms)",
                f"{_ms(lat['p50_ms'])} / {_ms(lat['p95_ms'])} / {_ms(lat['max_ms'])}",
            ],
        ],
    )
    header = ["group", "turns", "first-citation acc.", "OOD refusal", "p50 ms"]
    lines += ["", "### Per turn kind", "", *_table(header, _group_rows(report["by_kind"]))]
    lines += ["", "### Per language", "", *_table(header, _group_rows(report["by_lang"]))]
    if report["failures"]:
        lines += ["", "### Failures", ""]
        for r in report["failures"]:
            lines.append(
                f"- {r['id']} turn {r['turn']} ({r['kind']}): {r['question']} — first citation "
                f"`{r['first_citation']}`, gold {', '.join(f'`{g}`' for g in r['gold']) or '(refusal)'}"
            )
    if ds["unresolved"]:
        lines += ["", "### Gold names that do not resolve", ""]
        lines += [f"- {u['id']} turn {u['turn']}: {', '.join(u['names'])}" for u in ds["unresolved"]]
    lines += ["", "### Targets", ""] + [f"- {line}" for line in check_targets(report)]
    return "\n".join(lines) + "\n"
