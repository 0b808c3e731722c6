"""The term under discussion's own instance of a kind the question names.

"SGLang 主打啥？" … "它那个前缀缓存技术叫什么？": the question names a kind (prefix caching) owned by
its pronoun ("它的…", "它那个…", "its …") and asks for a name. SGLang's definition says which one:
"主打结构化生成与 RadixAttention 前缀缓存" — a term written straight before the kind's name (or in
brackets after it) in the referent's own text. That term, when the graph links it to the
referent, is the answer; the referent and the kind are only where the question starts from.
"""

from __future__ import annotations

import re

from kg.chat.context import Ctx
from kg.contrasts import sentences
from kg.textnorm import fold

__all__ = ["own_instance"]

#: What may stand between the pronoun and the kind it owns: "它的", "它那个", "它自己的", "its".
_OWNS = re.compile(r"^\s*(?:的|自己的|家的)?\s*(?:那个|这个|那套|这套|那种|这种)?\s*$")
#: The question asks for a name or a mechanism, not for a property of the kind.
_ASKS_NAME = re.compile(
    r"叫什么|叫啥|什么名字|名字是|是什么|是啥|靠什么|靠的是|用什么|用的是|哪个|哪种|"
    r"\bcalled\b|\bname\b|\bwhat(?:'s| is| are)\b|\bwhich\b|\bwhat (?:mechanism|technique|method)\b"
)
#: Intents whose answer may be another term (a comparison or a listing has its own shape).
_INTENTS = frozenset(["which", "relation", "definition", "unknown"])


def own_instance(ctx: Ctx) -> str | None:
    """The term the referent's own text gives for the kind its pronoun owns, or None."""
    p, ref, g = ctx.pronoun, ctx.referent, ctx.glossary
    if p is None or p.ref != "topic" or not ref or not ctx.used_context or ref not in g:
        return None
    f = ctx.parsed.folded
    if ctx.parsed.intent not in _INTENTS or not _ASKS_NAME.search(f):
        return None
    kind = next(
        (
            s
            for s in ctx.analysis.spans
            if s.start >= p.end and s.term_id != ref and _OWNS.match(f[p.end : s.start])
        ),
        None,
    )
    if kind is None or kind.term_id not in g:
        return None
    near = set(g.neighbours(ref))
    kind_names = sorted(
        {fold(n) for n in g.terms[kind.term_id].all_names() if len(n) >= 2}, key=len, reverse=True
    )
    candidates = {
        t: [fold(n) for n in g.terms[t].all_names() if len(n) >= 2] for t in near if t != kind.term_id
    }
    for d in g.terms[ref].definitions:
        for sent in sentences(fold(d.text)):
            for kn in kind_names:
                for m in re.finditer(re.escape(kn), sent):
                    before, after = sent[: m.start()].rstrip(), sent[m.end() :]
                    for tid, names in candidates.items():
                        if not g.terms[tid].definitions:
                            continue
                        if any(before.endswith(n) for n in names) or any(
                            re.match(rf"\s*[（(]\s*{re.escape(n)}\s*[）)]", after) for n in names
                        ):
                            return tid
    return None
