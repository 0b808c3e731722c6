"""The definition, names and abbreviation shapes (and bare names: "TTFT")."""

from __future__ import annotations

import re

from kg.chat.compose import Composer, edges_between, t
from kg.chat.context import Ctx
from kg.chat.model import Answer
from kg.chat.shapes.common import finish, one_term, other_terms, ranked_neighbours
from kg.model import Edge
from kg.textnorm import has_cjk, name_key

_COORDINATOR = re.compile(r"^\s*(?:,|，|、|/|&|和|与|跟|及|以及|and|or|vs\.?|versus)\s*$")


def coordinated(ctx: Ctx) -> list[str]:
    """The two terms of a subject that is two names joined by "and" / "和" ("Explain cuBLAS and
    cuDNN", "SXM 和 PCIe 介绍一下"), in the user's order; [] for any other subject."""
    if ctx.used_context or not ctx.parsed.slots or (ctx.parsed.facet or "").startswith("names"):
        return []
    if ctx.pronoun is not None and ctx.referent:
        return []  # "AWQ 跟 GPTQ 里，第二个是靠什么…": the pointer picked one of the two
    slot = ctx.parsed.slots[0]
    spans = ctx.linker.spans_in(ctx.analysis, slot)
    if len(spans) != 2 or spans[0].term_id == spans[1].term_id:
        return []
    between = ctx.parsed.folded[spans[0].end : spans[1].start]
    return [spans[0].term_id, spans[1].term_id] if _COORDINATOR.match(between) else []


def definition(ctx: Ctx) -> Answer:
    both = coordinated(ctx)
    if both:
        # two subjects: both definitions, in the user's order, and what the sources say between them
        from kg.chat.shapes.comparison import comparison

        ctx.referents = both
        ctx.parsed.slots = ctx.parsed.slots[:1]
        return comparison(ctx)
    found = one_term(ctx)
    if isinstance(found, Answer):
        return found
    link, term, c = found
    g = ctx.glossary
    facet = ctx.parsed.facet
    if facet and facet.startswith("names"):
        return names(ctx, c, term.id)
    c.add(c.bold(term.id, full=True))
    c.definitions(term, max_defs=2 if facet != "measure" else 3)
    slot = ctx.parsed.slots[0] if ctx.parsed.slots else None
    joint = (
        ctx.linker.joint_statement(term.id, ctx.parsed.folded[slot.start : slot.end])
        if link.method in ("search", "context") and slot is not None
        else None
    )
    if joint is not None:
        # "What does 8K/1K mean?": the line that says it of the pair, whole, beside the first member's
        # own definitions
        members, edge = joint
        part = c.fresh_part(edge.evidence)  # not the member's own clause quoted above again
        for other in members[1:] if part is not None else []:
            _between(ctx, c, term.id, other, edge, part)
    others = other_terms(ctx, {term.id}, outside=None if link.method == "context" else slot)
    named_above: list[str] = []  # linked by a sentence the definitions above already quote
    for other in others[:2]:
        edges = edges_between(g, term.id, other)
        fresh = c.fresh_statements(edges)
        if edges and not fresh:
            named_above.append(other)
        for e, part in fresh[:1]:
            _between(ctx, c, term.id, other, e, part)
    neighbours = [*named_above, *ranked_neighbours(ctx, term.id, others)]
    related = c.related_names(term.id, neighbours, limit=4)
    if related:
        c.add(related)
    follow = []
    confused = [e.target if e.source == term.id else e.source for e in g.confusables(term.id)]
    if confused:
        follow.append(c.follow("compare", term.id, confused[0]))
    follow.append(c.follow("related", term.id))
    if neighbours:
        follow.append(c.follow("define", neighbours[0]))
    return finish(ctx, c, "definition", follow)


def _between(ctx: Ctx, c: Composer, term_id: str, other: str, edge: Edge, part: str | None = None) -> None:
    """ "**A** and **B** (source): 「evidence」 [n]": what the sources say between two terms
    (*part*: the evidence's words the answer does not quote yet, when not all of them)."""
    quote = part or edge.evidence
    marker = c.edge_marker(edge, other, quote)
    c.add(
        t(ctx.lang, "between", a=c.bold(term_id), b=c.bold(other), src=c.src(edge.doc), q=c.q(quote))
        + " "
        + marker
    )


def names(ctx: Ctx, c: Composer, term_id: str) -> Answer:
    term = ctx.glossary.terms[term_id]
    lang = ctx.lang
    none = t(lang, "none")
    sep = t(lang, "sep")
    zh = [n for n in [term.labels.get("zh"), *term.aliases] if n and has_cjk(n)]
    en = [n for n in [term.labels.get("en"), *term.aliases] if n and not has_cjk(n)]
    abbr = t(lang, "names_abbr", v=sep.join(term.abbreviations)) if term.abbreviations else ""
    c.add(
        t(
            lang,
            "names",
            t=c.bold(term_id),
            zh=sep.join(dict.fromkeys(zh[:3])) or none,
            en=sep.join(dict.fromkeys(en[:3])) or none,
            abbr=abbr,
            alias="",
        )
    )
    c.first_definition(term)
    follow = [c.follow("related", term_id)]
    return finish(ctx, c, "definition", follow)


def abbreviation(ctx: Ctx) -> Answer:
    found = one_term(ctx)
    if isinstance(found, Answer):
        return found
    link, term, c = found
    asked = (link.name or (ctx.parsed.slots[0].text if ctx.parsed.slots else "")).strip()
    asked_key = name_key(asked)
    full = [n for n in (term.labels.get("en"), term.labels.get("zh")) if n and name_key(n) != asked_key]
    sep = t(ctx.lang, "sep")
    if not full:
        c.add(t(ctx.lang, "abbr_nofull", asked=f"**{asked}**"))
    elif any(name_key(a) == asked_key for a in term.abbreviations):
        c.add(t(ctx.lang, "abbr_is", asked=f"**{asked}**", full=sep.join(f"**{n}**" for n in full)))
    else:
        c.add(t(ctx.lang, "abbr_alias", asked=f"**{asked}**", full=sep.join(f"**{n}**" for n in full)))
    c.definitions(term, max_defs=2)
    neighbours = ranked_neighbours(ctx, term.id)
    related = c.related_names(term.id, neighbours, limit=3)
    if related:
        c.add(related)
    return finish(ctx, c, "abbreviation", [c.follow("related", term.id)])
