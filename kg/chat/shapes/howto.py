"""The how/why shape: the term whose definition answers the question, with its evidence."""

from __future__ import annotations

import re

from kg.chat.compose import Composer, edges_between, t
from kg.chat.context import Ctx
from kg.chat.decide import asks_for_remedy
from kg.chat.linking import Link
from kg.chat.model import Answer
from kg.chat.shapes.common import finish, other_terms, ranked_neighbours, refuse, single
from kg.chat.shapes.definition import definition
from kg.chat.shapes.mentioned import not_defined
from kg.store import Glossary
from kg.textnorm import fold, name_key


def howto(ctx: Ctx) -> Answer:
    """How/why: the term the question asks about; for a remedy ("怎么降低 TTFT"), the term that is one."""
    if asks_for_remedy(ctx.parsed, ctx.analysis) and _answer_term(ctx) is not None:
        return which(ctx)
    d = ctx.decision
    named_referent = _fronted_subject(ctx)
    opening = _how_does_subject(ctx)
    if opening is not None:
        # "how does autoscaling work for model replicas?": the name the question opens with is the
        # subject of "how does …", whatever else the search ranks first for the rest of it; "Would
        # chunked prefill help with that?": the conversation moves on to it, the next "it" is it
        link: Link | None = Link(opening, "mention")
        ctx.used_context = False
    elif (
        (ctx.referent is None or not ctx.used_context)
        and not named_referent
        and d is not None
        and d.candidate
    ):
        # retrieval-first: "为什么提示词越长，首 token 越慢" is about what the search ranks first
        # (measured on the dev split: 30 % → 32 % first citations right on how/why questions);
        # not "And Elo — can it stand in for task metrics?", whose pronoun points at the name
        link = Link(d.candidate, "search")
    elif ctx.ranked_referent and ctx.referent:
        link = Link(ctx.referent, "context")
    else:
        link = single(ctx, prefer="first")
    g = ctx.glossary
    whole = _whole_of_pair(ctx)
    if whole is not None:
        # "How do those two add up to end-to-end latency?": the term the question names that the
        # graph links to both of the pair is what the answer explains, the pair beside it
        link = Link(whole, "mention")
    if link is None:
        return refuse(ctx)
    if link.method == "mention" and ctx.pronoun is None:
        link = _connector(ctx) or link
    ctx.linked_by = link.method
    focus = link.term_id
    ctx.focus = [focus]
    c = Composer(g, ctx.lang)
    c.add(c.bold(focus, full=True))
    c.definitions(g.terms[focus], max_defs=2, notes=2)
    others = other_terms(ctx, {focus})
    lines: list[str] = []
    named_above: list[str] = []  # linked by a sentence the definition above already quotes
    for other in others[:2]:
        edges = edges_between(g, focus, other)
        fresh = c.fresh_statements(edges)
        if edges and not fresh:
            named_above.append(other)
        for e, part in fresh[:2]:
            marker = c.edge_marker(e, other, part)
            lines.append(f"- {c.bold(other)}{t(ctx.lang, 'colon')}{c.q(part)} {marker}")
    neighbours = [*named_above, *ranked_neighbours(ctx, focus, others)]
    lines += c.edge_items(focus, neighbours, max_lines=max(0, 4 - len(lines)))
    if lines:
        c.add(t(ctx.lang, "howto_head"))
        for line in lines:
            c.add(line)
    c.add(t(ctx.lang, "howto_tail"))
    return finish(ctx, c, "howto_why", [c.follow("related", focus)])


#: Between a fronted name and the pronoun that takes it up: "And Elo — can it …", "X：它…".
_FRONTED = re.compile(r"^\s*[—–:：,，-]+\s*(?:(?:can|could|does|do|is|are|will|would|should)\s+)?$")


#: "how does <name> work …", "how do <name> …", "why does <name> crawl …", and a yes/no question
#: opening with a name ("Would chunked prefill help with that?"): the name is the subject.
_HOW_DOES = re.compile(
    r"^(?:and |so |ok,? )?(?:(?:how|why) (?:does|do|did|would|will)|(?P<yn>would|will|does|do|can|could|might)) "
)
#: What follows the name of a yes/no question's subject: its verb ("Would chunked prefill help
#: with that?"); a noun there ("does vLLM's built-in version of that …") makes the name an owner.
_SUBJECT_VERB = re.compile(
    r"\s+(?:really |actually |also |still |even )?(?:help|work|matter|hurt|improve|affect|change|need|require|"
    r"replace|apply|support|run|fit|speed|slow|cause|make|solve|fix|reduce|increase|cut|save|use)\b"
)


def opening_subject(ctx: Ctx) -> str | None:
    """The term a yes/no question opens with ("Would chunked prefill help with that?", see
    :func:`_how_does_subject`): the conversation moves on to it. Not a "how does X …" question
    ("How does NVSwitch build on it?"), whose pronoun keeps the term under discussion."""
    m = _HOW_DOES.match(ctx.parsed.folded)
    return _how_does_subject(ctx) if m is not None and m.group("yn") else None


def _how_does_subject(ctx: Ctx) -> str | None:
    """The term a "how does X …" or "would X …" question opens with, by its exact name (not
    through a pronoun)."""
    f = ctx.parsed.folded
    m = _HOW_DOES.match(f)
    if m is None:
        return None
    return next(
        (
            s.term_id
            for s in ctx.analysis.spans
            if s.start == m.end()
            and ctx.linker.engine.matcher.exact(s.text)
            and not _REMEDY_VERB.match(f, s.end)
            and not _modifies_next(ctx, s.end)
            and (not m.group("yn") or _SUBJECT_VERB.match(f, s.end))
        ),
        None,
    )


def _modifies_next(ctx: Ctx, end: int) -> bool:
    """Whether another name follows within two words ("does vLLM's built-in prefix caching work
    …", folded to "vllm built-in prefix caching"): the first name then only qualifies it."""
    f = ctx.parsed.folded
    return any(
        s.start >= end and len(f[end : s.start].split()) <= 2 and not re.search(r"[,，?？]", f[end : s.start])
        for s in ctx.analysis.spans
    )


#: "How does vLLM keep its KV cache from fragmenting?": a remedy asked of the name; the answer is
#: the mechanism (PagedAttention), which the search finds, not the name
_REMEDY_VERB = re.compile(
    r"\s+(?:[a-z-]+\s+)?(?:keep|keeps|avoid|avoids|prevent|prevents|reduce|reduces|fix|fixes|handle|handles|cut|cuts|stop|"
    r"stops|lower|lowers|speed|speeds|save|saves|get|gets|deal|deals|solve|solves|overcome|manage|manages|"
    r"minimi[sz]e|limit|limits|mitigate|eliminate|hide|hides|shrink|shrinks)\b"
)


def _fronted_subject(ctx: Ctx) -> bool:
    """ "And Elo — can it stand in for task metrics?": the question names its subject first and
    takes it up with a pronoun; the answer is about that name, not about what a search ranks first."""
    p = ctx.pronoun
    if p is None or ctx.used_context or not ctx.referent:
        return False
    f = ctx.parsed.folded
    return any(s.term_id == ctx.referent and _FRONTED.match(f[s.end : p.start]) for s in ctx.analysis.spans)


def _whole_of_pair(ctx: Ctx) -> str | None:
    """The term a question about a pair under discussion ("those two", "这两个") names beside it
    and that is linked to each of the pair (E2E latency to TTFT and TPOT), or None."""
    pair = ctx.referents if ctx.used_context and len(ctx.referents) >= 2 else []
    if not pair:
        return None
    g = ctx.glossary
    for span in ctx.analysis.spans:
        tid = span.term_id
        if tid not in pair and tid in g.terms and all(p in set(g.neighbours(tid)) for p in pair):
            return tid
    return None


def _connector(ctx: Ctx) -> Link | None:
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


def _answer_term(ctx: Ctx) -> str | None:
    """Retrieval's candidate when it is not a term the question merely names."""
    d = ctx.decision
    if d is None or d.candidate is None or ctx.retrieval is None:
        return None
    return None if d.candidate in ctx.retrieval.named or d.candidate == ctx.referent else d.candidate


#: "它们俩都…", "两者都…", "they both …": the question quantifies both subjects, it offers no choice.
_BOTH = re.compile(r"(?:它们|两者|二者|这两个|这俩|他们)俩?都|\bthey both\b|\bboth of them\b")


#: "除了它们三个，…是哪个？", "Besides those, which …": the answer is none of the terms pointed at.
_BESIDES = re.compile(
    r"除了?(?:它们|这几个|这些|这两个|这三个|那几个|那些|前面|上面)|"
    r"\b(?:besides|apart from|other than|except(?: for)?|aside from) (?:them|those|these|the (?:two|three))\b"
)


#: The Chinese word of a kind a "which" question asks for ("which phase" → 阶段), as the sources
#: write it after a name ("对应 prefill 阶段").
_KIND_ZH = {
    "phase": "阶段",
    "stage": "阶段",
    "engine": "引擎",
    "format": "格式",
    "metric": "指标",
    "unit": "单元",
    "layer": "层",
    "chip": "芯片",
    "library": "库",
    "framework": "框架",
    "compiler": "编译器",
    "protocol": "协议",
    "algorithm": "算法",
}
_WHICH_KIND = re.compile(
    r"\b(?:which|what)\s+(?P<en>[a-z]+?)s?\b|哪(?:一|个|种|一个|一种)?\s*(?P<zh>[\u4e00-\u9fff]{1,3}?)(?=[\s，,。？?]|$|[决是负对里中上会能用叫])"
)


def class_stated(ctx: Ctx) -> str | None:
    """ "Which phase mainly determines TTFT?": the one term that the own definitions of the one
    term the question names give right before the kind asked for — TTFT's "对应 prefill 阶段" —
    whatever the search ranks first. Not in a follow-up about the term under discussion, whose
    answer leads with that term."""
    m = _WHICH_KIND.search(ctx.parsed.folded)
    if m is None:
        return None
    kind = _KIND_ZH.get(m.group("en") or "", "") if m.group("en") else (m.group("zh") or "")
    if not kind or kind not in _KIND_ZH.values():
        return None
    if ctx.used_context:
        return None  # "Which phase mainly determines it?": the term under discussion leads the answer
    subjects = list(dict.fromkeys(ctx.retrieval.named if ctx.retrieval else []))
    if len(subjects) != 1:
        return None
    g = ctx.glossary
    subject = subjects[0]
    found: set[str] = set()
    for d in g.terms[subject].definitions:
        text = fold(d.text)
        for tid in g.neighbours(subject):
            if tid == subject or tid not in g.terms:
                continue
            for n in g.terms[tid].all_names():
                if len(n) >= 2 and re.search(rf"(?<![a-z0-9]){re.escape(fold(n))}\s*{kind}", text):
                    found.add(tid)
    return found.pop() if len(found) == 1 else None


def which(ctx: Ctx) -> Answer:
    """ "Which technique fixes KV-cache fragmentation?": the term whose definition answers it.

    The answer is retrieval's best term other than those the question names (KV cache);
    it is followed by what the sources say links it to each named term.
    """
    if len(ctx.referents) >= 2 and not (
        (ctx.pronoun is not None and ctx.pronoun.text == "both")
        or _BOTH.search(ctx.parsed.folded)
        or _BESIDES.search(ctx.parsed.folded)
    ):
        # "Which of the two doesn't need a separate draft model?": one of the pair, the one a
        # search for the question (pronoun left out) ranks higher; "both" only quantifies the
        # subjects ("Which IR framework do both torch.compile and XLA build on?"), no choice
        # A name the question gives that the graph links to one of them decides first ("Which
        # one brought FP8 support?" → Hopper, FP8's neighbour).
        hits = ctx.linker.search(ctx.body_text(substitute=False)).hits
        rank = {h.term_id: i for i, h in enumerate(hits)}
        pool = ctx.referents
        given = [t for t in (ctx.retrieval.named if ctx.retrieval else []) if t not in pool]
        near = {t: set(ctx.glossary.neighbours(t)) for t in pool}

        def key(t: str) -> tuple[int, int]:
            return (-sum(n in near[t] for n in given), rank.get(t, len(hits)))

        return which_answer(ctx, min(pool, key=key))
    found = _answer_term(ctx)
    if found is not None and found in ctx.referents and _BESIDES.search(ctx.parsed.folded):
        found = None
    typed = class_stated(ctx)
    if typed is not None:
        found = typed
    if found is None and ctx.referent:
        return definition(ctx)  # "第三个是哪家出的？": nothing linked fits; about the term itself
    found = found or (ctx.decision.candidate if ctx.decision else None)
    if found is None:
        return refuse(ctx)
    return which_answer(ctx, found)


def counterpart_answer(ctx: Ctx, full: Glossary, term_id: str) -> Answer:
    """ "And AMD's counterpart to NCCL?" (:mod:`kg.chat.counterpart`): the counterpart in the which
    shape, with what links it to the anchor; a counterpart the sources only mention (RCCL) gets
    the "not defined, mentioned in …" answer, which quotes the sentence that names it."""
    if term_id in ctx.glossary.terms:
        ctx.parsed.intent = "which"
        return which_answer(ctx, term_id)
    return not_defined(ctx, full, full.terms[term_id])


def which_answer(ctx: Ctx, focus: str) -> Answer:
    g = ctx.glossary
    ctx.focus = [focus]
    ctx.linked_by = "search"
    c = Composer(g, ctx.lang)
    c.add(t(ctx.lang, "which_head", a=c.bold(focus, full=True)))
    c.definitions(g.terms[focus], max_defs=2, notes=1)
    named = [n for n in (ctx.retrieval.named if ctx.retrieval else []) if n != focus]
    if ctx.referent and ctx.referent != focus and ctx.referent not in named:
        named.insert(0, ctx.referent)  # "哪个引擎是靠它起家的": the link to the term under discussion
    lines: list[str] = []
    named_above: list[str] = []  # linked by a sentence the definition above already quotes
    for other in named[:2]:
        edges = edges_between(g, focus, other)
        fresh = c.fresh_statements(edges)
        if edges and not fresh:
            named_above.append(other)
        for e, part in fresh[:1]:
            lines.append(
                f"- {c.bold(other)}{t(ctx.lang, 'colon')}{c.q(part)} {c.edge_marker(e, other, part)}"
            )
    lines += c.edge_items(focus, named_above)
    if lines:
        c.add(t(ctx.lang, "howto_head"))
        for line in lines:
            c.add(line)
    runners = [
        h.term_id for h in (ctx.retrieval.hits if ctx.retrieval else []) if h.term_id not in {focus, *named}
    ]
    if runners:
        c.add(t(ctx.lang, "which_more", items=t(ctx.lang, "sep").join(c.name(r) for r in runners[:3])))
    return finish(
        ctx, c, "which", [c.follow("related", focus), *(c.follow("define", r) for r in runners[:1])]
    )
