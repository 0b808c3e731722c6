"""The retrieval chatbot: the pipeline's orchestration, nothing else.

>>> a = answer(glossary, engine, "什么是 TTFT？")                       # doctest: +SKIP
>>> a.grounded, a.citations[0].term_id                                # doctest: +SKIP
(True, 'time-to-first-token')
>>> state = ConversationState()                                       # doctest: +SKIP
>>> answer(glossary, engine, "What is PagedAttention?", context=state)  # doctest: +SKIP
>>> answer(glossary, engine, "What is it related to?", context=state).terms[0]  # doctest: +SKIP
'pagedattention'

Stages, each its own module:

1. normalize (:mod:`.normalize`) — length cap, script, English inflections;
2. parse (:mod:`.intents`) — the question's shape: intent, slots, pronouns;
3. link (:mod:`.linking`) and refer (:mod:`.references`) — names in the question, and what
   its pronouns point at;
4. retrieve (:mod:`.retrieve`) — the hybrid search over the question;
5. decide (:mod:`.decide`, :mod:`.refusal`) — answer, refuse or ask, and the candidate term;
6. shape (:mod:`.shapes`) — what to quote for the intent;
7. compose (:mod:`.compose`, :mod:`.finish`) — text around verbatim quotes, in the asker's
   language and script.

No language model is involved: every sentence is a template around quoted graph text;
:mod:`kg.chat.generator` may rephrase it afterwards.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import replace

from kg.chat.alternatives import chosen_alternative
from kg.chat.asked_kind import linked_of_asked_kind
from kg.chat.besides import besides_answer
from kg.chat.cause import stated_bound, stated_cause
from kg.chat.choice import as_which, compared_choice
from kg.chat.clarification import resume_pending
from kg.chat.classnoun import describes_a_kind, names_a_kind_of_thing
from kg.chat.context import Ctx, detect_lang
from kg.chat.counterpart import (
    asks_counterpart,
    asks_for_one,
    asks_opposite,
    counterpart,
    counterpart_in,
    opposite,
    side_words,
)
from kg.chat.decide import asks_about_subject, asks_for_remedy, decide, subject_span
from kg.chat.ellipsis import is_elliptical, versus_follow_up
from kg.chat.family import family_member
from kg.chat.finish import polish
from kg.chat.followup import (
    FollowupRanker,
    candidate_features,
    default_ranker,
    definition_mentions,
    generic_terms,
    ranks,
)
from kg.chat.formula import formula_part
from kg.chat.genus import of_its_kind
from kg.chat.instance import own_instance
from kg.chat.intents import Parsed, Pronoun, Slot, is_demonstrative, parse
from kg.chat.lineage import family_of, predecessor, successor
from kg.chat.linking import Analysis, Linker, linker_for
from kg.chat.measure import stated_by
from kg.chat.model import Answer, ConversationState
from kg.chat.normalize import MAX_QUESTION_CHARS, known_words, normalize
from kg.chat.owned import owned_implementation, owned_kind
from kg.chat.references import (
    ZH_ADVERBS_AFTER_SUBJECT,
    choice_terms,
    listed_terms,
    needs_clarification,
    resolve_reference,
    whole_of_pair,
)
from kg.chat.refusal import RefusalModel, refusal_model_for
from kg.chat.remedy import asks_which_fixes, stated_remedy
from kg.chat.retrieve import Retrieval, retrieve
from kg.chat.shapes import clarify, shape
from kg.chat.shapes.common import refuse, social
from kg.chat.shapes.howto import counterpart_answer, opening_subject, which_answer
from kg.chat.shapes.members import (
    EXAMPLES,
    asks_for_examples,
    asks_for_instances,
    asks_for_members,
    examples_of,
    members,
    members_of,
)
from kg.chat.shapes.mentioned import mentioned_subject, not_defined
from kg.chat.threshold import threshold_side
from kg.chat.variant import named_variant
from kg.search.engine import SearchEngine
from kg.store import Glossary
from kg.textnorm import fold, has_cjk

__all__ = ["MAX_QUESTION_CHARS", "answer", "detect_lang"]


def answer(
    glossary: Glossary,
    engine: SearchEngine,
    question: str,
    *,
    context: ConversationState | None = None,
    refusal: RefusalModel | None = None,
) -> Answer:
    """Answer *question* from the graph; update *context* (when given) for follow-ups."""
    t0 = time.perf_counter()
    if context is not None:
        context.follow_ids(glossary.current_id)  # a session saved before a rebuild
        if context.pending:
            # "I mean 冷启动" after the bot asked which term "its" meant: ask the question again
            resumed = resume_pending(context.pending, question, lambda s: bool(engine.matcher.exact(s)))
            question = resumed or question
    # the pipeline reasons over defined terms; mentioned-only nodes are looked at only to say that
    # a name the question is about is not defined (kg/chat/shapes/mentioned.py)
    full, glossary = glossary, glossary.defined_view()
    linker = linker_for(glossary, engine)
    q = normalize(question, known_words(glossary), linker.vocabulary, glossary)
    versus = versus_follow_up(q.text) if context is not None and context.topic else None
    if versus is not None:
        # "vs canary?" after blue-green deployments: the comparison with the term under discussion
        q = normalize(versus, known_words(glossary), linker.vocabulary, glossary)
    parsed = parse(as_which(q.text))
    analysis = linker.analyse(parsed)
    again = _reasked(glossary, linker, context, parsed, analysis)
    if again is not None:
        # "那 TPOT 呢？" after "TTFT 主要由哪个阶段决定？": the previous question, about TPOT
        q = normalize(again, known_words(glossary), linker.vocabulary, glossary)
        parsed = parse(q.text)
        analysis = linker.analyse(parsed)
    opening = subject_span(parsed, analysis)
    if opening is not None and asks_about_subject(
        parsed, analysis, choice_terms(parsed.folded, analysis.spans)
    ):
        # "StableHLO 最后交给哪个编译器…": the subject, then the term it asks for beside it
        parsed.intent, parsed.facet = "relation", "asks"
        parsed.slots = [Slot(parsed.folded[opening.start : opening.end], opening.start, opening.end)]
    elif names_a_kind_of_thing(glossary, parsed, analysis, question) or describes_a_kind(
        glossary, parsed, analysis, question
    ):
        # "What's DeepSeek's GEMM library that does well on FP8?": the library, not GEMM
        parsed.intent = "which"
    ctx = Ctx(
        glossary,
        linker,
        parsed,
        analysis,
        "zh" if q.pinyin else detect_lang(parsed, analysis),
        context,
        warnings=list(q.warnings),
        full=full,
    )
    ctx.reasked = again is not None
    resolve_reference(ctx)
    unsubstituted = _prefer_answered(ctx, linker)
    ctx.retrieval = retrieve(linker, analysis, ctx.body_text())
    # only a referent from the conversation narrows the answer to its neighbours: one named in the
    # same question ("…没有它缓存的那台机器…") is just another name the question mentions
    referent = ctx.referent if ctx.used_context else None
    plain = None
    if referent and (parsed.intent == "which" or asks_for_remedy(parsed, analysis)):
        plain = unsubstituted or retrieve(linker, analysis, ctx.body_text(substitute=False))
    listed = choice_terms(parsed.folded, analysis.spans)
    ctx.decision = decide(
        engine,
        refusal or refusal_model_for(glossary, engine),
        parsed,
        analysis,
        ctx.retrieval,
        unresolved_pronoun=needs_clarification(ctx),
        used_context=ctx.used_context,
        referent=referent,
        neighbours=_near(glossary, referent) if referent else None,
        stated=definition_mentions(glossary).get(referent, frozenset()) if referent else None,
        demonstrative=_loose_demonstrative(ctx),
        in_conversation=context is not None and bool(context.topic),
        plain=plain,
        near_of=lambda t: set(glossary.neighbours(t)),
        listed=listed,
        conversation_terms=_conversation_terms(glossary, context),
        named_referent=bool(ctx.referent) and not ctx.used_context and ctx.pronoun is not None,
        stated_of=lambda t: definition_mentions(glossary).get(t, frozenset()),
    )
    located = _stated_part(ctx, plain)
    part = located[0] if located is not None else None
    if located is not None:
        # "公式里第二项对应哪个阶段？" after E2E latency: the term its stated formula names there;
        # "强度低于那个交点的话，算哪种受限？": the term the sources name on that side of the ridge.
        # The sources ground it, though the question may name no term and point at none; the
        # formula's or the threshold's owner stands beside it in the answer, quoted.
        part, owner, reason = located
        ctx.decision = replace(ctx.decision, action="answer", in_domain=True, reason=reason, candidate=part)
        ctx.referent = owner
    picked = (
        compared_choice(glossary, parsed.folded, listed)
        if parsed.intent == "which" and not referent
        else None
    )
    if picked is not None:
        # "NVLink 跟 PCIe 哪个快？": PCIe's own text says "比 NVLink 慢" — the sources decide
        ctx.decision.candidate = picked
    named_pick: str | None = None
    ranker = default_ranker()
    ranker = ranker if ranker is not None and ranker.fits(engine) else None
    followup = _rank_followup(ctx, linker, plain or unsubstituted, ranker)
    if followup is not None and ctx.referent and _acted_on_by_pronoun(ctx, followup):
        # "How does that mechanism store the KV cache?" after RadixAttention: the named term is what
        # the term under discussion acts on; how it does so is in the referent's own text
        followup = ctx.referent
    if followup is not None and followup != ctx.referent and not _owned_by_pronoun(ctx, followup):
        # the follow-up asks for another term than the one under discussion ("Which collective
        # op does it lean on?"): answer with it, in the which shape
        ctx.decision.candidate = followup
        ctx.parsed.intent = "which"
        if followup in {s.term_id for s in analysis.spans}:
            # "And how does grouped GEMM help those layers?" after MoE: the term the question names
            # is its subject; the which shape would look past it for a term it does not name
            named_pick = followup
            if opening_subject(ctx) == followup:
                # "Would chunked prefill help with that?": the conversation moves on to it
                ctx.used_context = False
    elif followup is not None and ctx.parsed.intent == "which":
        ctx.decision.candidate = followup  # about the term itself: which() defines it
    elif (
        followup is not None
        and followup == ctx.referent
        and ctx.used_context
        and ctx.pronoun is not None
        and {s.term_id for s in analysis.spans if s.start < ctx.pronoun.start} <= generic_terms(glossary)
    ):
        # "做推理时为什么常拿它当量化精度的对照基准？": what it names before the pronoun (inference) is
        # common to half the glossary; the ranker's choice, the term under discussion, is the subject
        ctx.ranked_referent = True
    relative = _named_before_relative_clause(ctx)
    if relative is not None and ctx.parsed.intent == "which":
        # "And the subagents it spawns?" after Agent: the question names what it asks about; the
        # clause after the name only ties it to the term under discussion
        ctx.decision.candidate = ctx.referent = relative
        ctx.parsed.intent, ctx.pronoun = "definition", None
    instance = own_instance(ctx, question) if ctx.decision.action == "answer" else None
    if instance is not None:
        # "它那个前缀缓存技术叫什么？" after SGLang: the one its own text names (RadixAttention),
        # first: the pronoun owns the kind, it is not the subject the answer is quoted from
        ctx.decision.candidate = instance
        ctx.parsed.intent = "which"
    chosen = chosen_alternative(ctx) if ctx.decision.action == "answer" and instance is None else None
    side = chosen[0] if chosen is not None else None
    if side is None and instance is not None and instance in {s.term_id for s in analysis.spans}:
        # "Which TensorRT-LLM feature is its version of continuous batching?": the owner's version
        # is the very term the question names (in-flight batching is a name of it); the which
        # shape would look past it for a term the question does not name
        side = instance
    if side is None and instance is None and part is not None:
        side = ctx.decision.candidate = part
        ctx.parsed.intent = "which"
    if side is None and instance is None and ctx.decision.action == "answer":
        # "And AMD's own inference engine?": the engine AMD's own text names (ATOM), not engines
        side = (
            owned_kind(ctx, question)
            or owned_implementation(ctx, question)
            or linked_of_asked_kind(ctx, question)
        )
        if side is not None:
            ctx.decision.candidate, ctx.parsed.intent = side, "which"
    if side is None and instance is None and ctx.decision.action == "answer" and not ctx.used_context:
        # "一張 H100 有幾個 SM？": the figure is in SM's text ("H100 132 SM"), not in H100's
        stated = stated_by(ctx)
        if stated is not None:
            side = stated[0]
            ctx.decision.candidate, ctx.parsed.intent = side, "which"
    if side is None and instance is None and ctx.decision.action == "answer":
        # "What family of formats does it belong to?" after NVFP4: the class its own definition
        # names as what it is ("…4 位浮点微缩放格式" → Microscaling formats), not NVFP4 again
        # "What's the P90 version of it?" after interactivity: the term named "P90 交互性"
        side = named_variant(ctx, question) or family_of(ctx, question)
        if side is not None:
            ctx.decision.candidate, ctx.parsed.intent = side, "which"
    if side is None and instance is None and ctx.decision.action == "answer":
        # "And what was the default setup before engines adopted it?" after disaggregation: what
        # it replaced is the term the sources contrast it with (aggregated serving)
        side = predecessor(ctx, question) or successor(ctx, question)
        if side is not None:
            ctx.decision.candidate, ctx.parsed.intent = side, "which"
            if _answered_by_referent(ctx):
                # "它现在正在被什么取代？" after TorchAX, whose own text says it ("正被 TorchTPU
                # 取代"): the relation shape below, TorchAX quoted first, as for other such questions
                side = None
    if side is None and instance is None and ctx.decision.action == "answer":
        # "Which FlashAttention version started building on it?", "它…从哪个版本开始？": the versions
        # of a term are no terms of their own; the term whose version is asked for answers
        side = _versioned(ctx)
        if side is not None:
            ctx.decision.candidate, ctx.parsed.intent = side, "which"
    if side is None and instance is None and named_pick is not None and ctx.decision.candidate == named_pick:
        side = named_pick
    if chosen is not None:
        # "Is it usually compute-bound or memory-bound?" after prefill: the alternative the sources
        # tie to it, quoted from the subject's own text; asked of the term under discussion, the
        # subject comes first, as in other relation answers (the blind writers of the dev, dev3
        # and dev12 splits cite prefill first), asked of a name, the alternative
        of_referent = (
            ctx.used_context and chosen[1] == ctx.referent and chosen[0] in glossary.neighbours(chosen[1])
        )
        ctx.decision.candidate, ctx.referent = chosen
        ctx.parsed.intent = "which"
        if of_referent:
            ctx.parsed.intent, ctx.parsed.facet = "relation", "asks"
            ctx.asked, side = chosen[0], None
    if instance is None and side is None and (_answered_by_referent(ctx) or _asked_again_as_relation(ctx)):
        # "那前一个靠哪种集合通信来同步结果？" after TP vs PP: TP's own definition says it (频繁
        # all-reduce 同步), so TP is quoted first, then the term asked for beside it
        ctx.parsed.intent, ctx.parsed.facet = "relation", "asks"
    if side is None and instance is None and chosen is None and ctx.decision.action == "answer":
        # "这算哪种受限？": one of the terms named "… 受限" (capacity-bound), not memory capacity
        member = family_member(ctx) if ctx.parsed.intent == "which" else None
        if member is not None:
            ctx.decision.candidate = member
    action = ctx.decision.action
    subject = mentioned_subject(full, ctx) if action != "clarify" else None
    users = _members_asked(ctx, question) if action == "answer" and subject is None else None
    other_side = (
        _counterpart(ctx, full)
        if action == "answer" and subject is None and users is None and instance is None
        else None
    )
    if side is not None and subject is None:
        result = which_answer(ctx, side)
    elif other_side is not None:
        result = counterpart_answer(ctx, full, other_side)
    elif subject is not None:
        result = not_defined(ctx, full, subject)
    elif users is not None:
        result = members(ctx, *users)
    elif action == "clarify":
        result = clarify(ctx)
    elif action == "refuse" and ctx.decision.reason == "social":
        result = social(ctx)
    elif action == "refuse":
        result = refuse(ctx, "out_of_domain" if parsed.matched or not ctx.analysis.spans else "unknown")
    else:
        result = shape(ctx)
    result = polish(result, q)
    result.mentioned = listed_terms(ctx.parsed.folded, ctx.analysis.spans)
    if result.intent == "comparison" and ctx.linked_by == "mention" and len(result.focus) >= 2:
        # "prefill 节点和 decode 节点": the two sides compared, not the head they share ("the former"
        # next points at prefill)
        sides = result.focus[:2]
        if not ctx.used_context and not set(sides) <= set(result.mentioned[:2]):
            result.mentioned = [*sides, *(m for m in result.mentioned if m not in sides)]
    d = ctx.decision
    result.decision = {
        "action": d.action if subject is None else "answer",
        "reason": d.reason if subject is None else "mentioned_only",
        "probability": None if d.probability is None else round(d.probability, 4),
        "candidate": d.candidate,
        "followup": followup,
    }
    result.took_ms = round((time.perf_counter() - t0) * 1000.0, 3)
    if context is not None:
        # a name the glossary only mentions is no topic a pronoun can come back to
        kept = replace(
            result,
            terms=[x for x in result.terms if x in glossary],
            focus=[x for x in result.focus if x in glossary],
        )
        context.record(kept, used_context=ctx.used_context)
    return result


#: The steps of :func:`_stated_part` that answer with a reason of their own, in order.
_PART_STEPS: tuple[tuple[Callable[[Ctx], tuple[str, str] | None], str], ...] = (
    (formula_part, "formula"),
    (threshold_side, "threshold"),
    (besides_answer, "besides"),
    (stated_cause, "cause"),
    (stated_bound, "bound"),
)


def _stated_part(ctx: Ctx, plain: Retrieval | None) -> tuple[str, str, str] | None:
    """(term, owner, decision reason) when the sources state what the question asks about a part of
    something, the first that applies: a formula's part, a threshold's side, what else besides a
    term, what drives a measure called high, the whole of a pair, the term whose text says it fixes
    the problem; None otherwise. The last two keep the decision's own reason."""
    for step, reason in _PART_STEPS:
        found = step(ctx)
        if found is not None:
            return (*found, reason)
    assert ctx.decision is not None
    # sets ctx.referents to the pair either way: "How do those two add up to end-to-end latency?"
    # keeps the how/why shape, which explains the whole with that pair beside it
    # (kg/chat/shapes/howto._whole_of_pair)
    whole = whole_of_pair(ctx) if ctx.decision.action == "answer" else None
    if whole is not None and ctx.parsed.intent != "howto_why":
        return whole, ctx.referents[0], ctx.decision.reason
    fix = _stated_fix(ctx, plain)
    if fix is not None:
        return fix, ctx.referent or fix, ctx.decision.reason
    return None


def _stated_fix(ctx: Ctx, plain: Retrieval | None) -> str | None:
    """ "它的显存碎片问题靠哪个技术解决？" after KV cache: of the best-ranked terms, the one whose own
    text says it fixes the problem the question names (kg/chat/remedy.py)."""
    d = ctx.decision
    if d is None or d.action != "answer" or not asks_which_fixes(ctx.parsed.folded):
        return None
    named = {s.term_id for s in ctx.analysis.spans} | ({ctx.referent} if ctx.referent else set())
    ranked = [h.term_id for r in (ctx.retrieval, plain) if r is not None for h in r.hits[:5]]
    pool = [t for t in dict.fromkeys([*([d.candidate] if d.candidate else []), *ranked]) if t not in named]
    return stated_remedy(ctx.glossary, ctx.parsed.folded, pool)


#: A question that asks what something is called: the name asked for is the answer.
_NAMING = re.compile(r"叫什么|叫啥|叫做什么|什么名字|称为什么|称作什么")

#: What may come before a pronoun that opens a question as its subject ("那前一个…", "回来说，它…").
_PRONOUN_SUBJECT = re.compile(r"^[\s那么所以好的嗯回来说，,:：—-]*$")


#: Between a pronoun and the name it owns: "它的", "它里面的", "它上面的".
_OWNED = re.compile(r"^\s*(?:里面|里|上面|上|中|内部|内)?的\s*$")


#: "the subagents it spawns", "the draft model they use": a name, then a relative clause whose
#: subject is the pronoun.
_RELATIVE_AFTER = re.compile(r"^\s+(?:it|they|that one)\s+[a-z]+(?:s|ed)?\b")


def _named_before_relative_clause(ctx: Ctx) -> str | None:
    """The term an English follow-up names right before a relative clause on its pronoun ("And
    the subagents it spawns?"), or None."""
    p = ctx.pronoun
    if p is None or not ctx.used_context or has_cjk(ctx.parsed.folded):
        return None
    f = ctx.parsed.folded
    for s in ctx.analysis.spans:
        if s.end <= p.start and _RELATIVE_AFTER.match(f[s.end :]) and s.term_id != ctx.referent:
            return s.term_id
    return None


def _owned_by_pronoun(ctx: Ctx, term_id: str) -> bool:
    """ "它里面的草稿模型是干什么的？": the question names *term_id* as a part its pronoun owns; the
    definition shape answers with it (the which shape would leave a named term out)."""
    p = ctx.pronoun
    if p is None:
        return False
    f = ctx.parsed.folded
    return any(
        s.term_id == term_id and s.start >= p.end and _OWNED.match(f[p.end : s.start])
        for s in ctx.analysis.spans
    )


#: Before the pronoun of a question asking how it acts: "how does it …", "and how would that one …".
_HOW_AUX = re.compile(r"^\s*(?:and |so |ok,? )?how (?:does|do|did|would|will|can|could) $")
#: Between the pronoun and the named term of an English how-question: a few words, its verb among
#: them ("that mechanism store the", "that one keep its"); not a verb that relates the two ("compare to").
_HOW_BETWEEN = re.compile(r"^(?:\s+[a-z'-]+){2,6}\s*$")
_RELATING = re.compile(r"\b(?:compare|differ|relate|relates|interact|fit|work|stack|combine|help|affect)\b")
#: Between the pronoun and the named term of a Chinese one: the means it acts by ("是用什么结构来存").
_ZH_MEANS = re.compile(r"^[^，,？?哪]{0,12}?(?:用|靠|通过|怎么|如何|怎样)[^，,？?哪]{0,10}$")


def _acted_on_by_pronoun(ctx: Ctx, term_id: str) -> bool:
    """ "How does that mechanism store the KV cache?", "这个技术是用什么结构来存 KV cache 的？": the
    pronoun is the subject, the named *term_id* the object of what it does, and the referent's own
    text names it (RadixAttention's "把完成请求的 KV cache 按 token 内容存进基数树"): the question
    asks how the referent does it, which its definition says; the named term is not the answer."""
    p, f = ctx.pronoun, ctx.parsed.folded
    if p is None or not ctx.used_context or not ctx.referent or term_id == ctx.referent:
        return False
    starts = [s.start for s in ctx.analysis.spans if s.term_id == term_id and s.start >= p.end]
    for n in ctx.glossary.terms[term_id].all_names():
        head = fold(n).split()[0] if n.strip() else ""  # "KV" of "KV cache": the question's shorthand
        m = (
            re.compile(rf"(?<![a-z0-9]){re.escape(head)}(?![a-z0-9])").search(f, p.end)
            if len(head) >= 2
            else None
        )
        starts += [m.start()] if m else []
    if not starts:
        return False  # the follow-up ranker found it by the question's words, not its name
    before, between = f[: p.start], f[p.end : min(starts)]
    if _HOW_AUX.match(before):
        if not _HOW_BETWEEN.match(between) or _RELATING.search(between):
            return False
    elif not (_PRONOUN_SUBJECT.match(before) and _ZH_MEANS.match(between)):
        return False
    return term_id in definition_mentions(ctx.glossary).get(ctx.referent, frozenset()) or any(
        fold(n) in " ".join(fold(d.text) for d in ctx.glossary.terms[ctx.referent].definitions)
        for n in ctx.glossary.terms[term_id].all_names()
        if len(n) >= 2
    )


#: "which FlashAttention version", "which version of FlashAttention", "从哪个版本开始", "哪一版".
_WHICH_VERSION_EN = re.compile(
    r"\bwhich\s+(?:(?P<before>[^?]{2,40}?)\s+)?versions?\b(?:\s+of\s+(?P<after>[^?,]{2,40}))?"
)
_WHICH_VERSION_ZH = re.compile(r"哪(?:个|一个|一)?版(?:本)?")


def _versioned(ctx: Ctx) -> str | None:
    """The term a question asks a version of: the name written right before "version" ("which
    FlashAttention version …"), right after "version of", or opening a Chinese question
    ("FlashAttention 从哪个版本起…"), else the term a pronoun points at ("Which version of it …")."""
    f = ctx.parsed.folded
    spans = ctx.analysis.spans
    m = _WHICH_VERSION_EN.search(f)
    if m is not None:
        if m.group("before"):
            a, b = m.span("before")
            inside = {s.term_id for s in spans if a <= s.start and s.end <= b}
            if len(inside) == 1:
                return inside.pop()
        if m.group("after"):
            at = [s.term_id for s in spans if s.start == m.start("after")]
            if at:
                return at[0]
    else:
        z = _WHICH_VERSION_ZH.search(f)
        if z is None:
            return None
        body = ctx.parsed.body.start if ctx.parsed.body is not None else 0
        opening = [s.term_id for s in spans if s.start == body and s.end <= z.start()]
        if opening:
            return opening[0]
    if ctx.used_context and ctx.referent and ctx.pronoun is not None and len(ctx.referents) < 2:
        return ctx.referent
    return None


def _asked_again_as_relation(ctx: Ctx) -> bool:
    """ "那前一个靠哪种集合通信来同步结果？" (answered as a relation: TP quoted first, AllReduce beside
    it) then "后一个呢？": the same question about the other item keeps the shape of its answer (PP
    first, AllGather beside it), when the term asked for is linked to the new subject."""
    d, state = ctx.decision, ctx.state
    if not ctx.reasked or state is None or not state.turns or state.turns[-1].intent != "relation":
        return False
    if ctx.parsed.intent != "which" or not ctx.used_context or not ctx.referent or d is None:
        return False
    if not d.candidate or d.candidate == ctx.referent or d.candidate not in ctx.glossary:
        return False
    return d.candidate in ctx.glossary.neighbours(ctx.referent)


def _answered_by_referent(ctx: Ctx) -> bool:
    """A Chinese "which" follow-up whose subject is the pronoun ("它跟哪个库的生态结合得最紧？",
    "后者一般用哪个集合通信原语？") and whose answer the referent's own definition states (the
    edge between them was read from the referent's text): the referent is quoted first. Not when
    a copula puts the asked-for term in focus ("它对接的是哪个推理引擎？", "它最早是哪个引擎搞出来的？").
    """
    d = ctx.decision
    if ctx.parsed.intent != "which" or not ctx.used_context or not ctx.referent or d is None:
        return False
    p, body = ctx.pronoun, ctx.parsed.body
    if p is None or body is None or len(ctx.referents) >= 2 or not has_cjk(body.text):
        return False
    if not _PRONOUN_SUBJECT.match(ctx.parsed.folded[body.start : p.start]):
        return False  # "哪个推理引擎是靠它起家的？": the engine is the subject, not "it"
    if re.search(r"是\s*哪", ctx.parsed.folded[p.end : body.end]):
        return False  # "它对接的是哪个推理引擎？": the copula puts the engine in focus
    if p.ref == "both" or _NAMING.search(ctx.parsed.folded, p.end):
        return False  # "這兩個裡面用的 CPU 叫什麼？": a name asked for, of what the two share
    if not d.candidate or d.candidate == ctx.referent or d.candidate not in ctx.glossary:
        return False
    return any(
        item.subject == ctx.referent
        for e in ctx.glossary.edges_of(ctx.referent)
        if {e.source, e.target} == {ctx.referent, d.candidate}
        for item in e.items
    )


_CLAUSE_END = frozenset("?？.!！,，;；:：。")
# words after "this" / "that" that are no noun it could determine: verbs, particles, comparatives
_NO_NOUN = frozenset(
    [
        "is",
        "was",
        "are",
        "does",
        "do",
        "did",
        "has",
        "have",
        "had",
        "can",
        "could",
        "will",
        "would",
        "should",
        "may",
        "might",
        "must",
        "better",
        "worse",
        "up",
        "off",
        "out",
        "down",
        "in",
        "on",
        "at",
        "for",
        "with",
        "to",
        "of",
        "over",
        "into",
        "mean",
        "help",
        "need",
        "run",
        "work",
        "really",
        "actually",
        "also",
        "still",
        "just",
        "even",
        "always",
        "usually",
        "often",
        "alone",
        "instead",
    ]
)


#: What may follow 这个 / 那个 standing for a term, where a determiner would have its noun: an
#: adverb or a question word (not 有 / 能 / 会, which begin nouns too: 有效吞吐, 能耗, 会话; the
#: no-context check in kg/chat/references.py may take those, as it only asks a question back).
_ZH_STANDS_ALONE = re.compile(
    rf"{ZH_ADVERBS_AFTER_SUBJECT}|怎|如何|为什么|为啥|咋|呢|是不是|是什么|是啥|可以|该|也|还|都"
)


def _loose_demonstrative(ctx: Ctx) -> bool:
    """Whether the question points back only with a demonstrative that may determine a noun of
    its own ("these charts"), rather than one whose noun is a word of the referent's name
    ("这种分离" after 推理分离, "this batching" after continuous batching): that one points at the
    term as surely as "it" does."""
    p = ctx.pronoun
    if p is None or not is_demonstrative(p):
        return False
    if not ctx.referent or ctx.referent not in ctx.glossary:
        return True
    after = ctx.parsed.folded[p.end :].lstrip()
    if not after or after[0] in _CLAUSE_END:
        return False  # "What's the downside of this?": it stands alone, as "it" does
    zh = re.match(r"[\u4e00-\u9fff]{2,4}", after)
    en = re.match(r"[a-z][a-z0-9-]{1,}", after)
    if (
        en
        and p.text in ("this", "that")
        and (en.group() in _NO_NOUN or re.fullmatch(r"[a-z]+(?:ed|[^s]s)", en.group()))
    ):
        return False  # "Is a lower value of this better?", "Which CPU does this bundle?"
    if p.text in ("这个", "那个") and _ZH_STANDS_ALONE.match(after):
        return False  # "这个一般设多大？", "这个到底是啥？": an adverb or a question word, no noun
    names = [fold(n) for n in ctx.glossary.terms[ctx.referent].all_names()]
    if zh:
        word = zh.group()
        return not any(word[i : i + 2] in n for n in names for i in range(len(word) - 1))
    if en:
        return not any(re.search(rf"\b{re.escape(en.group())}\b", n) for n in names)
    return True


def _rank_followup(
    ctx: Ctx, linker: Linker, plain: Retrieval | None, ranker: FollowupRanker | None
) -> str | None:
    """The term a follow-up that points back at the topic is about (kg/chat/followup.py), or
    None when the question does not continue the conversation through a pronoun."""
    d = ctx.decision
    if (
        ranker is None
        or d is None
        or d.action != "answer"
        or ctx.state is None
        or not ctx.used_context
        or not ctx.referent
        or not ranks(ctx.parsed.intent, ctx.parsed.folded)
        or len(ctx.referents) >= 2
        or ctx.retrieval is None
    ):
        return None
    plain = plain or retrieve(linker, ctx.analysis, ctx.body_text(substitute=False))
    feats = candidate_features(
        ctx.glossary,
        referent=ctx.referent,
        intent=ctx.parsed.intent,
        question=ctx.parsed.folded,
        plain=plain,
        substituted=ctx.retrieval,
        last_terms=ctx.state.last_terms,
        demonstrative=ctx.pronoun is not None and is_demonstrative(ctx.pronoun),
        rules=(d.candidate if ctx.parsed.intent == "which" and d.candidate else None) or ctx.referent,
    )
    p = ctx.pronoun
    if p is not None and (p.ref in ("former", "latter") or p.ref.startswith("ord:")):
        # "後者在 AI 叢集裡通常用哪種網路？": the user set the other items apart; none answers
        others = set(ctx.state.pair) | set(ctx.state.named)
        feats = {t: f for t, f in feats.items() if t == ctx.referent or t not in others}
    return ranker.choose(feats)


#: The phrase a "which" question asks with: the words after "which" / "what" up to its verb, or
#: after 哪 + a classifier up to the next verb-like character.
_WHICH_PHRASE = re.compile(
    r"\b(?:which|what)((?:\s+(?!(?:is|are|does|do|did|can|has|have|was|were|it|its|they)\b)[\w-]+){1,3})"
    r"|哪(?:个|种|一种|一个|类|款|套|条|项)([^\s，。？?！!,的是用靠把让在]{1,6})"
)


def _reasked(
    glossary: Glossary,
    linker: Linker,
    context: ConversationState | None,
    parsed: Parsed,
    analysis: Analysis,
) -> str | None:
    """The previous question asked again about the one new term an elliptical follow-up names."""
    if context is None or not context.turns:
        return None
    last = context.turns[-1]
    if not last.grounded or last.intent in ("comparison", "definition", "abbreviation"):
        return None  # comparisons continue in their shape; "And X?" after a definition defines X
    named = list(dict.fromkeys(s.term_id for s in analysis.spans))
    if not named:
        return _reasked_of_other_item(glossary, linker, last.question, parsed)
    if len(named) != 1 or not is_elliptical(parsed.folded, [(s.start, s.end) for s in analysis.spans]):
        return None
    before = parse(normalize(last.question, known_words(glossary), linker.vocabulary, glossary).text)
    f = before.folded
    # a name inside the phrase a "which" asks with is the kind asked for, not a subject the new
    # name replaces ("Which collective op does it lean on?": "op", then "And PP?" replaces "it")
    asked = [m.span(1) if m.group(1) else m.span(2) for m in _WHICH_PHRASE.finditer(f)]
    spans = [
        s for s in linker.analyse(before).spans if not any(a <= s.start and s.end <= b for a, b in asked)
    ]
    new = next(s for s in analysis.spans if s.term_id == named[0])
    if len(before.pronouns) == 1 and (before.pronouns[0].ref != "topic" or not spans):
        # "Which collective op does it lean on?" then "And pipeline parallelism?": the new name
        # takes the place of the pronoun that stood for the term then under discussion; so it does
        # of "the former / the latter", which always point back, whatever else the question names
        # ("Which GPU generation first supported the latter?" then "And FP4?")
        p = before.pronouns[0]
        return f[: p.start] + parsed.folded[new.start : new.end] + f[p.end :]
    if len({s.term_id for s in spans}) > 1 and named[0] not in {s.term_id for s in spans}:
        # "FP8 是从哪一代 GPU 架构开始支持的？" then "那 FP4 呢？": of several names, the one of the new
        # name's own kind takes its place — a term the sources contrast with it, else one of the
        # same genus (kg/chat/genus.py) — when exactly one is
        same = of_its_kind(glossary, named[0], (s.term_id for s in spans))
        spans = [s for s in spans if s.term_id == same]
    if len({s.term_id for s in spans}) != 1 or spans[0].term_id == named[0]:
        return None  # the previous question named several terms, or this one: nothing to swap
    old = spans[0]
    return f[: old.start] + parsed.folded[new.start : new.end] + f[old.end :]


def _is_item_pointer(p: Pronoun) -> bool:
    return p.ref in ("former", "latter") or p.ref.startswith("ord:")


def _reasked_of_other_item(
    glossary: Glossary, linker: Linker, last_question: str, parsed: Parsed
) -> str | None:
    """ "Which collective does the first use?" then "And the second?": the previous question, its
    pointer at one item of the pair replaced by the new one (then resolved as usual). Only when
    the follow-up is nothing but that pointer and filler, and the previous question had exactly
    one pointer, itself at an item ("the first", "前者")."""
    if len(parsed.pronouns) != 1 or not _is_item_pointer(parsed.pronouns[0]):
        return None
    p = parsed.pronouns[0]
    if not is_elliptical(parsed.folded, [(p.start, p.end)]):
        return None
    before = parse(normalize(last_question, known_words(glossary), linker.vocabulary, glossary).text)
    if len(before.pronouns) != 1 or not _is_item_pointer(before.pronouns[0]):
        # after "它有哪些代表算法？" (answered with a list), "第三个呢？" points into the list
        return None
    q = before.pronouns[0]
    f = before.folded
    return f[: q.start] + parsed.folded[p.start : p.end] + f[q.end :]


def _prefer_answered(ctx: Ctx, linker: Linker) -> Retrieval | None:
    """A pronoun after a "which" follow-up points at the topic or at the term that answered it
    ("哪个框架主打这个？" → SGLang; "它还有个面向 TPU 的版本" is SGLang's). The search for the
    question without its pronoun decides: the one whose neighbourhood it reaches first. Returns
    that search (the decision stage reuses it), or None when there was nothing to decide."""
    state = ctx.state
    if (
        state is None
        or not state.answered
        or not ctx.used_context
        or ctx.pronoun is None
        or ctx.pronoun.ref != "topic"
        or not state.topic
        or ctx.referent != state.topic[0]
        or state.answered not in ctx.glossary
    ):
        return None
    searched = retrieve(linker, ctx.analysis, ctx.body_text(substitute=False))
    hits = [h.term_id for h in searched.hits[:5]]

    def reach(term: str) -> int:
        near = {term} | _near(ctx.glossary, term)
        return next((i for i, h in enumerate(hits) if h in near), len(hits))

    if reach(state.answered) < reach(ctx.referent):
        ctx.referent = state.answered
    return searched


def _members_asked(ctx: Ctx, question: str) -> tuple[str, list[str], str] | None:
    """ "Which engines use it?": (the term pointed at, its neighbours of that class, the class
    word), or None when the question asks no such thing or the graph links no such member."""
    p, ref = ctx.pronoun, ctx.referent
    if p is None or not ref or len(ctx.referents) >= 2:
        return None
    instances = asks_for_examples(question) or asks_for_instances(question)
    # an ordinal picks an item of a list: asked for its instances ("Which algorithms fall under the
    # first one?"), not for a class of its neighbours
    if p.ref not in ("topic", "former", "latter") and not (p.ref.startswith("ord:") and instances):
        return None
    if instances:
        # "后者有哪些代表算法？", "哪些算法属于它？": the instances its own definitions give ("AWQ、
        # GPTQ… 均属此类")
        examples = examples_of(ctx, ref)
        if examples:
            return ref, examples, EXAMPLES
    cls = asks_for_members(question)
    if cls is None:
        return None
    found = members_of(ctx, ref, cls)
    return (ref, found, cls) if found else None


def _counterpart(ctx: Ctx, full: Glossary) -> str | None:
    """The term a counterpart question asks for ("And AMD's counterpart to NCCL?" → RCCL), its
    anchor being the one term the question names or, with none named, the referent or the topic;
    or, for a question naming nothing that asks for the opposite, the one term a contrast edge sets
    against the referent or topic ("and the opposite kind of provider?" → Hyperscaler)."""
    f = ctx.parsed.folded
    if not ctx.analysis.spans and asks_opposite(f):
        anchor = ctx.referent if ctx.used_context else _topic(ctx)
        return opposite(full, anchor) if anchor else None
    named = list(dict.fromkeys(s.term_id for s in ctx.analysis.spans))
    found = _side_counterpart(ctx, full, list(named)) if asks_counterpart(f) else None
    anchor = (
        ctx.referent
        if ctx.referent and ctx.used_context
        else (None if ctx.analysis.pronouns else _topic(ctx))
    )
    if found is None and len(named) == 1 and anchor is not None and anchor != named[0] and asks_for_one(f):
        # "What's SGLang's version of that?" after PagedAttention, "SGLang 那边对应的是啥？": the side
        # is a term; the answer does in its world what the term under discussion does
        found = counterpart_in(full, anchor, named[0])
    return found


def _side_counterpart(ctx: Ctx, full: Glossary, named: list[str]) -> str | None:
    """The counterpart of the one term the question names (else the referent or topic) on the side
    its other words name ("AMD's counterpart to NCCL": AMD)."""
    f = ctx.parsed.folded
    words = side_words(f, [(s.start, s.end) for s in ctx.analysis.spans])
    # a name the sources only mention is no span of the defined view ("Which NVIDIA library has
    # RCCL as its AMD counterpart?"): it is an anchor, not a side
    mentioned = {w: hits[0].term.id for w in words if (hits := full.lookup(w)) and not hits[0].term.defined}
    named += [tid for tid in mentioned.values() if tid not in named]
    words = [w for w in words if w not in mentioned]
    if not named and ctx.referent and ctx.used_context:
        named = [ctx.referent]
    if not named and not ctx.analysis.pronouns and (topic := _topic(ctx)):
        # "What is ISL?" … "And the output counterpart?": no name, no pronoun — the term under
        # discussion is the anchor
        named = [topic]
    if len(named) != 1:
        return None
    return counterpart(full, named[0], words)


def _topic(ctx: Ctx) -> str | None:
    """The term under discussion, if any."""
    return ctx.state.topic[0] if ctx.state is not None and ctx.state.topic else None


def _conversation_terms(glossary: Glossary, context: ConversationState | None) -> set[str]:
    """The terms a question continuing the conversation is likely about: the topic, the last
    answer's terms and the topic's graph neighbours (empty outside a conversation)."""
    if context is None or not context.topic:
        return set()
    out = set(context.topic) | set(context.last_terms)
    out |= {n for t in context.topic[:1] if t in glossary for n in glossary.neighbours(t)}
    return out


def _near(glossary: Glossary, term_id: str) -> set[str]:
    """The terms a follow-up "which" question about *term_id* picks from: its graph neighbours,
    and the terms whose English name extends its own ("Autoscaling" → "Autoscaling window"),
    which the sources may define without an edge between them."""
    near = set(glossary.neighbours(term_id))
    label = (glossary.terms[term_id].labels.get("en") or "").lower()
    if len(label) >= 4:
        rx = re.compile(rf"(?<![a-z0-9]){re.escape(label)}(?![a-z0-9])")
        near |= {
            t.id
            for t in glossary.terms.values()
            if t.id != term_id and rx.search((t.labels.get("en") or "").lower())
        }
    return near
