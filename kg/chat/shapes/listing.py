"""The listing shape: the central term of a class ("量化", "parallelism") and its kinds."""

from __future__ import annotations

import re

from kg.chat.compose import Composer, member_part, quote_key, t
from kg.chat.context import Ctx
from kg.chat.genus import kinds_of
from kg.chat.intents import LIST_CLASS_TAIL, Slot, asks_bare_examples
from kg.chat.linking import joint_line
from kg.chat.model import Answer, ConversationState
from kg.chat.references import pronoun_in
from kg.chat.shapes.common import finish, refuse
from kg.chat.shapes.members import examples_of
from kg.model import Definition
from kg.search.chargrams import char_tokens
from kg.textnorm import fold, has_cjk


def listing(ctx: Ctx) -> Answer:
    g = ctx.glossary
    slot = ctx.parsed.slots[0] if ctx.parsed.slots else None
    if slot is None:
        return refuse(ctx)
    central: str | None = None
    head_text = slot.text
    if pronoun_in(ctx, slot) and ctx.referent:
        central = ctx.referent
        ctx.linked_by = "context"
    else:
        head_text = LIST_CLASS_TAIL.sub("", slot.text).strip() or slot.text
        head_slot = Slot(head_text, slot.start, slot.start + len(head_text))
        exact = ctx.linker.engine.matcher.exact(head_text)
        if exact:
            central, ctx.linked_by = exact[0].term_id, "exact"
        elif (spans := ctx.linker.spans_in(ctx.analysis, head_slot)) and (
            kinds_of := next((sp for sp in spans if _KINDS_AFTER.match(ctx.parsed.folded, sp.end)), None)
        ):
            # "有哪些注意力的变体能让 KV cache 变小": the kinds of the name before "的变体", what
            # follows only narrows them (KV cache is no class here)
            central, ctx.linked_by = kinds_of.term_id, "mention"
        elif spans and not ctx.linker.unknown_in(ctx.analysis, head_slot):
            # the head noun ends the class phrase: "LLM 推理引擎" lists inference engines, not LLMs
            central, ctx.linked_by = max(spans, key=lambda sp: (sp.end, -sp.start)).term_id, "mention"
    bare = not LIST_CLASS_TAIL.sub("", slot.text).strip() or asks_bare_examples(ctx.parsed)
    if central is None and bare and ctx.state and ctx.state.topic:
        # "有哪些常见的例子？" after a question about inference engines, "有哪些代表方法？" after
        # questions about speculative decoding: kinds of what the conversation is about
        central, ctx.linked_by, head_text = _conversation_subject(ctx, ctx.state), "context", ""
    named = _named_like(ctx, head_text, central)
    if central is None and named:
        # the hub: the named term related to most of the others ("Model parallelism (overview)"
        # names TP, EP and PP); a contrast (TP confused_with PP) sets two kinds side by side and
        # makes neither the class
        ranks = {h.term_id: i for i, h in enumerate(ctx.linker.search(head_text).hits)}
        pool = set(named)
        central = min(
            named,
            key=lambda tid: (
                -len(set(g.neighbours(tid, ("related_to",))) & pool),
                ranks.get(tid, 10_000),
                tid,
            ),
        )
        ctx.linked_by = "listing"
        named = [n for n in named if n != central]
    if (
        central is None
        and not named
        and head_text
        and ctx.analysis.spans
        and not ctx.linker.spans_in(ctx.analysis, slot)
    ):
        # "What collective ops will I run into in distributed inference?": the class phrase names
        # no term; a search for it alone finds its central term, where one for the whole question
        # would follow the other names in it (inference)
        hits = ctx.linker.search(head_text).hits
        if hits:
            central, ctx.linked_by = hits[0].term_id, "search"
    if central is None and ctx.decision is not None and ctx.decision.candidate:
        # "模型并行有哪几种方式": no name for the class, but the search found its central term
        central, ctx.linked_by = ctx.decision.candidate, "search"
    if central is None:
        return refuse(ctx)
    group = _joint_group(ctx, central)[0] if ctx.linked_by in ("search", "listing") else []
    if ctx.linked_by == "mention" and ctx.decision is not None and ctx.decision.candidate:
        # "NVIDIA 数据中心 GPU 架构都有哪几代": the class phrase only contains a name (GPU); a line
        # defining its kinds together whose shared words say the rest of the phrase ("NVIDIA
        # 三代数据中心 GPU 微架构") is the class asked for
        joint, text = _joint_group(ctx, ctx.decision.candidate)
        if joint and central not in joint:
            rest = _keys(head_text) - _keys(" ".join(g.terms[central].all_names()))
            own = " ".join(d.text for d in g.terms[central].definitions)
            if rest and len(rest & _keys(text)) > max(len(rest) // 2, len(rest & _keys(own))):
                group = joint
    if group:
        # "常见的集合通信原语有哪几种": no term is the class, and the one found belongs to a line
        # that defines its kinds together ("AllReduce / AllGather / All-to-All …"): that line's
        # members, in its order
        central = group[0]
    ctx.focus = [central]
    members = _members(ctx, central, named, head_text if not pronoun_in(ctx, slot) else "")
    if group:
        members = [*group[1:], *(m for m in members if m not in group)]
    c = Composer(g, ctx.lang)
    c.add(c.bold(central, full=True))
    # its own clause of a line that defines the members too ("AllReduce 求和后广播（TP 用）"):
    # the members' clauses are theirs to quote
    c.definitions(g.terms[central], max_defs=1, notes=0)
    # "举几个例子？" names no class: the term whose kinds these are
    head_label = _display(ctx, head_text) if head_text and not pronoun_in(ctx, slot) else c.name(central)
    shown: list[str] = []  # the members in the order the lines name them
    if members:
        c.add(t(ctx.lang, "list_head", head=head_label))
        # members the sources define in the same words, or in words one of them quotes whole,
        # share one line ("A100、H100：「NVIDIA 数据中心 GPU 具体型号。」"): a quote is printed once
        lines: list[tuple[list[str], Definition, str]] = []
        above: dict[int, list[str]] = {}
        for m in members[:10]:
            term = g.terms[m]
            if not term.definitions:
                continue
            d = term.definitions[0]
            # a line defining several members at once: this member's own clause ("AllGather 各卡拼齐")
            quote = member_part(g, term, d.text)
            shown_at = c.quoted_marker(quote)
            if shown_at is not None:  # the central term's own definition above says it
                above.setdefault(shown_at, []).append(m)
                continue
            key = quote_key(quote)
            i = next(
                (i for i, (_, _, q) in enumerate(lines) if key in quote_key(q) or quote_key(q) in key), None
            )
            if i is None:
                lines.append(([m], d, quote))
            else:
                names, e, q = lines[i]
                lines[i] = ([*names, m], *((d, quote) if len(quote) > len(q) else (e, q)))
        # a line whose words a later, longer line came to quote whole joins it
        for i in range(len(lines) - 1, -1, -1):
            names, _, q = lines[i]
            j = next((j for j, x in enumerate(lines) if j != i and quote_key(q) in quote_key(x[2])), None)
            if j is not None:
                lines[j] = ([*lines[j][0], *names], lines[j][1], lines[j][2])
                del lines[i]
        colon = t(ctx.lang, "colon")
        for marker_no, names in above.items():
            c.add(c.named_above(marker_no, names))
            shown.extend(names)
        for names, d, quote in lines:
            marker = c.cite(names[0], d.source, quote, "definition", d.line)
            c.use(*names)
            heads = t(ctx.lang, "sep").join(c.bold(m) for m in names)
            c.add(f"- {heads}{colon}{c.q(quote)} {marker}")
            shown.extend(names)
    else:
        c.add(t(ctx.lang, "list_none", head=head_label))
    follow = [c.follow("define", m) for m in members[:1]]
    if len(members) >= 2:
        follow.append(c.follow("compare", members[0], members[1]))
    result = finish(ctx, c, "listing", follow)
    result.listed = [m for m in shown if m in result.terms]
    return result


#: Words before a class name that do not name the class ("常见的 GPU", "the main engines").
_LEAD = re.compile(
    r"^(?:常见|常用|主流|主要|典型|有名|著名)的?\s*|^(?:the )?(?:common|main|popular|typical|major|usual) "
)


#: After a name, a word for its kinds ("注意力的变体", "量化的方法"): the name is the class listed.
_KINDS_AFTER = re.compile(r"\s*的?\s*(?:变体|变种|类型|种类|类别|方法|做法|实现方式|实现)")


def _display(ctx: Ctx, head: str) -> str:
    """The class as the question wrote it, for the heading: its own capitals and spacing ("GPU",
    not the folded "gpu") and without "常见的" / "common"."""
    head = _LEAD.sub("", head).strip() or head
    # folding drops the space between scripts ("常见的 GPU" → "常见的gpu"): match across spaces
    loose = r"\s*".join(re.escape(ch) for ch in head if not ch.isspace())
    m = re.search(loose, ctx.parsed.question, re.IGNORECASE) if loose else None
    return m.group(0) if m else head


def _keys(text: str) -> set[str]:
    """The search's character tokens of *text* without single Chinese characters: Latin words and
    Chinese character pairs (a lone character says too little about which class is meant)."""
    return {t for t in char_tokens(text) if not (len(t) == 1 and has_cjk(t))}


def _joint_group(ctx: Ctx, term: str) -> tuple[list[str], str]:
    """The members of a source line that defines *term* together with its siblings ("AllReduce /
    AllGather / All-to-All 分布式集合通信原语…"), in the order the line names them, and the line's
    text; ``([], "")`` if none."""
    line = joint_line(ctx.glossary, term)
    return (line[0], line[1].evidence) if line is not None else ([], "")


def _ends_with_any(names: list[str], heads: set[str]) -> bool:
    """Whether one of *names* is a compound whose last part is one of *heads* ("训练后量化" ends
    with 量化; "GPU 节点" does not end with GPU, and "反量化" undoes what it ends with)."""
    for n in names:
        fn = fold(n).strip()
        for h in heads:
            if fn == h or not fn.endswith(h):
                continue
            before = fn[-len(h) - 1]
            # "反量化" (dequantize) undoes quantization; "eGPU"-like glued Latin is another word
            if (has_cjk(h[0]) and before not in "反逆去非") or (not has_cjk(h[0]) and not before.isalnum()):
                return True
    return False


def _named_like(ctx: Ctx, head: str, central: str | None) -> list[str]:
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


def _members(ctx: Ctx, central: str, named: list[str], head: str) -> list[str]:
    """Kinds/parts of *central*, in this order: the instances its own definitions give ("AWQ、
    GPTQ、SmoothQuant 均属此类"), its neighbours named like it ("训练后量化"),
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
    mentions_central = [
        e.source if e.target == central else e.target
        for e in g.related(central)
        if any(x.subject != central for x in e.items)
    ]
    mentions_central = [n for n in mentions_central if n in in_topic or not g.terms[n].categories]

    def order(ids: list[str]) -> list[str]:
        return sorted(dict.fromkeys(ids), key=lambda i: (ranks.get(i, 10_000), i))

    examples = examples_of(ctx, central)  # the instances its own definitions give, in their order
    # terms whose own definitions or names say they are one of its kinds: "B300：Blackwell 数据中心
    # GPU", "训练后量化" (a name that ends with the class's)
    heads = {fold(n) for n in g.terms[central].all_names() if len(n) >= 2} | ({key} if key else set())
    kinds = kinds_of(g, central)
    if len(kinds) >= 2:
        # the class has kinds its members' own definitions name as such ("B300：Blackwell 数据中心
        # GPU"): those, the instances it gives and the names that end with its own ("训练后量化"),
        # and not the terms that are merely linked to it (GPU 节点, CUDA and a thread are no GPUs)
        compounds = [n for n in named if _ends_with_any(g.terms[n].all_names(), heads)]
        return [m for m in dict.fromkeys([*examples, *order([*kinds, *compounds])]) if m != central]
    out: list[str] = []
    for group in (
        examples,
        order([n for n in named if n in near]),
        order(in_topic),
        order(mentions_central),
        order(named),
    ):
        for m in group:
            if m != central and m not in out:
                out.append(m)
    return out


def _conversation_subject(ctx: Ctx, state: ConversationState) -> str:
    """The term the conversation is about: the terms the asker named (counted twice) and the ones
    each answer led with, recent turns weighing more (:data:`_RECENCY` per turn back); the topic's
    first on a tie. "投机解码为什么能加速？" … "那个小模型叫啥？" … "接受长度跟投机解码划不划算有啥
    关系？" is about speculative decoding, though the last turn's topic starts with acceptance length."""
    score: dict[str, float] = {}
    turns = [turn for turn in state.turns if turn.grounded]
    for age, turn in enumerate(reversed(turns)):
        weight = _RECENCY**age
        named = {sp.term_id for sp in ctx.linker.engine.matcher.find_mentions(turn.question)}
        for tid in named:
            score[tid] = score.get(tid, 0.0) + 2 * weight
        if turn.terms:
            score[turn.terms[0]] = score.get(turn.terms[0], 0.0) + weight
    topic = state.topic[0]
    best = max(score, key=lambda tid: (score[tid], tid == topic), default=topic)
    return best if best in ctx.glossary and score[best] > score.get(topic, 0.0) else topic


#: How much less a turn counts than the one after it when finding what a conversation is about.
_RECENCY = 0.7
