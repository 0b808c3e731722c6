"""Helpers every answer shape uses: linking a slot, the other named terms, ranked neighbours,
finishing an answer and refusing one."""

from __future__ import annotations

import re

from kg.chat.compose import Composer, t
from kg.chat.context import Ctx
from kg.chat.intents import Slot
from kg.chat.linking import _EN_STOP, Link, consistent
from kg.chat.model import Answer
from kg.chat.references import only_pronoun, pronoun_in
from kg.model import Term
from kg.textnorm import has_cjk


def slot_link(ctx: Ctx, slot: Slot, prefer: str = "head") -> Link | None:
    """The term of one slot: the referent for "它"/"it", names, then search; records suggestions."""
    in_question = not ctx.used_context and bool(ctx.linker.spans_in(ctx.analysis, slot))
    if ctx.referent and _pronoun_opens_yes_no(ctx, slot):
        # "前者需要单独的 draft 模型吗？": the pointer is the subject; the name after the verb is
        # what the question asks of it
        return Link(ctx.referent, "context")
    if pronoun_in(ctx, slot) and ctx.referent and not (in_question and not only_pronoun(ctx, slot)):
        # (a slot naming terms whose pronoun points back into the question itself —
        # "AllGather 和 All-to-All 这两个" — is linked by its names below)
        if only_pronoun(ctx, slot) or (
            ctx.pronoun is not None and (ctx.pronoun.ref.startswith("ord:") or ctx.pronoun.ref == "other")
        ):
            # "后一个一般瓶颈在哪？": an ordinal picks an item of the user's list: the answer is about it
            return Link(ctx.referent, "context")
        if ctx.parsed.intent in ("definition", "abbreviation", "unknown"):
            # "它的激活参数" / "its counterpart": the part of the term under discussion
            owned = possessed(ctx, slot)
            if owned is not None:
                return owned
            if ctx.used_context and _possessive(ctx) and not _ASKS_QUANTITY.search(ctx.parsed.folded):
                # "它上面的那条脊线": a neighbour of the term under discussion that the question
                # describes. Not when the pronoun points back into the question itself
                # ("Goodput: what does it count?"): there it simply is the term just named; nor
                # when it is the subject ("它们俩都算训练后量化吗？"): the question is about it;
                # nor when it asks a quantity ("它的块大小是多少？"): a figure of the term itself.
                found = ctx.linker.context_link(ctx.body_text(substitute=False), ctx.referent)
                if found is not None:
                    return found
        return Link(ctx.referent, "context")
    if _pronoun_is_subject(ctx, slot):
        # "ttft, the wait before the first token shows up - what exactly is it?": the subject
        # is the pronoun, and it points back at the name the question opened with
        return Link(ctx.referent, "context")  # type: ignore[arg-type]
    alt = ctx.body_text() if len(ctx.parsed.slots) > 1 else None
    link, suggestions = ctx.linker.link_slot(
        slot, ctx.analysis, in_domain=ctx.in_domain, prefer=prefer, alt=alt
    )
    if link is None:
        for s in suggestions:
            if s not in ctx.suggestions:
                ctx.suggestions.append(s)
    return link


_ENDS_WITH_SUBJECT_PRONOUN = re.compile(r"\b(?:is|was|does|do|means?)\s+(?:it|that|this)\s*[?？.!]*$")
_BEFORE_SUBJECT_PRONOUN = re.compile(
    r"^\s*(?:(?:what|how|why|where|when|which)\s+)?(?:does|do|did|is|was|can|could|will|would|should)?\s*$"
)


#: A question for a figure ("是多少", "多大", "how many"): of the term it names, not of a neighbour.
_ASKS_QUANTITY = re.compile(
    r"是多少|有多[大少长宽快高]|多大|几个|多少个|\bhow (?:big|large|many|much|long|wide|fast)\b"
)

_OWNED_AFTER = re.compile(r"^\s*(?:的|上|里|中|内|下|上面|里面|当中)")
_OWNED_BEFORE = re.compile(r"\b(?:on|in|inside|within|of)\s*$")


def _possessive(ctx: Ctx) -> bool:
    """The pronoun owns what follows ("它的…", "它上面的…", "its …"), rather than being the subject."""
    p = ctx.pronoun
    if p is None:
        return False
    f = ctx.parsed.folded
    return (
        p.text in ("its", "their")
        or bool(_OWNED_AFTER.match(f[p.end :]))
        or bool(_OWNED_BEFORE.search(f[: p.start]))  # "the helper core on it"
    )


def _pronoun_is_subject(ctx: Ctx, slot: Slot) -> bool:
    """The slot's subject is a pronoun pointing back at the name the question opened with:
    "X, … what is it?", "Tensor parallelism: does it need NVLink?", "KV cache，它为什么这么大"."""
    p = ctx.pronoun
    if (
        ctx.parsed.intent not in ("definition", "unknown", "howto_why", "relation")
        or ctx.used_context
        or not ctx.referent
        or p is None
        or p.ref != "topic"
        or not pronoun_in(ctx, slot)
    ):
        return False
    if _ENDS_WITH_SUBJECT_PRONOUN.search(slot.text):
        return True
    before = ctx.parsed.folded[slot.start : p.start]
    return p.text in ("it", "它") and bool(_BEFORE_SUBJECT_PRONOUN.match(before))


def possessed(ctx: Ctx, slot: Slot) -> Link | None:
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
            return Link.mention(s)
    return None


def named_outside(ctx: Ctx, slot: Slot) -> set[str]:
    """Terms the question names outside *slot*."""
    return {s.term_id for s in ctx.analysis.spans if not (slot.start <= s.start and s.end <= slot.end)}


def other_terms(ctx: Ctx, exclude: set[str], outside: Slot | None = None) -> list[str]:
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


def ranked_neighbours(ctx: Ctx, focus: str, boost: list[str] = ()) -> list[str]:  # type: ignore[assignment]
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
        other = e.target if e.source == focus else e.source
        for item in e.items:
            if item.subject == focus:
                idx = next((i for i, x in enumerate(texts) if x and item.text in x), len(texts))
                named_by_focus[other] = min(idx, named_by_focus.get(other, idx))

    def key(tid: str) -> tuple[int, int, int, int, int, str]:
        rank = ranks.get(tid, 10_000)
        return (tid not in boosted, rank > 5, tid not in confused, named_by_focus.get(tid, 99), rank, tid)

    return sorted((n for n in near if n not in boost), key=key)


# --- handlers --------------------------------------------------------------------------------------


def finish(ctx: Ctx, c: Composer, intent: str, follow_ups: list[str]) -> Answer:
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


#: A greeting (as opposed to thanks or leave-taking) opens the message.
_HELLO = re.compile(
    r"^\W*(?:你好|您好|大家好|早上好|晚上好|哈喽|在吗|hi\b|hello|hey|good (?:morning|afternoon|evening))"
)


def social(ctx: Ctx) -> Answer:
    """The reply to a greeting, thanks or leave-taking: courteous, grounded in nothing, no term."""
    key = "social_hello" if _HELLO.match(ctx.parsed.folded.lower()) else "social_bye"
    return Answer(
        question=ctx.parsed.question,
        lang=ctx.lang,  # type: ignore[arg-type]
        intent="out_of_domain",
        answer=t(ctx.lang, key),
        grounded=False,
        terms=[],
        citations=[],
        warnings=list(ctx.warnings),
        linked_by="none",
    )


def refuse(ctx: Ctx, intent: str = "out_of_domain", reason: str | None = None) -> Answer:
    lang = ctx.lang
    lines = [t(lang, "refuse")]
    if reason:
        lines.insert(0, reason)
    if ctx.analysis.unknown:
        lines.append(t(lang, "refuse_unknown", names=" ".join(ctx.analysis.unknown)))
    suggestions = list(ctx.suggestions)
    if not suggestions and ctx.retrieval is not None and ctx.retrieval.hits:
        # the search the answer started from (the whole question): searching the body again
        # would encode a second query on the refusal path, the slowest answers
        suggestions = [h.term_id for h in ctx.retrieval.hits[:5]]
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


def single(ctx: Ctx, prefer: str = "head") -> Link | None:
    """The one term the question is about: its slot's name, the referent, else retrieval's candidate."""
    slot = ctx.parsed.slots[0] if ctx.parsed.slots else ctx.parsed.body
    p = ctx.pronoun
    if (
        p is not None
        and p.ref.startswith("ord:")
        and ctx.referent
        and slot is not None
        and slot.start <= p.start
        and p.end <= slot.end
    ):
        # "Medusa and EAGLE are both examples, right? does the first one need …": an ordinal picks
        # its term outright; the rest of the slot says what is asked of it
        return Link(ctx.referent, "context")
    link = slot_link(ctx, slot, prefer) if slot is not None else None
    subject = _yes_no_subject(ctx, slot) if link is not None and link.method == "mention" and slot else None
    if subject is not None:
        # "那个引擎自带的前缀缓存能用到主机内存上吗？": what the yes/no question says of its subject is
        # asked about that name, however much else the question describes
        ctx.linked_by = subject.method
        return subject
    if (
        link is not None
        and link.method == "search"
        and slot is not None
        and ctx.decision is not None
        and ctx.decision.candidate in named_outside(ctx, slot)
    ):
        # "functionalization, compiler-wise, what is that?": the slot names nothing, the question
        # does, and the search over the whole question agrees: that name is the subject
        link = Link(ctx.decision.candidate, "search")
    if (
        link is not None
        and link.method == "mention"
        and slot is not None
        and not ctx.used_context
        and ctx.decision is not None
        and ctx.decision.candidate
        and ctx.decision.candidate != link.term_id
        and described_words(ctx, slot) >= DESCRIPTION_WORDS
    ):
        # "SM 里 32 个线程同时执行同一条指令的最小调度单位是什么？": a slot that describes something
        # and merely mentions a name is about what the search over the question ranks first
        link = Link(ctx.decision.candidate, "search")
    if (
        link is None
        and ctx.referent
        and not ctx.used_context
        and not (ctx.pronoun is not None and ctx.pronoun.ref.startswith("ord:"))  # "the first one" picks
        and slot is not None
        and ctx.decision is not None
        and ctx.decision.candidate
        and ctx.decision.candidate != ctx.referent
        and described_words(ctx, slot) >= DESCRIPTION_WORDS
    ):
        # "vLLM 的显存装不下…，想把它下沉到主机内存…，有现成的开源方案吗？": the pronoun points at a
        # name of the same question, and the question describes what it wants: the search's best
        # term (LMCache), not the name its pronoun repeats
        link = Link(ctx.decision.candidate, "search")
    if link is None and ctx.referent and ctx.parsed.intent not in ("definition", "abbreviation"):
        link = Link(ctx.referent, "context")
    if (
        link is None
        and ctx.in_domain
        and ctx.decision is not None
        and ctx.decision.candidate
        and not _unknown_name(ctx, slot, ctx.decision.candidate)
    ):
        # retrieval-first: an in-domain question whose words name no term ("pagedattn 原理",
        # "the thing that splits long prompts") is about the best hit of the search
        link = Link(ctx.decision.candidate, "search")
    if link is not None and link.method in ("search", "context") and slot is not None:
        # a figure the sources state of a jointly defined pair ("8K/1K") is the pair's, read in the
        # line's order: the search ranks its members by their other words, and the conversation
        # may be on either member
        lead = ctx.linker.joint_lead(link.term_id, ctx.parsed.folded[slot.start : slot.end])
        if lead != link.term_id:
            link = Link(lead, "search", link.score)
    if link is not None:
        ctx.linked_by = link.method
    return link


def _unknown_name(ctx: Ctx, slot: Slot | None, candidate: str) -> bool:
    """ "什么是 token 折叠缓存？": a definition asked of a short phrase — a would-be name, not a
    description — that no name covers and whose words the search's best term's names contradict
    (:func:`kg.chat.linking.consistent`): a name the glossary does not have, not that term."""
    if slot is None or ctx.parsed.intent != "definition" or ctx.parsed.facet or ctx.used_context:
        return False
    text = ctx.parsed.folded[slot.start : slot.end]
    spans = ctx.linker.spans_in(ctx.analysis, slot)
    if sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff") < 4 or not spans:
        return False  # a compound of a glossary name and words of its own; English ones are
        # name-shaped words the linker already calls unknown ("FlashDecode-Turbo")
    if described_words(ctx, slot) > 2:
        return False  # a description: search answers it
    own = [sp for sp in spans if sp.term_id == candidate]
    if own and re.search(r"[\u4e00-\u9fff]{2}", ctx.parsed.folded[own[-1].end : slot.end]):
        return True  # the candidate is the compound's modifier (a Chinese compound ends on its head)
    return not consistent(text, ctx.glossary.terms[candidate])


#: "Medusa 也需要单独的草稿模型吗？", "ONNX 算 IR 的一种吗？": a yes/no question whose first name is its
#: subject, straight followed by the verb; what the verb says of it is asked about that name.
_YES_NO_VERB = re.compile(r"\s*(?:也|还|就|都)?(?:需要|需|能|会|可以|可|是否|支持|适合|算|属于|用|有没有|要)")
_YES_NO_END = re.compile(r"[吗么嘛][\s?？。!！]*$")
#: What may stand before that name: its owner, ending in 的 ("那个引擎自带的前缀缓存能…吗").
_OWNER_BEFORE = re.compile(r"[^，,。？?！!]{0,12}的\s*")


def _pronoun_opens_yes_no(ctx: Ctx, slot: Slot) -> bool:
    """A Chinese yes/no question whose slot opens with the pronoun, a verb of
    :data:`_YES_NO_VERB` straight after it ("它需要单独的草稿模型吗？", "前者支持 FP8 吗？")."""
    p, f = ctx.pronoun, ctx.parsed.folded
    if p is None or not has_cjk(slot.text) or not _YES_NO_END.search(f):
        return False
    if not (slot.start <= p.start < slot.end) or f[slot.start : p.start].strip(" 那么所以，,"):
        return False
    return bool(_YES_NO_VERB.match(f, p.end))


def _yes_no_subject(ctx: Ctx, slot: Slot) -> Link | None:
    """The name a Chinese yes/no question opens with as its subject (see :data:`_YES_NO_VERB`)."""
    f = ctx.parsed.folded
    if not has_cjk(slot.text) or not _YES_NO_END.search(f):
        return None
    spans = ctx.linker.spans_in(ctx.analysis, slot)
    if not spans or not _YES_NO_VERB.match(f, spans[0].end):
        return None
    first = spans[0]
    if first.start != slot.start and not _OWNER_BEFORE.fullmatch(f[slot.start : first.start]):
        return None
    return Link.mention(first)


#: Words outside the names from which a slot describes a term rather than names it (Latin words;
#: Chinese at two characters a word).
DESCRIPTION_WORDS = 6.0


def described_words(ctx: Ctx, slot: Slot) -> float:
    """Words of *slot* outside the glossary names it mentions."""
    text = ctx.parsed.folded[slot.start : slot.end]
    rest = list(text)
    for span in ctx.linker.spans_in(ctx.analysis, slot):
        rest[span.start - slot.start : span.end - slot.start] = " " * (span.end - span.start)
    remainder = "".join(rest)
    latin = [w for w in re.findall(r"[a-z0-9][a-z0-9'\-]*", remainder) if w not in _FUNCTION_WORDS]
    return len(latin) + sum(1 for ch in remainder if "\u4e00" <= ch <= "\u9fff") / 2


# the linker's English stop words, and the contracted question word
_FUNCTION_WORDS = _EN_STOP | {"whats", "what's"}


def one_term(ctx: Ctx) -> Answer | tuple[Link, Term, Composer]:
    """The single term a question is about, focused, with a composer; or the refusal to give."""
    link = single(ctx)
    if link is None:
        return refuse(ctx)
    term = ctx.glossary.terms[link.term_id]
    ctx.focus = [term.id]
    return link, term, Composer(ctx.glossary, ctx.lang)


def topic_first(ctx: Ctx, a: Link, b: Link) -> tuple[Link, Link]:
    """The side that is the term under discussion first, when the question does not name the other
    before pointing back at it (:func:`question_order`). Not in a question asked again about a new
    term ("那 GH200 呢？"): that term is what it asks about."""
    if b.method == "context" and a.method != "context" and not ctx.reasked:
        return b, a
    return a, b


def question_order(ctx: Ctx, a: Link, b: Link) -> tuple[Link, Link]:
    """A comparison's or relation's sides in the order the question gives them, when it names one term and
    then points back at the other ("How is blue-green deployment different from it?", "动态批处理
    跟它是一回事吗？", "JAX 跟它是什么关系？"): the named term is what the asker holds up against the
    one under discussion, so it is the answer's subject. Otherwise as :func:`topic_first`."""
    p = ctx.pronoun
    slots = ctx.parsed.slots
    if (
        p is not None
        and a.method != "context"
        and b.method == "context"
        and len(slots) >= 2
        and slots[0].end <= p.start
        and pronoun_in(ctx, slots[1])
    ):
        return a, b
    return topic_first(ctx, a, b)


def pair(ctx: Ctx) -> tuple[Link | None, Link | None]:
    """The two sides of a comparison, each its slot's term (see :func:`_modifier_sides`)."""
    slots = ctx.parsed.slots
    sides = _modifier_sides(ctx, slots[0], slots[1]) if len(slots) > 1 else None
    if sides is not None:
        return sides
    a = slot_link(ctx, slots[0]) if slots else None
    b = slot_link(ctx, slots[1]) if len(slots) > 1 else None
    return a, b


def _modifier_sides(ctx: Ctx, a: Slot, b: Slot) -> tuple[Link, Link] | None:
    """ "prefill 节点和 decode 节点有啥区别", "prefill 和 decode 节点": two sides ending on the same name
    (or the first leaving it out) differ in the names before it; those are what is compared, not
    the shared head (which would make both sides one term)."""
    if pronoun_in(ctx, a) or pronoun_in(ctx, b):
        return None
    sa, sb = ctx.linker.spans_in(ctx.analysis, a), ctx.linker.spans_in(ctx.analysis, b)
    if len(sb) < 2 or sb[-1].end != b.end:
        return None
    head = sb[-1].term_id
    if sa and sa[-1].end == a.end and sa[-1].term_id == head and len(sa) >= 2:
        first = sa[-2]  # "prefill 节点": the name before the shared head
    elif len(sa) == 1 and sa[0].start == a.start and sa[0].end == a.end and sa[0].term_id != head:
        first = sa[0]  # "prefill 和 decode 节点": the first side leaves the head out
    else:
        return None
    second = sb[-2]
    if second.end > sb[-1].start or first.term_id in (head, second.term_id) or second.term_id == head:
        return None
    return (
        Link.mention(first),
        Link.mention(second),
    )
