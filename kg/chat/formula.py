"""A question about a part of a formula the sources state: "公式里第二项对应哪个阶段？", "What does
the first quantity in its formula mean?", "它公式里和带宽相乘的那个量是什么？".

A few definitions state a formula ("E2E = TTFT + TPOT × (output_tokens - 1)", "并发 = 吞吐 × 延迟",
"性能上限 = min(峰值算力, 带宽 × 算术强度)"). A question that points into one, by position (第一项,
the second term, the last quantity) or by the factor beside another across a product (和带宽相乘的,
"multiplied by bandwidth"), asks for the term named there, not for the term whose formula it is.
Its parts are the terms the formula names, in the order it names them, the term it defines left
out ("E2E = …" in E2E latency's own text); a bare "第一项呢？" right after such a question points
into the same formula.

The formula's owner is a term the question names whose text holds a formula, else the term under
discussion, else the most recent term of the conversation whose text holds one.
"""

from __future__ import annotations

import re

from kg.chat.context import Ctx
from kg.textnorm import fold

__all__ = ["formula_part"]

#: A formula inside a definition: a sentence with "=" and an operator or a function around names.
_SENTENCE = re.compile(r"[^。；;！？!?]+")
_OPERATOR = re.compile(r"[+×*/÷−-]|\bmin\(|\bmax\(")
#: The question points into a formula.
_ASKS_FORMULA = re.compile(r"公式|等式|算式|formula|equation")
_ORDINALS = {"一": 0, "1": 0, "二": 1, "2": 1, "三": 2, "3": 2, "四": 3, "4": 3}
_ORDINALS_EN = {"first": 0, "second": 1, "third": 2, "fourth": 3, "last": -1}
_ORDINAL_ZH = re.compile(
    r"第\s*([一二三四1-4])\s*(?:项|个量|个变量|个因子|个因素|部分|个)|(最后)(?:一)?(?:项|个量|个)"
)
_ORDINAL_EN = re.compile(
    r"\b(first|second|third|fourth|last)\s+(?:term|quantity|quantities|item|factor|part|variable|one)\b"
)
#: "和带宽相乘的那个量", "乘以带宽的", "multiplied by bandwidth", "times the bandwidth"
_TIMES = re.compile(
    r"(?:和|与|跟)(?P<a>[^，,？?]{1,12}?)相乘|乘以(?P<b>[^，,？?]{1,12}?)的"
    r"|multiplied (?:by|with) (?:the )?(?P<c>[\w\- ]{2,30})|times (?:the )?(?P<d>[\w\- ]{2,30})"
)
#: "第一项呢？", "and the first term?": an ordinal alone, asked again of the formula just discussed
_BARE_ORDINAL = re.compile(
    r"^(?:那|那么|and |what about |how about )?(?:the )?"
    r"(?:第\s*[一二三四1-4]\s*(?:项|个量|个)|最后(?:一)?(?:项|个量|个)|(?:first|second|third|fourth|last)"
    r"(?:\s+(?:term|quantity|item|factor|one))?)\s*(?:呢|是什么|是啥)?\s*[?？。.]*$"
)


def _formulas(ctx: Ctx, term_id: str) -> list[str]:
    term = ctx.glossary.terms.get(term_id)
    if term is None:
        return []
    out = []
    for d in term.definitions:
        for s in _SENTENCE.findall(d.text):
            eq = re.search(r"[=＝]", s)
            if eq is None or not _OPERATOR.search(s[eq.end() :]):
                continue
            # from the clause that holds "=": "把算力与带宽统一到一个模型：性能上限 = min(…)"
            lead = re.split(r"[：:，,]", s[: eq.start()])[-1]
            out.append((lead + s[eq.start() :]).strip())
    return out


def _parts(ctx: Ctx, formula: str, owner: str) -> list[tuple[str, int, int]]:
    """The terms *formula* names, in order, once each, the owner left out: (term, start, end)."""
    out: list[tuple[str, int, int]] = []
    for s in ctx.linker.engine.matcher.find_mentions(formula):
        if s.term_id != owner and s.term_id in ctx.glossary.terms and s.term_id not in {t for t, _, _ in out}:
            out.append((s.term_id, s.start, s.end))
    return out


def _by_position(question: str) -> int | None:
    m = _ORDINAL_ZH.search(question)
    if m is not None:
        return -1 if m.group(2) else _ORDINALS[m.group(1)]
    e = _ORDINAL_EN.search(question)
    return _ORDINALS_EN[e.group(1)] if e is not None else None


def _factor_beside(ctx: Ctx, formula: str, parts: list[tuple[str, int, int]], named: str) -> str | None:
    """The term across a product from the one *named* ("带宽 × 算术强度": 算术强度 beside 带宽)."""
    hits = {s.term_id for s in ctx.linker.engine.matcher.find_mentions(named)}
    folded = fold(formula)
    for i, (tid, _, end) in enumerate(parts):
        if tid not in hits:
            continue
        after = folded[end : parts[i + 1][1]] if i + 1 < len(parts) else ""
        before = folded[parts[i - 1][2] : parts[i][1]] if i > 0 else ""
        if re.fullmatch(r"\s*[×*]\s*", after):
            return parts[i + 1][0]
        if re.fullmatch(r"\s*[×*]\s*", before):
            return parts[i - 1][0]
    return None


def _owner(ctx: Ctx, bare: bool) -> str | None:
    """Whose formula the question points into (see the module docstring)."""
    for s in ctx.analysis.spans:
        if _formulas(ctx, s.term_id):
            return s.term_id
    if ctx.referent and ctx.used_context and _formulas(ctx, ctx.referent):
        return ctx.referent
    state = ctx.state
    if state is None:
        return None
    turns = list(state.turns)
    if bare and not (turns and _ASKS_FORMULA.search(fold(turns[-1].question))):
        return None  # "第一项呢？" continues a formula question only
    for turn in reversed(turns[-3:]):
        for tid in turn.terms:
            if _formulas(ctx, tid):
                return tid
    return None


def formula_part(ctx: Ctx) -> tuple[str, str] | None:
    """The term a question about a part of a stated formula asks for, and the term whose formula
    it is; None when the question points into no formula the sources state."""
    f = ctx.parsed.folded
    bare = bool(_BARE_ORDINAL.match(f.strip()))
    if not bare and not _ASKS_FORMULA.search(f):
        return None
    position = _by_position(f)
    times = _TIMES.search(f)
    if position is None and times is None:
        return None  # "它的效能上限公式是什么": the formula itself, its owner's definition gives it
    owner = _owner(ctx, bare)
    if owner is None:
        return None
    for formula in _formulas(ctx, owner):
        parts = _parts(ctx, formula, owner)
        if times is not None:
            named = next(g for g in times.groups() if g)
            beside = _factor_beside(ctx, formula, parts, named)
            if beside is not None:
                return beside, owner
            continue
        if position is not None and parts and -len(parts) <= position < len(parts):
            return parts[position][0], owner
    return None
