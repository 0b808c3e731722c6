"""Questions about names the glossary only mentions (kg/chat/shapes/mentioned.py)."""

from __future__ import annotations

import pytest

from kg.chat import ConversationState, answer
from kg.search.engine import SearchEngine
from kg.store import Glossary
from tests.chat.chat_helpers import assert_grounded


@pytest.mark.parametrize(
    ("question", "lang", "intent"),
    [
        ("What is PyTorch?", "en", "definition"),
        ("PyTorch 是什么？", "zh", "definition"),
        ("pytorch", "en", "definition"),
        ("和 PyTorch 相关的概念有哪些？", "zh", "relation"),
        # asked of the glossary itself
        ("What does the glossary say about PyTorch?", "en", "definition"),
        ("词表里怎么说 PyTorch？", "zh", "definition"),
    ],
)
def test_a_mentioned_name_is_said_to_be_undefined_with_its_mentions(
    glossary: Glossary, engine: SearchEngine, question: str, lang: str, intent: str
) -> None:
    a = answer(glossary, engine, question)
    assert_grounded(a, glossary)
    assert (a.lang, a.intent, a.terms, a.focus) == (lang, intent, ["pytorch"], ["pytorch"])
    head = a.answer.splitlines()[0]
    if lang == "zh":
        assert head == "**PyTorch** 不是词表中定义的术语；来源只在以下地方提到它："
    else:
        assert head == "**PyTorch** is not defined in the glossary; it is mentioned in:"
    assert {c.kind for c in a.citations} == {"mention"} and len(a.citations) == 5
    assert a.decision["reason"] == "mentioned_only"
    assert "9" in a.answer.splitlines()[-1]  # 14 sentences, 5 quoted: "9 more"
    # each quote is presented as a mention in another term's entry, never as a definition
    quoted = [line for line in a.answer.splitlines() if "[" in line]
    assert len(quoted) == 5 and all(line.startswith("- ") for line in quoted)
    assert not any(w in a.answer for w in ("Definition", "定义（"))


def test_abbreviation_question_names_the_entry_that_mentions_it(
    glossary: Glossary, engine: SearchEngine
) -> None:
    a = answer(glossary, engine, "RCCL 是什么的缩写")
    assert_grounded(a, glossary)
    assert a.intent == "abbreviation" and a.terms == ["rccl"]
    [c] = a.citations
    assert (c.source, c.line, c.kind) == ("000", 349, "mention") and "RCCL 是 AMD 的对应实现" in c.quote
    assert "**NCCL** 词条（来源 000）" in a.answer
    assert a.follow_ups == ["什么是 NCCL？"]


def test_comparison_with_a_mentioned_side_quotes_both(glossary: Glossary, engine: SearchEngine) -> None:
    a = answer(glossary, engine, "NCCL 和 RCCL 有什么区别")
    assert_grounded(a, glossary)
    assert a.intent == "comparison"
    assert a.citations[0].kind == "definition" and a.citations[0].term_id != "rccl"
    # cited under the entry whose text mentions it: NCCL's "RCCL 是 AMD 的对应实现"
    assert any(
        c.kind == "mention" and c.term_id == "nvidia-collective-communications-library" for c in a.citations
    )
    assert "**RCCL** 不是词表中定义的术语" in a.answer and "找不到" not in a.answer


def test_a_mentioned_name_is_no_topic_for_pronouns(glossary: Glossary, engine: SearchEngine) -> None:
    state = ConversationState()
    answer(glossary, engine, "What is TorchDynamo?", context=state)
    assert state.topic == [] and state.last_terms == []
    follow = answer(glossary, engine, "What is it related to?", context=state)
    assert follow.needs_clarification or not follow.grounded


def test_questions_merely_naming_a_mentioned_name_go_the_usual_way(
    glossary: Glossary, engine: SearchEngine
) -> None:
    # Python is mentioned in the sources, but this question is not about what the glossary says of it
    a = answer(glossary, engine, "Python 里怎么把一个列表反转？")
    assert a.decision["reason"] != "mentioned_only"
    assert not any(c.kind == "mention" for c in a.citations)
    # a defined term whose definition mentions PyTorch is answered from its own definition
    b = answer(glossary, engine, "What is torch.compile?")
    assert b.terms[0] == "torch-compile" and b.citations[0].kind == "definition"
    assert "pytorch" not in b.terms  # related terms never list mentioned-only names
