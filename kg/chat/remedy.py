"""The term whose own text says it fixes the problem a question names: "它的显存碎片问题靠哪个技术
解决？" after KV cache → PagedAttention ("典型收益是减少碎片").

A question asking which technique solves, avoids or reduces a problem (解决 / 避免 / 减少 / 缓解,
solve / avoid / reduce / prevent) names the problem in words; a word of it that few terms' texts
use ("碎片": one) is its mark. Among the terms the search ranks best, the one whose own text puts a
remedy verb right before that word ("减少碎片") is the answer, ahead of terms the search ranks
higher for the common words of the question (capacity-bound for 显存 and 问题).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from kg.store import Glossary
from kg.textnorm import fold

__all__ = ["asks_which_fixes", "stated_remedy"]

#: The question asks for what solves a problem.
_ASKS = re.compile(
    r"(?:靠|用|拿|有)?(?:哪个|哪种|什么|啥)(?:技术|方法|办法|机制|手段|方案)?[^，,？?]{0,6}?(?:解决|避免|减少|缓解|消除|防止|降低)"
    r"|(?:解决|避免|减少|缓解|消除|防止)[^，,？?]{0,12}?(?:靠|用)(?:哪个|哪种|什么|啥)"
    r"|\b(?:which|what)\b[^?]{0,40}\b(?:fix(?:es)?|solves?|avoids?|prevents?|reduces?|eliminates?)\b"
)
#: In a term's text: a remedy verb, then (within a few characters) the problem word.
_REMEDY = re.compile(
    r"减少|降低|避免|解决|消除|缓解|防止|减轻|reduces?|avoids?|eliminates?|prevents?|fix(?:es)?"
)
_WINDOW = 8
#: A problem word is a mark when at most this many terms' texts use it.
_RARE = 3
_STOP = set(
    ["问题", "技术", "方法", "办法", "解决", "避免", "减少", "什么", "哪个", "哪种", "一般", "通常", "主要"]
)


def asks_which_fixes(question: str) -> bool:
    """Whether *question* (folded) asks which term solves or avoids a problem."""
    return bool(_ASKS.search(question))


@lru_cache(maxsize=8)
def _texts(glossary: Glossary) -> dict[str, str]:
    return {
        tid: fold(" ".join([*(d.text for d in t.definitions), *(d.note or "" for d in t.definitions)]))
        for tid, t in glossary.terms.items()
    }


def _marks(glossary: Glossary, question: str) -> list[str]:
    """Words of the question few terms' texts use: CJK pairs and Latin words."""
    texts = _texts(glossary)
    words = {
        question[i : i + 2]
        for i in range(len(question) - 1)
        if re.fullmatch(r"[\u4e00-\u9fff]{2}", question[i : i + 2])
    }
    words |= {w for w in re.findall(r"[a-z]{5,}", question)}
    words -= _STOP
    return [w for w in words if 0 < sum(w in x for x in texts.values()) <= _RARE]


def stated_remedy(glossary: Glossary, question: str, candidates: Sequence[str]) -> str | None:
    """Of *candidates* (best first), the first whose own text states a remedy of a mark of the
    question (see the module docstring); None when none does."""
    marks = _marks(glossary, question)
    if not marks:
        return None
    texts = _texts(glossary)
    for tid in candidates:
        text = texts.get(tid, "")
        for m in _REMEDY.finditer(text):
            window = text[m.end() : m.end() + _WINDOW]
            if any(w in window for w in marks):
                return tid
    return None
