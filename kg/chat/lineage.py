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

__all__ = ["ASKS_PREDECESSOR", "ASKS_SUCCESSOR", "family_of", "predecessor", "successor"]


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


#: "这款 CPU 后来被谁接替？", "What replaced it?", "its successor": what came after the term.
ASKS_SUCCESSOR = re.compile(
    r"被(?:谁|什么|哪个|哪一?款|哪一?代)(?:\S{0,4})?(?:接替|取代|替代|替换)|后来被\S{0,8}(?:接替|取代|替代)|"
    r"\bsuccessor\b|\bwhat(?:'s|’s| is| are| was)?\s+(?:replaced|succeeded|replaces|succeeds|replacing|succeeding)\b"
    r"|\breplaced by (?:what|which)\b"
)
#: A definition that says its term came after another: "在 Rubin GPU 代际中接替 Grace", "取代 TorchAX".
_REPLACES = re.compile(r"接替|取代|替代|替换|\breplac(?:es|ed|ing)\b|\bsucceed")


def successor(ctx: Ctx, question: str) -> str | None:
    """What a follow-up asks came after the term under discussion: a linked term whose own
    definition says it replaces that term ("Vera CPU：…在 Rubin GPU 代际中接替 Grace"); None when the
    question asks no such thing or no linked text says so."""
    asked = ASKS_SUCCESSOR.search(fold(question))
    if asked is None:
        return None
    subject = _successor_subject(ctx, asked.end())
    if subject is None:
        return None
    g = ctx.glossary
    names = [fold(n) for n in g.terms[subject].all_names() if len(n) >= 2]
    # a name's first word will do ("Grace" for Grace CPU): the texts shorten them
    names += [n.split()[0] for n in names if " " in n and len(n.split()[0]) >= 3]
    found = []
    for t in sorted(set(g.neighbours(subject))):
        if t not in g.terms:
            continue
        for d in g.terms[t].definitions:
            text = fold(d.text)
            for m in _REPLACES.finditer(text):
                window = text[m.end() : m.end() + 20]
                if any(re.match(rf"\s*{re.escape(n)}(?![a-z0-9])", window) for n in names):
                    found.append(t)
    # or the term's own text says what replaces it: "TorchAX …这种方式正被 TorchTPU 取代"
    for d in g.terms[subject].definitions:
        for m in _REPLACED_BY.finditer(fold(d.text)):
            by = m.group(1) or m.group(2) or ""
            for t in sorted(set(g.neighbours(subject))):
                if t in g.terms and any(
                    re.search(rf"(?<![a-z0-9]){re.escape(fold(n))}(?![a-z0-9])", by)
                    for n in g.terms[t].all_names()
                    if len(n) >= 2
                ):  # whole names: TPU is not inside TorchTPU
                    found.append(t)
    found = list(dict.fromkeys(found))
    return found[0] if len(found) == 1 else None


def _successor_subject(ctx: Ctx, asked_end: int) -> str | None:
    """The term whose successor is asked: the referent of a follow-up, else the name right after
    the English verb ("What is replacing TorchAX …?") or the name a Chinese question opens with
    ("Grace CPU 后来被谁接替？")."""
    if ctx.used_context and ctx.referent:
        return ctx.referent
    f, spans = ctx.parsed.folded, ctx.analysis.spans
    if not spans:
        return None
    after = next((s for s in spans if s.start >= asked_end and not f[asked_end : s.start].strip()), None)
    if after is not None:
        return after.term_id
    first = spans[0]
    return first.term_id if has_cjk(f) and first.start <= 2 else None


_REPLACED_BY = re.compile(r"被\s*([^，,。；;]{1,24}?)\s*(?:取代|接替|替代|替换)|\breplaced by ([^,.;]{1,30})")
