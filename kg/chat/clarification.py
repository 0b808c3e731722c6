"""Answers to the bot's own clarifying question.

When a question's pronoun points at nothing ("What's its English name?" opening a
conversation) the bot asks which term is meant (:func:`kg.chat.shapes.clarify`) and keeps the
question in :attr:`ConversationState.pending`. A reply that is just a name, or a name after
"I mean" / "我是说" ("I mean 冷启动", "KV cache", "我指的是 TTFT"), answers that question:
the pending question is asked again with the pronoun replaced by the name. Any other reply is
a new question.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kg.chat.intents import find_pronouns
from kg.textnorm import fold

__all__ = ["resume_pending"]

_REPLY = re.compile(
    r"^\s*(?:(?:no|oh|sorry|well|um|ah|ok|okay)[,.!]?\s+)*"
    r"(?:(?:抱歉|不好意思|对不起|sorry|哦|噢|嗯|啊)[^，,。.]{0,6}[，,。.]?\s*)?"
    r"(?:i\s+mean(?:t)?|i'm\s+asking\s+about|i\s+am\s+asking\s+about|i\s+was\s+asking\s+about|"
    r"i\s+want(?:ed)?\s+to\s+ask\s+about|i\s+was\s+talking\s+about|i'm\s+talking\s+about|"
    r"the\s+one\s+called|我是说|我说的是|我指的是|我问的是|我想问的是|我想问|我要问|我在问|我想知道|"
    r"指的是|说的是|就是)?"
    r"[\s:：,，]*(?P<name>.+?)[\s。.!！?？]*$",
    re.IGNORECASE,
)
_POSSESSIVE = {"its": "'s", "their": "'s"}


def resume_pending(pending: str, reply: str, is_name: Callable[[str], bool]) -> str | None:
    """The pending question with its pronoun replaced by the name *reply* gives, or None.

    *is_name* says whether a text is exactly a glossary name (the reply must be one, so that a
    new question is never mistaken for a reply).
    """
    m = _REPLY.match(reply)
    if m is None:
        return None
    name = m.group("name").strip().strip("\"'“”‘’「」")
    if not name or not is_name(name):
        return None
    folded = fold(pending)
    pronouns = find_pronouns(folded)
    if not pronouns:
        return None
    p = pronouns[0]
    text = name + _POSSESSIVE.get(p.text, "")
    return " ".join(f"{folded[: p.start]} {text} {folded[p.end :]}".split())
