"""The decision stage: answer, refuse, or ask which term is meant — and from which term.

Order of the rules (each says why it wins):

1. an empty question is refused;
2. a pronoun with nothing to point at ("它和 TPOT 有什么区别？" opening a conversation) gets a
   clarifying question, never a guess;
3. a question that continues the conversation (its pronoun resolved to the topic) is in the
   domain of the term under discussion (unless its only link is a demonstrative and the
   refusal model is sure it is not: :data:`CONTEXT_REFUSAL_FACTOR`);
4. a comparison one of whose sides is a glossary name under a Chinese modifier no glossary
   text uses ("飞梭引擎和 vLLM 有什么区别？") is refused: that side is a name the glossary lacks
   (a Latin one is not: "vLLM vs LMDeploy" may name a real product, and is answered as below);
   a question whose core is exactly a glossary name is in the domain, and so is a comparison
   one of whose sides is exactly a glossary name (the answer says which side is unknown), and
   a question whose pronoun points at a glossary name it gives ("X - how does it apply …");
5. a definition of a name-shaped word the glossary has never seen, nor any name like it
   ("What is Mamba-3 attention?"), is refused: the glossary has no such term; so is a name, or
   a head several names share ("并行" of 张量并行, 流水线并行 …), under a Chinese modifier no
   glossary text uses ("回旋解码", "双螺旋并行");
6. otherwise the refusal model (:mod:`.refusal`) decides from the retrieval evidence. Unknown
   words alone never refuse: they are one feature among sixteen. Inside a conversation about the
   glossary, a question the model is unsure of (probability above :data:`CONVERSATION_FACTOR`
   of the threshold) is answered: the conversation is evidence the model does not see, unless
   the question opens by changing the subject ("Unrelated:", "lol", "换个话题"). So is
   one the model doubts more (above :data:`LINKED_FACTOR` of the threshold) whose best search
   hit is a term of the conversation ("为什么要求形状固定？" after CUDA Graphs), unless the
   question says it changes the subject; and so, whatever the model's doubt, is one that names
   nothing and asks for the examples, counterpart or opposite of something ("Any examples?",
   "and the opposite kind of provider?"): inside a conversation it can only mean the topic's.

The *candidate* is the term retrieval proposes as the answer. For "which …" questions and
how-to questions that ask for a remedy ("how do I reduce KV-cache fragmentation?"), the terms
the question merely names are not candidates: the answer is another term whose definition
does what the question asks; for a "which" question that opens with a term as its subject
("Ring attention is one mechanism of which parallelism?"), a term the graph links to that subject,
among the search's top five. The shapes use the candidate when linking the question's slots finds
nothing.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from kg.chat.counterpart import asks_counterpart, asks_opposite
from kg.chat.intents import ASKS_ATTRIBUTE, LIST_CLASS_TAIL, TOPIC_SWITCH, Parsed, Slot, asks_bare_examples
from kg.chat.linking import Analysis, Span
from kg.chat.normalize import two_name_words
from kg.chat.refusal import (
    RefusalModel,
    glossary_text,
    name_parts,
    name_segments,
    question_features,
    question_vector,
    text_words,
)
from kg.chat.retrieve import Retrieval
from kg.search.engine import SearchEngine
from kg.textnorm import fold, has_cjk

__all__ = [
    "Decision",
    "asked_of",
    "asks_about_subject",
    "asks_for_remedy",
    "decide",
    "subject_span",
    "subject_term",
]

Action = Literal["answer", "refuse", "clarify"]

#: A follow-up whose only link to the conversation is a demonstrative ("this", "these", "这个")
#: is refused when the model is sure it is off-topic: probability under half the threshold
#: ("What's the weather like in Paris this week?" after a question about NVFP4). "it" / "它"
#: always continue the conversation.
CONTEXT_REFUSAL_FACTOR = 0.5

#: A question inside a conversation about the glossary (the last answer was grounded) but with no
#: pronoun pointing back is answered from this share of the threshold: the conversation is
#: evidence the model does not see. Measured on the dev splits' follow-ups (scripts in
#: docs/CHAT.md): the off-topic ones that do not announce a change of subject score at most
#: 0.094 ("那今天股市行情怎么样？"), while in-domain ones the model doubts ("空闲时把副本全关掉能省钱，
#: 代价是什么？", "那个代价具体包括哪些步骤的时间？") score 0.15–0.25: a fifth of the threshold (≈ 0.11)
#: answers those and still refuses every off-topic one seen; half of it refused them too.
CONVERSATION_FACTOR = 0.2

#: A question inside such a conversation whose best search hit is the topic, a term of the last
#: answer or a neighbour of the topic continues it even when the model doubts it far more: its
#: words are about the term under discussion, which the model, seeing one question, cannot know.
LINKED_FACTOR = 0.02

_REMEDY = re.compile(
    r"降低|减少|减小|避免|解决|缓解|提高|提升|加速|加快|优化|节省|节约|压缩|减轻|防止|改善|规避|消除|应对|"
    r"降下来|降下去|压下来|压低|缩短|"
    r"省显存|省内存|省钱|变快|更快|更省|不卡|少用|降本|扩展到|"
    r"\b(?:reduce[sd]?|reducing|lower(?:ing)?|cut(?:ting)?|avoid(?:ing)?|fix(?:ing)?|solve[sd]?|solving|"
    r"mitigate[sd]?|speed(?:s|ing)? up|improv(?:e|es|ing)|increas(?:e|es|ing)|boost(?:s|ing)?|sav(?:e|es|ing)|"
    r"shrink(?:s|ing)?|prevent(?:s|ing)?|deal with|get rid of|minimi[sz]e|maximi[sz]e|accelerat(?:e|es|ing)|"
    r"make .{1,30} (?:faster|cheaper|smaller)|fit .{1,40} (?:into|in|on))\b"
)


_EXPLAINS_SUBJECT = re.compile(
    r"是怎么|是如何|是怎样|是靠什么|为什么能|为什么会|为何能|为啥能|"
    r"^how (?:does|do|is|are|did|has|have|can|could) (?!i\b|we\b|you\b|one\b|my\b|our\b)"
)
_HOW_TO = re.compile(
    r"怎么|怎样|如何|咋|有什么办法|有啥办法|有哪些办法|有什么方法|什么办法|该怎么|"
    r"\bhow (?:do|can|should|could|would|to) (?:i|we|you|one)\b|\bhow to\b|\bways? to\b|\bwhat can i do\b|"
    r"\b(?:i|we) (?:need|want) to\b"
)


def asks_for_remedy(parsed: Parsed, analysis: Analysis | None = None) -> bool:
    """A how-to question asking what to do about something ("怎么降低 TTFT", "how do I avoid …"),
    not one asking how or why a named thing works ("FlashAttention 是怎么加速注意力的", "分页注意力怎么
    解决碎片问题", "how does X reduce …", "X 为什么能省内存")."""
    f = parsed.folded
    if parsed.intent != "howto_why" or not _REMEDY.search(f) or not _HOW_TO.search(f):
        return False
    if _EXPLAINS_SUBJECT.search(f):
        return False
    if analysis is not None and parsed.body is not None:
        # "分页注意力怎么解决…": a name opening the question, straight followed by the how
        start = parsed.body.start
        for span in analysis.spans:
            if span.start == start and re.match(r"\s*(?:是)?(?:怎么|如何|怎样|咋)", f[span.end :]):
                return False
    return True


@dataclass
class Decision:
    """What to do with one question, and why."""

    action: Action
    in_domain: bool
    reason: str  # empty | clarify | context | exact | model
    probability: float | None = None
    candidate: str | None = None
    features: dict[str, float] = field(default_factory=dict)


def _candidate(
    parsed: Parsed,
    analysis: Analysis,
    retrieval: Retrieval,
    referent: str | None,
    neighbours: set[str],
    plain: Retrieval | None = None,
    near_of: Callable[[str], set[str]] | None = None,
    listed: list[str] | None = None,
    stated: frozenset[str] | None = None,
    stated_of: Callable[[str], frozenset[str]] | None = None,
) -> str | None:
    listed = listed or []
    driver = _stated_driver(parsed, analysis, retrieval, near_of, stated_of) if not referent else None
    if driver is not None:
        return driver
    exclude: list[str] = []
    if parsed.intent == "which" and len(listed) >= 2 and not referent:
        # "TP 和 PP 里，哪一个对卡间通信要求更高？": a choice among the terms the question lists,
        # the one whose text the question's description fits best
        order = [h.term_id for h in retrieval.hits]
        return min(listed, key=lambda t: order.index(t) if t in order else len(order))
    if parsed.intent == "which" or asks_for_remedy(parsed, analysis):
        exclude = [*retrieval.named, *([referent] if referent else [])]
        attribute = ASKS_ATTRIBUTE.search(parsed.folded)
        if attribute and (referent or attribute.group(0) not in ("when", "什么时候")):
            # "TGI 是哪家出的", "第三个是哪家出的": a fact about the term the question names, or else
            # about the term under discussion, not another term
            named = [t for t in retrieval.named if t != referent]
            if named or referent:
                return named[0] if named else referent
        if referent:
            # "哪个推理引擎是靠它起家的": the answer is linked to the term under discussion;
            # when no neighbour fits, the question is about that term itself ("第三个是哪家出的").
            # Neighbours are ranked by the question without the referent's name, whose words
            # would pull its look-alikes up ("KV cache 的显存碎片…" → capacity-bound).
            ranking = [h.term_id for h in (plain or retrieval).hits if h.term_id not in exclude]
            near = [t for t in ranking if t in neighbours]
            # "哪个推理引擎…": a class the question names narrows the answer to its members
            classes = [t for t in retrieval.named if t != referent]
            if near_of is not None and classes:
                members = [t for t in near if any(t in near_of(c) for c in classes)]
                near = members or near
            # among the few best, one the referent's own definition names is the answer it gives
            # ("LMCache 是一个对接 vLLM 的…" for "它一般跟哪个推理引擎对接？")
            # — not for a remedy: "前者一般怎么降下来？" is not answered by the prefill TTFT's
            # definition includes, but by what lowers it
            told = [t for t in near[:STATED_DEPTH] if stated and t in stated and parsed.intent == "which"]
            return told[0] if told else (near[0] if near else None)
        asked = asked_of(parsed, analysis)
        if asked is not None and near_of is not None and parsed.intent == "which":
            # "LMCache 是哪种架构的主流开源实现？", "StableHLO 最后交给哪个编译器…", "Which collective
            # does tensor parallelism use?": the question's subject is a term, and the answer is one
            # the graph links to it, among the few best of the whole question (searched without
            # the subject's name, the collective library NCCL outranks AllGather for "Which
            # collective does pipeline parallelism use?": dev replay +1 −3)
            linked = near_of(asked.term_id)
            ranking = [h.term_id for h in retrieval.hits if h.term_id not in exclude][:SUBJECT_DEPTH]
            near = [t for t in ranking if t in linked]
            if near:
                return near[0]
    best = retrieval.best(exclude) or retrieval.best()
    return best.term_id if best is not None else None


#: "What determines TTFT?", "Which phase mostly determines TPOT?", "What limits decode speed?", "TTFT
#: 由什么决定？", "decode 速度受什么限制？": what drives one named term.
_DRIVES = re.compile(
    r"^(?:what|which(?: [a-z-]+){1,3}) (?:mainly |mostly |usually |actually |largely )?(?:determines|decides|drives|"
    r"limits|bounds|governs|dominates|sets|caps|bottlenecks)\b|(?:由|受|取决于)(?:什么|啥|哪些|哪个)(?:因素|东西)?(?:决定|限制|影响|主导|制约)?"
)


#: The kind a which-question asks for, with the setting it names: "which phase of inference …",
#: "推理的哪个阶段": a name there places the kind, it is no subject of the question.
_KIND_OF_NAME = re.compile(r"^(?:which|what)\s+(?:[a-z-]+\s+){1,2}(?:of|in)\s+$")


def _stated_driver(
    parsed: Parsed,
    analysis: Analysis,
    retrieval: Retrieval,
    near_of: Callable[[str], set[str]] | None,
    stated_of: Callable[[str], frozenset[str]] | None,
) -> str | None:
    """ "What determines TTFT?": among the few best-ranked terms linked to the one term the question
    names, one that term's own definitions name (TTFT "对应 prefill 阶段" → Prefill); None when the
    question is no such question or its definitions name none of them. A name that only places
    the kind asked for ("Which phase of inference mostly determines TPOT?") is no subject."""
    if parsed.intent != "which" or near_of is None or stated_of is None or not _DRIVES.search(parsed.folded):
        return None
    f = parsed.folded
    placing = {
        s.term_id
        for s in analysis.spans
        if _KIND_OF_NAME.match(f[: s.start]) or re.match(r"\s*的\s*哪", f[s.end :])
    }
    named = [t for t in dict.fromkeys(retrieval.named) if t not in placing]
    if len(named) != 1:
        return None
    subject = named[0]
    linked, told = near_of(subject), stated_of(subject)
    ranking = [h.term_id for h in retrieval.hits if h.term_id != subject and h.term_id in linked]
    return next((t for t in ranking if t in told), None)


def _continues_bare(parsed: Parsed, analysis: Analysis) -> bool:
    """A question that names no term and asks for the examples, the counterpart or the opposite
    of something: inside a conversation, of the term under discussion."""
    if asks_bare_examples(parsed):
        return True
    return not analysis.spans and (asks_opposite(parsed.folded) or asks_counterpart(parsed.folded))


#: Below this in-domain probability a slot that is exactly a glossary name no longer answers by
#: itself (the lowest such probability of an in-domain question of the dev splits is 0.038).
EXACT_FLOOR = 0.01

#: How many of the best-ranked neighbours a which follow-up checks against the referent's text.
STATED_DEPTH = 3

#: How deep in the ranking a "which" question about a named subject looks for a term linked to it.
SUBJECT_DEPTH = 5


def subject_span(parsed: Parsed, analysis: Analysis) -> Span | None:
    """The name a question opens with, as its subject ("LMCache 是哪种架构…"), not as the place
    where the asked-for thing is ("GPU 里专门加速正弦的单元", "Roofline 图上…的那个点")."""
    if parsed.body is None:
        return None
    for span in analysis.spans:
        if span.start == parsed.body.start and not _LOCATIVE_AFTER.match(parsed.folded[span.end :]):
            return span
    return None


def subject_term(parsed: Parsed, analysis: Analysis) -> str | None:
    """The term of :func:`subject_span`."""
    span = subject_span(parsed, analysis)
    return span.term_id if span is not None else None


#: "Which collective op does pipeline parallelism lean on?": the words between "which" and the
#: auxiliary are the kind asked for, the name right after the auxiliary the subject.
_WHICH_AUXILIARY = re.compile(
    r"\b(?:which|what)\s+(?:[\w-]+\s+){1,4}?(?:does|do|did|is|are|was|were|can|could|would|should|will|has|have)"
    r"\s+(?:the\s+|a\s+|an\s+)?"
)


def asked_of(parsed: Parsed, analysis: Analysis) -> Span | None:
    """The name a "which" question asks something of: the name it opens with ("LMCache 是哪种架构
    的…"), or in English the name after "which <kind> does" ("Which collective op does pipeline
    parallelism lean on?" asks of pipeline parallelism, as "…does it lean on?" asks of "it")."""
    opening = subject_span(parsed, analysis)
    if opening is not None:
        return opening
    for m in _WHICH_AUXILIARY.finditer(parsed.folded):
        for span in analysis.spans:
            if span.start == m.end():
                return span
    return None


_LOCATIVE_AFTER = re.compile(
    r"\s*(?:图|芯片|卡|集群|系统|框架)?\s*(?:里|上|中|内|之中|当中|时|的时候|的|'s\b)"
)


def asks_about_subject(parsed: Parsed, analysis: Analysis, listed: list[str]) -> bool:
    """A Chinese "which" question about the term it opens with: "StableHLO 最后交给哪个编译器转成
    TPU 机器码？", "TTFT 主要由哪个阶段决定？", "LMCache 是哪种架构的主流开源实现？".

    The answer is that term and the one the question asks for beside it (the relation shape):
    every blind writer of the dev splits cites the subject first for these. Not a choice among
    listed terms ("TP 和 PP 里，哪一个…"), a fact of the term ("TGI 是哪家出的"), a name that only
    says where ("GPU 里…的单元"), nor a description that names no "哪" ("…的那部分权重叫什么").
    """
    if parsed.intent != "which" or parsed.body is None or not has_cjk(parsed.folded) or len(listed) >= 2:
        return False
    subject = subject_span(parsed, analysis)
    if subject is None or ASKS_ATTRIBUTE.search(parsed.folded):
        return False
    rest = parsed.folded[subject.end : parsed.body.end]
    # "TVM 团队为动态形状设计的新一代推理 IR 是哪个？": a description of another term, then "是哪个"
    return "哪" in rest and not _DESCRIPTION_THEN_WHICH.search(rest)


#: A description ending in "的 <noun> 是哪个" asks for the term described, not about the subject.
_DESCRIPTION_THEN_WHICH = re.compile(r"的[^，,。；;]*?(?:是|叫|为)\s*哪(?:一)?[个种款类家位]?\s*$")


#: A configuration key or command-line flag: ``--gpu-memory-utilization``, ``max_num_batched_tokens``.
_SETTING_NAME = re.compile(
    r"(?<![a-z0-9_-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*|(?<![a-z0-9_-])[a-z][a-z0-9]+(?:_[a-z0-9]{2,})+(?![a-z0-9_-])"
)


def _names_a_setting(engine: SearchEngine, folded: str) -> bool:
    """The question names a configuration key or flag that is no glossary name (no glossary name
    has the underscore or leading dashes of one)."""
    return any(not engine.matcher.exact(m.group(0).lstrip("-")) for m in _SETTING_NAME.finditer(folded))


#: Words of greeting, thanks and leave-taking: a message made only of them asks nothing.
_SOCIAL_WORD = (
    r"(?:谢谢(?:你|您|啦|了)?|多谢|感谢|谢啦|辛苦了|好(?:的|吧|滴)?|行吧|行|嗯+|哦+|噢+|ok(?:ay)?|明白了?"
    r"|懂了|知道了|了解了?|收到|先这样吧?|就这样吧?|没(?:有)?(?:别的|其他)?(?:问题)?了|再见|拜拜|回见"
    r"|你好|您好|大家好|早上好|晚上好|哈喽|在吗"
    r"|thanks(?: a lot| so much)?|thank you(?: so much| very much)?|thx|ty|cheers|got it|understood"
    r"|makes sense|cool|great|nice|perfect|awesome|bye|goodbye|see you|that'?s all(?: for now)?"
    r"|that is all|no more questions|hi|hello|hey|good (?:morning|afternoon|evening))"
)
_SOCIAL = re.compile(
    rf"^[\s,，.。!！~～、]*{_SOCIAL_WORD}(?:[\s,，.。!！~～、]*{_SOCIAL_WORD})*[\s,，.。!！~～?？]*$"
)


def is_social(text: str) -> bool:
    """Whether a message is only greetings, thanks or leave-taking ("谢谢，先这样吧", "thanks,
    that's all for now", "你好"): it asks nothing, so it gets a courteous reply, no term."""
    return bool(_SOCIAL.match(text.lower()))


#: A request for a joke, a poem, a song or a story.
_CREATIVE = re.compile(
    r"^(?:(?:can|could|would|will) you |please |pls )?(?:tell|give|write|make up|sing|compose|invent)\b"
    r"(?: me| us)? (?:a |an |another |some )?(?:\w+ )?(?:joke|poem|haiku|limerick|song|story|rap|riddle|pun)s?\b"
    r"|^(?:你|请你?|麻烦你?)?(?:给我|帮我|给大家)?(?:讲|说|来|写|编)(?:个|一个|一首|一段|首|段|几个)?"
    r"[^，。？?]{0,16}?(?:笑话|段子|诗(?![意人])|歌词)"
)

#: A name glossed in brackets right after a Chinese name ("潮汐批处理（tidal batching）"), or an
#: abbreviation after a Latin one ("token-elastic decoding (TED)").
_GLOSS = re.compile(
    r"[\u4e00-\u9fff”\"]\s*[（(]\s*(?P<gloss>[a-z][a-z0-9+.-]*(?: [a-z0-9+.-]+){0,3})\s*[）)]"
    r"|[a-z]\s*[（(](?P<abbr>[a-z]{2,6})[）)]"
)
#: Words no name is made of: a gloss holding one is a remark ("(not the NVIDIA thing)").
_GLOSS_STOP = frozenset(
    {
        "a",
        "an",
        "the",
        "not",
        "of",
        "for",
        "and",
        "or",
        "is",
        "are",
        "it",
        "this",
        "that",
        "e.g",
        "i.e",
        "eg",
        "ie",
        "etc",
        "aka",
        "vs",
    }
)


def _glosses_an_unknown_name(engine: SearchEngine, folded: str) -> bool:
    """The question glosses a name in brackets that is no glossary name, and one of whose words
    is no word of a glossary name nor a typo of one."""
    for m in _GLOSS.finditer(folded):
        gloss = (m.group("gloss") or m.group("abbr") or "").strip()
        words = re.findall(r"[a-z][a-z0-9+]*", gloss)
        if not words or any(w in _GLOSS_STOP for w in words) or engine.matcher.exact(gloss):
            continue
        if any(not _near_name(engine, w) for w in words):
            return True
    return False


def _names_a_term(engine: SearchEngine, parsed: Parsed) -> bool:
    """A slot of the question is exactly a glossary name: the subject of a definition or listing
    ("有哪些量化方法" → 量化), or one side of a comparison."""
    for slot in parsed.slots:
        text = slot.text
        if parsed.intent == "listing":
            text = LIST_CLASS_TAIL.sub("", text).strip() or text
            if _names_share_head(engine, text):
                return True
        if engine.matcher.exact(text):
            return True
        m = _SETTING.match(text)
        if parsed.intent == "definition" and m and engine.matcher.exact(m.group(1)):
            # "what is a Pareto frontier on these charts?": a name, and where the asker met it
            return True
        if parsed.intent == "howto_why" and engine.matcher.exact(_without_remedy(text)):
            # "怎么降低 TTFT", "how do I reduce TPOT": a remedy for exactly a glossary name
            return True
    return False


#: A name followed by where the asker met it ("… on these charts", "… in our cluster").
_SETTING = re.compile(
    r"^(.+?)\s+(?:on|in|for|within|inside|at|from|with)\s+(?:these|this|those|that|the|our|my|your)\b"
)

_SUBJECT = re.compile(r"^(?:i|we|you|one|my|our)\s+")


def _without_remedy(text: str) -> str:
    """The slot with its remedy verb (and a leading "I"/"we") removed: "i reduce tpot" → "tpot"."""
    m = _REMEDY.search(text)
    if m is None:
        return text
    rest = (text[: m.start()] + " " + text[m.end() :]).strip()
    return _SUBJECT.sub("", rest).strip()


def _names_share_head(engine: SearchEngine, head: str) -> bool:
    """Two or more glossary names contain *head* ("parallelism", "量化"): a class the glossary lists."""
    key = fold(head)
    if not key or (not has_cjk(key) and len(key) < 4):
        return False
    names = name_parts(engine).names
    if has_cjk(key):
        return sum(key in n for n in names) >= 2
    rx = re.compile(rf"(?<![a-z0-9]){re.escape(key)}(?![a-z0-9])")
    return sum(bool(rx.search(n)) for n in names) >= 2


def _made_up_subject(
    engine: SearchEngine, parsed: Parsed, analysis: Analysis, slot: Slot | None = None
) -> bool:
    """The subject of a definition is a name nothing in the glossary resembles, alone or as the
    variant of a known concept: "What is FooBar-9?", "What is Mamba-3 attention?" — not "4-bit 的
    NVFP4" (a known name, described) nor "RDMA 跟普通 TCP 比" (a comparison). With *slot*, the
    same of that slot whatever the question's intent (a side of a comparison)."""
    if slot is None:
        if parsed.intent not in ("definition", "abbreviation") or not parsed.slots:
            return False
        slot = parsed.slots[0]
    f = parsed.folded
    unknown = list(zip(analysis.unknown, analysis.unknown_ranges, strict=True))
    unknown += analysis.capitalised
    for tok, (a, b) in unknown:
        if not (slot.start <= a and b <= slot.end) or _near_name(engine, tok) or _known_parts(engine, tok):
            continue
        rest = f[b : slot.end]
        if (
            not rest.strip()
            or any(s.start >= b and not f[b : s.start].strip(" -") for s in analysis.spans)
            or _HEAD_NOUN_TAIL.match(rest)
        ):
            return True
    return False


def _known_parts(engine: SearchEngine, token: str) -> bool:
    """A hyphenated word whose every part the glossary's texts use ("KV-aware": KV, and aware of
    "cache-aware"): a paraphrase of a name, not an invented one ("Mamba-3", "FooBar-9")."""
    parts = [p for p in fold(token).split("-") if p]
    if len(parts) < 2:
        return False
    vocabulary = _text_word_parts(engine)
    names = name_parts(engine).names
    return all(
        len(p) >= 2
        and not p.isdigit()
        and (
            p in vocabulary
            or (i and p in _COMPOUND_TAILS)
            or any(re.search(rf"(?<![a-z0-9]){re.escape(p)}(?![a-z0-9])", n) for n in names)
        )
        for i, p in enumerate(parts)
    )


#: English words that make a compound adjective of the word before them ("PyTorch-based",
#: "cache-aware", "TPU-native"): the compound is as known as its first part.
_COMPOUND_TAILS = frozenset(
    [
        "based",
        "aware",
        "native",
        "style",
        "like",
        "friendly",
        "compatible",
        "only",
        "free",
        "heavy",
        "specific",
        "optimized",
        "optimised",
        "enabled",
        "powered",
        "centric",
        "backed",
        "driven",
        "bound",
        "level",
        "wise",
        "sized",
        "class",
        "grade",
        "first",
    ]
)


@lru_cache(maxsize=8)
def _text_word_parts(engine: SearchEngine) -> frozenset[str]:
    """The glossary texts' Latin words and the parts of their hyphenated ones ("cache-aware": aware)."""
    return frozenset(x for w in text_words(engine) for x in (w, *w.split("-")) if x)


_CAMEL = re.compile(r"[A-Z][a-z]+[A-Z]")


def _names_a_made_up_product(engine: SearchEngine, analysis: Analysis) -> bool:
    """The question uses a CamelCase name ("HyperCore", "AgentMesh") that is no glossary name
    word nor a typo of one. Plural or possessive abbreviations ("SMs", "AMD's") and capitals
    alone ("CDN") are not such names: they are often words the glossary writes otherwise."""
    return any(
        # "PyTorch-based": a word of the glossary's texts with a suffix, not a made-up name
        _CAMEL.search(tok) and not _near_name(engine, tok) and not _known_parts(engine, tok)
        for tok in analysis.unknown
    )


def _coined_variant(
    engine: SearchEngine, parsed: Parsed, analysis: Analysis, slot: Slot | None = None
) -> bool:
    """The subject of a definition is a glossary name with Chinese words around it (two to six
    characters before, between or after the names) that no glossary text (names or definitions)
    contains: "回旋解码是什么？", "量子折叠量化是什么？", "什么是 token 蒸发率？", "碎片化 MoE 聚变是什么？"
    — a variant the glossary does not define, so defining the bare concept would answer another
    question. Words the texts use ("流式分页注意力", "KV cache 命中率") are no such coinage, and
    neither is a name the matcher knows as a whole ("动态批处理"). With *slot* (a side of a
    comparison), only a modifier before a single name counts, whatever the question's intent."""
    compared = slot is not None
    if slot is None:
        works = parsed.intent == "howto_why" and _HOW_IT_WORKS_ZH.search(parsed.folded)
        if (parsed.intent not in ("definition", "abbreviation") and not works) or not parsed.slots:
            return False
        slot = parsed.slots[0]
    f = parsed.folded
    inside = [s for s in analysis.spans if slot.start <= s.start and s.end <= slot.end]
    if not inside:
        # "双螺旋并行是什么？": no name, but a head that two or more names share (张量并行,
        # 流水线并行 …) under a modifier no glossary text uses: a kind the glossary does not list
        text = f[slot.start : slot.end].strip(" -?？")
        for cut in range(2, len(text) - 1):
            head = text[-cut:]
            if has_cjk(head) and _names_share_head(engine, head):
                modifiers = [text[:-cut].strip(" -")]
                break
        else:
            return False
    elif compared and (len(inside) != 1 or f[inside[0].end : slot.end].strip(" -?？")):
        # a side of a comparison ("PCIe 卡和 SXM 模组"): only a modifier before one name, since
        # the words after a side are often the asker's own ("模组", "卡")
        return False
    else:
        bounds = [slot.start, *(x for s in inside for x in (s.start, s.end)), slot.end]
        modifiers = [f[bounds[i] : bounds[i + 1]].strip(" -?？") for i in range(0, len(bounds), 2)]
    # "PagedAttention 原理", "MoE 的优缺点": a word for an aspect of the name, not a modifier of it
    modifiers = [_ASPECT_NOUNS.sub("", m) for m in modifiers]
    modifiers = [m for m in modifiers if m]
    # Chinese only: an English modifier is too often a word of the question's frame ("the
    # abbreviation QAT") or an inflection the glossary's mostly Chinese texts never use
    if not modifiers or not all(
        2 <= len(m) <= 6 and all("\u4e00" <= c <= "\u9fff" for c in m) for m in modifiers
    ):
        return False
    if any(_FUNCTION_CHARS.intersection(m) or "里" in m for m in modifiers):
        return False  # "KVC 里面具体存的": a phrase of the question, not a modifier of the name
    lexical = engine.lexical
    # a word one character off a glossary word is a typo ("PTQ 里的教准", "混合专家模形")
    return any(not lexical.near_known(w) for w in lexical.unknown_words(" ".join(modifiers)))


def _coined_prefix(engine: SearchEngine, parsed: Parsed, analysis: Analysis) -> bool:
    """The subject of a definition is one glossary name under a Chinese modifier the glossary's
    names never use and its texts never put before that name: "流式分页注意力是什么？", "影子…",
    "追光解码是什么？", "权重漂移补偿量化是什么？" — a variant the glossary does not define, though the
    modifier's words occur elsewhere in its texts (流式输出), so :func:`_coined_variant` lets it
    pass. Modifiers made of name words ("模型算力利用率", "缓存命中律") or attested before the name,
    and a lead of the question ("简单说说 XLA"), coin nothing."""
    if parsed.intent not in ("definition", "abbreviation") or not parsed.slots:
        return False
    slot, f = parsed.slots[0], parsed.folded
    inside = [s for s in analysis.spans if slot.start <= s.start and s.end <= slot.end]
    if len(inside) != 1:
        return False
    span = inside[0]
    modifier = f[slot.start : span.start].strip(" -")
    if not (2 <= len(modifier) <= 6 and all("\u4e00" <= c <= "\u9fff" for c in modifier)):
        return False
    if _FUNCTION_CHARS.intersection(modifier) or _ASPECT_NOUNS.search(modifier) or _SPEECH.search(modifier):
        return False
    if engine.matcher.exact(modifier) or span.term_id not in engine.terms:
        return False
    names = {re.sub(r"\s+", "", fold(n)) for n in engine.terms[span.term_id].all_names()}
    names.add(re.sub(r"\s+", "", f[span.start : span.end]))
    if any(modifier[-2:] in n for n in names):
        return False  # "缓存命中率": the modifier is part of the term's own name
    text = glossary_text(engine)
    if any(modifier[-2:] + n in text for n in names):
        return False  # attested: the sources put these words before the name
    import jieba

    known = name_segments(engine)
    return not all(w in known for w in jieba.lcut(modifier) if w.strip())


#: Verbs of a request that may lead a slot ("简单说说 XLA 是做什么的"): no modifier of the name.
_SPEECH = re.compile("说|讲|介绍|解释|聊|问|谈")


#: "…是怎么工作的", "…是如何实现的": how the subject works, asked of a coinage as of a definition.
_HOW_IT_WORKS_ZH = re.compile(r"(?:怎么|怎样|如何)(?:工作|运作|运行|实现|做到)的?\W*$")

#: Chinese nouns for an aspect of a term ("原理是啥", "用途", "优缺点"): after a name they ask about
#: it, they do not coin a variant of it, whether or not the glossary's texts use them.
_ASPECT_NOUNS = re.compile(
    "原理|机制|作用|用途|用处|意思|含义|定义|概念|区别|差别|差异|优缺点|优点|缺点|优势|劣势|好处|坏处"
    "|代价|开销|瓶颈|限制|局限|场景|例子|示例|流程|步骤|过程|公式|算法|架构|结构|实现|细节|全称|简称"
    "|缩写|中文名?|英文名?|名字|名称|叫法|版本|历史|由来|来源|背景|本质|核心|思路|思想|目的|意义|影响"
    "|效果|性能|指标|参数|配置|设置|用法|特点|特征|特性|功能|好坏|利弊|区分|关系|联系"
)


#: Words of a question's frame, not modifiers of the name after them ("the acronym TTFT", "that
#: parallelism").
_FRAME_TEXT = (
    "term concept idea notion acronym abbreviation word name phrase thing meaning definition "
    "called so-called exactly actually really basically whole entire this that these those which "
    "what such some your their "
    # plain adjectives that set a variant against the usual kind ("plain throughput", "normal
    # prefill"), and generic nouns: no coinage, though the glossary's Chinese texts may not use them
    "plain normal real regular ordinary standard vanilla traditional classic conventional "
    "typical usual simple basic generic default naive actual overall total average full "
    "peak max maximum minimum effective theoretical practical measured nominal sustained "
    "hardware software"
)
_FRAME_WORDS = frozenset(_FRAME_TEXT.split())


def _coined_english_modifier(
    engine: SearchEngine, parsed: Parsed, analysis: Analysis, slot: Slot | None = None
) -> bool:
    """The subject of a definition is one plain English word before a glossary name or a head two
    names share, a word no glossary text uses in any form: "What is quorum decoding?", "Can you
    explain tessellate decoding for LLM serving?" — a variant the glossary does not define (the
    English twin of :func:`_coined_variant`). A word the texts use, or a form of one ("greedy
    decoding"; "disaggregated serving": disaggregation), is no such coinage. With *slot*, the same
    of that slot whatever the question's intent (a side of a comparison). "How does braid
    parallelism split MoE experts?" asks how such a subject works: its first two words count."""
    subject_first = False
    if slot is None:
        subject_first = parsed.intent == "howto_why" and bool(_HOW_DOES.match(parsed.folded))
        if (parsed.intent not in ("definition", "abbreviation") and not subject_first) or not parsed.slots:
            return False
        slot = parsed.slots[0]
    text = _PREPOSITION_TAIL.split(parsed.folded[slot.start : slot.end], maxsplit=1)[0]
    words = text.strip(" -?？.!").split()
    if words and words[0] in ("a", "an", "the"):
        words = words[1:]
    if subject_first:
        words = words[:2]
    if len(words) != 2:
        return False
    modifier, head = words
    if not re.fullmatch(r"[a-z]{4,}", modifier) or modifier in _FRAME_WORDS or _near_name(engine, modifier):
        return False  # a typo of a name word ("chunkd prefill") is no coinage either
    if not (engine.matcher.exact(head) or _names_share_head(engine, head)):
        return False
    vocabulary = text_words(engine)
    stem = modifier[: max(4, len(modifier) - 3)]
    i = bisect_left(vocabulary, stem)
    return not (i < len(vocabulary) and vocabulary[i].startswith(stem))


#: "How does <subject> …?": a how-it-works question whose subject opens its slot.
_HOW_DOES = re.compile(r"^how (?:does|do|did|can|could|would|will|is|are) ")

_PREPOSITION_TAIL = re.compile(r"\s+(?:in|for|on|of|with|at|from|used|inside|within|during|when)\b")


#: Characters of Chinese function words and pronouns: a run holding one is no product name.
_FUNCTION_CHARS = frozenset(
    "的了是在和与跟把被对从为我你他她它们这那哪什么怎请问吗呢吧啊要想能会该用有没不都也就还"
)


def _opens_with_coined_name(engine: SearchEngine, parsed: Parsed, analysis: Analysis) -> bool:
    """A Chinese question opens with a product name of two to four characters no glossary text
    uses, right before a glossary name that says what kind of thing it is: "雷鸣推理引擎支持哪些
    GPU？", "灵犀推理芯片的显存带宽是多少？" — a product the glossary has never seen, whatever the
    question asks of it."""
    body = parsed.body
    if body is None or not has_cjk(body.text):
        return False
    first = next((s for s in analysis.spans if s.start > body.start), None)
    if first is None or any(s.start < first.start for s in analysis.spans):
        return False
    name = parsed.folded[body.start : first.start]
    if not (2 <= len(name) <= 4 and all("\u4e00" <= c <= "\u9fff" for c in name)):
        return False
    if _FUNCTION_CHARS.intersection(name) or parsed.folded[first.end : first.end + 1] in (
        "前",
        "后",
        "时",
        "中",
    ):
        return False  # "上线优化前…": a time clause, not a product and its kind
    n_tokens, known = engine.lexical.coverage(name)
    # a noun, as jieba tags it: "雷鸣", "玄机" — not a verb or lead ("讲讲", "已知", "回到")
    return n_tokens > 0 and known == 0 and _all_nouns(name)


def _all_nouns(text: str) -> bool:
    """Every word jieba finds in *text* is tagged a noun (n, nr, ns, nt, nz …)."""
    import jieba.posseg

    return all(w.flag.startswith("n") for w in jieba.posseg.lcut(text))


def _compares_a_made_up_name(engine: SearchEngine, parsed: Parsed, analysis: Analysis) -> bool:
    """A side of a comparison is a made-up name (:func:`_coined_variant`,
    :func:`_coined_english_modifier` of that side's slot): "飞梭引擎和 vLLM 有什么区别？", "What's the
    difference between vortex batching and continuous batching?"."""
    if parsed.intent != "comparison" or len(parsed.slots) < 2:
        return False
    return any(
        _coined_variant(engine, parsed, analysis, slot)
        or _coined_english_modifier(engine, parsed, analysis, slot)
        for slot in parsed.slots[:2]
    )


#: What may follow an unknown name that heads a definition's subject: one or two plain words,
#: then the end or a prepositional tail ("ShardSpill offloading in multi-node serving",
#: "Quantum KV Lattice technique for long-context serving").
_HEAD_NOUN_TAIL = re.compile(
    r"^(?:[\s-]+[a-z][a-z-]*){0,2}\s*(?:$|(?:in|for|on|of|with|at|from|used|inside|within)\b)"
)


def _near_name(engine: SearchEngine, token: str) -> bool:
    """*token* is a glossary name word or a typo of one ("RadixAtention")."""
    from rapidfuzz import fuzz, process

    words = name_parts(engine).word_list
    known = name_parts(engine).words
    key = fold(token)
    if key in known:
        return True
    parts = two_name_words(key, known)
    if parts is not None and not engine.matcher.exact(" ".join(parts)):
        # two name words run together that name nothing ("StreamingLLM", "SpiralKV"): a new
        # name, not a typo of "streaming" ("kvcache" is KV cache, a name)
        return False
    return bool(process.extractOne(key, words, scorer=fuzz.ratio, score_cutoff=85))


def decide(
    engine: SearchEngine,
    model: RefusalModel,
    parsed: Parsed,
    analysis: Analysis,
    retrieval: Retrieval,
    *,
    unresolved_pronoun: bool,
    used_context: bool,
    referent: str | None = None,
    neighbours: set[str] | None = None,
    demonstrative: bool = False,
    in_conversation: bool = False,
    plain: Retrieval | None = None,
    near_of: Callable[[str], set[str]] | None = None,
    listed: list[str] | None = None,
    stated: frozenset[str] | None = None,
    conversation_terms: set[str] | None = None,
    named_referent: bool = False,
    stated_of: Callable[[str], frozenset[str]] | None = None,
) -> Decision:
    """Apply the rules of the module docstring to one question.

    *plain* is the search of the question without its pronouns' referent, and *near_of* the
    graph neighbours of a term: a follow-up "which" question picks among the referent's
    neighbours with them. *listed* are the terms the question offers as a list ("TP 和 PP 里，
    哪一个…"): a "which" question then picks one of them. *conversation_terms* are the topic,
    the last answer's terms and the topic's neighbours of the conversation so far.
    *named_referent*: a pronoun of the question points at a term the question itself names
    ("Goodhart's law - how does it apply …", "functionalization, compiler-wise, what is that?").
    """
    body = parsed.body.text if parsed.body else parsed.folded
    if is_social(parsed.folded):
        # "谢谢，先这样吧", "thanks, that's all for now", "你好": no question to answer or refuse
        return Decision("refuse", False, "social")
    if not body.strip():
        return Decision("refuse", False, "empty")
    if unresolved_pronoun:
        return Decision("clarify", True, "clarify")
    candidate = _candidate(
        parsed, analysis, retrieval, referent, neighbours or set(), plain, near_of, listed, stated, stated_of
    )
    feats = question_features(engine, parsed, analysis, retrieval)
    ok, p = model.in_domain(feats, question_vector(engine, retrieval), retrieval.named, text=body)
    if _CREATIVE.search(body):
        # "Tell me a joke about GPUs", "写一首关于 KV cache 的诗": a request for entertainment,
        # which a glossary has no sentence for, whatever term it names
        return Decision("refuse", False, "chit_chat", p, candidate, feats)
    if _opens_with_coined_name(engine, parsed, analysis):
        # "雷鸣推理引擎支持哪些 GPU？": a product the glossary has never seen, named before its kind
        return Decision("refuse", False, "unknown_name", p, candidate, feats)
    if parsed.intent not in ("comparison", "relation") and _glosses_an_unknown_name(engine, parsed.folded):
        # "反向投机预填充（reverse speculative prefill）能把首 token 延迟降多少？": the question
        # introduces its subject by a name the glossary has never seen, nor anything like it
        return Decision("refuse", False, "unknown_name", p, candidate, feats)
    if _names_a_setting(engine, parsed.folded):
        # "vLLM 的 --gpu-memory-utilization 默认值是多少？", "nginx worker_connections": the
        # glossary defines concepts, not the flags and keys of a program's configuration
        return Decision("refuse", False, "setting", p, candidate, feats)
    if (used_context or parsed.intent != "comparison") and _names_a_made_up_product(engine, analysis):
        # "Can I deploy it on a Tesla Dojo HyperCore v9 board?", "Does the Zyntrix AgentMesh
        # scheduler support those?", "How do I install TorrentLLM on an 8-GPU node?": the question
        # is about a product the glossary has never seen, and its sentences say nothing of it. A
        # comparison with such a side names the known side (`_compares_a_made_up_name` decides).
        return Decision("refuse", False, "unknown_name", p, candidate, feats)
    if used_context:
        named = (feats["exact"] and feats["unknown"] == 0) or _names_a_term(engine, parsed)
        if demonstrative and p < model.threshold * CONTEXT_REFUSAL_FACTOR and not named:
            # a question that names a glossary term ("what is a Pareto frontier on these
            # charts?") is in the domain whatever its demonstrative points at
            return Decision("refuse", False, "model_context", p, candidate, feats)
        return Decision("answer", True, "context", p, candidate, feats)
    if _compares_a_made_up_name(engine, parsed, analysis):
        # "What's the difference between StrideFold Attention and FlashAttention?": one side is a
        # name the glossary has never seen; the other side's definition compares it with nothing
        return Decision("refuse", False, "unknown_name", p, candidate, feats)
    if feats["exact"] and feats["unknown"] == 0:
        return Decision("answer", True, "exact", p, candidate, feats)
    if _names_a_term(engine, parsed) and p >= EXACT_FLOOR:
        # a slot that is exactly a glossary name answers, unless the model is all but sure the
        # question is about something else: "How does OmniFabric-X differ from InfiniBand?"
        # (p 0.004), "墨水在水里的扩散速度和温度有什么关系？" (温度 is Temperature; p 0.008)
        return Decision("answer", True, "exact", p, candidate, feats)
    if named_referent and feats["unknown"] == 0 and p >= EXACT_FLOOR:
        # the question names a term and asks about it through a pronoun: its subject is that term,
        # unless the model is all but sure it is about something else ("My Linux kernel panics on
        # boot after an update, how do I fix it?": p 0.004)
        return Decision("answer", True, "named_referent", p, candidate, feats)
    if (
        _made_up_subject(engine, parsed, analysis)
        or _coined_variant(engine, parsed, analysis)
        or _coined_prefix(engine, parsed, analysis)
        or _coined_english_modifier(engine, parsed, analysis)
    ):
        # "What is Mamba-3 attention?": a name the glossary has never seen, nor anything like it;
        # "回旋解码是什么？": a known concept under a modifier no glossary text has ever used
        return Decision("refuse", False, "unknown_name", p, candidate, feats)
    switched = bool(TOPIC_SWITCH.match(parsed.folded))  # "Unrelated:", "lol", "换个话题"
    if in_conversation and not switched and _continues_bare(parsed, analysis):
        # "Any examples?", "And the output counterpart?", "and the opposite kind of provider?"
        # after a definition: it names nothing and can only mean the topic's
        return Decision("answer", True, "conversation", p, candidate, feats)
    if not ok and in_conversation and p >= model.threshold * CONVERSATION_FACTOR and not switched:
        # "为什么要求形状固定？" after two turns about CUDA Graphs: a question inside a conversation
        # about the glossary is more likely about it than the same words asked cold
        return Decision("answer", True, "conversation", p, candidate, feats)
    if (
        not ok
        and in_conversation
        and conversation_terms
        and p >= model.threshold * LINKED_FACTOR
        and not switched
    ):
        best = retrieval.best()
        if best is not None and best.term_id in conversation_terms:
            return Decision("answer", True, "conversation_link", p, candidate, feats)
    return Decision("answer" if ok else "refuse", ok, "model", p, candidate, feats)
