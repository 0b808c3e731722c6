"""Which of two named terms answers a question about a quantity: the one whose own text states it.

"B200 的 L2 快取有多大？", "一張 H100 有幾個 SM？": the figures are in the part's definition ("A100 L2 为
40 MB、H100 50 MB、B200 高达 60 MB", "A100 108 SM、H100 132 SM…"), not in the model's. "What's the
B200's VRAM capacity?" is the reverse: B200's own text gives "192 GB VRAM". Of the two terms a
quantity question names, the one whose definition writes the other's name next to a number is
quoted first, the other beside it. When neither or both do, nothing is decided here.
"""

from __future__ import annotations

import re

from kg.chat.context import Ctx
from kg.textnorm import fold

__all__ = ["asks_quantity", "stated_by"]

#: A question that asks how much, how many, how big.
_QUANTITY = re.compile(
    r"多大|多少|多快|多高|多长|[几幾](?:个|個|张|張|块|塊|颗|顆)|"
    r"\bhow (?:much|many|big|large|fast|wide|high|long)\b|\b(?:capacity|size|count|number of)\b"
)
#: How far (in characters) from the other's name a figure may stand: "H100 50 MB", "192 GB VRAM".
_NEAR = 12


def asks_quantity(folded: str) -> bool:
    """Whether the (folded) question asks for a quantity."""
    return bool(_QUANTITY.search(folded))


def _states(ctx: Ctx, term_id: str, other: str) -> bool:
    """Whether a definition of *term_id* writes a name of *other* with a number next to it."""
    g = ctx.glossary
    names = sorted({fold(n) for n in g.terms[other].all_names() if len(n) >= 2}, key=len, reverse=True)
    for d in g.terms[term_id].definitions:
        text = fold(d.text)
        for n in names:
            for m in re.finditer(re.escape(n), text):
                # the name must stand alone: "H100" is not inside "GH100"; "SM" not inside "SMT"
                if m.start() and text[m.start() - 1].isalnum() and text[m.start() - 1].isascii():
                    continue
                if m.end() < len(text) and text[m.end()].isalnum() and text[m.end()].isascii():
                    continue
                if any(
                    c.isdigit()
                    for c in text[max(0, m.start() - _NEAR) : m.start()] + text[m.end() : m.end() + _NEAR]
                ):
                    return True
    return False


def stated_by(ctx: Ctx) -> tuple[str, str] | None:
    """(the term whose text states the quantity, the other named term), or None."""
    if not asks_quantity(ctx.parsed.folded) or ctx.parsed.intent not in (
        "definition",
        "unknown",
        "which",
        "howto_why",
    ):
        return None
    named = list(dict.fromkeys(s.term_id for s in ctx.analysis.spans if s.term_id in ctx.glossary))
    if len(named) != 2:
        return None
    a, b = named
    by_a, by_b = _states(ctx, a, b), _states(ctx, b, a)
    if by_a == by_b:
        return None
    return (a, b) if by_a else (b, a)
