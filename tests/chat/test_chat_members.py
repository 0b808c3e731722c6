"""The members shape: "Which engines use it?" answers with the engines, not the term itself."""

from __future__ import annotations

import pytest

from kg.chat.bot import answer
from kg.chat.model import ConversationState
from kg.chat.shapes.members import asks_for_examples, asks_for_instances, asks_for_members
from kg.search.engine import SearchEngine
from kg.store import Glossary
from tests.chat.chat_helpers import assert_grounded, converse


@pytest.mark.parametrize(
    ("question", "cls"),
    [
        ("Which engines have adopted it?", "engines"),
        ("What frameworks go through it by default?", "frameworks"),
        ("哪些引擎支持它？", "引擎"),
        ("哪些东西是基于它做的？", ""),  # a class word that narrows nothing
        ("哪些引擎已经用上它了？", "引擎"),  # an adverb before the verb
        ("有哪些推論引擎支援它？", "推论引擎"),  # Taiwan wording
        ("Which inference engines support it?", "engines"),  # a modifier before the class
        # no class of members asked for
        ("What uses it?", None),
        ("Which engines use PagedAttention?", None),  # nothing points back
        ("PTQ 有哪些具体算法", None),
        ("Which of them is faster?", None),
    ],
)
def test_a_plural_class_about_the_term_pointed_at(question: str, cls: str | None) -> None:
    assert asks_for_members(question) == cls


def test_the_members_come_first_in_the_order_the_term_names_them(
    glossary: Glossary, engine: SearchEngine
) -> None:
    state = ConversationState()
    answer(glossary, engine, "What is chunked prefill?", context=state)
    a = answer(glossary, engine, "Which engines have adopted it?", context=state)
    cited = [c.term_id for c in a.citations]
    assert cited[0] == "vllm" and "tensorrt-llm" in cited and "chunked-prefill" in a.terms
    # every member is a graph neighbour of the term, and an engine
    assert all(t in glossary.neighbours("chunked-prefill") for t in a.focus if t != "chunked-prefill")


def test_a_name_of_the_kind_it_is_is_no_member(glossary: Glossary, engine: SearchEngine) -> None:
    state = ConversationState()
    answer(glossary, engine, "什么是 MLIR？", context=state)
    a = answer(glossary, engine, "哪些东西是基于它做的？", context=state)
    assert a.focus and "intermediate-representation" not in a.focus[:-1]
    assert a.focus[-1] == "multi-level-intermediate-representation"


def test_an_ordinal_after_a_list_points_into_the_answer(glossary: Glossary, engine: SearchEngine) -> None:
    state = ConversationState()
    answer(glossary, engine, "什么是 MLIR？", context=state)
    listed = answer(glossary, engine, "哪些东西是基于它做的？", context=state).listed
    assert len(listed) >= 2
    a = answer(glossary, engine, "第二个是什么？", context=state)
    assert a.citations and a.citations[0].term_id == listed[1]


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("Which methods are the usual examples of it?", True),
        ("Give me a couple of examples of the latter.", True),
        ("后者有哪些代表算法？", True),
        ("它有哪些常见的例子？", True),
        ("它的代表方法有哪些", True),
        # one example is a question about the term itself; 代表 as "stands for" asks no examples
        ("What's an example of it?", False),
        ("TTFB 代表什么", False),
        ("这个指标代表啥？", False),
    ],
)
def test_a_request_for_the_examples_of_a_term(question: str, asked: bool) -> None:
    assert asks_for_examples(question) is asked


def test_the_examples_come_in_the_order_the_source_gives_them(
    glossary: Glossary, engine: SearchEngine
) -> None:
    # 002: "模型训练完再做量化…。AWQ、GPTQ、SmoothQuant 均属此类。"
    (_, a, third), _ = converse(glossary, engine, "什么是训练后量化？", "它有哪些代表算法？", "第三个呢？")
    assert a.listed[:3] == ["activation-aware-weight-quantization", "gptq", "smoothquant"]
    # the term first, quoted from the definition that gives the examples, then each example
    assert [c.term_id for c in a.citations[:4]] == ["post-training-quantization", *a.listed[:3]]
    assert a.citations[0].quote.endswith("均属此类。") and a.focus[0] == "post-training-quantization"
    assert third.citations and third.citations[0].term_id == "smoothquant"


def test_no_examples_given_leaves_the_question_to_the_other_shapes(
    glossary: Glossary, engine: SearchEngine
) -> None:
    # TTFT's definitions give no instances of it: the question is answered as before, not as a list
    (_, a), _ = converse(glossary, engine, "What is TTFT?", "Give me some examples of it.")
    assert a.listed == []


def test_two_ordinals_compare_the_two_items_they_pick(glossary: Glossary, engine: SearchEngine) -> None:
    # "back to it" returns to the conversation; its "it" is no pointer of the question
    (_, listing, _, a), _ = converse(
        glossary,
        engine,
        "What is speculative decoding?",
        "Which methods are the usual examples of it?",
        "btw do you know a good ramen place in Shibuya?",
        "ok back to it — how does the second one differ from the first?",
    )
    assert listing.listed[:2] == ["medusa", "eagle"]
    assert a.intent == "comparison"
    assert [c.term_id for c in a.citations[:1]] == ["eagle"] and "medusa" in a.terms[:2]


def test_the_class_itself_is_no_member(glossary: Glossary, engine: SearchEngine) -> None:
    (_, a, last), _ = converse(
        glossary, engine, "前缀缓存是什么？", "哪些引擎支持它？", "回来说正事：最后那个是谁家出的？"
    )
    assert a.listed and "inference-engine" not in a.listed
    assert last.citations and last.citations[0].term_id == a.listed[-1]


def test_a_qualified_class_word_is_its_head(glossary: Glossary, engine: SearchEngine) -> None:
    # "推论引擎" are engines: the same members as "引擎"
    (_, a), _ = converse(glossary, engine, "什么是前缀缓存？", "有哪些推論引擎支援它？")
    (_, b), _ = converse(glossary, engine, "什么是前缀缓存？", "哪些引擎支持它？")
    assert a.listed and a.listed == b.listed


def test_a_name_before_a_word_for_its_kinds_is_the_class_listed(
    glossary: Glossary, engine: SearchEngine
) -> None:
    """ "有哪些注意力的变体能让 KV cache 变小": the kinds of attention; KV cache, named after the
    kinds word, only narrows them (it was taken for the class, the last name of the phrase)."""
    a = answer(glossary, engine, "有哪些注意力的变体能让 KV cache 变小？")
    assert a.intent == "listing" and a.focus == ["attention"]
    assert "kv-cache" not in a.terms[:1]


def test_a_class_no_term_names_lists_a_joint_line_in_its_order(
    glossary: Glossary, real_engine: SearchEngine
) -> None:
    # no term is "集合通信原语"; the one found belongs to 002's line "AllReduce / AllGather /
    # All-to-All 分布式集合通信原语…": its members in the line's order, each by its own clause
    a = answer(glossary, real_engine, "常见的集合通信原语有哪几种")  # the class is found by meaning
    assert a.intent == "listing" and a.terms[:3] == ["allreduce", "allgather", "all-to-all"], a.terms
    quotes = {c.term_id: c.quote for c in a.citations}
    assert quotes["allgather"].startswith("AllGather") and "AllReduce" not in quotes["allgather"]
    assert_grounded(a, glossary)


def test_a_class_phrase_a_joint_line_says_beats_the_name_inside_it(
    glossary: Glossary, real_engine: SearchEngine
) -> None:
    # "NVIDIA 数据中心 GPU 架构" contains the name GPU, but 002's line "Ampere / Hopper / Blackwell
    # NVIDIA 三代数据中心 GPU 微架构…" says the rest of the phrase: its members, in its order
    a = answer(glossary, real_engine, "NVIDIA 数据中心 GPU 架构都有哪几代")
    assert a.intent == "listing" and a.terms[:1] == ["ampere"], a.terms
    assert a.listed[:2] == ["hopper", "blackwell"], a.listed
    assert_grounded(a, glossary)


@pytest.mark.parametrize(
    "question",
    ["举几个例子？", "能举几个例子吗", "Any examples?", "Give me some examples."],
)
def test_a_bare_request_for_examples_lists_the_topics_instances(
    glossary: Glossary, engine: SearchEngine, question: str
) -> None:
    # 001: "Microscaling formats … 如 MXFP8、MXFP4、NVFP4，按小块使用缩放因子。" — a bare request names
    # nothing: it asks for the examples of the term under discussion, in the source's order
    (_, a, last), _ = converse(
        glossary, engine, "微缩放格式是啥？", question, "最后那个的 block size 是多少？"
    )
    assert a.intent == "listing" and a.grounded
    assert a.listed[:2] == ["mxfp4", "nvfp4"]
    assert "属于  这一类" not in a.answer and "kind  in" not in a.answer  # the class is named
    assert last.citations and last.citations[0].term_id == "nvfp4"


@pytest.mark.parametrize(
    "turns",
    [
        [
            "投机解码为什么能加速？",
            "里面负责先猜 token 的那个小模型叫啥？",
            "接受长度跟投机解码有啥关系？",
            "有哪些代表性的方法？",
        ],
        [
            "What is speculative decoding?",
            "What number decides whether it's worth it?",
            "Name some representative methods",
        ],
    ],
)
def test_a_bare_request_for_kinds_lists_those_of_what_the_conversation_is_about(
    glossary: Glossary, engine: SearchEngine, turns: list[str]
) -> None:
    # the last turns led with the draft model and acceptance length; the asker kept naming
    # speculative decoding, whose methods (EAGLE, Medusa …) are asked for
    answers, _ = converse(glossary, engine, *turns)
    a = answers[-1]
    assert a.intent == "listing" and a.grounded
    assert a.focus == ["speculative-decoding"], a.focus
    assert {"eagle", "medusa"} & set(a.listed), a.listed


def test_a_bare_request_for_examples_with_no_conversation_is_not_answered(
    glossary: Glossary, engine: SearchEngine
) -> None:
    a = answer(glossary, engine, "Any examples?", context=ConversationState())
    assert not a.citations


@pytest.mark.parametrize(
    ("opening", "question"),
    [
        ("PTQ 是什么？", "哪些算法属于它？"),
        ("What's the difference between PTQ and QAT?", "Which algorithms fall under the first one?"),
    ],
)
def test_the_kinds_that_belong_to_a_term_are_its_instances(
    glossary: Glossary, engine: SearchEngine, opening: str, question: str
) -> None:
    # 002 PTQ: "AWQ、GPTQ、SmoothQuant 均属此类。"
    (_, a), _ = converse(glossary, engine, opening, question)
    assert a.listed[:3] == ["activation-aware-weight-quantization", "gptq", "smoothquant"]


def test_a_forward_example_marker_gives_only_what_follows_it(
    glossary: Glossary, engine: SearchEngine
) -> None:
    # 001 Neocloud: "专注 GPU 的专业云服务商，例如 CoreWeave、Nebius": GPU is no instance of it
    (_, a), _ = converse(glossary, engine, "What is a neocloud?", "Give me a couple of examples of it.")
    assert "graphics-processing-unit" not in a.listed


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("哪些算法属于它？", True),
        ("Which algorithms fall under the first one?", True),
        ("哪些引擎支持它？", False),  # a class of neighbours, not its kinds
        ("Which algorithms fall under PTQ?", False),  # nothing points back
    ],
)
def test_a_request_for_the_kinds_of_a_term(question: str, asked: bool) -> None:
    assert asks_for_instances(question) is asked
