"""Which of two offered alternatives a term is (kg/chat/alternatives.py), on the real graph."""

from __future__ import annotations

import pytest

from kg.chat.bot import answer
from kg.chat.context import ConversationState
from kg.search.engine import SearchEngine
from kg.store import Glossary


def _ask(glossary: Glossary, engine: SearchEngine, *turns: str):  # type: ignore[no-untyped-def]
    state = ConversationState()
    a = None
    for q in turns:
        a = answer(glossary, engine, q, context=state)
    assert a is not None
    return a


@pytest.mark.parametrize(
    ("turns", "expected"),
    [
        # memory-bound's own text: "典型：小 batch 的 GEMM、decode 阶段…"
        (("Is decode compute-bound or memory-bound?",), "memory-bound"),
        # a shared definition counts clause by clause: "AOT …（TensorRT 的 Plan 文件）；JIT …"
        (("按编译时机分，TensorRT 属于 AOT 还是 JIT？",), "ahead-of-time"),
        (("AOT 和 JIT 有什么区别？", "TensorRT 的 Plan 文件算前者还是后者？"), "ahead-of-time"),
        # a demonstrative noun ("那个阶段") is answered as a name is
        (("decode 阶段是干什么的？", "那个阶段一般卡在算力还是带宽上？"), "memory-bound"),
        # no alternative named: a question for the kind of bottleneck chooses among the bound terms
        (("prefill 属于哪种受限？",), "compute-bound"),
    ],
)
def test_the_alternative_the_sources_tie_to_the_subject_answers(
    glossary: Glossary, engine: SearchEngine, turns: tuple[str, ...], expected: str
) -> None:
    a = _ask(glossary, engine, *turns)
    assert a.grounded and a.intent == "which"
    assert a.citations[0].term_id == expected


@pytest.mark.parametrize(
    ("turns", "subject", "expected"),
    [
        # compute-bound's own text: "典型：大 batch 的 GEMM、prefill 阶段"
        (("prefill 是什么？", "那它一般是卡算力还是卡带宽？"), "prefill", "compute-bound"),
        (("What is prefill?", "Is it usually compute-bound or memory-bound?"), "prefill", "compute-bound"),
        (("decode 是什么？", "what's it usually bound by?"), "decode", "memory-bound"),
    ],
)
def test_asked_of_the_term_under_discussion_it_comes_first_then_the_alternative(
    glossary: Glossary, engine: SearchEngine, turns: tuple[str, ...], subject: str, expected: str
) -> None:
    # a relation answer, as the blind writers of the dev, dev3 and dev12 splits cite it
    a = _ask(glossary, engine, *turns)
    assert a.grounded and a.intent == "relation"
    assert [c.term_id for c in a.citations[:1]] == [subject]
    # the alternative is given beside it (with its own quote, or the subject's that states it)
    assert expected in a.terms[:3] or expected in a.answer.lower()


def test_nothing_is_decided_when_the_sources_tie_neither_or_both(
    glossary: Glossary, engine: SearchEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    import kg.chat.bot as bot

    seen: list[object] = []
    real = bot.chosen_alternative

    def spy(ctx):  # type: ignore[no-untyped-def]
        seen.append(real(ctx))
        return seen[-1]

    monkeypatch.setattr(bot, "chosen_alternative", spy)
    # GEMM is an example in both bound terms' texts (large and small batch): no side is chosen
    answer(glossary, engine, "GEMM 是 compute-bound 还是 memory-bound？")
    # no alternatives offered
    answer(glossary, engine, "prefill 是 compute-bound 吗？")
    assert seen == [None, None]
