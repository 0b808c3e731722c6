"""Question shapes in Chinese and English: the intent, the slots that name terms, pronouns.

Everything runs on ``fold(question)`` (NFKC, Simplified, lower case, no spaces beside
Chinese characters), the same text :meth:`LabelMatcher.find_mentions` reports offsets
in, so slot offsets and mention offsets can be compared directly.

>>> p = parse("那它和 TPOT 有什么区别？")
>>> p.intent, [s.text for s in p.slots]
('comparison', ['它', 'tpot'])
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kg.textnorm import fold, has_cjk

__all__ = [
    "ASKS_ATTRIBUTE",
    "LIST_CLASS_TAIL",
    "TOPIC_SWITCH",
    "Parsed",
    "Pronoun",
    "Slot",
    "asks_bare_examples",
    "parse",
]


@dataclass(frozen=True)
class Slot:
    """A part of the folded question that should name a term; offsets into the folded text."""

    text: str
    start: int
    end: int


@dataclass(frozen=True)
class Pronoun:
    """它 / 这个 / it / its / the former …; ``ref`` is ``topic``, ``former`` or ``latter``."""

    text: str
    start: int
    end: int
    ref: str = "topic"


@dataclass
class Parsed:
    question: str
    folded: str
    intent: str  # one of kg.chat.model.INTENTS, or "unknown" when no frame matched
    facet: str | None = None  # names | names_en | names_zh | measure | namesake
    slots: list[Slot] = field(default_factory=list)
    pronouns: list[Pronoun] = field(default_factory=list)
    matched: bool = False  # a question frame matched (False: bare text, chit-chat)
    body: Slot | None = None  # the question without its leading fillers and trailing punctuation


# --- pronouns ----------------------------------------------------------------------------

_ZH_PRONOUN = re.compile(
    # 他 / 他们 for 它 / 它们: an input method's first choice that many askers leave (其他 is "other")
    r"前者|后者|它们|(?<![其吉])他们|这两者|这两个|这三个|这三者|这几个|两者|二者|三者|它|(?<![其吉])他(?![人们])|其(?=中文|英文|全称|定义|作用|原理|缩写|含义|意思|特点|优点|缺点|区别|关系|主要|核心|本质|对应)"
    # a clause opening with 其 ("其最多能把一张卡切成几份？"), not 其中 / 其他 / 其实 / 其余 / 其次 / 其间
    r"|(?<![^，,。；;：:\s])其(?![中他它余实次间])"
    r"|(?:另一个|另外一个|另一种|另外那个)(?=的|呢|是|怎|为|有|在|又|还|[？?，,。]|$)"
    r"|(?<![应就又不都也还])该(?=[\u4e00-\u9fff])(?![怎如咋哪什多几不用选从在去找查先把给往向拿换加减设调开关买做装看])|这玩意儿?|这东西|这个|这种|这项|这一|这类"
    r"|这条(?=定律|规则|法则|曲线|线|指标|公式)|这款|这套"
    # "那个怎么开啊？": 那个 standing alone (a verb or the end follows), not "那个看卡有多忙的百分比"
    r"|(?<![\u4e00-\u9fff])那个(?=\s*(?:怎么|怎样|如何|是|有|能|可以|要|该|为什么|咋|呢|[？?。，,]|$))"
)
_EN_PRONOUN = re.compile(
    r"\bthe other one\b|\bthe other(?=\s*(?:[?.!,;:]|$))|\bthe (former|latter)\b|\b(?:these|the) two\b|\bwhich one\b|\bwhich of (?:the two|them|these|those|the pair)\b"
    r"|^which(?= (?:has|have|is|are|was|were|needs?|uses?|gives?|offers?|brought|brings?|supports?|runs?|"
    r"saves?|works?|costs?|came|comes|makes?|gets?|can|should|would|will)\b)"
    r"|\b(it|its|itself|they|them|their|both|this|these|those)\b"
)
#: "What's it called when you merge ops…?", "What do you call it if…": an "it" that stands for the
#: clause after it (an expletive), not for a term under discussion.
_EXPLETIVE_IT = re.compile(
    r"\b(?:what(?:'s| is| was) it (?:usually |commonly )?called|what do (?:you|they|we|people|folks) call it"
    r"|is it called|how is it called)(?=\s+(?:when|if|where|that)\b)"
)
_IDIOM_BEFORE_THIS = re.compile(r"(?:\bnew to|\bused to|\ball|\bat)\s+$")
_EN_THAT = re.compile(
    # "that" points back ("How is that different…", "that kind of bottleneck") after a verb or a
    # preposition; after a noun it opens a relative clause ("the engine that uses it") and after
    # verbs of saying a complement ("it means that …"), neither of which points anywhere
    r"(?:^|\b(?:is|was|are|of|from|to|with|about|for|on|at|in|by|like|than|fix|use|does|do|did|and|"
    r"how|why|what|can|past|beyond|into|behind|under|over|handle|reduce|avoid|around|against|without|after|"
    r"before|across|through|via|within|per|toward|towards|near|onto|upon|besides|beside|support|supports)\s+|"
    r"\b(?:how|what|where|why)'s\s+)(that)\b"
    r"(?!\s+(?:it|they|we|i|you|he|she|there|this|these|those|is|was|are|will|would|can|could)\b)"
    # "that" closing a clause or before a verb's particle ("crank that up", "turn that off") stands
    # for a thing, whatever comes before it
    r"|(?<=\s)(that)(?=\s*(?:[?.!,;:]|$)|\s+(?:up|off|down|out)\b)"
    # after a past participle, before one closing noun ("Who open-sourced that engine?"): a
    # determiner pointing back, not a complement ("noticed that the queue grows")
    r"|\b[a-z-]+ed\s+(that)(?=\s+[a-z][a-z0-9-]*\s*(?:[?.!,;:]|$))"
)
#: A question asking a fact of a term ("TGI 是哪家出的", "who made it", "which paper"), not for
#: another term: the decision stage answers with the term itself, the follow-up ranker reads it
#: as a feature (kg/chat/decide.py, kg/chat/followup.py). "Which vendor-neutral client…" asks for
#: a term, not a vendor.
ASKS_ATTRIBUTE = re.compile(
    r"哪家|哪个公司|哪间公司|哪个厂|谁(?:做|出|开发|提出|发明|推出)|哪一?年|什么时候|哪篇|哪位|"
    r"\bwho\b|\bwhich (?:company|vendor|year|paper|team|lab)(?![\w-])|\bwhen\b"
)

#: Words opening a question that leaves the conversation's subject.
TOPIC_SWITCH = re.compile(
    # "cool thx. unrelated, but …", "好了不聊这个，…": thanks or an OK may come first
    r"^\s*(?:(?:(?:ok(?:ay)?|cool|thanks|thx|thank you|great|nice|got it)\b|好的?|好了|好吧|嗯|行|谢谢|多谢)[\s,，.。!！]*)*"
    r"(?:换个话题|换个问题|另外|另一个问题|顺便问一下|顺便问|不聊这个了?|不说这个了?|说点别的|聊点别的|题外话|"
    r"something else|unrelated|different question|another question|on (?:another|a different) note|by the way|btw|"
    r"new question|totally different|off[- ]topic|random question|changing (?:the )?(?:topic|subject)|lol\b)"
)
_OTHER = {"另一个", "另外一个", "另一种", "另外那个"}
_PLURAL = {
    "它们",
    "他们",
    "这两者",
    "这两个",
    "这三个",
    "这三者",
    "这几个",
    "两者",
    "二者",
    "三者",
    "they",
    "them",
    "their",
    "both",
    "these",
    "those",
    "which one",
}
_DEMONSTRATIVE = {
    "这个",
    "那个",
    "这种",
    "这项",
    "这一",
    "这类",
    "该",
    "这玩意",
    "这玩意儿",
    "这东西",
    "这条",
    "这款",
    "这套",
    "this",
    "that",
    "these",
    "those",
}


_ORDINAL_ZH = re.compile(
    r"(?:第(?P<n>[一二三四五12345])(?:个|种|项|者|款|条)|(?P<first>前一个|前一种|头一个)|(?P<last>后一个|后一种|最后一个|最后那个))"
    # a pronoun when it stands for an item ("第二个的核心想法", "后一个呢"), not when it determines a
    # noun ("第一个请求特别慢")
    r"(?![\u4e00-\u9fff](?<![是的呢和跟与及为有在用要会能比怎吗吧啊呀嘛更最又还也都就才只叫属对不没该主一适分差区跑做负干支占靠先快慢好贵省大小高低强弱底内背里具到究实通其])"
    r"|[a-z0-9])"
)
_ORDINAL_EN = re.compile(
    r"\bthe (?:(?P<n>first|second|third|fourth|fifth|1st|2nd|3rd|4th|5th)|(?P<last>last|latter))"
    # a pronoun only as "the second one" or standing alone ("tell me about the first"), not as
    # the determiner of another noun ("who won the last Super Bowl")
    # "the second kind", "the first approach": an item of a list the conversation set up
    r"(?: (?:one|option|term|item|kind|type|approach|method|technique|strategy|variant|way|format|mode)\b|(?=\s*(?:[?.!,;:)]|$|\s(?:is|was|does|do|did|has|have|had|use|uses|"
    r"and|or|in|of|for|to|with|mean|means|stand|stands|again|then|please)\b)))"
)
_ORDINAL_INDEX = {
    "一": 0,
    "二": 1,
    "三": 2,
    "四": 3,
    "五": 4,
    "1": 0,
    "2": 1,
    "3": 2,
    "4": 3,
    "5": 4,
    "first": 0,
    "second": 1,
    "third": 2,
    "fourth": 3,
    "fifth": 4,
    "1st": 0,
    "2nd": 1,
    "3rd": 2,
    "4th": 3,
    "5th": 4,
}


def _ordinals(folded: str) -> list[Pronoun]:
    """ "第二个", "后一个", "the second one", "the last one": ``ref`` = ``ord:N`` (``ord:-1`` for the last)."""
    out = []
    for rx in (_ORDINAL_ZH, _ORDINAL_EN):
        for m in rx.finditer(folded):
            gd = m.groupdict()
            if gd.get("n"):
                ref = f"ord:{_ORDINAL_INDEX[gd['n']]}"
            elif gd.get("first"):
                ref = "ord:0"
            else:
                ref = "ord:-1"
            out.append(Pronoun(m.group(0), m.start(), m.end(), ref))
    return out


#: A word right before an emphatic "itself" ("Docker itself", "Whisper itself is …"), not a verb
#: or preposition whose object it is ("does it by itself", "speaks for itself").
_AFTER_A_NOUN = re.compile(
    r"(?<![a-z])(?!(?:by|for|of|to|in|on|with|about|is|does|do|did|was|it)\s)[a-z0-9.+-]+\s+$"
)

#: A demonstrative that determines a time ("this year", "these days", "这个月", "这一周") points at
#: no term: "Do you think the Lakers will make the playoffs this year?" continues nothing.
_EN_TIME = re.compile(
    r"\s+(?:years?|weeks?|months?|weekends?|mornings?|afternoons?|evenings?|nights?|days?|time|times|"
    r"seasons?|quarters?|summer|winter|spring|autumn|fall|decades?|century|moment|semester|sprint|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"
)
_ZH_TIME = re.compile(r"(?:个)?(?:年|周|星期|礼拜|月|季度|赛季|周末|时候|阵子|天|刻|会儿)")


def _determines_a_time(folded: str, m: re.Match[str]) -> bool:
    t = m.group(0)
    if t in ("this", "that", "these", "those"):
        return bool(_EN_TIME.match(folded, m.end()))
    if t in ("这个", "这一"):
        return bool(_ZH_TIME.match(folded, m.end() - (1 if t == "这个" else 0)))
    return False


#: "X and Y are both …", "they can both …": "both" floats after a verb and quantifies its subject.
_QUANTIFIED_BY_BOTH = re.compile(
    r"\b\w[\w.+-]* (?:and|&) \w[\w.+-]* (?:are|were|can|could|do|did|have|will|would|should)\s+$"
)


def find_pronouns(folded: str) -> list[Pronoun]:
    out: list[Pronoun] = _ordinals(folded)
    taken = [(p.start, p.end) for p in out]
    for m in _ZH_PRONOUN.finditer(folded):
        if any(a <= m.start() < b for a, b in taken) or _determines_a_time(folded, m):
            continue
        t = m.group(0)
        ref = "former" if t == "前者" else "latter" if t == "后者" else "both" if t in _PLURAL else "topic"
        if t in _OTHER:
            ref = "other"
        out.append(Pronoun(t, m.start(), m.end(), ref))
    for m in _EN_PRONOUN.finditer(folded):
        if any(a <= m.start() < b for a, b in taken) or _determines_a_time(folded, m):
            continue
        if m.group(0) in ("itself", "themselves") and _AFTER_A_NOUN.search(folded, 0, m.start()):
            continue  # "And Docker itself?": emphasises the name before it, points nowhere else
        if m.group(0) == "both" and _QUANTIFIED_BY_BOTH.search(folded, 0, m.start()):
            continue  # "Medusa and EAGLE are both examples": a quantifier of the names before it
        if m.group(0) == "this" and _IDIOM_BEFORE_THIS.search(folded, 0, m.start()):
            continue  # "… like I'm new to this", "all this": the field, not a term
        if m.group(0) == "it" and any(
            e.start() <= m.start() < e.end() for e in _EXPLETIVE_IT.finditer(folded)
        ):
            continue  # "what's it called when …": the clause after it is what is asked about
        t = m.group(0)
        ref = "former" if t.endswith("former") else "latter" if t.endswith("latter") else "topic"
        if t.startswith("the other"):
            ref = "other"
        if t in _PLURAL or t.endswith(" two") or t.startswith("which"):
            ref = "both"  # "which one" / "which of them" / "Which has more VRAM?": a choice
        out.append(Pronoun(t, m.start(), m.end(), ref))
    for m in _EN_THAT.finditer(folded):
        g = next(i for i in (1, 2, 3) if m.group(i))
        if _EN_TIME.match(folded, m.end(g)):
            continue
        out.append(Pronoun("that", m.start(g), m.end(g), "topic"))
    return sorted(out, key=lambda p: p.start)


_BARE_EXAMPLES = frozenset(["例子", "实例", "示例", "examples"])
#: What may stand before a class word in a request that names nothing else: "有哪些代表方法",
#: "有哪些常见做法", "Name some representative methods".
_BARE_MODIFIERS = re.compile(
    r"^(?:(?:一些|几个|几种|代表性?|常见|主要|典型|常用|具体|有代表性)的?\s*|"
    r"(?:the|some|a few|main|common|typical|representative|key|major|popular|usual|well-known)\s+)*$"
)


def asks_bare_examples(parsed: Parsed) -> bool:
    """ "举几个例子？", "Any examples?", "有哪些代表方法？", "Name some representative methods": a request
    for instances that names nothing but a class word, so it can only be about the term under
    discussion."""
    if parsed.intent != "listing" or len(parsed.slots) != 1:
        return False
    text = re.split(r"[?？]", parsed.slots[0].text, maxsplit=1)[0].strip()
    if text in _BARE_EXAMPLES:
        return True
    rest = LIST_CLASS_TAIL.sub("", text).strip()
    return rest != text and bool(_BARE_MODIFIERS.match(rest + (" " if rest and rest.isascii() else "")))


def is_demonstrative(p: Pronoun) -> bool:
    return p.text in _DEMONSTRATIVE


# --- frames --------------------------------------------------------------------------------

_LEAD = re.compile(
    r"^(?:\s*(?:那么|那(?!个\s*(?:怎|如何|是|有|能|可以|要|该|为什么|咋|呢|[？?。，,]|$))|所以|还有|另外|好的|好吧|嗯|哦|噢|谢谢|请问|麻烦你?|小白求问|求问|请教一下|请教|弱弱地?问一(?:下|句)|快速问一下|简单问一下|问个小?问题|有个小?问题|我想问一下|我想问|想请教一下|想请教|打扰一下|你好|您好|哈喽|想问一下|问一下|一般来说|具体来说|具体而言|简单来说|简单地说|总的来说|说白了|换句话说|说实话|老实说|求助|新手求助|萌新求问|新手提问|大家好|各位大佬|大佬们|各位(?=[，,：:！!])|急问|在线等|急(?=[，,：:！!])|一般|通常|到底|究竟|"
    # a change of subject opens the question but says nothing of what it is about: the search
    # and the refusal model see the question without it ("lol unrelated, what's a good name for
    # a cat?" is as off-topic as the question alone); TOPIC_SWITCH still reads it on the whole
    r"换个话题|换个问题|另一个问题|顺便问一下|顺便问下|顺便问|不聊这个了|说点别的|话说|对了|哈哈+|"
    # so does a return to it: "ok back to it — how does the second one differ from the first?"
    # points with its ordinals, not with the "it" of the return
    r"回到正题|言归正传|说回正题|回来说正事|回来(?=[\s,:])|(?:back to (?:it|that|this|the (?:topic|point|subject)))|"
    r"(?:and|so|ok|okay|cool|well|also|then|now|great|thanks|thank you|nice|hmm|please|hi|hello|"
    r"something else|unrelated|different question|another question|on another note|by the way|btw|"
    r"new question|totally different|totally off[- ]topic|off[- ]topic|random question|lol|haha|"
    r"switching topics|anyway|"
    # a preamble that says a question follows says nothing of what it is about ("Quick question:
    # FP8 vs INT8?" is the comparison alone; read with it, the comparison lost its first side)
    r"quick question|quick one|real quick|one more question|one more thing|"
    r"(?:general|basic|dumb|stupid|silly|noob|newbie|beginner|honest|simple) question|"
    r"(?:question|curious|sorry|yo|hey there|hey|follow[- ]up(?: question)?)(?=\s*[,:!.;—–-])|"
    r"sorry if this is (?:a )?(?:dumb|stupid|silly|basic|naive|obvious)(?: question)?|just curious|"
    r"i have a question|can i ask(?: you)?(?: something)?|let me ask(?: you)?(?: something)?|"
    # greetings to a room and calls for help say who asks or how urgently, not what about
    # ("Please help: vLLM vs SGLang" lost its first side as "help: vLLM")
    r"(?:i )?(?:need |needs |could use )?(?:some )?help(?: needed| wanted| please| me out| me)?(?=\s*[,:!.;—–-])|"
    r"urgent(?=\s*[,:!.;—–-])|(?:hi|hello|hey|morning) (?:all|everyone|everybody|team|folks|guys|there|friends|people)|"
    r"good (?:morning|afternoon|evening)|[a-z]+(?:[ -][a-z]+)? here(?=\s*[,:!—–-])|"
    r"interview (?:prep|question)(?=\s*[,:!.;—–-])|"
    # "ELI5: disaggregated inference" asks for a plain definition, as the bare name does
    r"eli5|tl;?dr"
    r")\b(?:[\s,]*but\b)?)[\s,.!:;~—–-]*)+",
)
_TRAIL = re.compile(r"[\s?.!~。？！…]+$")
_CLAUSE = re.compile(
    r"\s*[,;:，；：]\s*|\s+(?:and|but)\s+(?=(?:why|how|what|which|when|where|is|does|do|can)\b)"
)
_ARTICLE = re.compile(r"^(an?|the)\s+")
# "… in English please", "…，谢谢", "用中文讲讲": how to answer, not what about
_POLITE_END = re.compile(
    r"(?:[\s,，]*(?:please|pls|thanks|thank you|thx|谢谢|谢啦|多谢|"
    # a hedge after the question: how plainly to answer ("…, basically?")
    r"(?<=,)\s*(?:basically|in short|in a nutshell|in general|generally|roughly|in practice)))+$"
)
_MANNER_END = re.compile(
    r"(?:(?:\s+|(?<=[\u4e00-\u9fff])|,\s*)(?:in (?:plain |simple )?(?:english|chinese|terms|words|detail)|briefly|simply|for me|for a beginner|"
    r"basically|in short|in a nutshell|in general|generally|roughly|in practice|"
    # "Explain tensor parallelism to me like I'm new to this": to whom and how, not what
    r"(?:to me )?like i'?m (?:new to (?:this|it|all this|the field)|five|5|a beginner|a kid|twelve|a newbie|a novice)|to me)"
    r"|(?:用|请用)(?:中文|英文|英语|汉语)(?:解释|说|讲|回答|介绍)?(?:一下|下)?|(?:简单|详细)(?:说|讲|解释|介绍)(?:说|讲)?(?:一下|下)?)+$"
)
_ZH_FILLER_END = re.compile(r"(呢|吗|啊|呀|嘛|吧)+$")
# adverbs between a slot and its frame ("模型并行一般有哪几种方式"): not part of the name
_ZH_ADVERB_END = re.compile(
    r"(?<=[\u4e00-\u9fffa-z0-9])(?:一般来说|一般|通常|主要|大概|大致|到底|究竟|具体|目前|现在)+$"
)

# Each frame: (intent, facet, regex). Named groups a/b/x are slots. Order matters.
_ZH_NAME = r"(?:中文|汉语|英文|英语)"
_FRAMES: list[tuple[str, str | None, re.Pattern[str]]] = []


# a space, or none where Latin meets Chinese
_SPACE = r"(?:\s+|(?<![a-z0-9'])|(?![a-z0-9]))"
# the end of a Latin word, Chinese after it included: Python's \b counts Chinese characters as
# word characters, so "does" in "what does推理时消融 mean" ended no word and the frame that
# excludes "what does …" let it through
_WORD_EDGE = r"(?:(?<=[a-z0-9_])(?![a-z0-9_])|(?<![a-z0-9_])(?=[a-z0-9_]))"


def _f(intent: str, facet: str | None, pattern: str) -> None:
    # fold() drops the space between Latin and Chinese text ("what's 冷启动's" → "what's冷启动's"):
    # a space in a frame matches none there as well
    pattern = pattern.replace(" ", _SPACE).replace(r"\b", _WORD_EDGE)
    _FRAMES.append((intent, facet, re.compile(pattern)))


# "What's the setup called where prefill and decode share the same chips?", "what's it called when
# all-reduce gets moved onto the SparseCore?": the clause describes the term whose name is asked
_f(
    "which",
    None,
    r"^what(?:'s| is| are) (?:the |it |this |that )?(?:[a-z-]+ ){0,2}called (?:when|where|if|that) (?P<x>.+)$",
)
# names: "它的英文是什么" / "KV cache 的中文名叫什么" / "what's its Chinese name"
_f(
    "definition",
    "names_zh",
    r"^(?P<x>.+?)(?:的|用|在)?(?:中文|汉语)(?:里|中)?(?:名|名字|名称|全称|叫法|术语|翻译)?(?:是什么|是啥|叫什么|怎么说|怎么叫|是)?$",
)
_f(
    "definition",
    "names_en",
    r"^(?P<x>.+?)(?:的|用|在)?(?:英文|英语)(?:里|中)?(?:名|名字|名称|全称|叫法|术语|翻译)?(?:是什么|是啥|叫什么|怎么说|怎么叫|是)?$",
)
_f(
    "definition",
    "names_zh",
    r"^what(?:'s| is) (?P<x>.+?)(?:'s)? (?:chinese|mandarin) (?:name|term|word|label)$",
)
# "What does the glossary say about PyTorch?", "术语表里怎么说 KV cache？": the subject, asked of the sources
_GLOSSARY_WORDS = (
    r"(?:the |your |this |these )?(?:glossary|glossaries|sources?|docs|documentation|references?)"
)
_f(
    "definition",
    None,
    rf"^what (?:does|do) {_GLOSSARY_WORDS} (?:say|have|tell(?: me| us)?|write|mention|contain) "
    r"(?:about|on|of|regarding|concerning) (?P<x>.+)$",
)
_f(
    "definition",
    None,
    r"^(?:what (?:can|could) you tell (?:me|us) about|(?:is there )?anything (?:in "
    rf"{_GLOSSARY_WORDS} )?(?:about|on) |(?:do|does) {_GLOSSARY_WORDS} (?:say|have) anything (?:about|on) )"
    r"\s*(?P<x>.+)$",
)
_f(
    "definition",
    None,
    r"^(?:词表|术语表|词汇表|术语库|资料|来源|文档)(?:里|中|上)?(?:面)?(?:对|关于)?(?P<x>.+?)(?:是)?"
    r"(?:怎么|如何)(?:说|讲|写|描述|介绍|定义)的?$",
)
_f(
    "definition",
    None,
    r"^(?:词表|术语表|词汇表|术语库|资料|来源|文档)(?:里|中|上)?(?:面)?(?:怎么|如何)(?:说|讲|写|描述)(?P<x>.+)$",
)
_f("definition", "names_en", r"^what(?:'s| is) (?P<x>.+?)(?:'s)? english (?:name|term|word|label)$")
_f(
    "definition",
    "names_zh",
    r"^(?:what is|how do you say|how to say) (?P<x>.+?) (?:called )?in (?:chinese|mandarin)$",
)
_f("definition", "names_en", r"^(?:what is|how do you say|how to say) (?P<x>.+?) (?:called )?in english$")
_f("definition", "names", r"^what(?:'s| is| are) (?P<x>.+?)(?:'s)? (?:names|labels|other names|aliases)$")
# "What goes into TCO?", "What makes up X?", "What does X include?": the parts its definition lists
# (before the which frames, which would leave the named X out of the answer)
_f(
    "definition",
    None,
    r"^what (?:goes into|makes up|counts (?:toward|towards|as part of)|is included in|(?:is|are) part of) (?P<x>.+)$",
)
_f("definition", None, r"^what (?:does|do) (?P<x>.+?) (?:include|contain|consist of|cover|comprise)$")
# abbreviations
_f("abbreviation", None, r"^(?P<x>.+?)是(?:什么|啥)的?(?:缩写|简称)")
_f("abbreviation", None, r"^(?P<x>.+?)的?(?:全称|全名|完整名称)(?:是什么|是啥|叫什么)?$")
_f("abbreviation", None, r"^(?P<x>.+?)(?:代表|表示)(?:什么|啥)$")
_f("abbreviation", None, r"^(?P<x>.+?)(?:这几个|这串|这个)?(?:字母|缩写)(?:展开|拆开|全称)(?:是什么|是啥)?$")
_f("abbreviation", None, r"^(?P<x>.+?)(?:拆开|展开|拆开来|展开来)(?:是|叫|写)?(?:什么|啥)$")
_f("abbreviation", None, r"^what does (?P<x>.+?) stand for")
_f("abbreviation", None, r"^what is (?P<x>.+?) (?:short|an abbreviation) for")
_f(
    "abbreviation",
    None,
    r"^what is the (?:full name|full form|expansion|long form|acronym) (?:of|for) (?P<x>.+)$",
)
_f("abbreviation", None, r"^(?:expand|spell out) (?:the )?(?:acronym |abbreviation )?(?P<x>.+)$")
_f("abbreviation", None, r"^(?P<x>.+?) stands? for what$")
# "冷启动具体包括哪些时间", "TCO 都包括哪些成本": what the term's own definition lists
_f(
    "definition",
    None,
    r"^(?P<x>[^,，、]+?)(?:都|具体|主要|一般|通常)*(?:包括|包含|涵盖|囊括)(?:了)?(?:哪些|哪几(?:个|种|类|项|部分)|什么)",
)
# "…比训练完再量化更高…的方法叫什么": a description that asks for a name, whatever it compares
_f(
    "which",
    None,
    r"^(?P<x>.{6,}?)(?:的)?(?:方法|技术|做法|机制|指标|模型|概念|术语|阶段|框架|引擎|格式|方案|东西|现象|结构)"
    r"(?:叫什么名字|叫什么|叫啥|叫做什么|称为什么|是什么名字)$",
)
# comparisons
# "gRPC or WebSocket — which is better for streaming audio?", "which is better, PTQ or QAT?":
# weighing two options is comparing them ("which is faster, X or Y?" asks a fact: a choice)
_WEIGH_EN = r"which(?: one)? (?:is|'s|would be|works) (?:better|best|preferable|recommended|the better (?:choice|option))\b"
_SHOULD_EN = r"which(?: one)? should (?:i|we) (?:use|pick|choose|go with)\b"
_f(
    "comparison",
    None,
    rf"^(?P<a>[^,:;]+?) or (?P<b>[^,:;]+?)\s*[-—–:,?]+\s*(?:{_WEIGH_EN}|{_SHOULD_EN}).*$",
)
_f("comparison", None, rf"^(?:{_WEIGH_EN}|{_SHOULD_EN})[^,:]*[,:]\s*(?P<a>.+?) or (?P<b>.+)$")
# "差在哪", "不同在哪里": where the difference lies is a comparison too
# "内部 TCO 和外部 TCO 为什么会差很多": why two terms differ is a comparison too
_f(
    "comparison",
    None,
    r"^(?P<a>.+?)(?:和|与|跟)(?P<b>.+?)(?:之间)?为什么(?:会)?(?:差(?:很多|这么多|那么多|得多|别这么大|别很大)|"
    r"不一样|不同|差距(?:很|这么|那么)?大)",
)
# "通常比较慢" is "rather slow": 比较 before an adjective is an adverb, not "compare"
_NOT_ADVERB = r"(?!慢|快|高|低|大|小|多|少|重|轻|贵|便宜|长|短|难|容易|好|差|常见|普遍|耗|占|适合|合适|明显|稳定|关键|重要|复杂|简单)"
_CMP_ZH = r"(?:区别|差别|差异|不同|异同|分别|不一样|差在哪|差哪)"
# "和 / 与 / 跟 / 同" joining two sides; 同 only where it is no part of a word (不同, 相同, 同时, 同样)
_AND_ZH = r"(?:和|与|跟|(?<![不相共等如协一])同(?![时样一步类期]))"
_f(
    "comparison",
    None,
    rf"^(?:区分|比较|对比)(?:一下)?(?P<a>.+?)(?:{_AND_ZH}|及)(?P<b>.+?)(?:的{_CMP_ZH})?$",
)
_f(
    "comparison",
    None,
    rf"^(?P<a>.+?)(?:{_AND_ZH}|对比|比较{_NOT_ADVERB}|vs\.?|versus|还是)(?P<b>.+?)(?:之间)?(?:的|有)?(?:什么|啥|哪些|何)?{_CMP_ZH}",
)
_f(
    "comparison",
    None,
    rf"^(?P<a>.+?){_AND_ZH}(?P<b>.+?)(?:是一回事|是一个东西|是(?:不是)?同一[个套种款类回样]|是不是一回事|是不是一个意思|是一个意思|一样|相同|等同|等价)",
)
_f(
    "comparison",
    None,
    # "GPTQ 和 AWQ 该选哪个": weighing two options is comparing them ("哪一个对卡间通信要求更高"
    # asks a fact instead: a choice, kg/chat/references.py)
    rf"^(?P<a>.+?)(?:{_AND_ZH}|还是)(?:普通的?|一般的?)?(?P<b>.+?)(?:相比|比较|对比|比起来|比有|比的|比哪|哪个(?:效果|性能|精度|速度|表现)?(?:好|更)|谁更|怎么选|如何选|"
    r"(?:我|我们)?(?:该|应该|到底|究竟|要)?(?:选|用|挑)(?:哪个|哪一个|谁)(?:好|更好|比较好)?$|"
    r"比[,，]?(?:优缺点|优劣|好在哪|强在哪|差在哪|怎么样|如何|谁|更)|"
    # "它跟片上的 SRAM 比带宽怎么样", "它跟 FP16 比，动态范围哪个大": an aspect between 比 and the question
    r"比[,，]?[^，,。？?]{1,8}?(?:怎么样|如何|谁更|谁高|谁低|谁大|谁小|谁快|谁慢|哪个更|哪个[大小高低快慢强弱好差])|"
    # "线性注意力跟它们比，内存会随对话变长吗？": a clause after "A 跟 B 比，" asks it of both
    r"比[,，])",
)
_f("comparison", None, r"differences? between (?P<a>.+?) and (?P<b>.+?)$")
# "how do B200 and B300 compare on memory?", "how does X compare with Y?"
_f(
    "comparison",
    None,
    r"\bhow (?:do|does|would|did) (?P<a>[^,;:?]+?) (?:and|&) (?P<b>[^,;:?]+?) compare\b.*$",
)
_f(
    "comparison",
    None,
    r"\bhow (?:do|does|would|did) (?P<a>[^,;:?]+?) compare (?:with|to|against) (?P<b>[^,;:?]+?)$",
)
_COMPARATIVE_EN = (
    r"(?:faster|slower|better|worse|cheaper|costlier|bigger|smaller|larger|higher|lower|more \w+|less \w+)"
)
_f(
    "comparison",
    None,
    rf"(?:whether |if )?(?P<a>[^,;:?]+?) (?:is|are|was|runs?|gets?) {_COMPARATIVE_EN} than (?P<b>[^,;:?]+?)(?: for .*| on .*| in .*)?$",
)
# "Is RoCEv2 a better choice than iWARP for moving KV cache?": "is X" opens the question
_f(
    "comparison",
    None,
    rf"^(?:is|are) (?P<a>[^,;:?]+?) (?:an? )?{_COMPARATIVE_EN}(?: choice| option| fit| pick| bet)? than "
    r"(?P<b>[^,;:?]+?)(?: for .*| on .*| in .*| when .*)?$",
)
_f(
    "comparison",
    None,
    r"^(?P<a>.+?)比(?!较|如)(?P<b>.+?)(?:更|要|还)?(?:快|慢|好|差|省|贵|便宜|大|小|高|低|强|弱)",
)
_f(
    "comparison",
    None,
    r"^(?:how )?(?:do|does|is|are) (?P<a>.+?) (?:differ|different|compare|compared|contrast)\w* (?:from|to|with|against) (?P<b>.+)$",
)
# the same in the order of an embedded question ("I wonder how vLLM differs from SGLang")
_f(
    "comparison",
    None,
    r"^how (?P<a>.+?) (?:differs|differ|compares|compare) (?:from|to|with|against) (?P<b>.+)$",
)
_f(
    "comparison",
    None,
    r"^how(?:'s| is| are| does| do) (?P<a>.+?) (?:differ|different|compare|compared|contrast)\w* (?:from|to|with|against) ?(?P<b>.+)$",
)
_f(
    "comparison",
    None,
    r"^(?:is|are) (?P<a>.+?) (?:the same(?: things?)? as|different from|equivalent to|identical to) (?P<b>.+)$",
)
# "Why can a chip's internal TCO be so different from its external TCO?": why two terms differ
_f(
    "comparison",
    None,
    r"^why (?:is|are|can|could|would|does|do|might) (?P<a>.+?) (?:be )?(?:so |that |much |very )?"
    r"(?:different|differ) (?:from|than) (?P<b>.+)$",
)
# "Is that the same Triton NVIDIA uses for serving models?": a pronoun set beside a description
# of a namesake ("the same X as" is the frame above)
_f(
    "comparison",
    "namesake",
    r"^(?:is|are) (?P<a>it|that|this|they|these|those) (?:really |actually |just )?the same "
    r"(?!(?:as|thing|things|one|ones|concept|idea)\b)(?P<b>[a-z0-9].+)$",
)
# "Are ASR and VAD the same thing?", "Are TTFT and TTFB different?"
_f(
    "comparison",
    None,
    r"^(?:is|are) (?P<a>.+?) (?:and|&) (?P<b>.+?),? (?:(?:really |basically |just |actually )?(?:the same|identical|"
    r"equivalent|interchangeable|different|distinct|one and the same)(?: things?| concepts?| ideas?)?)$",
)
_f("comparison", None, r"^compare (?P<a>.+?) (?:and|with|to|against) (?P<b>.+)$")
# "PCIe or SXM GPUs for an inference cluster?": two short alternatives, then what they are for
_f(
    "comparison",
    None,
    r"^(?!(?:is|are|was|were|do|does|did|can|could|should|would|will|it|its|this|that|they|i|we|you)\b)"
    r"(?P<a>[a-z0-9][a-z0-9.+-]*(?: [a-z0-9][a-z0-9.+-]*){0,2}) or "
    r"(?P<b>[a-z0-9][a-z0-9.+-]*(?: [a-z0-9][a-z0-9.+-]*){0,2}?)(?: (?:for|in|on|when|with) .{1,60})?$",
)
# "How does SGLang stack up against MLC-LLM?", "How do TP and PP measure up to each other?"
_f(
    "comparison",
    None,
    r"^(?:how )?(?:do|does|would|will) (?P<a>.+?) (?:stack|measure|hold) up (?:against|to|with) (?P<b>.+)$",
)
_f(
    "comparison",
    None,
    # not "Which TPU network halves the hop count compared to a torus?": a which question that
    # measures its answer against a term asks for a third term
    r"^(?!which\b)(?P<a>.+?)\s*(?:(?<![a-z])vs\.?|(?<![a-z])versus|\bcompared (?:to|with))\s*(?P<b>.+?)(?:\s*[-—–:,]+\s*(?:what|which|how).*)?$",
)
_PLURAL_X = r"(?P<x>它们|这两者|这两个|这三个|这三者|这几个|两者|二者|三者|they|them|these two|the two|both)"
_f("comparison", None, rf"^{_PLURAL_X}(?:之间)?(?:有)?(?:什么|啥|哪些)?{_CMP_ZH}")
_f("comparison", None, rf"^(?:how|in what way) (?:do|are|does) {_PLURAL_X} (?:differ|different|compare)")
_f("comparison", None, rf"^what(?:'s| is| are) the differences? between {_PLURAL_X}$")
# "Compare the two", "compare them for me", "比较一下这两个", "对比下它们": the pair under discussion
_f("comparison", None, rf"^(?:can you |could you |please )?(?:compare|contrast) {_PLURAL_X}(?: for me)?$")
_f("comparison", None, rf"^(?:请|帮我)?(?:比较|对比|比对|比)(?:一下|下)?{_PLURAL_X}$")
_f("relation", None, rf"^{_PLURAL_X}(?:之间)?(?:有|是)?(?:什么|啥|怎样的|何种)(?:关系|联系)")
_f("relation", None, rf"^how (?:are|is) {_PLURAL_X} (?:related|connected|linked)")
_f("relation", None, rf"^what(?:'s| is) the (?:relationship|relation|connection|link) between {_PLURAL_X}$")
# explicit relations
_REL_ZH = r"(?:相关|有关|有联系|相联系|关联|相关联)"
_f(
    "relation",
    None,
    rf"^(?:和|与|跟)(?P<x>.+?){_REL_ZH}的?(?:概念|术语|东西|词|技术|内容)?(?:有哪些|是什么|有什么|都有啥|有啥|有些什么)?$",
)
_f(
    "relation",
    None,
    rf"^(?P<a>.+?){_AND_ZH}(?P<b>.+?)(?:之间)?(?:是|有)?(?:什么|啥|怎样的|怎么样的|何种|哪种)(?:关系|联系)",
)
_f(
    "relation",
    None,
    rf"^(?P<a>.+?){_AND_ZH}(?P<b>.+?)(?:之间)?的?(?:关系|联系)(?:是什么|是啥)?$",
)
_f("relation", None, rf"^(?P<x>.+?)(?:和|与|跟)(?:哪些|什么)(?:概念|术语|东西)?{_REL_ZH}")
_f("relation", None, r"^(?P<x>.+?)的?(?:相关|关联)(?:概念|术语|词)")
# "How do JAX and XLA relate?", "how are JAX and XLA related?": two names, then the verb
_f(
    "relation",
    None,
    r"^how (?:do|are|does|is) (?P<a>.+?) and (?P<b>.+?) (?:relate|related|connect|connected|tie together|"
    r"tied together|fit together|work together|interact|linked)(?: to each other| to one another)?$",
)
_f("relation", None, r"^how (?:is|are) (?P<a>.+?) (?:related|connected|linked) to (?P<b>.+)$")
_f("relation", None, r"^how (?:does|do) (?P<a>.+?) (?:relate|connect|tie in|link) (?:to|with) (?P<b>.+)$")
_f("relation", None, r"^what (?:does|do|has|have) (?P<a>.+?) (?:have |got )?to do with (?P<b>.+)$")
_f(
    "relation",
    None,
    r"^where (?:does|do) (?P<a>.+?) (?:fit|sit|stand) (?:relative to|in relation to|compared (?:to|with)|"
    r"next to|within|among|in) (?P<b>.+)$",
)
_f("relation", None, r"(?:relationship|relation|link|connection) between (?P<a>.+?) and (?P<b>.+)$")
_f(
    "relation",
    None,
    # the possessive is often normalised away before parsing ("what's ring attention relationship to …")
    r"^what(?:'s| is| are) (?P<a>(?!(?:the|its|their|this|that)\b).+?)(?:'s|')? (?:relationship|relation|connection|link) "
    r"(?:to|with) (?P<b>.+)$",
)
_f(
    "relation",
    None,
    r"^(?:what|which)(?: other)?(?: terms?| concepts?| things?| ideas?)? (?:is|are) (?P<x>.+?) (?:related|connected|linked) to$",
)
_f(
    "relation",
    None,
    r"^(?:what|which)(?: other)?(?: terms?| concepts?| things?| ideas?)? (?:is|are) (?:related|connected|linked) to (?P<x>.+)$",
)
_f("relation", None, r"^(?:terms?|concepts?)? ?(?:related|connected|linked) to (?P<x>.+)$")
_f("relation", None, r"^(?P<x>.+?) related (?:terms|concepts)$")
# listings
_LIST_CLASS = (
    r"(?:方法|方式|做法|种类|类型|策略|技术|方案|实现|形式|分类|算法|手段|办法|类别|流派|格式|架构|引擎|框架)"
)
_f("listing", None, r"^(?:常见的?|主要的?|都|一般)?有哪些(?:常见的?|主要的?)?(?P<x>.+?)$")
_f(
    "listing",
    None,
    rf"^(?:常见的?|主要的?)?(?P<x>.+?)(?:都|一般|主要|常见的?)?有哪些(?:常见的?|主要的?)?(?P<cls>{_LIST_CLASS}|常见{_LIST_CLASS})?$",
)
_f("listing", None, r"^(?P<x>.+?)(?:有|分为|包括|分成)(?:几种|哪几种|多少种|几类|哪几类)")
# "TPU 内部有哪些计算部件", "NVIDIA 数据中心 GPU 架构都有哪几代", "图像生成流水线一般由哪几个模型组成":
# the parts, kinds or generations of the term the question opens with
_f(
    "listing",
    None,
    r"^(?P<x>.+?)(?:内部|里面|里|中|之中)?(?:都|一般|主要|通常)?(?:有|由)(?:哪些|哪几(?:个|种|代|类|部分))"
    r"[\u4e00-\u9fff]{0,6}?(?:组成|构成)?$",
)
_f("listing", None, r"^(?:列举|列出|举例)(?:一下)?(?P<x>.+)$")
# "举几个例子？", "Any examples?": a bare request for instances names no class; its subject is the
# term under discussion, as in "有哪些例子？"
_f(
    "listing",
    None,
    r"^(?:能|可以|能不能|可不可以)?(?:再)?(?:举|给|给我举|列)(?:几|一些|些|一两|两三|两)个?(?P<x>例子|实例|示例)(?:吗|呢|看看)?$",
)
_f(
    "listing",
    None,
    r"^(?:(?:can|could) you )?(?:give|show|list) (?:me )?(?:some|a few|more|a couple of) (?P<x>examples)$",
)
_f("listing", None, r"^(?:any|some|more) (?P<x>examples)$")
_f(
    "listing",
    None,
    r"^what (?:kinds?|types?|sorts?|forms?|categor(?:y|ies)|variants?|flavou?rs?) of (?P<x>.+?) "
    r"(?:are there|exist|do we have|(?:can|could|should) (?:i|we) (?:use|pick|choose)|are available|are common)\b.*$",
)
# "What collective ops will I run into …", "What numeric precisions are common for …" (the
# question's plural is often folded to its glossary singular: "are" still says it is a class)
_f(
    "listing",
    None,
    r"^what (?P<x>(?:[a-z0-9.+/-]+ ){0,3}[a-z0-9.+/-]+s) (?:will|would|do|should) (?:i|we) "
    r"(?:run into|come across|encounter|see|meet|need to know)\b.*$",
)
_f(
    "listing",
    None,
    r"^what (?P<x>(?:[a-z0-9.+/-]+ ){0,3}[a-z0-9.+/-]+) are (?:commonly |typically |usually |most )?"
    r"(?:used|common|popular|available|standard)\b.*$",
)
# "What NVIDIA data-center GPU generations does the glossary list?"
_f(
    "listing",
    None,
    r"^(?:what|which) (?P<x>.+?) (?:does|do) (?:the|this|your) glossary (?:list|cover|include|mention|define|have)$",
)
# "Which CPUs are in the glossary?", "What engines are covered by the glossary?", "词表里有哪些 GPU？"
_f(
    "listing",
    None,
    # (normalising has often made the plural singular: "which cpu are in the glossary")
    r"^(?:what|which) (?P<x>(?:[a-z0-9.+/-]+ ){0,3}[a-z0-9.+/-]+) are (?:there )?(?:in|covered by|listed in|defined in) "
    r"(?:the|this|your) glossary$",
)
_f("listing", None, r"^(?:词表|术语表|这个词表|你的词表)(?:里|中|里面)(?:都)?有哪些(?P<x>.+?)$")
# "What are the main parts of an image generation pipeline?", "Which strategies does model
# parallelism cover?": the parts or kinds of the term named
_f(
    "listing",
    None,
    r"^what are (?:the )?(?:main |key |major |different )?(?:compute |hardware |processing )?(?:parts|components|stages|pieces|"
    r"building blocks|units|blocks) (?:of|in|inside) (?P<x>.+)$",
)
_f(
    "listing",
    None,
    r"^(?:which|what) (?:\w+ )?(?:strateg(?:y|ies)|methods?|techniques?|approaches|types?|kinds?|variants?|"
    r"parts?|components?|forms?) (?:does|do) (?P<x>.+?) (?:cover|include|have|contain|comprise|come in)$",
)
_f(
    "listing",
    None,
    r"^what (?P<x>.+?) (?:methods|strategies|techniques|approaches|types|kinds|variants|schemes|options|families|formats|engines|frameworks|algorithms) (?:are there|exist|are available|are common|do you know)$",
)
_f(
    "listing",
    None,
    r"^what are (?:the )?(?:main |common |some |different |popular )?(?:kinds|types|sorts|forms|variants) of (?P<x>.+)$",
)
# "What are the common methods?", "What are some representative techniques?": a bare class word
# (the term under discussion's kinds, see asks_bare_examples)
_f(
    "listing",
    None,
    r"^what are (?P<x>(?:the |some |a few )?(?:(?:main|common|typical|representative|usual|key|major|popular)\s+)*"
    r"(?:methods|techniques|approaches|types|kinds|variants|examples|options|strategies|algorithms|formats))$",
)
# "What collective communication ops are there for multi-GPU?", "Which attention variants are
# there?": the members of the class named before "are there"
_f(
    "listing",
    None,
    r"^(?:what|which) (?P<x>(?:[a-z0-9.+/-]+ ){0,4}[a-z0-9.+/-]+) are there\b.*$",
)
_f("listing", None, r"^(?:list|name|enumerate)(?: all| the| some| common)? (?P<x>.+)$")
# "Which PTQ algorithms are commonly used?", "Which latency metrics should I track?": the members
# of a class, asked by their use (one, "Which library gives you …", is a which question)
_f(
    "listing",
    None,
    r"^(?:which|what) (?P<x>(?:[a-z0-9.+/-]+ ){0,3}[a-z0-9.+/-]+s) (?:are (?:commonly |typically |usually |most )?"
    r"(?:used|common|popular|available|standard)|should (?:i|we) (?:track|use|know|monitor|watch|consider)|"
    r"do (?:people|teams|engines) (?:use|track))\b.*$",
)
_f(
    "listing",
    None,
    r"^what (?:\w+ )?(?:units|parts|components|blocks|cores|pieces) (?:does|do) (?P<x>.+?) (?:have|contain|include)$",
)
_f(
    "listing",
    None,
    r"^what (?:are )?(?:some )?(?:representative |common |popular |typical )?(?:methods|techniques|approaches|examples|variants|implementations) (?:for|of) (?P<x>.+)$",
)
# "MoE models - what's the deal with them?", "what's the story with RoPE?": what the subject is
_f("definition", None, r"^what(?:'s| is) (?:the )?(?:deal|story|thing|idea) (?:with|behind) (?P<x>.+)$")
# which: the question describes a role and asks for the term that plays it
_WHICH_ZH = r"(?:哪个|哪种|哪一个|哪一种|哪款|哪一款|哪类|哪一类|哪项|哪家|哪套|哪条|哪一?代|哪一?层|哪一?步|哪一?级|哪一?版)"
#: A question that asks for the name of what it describes: "What do you call …", "Is there a term for …".
_NAMING_LEAD = re.compile(
    r"^what (?:do you|do we|do people|does one) call\b|^(?:is there a|what is the|what's the) (?:term|name|word) for\b"
)
_WHICH_EN_NOUN = (
    r"(?:technique|method|mechanism|engine|framework|library|chip|metric|format|protocol|tool|approach|"
    r"algorithm|component|unit|standard|process|feature|trick|strategy|term|concept|phase|stage|"
    r"architecture|model|runtime|compiler|kernel|interconnect|network|benchmark|memory|cache|scheme|"
    r"optimization|optimisation|parallelism|technology|layer|platform|system|product|service|cpu|gpu)s?"
)
_f("which", None, rf"^(?P<x>.*{_WHICH_ZH}.*)$")
_f(
    "which",
    None,
    r"^(?P<x>.+?)(?:叫什么名字|叫什么|叫啥|叫做什么|称为什么|是什么名字|有专门的(?:名字|术语|说法)吗?)$",
)
_f("which", None, r"^(?P<x>.*(?:那种|那个|那类|那一种|那款|那套|那项).+?)(?:是什么|是啥|指什么)$")
_f("which", None, r"^(?:用|靠|拿|有)什么(?P<x>.+)$")
# "它的检索层一般用什么来存向量？", "TPU 上手写 kernel 一般用什么？": the tool that does it (not "用什么
# 办法", a remedy, nor "靠什么信息", how it works)
_f(
    "which",
    None,
    r"^(?P<x>.+?(?:用|靠|借助|依靠|依赖|使用)(?:的是)?(?:什么|啥)(?!办法|方法|手段|方式|思路|技巧|策略|形式|单位|信息|原理|思想|理论|依据).*)$",
)
# "跨节点的流量一般走什么网络？", "它跑在什么芯片上？": the route or base something takes, a term
_f("which", None, r"^(?P<x>.+?(?:走|跑在|经过|通过|基于)(?:的是)?(?:什么|啥)(?!办法|方法|手段|方式|原理).*)$")
_f("which", None, r"^which\b(?P<x>.+)$")
_f("which", None, r"^what (?:kind|type|sort)s? of (?P<x>.+)$")
_f(
    "which",
    None,
    # "what technique fixes …", "what's the metric for …" — not "what is cache-aware routing" or
    # "what is model parallelism", where the noun opens a name: with a verb, the article is needed
    rf"^what(?:(?:'s| is| are) (?:the |a |an )| )(?:name (?:of|for) (?:the )?|term for (?:the )?)?"
    # not "what's a GPU's SFU for?" (normalised "what's a gpu sfu for?"): the noun owns the name
    # after it, and the question asks what that name is for
    # nor "what's a GPU node, typically?": the noun and the one word after it are the subject's name
    rf"{_WHICH_EN_NOUN}\b(?!\s+[\w-]+\s+for\s*[?.!]*$)(?!\s+[a-z][\w-]*\s*(?:,\s*[a-z]+(?:\s[a-z]+)*)?[?.!]*$)(?P<x>.+)$",
)
_f("which", None, r"^what (?:do you|do we|do people|does one) call (?P<x>.+)$")
_f("which", None, r"^(?:is there a|what is the|what's the) (?:term|name|word) for (?P<x>.+)$")
_f("which", None, r"^(?P<x>.+?) (?:is|are) called what$")
_f("which", None, r"^what(?:'s| is| are) (?:the )?(?P<x>.+?) called$")
_f("which", None, r"^(?P<x>.+\bwhich\b.+)$")
# descriptions that ask for the term playing a role, with no "which" in them: "what connects the
# nodes to each other?", "And the variant that only pools host memory?", "那专门做矩阵乘加的那块呢？",
# "有没有只用主机内存的类似做法？"
_f(
    "which",
    None,
    r"^what (?!(?:is|are|was|were|does|do|did|about|if|else|happens|happened|means|meant|makes|made|causes|caused|"
    r"would|should|could|can|will|kind|type|sort|kinds|types|counts|count)\b)(?P<x>[a-z][a-z-]*(?:s|ed) .+)$",
)
_f(
    "which",
    None,
    r"^what (?:was|is|were|are) the (?P<x>(?:default|usual|standard|typical|original|previous|older|earlier|newer|"
    r"alternative|replacement|successor|predecessor) .+)$",
)
# "what's the smallest unit of execution on a GPU?", "What's the biggest TPU unit hooked up to it?":
# a superlative picks one term out of a kind (a name after it is a comparison's other side, not the
# answer: "even smaller than a warp")
_f(
    "which",
    None,
    r"^what(?:'s| is| are| was| were) the (?P<x>(?:smallest|largest|biggest|fastest|slowest|cheapest|"
    r"highest|lowest|newest|oldest|latest|earliest|simplest|shortest|longest|closest|nearest|"
    r"(?:most|least) [a-z-]+) [a-z].+)$",
)
# "What is eating all my GPU memory …?", "What's slowing down my decode?", "到底是啥在占显存？": the
# asker describes what something does to a term and asks for the doer — not "What is batching in
# vLLM?", a gerund name (a participle here takes an object: a determiner follows it)
_f(
    "which",
    None,
    r"^what(?:'s| is| are) (?P<x>[a-z]+ing (?:(?:up|down|out|away|off|through|into) )?"
    r"(?:all|my|our|the|so|this|that|your|these|those|most|much|its|their)\b.*)$",
)
_f(
    "which",
    None,
    r"^(?P<x>(?:.*[，,；;]\s*)?(?:到底|究竟)?(?:是)?(?:啥|什么东西|什么)(?:在|会|一直在)?"
    r"(?:占|占用|吃|吃掉|拖慢|拖累|卡住|卡着|消耗|耗掉|主导|限制).+)$",
)
_f(
    "which",
    None,
    r"^the (?P<x>(?:[a-z0-9-]+ ){0,4}?[a-z0-9-]+ (?:that|which|who|where|it|its|they|their|in the|of the|for the|"
    r"on the|inside|behind|used|using|between|before|after)\b.*)$",
)
# how / why
_f(
    "definition",
    "measure",
    r"^(?P<x>.+?)(?:这个指标|这个量)?(?:是)?(?:怎么算|怎么计算|如何计算|怎么衡量|如何衡量|怎么测|怎么测量|如何测量)的?",
)
_f(
    "definition",
    "measure",
    r"^how (?:is|are|do you|do we|to) (?P<x>.+?) (?:measured|calculated|computed|defined|measure|calculate|compute|define)$",
)
_f("definition", "measure", r"^what does (?P<x>.+?) (?:measure|quantify|count)$")
# "In speculative decoding, what role does the small draft model play?": the role of the term the
# question asks about, not of the setting it names first
_f(
    "definition",
    None,
    r"^(?:in [^,，]+[,，]\s*)?what (?:role|part|job|function) (?:does|do) (?P<x>.+?) (?:play|serve|have|do)"
    r"(?:\s+(?:in|for|within|during)\s+.+)?$",
)
_f("howto_why", None, r"^(?P<x>.+?)(?:为什么|为何|为啥)(?P<rest>.*)$")
_f("howto_why", None, r"^(?:为什么|为何|为啥)(?P<x>.+)$")
_f(
    "howto_why",
    None,
    r"^(?:怎么|怎样|如何|咋|怎么样才能|有什么办法|有哪些办法|有什么方法)(?:才能|可以|能)?(?P<x>.+)$",
)
# "分页注意力是怎么工作的？", "稀疏注意力是如何实现的？": how the term works
_f("howto_why", None, r"^(?P<x>.+?)(?:是)?(?:怎么|怎样|如何)(?:工作|运作|运行|实现|做到)的?(?:呢|啊)?$")
_f(
    "howto_why",
    None,
    r"^(?P<x>.+?)(?:怎么|怎样|如何)(?:降低|减少|提高|提升|优化|避免|解决|缓解|加速|改善|做|用|配置|调|"
    r"省掉|省去|去掉|消除|减轻|绕过|规避|节省|防止|应对|处理|搞定|补救|弥补|找回|"
    r"降下来|降下去|压下来|压低|缩短|减小|加快|改进)",
)
# "激活里异常值太多、不好量化，有什么办法？": a remedy asked for after the problem
_f(
    "howto_why",
    None,
    r"^(?P<x>.+?)[,，]?(?:有什么|有啥|有哪些|有没有)(?:好的?|现成的?|常见的?)?(?:办法|方法|手段|解决方案|解决办法|方案|思路|招)",
)
_f("howto_why", None, r"^(?P<x>.+?)(?:的原因|的好处|有什么好处|有什么用|有啥用|的作用|起什么作用)")
_f("howto_why", None, r"^why (?:is|are|does|do|did|would|should|can|could|will) (?P<x>.+)$")
_f("howto_why", None, r"^why (?P<x>.+)$")
# "Long prompts give me terrible TTFT, why?": the question word after the complaint
_f(
    "howto_why",
    None,
    r"^(?P<x>.+?)\s*[,，:：-]+\s*(?:but )?(?:why|how come)(?: is that| so| though)?\s*[?？]*$",
)
_f("howto_why", None, r"^how (?:can|do|could|should|would|to|does|did|is|are|much|many) (?P<x>.+)$")
_f("howto_why", None, r"^(?:is|are|does|do|can|should|will|would) (?P<x>.+)$")
# definitions
_f(
    "definition",
    None,
    r"^(?:解释一下|介绍一下|解释|介绍|说说|讲讲|说一下|讲一下|什么是|啥是|何为|何谓|什么叫|什么叫做)(?P<x>.+)$",
)
_f(
    "definition",
    None,
    r"^(?P<x>.+?)(?:又|还|到底|究竟)?(?:是什么意思|什么意思|的意思是什么|的意思|是什么东西|是什么|是啥|是指什么|指什么|指的是什么|"
    r"是在干什么|在干什么|是在干嘛|在做什么|是在做什么|在干嘛|是干什么的|是干什么用的|是干嘛的|是干嘛用的|是做什么的|是干啥的|是做什么用的|干什么用的|是怎么定义的|怎么定义|如何定义|"
    r"的定义是什么|的定义|是个啥|是何物|怎么理解|如何理解)",
)
# "What does DVFS do to inference latency?": what the subject does; the object is its setting
_f("definition", None, r"^what (?:does|do|did) (?P<x>.+?) do (?:to|for|with|about) .+$")
_f(
    "definition",
    None,
    r"^(?:what is|what's|whats|what are|who is|define|definition of|meaning of|explain|describe|tell me about|"
    r"what do you know about|what do you mean by|what does) (?P<x>.+?)(?: (?:mean|means|do|does|called|refer to|refers to))?$",
)

# last, when no other frame matched: a Chinese description that ends in 的 ("那专门做矩阵乘加的那块呢"),
# or asks whether there is a method ("有没有只用主机内存的类似做法")
_f(
    "which",
    None,
    r"^(?!.*(?:是|怎么|怎样|如何|为什么|为啥|干嘛|干什么|什么|哪))(?P<x>[^,，]{2,}?的(?:那个|那块|那种|那一种|那部分|那层|那款|那类|那一个|那套|那项)?)$",
)
_f(
    "which",
    None,
    r"^(?!.*(?:是|怎么|怎样|如何|为什么|为啥|干嘛|干什么|什么|哪))(?P<x>.*的(?:那种|那个|那类|那款|那套|那项|那块)[\u4e00-\u9fffa-z0-9\s-]{1,8})$",
)
_f(
    "which",
    None,
    r"^有没有(?P<x>.+?)(?:的)?(?:类似|现成)?的?(?:做法|方案|办法|工具|技术|实现|库|框架|方法|机制|格式|指标)$",
)
# an elliptical follow-up that describes the term it asks for: "And the one known for RadixAttention?",
# "And one that compresses the model's notes on past tokens instead?", "只压权重、激活保持高精度的做法呢",
# "那做逐元素运算、算 softmax 的部件呢" — the term the description fits, like "the variant that …"
_f(
    "which",
    None,
    r"^(?:(?:and|also|what about|how about|then)\s+)?(?:the\s+)?(?P<x>(?:one|ones|version|kind|type|thing|"
    r"counterpart|equivalent)\s+(?:that|which|who|whose|known|used|computed|built|made|called|designed|meant|"
    r"from|with|for)\b.+)$",
)
_f(
    "which",
    None,
    r"^(?!.*(?:是|怎么|怎样|如何|为什么|为啥|干嘛|干什么|什么|哪|吗|这样|这种|这个|那个|需要|别的|还有|能不能|可以))"
    r"(?P<x>[^,，]{2,}?的(?:做法|方法|部件|组件|单元|指标|格式|库|技术|机制|协议|原语|芯片|模型|东西|引擎|框架|工具|平台))$",
)

_REL_CONTEXT = re.compile(
    r"对应|对标|起家|组成|基于|依赖|属于|配合|搭配|构成|"
    r"(?:哪个|哪种|哪些|哪一个|哪一种|什么)(?:\w{0,3})(?:引擎|机制|芯片|指标|阶段|实现|技术|方法|标准|架构|协议|通信|框架|硬件|单元|组件|模型|库)|"
    r"\b(?:counterpart|equivalent|alternative|specific to|based on|built on|consists? of|made of|composed of|made up of|"
    r"components?|part of|belongs? to|used (?:by|in|with)|implementation|implemented|which (?:\w+ )?(?:engine|phase|stage|metric|"
    r"model|architecture|mechanism|chip|unit|standard|library|framework|protocol|hardware)|related to)\b"
)


_WHICH_RELATION = re.compile(
    r"属于|对应|组成|构成|依赖|采用|用在|在用|用于|搭配|配合|基于|包含|包括|用到|支持|"
    r"\b(?:tied to|depends? on|adopted|belongs? to|part of|consists? of|made of|made up of|used (?:by|in|with)|"
    r"relies on|fits? (?:relative|into)|supports?|includes?|contains?|specific to|designed for|built for|meant for|"
    r"intended for|tailored (?:to|for))\b"
)


# "Which CPU does it bundle?", "What block size does it use?", "Which engines use the second
# one?": the pronoun's term is the subject or object of the verb, so its own definition answers
# (not "What is its prefix-cache technique called?", which asks for the part, nor "Which
# collective does it use to combine the results?", whose purpose clause describes the answer)
_WHICH_ABOUT_PRONOUN = re.compile(
    r"^(?:which|what) (?:[a-z0-9-]+ ){1,3}(?:does|did|do|is|was|are|were) (?:it|this|that|they|the (?:\w+ )?one) "
    r"[a-z-]+(?: (?:into|for|on|with|in|to|by|from|under the hood))?\s*$"
    r"|^which (?:[a-z0-9-]+ ){1,2}(?:use|uses|support|supports|adopt|adopts|run|runs|ship|ships) "
    r"(?:it|them|this|that|the (?:\w+ )?one)\s*$"
)


# A question with no frame that asks for an entity: an English wh-word opening it (not "what is it",
# "what does it mean"), or a Chinese one ending it
_ASKS_FOR_ANOTHER = re.compile(
    # not when the pronoun is the subject ("What artifact does it produce …?", "What operation is
    # the first one about?"): that asks for the pronoun's term's own facts
    r"^(?:and |so |ok |then )?(?!what about\b|what of\b|what if\b)(?:what|which|who|where)\b"
    r"(?!(?:\s+[a-z0-9-]+){0,3}\s+(?:is|was|are|were|does|did|do)\s+(?:it|this|that|they|the (?:[a-z]+ )?one)\b)"
    r"|(?:相当于|对应|对标)[^，,。？?]*(?:啥|什么|哪个|哪款|哪家)$"
    # "它有开源实现吗？", "它有没有现成的库？": whether a term of that kind exists for it is a
    # question for that term
    r"|^(?:那)?(?:它|它们)(?:有没有|有)[^，,。？?]{0,6}(?:实现|替代品?|版本|工具|库|框架|方案|产品)(?:吗|么|嘛|没有)?$"
)
# a definition slot in which the pronoun is the object of a preposition or of a participle
# ("the biggest TPU unit hooked up to it", "the other INT4 method besides it", "it usually paired with")
_PRONOUN_IN_DESCRIPTION = re.compile(
    r"[a-z]\s+(?:to|with|besides|than|from|on|against|by|into|onto|alongside|beside|after|before)\s+"
    r"(?:(?:it|them)\b|(?:this|that)(?=\s*$|\s*[?.!,;:]|\s+(?:in|on|at|for|to|with|by|from)\b))"
    r"|^(?:it|they|this|that)\s+(?:usually\s+|often\s+|typically\s+|normally\s+|commonly\s+)?[a-z]+ed\s+(?:with|to|by|against)\b"
)

# a lead that names the term the rest of the question is about, then a break
_REFERENT_LEAD = re.compile(
    r"^(?:and |so |ok |now |what about )?(?:the (?:first|second|third|fourth|fifth|last|other|latter|former)(?: one)?"
    r"|前者|后者|那?第[一二三四五12345](?:个|种)|那?另一(?:个|种))\s*(?:[—–:：,，]+|\s-\s)"
)
_AFTER_PREPOSITION = re.compile(
    r"\b(?:on|around|in|with|by|from|into|onto|upon|for|to|of|over|under|behind|after)\s+(?:it|them|this)\s*$"
)


LIST_CLASS_TAIL = re.compile(
    r"(?:的)?(?:常见|主要|典型)?(?:的)?(?:方法|方式|做法|种类|类型|策略|技术|方案|实现|形式|分类|算法|手段|办法|类别|流派|"
    r"例子|示例|代表|产品)$|"
    r"(?:^|\s+)(?:methods?|strategies|strategy|techniques?|approaches|types?|kinds?|variants?|schemes?|options?|families|"
    r"formats?|algorithms?|examples?)$"
)


_SENTENCE_END = re.compile(r"[?？](?=.)")
_CLAUSE_SPLIT = re.compile(
    # "… changes with the batch size. How do engines pick the best one?": a statement, then the question
    r"\.\s+(?=(?:how|what|which|why|where|when|is|are|does|do|can|could|should|would|any)\b)|"
    r"[:：;；]\s*|\s+[—–-]{1,2}\s+|——|[,，]\s*(?=(?:一般|通常|那么|那|到底|究竟|应该|又|还|我该|该)?(?:how|what|which|why|is|does|do|can|怎么|为什么|哪|是不是|有没有|这玩意|这东西|它))"
)


_DASH = re.compile(r"\s+[—–-]{1,2}\s+|——")


def _short_lead(lead: str, rest: str) -> bool:
    """A lead of at most three words and a rest with no pronoun to point back at it."""
    return len(lead.split()) <= 3 and not find_pronouns(rest)


def _body(folded: str) -> tuple[int, int]:
    start = 0
    m = _LEAD.match(folded)
    if m:
        start = m.end()
    end = len(folded)
    t = _TRAIL.search(folded, start)
    if t:
        end = t.start()
    p = _POLITE_END.search(folded, start, end)
    if p and p.start() > start:
        end = p.start()
        t = _TRAIL.search(folded, start, end)
        end = t.start() if t else end
    f = _ZH_FILLER_END.search(folded[start:end])
    if f:
        end = start + f.start()
    return start, max(start, end)


_ZH_CLAUSE = re.compile(r"[,;:，；：…]+\s*|\.{2,}\s*")


def _trim_slot(text: str, start: int, last: bool = False) -> Slot | None:
    """Cut a slot at the first clause boundary; drop articles, fillers and edge punctuation.

    With *last* (a Chinese subject before its frame: "……被古德哈特定律坑了……这条定律到底讲的是什么"),
    the subject is the last clause, the others are context."""
    if last and has_cjk(text):
        cuts = [m.end() for m in _ZH_CLAUSE.finditer(text) if text[m.end() :].strip()]
        if cuts:
            text, start = text[cuts[-1] :], start + cuts[-1]
    elif last:
        # "and NVIDIA's template libs, CUTLASS vs CuTe?": the side touching the connector
        cut = text.rfind(",")
        if cut >= 0 and text[cut + 1 :].strip():
            text, start = text[cut + 1 :], start + cut + 1
    m = _CLAUSE.search(text)
    if m:
        text = text[: m.start()]
    lead = len(text) - len(text.lstrip(" \"'“”‘’「」`《》<>"))
    text = text[lead:]
    start += lead
    a = _ARTICLE.match(text)
    if a:
        start += a.end()
        text = text[a.end() :]
    text = text.rstrip(" \"'“”‘’「」`《》<>?？.。!！")
    manner = _MANNER_END.search(text)
    if manner and manner.start() > 0:
        text = text[: manner.start()].rstrip(" ,，")
    f = _ZH_FILLER_END.search(text)
    if f:
        text = text[: f.start()]
    adverb = _ZH_ADVERB_END.search(text)
    if adverb:
        text = text[: adverb.start()]
    if not text.strip():
        return None
    return Slot(text, start, start + len(text))


def parse(question: str) -> Parsed:
    """Intent, slots and pronouns of *question* (no graph needed)."""
    folded = fold(question)
    s, e = _body(folded)
    body = folded[s:e]
    # a pronoun inside the opener ("back to it —") points at nothing the body asks about
    pronouns = [p for p in find_pronouns(folded) if p.start >= s] if s else find_pronouns(folded)
    parsed = Parsed(question, folded, "unknown", pronouns=pronouns)
    parsed.body = Slot(body, s, e) if body else None
    has_pronoun = bool(parsed.pronouns)
    for intent, facet, rx in _FRAMES:
        m = rx.search(body)
        if m is None:
            continue
        slots: list[Slot] = []
        for g in ("a", "b", "x"):
            if g in rx.groupindex and m.group(g):
                # a subject before its frame is the last clause ("……这条定律到底讲的是什么");
                # a "which" description keeps its first ("每个请求先查缓存，…，这个叫什么")
                # so is a comparison's first side ("想把权重压到 INT4，GPTQ 和 AWQ 该选哪个")
                last = (
                    intent != "which"
                    and m.start(g) == 0
                    and (g == "a" or (g == "x" and m.end(g) < len(body)))
                )
                slot = _trim_slot(m.group(g), s + m.start(g), last or (intent == "comparison" and g == "a"))
                if slot is not None:
                    slots.append(slot)
        if not slots:
            continue
        if (
            intent in ("howto_why", "definition")
            and facet is None
            and has_pronoun
            and _REL_CONTEXT.search(body)
        ):
            # "它靠哪种集合通信…", "What is its NVIDIA counterpart?": a relation to the term under discussion
            intent = "relation"
        if (
            intent == "definition"
            and facet is None
            and any(_PRONOUN_IN_DESCRIPTION.search(x.text) for x in slots)
        ):
            # "What's the biggest TPU unit hooked up to it?", "What's it usually paired with …?": the
            # slot describes another term through the pronoun's
            intent = "which"
        if intent in ("relation", "listing") and has_pronoun and "哪些" in body:
            # "哪些引擎已经用上它了？": the answer is the engines, not the term under discussion
            intent = "which"
        elif (
            intent == "which"
            and (_WHICH_RELATION.search(body) or _WHICH_ABOUT_PRONOUN.search(body))
            and not any(p.ref == "both" for p in parsed.pronouns)
            # "What do you call switching off part of a model to measure how much it relies on
            # that part?": a description asking for a name; its pronouns point inside it
            and not _NAMING_LEAD.match(body)
        ):
            # "AWQ 属于哪一类量化方法", "Which engines have adopted FlashInfer?": about the named term
            # — not "它们俩都属于哪一类量化？": what two terms share is another term
            intent = "relation"
        elif intent == "which" and _REFERENT_LEAD.match(folded) and not _AFTER_PREPOSITION.search(body):
            # "And the second one — which low-precision format did it bring?": the lead sets the
            # subject and the question asks about it ("… which kernel family is built on it?"
            # asks for another term)
            intent = "relation"
        parsed.intent, parsed.facet, parsed.slots, parsed.matched = intent, facet, slots, True
        return parsed
    # "冷启动具体包括哪些时间？我们 scale-to-zero 之后第一个请求特别慢。": the question is one sentence
    # of several; the others give context
    for m in _SENTENCE_END.finditer(body):
        if m.end() >= len(body):
            continue
        sentence = parse(folded[s : s + m.start() + 1])
        if sentence.matched:
            parsed.intent, parsed.facet = sentence.intent, sentence.facet
            parsed.slots, parsed.matched = sentence.slots, True
            parsed.pronouns = [p for p in parsed.pronouns if p.start < s + m.end()] or parsed.pronouns
            return parsed
    # "Back to that metric: how does it differ from plain throughput?": a lead-in clause hides the
    # frame of the question proper; try the clauses after a break, last first
    for m in reversed(list(_CLAUSE_SPLIT.finditer(body))):
        if _DASH.fullmatch(m.group(0)) and _short_lead(body[: m.start()], body[m.end() :]):
            # "And FLOPS - is the peak figure what I'll actually get?": a bare name before the
            # dash is the subject of what follows, not a lead-in to drop
            continue
        sub = parse(folded[s + m.end() : e]) if m.end() < len(body) else None
        if sub is not None and sub.matched:
            shift = s + m.end()
            sub.slots = [Slot(x.text, x.start + shift, x.end + shift) for x in sub.slots]
            intent = sub.intent
            if intent == "which" and _REFERENT_LEAD.match(folded) and not _AFTER_PREPOSITION.search(body):
                intent = "relation"  # "And the first one — what memory bandwidth does it have?": see above
            parsed.intent, parsed.facet, parsed.slots, parsed.matched = intent, sub.facet, sub.slots, True
            return parsed
    if parsed.body is not None:
        if has_pronoun and "哪些" in body:
            parsed.intent = "which"  # "哪些引擎已经用上它了？"
        elif has_pronoun and _REL_CONTEXT.search(body):
            parsed.intent = "relation"
        elif has_pronoun and _ASKS_FOR_ANOTHER.search(body):
            # "What replaced it for LLMs?", "Who tells it what to run?", "它相当于 NVIDIA 那边的啥？":
            # a question for a term the pronoun's term is linked to
            parsed.intent = "which"
        parsed.slots = [parsed.body]
    return parsed
