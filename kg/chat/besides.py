"""What else, besides a term: "除了 PagedAttention，这个引擎还靠什么起家？", "vLLM 除了这个，还靠什么
起家？", "Besides PagedAttention, what else did vLLM start with?".

The question sets one term aside (除了 X / besides X / apart from X) and asks for another of the
same statement about a subject: a term it names outside the set-aside phrase, else the term under
discussion. The sources answer when a sentence of the subject's own definitions names X together
with other terms in one clause ("PagedAttention + continuous batching 起家"): the term coordinated
with X there (joined by +, 、, 和, 与, and, a comma), preferring the clause that holds the
question's own verb (起家), is the answer. Without such a sentence nothing is decided.
"""

from __future__ import annotations

import re

from kg.chat.context import Ctx
from kg.textnorm import fold

__all__ = ["besides_answer"]

_BESIDES = re.compile(
    r"除了(?P<zh>[^，,？?。]{1,30}?)(?:之外|以外|外)?(?=[，,]|还|也|，|$)"
    r"|\b(?:besides|apart from|aside from|other than|in addition to)\s+(?P<en>[^,?;]{1,40}?)(?=,|\s+(?:what|which|does|did|is|are|do)\b)"
)
_ELSE = re.compile(r"还|也|另外|else|other|also|another")
_CLAUSE = re.compile(r"[，,；;。：:（）()]")
_JOINED = re.compile(r"^\s*(?:\+|、|和|与|及|以及|跟|and|&|/)\s*$")
#: The verb of a Chinese question after 还 / 也 and its question word ("还靠什么起家" → 起家): the
#: clause that holds it wins among the sentences that coordinate terms with the one set aside.
_ZH_VERB = re.compile(r"(?:还|也)(?:靠|用|有|要|能|会|是)?(?:什么|哪些|哪个|啥)?([\u4e00-\u9fff]{2})")


def _subject_and_set_aside(ctx: Ctx, m: re.Match[str]) -> tuple[str, str] | None:
    inside = [s.term_id for s in ctx.analysis.spans if m.start() <= s.start and s.end <= m.end()]
    outside = [s.term_id for s in ctx.analysis.spans if not (m.start() <= s.start and s.end <= m.end())]
    pointer = ctx.pronoun is not None and m.start() <= ctx.pronoun.start < m.end()
    if inside:
        aside = inside[0]
    elif pointer and ctx.referent:
        aside = ctx.referent  # "vLLM 除了这个": this = the term under discussion
    else:
        return None
    subject = next((t for t in outside if t != aside), None)
    if subject is None and ctx.state is not None:
        # "除了 PagedAttention，这个引擎还…": the engine under discussion
        subject = next((t for turn in reversed(ctx.state.turns) for t in turn.terms if t != aside), None)
    return (subject, aside) if subject is not None else None


def besides_answer(ctx: Ctx) -> tuple[str, str] | None:
    """The term a "besides X, what else …" question asks for and its subject, or None."""
    f = ctx.parsed.folded
    m = _BESIDES.search(f)
    if m is None or not _ELSE.search(f[m.end() :] + f[: m.start()]):
        return None
    found = _subject_and_set_aside(ctx, m)
    if found is None:
        return None
    subject, aside = found
    g = ctx.glossary
    term = g.terms.get(subject)
    if term is None:
        return None
    verb = _ZH_VERB.search(f[m.end() :])
    aside_names = [fold(n) for n in g.terms[aside].all_names() if len(n) >= 2]
    best: tuple[int, str] | None = None
    matcher = ctx.linker.engine.matcher
    for d in term.definitions:
        for clause in _CLAUSE.split(fold(d.text)):
            if not any(n in clause for n in aside_names):
                continue
            spans = [s for s in matcher.find_mentions(clause) if s.term_id in g.terms]
            at = next((i for i, s in enumerate(spans) if s.term_id == aside), None)
            if at is None:
                continue
            for j in (at + 1, at - 1):
                if not 0 <= j < len(spans) or spans[j].term_id in (aside, subject):
                    continue
                lo, hi = sorted((spans[at], spans[j]), key=lambda s: s.start)
                if not _JOINED.match(clause[lo.end : hi.start]):
                    continue
                score = 0 if verb is not None and verb.group(1) in clause else 1
                if best is None or score < best[0]:
                    best = (score, spans[j].term_id)
    return (best[1], subject) if best is not None else None
