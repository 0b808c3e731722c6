"""Score the annotator against labelled documentation paragraphs.

A paragraph (``tests/data/annotate_*.jsonl``) holds its text, ``lang`` (zh, en, mixed),
``format`` (text, markdown, html), the ``mentions`` a reader expects linked (``surface``, its
``nth`` occurrence in the raw text counting from 0, and the term's ``names`` as the sources write
them) and ``traps``: places that look like a term but must not be linked (``surface``, ``nth``,
``why``: generic word, code block, heading, attribute…).

- A gold mention's names are resolved to term ids with the retrieval grader's rule
  (:func:`kg.evaluation.dataset.name_term_ids`); a mention none of whose names reaches a term
  is listed as ``unresolved`` and counted neither for nor against the annotator (a mention
  predicted on its span is left out of precision too).
- A predicted mention is right when its span is exactly the gold span and its term one of the
  gold ids. Precision = right / predicted; recall = right / resolved gold mentions.
- A predicted mention overlapping a trap is a *trap hit*, counted per ``why``.

Only dev splits (:func:`is_dev_split`) are ever shown item by item: :func:`failures` lists their
wrong and missed mentions for tuning, and the report names their unresolved gold names and bad
labels. Every other split (test) is rendered through counts only — per group, per kind of trap,
and the number of unresolved or bad labels — and the CLI refuses to list its failures.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kg.annotate import AnnotateOptions, Annotator
from kg.evaluation.dataset import name_term_ids
from kg.store import Glossary

TARGET_PRECISION = 0.95
TARGET_RECALL = 0.90


@dataclass(frozen=True)
class GoldSpan:
    start: int
    end: int
    surface: str
    ids: tuple[str, ...]
    names: tuple[str, ...]


@dataclass(frozen=True)
class TrapSpan:
    start: int
    end: int
    surface: str
    why: str


@dataclass
class Paragraph:
    id: str
    lang: str
    format: str
    text: str
    gold: list[GoldSpan] = field(default_factory=list)
    unresolved: list[GoldSpan] = field(default_factory=list)
    traps: list[TrapSpan] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def is_dev_split(name: str) -> bool:
    """True for a split that may be looked at item by item: ``dev``, ``dev-…`` or ``dev_…``.
    Any other name (``test``, a blind set) is reported through counts only."""
    return name == "dev" or name.startswith(("dev-", "dev_"))


def _nth(text: str, surface: str, nth: int) -> int:
    pos = -1
    for _ in range(nth + 1):
        pos = text.find(surface, pos + 1)
        if pos < 0:
            return -1
    return pos


def load_paragraphs(path: str | Path, glossary: Glossary) -> list[Paragraph]:
    """Read a labelled split and resolve its gold names; ``ValueError`` names a malformed line."""
    out: list[Paragraph] = []
    cache: dict[str, tuple[str, ...]] = {}
    for lineno, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            p = Paragraph(str(raw["id"]), str(raw["lang"]), str(raw["format"]), str(raw["text"]))
            for m in raw["mentions"]:
                start = _nth(p.text, m["surface"], int(m["nth"]))
                if start < 0:
                    p.problems.append(f"mention {m['surface']!r}#{m['nth']} not in the text")
                    continue
                ids: list[str] = []
                for name in m["names"]:
                    if name not in cache:
                        cache[name] = name_term_ids(glossary, name)
                    ids.extend(i for i in cache[name] if i not in ids)
                span = GoldSpan(start, start + len(m["surface"]), m["surface"], tuple(ids), tuple(m["names"]))
                (p.gold if ids else p.unresolved).append(span)
            for t in raw["traps"]:
                start = _nth(p.text, t["surface"], int(t["nth"]))
                if start < 0:
                    p.problems.append(f"trap {t['surface']!r}#{t['nth']} not in the text")
                    continue
                p.traps.append(TrapSpan(start, start + len(t["surface"]), t["surface"], str(t["why"])))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{path}:{lineno}: bad paragraph record: {exc}") from exc
        out.append(p)
    return out


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def score_paragraph(
    annotator: Annotator, p: Paragraph, options: AnnotateOptions | None = None
) -> dict[str, Any]:
    """Right, wrong and missed mentions and trap hits of one paragraph (every occurrence annotated)."""
    opts = options or AnnotateOptions()
    opts = AnnotateOptions(**{**opts.__dict__, "format": p.format, "occurrences": "all"})
    found = annotator.annotate(p.text, opts).mentions
    gold_by_span = {(g.start, g.end): g for g in p.gold}
    right, wrong, neutral = [], [], []
    matched: set[tuple[int, int]] = set()
    for m in found:
        span = (m.start, m.end)
        g = gold_by_span.get(span)
        if g is not None and m.term_id in g.ids:
            right.append(m)
            matched.add(span)
        elif any(_overlaps(span, (u.start, u.end)) for u in p.unresolved):
            neutral.append(m)
        else:
            wrong.append(m)
    traps = [(t, m) for m in wrong for t in p.traps if _overlaps((m.start, m.end), (t.start, t.end))]
    missed = [g for g in p.gold if (g.start, g.end) not in matched]
    return {"right": right, "wrong": wrong, "missed": missed, "neutral": neutral, "trap_hits": traps}


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 3) if den else None


def evaluate(annotator: Annotator, paragraphs: Iterable[Paragraph]) -> dict[str, Any]:
    """Aggregate figures of one split: overall, per lang, per format, trap hits per kind."""
    groups: dict[str, Counter[str]] = defaultdict(Counter)
    trap_kinds: Counter[str] = Counter()
    trap_hits: Counter[str] = Counter()
    unresolved: Counter[str] = Counter()
    problems: list[str] = []
    n = 0
    for p in paragraphs:
        n += 1
        s = score_paragraph(annotator, p)
        for key in ("all", f"lang={p.lang}", f"format={p.format}"):
            c = groups[key]
            c["paragraphs"] += 1
            c["gold"] += len(p.gold)
            c["predicted"] += len(s["right"]) + len(s["wrong"])
            c["right"] += len(s["right"])
        trap_kinds.update(t.why for t in p.traps)
        trap_hits.update(t.why for t in {t for t, _ in s["trap_hits"]})
        for u in p.unresolved:
            unresolved[" / ".join(u.names)] += 1
        problems.extend(f"{p.id}: {x}" for x in p.problems)
    rows = {}
    for key, c in groups.items():
        rows[key] = {
            "paragraphs": c["paragraphs"],
            "gold": c["gold"],
            "predicted": c["predicted"],
            "right": c["right"],
            "precision": _ratio(c["right"], c["predicted"]),
            "recall": _ratio(c["right"], c["gold"]),
        }
    order = [
        "all",
        *sorted(k for k in rows if k.startswith("lang=")),
        *sorted(k for k in rows if k.startswith("format=")),
    ]
    return {
        "paragraphs": n,
        "groups": {k: rows[k] for k in order if k in rows},
        "traps": {k: {"traps": trap_kinds[k], "hit": trap_hits[k]} for k in sorted(trap_kinds)},
        "unresolved": dict(sorted(unresolved.items())),
        "problems": problems,
    }


def failures(annotator: Annotator, paragraphs: Iterable[Paragraph]) -> list[str]:
    """One line per wrong or missed mention (for tuning on the dev split only)."""
    out: list[str] = []
    for p in paragraphs:
        s = score_paragraph(annotator, p)
        for m in s["wrong"]:
            trap = next((t.why for t, x in s["trap_hits"] if x is m), "")
            out.append(f"{p.id} WRONG {m.text!r} -> {m.term_id}" + (f" (trap: {trap})" if trap else ""))
        for g in s["missed"]:
            out.append(f"{p.id} MISSED {g.surface!r}@{g.start} -> {'|'.join(g.ids)}")
    return out


def targets_met(report: dict[str, Any]) -> bool:
    """Both targets met, on the exact counts: the printed figures are rounded to three places,
    and 301 / 317 = 0.9495 prints as 0.950 but misses a 0.95 target."""
    row = report["groups"]["all"]
    right, predicted, gold = row["right"], row["predicted"], row["gold"]
    if not predicted or not gold:
        return False
    return right >= TARGET_PRECISION * predicted and right >= TARGET_RECALL * gold


def render_markdown(reports: dict[str, dict[str, Any]], command: str, target_split: str = "test") -> str:
    """The EVAL.md section: per split, overall and per language / format; trap hits; unresolved gold."""
    lines = [
        "## Term annotation (docs)",
        "",
        f"Command: `{command}`. Labelled paragraphs written blind from the sources "
        "(`tests/data/annotate_paragraphs.jsonl`), split by `tests/data/make_annotate_splits.py` "
        "(stratified by language and format); `dev-traps` (`tests/data/annotate_dev_traps.jsonl`) holds extra dev "
        "paragraphs written later from the sources by a developer who knew the engine, with everyday senses "
        "of glossary words; `dev-traps2` (`tests/data/annotate_dev_traps2.jsonl`) holds more such paragraphs, "
        "labelled from the sources and the glossary's name list before the engine was run on them (first "
        "measured untouched, then used as a check while tuning on dev and dev-traps); `dev-traps3` "
        "(`tests/data/annotate_dev_traps3.jsonl`) holds paragraphs written blind by a helper who never saw "
        "the code, with other-domain senses, code spans, attributes, links and names inside longer words "
        "as traps (first measured untouched, then tuned on); `dev-traps4` "
        "(`tests/data/annotate_dev_traps4.jsonl`) holds more, written blind by another such helper "
        "(measured untouched at precision 0.922, recall 0.889, then one rule was added from it); "
        "the rules were tuned on the dev splits only. A mention is right when "
        "its span is exactly the labelled one and its term one the labelled names resolve to. "
        f"Targets on {target_split}: precision ≥ {TARGET_PRECISION:.2f}, recall ≥ {TARGET_RECALL:.2f}. "
        "Everyday words (token, node, engine, EP, 节点…) are decided by the context rules of "
        "`kg/annotate/context.py`; the trap table shows how often they were linked where the labeller "
        "marked a generic use.",
        "",
        "| split | group | paragraphs | gold | predicted | right | precision | recall |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for split, r in reports.items():
        for key, row in r["groups"].items():
            lines.append(
                f"| {split} | {key} | {row['paragraphs']} | {row['gold']} | {row['predicted']} | {row['right']} "
                f"| {_fmt(row['precision'])} | {_fmt(row['recall'])} |"
            )
    lines += ["", "Trap hits (a mention annotated where it must not be), per kind of trap:", ""]
    kinds = sorted({k for r in reports.values() for k in r["traps"]})
    lines.append("| trap | " + " | ".join(reports) + " |")
    lines.append("|---|" + "---:|" * len(reports))
    for k in kinds:
        cells = [
            f"{r['traps'].get(k, {}).get('hit', 0)}/{r['traps'].get(k, {}).get('traps', 0)}"
            for r in reports.values()
        ]
        lines.append(f"| {k} | " + " | ".join(cells) + " |")
    for split, r in reports.items():
        if is_dev_split(split):
            items = ", ".join(f"{name} ({n})" for name, n in r["unresolved"].items()) or "none"
            lines += ["", f"Gold mentions of **{split}** whose names reach no term (not counted): {items}."]
            if r["problems"]:
                lines += [
                    "",
                    f"Labels of **{split}** that do not fit their text: {'; '.join(r['problems'])}.",
                ]
        else:  # a blind split: counts only, never its items
            n_unresolved = sum(r["unresolved"].values())
            lines += [
                "",
                f"Gold mentions of **{split}** whose names reach no term (not counted): {n_unresolved}; "
                f"labels that do not fit their text: {len(r['problems'])} (a blind split is shown "
                "through counts only).",
            ]
    if target_split in reports:
        met = targets_met(reports[target_split])
        lines += ["", f"Targets met on {target_split}: **{'yes' if met else 'no'}**."]
    return "\n".join(lines) + "\n"


def _fmt(v: float | None) -> str:
    return "–" if v is None else f"{v:.3f}"
