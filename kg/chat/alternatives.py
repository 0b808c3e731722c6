"""Which of two offered alternatives a term is: "prefill 是 compute-bound 还是 memory-bound？".

A question that offers two alternatives ("A 还是 B", "A or B?") about a subject — a term it names
besides them, else the term under discussion ("那它一般是卡算力还是卡带宽？" after prefill) — is
answered with the alternative the sources tie to the subject. The alternatives may be named
("AOT 还是 JIT"), pointed at ("算前者还是后者？", "the first or the second?": the two terms under
discussion), or said as a bottleneck ("卡算力还是卡带宽", "bound by compute or by memory"), which
names the bound terms (compute-bound, memory-bound, capacity-bound).

The sources decide, clause by clause: an alternative is tied to the subject when a clause of its own
definitions names the subject ("典型：大 batch 的 GEMM、prefill 阶段" in compute-bound), or a clause
of the subject's definitions names it, and that clause does not name the other alternative too. A
definition both alternatives share ("两种编译时机。AOT …（TensorRT 的 Plan 文件）；JIT …") counts
only in the clauses that name the alternative. When both or neither are tied, nothing is decided
and the other stages answer as before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kg.chat.context import Ctx
from kg.store import Glossary
from kg.textnorm import fold

__all__ = ["chosen_alternative"]

_OR_ZH = re.compile(
    r"(?P<a>[^，,。；;？?]{1,24}?)\s*还是\s*(?P<b>[^，,。；;？?]{1,24}?)\s*(?:呢|啊|吧|呀)?\s*[？?。]?\s*$"
)
_OR_EN = re.compile(r"(?P<a>[^,;:?]{1,40}?)\s*,?\s+or\s+(?P<b>[^,;:?]{1,40}?)\s*[?.!]*\s*$")

#: Alternatives that point at the two terms under discussion, in their order.
_FIRST = re.compile(r"(?:前者|前一个|第一个|\bfirst(?:\s+one)?|\bformer)$")
_SECOND = re.compile(r"^(?:the\s+)?(?:后者|后一个|第二个|second(?:\s+one)?|latter)$")

#: "长上下文属于哪一种瓶颈？", "这算哪种受限？", "what's it usually bound by?": a choice among the bound
#: terms, none named.
_ASKS_BOUND = re.compile(
    r"哪一?(?:种|类|个)(?:受限|瓶颈)|什么(?:受限|瓶颈)|(?:bound|bottlenecked|limited) by what|"
    r"\bwhat(?:'s| is| are)? (?:it |they |that |this )?(?:usually |mostly |typically |normally )?"
    r"(?:bound|bottlenecked|limited) by\b"
)
#: A question about what limits something; its alternatives then name bound terms.
_BOUND = re.compile(r"卡|受限|瓶颈|限制|\bbound\b|\blimited\b|\bbottleneck")
_BOUND_TERMS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"算力|计算|compute|flops|math"), "compute-bound"),
    (re.compile(r"带宽|访存|bandwidth|memory(?:\s+bandwidth)?$|内存$"), "memory-bound"),
    (re.compile(r"容量|显存装|capacity"), "capacity-bound"),
)

#: A demonstrative before the alternatives: the subject is the term under discussion.
_POINTER = re.compile(r"这个|那个|这种|那种|该|\b(?:this|that|these|those)\b")

_CLAUSE = re.compile(r"[。；;！!？?\n]|(?<=[a-z\)])\.\s")


def _side_terms(ctx: Ctx, start: int, end: int, bound: bool) -> list[str]:
    """The terms one alternative (the text between *start* and *end*) names."""
    text = ctx.parsed.folded[start:end].strip()
    named = [s.term_id for s in ctx.analysis.spans if start <= s.start and s.end <= end]
    if bound:
        for pattern, term_id in _BOUND_TERMS:
            if pattern.search(text) and term_id in ctx.glossary.terms:
                return [term_id]
    return named


def _offered(ctx: Ctx) -> tuple[tuple[str, ...], int] | None:
    """The alternatives and where the first one's own words start."""
    folded = ctx.parsed.folded
    m = _OR_ZH.search(folded) or _OR_EN.search(folded)
    if m is None:
        asked = _ASKS_BOUND.search(folded)
        bounds = tuple(t for _, t in _BOUND_TERMS if t in ctx.glossary.terms)
        return (bounds, asked.start()) if asked and len(bounds) >= 2 else None
    a_text, b_text = m.group("a").strip(), m.group("b").strip()
    topic = ctx.state.topic if ctx.state is not None else []
    if _FIRST.search(a_text) and _SECOND.match(b_text):
        first = _FIRST.search(folded, m.start("a"))
        return ((topic[0], topic[1]), first.start() if first else m.end("a")) if len(topic) >= 2 else None
    bound = bool(_BOUND.search(folded))
    a = _side_terms(ctx, m.start("a"), m.end("a"), bound)
    b = _side_terms(ctx, m.start("b"), m.end("b"), bound)
    if not a or not b or a[-1] == b[0]:
        return None
    spans = [s for s in ctx.analysis.spans if s.term_id == a[-1] and m.start("a") <= s.start]
    start = spans[-1].start if spans else _side_start(folded, m.start("a"), m.end("a"))
    return (a[-1], b[0]), start


def _side_start(folded: str, start: int, end: int) -> int:
    """Where a bottleneck alternative's own words begin ("…一般卡在算力" → "算力")."""
    for pattern, _ in _BOUND_TERMS:
        hit = pattern.search(folded, start, end)
        if hit:
            return hit.start()
    return start


def _names(glossary: Glossary, term_id: str) -> list[str]:
    return [fold(n) for n in glossary.terms[term_id].all_names() if len(n) >= 2]


def _says(clause: str, names: Sequence[str]) -> bool:
    for n in names:
        if re.search(r"[a-z0-9]", n):
            if re.search(rf"(?<![a-z0-9]){re.escape(n)}(?![a-z0-9])", clause):
                return True
        elif n in clause:
            return True
    return False


def _ties(glossary: Glossary, subject: str, side: str, others: Sequence[str]) -> int:
    """Clauses that tie *side* to *subject* without naming any of *others*."""
    s_names, side_names = _names(glossary, subject), _names(glossary, side)
    other_names = [n for o in others for n in _names(glossary, o)]
    other_texts = {d.text for o in others for d in glossary.terms[o].definitions}
    count = 0
    for owner, needs in ((side, s_names), (subject, side_names)):
        for d in glossary.terms[owner].definitions:
            shared = owner == side and d.text in other_texts
            for clause in _CLAUSE.split(fold(d.text)):
                if not _says(clause, needs) or _says(clause, other_names):
                    continue
                if shared and not _says(clause, side_names):
                    continue
                count += 1
    return count


def chosen_alternative(ctx: Ctx) -> tuple[str, str] | None:
    """The offered alternative the sources tie to the question's subject, and that subject; or None."""
    found = _offered(ctx)
    if found is None:
        return None
    offered, start = found
    # the subject: a term named before the alternatives, else the term under discussion (a pronoun,
    # or a demonstrative noun: "那个阶段一般卡在算力还是带宽上？")
    named = [s.term_id for s in ctx.analysis.spans if s.end <= start and s.term_id not in offered]
    subject = named[0] if named else ctx.referent
    if (
        subject is None
        and ctx.state is not None
        and ctx.state.topic
        and _POINTER.search(ctx.parsed.folded[:start])
    ):
        subject = ctx.state.topic[0]
    if subject is None or subject in offered or subject not in ctx.glossary.terms:
        return None
    g = ctx.glossary
    ties = {x: _ties(g, subject, x, [o for o in offered if o != x]) for x in offered}
    best = max(ties.values())
    winners = [x for x, n in ties.items() if n == best]
    if best == 0 or len(winners) != 1:
        return None
    return winners[0], subject
