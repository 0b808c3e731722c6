"""Which side of a threshold the sources state: "强度低于那个交点的话，算哪种受限？", "If an op's
intensity is below that point, which side is it on?".

A definition may state what lies on each side of the value it defines ("Roofline 图上算力线与带宽线
的交点对应的算术强度。强度低于此点 memory-bound，高于此点 compute-bound。"). A question that puts
something below or above that value (低于 / 小于 / below / less than, 高于 / 大于 / 超过 / above /
higher than), about the term under discussion or one it names, asks for the term the sources
name on that side, not for the threshold again.
"""

from __future__ import annotations

import re

from kg.chat.context import Ctx
from kg.textnorm import fold

__all__ = ["threshold_side"]

_POINT = r"(?:此点|此值|该点|该值|这个点|这个值|它|this point|this value|it)"
#: In a definition: "低于此点 memory-bound", "高于此点 compute-bound"
_SIDE = re.compile(
    rf"(?P<dir>低于|小于|高于|大于|超过|below|under|above|over)\s*{_POINT}\s*(?P<rest>[^，,；;。]+)"
)
_LOW = re.compile(r"低于|小于|不到|不足|below|lower than|less than|under|smaller than|左边|左侧|\bleft\b")
_HIGH = re.compile(r"高于|大于|超过|above|higher than|greater than|more than|exceeds?|右边|右侧|\bright\b")
_LOW_WORDS = ("低于", "小于", "below", "under")
#: The question points at the value itself ("那个交点", "that point", "than the GPU's", "左边"): without a
#: name of its owner, it must, or "higher than" in any question would pick a side.
_POINTED = re.compile(
    r"点|值|脊|左边|右边|左侧|右侧|\b(?:point|value|ridge|left|right)\b|than (?:the |its |a )?(?:gpu|chip|hardware)"
)


def _sides(ctx: Ctx, term_id: str) -> dict[str, str]:
    """ "low" / "high" → the term a definition of *term_id* names on that side of its value."""
    term = ctx.glossary.terms.get(term_id)
    out: dict[str, str] = {}
    for d in term.definitions if term is not None else ():
        for m in _SIDE.finditer(fold(d.text)):
            spans = [s for s in ctx.linker.engine.matcher.find_mentions(m.group("rest")) if s.start == 0]
            if spans and spans[0].term_id in ctx.glossary.terms and spans[0].term_id != term_id:
                out.setdefault("low" if m.group("dir") in _LOW_WORDS else "high", spans[0].term_id)
    return out


def threshold_side(ctx: Ctx) -> tuple[str, str] | None:
    """The term on the side of a stated threshold the question asks about, and the term whose
    value the threshold is; None when the question puts nothing on a side of one."""
    f = ctx.parsed.folded
    low, high = _LOW.search(f), _HIGH.search(f)
    if bool(low) == bool(high):
        return None  # neither side, or both ("低于…还是高于…"): nothing to choose by
    named = [s.term_id for s in ctx.analysis.spans]
    owners = list(named)
    turns = list(ctx.state.turns) if ctx.state is not None else []
    again = (
        bool(turns)
        and len(f) <= 16
        and bool(_LOW.search(fold(turns[-1].question)) or _HIGH.search(fold(turns[-1].question)))
    )
    if _POINTED.search(f) or again:  # "那高于呢？" right after a question about the other side
        # "低于那个交点": the value under discussion, or one next to it ("交点" after questions about
        # the roofline model and arithmetic intensity is the ridge between them)
        if ctx.referent and ctx.used_context:
            owners.append(ctx.referent)
        recent = [t for turn in turns[-3:][::-1] for t in turn.terms[:2]]
        owners += recent + [n for t in recent for n in sorted(ctx.glossary.neighbours(t))]
    for owner in dict.fromkeys(owners):
        sides = _sides(ctx, owner)
        side = sides.get("low" if low else "high")
        if len(sides) == 2 and side is not None and side not in {s.term_id for s in ctx.analysis.spans}:
            return side, owner
    return None
