"""Elliptical follow-ups: "那 TPOT 呢？", "And for decode?", "What about NVLink?".

A follow-up that only names a new term asks the previous question again about that term:
after "TTFT 主要由哪个阶段决定？", "那 TPOT 呢？" means "TPOT 主要由哪个阶段决定？". The previous
question is rewritten with the new name in place of the one name it held, or of its one pointer
("the latter", or a 它 when it named nothing else) (``kg/chat/bot.py``),
and the pipeline answers the rewritten question. Comparisons are left to the comparison shape, which
continues them with the new term as the other side ("And from blue-green deployments?").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["is_elliptical", "versus_follow_up"]

_FILLER = re.compile(
    r"^(?:and|also|then|so|what|how|about|for|with|the|an?|case|of|那|那么|还有|换成|换作|如果是|要是|的话|呢|"
    # a bare "which" after a which question asks it again ("那流水线并行用的是哪个？")
    r"(?:用的?是?|对应的?是?|靠的?是?|是)哪(?:个|一个|种|一种)|"
    r"[\s,，.。?？!！:：])*$"
)


def is_elliptical(folded: str, spans: Iterable[tuple[int, int]]) -> bool:
    """*folded* is nothing but its name spans and filler words ("and", "那…呢")."""
    covered = [False] * len(folded)
    for start, end in spans:
        for i in range(start, min(end, len(folded))):
            covered[i] = True
    rest = "".join(" " if covered[i] else ch for i, ch in enumerate(folded))
    return bool(_FILLER.match(rest)) and any(covered)


_VERSUS_EN = re.compile(
    r"^\s*(?:and|so|but|ok|okay)?[\s,]*(?:vs\.?|versus|compared (?:to|with)|as opposed to)\s+(?P<x>[^?？]+?)\s*[?？.!]*\s*$",
    re.IGNORECASE,
)
_VERSUS_ZH = re.compile(
    r"^\s*(?:那|那么|那如果)?\s*(?:跟|和|与|同)\s*(?P<x>[^，,。？?]+?)\s*(?:比|相比|比较|对比)(?:一下)?"
    r"(?:呢|起来呢|起来怎么样|怎么样|如何|又如何)?\s*[？?。!！]*\s*$"
)


def versus_follow_up(text: str) -> str | None:
    """ "vs canary?", "compared to TPOT?", "那跟 TPOT 比呢？": a comparison whose other side is the
    term under discussion, asked out in full for the comparison shape, the new term first as the
    asker holds it up against the one under discussion ("How is canary different from it?", "TPOT
    和它有什么区别？", :func:`kg.chat.shapes.common.question_order`); None for any other question."""
    m = _VERSUS_EN.match(text)
    if m:
        return f"How is {m.group('x')} different from it?"
    m = _VERSUS_ZH.match(text)
    if m:
        return f"{m.group('x')}和它有什么区别？"
    return None
