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

__all__ = ["is_elliptical"]

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
