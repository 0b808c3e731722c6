"""The member of a family of names that a "which kind of <head>" question asks for.

Several terms share the last word of their names: compute-bound, memory-bound and capacity-bound
(计算受限, 内存受限, 容量受限); tensor, pipeline and expert parallelism (张量并行, 流水线并行,
专家并行). A question that asks "which <head>" ("这算哪种受限？", "Which third kind of bound does long
context usually run into?", "部署这类模型一般用哪种并行？") asks for one of them, so its answer is the
member the search ranks best for the question — not a term outside the family that the question's
other words pull up (memory capacity for "70B 模型 … 放不下", long context for "long context").

Decided only when the head is the last word of at least three names, the answer found is not
already of that kind by its own account, and the question does not
name a member itself (then it asks about that one).
"""

from __future__ import annotations

import re

from kg.chat.context import Ctx
from kg.chat.genus import CLASS_WORDS
from kg.store import Glossary
from kg.textnorm import fold

__all__ = ["family_member", "name_family"]

#: "哪种受限", "哪一类并行", "which kind of bound does …", "which parallelism is …": the head is the
#: whole noun up to the verb or the end ("哪个推理引擎是…" asks for an inference engine, not for one of
#: the names ending in 推理).
_ZH = re.compile(
    r"哪(?:一)?(?:种|类|個|个)(?P<h>[\u4e00-\u9fff]{2,4}?)(?=[在是用会能对里中上的呢吗？?，,。]|$)"
)
_EN = re.compile(
    r"\bwhich\s+(?:(?:first|second|third|other|another)\s+)?(?:(?:kind|type|sort|form)s?\s+of\s+)?"
    r"(?:[a-z-]+\s+){0,2}?(?P<h>[a-z-]+)\s+(?:does|do|did|is|are|was|were|would|should|can|will)\b"
)
#: A head shared by two names may be chance (激活函数, 核函数); three make a family.
_MIN_FAMILY = 3
#: Words that end many names for reasons unrelated to a family (a measure's unit, a product line).
_NOT_HEADS = frozenset(["model", "unit", "token", "time", "second", "engine", "模型"])


def name_family(glossary: Glossary, head: str) -> list[str]:
    """The terms one of whose names ends with the word *head* (folded), longer than it."""
    h = fold(head).strip()
    if not h or h in _NOT_HEADS:
        return []
    latin = h.isascii()
    pattern = re.compile(rf"(?:^|[\s-]){re.escape(h)}$" if latin else rf".{re.escape(h)}$")
    return sorted(
        tid
        for tid, t in glossary.terms.items()
        if any(pattern.search(fold(n).strip()) for n in t.all_names())
    )


def _family(ctx: Ctx) -> tuple[str, list[str]]:
    """The head the question asks for and the terms whose names end with it."""
    f, g = ctx.parsed.folded, ctx.glossary
    for rx in (_ZH, _EN):
        m = rx.search(f)
        fam = name_family(g, m.group("h")) if m is not None else []
        if m is not None and len(fam) >= _MIN_FAMILY:
            return m.group("h"), fam
    return "", []


def _called(glossary: Glossary, term_id: str, head: str) -> bool:
    """*term_id* calls itself a *head* in its names or the first clause of a definition (softmax
    "…的函数" is a function, ONNX "…模型格式" a format): already of the kind asked for."""
    term = glossary.terms.get(term_id)
    if term is None:
        return False
    texts = [fold(n) for n in term.all_names()] + [
        fold(re.split(r"[，,。；;]", d.text)[0]) for d in term.definitions
    ]
    words = {head, *CLASS_WORDS.get(head.removesuffix("s"), ())}  # "formats": also 格式
    return any(w in t for t in texts for w in words)


def family_member(ctx: Ctx) -> str | None:
    """The member of the name family the question asks for that the search ranks best, or None."""
    head, members = _family(ctx)
    fam = set(members)
    if len(fam) < _MIN_FAMILY or ctx.retrieval is None:
        return None
    named = {s.term_id for s in ctx.analysis.spans}
    if named & fam:
        return None  # "张量并行属于哪种并行？" names a member: it asks about that one
    d = ctx.decision
    if d is not None and d.candidate and _called(ctx.glossary, d.candidate, head):
        return None  # the answer found is of the kind asked for already
    return next((h.term_id for h in ctx.retrieval.hits if h.term_id in fam), None)
