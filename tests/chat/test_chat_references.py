"""Lists and choices a question offers, for "第二个" / "the other one" / "哪一个"; and what they set apart."""

from __future__ import annotations

import re

import pytest

from kg.chat.bot import answer
from kg.chat.intents import parse
from kg.chat.model import ConversationState
from kg.chat.references import choice_terms, listed_terms
from kg.search.engine import SearchEngine
from kg.search.labels import Span
from kg.store import Glossary
from kg.textnorm import fold
from tests.chat.chat_helpers import converse


def _spans(question: str, names: dict[str, str]) -> tuple[str, list[Span]]:
    """The folded question and a span for each name (name → term id) where it occurs."""
    f = fold(question)
    spans = []
    for name, term in names.items():
        for m in re.finditer(re.escape(fold(name)), f):
            spans.append(Span(term, name, "label", m.start(), m.end(), m.group(0), (term,)))
    return f, sorted(spans, key=lambda s: s.start)


def test_a_chinese_comma_ends_a_clause_and_does_not_join_a_list() -> None:
    f, spans = _spans(
        "想把权重压到 INT4，GPTQ 和 AWQ 该选哪个？", {"INT4": "int4", "GPTQ": "gptq", "AWQ": "awq"}
    )
    assert listed_terms(f, spans) == ["gptq", "awq"]


def test_an_english_comma_list_keeps_its_order() -> None:
    f, spans = _spans(
        "Pallas, PJRT, XLA — what does the third one do?", {"Pallas": "p", "PJRT": "j", "XLA": "x"}
    )
    assert listed_terms(f, spans) == ["p", "j", "x"]


def test_without_a_list_every_name_in_order() -> None:
    f, spans = _spans("GPTQ 的思路跟 AWQ 差在哪", {"GPTQ": "gptq", "AWQ": "awq"})
    assert listed_terms(f, spans) == ["gptq", "awq"]


@pytest.mark.parametrize(
    ("question", "choice"),
    [
        ("TP 和 PP 里，哪一个更吃带宽？", ["tp", "pp"]),
        ("TP 还是 PP 更适合跨节点", ["tp", "pp"]),
        ("Which is cheaper to run, TP or PP?", ["tp", "pp"]),
        ("Which of TP and PP needs NVLink?", ["tp", "pp"]),
        # names given as examples or context are no choice
        ("负责 TP、PP 这类切分的组件是哪个？", []),
        ("Which runtime sits between TP or PP and the hardware?", []),
    ],
)
def test_a_choice_only_where_the_question_asks_to_choose(question: str, choice: list[str]) -> None:
    f, spans = _spans(question, {"TP": "tp", "PP": "pp"})
    assert choice_terms(f, spans) == choice


@pytest.mark.slow
def test_the_item_the_user_set_apart_does_not_answer(glossary: Glossary, real_engine: SearchEngine) -> None:
    # after "Scale-up 和 scale-out 网络差在哪？", "后者…用哪种网络？" is about scale-out: scale-up,
    # the former, is no answer to it
    state = ConversationState()
    answer(glossary, real_engine, "請問 Scale-up 和 scale-out 網路差在哪？", context=state)
    answer(glossary, real_engine, "前者有沒有什麼開放標準？", context=state)
    a = answer(glossary, real_engine, "後者在 AI 叢集裡通常用哪種網路？", context=state)
    assert a.citations and a.citations[0].term_id != "scale-up", a.terms


@pytest.mark.parametrize(
    ("turns", "expected"),
    [
        (["NVLink 是什么？", "InfiniBand 是什么？", "回到 NVLink，PCIe 跟它比怎么样？"], "nvlink"),
        (
            ["What is NVLink?", "What is InfiniBand?", "Back to NVLink: how does PCIe compare with it?"],
            "nvlink",
        ),
    ],
)
def test_a_return_to_a_named_term_is_what_the_pronoun_points_at(
    glossary: Glossary, real_engine: SearchEngine, turns: list[str], expected: str
) -> None:
    # "回到 TPOT，ITL 跟它是一回事吗？": 它 is TPOT, named by the return, not the last topic
    state = ConversationState()
    for q in turns[:-1]:
        answer(glossary, real_engine, q, context=state)
    a = answer(glossary, real_engine, turns[-1], context=state)
    assert expected in a.terms[:2] and "infiniband" not in a.terms[:2], a.terms


def test_the_latter_falls_back_to_the_two_terms_the_user_named(
    glossary: Glossary, engine: SearchEngine
) -> None:
    # "Are Triton and Triton Inference Server related?" answered about one of them (no pair of
    # answer terms), then "What protocols does the latter expose?": the second name the user gave
    state = ConversationState(
        topic=["triton"], named=["triton", "triton-inference-server"], last_terms=["triton"]
    )
    a = answer(glossary, engine, "What protocols does the latter expose?", context=state)
    assert a.citations and a.citations[0].term_id == "triton-inference-server", a.answer


def test_the_latter_of_one_term_under_two_names_is_that_term(
    glossary: Glossary, engine: SearchEngine
) -> None:
    # ITL and TPOT are one node: after it, "后者" has no pair to pick from but the one topic
    state = ConversationState(topic=["time-per-output-token"], last_terms=["time-per-output-token"])
    a = answer(glossary, engine, "InferenceX 那份术语怎么描述后者？", context=state)
    assert not a.needs_clarification and a.citations[0].term_id == "time-per-output-token", a.answer


def test_the_latter_among_names_in_the_question_beats_the_conversation(
    glossary: Glossary, engine: SearchEngine
) -> None:
    state = ConversationState(topic=["prefill"], pair=["prefill", "decode"], last_terms=["prefill", "decode"])
    a = answer(glossary, engine, "张量并行和流水线并行里，后者的主要问题是什么？", context=state)
    assert a.citations[0].term_id == "pipeline-parallelism", a.answer


def test_the_former_after_two_single_answers_is_the_older_one(
    glossary: Glossary, engine: SearchEngine
) -> None:
    # no comparison and no list named both: "前者" / "the latter" are the terms the last two
    # answers were about, in their order
    state = ConversationState()
    answer(glossary, engine, "MXU 是什么？", context=state)
    answer(glossary, engine, "VPU 是什么？", context=state)
    a = answer(glossary, engine, "前者为什么经常跑不满？", context=state)
    assert a.citations and a.citations[0].term_id == "mxu", a.terms
    state = ConversationState()
    answer(glossary, engine, "What is the MXU?", context=state)
    answer(glossary, engine, "What is the VPU?", context=state)
    b = answer(glossary, engine, "Why is the former hard to keep busy?", context=state)
    assert b.citations and b.citations[0].term_id == "mxu", b.terms
    # "of the first one" / "of the latter" read as ordinals: with no list, the same two answers
    state = ConversationState()
    answer(glossary, engine, "What is a hyperscaler?", context=state)
    answer(glossary, engine, "What is a neocloud?", context=state)
    c = answer(glossary, engine, "Give me a couple of examples of the first one.", context=state)
    assert c.citations and c.citations[0].term_id == "hyperscaler", c.terms


@pytest.mark.slow
def test_what_both_terms_belong_to_is_another_term(glossary: Glossary, real_engine: SearchEngine) -> None:
    # "它属于哪一类" is about the term (relation); "它们俩都属于哪一类" asks for the class the two share
    assert parse("它属于哪一类量化？").intent == "relation"
    assert parse("它们俩都属于哪一类量化？").intent == "which"
    state = ConversationState()
    answer(glossary, real_engine, "GPTQ 和 AWQ 有啥不一样？", context=state)
    a = answer(glossary, real_engine, "它们俩都属于哪一类量化？", context=state)
    assert a.citations and a.citations[0].term_id == "post-training-quantization", a.terms


@pytest.mark.slow
def test_besides_the_terms_pointed_at_is_none_of_them(glossary: Glossary, real_engine: SearchEngine) -> None:
    state = ConversationState()
    answer(glossary, real_engine, "TGI 是哪家出的？", context=state)
    answer(glossary, real_engine, "它跟 vLLM、SGLang 比，定位上有什么不同？", context=state)
    a = answer(glossary, real_engine, "除了它们三个，NVIDIA 官方的那个引擎是哪个？", context=state)
    assert a.citations and a.citations[0].term_id == "tensorrt-llm", a.terms


def test_a_demonstrative_after_a_preposition_places_the_named_term(glossary, engine) -> None:  # type: ignore[no-untyped-def]
    """ "What's the Pareto frontier on those charts?" after a question about roofline charts is
    about the Pareto frontier: "on those charts" places it, it does not point back."""
    from kg.chat import answer
    from kg.chat.model import ConversationState

    state = ConversationState()
    answer(glossary, engine, "What is a roofline?", context=state)
    a = answer(glossary, engine, "What's the Pareto frontier on those charts?", context=state)
    assert a.citations and a.citations[0].term_id == "pareto-frontier", [c.term_id for c in a.citations]
    b = answer(glossary, engine, "What is it used for?", context=state)  # "it" still points back
    assert b.citations and b.citations[0].term_id == "pareto-frontier"


def test_a_name_before_a_relative_clause_on_the_pronoun_is_what_is_asked(glossary, engine) -> None:  # type: ignore[no-untyped-def]
    """ "And the draft model it uses?" after speculative decoding asks about the draft model."""
    from kg.chat import answer
    from kg.chat.model import ConversationState

    state = ConversationState()
    answer(glossary, engine, "What is speculative decoding?", context=state)
    a = answer(glossary, engine, "And the draft model it uses?", context=state)
    assert a.citations and a.citations[0].term_id == "draft-model", [c.term_id for c in a.citations]


def test_which_of_two_alternatives_leaves_the_criterion_out(glossary: Glossary, engine: SearchEngine) -> None:
    # "for latency" says what to judge by; the sides are the two alternatives offered
    a = answer(glossary, engine, "which is better for latency, TP or PP?")
    assert a.citations[0].term_id in ("tensor-parallelism", "pipeline-parallelism"), a.terms
    assert "latency" not in a.focus


@pytest.mark.parametrize(
    ("turns", "expected"),
    [
        # PCIe and InfiniBand's own texts rank them below NVLink
        (["What's NVLink?", "And InfiniBand?", "Which one is faster?"], "nvlink"),
        # FP4 is what the choice is made by, not a third candidate
        (["What is Hopper?", "And Blackwell?", "Which one supports FP4?"], "blackwell"),
    ],
)
def test_which_one_after_two_single_answers_chooses_between_them(
    glossary: Glossary, engine: SearchEngine, turns: list[str], expected: str
) -> None:
    a = converse(glossary, engine, *turns)[0][-1]
    assert a.intent == "which" and a.citations[0].term_id == expected, a.terms


@pytest.mark.slow
def test_a_chinese_question_without_a_subject_is_about_the_term_under_discussion(
    glossary: Glossary, real_engine: SearchEngine
) -> None:
    # "部署时一般用哪种并行？" after MoE: Chinese leaves out the subject the conversation holds
    state = ConversationState()
    answer(glossary, real_engine, "什么是 MoE？", context=state)
    a = answer(glossary, real_engine, "部署时一般用哪种并行？", context=state)
    assert a.citations[0].term_id == "expert-parallelism", a.terms
    # asked cold, the same words have no such subject
    cold = answer(glossary, real_engine, "部署时一般用哪种并行？", context=ConversationState())
    assert cold.decision["reason"] != "context"


@pytest.mark.slow
@pytest.mark.parametrize(
    "turns",
    [
        ["vLLM 是什么？", "这个引擎是谁开源的？"],  # 推理引擎, quoted beside vLLM, only ends in the noun
        ["PagedAttention 是什么？", "哪个引擎最早用它？", "这个引擎还有什么特点？"],  # the engine answered
        ["What is PagedAttention?", "Which engine introduced it?", "Who open-sourced that engine?"],
    ],
)
def test_a_demonstrative_and_a_class_noun_point_at_the_term_of_that_class(
    glossary: Glossary, real_engine: SearchEngine, turns: list[str]
) -> None:
    # vLLM's definition calls it an inference engine (kg/chat/genus.py): "this engine" is vLLM
    a = converse(glossary, real_engine, *turns)[0][-1]
    assert a.citations and a.citations[0].term_id == "vllm", a.terms


@pytest.mark.slow
def test_and_the_second_asks_the_last_question_again_about_the_other_item(
    glossary: Glossary, real_engine: SearchEngine
) -> None:
    """ "Which collective does the first use?" then "And the second?": the same question about the
    second of the terms the user named in turn (EP), not a refusal."""
    answers, _ = converse(
        glossary,
        real_engine,
        "What's pipeline parallelism?",
        "And expert parallelism?",
        "Which collective does the first use?",
        "And the second?",
    )
    a = answers[3]
    assert a.question == "which collective does the second use?"
    assert a.grounded and "expert-parallelism" in a.terms[:3]


@pytest.mark.slow
def test_the_second_one_is_the_second_term_the_user_named(
    glossary: Glossary, real_engine: SearchEngine
) -> None:
    # TP, then PP, then EP were named: "the second one" is PP (not EP, the last defined)
    answers, _ = converse(
        glossary,
        real_engine,
        "explain tensor parallelism briefly",
        "Which collective does it rely on to combine the partial results?",
        "And for pipeline parallelism?",
        "Expert parallelism is specific to what kind of model?",
        "Why do some GPUs sit idle with the second one?",
    )
    assert answers[4].citations[0].term_id == "pipeline-parallelism"


@pytest.mark.slow
def test_a_question_asked_again_about_the_other_item_keeps_its_answers_shape(
    glossary: Glossary, real_engine: SearchEngine
) -> None:
    """Answered as a relation (TP quoted first, AllReduce beside it), the same question about the
    latter keeps that order (PP first, AllGather beside it)."""
    answers, _ = converse(
        glossary,
        real_engine,
        "帮我比较一下张量并行和流水线并行",
        "那前一个靠哪种集合通信来同步结果？",
        "后一个呢？",
    )
    assert [c.term_id for c in answers[1].citations[:2]] == ["tensor-parallelism", "allreduce"]
    assert [c.term_id for c in answers[2].citations[:2]] == ["pipeline-parallelism", "allgather"]


@pytest.mark.parametrize("asked", ["它需要单独的草稿模型吗？", "它需要单独的 draft 模型吗？"])
def test_a_chinese_yes_no_question_opening_with_the_pronoun_is_about_the_referent(
    glossary: Glossary, engine: SearchEngine, asked: str
) -> None:
    """The pronoun is the subject; the name after the verb is what is asked of it (Medusa, not
    the draft model it may not need)."""
    answers, _ = converse(glossary, engine, "What is Medusa?", asked)
    assert answers[1].citations[0].term_id == "medusa"


def test_a_taiwan_word_for_cache_in_simplified_characters_links(
    glossary: Glossary, engine: SearchEngine
) -> None:
    # 快取 (Taiwan, same characters in both scripts) is 缓存; "L2 缓存" is L2 cache's mixed name
    a = answer(glossary, engine, "B200 的 L2 快取有多大？")
    assert a.citations[0].term_id == "l2-cache" and "b200" in a.terms


def test_the_referent_is_searched_as_the_sources_write_it(
    glossary: Glossary, engine: SearchEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "pue" in lower case reads as a word to the matcher; "PUE" is the name
    import kg.chat.bot as bot

    searched: list[str] = []
    real = bot.retrieve

    def spy(linker, analysis, text):  # type: ignore[no-untyped-def]
        searched.append(text)
        return real(linker, analysis, text)

    monkeypatch.setattr(bot, "retrieve", spy)
    converse(glossary, engine, "What's PUE?", "Is a lower value of it better?")
    assert any("PUE" in text for text in searched[1:]), searched


@pytest.mark.slow
@pytest.mark.parametrize(
    "asked",
    [
        "How does it store the KV cache?",
        "how does that one store the finished requests' KV?",
        "这个技术是用什么结构来存 KV cache 的？",
    ],
)
def test_how_the_referent_acts_on_a_named_term_is_answered_by_the_referent(
    glossary: Glossary, real_engine: SearchEngine, asked: str
) -> None:
    # the pronoun is the subject, KV cache the object; RadixAttention's own text says how it stores it
    answers, _ = converse(glossary, real_engine, "What's RadixAttention?", asked)
    assert answers[1].citations[0].term_id == "radixattention", answers[1].citations[:2]


def test_a_how_question_relating_the_referent_to_a_named_term_is_not_about_the_referent_alone() -> None:
    import kg.chat.bot as bot

    assert bot._HOW_AUX.match("how does ") and bot._HOW_BETWEEN.match(" that one store the ")
    assert bot._RELATING.search(" it compare to the ")
    assert bot._ZH_MEANS.match("是用什么结构来存 ") and not bot._ZH_MEANS.match("用哪个库做 ")


@pytest.mark.parametrize(
    "question",
    [
        "Which FlashAttention version started being based on Triton?",
        "Which version of FlashAttention targets Hopper?",
        "FlashAttention 从哪个版本起基于 Triton？",
    ],
)
def test_the_term_whose_version_is_asked_for_answers(
    glossary: Glossary, engine: SearchEngine, question: str
) -> None:
    # versions are no terms of their own: FlashAttention's entry says which one, not Triton's
    a = answer(glossary, engine, question)
    assert a.citations[0].term_id == "flashattention", a.citations[:2]


@pytest.mark.slow
def test_which_version_of_the_term_under_discussion_is_answered_by_it(
    glossary: Glossary, real_engine: SearchEngine
) -> None:
    answers, _ = converse(
        glossary,
        real_engine,
        "FlashAttention 是怎么加速注意力的？",
        "听说它后来是基于 Triton 写的，从哪个版本开始？",
    )
    assert answers[1].citations[0].term_id == "flashattention", answers[1].citations[:2]
