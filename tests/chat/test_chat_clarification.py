"""kg/chat/clarification.py: a reply naming a term answers the bot's clarifying question."""

from __future__ import annotations

import pytest

from kg.chat.clarification import resume_pending

NAMES = {"冷启动", "TTFT", "KV cache"}


def _is_name(text: str) -> bool:
    return text in NAMES


@pytest.mark.parametrize(
    ("pending", "reply", "resumed"),
    [
        ("What's its English name?", "I mean 冷启动", "what's 冷启动's english name?"),
        ("What does it stand for?", "TTFT", "what does TTFT stand for?"),
        ("What does it stand for?", "oh, I meant TTFT.", "what does TTFT stand for?"),
        ("它和 TPOT 有什么区别？", "我是说 TTFT", "TTFT 和tpot有什么区别?"),
        ("它的英文名是什么", "「KV cache」", "KV cache 的英文名是什么"),
        ("那它呢？", "抱歉没说清，我想问 TTFT。", "那 TTFT 呢?"),
        ("What does it stand for?", "Sorry, I wanted to ask about TTFT", "what does TTFT stand for?"),
    ],
)
def test_a_name_reply_fills_the_pronoun(pending: str, reply: str, resumed: str) -> None:
    assert resume_pending(pending, reply, _is_name) == resumed


@pytest.mark.parametrize(
    ("pending", "reply"),
    [
        ("What does it stand for?", "what is a GPU?"),  # a new question, not a name
        ("What does it stand for?", "I mean the other one"),
        ("What is TTFT?", "KV cache"),  # nothing in the pending question to fill
    ],
)
def test_anything_else_is_a_new_question(pending: str, reply: str) -> None:
    assert resume_pending(pending, reply, _is_name) is None
