"""The retrieval chatbot: question → intent → linked terms → answer from the graph.

>>> a = answer(glossary, engine, "什么是 TTFT？")                       # doctest: +SKIP
>>> a.grounded, a.citations[0].term_id                                # doctest: +SKIP
(True, 'time-to-first-token')
>>> state = ConversationState()                                       # doctest: +SKIP
>>> answer(glossary, engine, "What is PagedAttention?", context=state)  # doctest: +SKIP
>>> answer(glossary, engine, "What is it related to?", context=state).terms[0]  # doctest: +SKIP
'pagedattention'

No language model is involved: every sentence is a template around quoted graph text
(see :mod:`kg.chat.compose`); :mod:`kg.chat.generator` may rephrase it afterwards.
"""

from __future__ import annotations

import itertools
import re
import time
from dataclasses import dataclass, field
from functools import lru_cache

from kg.chat.compose import Composer, best_edge, edges_between, t
from kg.chat.intents import Parsed, Pronoun, Slot, parse
from kg.chat.linking import Analysis, Link, Linker, latin_vocabulary
from kg.chat.model import Answer, ConversationState
from kg.model import Term
from kg.search.engine import SearchEngine
from kg.store import Glossary
from kg.textnorm import fold, has_cjk, name_key

__all__ = ["MAX_QUESTION_CHARS", "answer", "detect_lang"]

MAX_QUESTION_CHARS = 1000
_CLAUSE_BREAK = re.compile(
    r"[,;:，；：。.!?！？]|\s+(?:and|but)\s+(?=(?:why|how|what|which|when|where|is|does|do|can)\b)"
)
_PRONOUN_FILLER = re.compile(
    r"^(?:那么|那|的|呢|和|与|跟|and|so|then|about|how about|what about|\s)*$", re.IGNORECASE
)
_LIST_CLASS_TAIL = re.compile(
    r"(?:的)?(?:常见|主要)?(?:方法|方式|做法|种类|类型|策略|技术|方案|实现|形式|分类|算法|手段|办法|类别|流派)$|"
    r"\s+(?:methods?|strategies|strategy|techniques?|approaches|types?|kinds?|variants?|schemes?|options?|families|"
    r"formats?|algorithms?)$"
)


@lru_cache(maxsize=8)
def _vocabulary(glossary: Glossary) -> frozenset[str]:
    return latin_vocabulary(glossary)


def _linker(glossary: Glossary, engine: SearchEngine) -> Linker:
    """A linker for one question (its search cache is per question); the vocabulary is shared."""
    return Linker(glossary, engine, _vocabulary(glossary))


def detect_lang(parsed: Parsed, analysis: Analysis) -> str:
    """``zh`` when the words around the term names are Chinese, ``en`` when they are Latin."""
    f = parsed.folded
    keep = [True] * len(f)
    for a, b in [(s.start, s.end) for s in analysis.spans] + analysis.unknown_ranges:
        for i in range(a, b):
            keep[i] = False
    rest = "".join(ch for ch, k in zip(f, keep, strict=True) if k)
    if has_cjk(rest):
        return "zh"
    if re.search(r"[a-z]", rest):
        return "en"
    return "zh" if has_cjk(f) else "en"


@dataclass
class _Ctx:
    """Per-question working state."""

    glossary: Glossary
    linker: Linker
    parsed: Parsed
    analysis: Analysis
    lang: str
    state: ConversationState | None
    referent: str | None = None
    referents: list[str] = field(default_factory=list)  # "它们" / "they": the last two terms
    used_context: bool = False
    pronoun: Pronoun | None = None
    suggestions: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    linked_by: str = "none"
    focus: list[str] = field(default_factory=list)

    @property
    def in_domain(self) -> bool:
        return bool(self.analysis.spans) or self.used_context

    def body_text(self, substitute: bool = True) -> str:
        """The question without its frame's edges; pronouns replaced by the referent's name.

        "SGLang 里它对应的实现叫什么" → "SGLang 里前缀缓存对应的实现叫什么", so that a search
        for what else the question asks about knows what "它" is.
        """
        body = self.parsed.body.text if self.parsed.body else self.parsed.folded
        offset = self.parsed.body.start if self.parsed.body else 0
        name = ""
        if substitute and self.referent:
            term = self.glossary.terms[self.referent]
            name = fold(term.labels.get(self.lang) or term.label("en"))
        for p in sorted(self.analysis.pronouns, key=lambda p: -p.start):
            a, b = p.start - offset, p.end - offset
            if 0 <= a <= b <= len(body):
                body = body[:a] + f" {name} " + body[b:]
        return re.sub(r"\s+", " ", body).strip()


def answer(
    glossary: Glossary,
    engine: SearchEngine,
    question: str,
    *,
    context: ConversationState | None = None,
) -> Answer:
    """Answer *question* from the graph; update *context* (when given) for follow-ups."""
    t0 = time.perf_counter()
    warnings: list[str] = []
    question = question.strip()
    if len(question) > MAX_QUESTION_CHARS:
        question = question[:MAX_QUESTION_CHARS]
        warnings.append(f"question truncated to {MAX_QUESTION_CHARS} characters")
    linker = _linker(glossary, engine)
    parsed = parse(question)
    analysis = linker.analyse(parsed)
    ctx = _Ctx(glossary, linker, parsed, analysis, detect_lang(parsed, analysis), context, warnings=warnings)
    _resolve_reference(ctx)
    if not fold(question).strip():
        result = _refuse(ctx, "unknown")
    else:
        handler = _HANDLERS.get(parsed.intent, _unknown)
        result = handler(ctx)
    result.took_ms = round((time.perf_counter() - t0) * 1000.0, 3)
    if context is not None:
        context.record(result, used_context=ctx.used_context)
    return result


# --- references ----------------------------------------------------------------------------------


def _resolve_reference(ctx: _Ctx) -> None:
    """Who 它 / it / the former is: a term named earlier in the question, else the conversation's."""
    pronouns = ctx.analysis.pronouns
    if not pronouns:
        return
    p = pronouns[0]
    ctx.pronoun = p
    spans = ctx.analysis.spans
    state = ctx.state
    if p.ref == "both":
        if state is not None and len(state.pair) >= 2:
            ctx.referents = state.pair[:2]
            ctx.referent, ctx.used_context = state.pair[0], True
            return
        if state is not None and state.topic:
            ctx.referent, ctx.used_context = state.topic[0], True
        return
    if p.ref in ("former", "latter"):
        i = 0 if p.ref == "former" else 1
        if state is not None and len(state.pair) > i:
            ctx.referent, ctx.used_context = state.pair[i], True
            return
        before = [s for s in spans if s.end <= p.start]
        if len(before) >= 2:
            ctx.referent = before[0 if i == 0 else -1].term_id
        return
    f = ctx.parsed.folded
    breaks = [m.end() for m in _CLAUSE_BREAK.finditer(f, 0, p.start)]
    boundary = breaks[-1] if breaks else 0
    earlier = [s for s in spans if s.end <= boundary]
    same_clause_before = [s for s in spans if boundary <= s.start and s.end <= p.start]
    if earlier and not same_clause_before:
        # "What does TCO stand for, and what does it include?": it = TCO
        ctx.referent = earlier[0].term_id
        return
    if state is not None and state.topic:
        ctx.referent, ctx.used_context = state.topic[0], True
        return
    before = [s for s in spans if s.end <= p.start]
    if before:
        ctx.referent = before[0].term_id


def _overlaps(p: Pronoun, slot: Slot) -> bool:
    return p.start < slot.end and p.end > slot.start


def _pronoun_in(ctx: _Ctx, slot: Slot) -> bool:
    return any(_overlaps(p, slot) for p in ctx.analysis.pronouns)


def _only_pronoun(ctx: _Ctx, slot: Slot) -> bool:
    text = slot.text
    for p in sorted(ctx.analysis.pronouns, key=lambda p: -p.start):
        if _overlaps(p, slot):
            a, b = max(0, p.start - slot.start), min(len(text), p.end - slot.start)
            text = text[:a] + " " + text[b:]
    return bool(_PRONOUN_FILLER.match(text))


def _link(ctx: _Ctx, slot: Slot, prefer: str = "head") -> Link | None:
    """The term of one slot: the referent for "它"/"it", names, then search; records suggestions."""
    if _pronoun_in(ctx, slot) and ctx.referent:
        if _only_pronoun(ctx, slot):
            return Link(ctx.referent, "context")
        if ctx.parsed.intent in ("definition", "abbreviation", "unknown"):
            # "它的激活参数" / "its counterpart": the part of the term under discussion
            owned = _possessed(ctx, slot)
            if owned is not None:
                return owned
            found = ctx.linker.context_link(
                ctx.body_text(substitute=False), ctx.referent
            )  # "它上面的那条脊线"
            if found is not None:
                return found
        return Link(ctx.referent, "context")
    alt = ctx.body_text() if len(ctx.parsed.slots) > 1 else None
    link, suggestions = ctx.linker.link_slot(
        slot, ctx.analysis, in_domain=ctx.in_domain, prefer=prefer, alt=alt
    )
    if link is None:
        for s in suggestions:
            if s not in ctx.suggestions:
                ctx.suggestions.append(s)
    return link


def _possessed(ctx: _Ctx, slot: Slot) -> Link | None:
    """The name owned by the pronoun: "它的X" / "它里面的X" / "its X"."""
    p = ctx.pronoun
    if p is None:
        return None
    f = ctx.parsed.folded
    for s in ctx.linker.spans_in(ctx.analysis, slot):
        if s.term_id == ctx.referent or s.start < p.end:
            continue
        between = f[p.end : s.start]
        if ("的" in between and len(between) <= 6) or (p.text == "its" and not between.strip()):
            return Link(s.term_id, "mention", 1.0, s.start, s.end, s.name)
    return None


def _others(ctx: _Ctx, exclude: set[str], outside: Slot | None = None) -> list[str]:
    """Other terms the question names (outside the subject slot), then the referent."""
    out: list[str] = []
    for s in ctx.analysis.spans:
        if outside is not None and outside.start <= s.start and s.end <= outside.end:
            continue
        if s.term_id not in exclude and s.term_id not in out:
            out.append(s.term_id)
    if ctx.referent and ctx.referent not in exclude and ctx.referent not in out:
        out.append(ctx.referent)
    return out


def _ranked_neighbours(ctx: _Ctx, focus: str, boost: list[str] = ()) -> list[str]:  # type: ignore[assignment]
    """Neighbours of *focus*, most relevant to the question first.

    Order: neighbours also linked to another term the question names ("SGLang 里它对应的
    实现") first; then those a search for the question (pronoun replaced) ranks in its top
    five; then confused_with, then terms the focus's own definitions name, then the rest —
    each group by search rank.
    """
    g = ctx.glossary
    near = g.neighbours(focus)
    if not near:
        return []
    ranks = {h.term_id: r for h, r in ctx.linker.neighbour_hits(ctx.body_text(), focus)}
    boosted = set()
    for b in boost:
        if b in g:
            boosted |= set(g.neighbours(b))
    confused = {e.target if e.source == focus else e.source for e in g.confusables(focus)}
    # terms the focus's own definitions name (what the sources say about it), best definition
    # first, before terms whose definitions name the focus
    texts = [d.text for d in g.terms[focus].definitions] + [d.note or "" for d in g.terms[focus].definitions]
    named_by_focus: dict[str, int] = {}
    for e in g.related(focus):
        if e.source == focus:
            idx = next((i for i, x in enumerate(texts) if x and e.evidence in x), len(texts))
            named_by_focus[e.target] = min(idx, named_by_focus.get(e.target, idx))

    def key(tid: str) -> tuple[int, int, int, int, int, str]:
        rank = ranks.get(tid, 10_000)
        return (tid not in boosted, rank > 5, tid not in confused, named_by_focus.get(tid, 99), rank, tid)

    return sorted((n for n in near if n not in boost), key=key)


# --- handlers --------------------------------------------------------------------------------------


def _finish(ctx: _Ctx, c: Composer, intent: str, follow_ups: list[str]) -> Answer:
    return Answer(
        question=ctx.parsed.question,
        lang=ctx.lang,  # type: ignore[arg-type]
        intent=intent,  # type: ignore[arg-type]
        answer=c.text(),
        grounded=bool(c.citations),
        terms=list(c.terms),
        citations=list(c.citations),
        focus=[f for f in ctx.focus if f in c.terms] or list(c.terms[:1]),
        suggestions=[s for s in ctx.suggestions if s not in c.terms][:5],
        follow_ups=list(dict.fromkeys(f for f in follow_ups if f))[:3],
        warnings=list(ctx.warnings),
        linked_by=ctx.linked_by,
    )


def _refuse(ctx: _Ctx, intent: str = "out_of_domain", reason: str | None = None) -> Answer:
    lang = ctx.lang
    lines = [t(lang, "refuse")]
    if reason:
        lines.insert(0, reason)
    if ctx.analysis.unknown:
        lines.append(t(lang, "refuse_unknown", names=" ".join(ctx.analysis.unknown)))
    suggestions = list(ctx.suggestions)
    if not suggestions:
        text = ctx.parsed.body.text if ctx.parsed.body else ctx.parsed.folded
        if text.strip():
            suggestions = ctx.linker.nearest(text)
    suggestions = suggestions[:5]
    c = Composer(ctx.glossary, lang)
    if suggestions:
        sep = t(lang, "sep")
        lines.append(t(lang, "nearest", items=sep.join(c.name(s) for s in suggestions)))
    follow = [c.follow("define", s) for s in suggestions[:2]]
    return Answer(
        question=ctx.parsed.question,
        lang=lang,  # type: ignore[arg-type]
        intent=intent,  # type: ignore[arg-type]
        answer="\n".join(lines),
        grounded=False,
        terms=[],
        citations=[],
        suggestions=suggestions,
        follow_ups=follow,
        warnings=list(ctx.warnings),
        linked_by="none",
    )


def _single(ctx: _Ctx, prefer: str = "head") -> Link | None:
    slot = ctx.parsed.slots[0] if ctx.parsed.slots else ctx.parsed.body
    if slot is None:
        return None
    link = _link(ctx, slot, prefer)
    if link is None and ctx.referent and ctx.parsed.intent not in ("definition", "abbreviation"):
        link = Link(ctx.referent, "context")
    if link is not None:
        ctx.linked_by = link.method
    return link


def _no_referent(ctx: _Ctx) -> Answer | None:
    """A pronoun with nothing to point at ("它是什么？" opening a conversation)."""
    if ctx.pronoun is not None and ctx.referent is None and not ctx.analysis.spans:
        reason = t(ctx.lang, "refuse_pronoun", p=ctx.pronoun.text)
        return _refuse(ctx, "unknown", reason)
    return None


def _one_term(ctx: _Ctx) -> Answer | tuple[Link, Term, Composer]:
    """The single term a question is about, focused, with a composer; or the refusal to give."""
    if (r := _no_referent(ctx)) is not None:
        return r
    link = _single(ctx)
    if link is None:
        return _refuse(ctx)
    term = ctx.glossary.terms[link.term_id]
    ctx.focus = [term.id]
    return link, term, Composer(ctx.glossary, ctx.lang)


def _definition(ctx: _Ctx) -> Answer:
    found = _one_term(ctx)
    if isinstance(found, Answer):
        return found
    link, term, c = found
    g = ctx.glossary
    facet = ctx.parsed.facet
    if facet and facet.startswith("names"):
        return _names(ctx, c, term.id)
    c.add(c.bold(term.id, full=True))
    c.definitions(term, max_defs=2 if facet != "measure" else 3)
    slot = ctx.parsed.slots[0] if ctx.parsed.slots else None
    others = _others(ctx, {term.id}, outside=None if link.method == "context" else slot)
    for other in others[:2]:
        for e in edges_between(g, term.id, other)[:1]:
            marker = c.edge_marker(e, other)
            c.add(
                t(
                    ctx.lang,
                    "between",
                    a=c.bold(term.id),
                    b=c.bold(other),
                    src=c.src(e.doc),
                    q=c.q(e.evidence),
                )
                + " "
                + marker
            )
    neighbours = _ranked_neighbours(ctx, term.id, others)
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
    return _finish(ctx, c, "definition", follow)


def _names(ctx: _Ctx, c: Composer, term_id: str) -> Answer:
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
    return _finish(ctx, c, "definition", follow)


def _abbreviation(ctx: _Ctx) -> Answer:
    found = _one_term(ctx)
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
    neighbours = _ranked_neighbours(ctx, term.id)
    related = c.related_names(term.id, neighbours, limit=3)
    if related:
        c.add(related)
    return _finish(ctx, c, "abbreviation", [c.follow("related", term.id)])


def _pair(ctx: _Ctx) -> tuple[Link | None, Link | None]:
    slots = ctx.parsed.slots
    a = _link(ctx, slots[0]) if slots else None
    b = _link(ctx, slots[1]) if len(slots) > 1 else None
    return a, b


def _comparison(ctx: _Ctx) -> Answer:
    if len(ctx.parsed.slots) < 2 and len(ctx.referents) < 2:
        return _definition(ctx)
    if len(ctx.parsed.slots) < 2:
        a: Link | None = Link(ctx.referents[0], "context")
        b: Link | None = Link(ctx.referents[1], "context")
    else:
        a, b = _pair(ctx)
    g = ctx.glossary
    c = Composer(g, ctx.lang)
    if a is None and b is None:
        return _refuse(ctx)
    if a is None or b is None:
        found = a or b
        assert found is not None
        missing = ctx.parsed.slots[1 if a is not None else 0].text
        ctx.warnings.append(f"no term matches {missing!r}")
        ctx.focus = [found.term_id]
        items = t(ctx.lang, "sep").join(c.name(s) for s in ctx.suggestions[:3]) or "–"
        c.add(t(ctx.lang, "partial", slot=missing, items=items, a=c.bold(found.term_id)))
        c.add(c.bold(found.term_id, full=True))
        c.definitions(g.terms[found.term_id], max_defs=1)
        ctx.linked_by = found.method
        follow = [c.follow("define", s) for s in ctx.suggestions[:2]]
        return _finish(ctx, c, "comparison", follow)
    ctx.linked_by = a.method if a.method != "context" else b.method
    ctx.focus = list(dict.fromkeys([a.term_id, b.term_id]))
    if a.term_id == b.term_id:
        term = g.terms[a.term_id]
        names = t(ctx.lang, "sep").join(term.all_names()[:5])
        c.add(t(ctx.lang, "same_term", a=ctx.parsed.slots[0].text, b=ctx.parsed.slots[1].text, names=names))
        c.definitions(term, max_defs=1)
        return _finish(ctx, c, "comparison", [c.follow("related", term.id)])
    ta, tb = g.terms[a.term_id], g.terms[b.term_id]
    c.add(t(ctx.lang, "cmp_head", a=c.bold(ta.id, full=True), b=c.bold(tb.id, full=True)))
    for term in (ta, tb):
        c.add(f"{c.bold(term.id)}{t(ctx.lang, 'colon')}")
        c.definitions(term, max_defs=1, notes=1)
    direct = edges_between(g, ta.id, tb.id)
    for e in direct[:3]:
        if c.cited(e.doc, e.evidence):  # the same words were already quoted as a definition or note
            continue
        key = "cmp_diff" if e.type == "confused_with" else "cmp_edge"
        about = tb.id if e.source == tb.id else ta.id
        marker = c.edge_marker(e, about)
        c.add(t(ctx.lang, key, src=c.src(e.doc), q=c.q(e.evidence)) + " " + marker)
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
    return _finish(ctx, c, "comparison", follow)


def _relation(ctx: _Ctx) -> Answer:
    if (r := _no_referent(ctx)) is not None:
        return r
    g = ctx.glossary
    if len(ctx.parsed.slots) < 2 and len(ctx.referents) >= 2:
        return _relation_pair(ctx, ctx.referents[0], ctx.referents[1])
    if len(ctx.parsed.slots) >= 2:
        a, b = _pair(ctx)
        if a is not None and b is not None and a.term_id != b.term_id:
            return _relation_pair(ctx, a.term_id, b.term_id)
        if a is None and b is None:
            return _refuse(ctx)
        focus_link = a or b
    else:
        focus_link = _single(ctx)
    if focus_link is None:
        return _refuse(ctx)
    ctx.linked_by = focus_link.method
    focus = focus_link.term_id
    ctx.focus = [focus]
    c = Composer(g, ctx.lang)
    c.add(c.bold(focus, full=True))
    c.first_definition(g.terms[focus])
    others = _others(ctx, {focus})
    neighbours = _ranked_neighbours(ctx, focus, others)
    via = _via_others(ctx, focus, others, neighbours)
    if not neighbours and not via:
        c.add(t(ctx.lang, "rel_none", a=c.bold(focus)))
    else:
        c.add(t(ctx.lang, "rel_head", a=c.bold(focus)))
        for n, bridge in via:
            # "SGLang 里它对应的实现": RadixAttention, linked to SGLang, described in its own words
            d = g.terms[n].definitions[0]
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
    return _finish(ctx, c, "relation", follow)


def _via_others(ctx: _Ctx, focus: str, others: list[str], neighbours: list[str]) -> list[tuple[str, str]]:
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


def _relation_pair(ctx: _Ctx, a: str, b: str) -> Answer:
    g = ctx.glossary
    ctx.focus = [a, b]
    c = Composer(g, ctx.lang)
    ctx.linked_by = "mention"
    c.add(t(ctx.lang, "cmp_head", a=c.bold(a, full=True), b=c.bold(b, full=True)))
    for term_id in (a, b):
        c.add(f"{c.bold(term_id)}{t(ctx.lang, 'colon')}")
        c.first_definition(g.terms[term_id])
    direct = edges_between(g, a, b)
    for e in direct[:3]:
        marker = c.edge_marker(e, b if e.source == b else a)
        c.add(
            t(
                ctx.lang,
                "between",
                a=c.bold(e.source),
                b=c.bold(e.target),
                src=c.src(e.doc),
                q=c.q(e.evidence),
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
    return _finish(ctx, c, "relation", [c.follow("compare", a, b), c.follow("related", a)])


def _listing(ctx: _Ctx) -> Answer:
    if (r := _no_referent(ctx)) is not None:
        return r
    g = ctx.glossary
    slot = ctx.parsed.slots[0] if ctx.parsed.slots else None
    if slot is None:
        return _refuse(ctx)
    central: str | None = None
    head_text = slot.text
    if _pronoun_in(ctx, slot) and ctx.referent:
        central = ctx.referent
        ctx.linked_by = "context"
    else:
        head_text = _LIST_CLASS_TAIL.sub("", slot.text).strip() or slot.text
        head_slot = Slot(head_text, slot.start, slot.start + len(head_text))
        exact = ctx.linker.engine.matcher.exact(head_text)
        if exact:
            central, ctx.linked_by = exact[0].term_id, "exact"
        elif (spans := ctx.linker.spans_in(ctx.analysis, head_slot)) and not ctx.linker.unknown_in(
            ctx.analysis, head_slot
        ):
            central, ctx.linked_by = spans[0].term_id, "mention"
    named = _named_like(ctx, head_text, central)
    if central is None and named:
        # the hub: the named term linked to most of the others ("Model parallelism (overview)")
        ranks = {h.term_id: i for i, h in enumerate(ctx.linker.search(head_text).hits)}
        pool = set(named)
        central = min(
            named,
            key=lambda tid: (-len(set(g.neighbours(tid)) & pool), ranks.get(tid, 10_000), tid),
        )
        ctx.linked_by = "listing"
        named = [n for n in named if n != central]
    if central is None:
        return _refuse(ctx)
    ctx.focus = [central]
    members = _members(ctx, central, named, head_text if not _pronoun_in(ctx, slot) else "")
    c = Composer(g, ctx.lang)
    c.add(c.bold(central, full=True))
    c.first_definition(g.terms[central])
    head_label = head_text if not _pronoun_in(ctx, slot) else c.name(central)
    if members:
        c.add(t(ctx.lang, "list_head", head=head_label))
        for m in members[:10]:
            term = g.terms[m]
            if not term.definitions:
                continue
            d = term.definitions[0]
            marker = c.cite(m, d.source, d.text, "definition", d.line)
            colon = t(ctx.lang, "colon")
            c.add(f"- {c.bold(m)}{colon}{c.q(d.text)} {marker}")
    else:
        c.add(t(ctx.lang, "list_none", head=head_label))
    follow = [c.follow("define", m) for m in members[:1]]
    if len(members) >= 2:
        follow.append(c.follow("compare", members[0], members[1]))
    return _finish(ctx, c, "listing", follow)


def _named_like(ctx: _Ctx, head: str, central: str | None) -> list[str]:
    """Terms one of whose names contains the head word(s) ("parallelism", "量化")."""
    g = ctx.glossary
    keys = {fold(head)}
    if central is not None:
        keys |= {fold(n) for n in g.terms[central].all_names() if len(n) >= 2}
    keys = {k for k in keys if len(k) >= 2 and (has_cjk(k) or len(k) >= 4)}
    out = []
    for tid, term in g.terms.items():
        if tid == central:
            continue
        for n in term.all_names():
            fn = fold(n)
            if any(
                k in fn if has_cjk(k) else re.search(rf"(?<![a-z0-9]){re.escape(k)}(?![a-z0-9])", fn)
                for k in keys
            ):
                out.append(tid)
                break
    return out


def _members(ctx: _Ctx, central: str, named: list[str], head: str) -> list[str]:
    """Kinds/parts of *central*, in this order: its neighbours named like it ("训练后量化"),
    its neighbours in the topic the head word names (category "精度、量化与模型压缩" for 量化,
    else the central term's own categories), neighbours whose own text names it, then other
    terms named like it. Within a group, by rank in a search for the question."""
    g = ctx.glossary
    near = set(g.neighbours(central))
    ranks = {h.term_id: i for i, h in enumerate(ctx.linker.search(ctx.body_text()).hits)}
    key = fold(head)
    cats = {
        cid
        for cid, cat in g.categories.items()
        if key and any(key in fold(label) for label in cat.get("labels", {}).values())
    } or set(g.terms[central].categories)
    in_topic = [n for n in near if cats & set(g.terms[n].categories)]
    mentions_central = [e.source for e in g.related(central) if e.target == central]
    mentions_central = [n for n in mentions_central if n in in_topic or not g.terms[n].categories]

    def order(ids: list[str]) -> list[str]:
        return sorted(dict.fromkeys(ids), key=lambda i: (ranks.get(i, 10_000), i))

    out: list[str] = []
    for group in (
        order([n for n in named if n in near]),
        order(in_topic),
        order(mentions_central),
        order(named),
    ):
        for m in group:
            if m != central and m not in out:
                out.append(m)
    return out


def _howto(ctx: _Ctx) -> Answer:
    if (r := _no_referent(ctx)) is not None:
        return r
    link = _single(ctx, prefer="first")
    if link is None:
        return _refuse(ctx)
    g = ctx.glossary
    if link.method == "mention" and ctx.pronoun is None:
        link = _connector(ctx) or link
        ctx.linked_by = link.method
    focus = link.term_id
    ctx.focus = [focus]
    c = Composer(g, ctx.lang)
    c.add(c.bold(focus, full=True))
    c.definitions(g.terms[focus], max_defs=2, notes=2)
    others = _others(ctx, {focus})
    lines: list[str] = []
    for other in others[:2]:
        for e in edges_between(g, focus, other)[:2]:
            marker = c.edge_marker(e, other)
            lines.append(f"- {c.bold(other)}{t(ctx.lang, 'colon')}{c.q(e.evidence)} {marker}")
    lines += c.edge_items(focus, _ranked_neighbours(ctx, focus, others), max_lines=max(0, 4 - len(lines)))
    if lines:
        c.add(t(ctx.lang, "howto_head"))
        for line in lines:
            c.add(line)
    c.add(t(ctx.lang, "howto_tail"))
    return _finish(ctx, c, "howto_why", [c.follow("related", focus)])


def _connector(ctx: _Ctx) -> Link | None:
    """ "Why does a bigger batch raise throughput but hurt latency?" → Batch sizing.

    When a how/why question names two or more terms, a more specific term — one whose
    name contains a name the question uses, that is linked to at least two of the named
    terms and that search ranks in its top three — is what the question is about.
    """
    spans = ctx.analysis.spans
    named = list(dict.fromkeys(s.term_id for s in spans))
    if len(named) < 2:
        return None
    said = {name_key(s.text) for s in spans}
    for hit in ctx.linker.search(ctx.body_text()).hits[:3]:
        tid = hit.term_id
        if tid in named:
            continue
        names = {name_key(n) for n in ctx.glossary.terms[tid].all_names()}
        if not any(k and k in n and k != n for k in said for n in names):
            continue
        if len(set(ctx.glossary.neighbours(tid)) & set(named)) >= 2:
            return Link(tid, "search", hit.score)
    return None


def _unknown(ctx: _Ctx) -> Answer:
    """No question frame: a bare name ("TTFT"), an elliptical follow-up, or chit-chat."""
    if ctx.analysis.spans or (ctx.pronoun is not None and ctx.referent):
        if (
            ctx.referent
            and not ctx.analysis.spans
            and ctx.state is not None
            and ctx.state.last_intent == "relation"
        ):
            return _relation(ctx)
        return _definition(ctx)
    if ctx.pronoun is not None and ctx.referent is None:
        return _refuse(ctx, "unknown", t(ctx.lang, "refuse_pronoun", p=ctx.pronoun.text))
    return _refuse(ctx)


_HANDLERS = {
    "definition": _definition,
    "abbreviation": _abbreviation,
    "comparison": _comparison,
    "relation": _relation,
    "listing": _listing,
    "howto_why": _howto,
}
