"""Who 它 / it / the former / the second one is: the reference stage of the chat pipeline.

A pronoun points at a term named earlier in the same question ("What does TCO stand for,
and what does it include?") or else at the conversation's topic
(:attr:`ConversationState.topic`). "the former" / "the latter" and ordinals ("the second
one", "第二个", "后一个") point into the last two terms the user named together
(:attr:`ConversationState.pair`, in the user's order); "它们" / "they" / "which one" at both.
A pronoun with nothing to point at is left unresolved: the decision stage then asks which
term is meant instead of guessing.
"""

from __future__ import annotations

import itertools
import re

from kg.chat.context import Ctx
from kg.chat.genus import genus_names
from kg.chat.intents import TOPIC_SWITCH, Pronoun, Slot, is_demonstrative, parse
from kg.chat.model import ConversationState
from kg.chat.normalize import known_words, normalize
from kg.search.labels import Span
from kg.textnorm import fold, has_cjk

__all__ = [
    "choice_terms",
    "listed_terms",
    "needs_clarification",
    "only_pronoun",
    "overlaps",
    "pronoun_in",
    "resolve_reference",
]

#: The most terms a "which one" choice weighs.
_CHOICE_MAX = 4

#: A question opening by returning to a term it names ("回到 TPOT，…", "back to NVLink: …").
_RETURN_TO = re.compile(
    r"^\s*(?:(?:好的?|那|嗯|ok|okay|so)[\s,，]*)?(?:再?回到|说回|回来说|back to|going back to|returning to)\s*"
    r"(?:刚才的?|前面的?|the\s+)?"
)
#: A preposition right before a demonstrative: "on those charts", "in that setup" place what the
#: question names; they do not point at the term under discussion.
_PLACED_BY = re.compile(r"\b(?:on|in|at|from|within|inside|across|under)\s+$")
#: "RoPE 对这种场景…", "X 在这种情况下…": a Chinese preposition before a demonstrative noun phrase.
_PLACED_BY_ZH = re.compile(r"(?:对|在)\s*$")
#: A name put in front of the question it is asked about: "MoE models - what's …", "X: …".
_FRONTED_BY = re.compile(r"\s[—–-]{1,2}\s|——|:|：")
#: What may come before a name that opens a question.
_OPENS = re.compile(r"^[\s那么所以好的嗯,，]*$")
#: An indefinite noun phrase the question introduces ("a new model", "an internal API") with no
#: sentence end after it: what a later "its" / "their" owns.
_OWN_ANTECEDENT = re.compile(r"\b(?:a|an)\s+(?:[a-z][a-z-]*\s+){0,2}[a-z][a-z-]*\b(?![^.?!;]*[.?!;])")
_CLAUSE_BREAK = re.compile(
    r"[,;:，；：。.!?！？]|\s[—–-]{1,2}\s|——|\s+(?:and|but)\s+(?=(?:why|how|what|which|when|where|is|does|do|can)\b)"
)


def resolve_reference(ctx: Ctx) -> None:
    """Who 它 / it / the former is: a term named earlier in the question, else the conversation's."""
    if _class_determined(ctx):
        return
    pronouns = ctx.analysis.pronouns
    if not pronouns:
        if ctx.state is not None and ctx.state.topic and _dropped_subject(ctx):
            # "什么是 MoE？" … "部署时一般用哪种并行？": Chinese drops a subject the conversation
            # holds; the question asks for the term linked to it
            ctx.referent, ctx.used_context = ctx.state.topic[0], True
            ctx.dropped_subject = True
        return
    p = pronouns[0]
    ctx.pronoun = p
    spans = ctx.analysis.spans
    state = ctx.state
    if TOPIC_SWITCH.match(ctx.parsed.folded) and is_demonstrative(p) and not p.ref.startswith("ord:"):
        # "Something else: what is a Pareto frontier on these charts?": a new subject; "these"
        # only determines a noun of the new question
        ctx.pronoun = None
        return
    if (
        is_demonstrative(p)
        and _PLACED_BY.search(ctx.parsed.folded, 0, p.start)
        and any(s.end <= p.start for s in spans)
    ):
        # "What's the Pareto frontier on those charts?": the demonstrative only places the term
        # the question names; it does not bring back the one under discussion
        ctx.pronoun = None
        return
    if (
        is_demonstrative(p)
        and _PLACED_BY_ZH.search(ctx.parsed.folded, 0, p.start)
        and spans
        and _OPENS.match(ctx.parsed.folded[: spans[0].start])
        and spans[0].end <= p.start
        and not _STANDS_ALONE.match(ctx.parsed.folded, p.end)
    ):
        # "RoPE 对这种场景有什么帮助？": the question opens with its subject; the demonstrative only
        # places it (in the long-context setting under discussion)
        ctx.pronoun = None
        return
    if p.text in ("its", "their") and _OWN_ANTECEDENT.search(ctx.parsed.folded, 0, p.start):
        # "How can I try a new model on real traffic without users ever seeing its output?": the
        # possessive's owner is the thing the sentence itself introduces, not a term talked about
        ctx.pronoun = None
        return
    if p.ref == "both":
        listed = _listed_before(ctx, p)
        if listed:
            # "What representative methods of it are there?" … "Which of those adds extra decoder
            # heads?": a choice among the items the last answer listed, not the names the
            # description uses (decoder heads, draft model)
            ctx.referents = listed[:_CHOICE_MAX]
            ctx.referent, ctx.used_context = listed[0], True
            _a_choice(ctx, p)
            return
        # "which is better for latency, TP or PP?": the alternatives offered, not the criterion
        named = choice_terms(ctx.parsed.folded, spans) or list(dict.fromkeys(s.term_id for s in spans))
        if len(named) == 1 and any(
            s.end <= p.start and _FRONTED_BY.search(ctx.parsed.folded, s.end, p.start) for s in spans
        ):
            # "MoE models - what's the deal with them?": the plural takes up the name put in front
            ctx.referent = named[0]
            return
        if len(named) >= 2:
            # "AllGather 和 All-to-All 这两个有啥区别", "compute-bound vs memory-bound: how do I tell them apart"
            ctx.referents = named[:_CHOICE_MAX]
            ctx.referent = named[0]
            return
        if state is not None and len(state.pair) >= 2:
            # "Which one brought FP8 support?" after "Ampere, Hopper, Blackwell - which years?":
            # every term the last question named is a choice; comparisons read the first two
            pool = state.named if len(state.named) > 2 and state.named[:2] == state.pair[:2] else state.pair
            ctx.referents = pool[:_CHOICE_MAX]
            ctx.referent, ctx.used_context = state.pair[0], True
            _a_choice(ctx, p)
            return
        if state is not None and len(state.named) >= 2 and p.text.startswith("which"):
            ctx.referents = state.named[:_CHOICE_MAX]
            ctx.referent, ctx.used_context = state.named[0], True
            _a_choice(ctx, p)
            return
        recent = _last_two_answered(state)
        if (
            recent is not None
            and p.text.startswith("which")
            and (not spans or (p.text == "which one" and len(named) == 1 and named[0] not in recent))
        ):
            # "What's NVLink?" … "And InfiniBand?" … "Which one is faster?": a choice between the
            # two the user asked about in turn ("Which one supports FP4?": FP4 is what it is chosen by)
            ctx.referents = list(recent)
            ctx.referent, ctx.used_context = recent[0], True
            _a_choice(ctx, p)
            return
        if recent is not None and not spans and ctx.parsed.intent in ("comparison", "relation"):
            # "What's vLLM?" … "And SGLang?" … "这两个有什么区别？": a question about two things
            # reads the two the user asked about in turn, though never named together, in the
            # conversation's order (elsewhere "them" is often one term's plural: "swapping
            # thousands of them" after LoRA)
            ctx.referents = list(recent)
            ctx.referent, ctx.used_context = recent[0], True
            return
        if state is not None and state.topic:
            ctx.referent, ctx.used_context = state.topic[0], True
        return
    if p.ref.startswith("ord:"):
        # "第二个" / "the second one": the user's own order, in this question or the last one naming several
        k = int(p.ref[4:])
        here = listed_terms(ctx.parsed.folded, [s for s in spans if s.end <= p.start])
        in_question = len(here) >= 2
        pool = here if in_question else (state.named or state.pair if state is not None else [])
        if not pool and k in (0, -1) and (recent := _last_two_answered(state)) is not None:
            # "What is a hyperscaler?" … "the GPU-focused alternative to it?" … "examples of the
            # latter": the terms the last two answers were about, in their order
            pool = list(recent)
        if not pool and k not in (0, -1):
            # "What's PP?" … "And EP?" … "Which collective does the first use?" … "And the second?":
            # the terms the user named, in turn (the last answers since may be about what was
            # asked of them: AllGather)
            pool = _user_named(ctx)
        if not pool and state is not None and state.topic and k in (0, -1):
            pool = state.topic[:1]  # "Compare X and <unknown>" then "the first one": the one we know
        if pool and -len(pool) <= k < len(pool):
            ctx.referent = pool[k]
            ctx.used_context = not in_question
            # "how does the second one differ from the first?": each ordinal picks its own
            more = [int(o.ref[4:]) for o in pronouns[1:] if o.ref.startswith("ord:")]
            picked = list(dict.fromkeys([pool[k], *(pool[j] for j in more if -len(pool) <= j < len(pool))]))
            if len(picked) >= 2:
                ctx.referents = picked[:_CHOICE_MAX]
        return
    if p.ref == "other":
        # "那另一个的主要毛病是什么？" after "TP 和 PP 里，哪一个…": the listed term not under discussion
        pool = (state.named or state.pair) if state is not None else []
        rest = [t for t in pool if state is not None and t not in state.topic]
        if rest:
            ctx.referent, ctx.used_context = rest[0], True
        return
    if p.ref in ("former", "latter"):
        i = 0 if p.ref == "former" else 1
        before = [s for s in spans if s.end <= p.start]
        if len(before) >= 2:
            ctx.referent = before[0 if i == 0 else -1].term_id
            return
        if state is not None and len(state.pair) > i:
            ctx.referent, ctx.used_context = state.pair[i], True
            return
        if state is not None and len(state.named) >= 2:
            # "Are Triton and Triton Inference Server related?" answered about one of them, then
            # "What protocols does the latter expose?": the two the user named, in their order
            ctx.referent, ctx.used_context = (state.named[0] if i == 0 else state.named[-1]), True
            return
        recent = _last_two_answered(state)
        if recent is not None and not spans:
            # "它里面做矩阵乘加的那个网格叫什么？" (MXU) … "那负责逐元素计算的呢？" (VPU) … "前者为什么
            # 经常跑不满？": the two terms the last two answers were about, in their order
            ctx.referent, ctx.used_context = recent[i], True
            return
        if state is not None and len(state.topic) == 1 and not spans:
            # "ITL 是什么的缩写？… InferenceX 那份术语怎么描述后者？": the two names the talk went
            # through are one term here (ITL is TPOT's other name); the latter is that term
            ctx.referent, ctx.used_context = state.topic[0], True
        return
    f = ctx.parsed.folded
    agreeing = _agreeing(ctx, p)
    if agreeing is not None:
        ctx.referent, ctx.used_context = agreeing
        return
    if (state is None or not state.topic) and is_demonstrative(p) and _SITUATION_AFTER.match(f, p.end):
        # "中间激活总是先写回 HBM 再读出来，这种来回怎么省掉？": the demonstrative sums up the
        # situation the question describes, not a term it names
        ctx.pronoun = None
        return
    breaks = [m.end() for m in _CLAUSE_BREAK.finditer(f, 0, p.start)]
    boundary = breaks[-1] if breaks else 0
    earlier = [s for s in spans if s.end <= boundary]
    same_clause_before = [s for s in spans if boundary <= s.start and s.end <= p.start]
    back = _RETURN_TO.match(f)
    if back and spans and spans[0].start == back.end() and spans[0].end <= p.start:
        # "回到 TPOT，ITL 跟它是一回事吗？": the return names what the pronoun points at
        ctx.referent = spans[0].term_id
        return
    if earlier and state is not None and state.topic and _CONDITION.match(f):
        # "如果 TTFT 是 200 ms、TPOT 是 20 ms，它大概是多少？" after E2E latency: names inside the
        # condition are its givens; the pronoun of the main clause is the term under discussion
        earlier = []
    if earlier and not same_clause_before:
        # "What does TCO stand for, and what does it include?": it = TCO
        ctx.referent = earlier[0].term_id
        return
    a = ctx.analysis
    lacking = [r for r in a.unknown_ranges if r[1] <= boundary] + [
        r for _, r in a.capitalised if r[1] <= boundary
    ]
    if lacking and not earlier:
        # "What about the HyperWarp Boost mode - does that help?": "that" is the name the
        # glossary lacks, not the term under discussion
        return
    if state is not None and state.topic:
        ctx.referent, ctx.used_context = _compared_side(ctx, state.topic[0], state.last_terms), True
        return
    before = [s for s in spans if s.end <= p.start]
    if before:
        ctx.referent = before[0].term_id


#: A question that opens with a condition ("如果…，", "If…,"): what it names are the givens.
_CONDITION = re.compile(r"^\s*(?:如果|假如|假设|要是|若是|倘若|(?:if|suppose|assuming|say)\b)")


def _class_determined(ctx: Ctx) -> bool:
    """ "Who open-sourced that engine?" / "这个引擎最早是谁开源的" after vLLM: a demonstrative before
    the name of the class the term under discussion belongs to (its genus, :mod:`kg.chat.genus`,
    or a name that class's name ends with) points back at that term; linking read the class name
    as the term asked about. Drops that span and makes the demonstrative the pronoun; True when
    it did."""
    state = ctx.state
    if state is None or not state.topic or ctx.analysis.pronouns:
        return False
    # the term a "which" follow-up answered with comes first: "哪个引擎最早用它？" → vLLM, then
    # "这个引擎还有什么特点？" is about vLLM, not PagedAttention
    return any(term in ctx.glossary and _class_of(ctx, term) for term in _answered_then_topic(state))


def _answered_then_topic(state: ConversationState) -> list[str]:
    """The term a "which" follow-up answered with (when it is not the topic), then the topic."""
    return list(dict.fromkeys([*([state.answered] if state.answered else []), *state.topic[:1]]))


def _class_of(ctx: Ctx, topic: str) -> bool:
    """:func:`_class_determined` for one term under discussion."""
    classes = genus_names(ctx.glossary, topic)
    if not classes:
        return False
    folded = ctx.parsed.folded
    class_names = {fold(n) for c in classes if c in ctx.glossary for n in ctx.glossary.terms[c].all_names()}
    for p in ctx.parsed.pronouns:
        if not is_demonstrative(p):
            continue
        s = next(
            (s for s in ctx.analysis.spans if s.start >= p.end and not folded[p.end : s.start].strip()),
            None,
        )
        if s is None or s.term_id == topic:
            continue
        word = fold(s.text)
        if s.term_id not in classes and not any(n.endswith(word) and len(word) >= 2 for n in class_names):
            continue
        if any(o.term_id == s.term_id for o in ctx.analysis.spans if o is not s):
            continue  # the class is named again: it is what the question is about
        ctx.analysis.spans.remove(s)
        ctx.analysis.pronouns.append(p)
        ctx.pronoun, ctx.referent, ctx.used_context = p, topic, True
        return True
    return False


def _compared_side(ctx: Ctx, topic: str, last_terms: list[str]) -> str:
    """The term "it" stands for in a comparison with a named term: the topic, unless the last
    answer was about another term that the sources contrast with the named one, or file under its
    category, and the topic is neither ("它实现的 AllReduce 具体做了什么？" after NCCL, then "它和 Reduce-scatter 有啥区别": AllReduce;
    "它的激活参数指什么？" after MoE, then "那它和稠密模型有什么区别？": still MoE)."""
    if ctx.parsed.intent != "comparison" or not last_terms or last_terms[0] == topic:
        return topic
    g = ctx.glossary
    last = last_terms[0]
    others = [s.term_id for s in ctx.analysis.spans if s.term_id not in (topic, last)]
    if last not in g or topic not in g:
        return topic

    def kin(a: str, b: str) -> bool:
        # contrasted by the sources, or filed under the same category (two collective ops)
        same = set(g.terms[a].categories) & set(g.terms[b].categories) if b in g else set()
        return bool(same) or any({e.source, e.target} == {a, b} for e in g.confusables(a))

    if any(kin(last, o) for o in others) and not any(kin(topic, o) for o in others):
        return last
    return topic


#: Nouns a demonstrative sums a described situation up with ("这种来回", "this problem").
_SITUATION_AFTER = re.compile(
    r"\s*(?:情况|问题|现象|来回|往返|开销|场景|过程|毛病|状况|局面|卡顿|浪费|"
    r"(?:problem|issue|situation|overhead|round[- ]trip|behaviou?r|slowdown|bottleneck)s?\b)"
)


#: A Chinese which-question that opens with a setting or a verb, not a subject: "部署时一般用哪种
#: 并行？", "推理时靠哪个库？", "一般跟哪个引擎搭配？".
_NO_SUBJECT_ZH = re.compile(
    r"^(?:那|那么)?(?:部署|训练|推理|上线|运行|使用|用|serving|落地)?(?:时|的时候|中|里)?\s*(?:一般|通常|主要|常|多半|都)?(?:用|上|靠|跟|和|配|搭配|需要|选|采用)"
)


def _dropped_subject(ctx: Ctx) -> bool:
    """A Chinese which-question with no pronoun, no name before its question word and no subject
    (asked inside a conversation, the caller checks): it is about the term under discussion."""
    if ctx.parsed.intent not in ("which", "relation"):
        return False
    f = ctx.parsed.folded
    m = _NO_SUBJECT_ZH.match(f)
    q = re.search(r"哪|什么|啥", f)
    if m is None or q is None or not has_cjk(f):
        return False
    # a name inside the setting ("部署时") is no subject; one before the question word is
    return not any(m.end() <= s.start < q.start() for s in ctx.analysis.spans)


#: "which of those / these / them": a choice among what was said last, never among names that follow.
_WHICH_OF_BACK = re.compile(r"^which of (?:them|these|those)$")


def _listed_before(ctx: Ctx, p: Pronoun) -> list[str]:
    """The items the last answer listed (a listing's terms but its subject), when *p* is "which of
    those" and the question offers no alternatives of its own; [] otherwise."""
    state = ctx.state
    if state is None or state.last_intent != "listing" or not _WHICH_OF_BACK.match(p.text):
        return []
    if choice_terms(ctx.parsed.folded, ctx.analysis.spans):
        return []
    return state.named if len(state.named) >= 2 else []


def _a_choice(ctx: Ctx, p: Pronoun) -> None:
    """ "Which one needs Hopper?" among the terms under discussion asks to pick one of them,
    whatever else its verb says ("needs" would read as a relation)."""
    if p.text.startswith("which") and len(ctx.referents) >= 2:
        ctx.parsed.intent = "which"


_NOUN_AFTER = re.compile(r"\s*(?:(?:kind|type|sort|class) of\s+)?([\u4e00-\u9fff]{2,4}|[a-z][a-z-]{2,})")


def _last_two_answered(state: ConversationState | None) -> tuple[str, str] | None:
    """The terms the last two grounded answers were about (first cited), older first, when the
    two differ; None otherwise."""
    if state is None:
        return None
    firsts = [t.terms[0] for t in state.turns if t.grounded and t.terms][-2:]
    if len(firsts) < 2 or firsts[0] == firsts[1]:
        return None
    return firsts[0], firsts[1]


def _user_named(ctx: Ctx) -> list[str]:
    """The terms the user's own questions named so far, in the order first named."""
    if ctx.state is None:
        return []
    g, linker = ctx.glossary, ctx.linker
    out: list[str] = []
    for turn in ctx.state.turns:
        parsed = parse(normalize(turn.question, known_words(g), linker.vocabulary, g).text)
        out.extend(s.term_id for s in linker.analyse(parsed).spans)
    return list(dict.fromkeys(out))


def _agreeing(ctx: Ctx, p: Pronoun) -> tuple[str, bool] | None:
    """A demonstrative with a noun points at the term whose name ends in that noun: "……被古德哈特定律
    坑了……这条定律讲的是什么" → Goodhart's law; "那这类并行适合什么模型" after an answer that named
    上下文并行 → it. Looked for in the question before the pronoun, then the topic, then the last
    answer's terms; None when no name agrees."""
    if not is_demonstrative(p):
        return None
    m = _NOUN_AFTER.match(ctx.parsed.folded, p.end)
    if m is None:
        return None
    noun = m.group(1)
    keys = [noun[:k] for k in range(len(noun), 1, -1)] if has_cjk(noun) else [noun]

    def agrees(term_id: str, text: str = "") -> bool:
        term = ctx.glossary.terms.get(term_id)
        names = [text] if text else ([n.lower() for n in term.all_names()] if term is not None else [])
        return any(n.endswith(k) for n in names for k in keys)

    def of_kind(term_id: str) -> bool:
        # "这个引擎" after vLLM: the name of the class its definition says it is (推理引擎) ends in
        # the noun (kg/chat/genus.py)
        return term_id in ctx.glossary and any(agrees(c) for c in genus_names(ctx.glossary, term_id))

    before = [s for s in ctx.analysis.spans if s.end <= p.start and agrees(s.term_id, s.text)]
    if before:
        return before[-1].term_id, False
    state = ctx.state
    if state is None:
        return None
    if state.topic and agrees(state.topic[0]):
        return state.topic[0], True
    # a term of that kind by its own definition: the term a "which" follow-up answered with first
    # ("哪个引擎最早用它？" → vLLM), then the topic — before a name of the last answer that only
    # ends in the noun (推理引擎, quoted beside vLLM)
    for t in _answered_then_topic(state):
        if of_kind(t):
            # the class word is no term the question asks about ("这个引擎是谁开源的" is not about
            # inference engines): linking's span for it goes
            f = ctx.parsed.folded
            ctx.analysis.spans[:] = [
                s for s in ctx.analysis.spans if not (s.start >= p.end and not f[p.end : s.start].strip())
            ]
            return t, True
    for t in state.last_terms[:5]:
        if agrees(t):
            return t, True
    return None


_PRONOUN_FILLER = re.compile(
    r"^(?:那么|那|的|呢|和|与|跟|是不是|是否|会不会|能不能|真的|and|so|then|about|how about|what about|is|"
    r"really|\s)*$",
    re.IGNORECASE,
)


def overlaps(p: Pronoun, slot: Slot) -> bool:
    return p.start < slot.end and p.end > slot.start


def pronoun_in(ctx: Ctx, slot: Slot) -> bool:
    return any(overlaps(p, slot) for p in ctx.analysis.pronouns)


def only_pronoun(ctx: Ctx, slot: Slot) -> bool:
    text = slot.text
    for p in sorted(ctx.analysis.pronouns, key=lambda p: -p.start):
        if overlaps(p, slot):
            a, b = max(0, p.start - slot.start), min(len(text), p.end - slot.start)
            text = text[:a] + " " + text[b:]
    return bool(_PRONOUN_FILLER.match(text))


def needs_clarification(ctx: Ctx) -> bool:
    """A pronoun nothing resolves that stands for a whole slot: "它和 TPOT 有什么区别？" opening a
    conversation, "What does it stand for?". A pronoun inside a longer description ("what does
    lattency mean when it's measured …") refers to the question's own subject: no question back."""
    if ctx.pronoun is None or ctx.referent or ctx.referents:
        return False
    if _points_back_in_message(ctx.parsed.folded, ctx.pronoun.start):
        return False
    slots = ctx.parsed.slots or ([ctx.parsed.body] if ctx.parsed.body else [])
    if any(pronoun_in(ctx, s) and only_pronoun(ctx, s) for s in slots) or not slots:
        return True
    # "它们俩能一起用吗", "why is it wasting so much compute?": a short question that names no term
    # and no unknown name; its pronoun is all it is about
    return (
        not ctx.analysis.spans
        and not ctx.analysis.unknown
        and (
            not is_demonstrative(ctx.pronoun)
            or _STANDS_ALONE.match(ctx.parsed.folded, ctx.pronoun.end) is not None
        )
        and _words(ctx.parsed.folded) <= SHORT_QUESTION_WORDS
    )


#: A clause boundary: what comes before it in the same message is a statement of its own.
_CLAUSE_END = re.compile(r"[，,。.;；!！:：]\s*|\s[-—]+\s")


def _points_back_in_message(folded: str, start: int) -> bool:
    """ "有个用户贴了几万字的文档进来，别的用户全卡住了，这个怎么缓解": a pronoun after one or more clauses
    that describe something, long enough to be what it points at, within the same message."""
    before = folded[:start]
    ends = list(_CLAUSE_END.finditer(before))
    return bool(ends) and _words(before[: ends[-1].start()]) > SHORT_QUESTION_WORDS


#: Chinese adverbs that may stand between a demonstrative standing for a term and its verb
#: ("这个一般设多大？", "这个到底是啥？"); a determiner would have its noun there instead.
ZH_ADVERBS_AFTER_SUBJECT = "一般|通常|到底|究竟|平时|平常|大概|一直|往往"

#: What follows a demonstrative that stands for a term rather than determining a noun: "that
#: one", "those?", "those fit in one rack" (a verb), "那个怎么开", not "these charts". An adverb
#: right after it ("how big does that usually get?", "这个一般设多大？", "这个到底是啥？") makes
#: it the subject too: a determiner is followed by its noun, not by an adverb.
_STANDS_ALONE = re.compile(
    r"\s*(?:ones?\b|[?？.!。]|$|(?:do|does|did|is|are|was|were|fit|fits|work|works|mean|means|run|runs|have|has|need|needs|cost|costs)\b|"
    r"(?:usually|typically|normally|generally|really|actually|ever|even|still|always|often|mostly|commonly)\b|"
    rf"怎|如何|是|有|能|可以|要|该|为什么|咋|呢|{ZH_ADVERBS_AFTER_SUBJECT})"
)


#: Words (Latin words; Chinese at two characters a word) of a question short enough that an
#: unresolved pronoun in it is its subject.
SHORT_QUESTION_WORDS = 8


def _words(text: str) -> float:
    return (
        len(re.findall(r"[a-z0-9][a-z0-9'\-]*", text))
        + sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff") / 2
    )


_LIST_JOINER = re.compile(
    # not "，", which ends a Chinese clause ("想把权重压到 INT4，GPTQ 和 AWQ 该选哪个")
    r"^\s*(?:,|、|/|&|和|与|跟|及|以及|或|或者|还是|and|or|vs\.?|versus|,\s*(?:and|or))\s*$"
)

_LIST_JOINER_ZH = re.compile(r"^\s*(?:、|/|&|和|与|跟|及|以及|或|或者|还是|and|or|vs\.?|versus)\s*$")


def listed_terms(folded: str, spans: list[Span]) -> list[str]:
    """The terms a question offers as a list, in its order: the longest run of names joined only
    by "和" / "、" / "," / "or" / "vs" ("GPTQ 和 AWQ 该选哪个" → GPTQ, AWQ; not the INT4 of the
    clause before). "第二个" / "the second one" in the next turn counts within that list; with no
    such run, every name the question mentions, in order."""
    ordered = sorted(spans, key=lambda s: s.start)
    # a comma joins a list in English ("Pallas, PJRT, XLA"); in Chinese it ends a clause
    # (folded "，"), where 、 joins the list
    joiner = _LIST_JOINER_ZH if has_cjk(folded) else _LIST_JOINER
    best: list[Span] = []
    run: list[Span] = []
    for s in ordered:
        if run and s.start >= run[-1].end and joiner.match(folded[run[-1].end : s.start]):
            if s.term_id not in {r.term_id for r in run}:
                run.append(s)
            continue
        if len(run) > len(best):
            best = run
        run = [s]
    if len(run) > len(best):
        best = run
    if len(best) >= 2:
        return [s.term_id for s in best]
    return list(dict.fromkeys(s.term_id for s in ordered))


_CHOICE_JOINER = re.compile(r"^\s*(?:和|与|跟|还是|或|或者|and|or|vs\.?|versus)\s*$")
# "TP 和 PP 里，哪一个…", "GPTQ 和 AWQ 该选哪个": the pair, then the question word
_CHOICE_AFTER_ZH = re.compile(
    r"^\s*(?:里|中|之中|当中|之间|这两个|这两种|两个|两者)?\s*[,，]?\s*(?:我|我们)?(?:该|应该|到底|究竟|要)?(?:选|用|挑)?哪"
)
_CHOICE_BEFORE_EN = re.compile(r"(?:\bwhich of|\bbetween|\b(?:which|what)\b[^,:]*[,:])\s*$")


def choice_terms(folded: str, spans: list[Span]) -> list[str]:
    """The two terms a "which" question asks to choose between, in its order: "TP 和 PP 里，哪一个
    对卡间通信要求更高", "GPTQ 还是 AWQ", "which is faster, X or Y?", "which of X and Y …"; [] when
    the question names terms as examples or context ("负责激活函数、softmax 这类计算的部件是哪个",
    "which runtime sits between JAX or TorchTPU and the TPU")."""
    ordered = sorted(spans, key=lambda s: s.start)
    for a, b in itertools.pairwise(ordered):
        if a.term_id == b.term_id or b.start < a.end:
            continue
        joiner = folded[a.end : b.start]
        if not _CHOICE_JOINER.match(joiner):
            continue
        if "还是" in joiner or _CHOICE_AFTER_ZH.match(folded[b.end :]):
            return [a.term_id, b.term_id]
        if _CHOICE_BEFORE_EN.search(folded[: a.start]) and (
            not folded[b.end :].strip(" ?.!")
            or folded.startswith("which of")
            or re.match(r"\s*[,:]\s*which\b", folded[b.end :])
        ):
            return [a.term_id, b.term_id]
    return []


#: The question puts the pair together: "add up to", "out of those two", "拼起来", "加起来".
_COMPOSED = re.compile(
    r"\badd(?:s|ed)? up\b|\bcombine|\bsum\b|\btogether\b|\b(?:out|from) of (?:those|these|the) two\b|"
    r"\b(?:get|compute|calculate|derive)\b.*\b(?:out of|from) (?:those|these|the) two\b|"
    r"拼起来|加起来|合起来|相加|加在一起|组合起来|合在一起"
)


def whole_of_pair(ctx: Ctx) -> str | None:
    """The term a question about "those two" / "这两个" asks for when it is linked to both of a pair
    the conversation was about: "So how do those two add up to the full end-to-end latency?"
    after TTFT and TPOT (and the phases each answer led with), "这两个拼起来算一次请求总时长的指标是
    哪个" → E2E latency. The whole is a term the question names or the one the search found for
    it; the pair, the two most recent terms of the conversation (the user's names and each
    answer's first term) that the whole is linked to. Sets ``ctx.referents`` to that pair."""
    p = ctx.pronoun
    if p is None or p.ref != "both" or ctx.state is None or ctx.decision is None:
        return None
    if not _COMPOSED.search(ctx.parsed.folded):
        return None  # "Which of the two …", "它们俩都属于哪一类…": a choice or a class, no whole
    g = ctx.glossary
    recent: list[str] = []
    for turn in reversed(list(ctx.state.turns)[-3:]):
        firsts = list(turn.terms[:1])
        named = [s.term_id for s in ctx.linker.analyse(parse(turn.question)).spans]
        recent.extend(t for t in [*firsts, *named] if t in g.terms and t not in recent)
    wholes = [s.term_id for s in ctx.analysis.spans]
    if ctx.decision.candidate:
        wholes.append(ctx.decision.candidate)
    for whole in dict.fromkeys(wholes):
        near = set(g.neighbours(whole))
        pair = [t for t in recent if t != whole and t in near][:2]
        if len(pair) == 2 and whole not in recent:
            ctx.referents = pair[::-1]
            return whole
    return None
