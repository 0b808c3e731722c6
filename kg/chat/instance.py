"""The term under discussion's own instance of a kind the question names (or the reverse).

"SGLang 主打啥？" … "它那个前缀缓存技术叫什么？": the question names a kind (prefix caching) owned by
its pronoun ("它的…", "它那个…", "its …", or a pointer: "后者的前缀缓存机制叫什么？" after vLLM and
SGLang) and asks for a name. SGLang's definition says which one:
"主打结构化生成与 RadixAttention 前缀缓存" — a term written straight before the kind's name (or in
brackets after it) in the referent's own text. That term, when the graph links it to the
referent, is the answer; the referent and the kind are only where the question starts from.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from kg.chat.context import Ctx
from kg.chat.genus import genus_names, of_its_kind
from kg.contrasts import sentences
from kg.store import Glossary
from kg.textnorm import fold

__all__ = ["own_instance"]

#: A question that opens by asking for a kind: "what …", "which …", "and what …".
_ASKED_KIND = re.compile(r"^\s*(?:and|so|ok)?[\s,]*(?:what|which)\s+")
#: The words of the kind asked for, up to the verb: "prefix-cache mechanism" in "what prefix-cache
#: mechanism is the second one built around?".
_KIND_WORDS = re.compile(r"([a-z0-9][a-z0-9 -]{2,40}?)\s+(?:is|are|does|do|did|was|were|has|have)\b")
#: What may stand between the pronoun and the kind it owns: "它的", "它那个", "它自己的", "its".
_OWNS = re.compile(r"^\s*(?:的|自己的|家的)?\s*(?:那个|这个|那套|这套|那种|这种)?\s*$")
#: The question asks for a name or a mechanism, not for a property of the kind.
_ASKS_NAME = re.compile(
    r"叫什么|叫啥|什么名字|名字是|是什么|是啥|靠什么|靠的是|用什么|用的是|哪个|哪种|"
    r"\bcalled\b|\bname\b|\bwhat(?:'s| is| are)\b|\bwhich\b|\bwhat (?:mechanism|technique|method)\b"
)
#: What follows the kind's name: a generic class word at most, then the question ("它那个前缀缓存
#: 技术叫什么？", "its prefix cache?") — not more nouns, which make the name a modifier of another
#: thing ("它的显存碎片问题靠哪个技术解决？" asks about fragmentation, not about its 显存).
_KIND_ENDS = re.compile(
    r"\s*(?:技术|机制|方案|方法|功能|实现|版本|特性|技巧|组件|库|格式|\s+(?:technique|mechanism|feature|"
    r"implementation|version|library|format|scheme))?\s*(?:$|[?？.。!！,，]|呢|叫|是|用|靠|\bcalled\b|\bis\b)"
)
#: Intents whose answer may be another term (a comparison or a listing has its own shape).
_INTENTS = frozenset(["which", "relation", "definition", "unknown"])


def own_instance(ctx: Ctx, question: str | None = None) -> str | None:
    """The term the referent's own text gives for the kind its pronoun owns, or the one a named
    owner's text gives for the kind the pronoun points at (or the question names after "X's
    counterpart for", or after "X's": "What's SGLang's prefix cache called?"); None when neither
    text says. *question* is the question as typed (normalising drops the possessive)."""
    p, ref, g = ctx.pronoun, ctx.referent, ctx.glossary
    if p is None:
        return (
            _named_owners_version(ctx)
            or _owners_counterpart(ctx)
            or _named_owners_kind(ctx, question or ctx.parsed.question)
        )
    if not ctx.used_context:
        # "Which TensorRT-LLM feature is its version of continuous batching?": "its" points back
        # into the question, at the owner it names
        version = _named_owners_version(ctx)
        if version is not None:
            return version
    if not ref or not ctx.used_context or ref not in g:
        return None
    f = ctx.parsed.folded
    if ctx.parsed.intent not in _INTENTS:
        return None
    asked = _ASKED_KIND.match(f)
    if asked is not None:
        # "What prefix-cache mechanism is the second one built around?": the kind the question
        # opens with, owned by the term the pointer picks
        kind_span = next((s for s in ctx.analysis.spans if s.start == asked.end() and s.term_id != ref), None)
        if kind_span is not None and kind_span.end <= p.start and kind_span.term_id in g:
            kinds = [kind_span.term_id]
        else:
            # words no name covers ("prefix-cache mechanism"): the search's best few terms for them
            words = _KIND_WORDS.match(f, asked.end())
            named_inside = words is not None and any(
                words.start(1) <= s.start < words.end(1) for s in ctx.analysis.spans
            )
            # (words naming terms of their own are a description, "phase of llm inference", no kind)
            kinds = _searched_kinds(ctx, words.group(1)) if words and not named_inside else []
        found = _beside_any(ctx, ref, kinds)
        if found is not None:
            return found
    if not _ASKS_NAME.search(f):
        return None
    kind = next(
        (
            s
            for s in ctx.analysis.spans
            if s.start >= p.end
            and s.term_id != ref
            and _OWNS.match(f[p.end : s.start])
            and _KIND_ENDS.match(f, s.end)
        ),
        None,
    )
    if kind is not None and kind.term_id in g:
        return _beside(ctx, owner=ref, kind=kind.term_id)
    others = list(dict.fromkeys(s.term_id for s in ctx.analysis.spans if s.term_id != ref))
    if len(others) == 1 and others[0] in g and _COUNTERPART.search(f):
        # "SGLang 里它对应的实现叫什么？" after prefix caching: the owner is named, the kind is "it"
        return _beside(ctx, owner=others[0], kind=ref)
    return None


#: "SGLang's counterpart for prefix reuse" (the possessive already normalised away): after the
#: owner's name, the word for its own version of a kind, then the kind.
_OWNERS_VERSION = re.compile(
    # ("Which TensorRT-LLM feature is its version of continuous batching?": the owner, a class
    # word, then "its version of")
    r"(?:\s+(?:feature|component|technique|mechanism|library|method|scheme)\s+(?:is|are)\s+(?:its|their))?"
    r"\s+(?:own\s+)?(?:counterpart|version|implementation|equivalent|flavou?r)\s+(?:for|of|to)\s+"
    r"(?P<kind>[^?.!]+?)(?:\s+(?:called|named))?\s*[?.!]*$"
)


def _named_owners_version(ctx: Ctx) -> str | None:
    """ "What's SGLang's counterpart for prefix reuse?": the term SGLang's own text writes before
    the kind (RadixAttention, "RadixAttention 前缀缓存"); the kind is the name the question gives
    after "for", or the search's best term for those words."""
    if ctx.parsed.intent not in _INTENTS:
        return None
    g, f = ctx.glossary, ctx.parsed.folded
    for owner in ctx.analysis.spans:
        m = _OWNERS_VERSION.match(f, owner.end)
        if m is None or owner.term_id not in g:
            continue
        named = [
            s.term_id for s in ctx.analysis.spans if s.start >= m.start("kind") and s.term_id != owner.term_id
        ]
        hits = named or [h.term_id for h in ctx.linker.search(m.group("kind")).hits[:1]]
        kind = hits[0] if hits else None
        if kind is not None and kind in g and kind != owner.term_id:
            return _beside(ctx, owner=owner.term_id, kind=kind) or _names_owner(ctx, kind, owner.term_id)
    return None


def _names_owner(ctx: Ctx, kind: str, owner: str) -> str | None:
    """*kind* itself, when its own text names *owner* (in-flight batching, "TensorRT-LLM 的连续批处理
    实现", is a name of continuous batching: TensorRT-LLM's version of it is the term itself)."""
    g = ctx.glossary
    names = [fold(n) for n in g.terms[owner].all_names() if len(n) >= 2]
    for d in g.terms[kind].definitions:
        text = fold(d.text)
        if any(re.search(rf"(?<![a-z0-9]){re.escape(n)}(?![a-z0-9-])", text) for n in names):
            return kind
    return None


#: After a named owner, the kind it owns and a request for its name: "What's SGLang's prefix cache
#: called?" (the possessive already normalised away), "What does SGLang use for prefix caching?",
#: "SGLang 的前缀缓存技术叫什么？".
_OWNERS_KIND = (
    re.compile(
        r"(?:\s+own|\s+(?:use|uses|rely on|relies on)\s+for)?\s+(?P<kind>[a-z0-9][a-z0-9 -]{2,40}?)\s*"
        r"(?:\s(?:technique|mechanism|feature|implementation|method|scheme))?\s*(?:\s(?:called|named))?\s*[?.!]*$"
    ),
    re.compile(
        r"\s*(?:的|自己的|家的)?\s*(?:那个|这个|那套|这套|那种|这种)?\s*(?P<kind>[^？?，,。\s][^？?，,。]{1,15}?)\s*"
        r"(?:技术|机制|方案|方法|功能|实现)?\s*(?:叫什么名字|叫什么|叫啥|是什么|是啥|是哪个)\s*[？?]?$"
    ),
)

#: "What does SGLang use for prefix caching?" asks for a name too.
_USES_FOR = re.compile(r"\bwhat (?:does|do)\b.*\b(?:use|rely on)\s+for\b")


def _named_owners_kind(ctx: Ctx, question: str) -> str | None:
    """ "What's SGLang's prefix cache called?": the term the named owner's own text writes before
    the kind (RadixAttention, "RadixAttention 前缀缓存"); the kind is a name the question gives
    there, else the search's best term for those words. The owner must open the question's
    subject (a name deep inside a long question owns nothing)."""
    g, f = ctx.glossary, ctx.parsed.folded
    if ctx.parsed.intent not in _INTENTS or not (_ASKS_NAME.search(f) or _USES_FOR.search(f)):
        return None
    for owner in ctx.analysis.spans[:1]:
        if owner.term_id not in g or owner.start > 12:
            continue
        m = next((m for rx in _OWNERS_KIND if (m := rx.match(f, owner.end))), None)
        if m is None:
            continue
        if m.re is _OWNERS_KIND[0] and not (
            _USES_FOR.search(f)
            or re.search(rf"{re.escape(f[owner.start : owner.end])}(?:'s|’s)\s", question, re.I)
        ):
            continue  # "what is a prefil stage": two words side by side, no owner and its kind
        named = [
            s.term_id for s in ctx.analysis.spans if s.start >= m.start("kind") and s.term_id != owner.term_id
        ]
        # words that name no term exactly ("prefix cache"): the search's best few terms for them,
        # each tried as the kind; _beside's test (a term written straight before the kind's name
        # in the owner's text) is what keeps a wrong one out
        kinds = named[:1] or _searched_kinds(ctx, m.group("kind"))
        genus = set(genus_names(g, owner.term_id))
        found = _beside_any(ctx, owner.term_id, [k for k in kinds if k not in genus])
        if found is not None:
            return found
    return None


def _searched_kinds(ctx: Ctx, words: str) -> list[str]:
    """The search's best few terms for words that name no term exactly ("prefix cache"), each to
    be tried as the kind: :func:`_beside`'s test keeps a wrong one out."""
    return [h.term_id for h in ctx.linker.search(words).hits[:3]]


def _beside_any(ctx: Ctx, owner: str, kinds: Iterable[str]) -> str | None:
    """The first of *kinds* (not the owner itself) for which :func:`_beside` finds a term."""
    for kind in kinds:
        if kind != owner and kind in ctx.glossary:
            found = _beside(ctx, owner=owner, kind=kind)
            if found is not None:
                return found
    return None


#: "SGLang 那边对应的是啥", "vLLM 那边对应的呢", "SGLang 那边对应的前缀复用机制呢？", "SGLang 的版本叫什么？":
#: a named owner, then "its corresponding …" or "its version", the kind given or left to the conversation.
_OWNERS_COUNTERPART_ZH = re.compile(
    r"\s*(?:那边|那里|这边|里面|里|中|上)?\s*(?:(?:对应|相应|相对应)的?|(?:的|自己的|家的)版本)\s*(?P<kind>[^？?。！!]*?)\s*"
    r"(?:呢|是啥|是什么|叫什么|叫啥|是哪个|是哪种)?\s*[？?。]?\s*$"
)
#: Kind words that name no kind ("对应的是啥", "对应的东西").
_NO_KIND = re.compile(r"^(?:的|东西|那个|机制|实现|技术|方案|做法|版本)?$")


def _owners_counterpart(ctx: Ctx) -> str | None:
    """ "SGLang 那边对应的是啥" after vLLM's PagedAttention, "vLLM 那边对应的呢" after SGLang's
    RadixAttention: the named owner's own term for what the conversation is about. The kind is the
    name the question gives after 对应 (or the search's best term for those words), else the term
    the last answer led with; the answer is what the owner's text writes before the kind's name
    (:func:`_beside`), else the one term linked to the owner that the sources contrast with the
    kind, or that shares its genus."""
    if ctx.parsed.intent not in _INTENTS or ctx.state is None:
        return None
    g, f = ctx.glossary, ctx.parsed.folded
    for owner in ctx.analysis.spans:
        m = _OWNERS_COUNTERPART_ZH.match(f, owner.end)
        if m is None or owner.term_id not in g or owner.start > 2:
            continue
        words = m.group("kind").strip()
        named = [
            s.term_id for s in ctx.analysis.spans if s.start >= m.start("kind") and s.term_id != owner.term_id
        ]
        if named:
            kind: str | None = named[0]
        elif not _NO_KIND.match(words):
            hits = ctx.linker.search(words).hits[:1]
            kind = hits[0].term_id if hits else None
        else:
            last = ctx.state.answered or (ctx.state.topic[0] if ctx.state.topic else None)
            kind = last
        if kind is None or kind not in g or kind == owner.term_id:
            return None
        if kind in genus_names(g, owner.term_id):
            return None  # the kind is what the owner is (vLLM is an inference engine): nothing to name
        found = _beside(ctx, owner=owner.term_id, kind=kind)
        if found is not None:
            return found
        # else the one term linked to the owner that is of the kind's own kind
        return of_its_kind(g, kind, g.neighbours(owner.term_id))
    return None


#: "X 里它对应的实现", "X's version of it": the question asks for the owner's own instance.
_COUNTERPART = re.compile(r"对应|实现|版本|\bversion\b|\bimplementation\b|\bflavou?r\b")


@lru_cache(maxsize=256)
def _longer_names(g: Glossary, kind_names: tuple[str, ...]) -> dict[str, list[str]]:
    """Per name of the kind, the other (folded) names that contain it ("首 token 延迟" for 延迟)."""
    out: dict[str, list[str]] = {}
    for t in g.terms.values():
        for n in t.all_names():
            fn = fold(n)
            for kn in kind_names:
                if kn in fn and fn != kn:
                    out.setdefault(kn, []).append(fn)
    return out


def _inside_longer_name(sent: str, start: int, end: int, longer: Iterable[str]) -> bool:
    """Whether sent[start:end] lies inside an occurrence of one of *longer*."""
    for name in longer:
        for m in re.finditer(re.escape(name), sent):
            if m.start() <= start and end <= m.end():
                return True
    return False


def _beside(ctx: Ctx, *, owner: str, kind: str) -> str | None:
    """A term linked to *owner* that *owner*'s own text writes straight before a name of *kind*
    ("RadixAttention 前缀缓存") or in brackets after it."""
    g = ctx.glossary
    near = sorted(g.neighbours(owner))  # sorted: the same answer in every process
    kind_names = sorted({fold(n) for n in g.terms[kind].all_names() if len(n) >= 2}, key=len, reverse=True)
    candidates = {t: [fold(n) for n in g.terms[t].all_names() if len(n) >= 2] for t in near if t != kind}
    longer = _longer_names(g, tuple(kind_names))
    for d in g.terms[owner].definitions:
        for sent in sentences(fold(d.text)):
            for kn in kind_names:
                for m in re.finditer(re.escape(kn), sent):
                    if _inside_longer_name(sent, m.start(), m.end(), longer.get(kn, ())):
                        continue  # "首 token 延迟" is TTFT's name: "token" is not written before 延迟
                    before, after = sent[: m.start()].rstrip(), sent[m.end() :]
                    for tid, names in candidates.items():
                        if not g.terms[tid].definitions:
                            continue
                        if any(before.endswith(n) for n in names) or any(
                            re.match(rf"\s*[（(]\s*{re.escape(n)}\s*[）)]", after) for n in names
                        ):
                            return tid
    # the other way round: a linked term's own definition opens by calling it the owner's kind
    # ("in-flight batching：TensorRT-LLM 的连续批处理实现"); elsewhere in a text "TPU 的 SparseCore"
    # only mentions the two
    owner_names = sorted({fold(n) for n in g.terms[owner].all_names() if len(n) >= 2}, key=len, reverse=True)
    pairs = [rf"{re.escape(o)}\s*(?:的|'s)?\s*{re.escape(k)}" for o in owner_names for k in kind_names]
    if not pairs:
        return None
    rx = re.compile(r"^\s*(?:" + "|".join(pairs) + ")")
    found = [
        tid
        for tid in candidates
        if g.terms[tid].definitions and any(rx.search(fold(d.text)) for d in g.terms[tid].definitions)
    ]
    return found[0] if len(found) == 1 else None
