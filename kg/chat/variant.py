"""A named variant of the term under discussion: "What's the P90 version of it?" after
interactivity is P90 交互性, the term whose name is the modifier put before one of the
referent's own names ("P90" + "交互性"), not the referent again.

Returns None when the question asks no such thing or no term carries that name, and the other
stages decide.
"""

from __future__ import annotations

import re

from kg.chat.context import Ctx
from kg.textnorm import fold

__all__ = ["named_variant"]

#: "the P90 version of it", "its FP8 variant", "它的 P90 版本", "P90 版本的它": the modifier asked of.
_ASKS_VARIANT = re.compile(
    r"\bthe (?P<en>[a-z0-9][\w.+-]*) (?:version|variant|flavou?r|form|counterpart) of (?:it|that|this|them)\b"
    r"|\b(?:its|their) (?P<en2>[a-z0-9][\w.+-]*) (?:version|variant|flavou?r|form)\b"
    r"|(?:它|这个|该指标)的\s*(?P<zh>[a-z0-9][\w.+-]*)\s*(?:版本|变体|版)"
)


def named_variant(ctx: Ctx, question: str) -> str | None:
    """The term named "<modifier> <a name of the referent>" when the question asks for the
    modifier's version of the term under discussion; else None."""
    if not (ctx.used_context and ctx.referent):
        return None
    m = _ASKS_VARIANT.search(fold(question))
    if m is None:
        return None
    modifier = next(g for g in m.groups() if g)
    g = ctx.glossary
    referent = g.terms.get(ctx.referent)
    if referent is None:
        return None
    wanted = {_key(f"{modifier} {n}") for n in referent.all_names()}
    found = {
        t.id
        for t in g.terms.values()
        if t.id != referent.id and any(_key(n) in wanted for n in t.all_names())
    }
    return found.pop() if len(found) == 1 else None


def _key(name: str) -> str:
    return re.sub(r"\s+", "", fold(name))
