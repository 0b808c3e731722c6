"""The comparison shape: both sides' definitions, the contrast in the sources' words, shared neighbours."""

from __future__ import annotations

import re

from kg.chat.compose import Composer, best_edge, edges_between, t
from kg.chat.context import Ctx
from kg.chat.linking import Link
from kg.chat.model import Answer
from kg.chat.shapes.common import finish, only_pronoun, pair, question_order, refuse
from kg.chat.shapes.definition import definition
from kg.chat.shapes.howto import howto
from kg.chat.shapes.mentioned import add_mentions, mentioned_named
from kg.textnorm import fold


def comparison(ctx: Ctx) -> Answer:
    if len(ctx.parsed.slots) < 2 and len(ctx.referents) < 2:
        return definition(ctx)
    in_conversation = ctx.state is not None and bool(ctx.state.topic)
    if (
        not ctx.referents
        and not in_conversation
        and not any(
            slot.start <= s.start and s.end <= slot.end
            for slot in ctx.parsed.slots
            for s in ctx.analysis.spans
        )
    ):
        # "比較兩家晶片的時候…要怎麼比才公平？": opening a conversation, sides no name links are no
        # two terms to compare; the question is about the one term retrieval finds (apples-to-
        # apples). Inside one, "内部的和外部的有什么区别？" completes its sides from the topic.
        return howto(ctx)
    slots = ctx.parsed.slots
    p = ctx.pronoun
    listed_here = p is not None and p.ref == "both" and not ctx.used_context and len(ctx.referents) >= 2
    if (
        len(slots) < 2
        or (len(ctx.referents) >= 2 and all(only_pronoun(ctx, s) for s in slots[:2]))
        # "vLLM、SGLang 和 TGI 这三个有啥区别": the terms the question lists, in its order
        or listed_here
    ):
        # "how does the second one differ from the first?": each pointer picked its own term
        a: Link | None = Link(ctx.referents[0], "context")
        b: Link | None = Link(ctx.referents[1], "context")
    else:
        a, b = pair(ctx)
    g = ctx.glossary
    c = Composer(g, ctx.lang)
    if in_conversation and len(slots) >= 2 and not ctx.linker.spans_in(ctx.analysis, slots[0]):
        # "TCO 都包括哪些成本？" … "内部的和外部的有什么区别？": each bare modifier is a kind of the term
        # under discussion (内部 TCO, 外部 TCO), before any search for the bare words
        kinds = _kind_of_topic(ctx, slots[0].text), _kind_of_topic(ctx, slots[1].text)
        if kinds[0] is not None and kinds[1] is not None:
            a, b = kinds
        else:
            a, b = a or kinds[0], b or kinds[1]
    if (
        a is not None
        and b is not None
        and a.term_id == b.term_id
        and (a.method == "search") != (b.method == "search")
    ):
        # "华光互连和 InfiniBand 有什么区别？": a side that only retrieval found is no name of the
        # term the other side names; calling both "names of one concept" would invent an alias
        a, b = (None, b) if a.method == "search" else (a, None)
    if a is None and b is None:
        return refuse(ctx)
    if a is None or b is None:
        found = a or b
        assert found is not None
        missing = ctx.parsed.slots[1 if a is not None else 0].text
        ctx.focus = [found.term_id]
        ctx.linked_by = found.method
        only_mentioned = mentioned_named(ctx.full, missing)
        if only_mentioned is not None and ctx.full is not None:
            # "NCCL 和 RCCL 有什么区别": RCCL is no term, but the sources say something about it
            c.add(c.bold(found.term_id, full=True))
            c.definitions(g.terms[found.term_id], max_defs=1)
            add_mentions(c, ctx.full, only_mentioned, limit=3)
            return finish(ctx, c, "comparison", [c.follow("related", found.term_id)])
        ctx.warnings.append(f"no term matches {missing!r}")
        suggestions = _counterparts(ctx, found.term_id, missing) or ctx.suggestions
        items = t(ctx.lang, "sep").join(c.name(s) for s in suggestions[:3]) or "–"
        c.add(t(ctx.lang, "partial", slot=missing, items=items, a=c.bold(found.term_id)))
        c.add(c.bold(found.term_id, full=True))
        c.definitions(g.terms[found.term_id], max_defs=1)
        follow = [c.follow("define", s) for s in suggestions[:2]]
        return finish(ctx, c, "comparison", follow)
    a, b = _namesakes(ctx, a, b)
    a, b = question_order(ctx, a, b)
    ctx.linked_by = a.method if a.method != "context" else b.method
    # "vLLM、SGLang 和 TGI 这三个有啥区别": every listed term is a side (up to four)
    extra = [r for r in ctx.referents if r not in (a.term_id, b.term_id)] if listed_here else []
    ctx.focus = list(dict.fromkeys([a.term_id, b.term_id, *extra]))
    if a.term_id == b.term_id:
        term = g.terms[a.term_id]
        names = t(ctx.lang, "sep").join(term.all_names()[:5])
        c.add(t(ctx.lang, "same_term", a=ctx.parsed.slots[0].text, b=ctx.parsed.slots[1].text, names=names))
        c.definitions(term, max_defs=1)
        return finish(ctx, c, "comparison", [c.follow("related", term.id)])
    ta, tb = g.terms[a.term_id], g.terms[b.term_id]
    others = t(ctx.lang, "sep").join(c.bold(x, full=True) for x in [tb.id, *extra])
    c.add(t(ctx.lang, "cmp_head", a=c.bold(ta.id, full=True), b=others))
    for term in (ta, tb, *(g.terms[x] for x in extra)):
        c.add(f"{c.bold(term.id)}{t(ctx.lang, 'colon')}")
        c.definitions(term, max_defs=1, notes=1)
        if c.lines[-1].endswith(t(ctx.lang, "colon")):
            c.lines.pop()  # its definition is words quoted above already: no empty heading
    direct = edges_between(g, ta.id, tb.id)
    for e in direct[:3]:
        quote = c.fresh_part(e.evidence)  # not the words a definition or note above quotes
        if quote is None:
            continue
        key = "cmp_diff" if e.type == "confused_with" else "cmp_edge"
        about = tb.id if e.source == tb.id else ta.id
        marker = c.edge_marker(e, about, quote)
        c.add(t(ctx.lang, key, src=c.src(e.doc), q=c.q(quote)) + " " + marker)
    if not direct:
        c.add(t(ctx.lang, "cmp_none"))
    shared = sorted(set(g.neighbours(ta.id)) & set(g.neighbours(tb.id)) - {ta.id, tb.id})
    shared_items = []
    for s in shared[:3]:
        ea, eb = best_edge(g, ta.id, s), best_edge(g, tb.id, s)
        if ea is None or eb is None:
            continue
        markers = dict.fromkeys((c.edge_marker(ea, s), c.edge_marker(eb, s)))
        shared_items.append(f"{c.name(s)} {''.join(markers)}")
    if shared_items:
        c.add(t(ctx.lang, "cmp_shared", items=t(ctx.lang, "sep").join(shared_items)))
    follow = [c.follow("related", ta.id), c.follow("related", tb.id)]
    if shared:
        follow.insert(0, c.follow("define", shared[0]))
    return finish(ctx, c, "comparison", follow)


def _kind_of_topic(ctx: Ctx, modifier: str) -> Link | None:
    """The term the topic's name narrowed by *modifier* names ("内部的" + TCO → 内部 TCO), or the
    one neighbour of the topic whose name holds the modifier."""
    state = ctx.state
    if state is None or not state.topic or state.topic[0] not in ctx.glossary:
        return None
    word = re.sub(r"(?:的|那个|这个|那种|这种|one|ones|kind)\s*$", "", fold(modifier).strip()).strip()
    if not word or len(word) > 12 or ctx.linker.engine.matcher.exact(word):
        return None
    topic = ctx.glossary.terms[state.topic[0]]
    for name in topic.all_names():
        for joined in (f"{word} {name}", f"{word}{name}"):
            hit = ctx.linker.engine.matcher.exact(joined)
            if hit and hit[0].term_id != topic.id:
                return Link(hit[0].term_id, "context")
    near = [
        t
        for t in ctx.glossary.neighbours(topic.id)
        if t in ctx.glossary and any(word in fold(n) for n in ctx.glossary.terms[t].all_names())
    ]
    return Link(near[0], "context") if len(near) == 1 else None


def _counterparts(ctx: Ctx, term_id: str, missing: str, limit: int = 3) -> list[str]:
    """What the glossary sets beside *term_id*, for a comparison whose other side it lacks ("Is
    HBM faster than GDDR?"): the terms the sources contrast it with, then those linked to it, each
    group in the order a search for the missing side ranks them. A search for an unknown word alone
    ranks arbitrary terms ("gddr" → NCCL, LoRA); the known side's own neighbours are what a user
    comparing it would pick from."""
    g = ctx.glossary
    ranks = {h.term_id: i for i, h in enumerate(ctx.linker.search(missing).hits)}
    out: list[str] = []
    for kinds in (("confused_with",), ("related_to",)):
        near = [n for n in g.neighbours(term_id, kinds) if n != term_id and n in g.terms and n not in out]
        out += sorted(dict.fromkeys(near), key=lambda n: (ranks.get(n, len(ranks)), n))
    return out[:limit]


_WORD = re.compile(r"[a-z0-9][a-z0-9+.-]*|[\u4e00-\u9fff]+")
_FILLER = frozenset(
    [
        "the",
        "a",
        "an",
        "of",
        "for",
        "to",
        "in",
        "on",
        "by",
        "with",
        "that",
        "this",
        "it",
        "is",
        "are",
        "one",
        "same",
    ]
)


def _namesake(ctx: Ctx, term_id: str, text: str) -> str | None:
    """The term contrasted with *term_id* that shares a word of its name and that *text*'s other
    words describe better than *term_id*'s own text: "NVIDIA Triton" beside OpenAI Triton is
    Triton Inference Server ("NVIDIA 的多后端推理服务框架（不是 OpenAI Triton）")."""
    g = ctx.glossary
    term = g.terms.get(term_id)
    if term is None:
        return None

    def words(names: list[str]) -> set[str]:
        return {w for n in names for w in _WORD.findall(fold(n)) if len(w) >= 4}

    own_words = words(term.all_names())
    partners = [e.target if e.source == term_id else e.source for e in g.confusables(term_id)]
    namesakes = [x for x in partners if x in g and words(g.terms[x].all_names()) & own_words]
    asked = {w for w in _WORD.findall(fold(text)) if w not in own_words and w not in _FILLER}
    if not namesakes or not asked:
        return None

    def support(tid: str) -> int:
        x = g.terms[tid]
        body = fold(" ".join([*x.all_names(), *(d.text for d in x.definitions)]))
        return sum(w in body for w in asked)

    best = max(namesakes, key=support)
    return best if support(best) > support(term_id) else None


def _namesakes(ctx: Ctx, a: Link, b: Link) -> tuple[Link, Link]:
    """Two sides that name one term, or "Is that the same Triton NVIDIA uses for serving models?":
    the side whose other words describe a namesake of the term (a same-name contrast) is that
    namesake, and in the second form the pronoun is the term the name links to."""
    slots = ctx.parsed.slots
    if len(slots) < 2:
        return a, b
    if ctx.parsed.facet == "namesake":
        other = _namesake(ctx, b.term_id, slots[1].text)
        if other is not None:
            return Link(b.term_id, b.method, b.score, b.start, b.end, b.name), Link(other, "search")
    if a.term_id == b.term_id and fold(slots[0].text) != fold(slots[1].text):
        for i, side in ((1, b), (0, a)):
            other = _namesake(ctx, side.term_id, slots[i].text)
            if other is not None:
                return (a, Link(other, "search")) if i == 1 else (Link(other, "search"), b)
    return a, b
