"""The relation shape: a term's neighbours with each edge's evidence, or the link between two terms."""

from __future__ import annotations

import itertools

from kg.chat.compose import Composer, best_edge, edges_between, t
from kg.chat.context import Ctx
from kg.chat.model import Answer
from kg.chat.shapes.common import (
    finish,
    other_terms,
    pair,
    question_order,
    ranked_neighbours,
    refuse,
    single,
)


def relation(ctx: Ctx) -> Answer:
    g = ctx.glossary
    if len(ctx.parsed.slots) < 2 and len(ctx.referents) >= 2:
        return relation_pair(ctx, ctx.referents[0], ctx.referents[1])
    if len(ctx.parsed.slots) >= 2:
        a, b = pair(ctx)
        if a is not None and b is not None and a.term_id != b.term_id:
            a, b = question_order(ctx, a, b)
            return relation_pair(ctx, a.term_id, b.term_id)
        if a is None and b is None:
            return refuse(ctx)
        focus_link = a or b
    else:
        focus_link = single(ctx)
    if focus_link is None:
        return refuse(ctx)
    ctx.linked_by = focus_link.method
    focus = focus_link.term_id
    ctx.focus = [focus]
    c = Composer(g, ctx.lang)
    c.add(c.bold(focus, full=True))
    c.first_definition(g.terms[focus])
    others = other_terms(ctx, {focus})
    neighbours = ranked_neighbours(ctx, focus, others)
    via = _via_others(ctx, focus, others, neighbours)
    if ctx.parsed.facet == "asks":
        # "StableHLO 最后交给哪个编译器…": the neighbour the search ranks best for the question
        # comes first, and terms reached through another name (TPU's) do not crowd it out
        asked = _asked_for(ctx, focus, others)
        if asked is not None:
            neighbours = [asked, *(n for n in neighbours if n != asked)]
            via = []
    if not neighbours and not via:
        c.add(t(ctx.lang, "rel_none", a=c.bold(focus)))
    else:
        c.add(t(ctx.lang, "rel_head", a=c.bold(focus)))
        for n, bridge in via:
            # "SGLang 里它对应的实现": RadixAttention, linked to SGLang, described in its own words
            d = g.terms[n].definitions[0]
            if c.quoted(d.text):  # the same term reached through another name: said once
                continue
            marker = c.cite(n, d.source, d.text, "definition", d.line)
            edge = best_edge(g, bridge, n)
            bmarker = c.edge_marker(edge, n) if edge is not None else ""
            markers = "".join(dict.fromkeys((marker, bmarker)))
            c.add(
                t(ctx.lang, "via", n=c.bold(n), b=c.bold(bridge), q=c.q(d.text), src=c.src(d.source))
                + f" {markers}"
            )
        for item in c.edge_items(focus, neighbours, max_lines=6 - len(via)):
            c.add(item)
        neighbours = [n for n, _ in via] + neighbours
    follow = [c.follow("define", n) for n in neighbours[:1]]
    if neighbours:
        follow.append(c.follow("compare", focus, neighbours[0]))
    return finish(ctx, c, "relation", follow)


def _asked_for(ctx: Ctx, focus: str, others: list[str]) -> str | None:
    """The neighbour of *focus* a "which" question about it asks for: the best search hit among
    its neighbours, other than the terms the question names."""
    near = set(ctx.glossary.neighbours(focus))
    if ctx.asked in near:
        return ctx.asked  # the alternative the sources tie to the subject, though the question names it
    d = ctx.decision
    if d is not None and d.candidate in near and d.candidate not in others:
        return d.candidate  # the term the decision (or the follow-up ranker) chose
    hits = ctx.retrieval.hits if ctx.retrieval is not None else []
    return next((h.term_id for h in hits if h.term_id in near and h.term_id not in others), None)


def _via_others(ctx: Ctx, focus: str, others: list[str], neighbours: list[str]) -> list[tuple[str, str]]:
    """Terms the question points at through another term it names, not linked to *focus* itself.

    "SGLang 里它（前缀缓存）对应的实现叫什么": RadixAttention is linked to SGLang, not to
    prefix caching; it is listed (with the edge to SGLang) when SGLang is itself linked to
    prefix caching and a search for the question, pronoun replaced, ranks it in the top five.
    """
    g = ctx.glossary
    if not others:
        return []
    top = [h.term_id for h in ctx.linker.search(ctx.body_text()).hits[:5]]
    direct = set(g.neighbours(focus))
    out: list[tuple[str, str]] = []
    for other in others:
        # the bridge must itself be linked to the focus (SGLang – prefix caching)
        if other == ctx.referent or other not in direct:
            continue
        near = set(g.neighbours(other))
        for tid in top:
            if (
                tid in near
                and tid not in direct
                and tid != focus
                and tid not in others
                and g.terms[tid].definitions
            ):
                out.append((tid, other))
    return out[:2]


def relation_pair(ctx: Ctx, a: str, b: str) -> Answer:
    g = ctx.glossary
    ctx.focus = [a, b]
    c = Composer(g, ctx.lang)
    ctx.linked_by = "mention"
    c.add(t(ctx.lang, "cmp_head", a=c.bold(a, full=True), b=c.bold(b, full=True)))
    for term_id in (a, b):
        c.add(f"{c.bold(term_id)}{t(ctx.lang, 'colon')}")
        c.first_definition(g.terms[term_id])
        if c.lines[-1].endswith(t(ctx.lang, "colon")):
            c.lines.pop()  # its definition is words quoted above already: no empty heading
    direct = edges_between(g, a, b)
    for e in direct[:3]:
        quote = c.fresh_part(e.evidence)  # not the words a definition above quotes
        if quote is None:
            continue
        marker = c.edge_marker(e, b if e.source == b else a, quote)
        c.add(
            t(
                ctx.lang,
                "between",
                a=c.bold(e.source),
                b=c.bold(e.target),
                src=c.src(e.doc),
                q=c.q(quote),
            )
            + " "
            + marker
        )
    if not direct:
        c.add(t(ctx.lang, "rel_pair_none", a=c.bold(a), b=c.bold(b)))
        path = g.shortest_path(a, b)
        if path and len(path) <= 4:
            items = []
            for u, v in itertools.pairwise(path):
                hop = best_edge(g, u, v)
                if hop is not None:
                    items.append(f"{c.name(u)} → {c.name(v)} {c.edge_marker(hop, v)}")
            if items:
                c.add(
                    t(ctx.lang, "rel_path", path="；".join(items) if ctx.lang == "zh" else "; ".join(items))
                )
    return finish(ctx, c, "relation", [c.follow("compare", a, b), c.follow("related", a)])
