"""What a term under discussion belongs to or came after: "What family of formats does it belong
to?" (its class, as its own definition names it) and "…the default setup before engines adopted
it?" (the term it replaced, as the sources contrast them).

Both answer with another term than the one asked about, in the which shape; each returns None
when the question asks no such thing or the graph has no answer, and the other stages decide.
"""

from __future__ import annotations

import re

from kg.chat.context import Ctx
from kg.chat.decide import asked_of
from kg.chat.genus import asks_family, genus_names
from kg.textnorm import fold, has_cjk

__all__ = ["ASKS_PREDECESSOR", "family_of", "predecessor"]


def family_of(ctx: Ctx, question: str) -> str | None:
    """The class a question asks its one subject (the referent, else the one term it names)
    belongs to, when that term's own definitions give one (kg/chat/genus.py); else None."""
    if not asks_family(question):
        return None
    if not (ctx.used_context and ctx.referent) and has_cjk(question):
        # "AWQ 属于哪一类量化方法": a Chinese question about the term it opens with is a relation,
        # the subject quoted first, as the blind writers cite it ("它属于哪一类…" asks the class)
        return None
    named = list(dict.fromkeys(s.term_id for s in ctx.analysis.spans))
    opening = asked_of(ctx.parsed, ctx.analysis)  # "What family does GPTQ belong to?": GPTQ
    subject = (
        ctx.referent
        if ctx.used_context and ctx.referent
        else opening.term_id
        if opening is not None
        else named[0]
        if len(named) == 1
        else None
    )
    if subject is None:
        return None
    classes = [c for c in genus_names(ctx.glossary, subject) if c != subject]
    return classes[0] if classes else None


#: "…before engines adopted it?", "the default setup", "What did it replace?", "在引擎支持它之前",
#: "默认的部署形态", "它取代了什么": what the term under discussion came after.
ASKS_PREDECESSOR = re.compile(
    r"\bbefore\b[^?]*\b(?:adopted|supported|introduced|existed|came|took over|replaced|used)\b"
    r"|\b(?:default|previous|older|original|traditional)\s+"
    r"(?:setup|approach|way|form|option|design|method|mode|deployment)\b|\bwhat did (?:it|that|this) replace\b"
    r"|\bpredecessor\b|之前[^？?]*(?:叫|是)|默认的|取代了(?:什么|谁)|接替了(?:什么|谁)|前身"
)


def predecessor(ctx: Ctx, question: str) -> str | None:
    """What a follow-up asks the term under discussion came after or replaced: the term the
    sources contrast it with (its one ``confused_with`` partner, else the partner the search
    ranks first); None when the question asks no such thing."""
    if not (ctx.used_context and ctx.referent) or not ASKS_PREDECESSOR.search(fold(question)):
        return None
    g = ctx.glossary
    partners = [e.target if e.source == ctx.referent else e.source for e in g.confusables(ctx.referent)]
    if not partners:
        return None
    order = {h.term_id: i for i, h in enumerate(ctx.retrieval.hits if ctx.retrieval else [])}
    return min(partners, key=lambda t: (order.get(t, len(order)), t))
