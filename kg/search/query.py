"""Question frames: the words around a term in "什么是 X？", "X 是啥", "what does X stand for".

:func:`strip_frame` removes them so that the remaining core can be matched as a name
("TP 是啥" → "TP"). Search uses the core for exact-name matching; the chatbot uses the
same patterns to recognise question shapes.
"""

from __future__ import annotations

import re

_ZH_PREFIX = re.compile(r"^(请问|请|麻烦|能否|可以)?(解释一下|介绍一下|说说|讲讲|什么是|啥是|何为|何谓)?\s*")
_ZH_SUFFIX = re.compile(
    r"\s*(到底|究竟)?(是什么缩写|是什么的缩写|的缩写是什么|的全称是什么|全称是什么|的全称|全称|"
    r"是什么意思|什么意思|的意思|是什么东西|是什么|是啥|是指什么|指什么|指的是什么|叫什么|"
    r"怎么理解|如何理解|的定义|定义)?\s*(呢|吗|啊|呀)?\s*[?？。!！]*$"
)
_EN_PREFIX = re.compile(
    r"^(please\s+)?(what\s+is|what's|whats|what\s+are|what\s+does|who\s+is|define|definition\s+of|"
    r"meaning\s+of|explain|describe|tell\s+me\s+about)\s+(an?\s+|the\s+)?",
    re.IGNORECASE,
)
_EN_SUFFIX = re.compile(r"\s*(stand\s+for|mean|means|refer\s+to)?\s*[?.!]*$", re.IGNORECASE)


def strip_frame(text: str) -> str:
    """The query without its question frame; the text itself when there is none."""
    core = text.strip()
    core = _EN_PREFIX.sub("", core)
    core = _EN_SUFFIX.sub("", core)
    core = _ZH_PREFIX.sub("", core)
    core = _ZH_SUFFIX.sub("", core)
    return core.strip(" \t\"'“”‘’「」`")
