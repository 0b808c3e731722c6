"""Surface variants of first turns: does the chatbot keep its answer when the same question is
typed differently?

Every first turn of a chat split that the chatbot answers right (its first citation is the
turn's first gold concept) is asked again in small, meaning-preserving variants — in capitals,
wrapped in a request ("Can you tell me: …"), behind a greeting or a call for help, with thanks
after it, without its question mark, with one letter dropped from its longest English word, in
Traditional characters, behind a discourse marker ("具体来说，…"). A variant *keeps* the answer
when its first citation is still a gold concept of the turn's first cite.

The share kept, per variant, says how much of the chatbot's accuracy depends on the exact
wording of the question. The variants are fixed functions of the question (no randomness), so
a run is repeatable. Only first turns are asked: a follow-up's variant would have to be replayed
inside its conversation, and its answer depends on the turns before it as well.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from kg.chat.evaluate import CLARIFY_KIND, OOD_KIND, AnswerFn, Conversation, _resolve_concept, default_answer
from kg.search.engine import SearchEngine
from kg.store import Glossary
from kg.textnorm import has_cjk

__all__ = ["VARIANTS", "VariantReport", "render_markdown", "score_variants", "variants_of"]

_LATIN_WORD = re.compile(r"[A-Za-z]{7,}")
_END = re.compile(r"[\s?？!！。.]+$")


@lru_cache(maxsize=1)
def _to_traditional() -> Any:
    import opencc

    return opencc.OpenCC("s2twp")


def _lower_first(q: str) -> str:
    return q[:1].lower() + q[1:] if q[:2] != q[:2].upper() else q  # "TTFT …" keeps its capitals


def _typo(q: str) -> str:
    """One letter dropped from the middle of the longest English word of seven letters or more
    ("PagedAttention" → "PagedAtention"); the question itself when it has none."""
    words = _LATIN_WORD.findall(q)
    if not words:
        return q
    w = max(words, key=len)
    i = len(w) // 2
    return q.replace(w, w[:i] + w[i + 1 :], 1)


#: Variant name → (language it applies to, the variant of a question). Each keeps the meaning.
VARIANTS: dict[str, tuple[str, Callable[[str], str]]] = {
    "en_caps": ("en", str.upper),
    "en_request": ("en", lambda q: "Can you tell me: " + _lower_first(q)),
    "en_help": ("en", lambda q: "Please help: " + _lower_first(q)),
    "en_greeting": ("en", lambda q: "Hi! " + q),
    "en_thanks": ("en", lambda q: q + " Thanks."),
    "en_no_mark": ("en", lambda q: _END.sub("", q)),
    "en_typo": ("en", _typo),
    "zh_traditional": ("zh", lambda q: _to_traditional().convert(q)),
    "zh_lead": ("zh", lambda q: "请问，" + q),
    "zh_marker": ("zh", lambda q: "具体来说，" + q),
    "zh_thanks": ("zh", lambda q: q + "谢谢！"),
    "zh_no_mark": ("zh", lambda q: _END.sub("", q)),
}


def variants_of(question: str) -> Iterator[tuple[str, str]]:
    """(variant name, variant) for each variant of *question*'s language that changes it."""
    lang = "zh" if has_cjk(question) else "en"
    for name, (applies, make) in VARIANTS.items():
        if applies == lang:
            v = make(question)
            if v != question:
                yield name, v


@dataclass
class VariantReport:
    """One split: first turns answered right, and per variant how many kept the answer."""

    right: int = 0
    first_turns: int = 0
    kept: dict[str, int] = field(default_factory=dict)
    asked: dict[str, int] = field(default_factory=dict)
    #: up to a few variants that lost the answer, per variant name (for reading, not scoring)
    lost: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def share(self, name: str | None = None) -> float | None:
        """Share of variants that kept the answer, of one variant or of all."""
        asked = self.asked.get(name, 0) if name else sum(self.asked.values())
        kept = self.kept.get(name, 0) if name else sum(self.kept.values())
        return kept / asked if asked else None


def _first(ans: Any) -> str | None:
    return ans.citations[0].term_id if ans.citations else None


def score_variants(
    glossary: Glossary,
    engine: SearchEngine,
    conversations: Sequence[Conversation],
    *,
    answer_fn: AnswerFn = default_answer,
    examples: int = 3,
) -> VariantReport:
    """Ask every right first turn again in each variant; count the variants that keep it right."""
    report = VariantReport()
    for conv in conversations:
        turn = conv.turns[0]
        if turn.kind in (OOD_KIND, CLARIFY_KIND) or not turn.cite:
            continue
        gold = _resolve_concept(glossary, turn.cite[0])
        if not gold:
            continue
        report.first_turns += 1
        if _first(answer_fn(glossary, engine, turn.user)) not in gold:
            continue
        report.right += 1
        for name, text in variants_of(turn.user):
            report.asked[name] = report.asked.get(name, 0) + 1
            got = _first(answer_fn(glossary, engine, text))
            if got in gold:
                report.kept[name] = report.kept.get(name, 0) + 1
            elif len(report.lost.setdefault(name, [])) < examples:
                report.lost[name].append({"id": conv.id, "variant": text, "first_citation": got})
    return report


def _pct(v: float | None) -> str:
    return "–" if v is None else f"{v * 100:.1f} %"


def render_markdown(reports: dict[str, VariantReport], *, command: str) -> str:
    """The section of docs/EVAL.md: variants kept per split."""
    names = [n for n in VARIANTS if any(r.asked.get(n) for r in reports.values())]
    lines = [
        "## Chat: surface variants of first turns",
        "",
        f"Written by `{command}` (`kg/evaluation/variants.py`). Each first turn the chatbot answers",
        "right is asked again in fixed variants of its wording; a variant keeps the answer when its",
        "first citation is still the turn's gold concept. Kept / asked:",
        "",
        "| variant | " + " | ".join(reports) + " |",
        "|---|" + "---|" * len(reports),
    ]
    for n in names:
        cells = [
            f"{_pct(r.share(n))} ({r.kept.get(n, 0)}/{r.asked.get(n, 0)})" if r.asked.get(n) else "–"
            for r in reports.values()
        ]
        lines.append(f"| `{n}` | " + " | ".join(cells) + " |")
    lines.append(
        "| **all** | "
        + " | ".join(
            f"**{_pct(r.share())}** ({sum(r.kept.values())}/{sum(r.asked.values())})"
            for r in reports.values()
        )
        + " |"
    )
    lines.append(
        "| first turns right / scored | "
        + " | ".join(f"{r.right}/{r.first_turns}" for r in reports.values())
        + " |"
    )
    lines.append("")
    return "\n".join(lines)
