"""A vendor's own kind of thing: "And AMD's own inference engine?", "AMD 自己调优的 kernel 库是什么？".

A question that puts a vendor before a class noun — "AMD's inference engine", "Microsoft's
cross-platform runtime", "NVIDIA 有没有做这件事的平台", "does AMD have its own inference engine"
— asks for the one term of that class its own text ties to the vendor: ATOM ("ATOM 是 AMD 自研的推理
引擎"), AITER ("AITER 是 AMD 调优过的 kernel 库"). The class term itself (Inference engine) and a
term the question names are not the answer.

A term is of the class by its own account (:func:`kg.chat.genus.called_a`: its names or the first
sentence of a definition use the class word); it is the vendor's when the first clause of one of its
definitions names the vendor. The vendor is a Latin-script word typed with a capital ("AMD", "DeepSeek") followed by a
possessive or a Chinese mark of ownership (的, 自研, 自家, 自己, 那个), or a Chinese company name the
glossary writes in Latin script (微软 → Microsoft). Among several such terms, the search's order
decides; with none, nothing is decided.
"""

from __future__ import annotations

import re

from kg.chat.context import Ctx
from kg.chat.genus import CLASS_WORDS, called_a
from kg.store import Glossary
from kg.textnorm import fold

__all__ = ["owned_implementation", "owned_kind", "vendor_and_class"]

#: Chinese company names and the Latin names the sources write for them.
_ZH_VENDORS = {"微软": "microsoft", "谷歌": "google", "英伟达": "nvidia", "华为": "huawei"}

#: Class words, longest first, each with its key in CLASS_WORDS.
_CLASS_FORMS = sorted(((w, k) for k, ws in CLASS_WORDS.items() for w in ws), key=lambda x: -len(x[0]))
_CLASS_RE = "|".join(re.escape(w) for w, _ in _CLASS_FORMS)
_KEY = dict(_CLASS_FORMS)

_EN_OWNED = re.compile(
    # "What's", "It's", "That's" are a verb, not an owner: left out here (not skipped after
    # matching), or the match would swallow the owner after them ("What's AMD's inference engine?")
    r"\b(?!(?:What|It|That|This|There|Here|Who|Where|How|Let|He|She)(?:'s|’s)\b)"
    r"(?P<owner>[A-Z][A-Za-z0-9-]*)(?:'s|’s|s'|s’)\s+(?P<phrase>[^?？.!,;]{0,60})"
    r"|\b(?:does|did|has|have)\s+(?P<owner2>[A-Z][A-Za-z0-9-]*)\s+(?:have|got|built|made)\s+"
    r"(?:its|their|a|an)\s+(?P<phrase2>[^?？.!,;]{0,60})"
)
_ZH_OWNED = re.compile(
    r"(?P<owner>[A-Za-z][A-Za-z0-9-]*|" + "|".join(_ZH_VENDORS) + r")\s*"
    r"(?:自研|自家|自己|那个|那边|有没有|有专门|的)(?P<phrase>[^，,。？?！!]{0,24})"
)


def vendor_and_class(question: str) -> tuple[str, str, str] | None:
    """The vendor (folded, Latin), the class key a question asks for and the class word as written
    (folded), or None."""
    for m in _EN_OWNED.finditer(question):
        if re.search(r"[.?!。？！]\s*\S", question[m.end() :]):
            continue  # another sentence follows: the question asks something else ("… on Google's chips. What's the path?")
        owner = m.group("owner") or m.group("owner2")
        phrase = fold(m.group("phrase") or m.group("phrase2") or "")
        if owner.lower() in ("it", "its", "what", "that", "this"):
            continue
        heads = re.findall(rf"(?<![a-z])(?:{_CLASS_RE})(?=e?s?\b|$)", phrase)
        if heads:
            return fold(owner), _KEY[heads[-1]], heads[-1]
    for m in _ZH_OWNED.finditer(question):
        owner = m.group("owner")
        owner = _ZH_VENDORS.get(owner, owner)
        if not re.search(r"[A-Z]", m.group("owner")) and owner == m.group("owner"):
            continue  # a Latin word without a capital is no vendor ("kernel 的…")
        heads = re.findall(_CLASS_RE, fold(m.group("phrase")))
        if heads:
            return fold(owner), _KEY[heads[-1]], heads[-1]
    return None


def _owned_by(glossary: Glossary, term_id: str, vendor: str, cls: str | None = None) -> int:
    """2 when the first clause of one of the term's definitions names the vendor and the class
    ("AITER 是 AMD 调优过的 kernel 库"), 1 when it names the vendor only ("ROCm 是让 … 在 AMD 芯片上运行的
    软件工具箱"), 0 when no first clause does — a later clause is about another thing ("NCCL 是 NVIDIA
    的集合通信库，…，RCCL 是 AMD 的对应实现")."""
    pattern = re.compile(rf"(?<![a-z0-9]){re.escape(vendor)}(?![a-z0-9])")
    words = CLASS_WORDS[cls] if cls else ()
    best = 0
    for d in glossary.terms[term_id].definitions:
        first = fold(re.split(r"[，,。；;]", d.text)[0])
        if pattern.search(first):
            best = max(best, 2 if any(w in first for w in words) else 1)
    return best


def owned_kind(ctx: Ctx, question: str) -> str | None:
    """The term of the asked class that the vendor owns, by the sources; None when there is none.

    *question* is the question as typed (normalising folds the capitals and drops the possessive
    that mark a vendor)."""
    found = vendor_and_class(question)
    if found is None or ctx.parsed.intent == "comparison":
        return None  # "它和 NVIDIA 的 Triton Inference Server 是一回事吗？" compares two named terms
    vendor, cls, word = found
    g = ctx.glossary
    named = {s.term_id for s in ctx.analysis.spans}
    names = {t: [fold(n) for n in g.terms[t].all_names()] for t in named}
    if any(vendor in ns for ns in names.values()):
        return None  # the vendor is itself a glossary name ("TPU's …"): another question
    if any(_owned_by(g, t, vendor) and any(word in n for n in ns) for t, ns in names.items()):
        return None  # the question names the vendor's thing itself ("NVIDIA 的 Triton Inference Server")
    owned = {
        t: _owned_by(g, t, vendor, cls)
        for t in g.terms
        if t not in named and g.terms[t].defined and called_a(g, t, cls)
    }
    owned = {t: v for t, v in owned.items() if v}
    if not owned:
        return None
    order = {h.term_id: i for i, h in enumerate(ctx.retrieval.hits if ctx.retrieval else [])}
    return min(owned, key=lambda t: (-owned[t], order.get(t, len(order)), t))


#: "And NVIDIA's implementation of that?", "AMD's version of it", "NVIDIA 自己的实现呢": a vendor's
#: own realisation of the term under discussion, not a class of things.
_EN_IMPLEMENTATION = re.compile(
    r"\b(?P<owner>[A-Z][A-Za-z0-9-]*)(?:'s|’s)\s+(?:own\s+)?(?:implementation|version|equivalent|library|example|instance)\s+"
    r"(?:of|for)\s+(?:it|that|this|them|those)\b"
)
_ZH_IMPLEMENTATION = re.compile(
    r"(?P<owner>[A-Z][A-Za-z0-9-]*|"
    + "|".join(_ZH_VENDORS)
    + r")\s*(?:的|自己的|自家的|那边的)?\s*(?:实现|版本)"
)


def owned_implementation(ctx: Ctx, question: str) -> str | None:
    """The term linked to the one under discussion that the vendor owns ("And NVIDIA's
    implementation of that?" after GEMM → cuBLAS, whose first clause names NVIDIA); None when the
    question asks no such thing, there is no referent, or no linked term is the vendor's."""
    m = _EN_IMPLEMENTATION.search(question) or _ZH_IMPLEMENTATION.search(question)
    if m is None or not (ctx.used_context and ctx.referent):
        return None
    vendor = fold(_ZH_VENDORS.get(m.group("owner"), m.group("owner")))
    g = ctx.glossary
    linked = [t for t in g.neighbours(ctx.referent) if t in g.terms and g.terms[t].defined]
    owned = {t: v for t in linked if (v := _owned_by(g, t, vendor))}
    if not owned:
        return None
    order = {h.term_id: i for i, h in enumerate(ctx.retrieval.hits if ctx.retrieval else [])}
    return min(owned, key=lambda t: (-owned[t], order.get(t, len(order)), t))
