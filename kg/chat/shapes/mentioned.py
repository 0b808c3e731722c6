"""The "not defined, only mentioned" shape: a question about a name no source defines.

"What is PyTorch?" — PyTorch is a mentioned-only node (:mod:`kg.mentioned`): the sources name
it in other terms' definitions but define it nowhere. The answer says so, in the asker's
language, and quotes the sentences that mention it, each with its source and line, so the
asker sees exactly what the glossary knows and nothing is presented as a definition.

It answers only a question whose subject is exactly such a name ("PyTorch 是什么", "What does
RCCL stand for?", a bare "TorchDynamo", "和 PyTorch 相关的概念有哪些"): "Python 里怎么把列表反转"
is not about Python as the glossary mentions it, and goes through the usual decision.
"""

from __future__ import annotations

from kg.chat.compose import Composer, short_name, t
from kg.chat.context import Ctx
from kg.chat.model import Answer
from kg.model import Term
from kg.store import Glossary

__all__ = ["MAX_SITES", "add_mentions", "mentioned_named", "mentioned_subject", "not_defined"]

#: Sentences quoted at most; the answer says how many more there are.
MAX_SITES = 5
_INTENTS = ("definition", "abbreviation", "relation", "unknown")


def mentioned_named(full: Glossary | None, text: str) -> Term | None:
    """The mentioned-only node named exactly *text*, when no defined term has that name."""
    if full is None or not text.strip():
        return None
    hits = full.lookup(text)
    if not hits or any(h.term.defined for h in hits):
        return None
    return hits[0].term


def mentioned_subject(full: Glossary, ctx: Ctx) -> Term | None:
    """The mentioned-only node the question is about, when its one subject is exactly its name
    and no defined term has that name; None otherwise (and for follow-ups with a pronoun)."""
    parsed = ctx.parsed
    if ctx.used_context or ctx.pronoun is not None or parsed.intent not in _INTENTS:
        return None
    if len(parsed.slots) > 1:
        return None
    slot = parsed.slots[0] if parsed.slots else parsed.body
    return mentioned_named(full, slot.text) if slot is not None else None


def add_mentions(c: Composer, full: Glossary, term: Term, limit: int = MAX_SITES) -> list[str]:
    """Say that *term* is not defined and quote up to *limit* sentences mentioning it (citations of
    kind ``mention``); returns the defined terms whose entries hold them, in order."""
    lang = c.lang
    c.add(t(lang, "mentioned_head", a=f"**{term.label(lang)}**"))
    shown: list[str] = []
    for site in term.mentioned_in:
        if site.sentence in shown:
            continue
        if len(shown) == limit:
            break
        # the entry whose text holds the sentence is what the line names and a reader can open
        # (NCCL for "RCCL 是 AMD 的对应实现"); the mentioned name has no entry of its own
        host = site.term if site.term is not None and site.term in full else term.id
        marker = c.cite(host, site.source, site.sentence, "mention", site.line)
        src = c.src(site.source)
        if site.term is not None and site.term in full:
            entry = f"**{short_name(full.terms[site.term], lang)}**"
            c.add(t(lang, "mentioned_site", entry=entry, src=src, q=c.q(site.sentence)) + " " + marker)
        else:
            c.add(t(lang, "mentioned_plain", src=src, q=c.q(site.sentence)) + " " + marker)
        shown.append(site.sentence)
    rest = len({s.sentence for s in term.mentioned_in}) - len(shown)
    if rest > 0:
        c.add(t(lang, "mentioned_more", n=str(rest)))
    owners = [s.term for s in term.mentioned_in if s.term is not None and s.term in full]
    return list(dict.fromkeys(owners))


def not_defined(ctx: Ctx, full: Glossary, term: Term) -> Answer:
    """The answer "X is not defined in the glossary; it is mentioned in: …", sentences quoted."""
    c = Composer(full, ctx.lang)
    owners = add_mentions(c, full, term)
    follow = [c.follow("define", owners[0])] if owners else []
    intent = (
        ctx.parsed.intent if ctx.parsed.intent in ("definition", "abbreviation", "relation") else "definition"
    )
    return Answer(
        question=ctx.parsed.question,
        lang=ctx.lang,  # type: ignore[arg-type]
        intent=intent,  # type: ignore[arg-type]
        answer=c.text(),
        grounded=bool(c.citations),
        terms=[term.id],
        citations=list(c.citations),
        focus=[term.id],
        suggestions=[],
        follow_ups=follow,
        warnings=list(ctx.warnings),
        linked_by="exact",
    )
