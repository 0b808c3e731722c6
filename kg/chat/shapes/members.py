"""The members shape: "Which engines use it?", "哪些引擎支持它？" — the terms of a class that the
term under discussion is linked to, each in its own words, the term itself last. The examples
of a term ("后者有哪些代表算法？", "Which methods are the usual examples of it?") take the same
shape: the instances its own definitions give ("AWQ、GPTQ、SmoothQuant 均属此类"), in their order.

The question names a class in the plural ("engines", "frameworks", "哪些引擎") and points back at
a term that is not of that class (FlashAttention is no engine): the answer is the class's
members among the term's graph neighbours, not the term. A member is a neighbour one of whose
names or definitions holds the class word ("vLLM: 推理引擎…" for "engines"); a class word that
says nothing ("things", "东西") lets every neighbour in. Members come in the order the term's own
definitions name them ("vLLM、TensorRT-LLM 都支持…"), then by a search for the question without
the term's name.
"""

from __future__ import annotations

import re

from kg.chat.compose import Composer, best_edge, t
from kg.chat.context import Ctx
from kg.chat.model import Answer
from kg.chat.shapes.common import finish
from kg.contrasts import sentences
from kg.store import Glossary
from kg.textnorm import fold, has_cjk

__all__ = [
    "EXAMPLES",
    "asks_for_examples",
    "asks_for_instances",
    "asks_for_members",
    "examples_of",
    "members",
    "members_of",
]

#: The class word :func:`members` is given for the examples of a term (its own heading).
EXAMPLES = "#examples"

#: "Which engines use it?", "What frameworks go through it by default?"
_EN = re.compile(
    r"\b(?:which|what)(?: other)?(?: (?:inference|serving|open-source|popular|major|common|main))?"
    r" (?P<cls>[a-z][a-z.-]*[a-rt-z]s)\b(?! of\b)(?P<rest>.*)$"
)
#: "哪些引擎支持它？", "哪些东西是基于它做的？"
_ZH = re.compile(
    r"哪些(?P<cls>[\u4e00-\u9fff]{1,4}?)(?=(?:已经|已|都|也|还|正在|目前|主要|通常|一般|原生)*"
    r"(?:是|在|会|用|支持|支援|采用|基于|使用|接入|集成|内置|对接|对|能|可以|有|把|跟|和|与|里|中))(?P<rest>.*)$"
)
#: The pronoun after the class word that points at the term under discussion.
_POINTS_BACK = re.compile(r"\b(?:it|its|them|this|that)\b|它|其|这个|该")
#: After a verb comes its object; after a plural class word, a verb.
_OBJECT_NEXT = re.compile(r"\s+(?:it|its|the|a|an|this|that|them|they|these|those)\b")
#: Class words that narrow nothing.
_GENERIC = frozenset({"things", "ones", "terms", "concepts", "东西", "术语", "概念", "技术"})
#: Class words of the engine sense ("engines" are inference engines in the sources).
_SYNONYMS = {
    "engine": ("engine", "引擎"),
    "framework": ("framework", "框架"),
    "引擎": ("engine", "引擎"),
    "框架": ("framework", "框架"),
}


def asks_for_members(question: str) -> str | None:
    """The class word of a plural question about the term a pronoun points at ("engines"), ""
    for a class that narrows nothing, None when the question does not ask for a class's members.
    Read on the question as asked: normalising makes plurals singular."""
    text = fold(question)
    for rx in (_EN, _ZH):
        m = rx.search(text)
        if m is None or not _POINTS_BACK.search(m.group("rest")):
            continue
        if _OBJECT_NEXT.match(m.group("rest")):
            return None  # "what uses it": a verb, not a plural class
        cls = m.group("cls")
        return "" if cls in _GENERIC else cls
    return None


#: "哪些算法属于它？", "Which algorithms fall under the first one?": the kinds that belong to the
#: term pointed at — its instances, as its examples are
_INSTANCES_ZH = re.compile(
    r"哪些[\u4e00-\u9fff]{1,4}?(?:都|也|还)?(?:属于|归于|归入|算是|算作)(?:它|其|这个|这一类|这类|前者|后者|前一个|后一个|第[一二三四]个)"
)
_INSTANCES_EN = re.compile(
    r"\b(?:which|what) [a-z-]+s (?:fall under|belong to|count as|are part of|are kinds of|are types of) "
    r"(?:it|them|this|that|the (?:former|latter|first|second|third|last)(?: one)?)\b"
)


def asks_for_instances(question: str) -> bool:
    """Whether the question asks which kinds belong to the term pointed at ("哪些算法属于它？")."""
    return _asks(question, _INSTANCES_ZH, _INSTANCES_EN)


def _asks(question: str, *patterns: re.Pattern[str]) -> bool:
    text = fold(question)
    return any(rx.search(text) for rx in patterns)


#: "Which methods are the usual examples of it?", "Give me a few examples of the latter": the
#: examples of a term, in the plural (one example, "what's an example of it?", is a question
#: about the term itself and keeps its definition first)
_EXAMPLES_EN = re.compile(
    r"\bexamples\b|\b(?:which|what) (?:methods|algorithms|techniques|implementations|tools|products) "
    r"(?:are|count as) (?:the )?(?:usual |typical |common |main |best-known )?(?:examples|representatives|instances)\b"
)
#: "后者有哪些代表算法？", "它有哪些典型实现", "举几个例子"
_EXAMPLES_ZH = re.compile(
    r"(?:有|包括|包含)(?:哪些|哪几[个种]|什么|啥)(?:常见|常見|典型|主流|有名|著名)?的?(?:代表|例子|实例|實例|示例)"
    r"|代表(?:性的)?(?:算法|方法|做法|方案|实现|實現|工具|产品|產品)?(?:有|是)(?:哪些|哪几[个种]|什么|啥)"
    r"|举几个例子|舉幾個例子|举些例子"
)
#: A sentence that gives instances: "AWQ、GPTQ、SmoothQuant 均属此类", "Medusa、EAGLE-2/3 是代表",
#: "例如 X", "如 MXFP8、MXFP4、NVFP4，…" (not 如果 / 如何), "such as X", or parts: "通常由 text
#: encoder、迭代 denoiser 和 VAE 等多个模型组成", "consists of X and Y"
_GIVES_EXAMPLES = re.compile(
    r"代表|均属|都属|属于此类|此类|这类|例如|比如|诸如|譬如|(?:^|[（(，,：:；;\s])如(?![果何此今同下上])|包括|"
    r"由[^。；;]{2,60}?(?:组成|构成)|such as|e\.g\.|for example|for instance|including|consists? of|composed of|made up of"
)


def asks_for_examples(question: str) -> bool:
    """Whether the question asks for the examples of a term, in the plural."""
    return _asks(question, _EXAMPLES_EN, _EXAMPLES_ZH)


def examples_of(ctx: Ctx, term_id: str) -> list[str]:
    """The defined terms the sentences of *term_id*'s definitions give as its instances ("AWQ、
    GPTQ、SmoothQuant 均属此类"), in the order they are named; empty when no sentence gives any."""
    g = ctx.glossary
    mine = [fold(x) for x in g.terms[term_id].all_names()]
    found: list[str] = []
    for d in g.terms[term_id].definitions:
        for sent in sentences(d.text):
            marker = _GIVES_EXAMPLES.search(sent)
            if marker is None:
                continue
            text = fold(sent)
            # "专注 GPU 的专业云服务商，例如 CoreWeave": a forward marker gives what follows it
            # (GPU is no instance of a neocloud); "AWQ、GPTQ… 均属此类" what precedes it
            fm = _FORWARD.search(text)
            lo = fm.end() if fm is not None else 0
            at: dict[str, list[tuple[int, int]]] = {}  # neighbour -> where its names stand
            for n in g.neighbours(term_id):
                if n == term_id or n not in g.terms or not g.terms[n].definitions or _kind_of(g, n, mine):
                    continue
                for x in g.terms[n].all_names():
                    fx = fold(x)
                    i = text.find(fx, lo) if len(x) >= 2 else -1
                    if i >= 0:
                        at.setdefault(n, []).append((i, i + len(fx)))
            # "Triton Inference Server" names a member; the "inference" inside it does not
            every = [(i, j) for spans in at.values() for i, j in spans]
            inside = {
                n
                for n, spans in at.items()
                if all(any(a <= i and j <= b and (a, b) != (i, j) for a, b in every) for i, j in spans)
            }
            ordered = sorted((min(spans), n) for n, spans in at.items() if n not in inside)
            found.extend(n for _, n in ordered if n not in found)
    return found


#: The markers of :data:`_GIVES_EXAMPLES` after which the instances come.
_FORWARD = re.compile(
    r"例如|比如|诸如|譬如|(?:^|[（(，,：:；;\s])如(?![果何此今同下上])|包括|such as|e\.g\.|for example|for instance|including"
)


def _kind_of(g: Glossary, n: str, mine: list[str]) -> bool:
    """Whether *n* names the kind the term is ("Intermediate representation" for MLIR)."""
    names = map(fold, g.terms[n].all_names())
    return any(len(x) >= 4 and x != m and m.endswith(x) for x in names for m in mine)


def _singular(cls: str) -> str:
    if has_cjk(cls):
        return cls
    if cls.endswith("ies"):
        return cls[:-3] + "y"
    return cls[:-1]


def members_of(ctx: Ctx, term_id: str, cls: str) -> list[str]:
    """The neighbours of *term_id* of the class *cls*, by rank in a search for the question."""
    g = ctx.glossary
    mine = [fold(x) for x in g.terms[term_id].all_names()]

    near = [
        n
        for n in g.neighbours(term_id)
        if n != term_id and g.terms[n].definitions and not _kind_of(g, n, mine)
    ]
    if cls:
        word = _singular(cls)
        # "推论引擎" / "inference engines" are engines: a class word ending in a known one is it
        head = next((k for k in _SYNONYMS if word.endswith(k)), word)
        keys = _SYNONYMS.get(head, (word,))

        def of_class(n: str) -> bool:
            term = g.terms[n]
            texts = [fold(x) for x in term.all_names()] + [fold(d.text) for d in term.definitions]
            return any(k in x for k in keys for x in texts)

        def the_class_itself(n: str) -> bool:
            # "Inference engine" for "engines": the kind, not one of its members
            return any(fold(x).endswith(k) for k in keys for x in g.terms[n].all_names())

        near = [n for n in near if of_class(n) and not the_class_itself(n)]
    # the order the term's own definitions name them in ("vLLM、TensorRT-LLM 等引擎都支持"), then
    # the rest by a search for the question
    own = " ".join(fold(d.text) for d in g.terms[term_id].definitions)
    hits = ctx.linker.search(ctx.body_text(substitute=False)).hits
    rank = {h.term_id: i for i, h in enumerate(hits)}

    def named_at(n: str) -> int:
        found = [own.find(fold(x)) for x in g.terms[n].all_names() if len(x) >= 2]
        return min((i for i in found if i >= 0), default=len(own) + 1)

    return sorted(near, key=lambda n: (named_at(n), rank.get(n, len(hits)), n))


def members(ctx: Ctx, term_id: str, found: list[str], cls: str) -> Answer:
    """The members first, each with the sentence linking it to *term_id* (else its definition).

    The examples of a term come after the term instead: its own definition is the sentence that
    gives them ("AWQ、GPTQ、SmoothQuant 均属此类"), so it is quoted, and cited, first."""
    g = ctx.glossary
    c = Composer(g, ctx.lang)
    if cls == EXAMPLES:
        return _examples(ctx, c, term_id, found)
    ctx.focus = [*found[:4], term_id]
    ctx.linked_by = "context"
    c.add(t(ctx.lang, "members_head", a=c.bold(term_id), cls=cls or c.name(term_id)))
    for n in found[:4]:
        d = g.terms[n].definitions[0]
        marker = c.cite(n, d.source, d.text, "definition", d.line)
        edge = best_edge(g, n, term_id)
        emarker = c.edge_marker(edge, n) if edge is not None else ""
        colon = t(ctx.lang, "colon")
        c.add(f"- {c.bold(n)}{colon}{c.q(d.text)} {''.join(dict.fromkeys((marker, emarker)))}".rstrip())
    c.add(c.bold(term_id, full=True))
    c.first_definition(g.terms[term_id])
    follow = [c.follow("define", found[0])]
    result = finish(ctx, c, "listing", follow)
    result.listed = found[:4]
    return result


def _examples(ctx: Ctx, c: Composer, term_id: str, found: list[str]) -> Answer:
    """The term's definition, then each example it gives in the example's own words."""
    g = ctx.glossary
    ctx.focus = [term_id, *found[:4]]
    ctx.linked_by = "context"
    term = g.terms[term_id]
    names = [fold(x) for x in g.terms[found[0]].all_names()] if found else []
    # the definition that gives them ("…AWQ、GPTQ、SmoothQuant 均属此类"), else the first
    own = next((d for d in term.definitions if any(x in fold(d.text) for x in names)), term.definitions[0])
    c.add(c.bold(term_id, full=True))
    marker = c.cite(term_id, own.source, own.text, "definition", own.line)
    c.add(t(ctx.lang, "def", src=c.src(own.source, own.lang), q=c.q(own.text)) + " " + marker)
    c.use(term_id)
    c.add(t(ctx.lang, "examples_head", a=c.bold(term_id)))
    for n in found[:4]:
        d = g.terms[n].definitions[0]
        marker = c.cite(n, d.source, d.text, "definition", d.line)
        c.add(f"- {c.bold(n)}{t(ctx.lang, 'colon')}{c.q(d.text)} {marker}".rstrip())
    result = finish(ctx, c, "listing", [c.follow("define", found[0])])
    result.listed = found[:4]
    return result
