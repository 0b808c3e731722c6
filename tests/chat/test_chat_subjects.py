"""Which term a follow-up is about when it names one and points at another, on the real graph:
a named variant (kg/chat/variant.py), a name the question fronts or makes its subject, the
givens of a condition, a pointer into the question's own pair or the last listing."""

from __future__ import annotations

import pytest

from kg.chat.intents import parse
from kg.search.engine import SearchEngine
from kg.store import Glossary
from tests.chat.chat_helpers import converse


def _first(glossary: Glossary, engine: SearchEngine, *turns: str) -> str | None:
    answers, _ = converse(glossary, engine, *turns)
    last = answers[-1]
    return last.citations[0].term_id if last.citations else None


def test_the_named_variant_of_the_term_under_discussion(glossary: Glossary, engine: SearchEngine) -> None:
    # P90 交互性 is "P90" before interactivity's own Chinese name
    assert _first(glossary, engine, "And what is interactivity?", "What's the P90 version of it?") == (
        "p90-interactivity"
    )
    # no term is named "FP64 交互性": the variant step stays out of the way
    assert _first(glossary, engine, "And what is interactivity?", "What's the FP64 version of it?") != (
        "p90-interactivity"
    )


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("它跟fp16比,动态范围哪个大?", "comparison"),
        ("线性注意力跟它们比,内存会随对话变长吗?", "comparison"),
        ("它跟sram比带宽怎么样", "comparison"),
        ("gptq是靠什么信息来补偿误差的?", "unknown"),  # how it works, no kind of term asked for
        ("它的检索层一般用什么来存向量?", "which"),
    ],
)
def test_comparison_frames_and_how_it_works(question: str, intent: str) -> None:
    assert parse(question).intent == intent


def test_a_pronoun_side_of_a_comparison_is_the_referent(glossary: Glossary, engine: SearchEngine) -> None:
    answers, _ = converse(glossary, engine, "BF16 有什么特点？", "它跟 FP16 比，动态范围哪个大？")
    assert [c.term_id for c in answers[1].citations[:1]] == ["bf16"] and "fp16" in answers[1].terms


def test_the_named_side_compared_with_the_pair_under_discussion(
    glossary: Glossary, engine: SearchEngine
) -> None:
    assert _first(
        glossary, engine, "MLA 是什么？", "GQA 呢？", "线性注意力跟它们比，内存会随对话变长吗？"
    ) == ("linear-attention")


@pytest.mark.slow
def test_the_term_a_question_makes_its_subject(glossary: Glossary, real_engine: SearchEngine) -> None:
    # "those layers" are MoE's; grouped GEMM is what the question asks about (the follow-up
    # ranker's pick, which the which shape used to look past as a name the question gives)
    engine = real_engine
    assert _first(
        glossary,
        engine,
        "What is a mixture-of-experts model?",
        "And how does grouped GEMM help those layers?",
    ) == ("grouped-gemm")
    # a fronted name taken up by "it"
    assert (
        _first(
            glossary,
            engine,
            "What's the difference between an intelligence benchmark and a performance benchmark?",
            "And Elo — can it stand in for task metrics?",
        )
        == "elo-quality-meta-metric"
    )


@pytest.mark.parametrize(
    "follow",
    [
        "如果 TTFT 是 200 ms、TPOT 是 20 ms、一共输出 101 个 token，它大概是多少？",
        "If TTFT is 200 ms and TPOT is 20 ms over 101 tokens, what is it roughly?",
    ],
)
def test_names_in_a_condition_are_its_givens(glossary: Glossary, engine: SearchEngine, follow: str) -> None:
    assert _first(glossary, engine, "E2E 延迟是什么？", follow) == "e2e-latency"


@pytest.mark.slow
def test_an_ordinal_into_the_pair_the_question_names(glossary: Glossary, real_engine: SearchEngine) -> None:
    assert _first(glossary, real_engine, "AWQ 跟 GPTQ 裡，第二個是靠什麼資訊來補償誤差的？") == "gptq"


def test_which_of_those_chooses_among_the_listed_items(glossary: Glossary, engine: SearchEngine) -> None:
    turns = (
        "Can you explain speculative decoding?",
        "What representative methods of it are there?",
        "Which of those adds extra decoder heads instead of using a separate draft model?",
    )
    assert _first(glossary, engine, *turns) == "medusa"


@pytest.mark.slow
def test_gai_before_a_verb_is_should_not_a_pronoun(glossary: Glossary, real_engine: SearchEngine) -> None:
    # "該從哪裡查起" is "where should I start", not "this one": the question is about the error
    turns = ("HBM 是什麼？", "我的顯示卡一載入模型就報記憶體不足，該從哪裡查起？")
    assert _first(glossary, real_engine, *turns) == "out-of-memory-error"


@pytest.mark.parametrize(
    ("turns", "first"),
    [
        (("GB200 是由什麼組成的？", "那 GH200 呢？", "這兩個裡面用的 CPU 叫什麼？"), "grace-cpu"),
        (("AOT 和 JIT 有啥区别？", "前者在 TensorRT 里编出来的文件叫什么？"), "engine"),
    ],
)
def test_a_name_asked_for_is_the_answer(
    glossary: Glossary, engine: SearchEngine, turns: tuple[str, ...], first: str
) -> None:
    # "…叫什么？" asks for a name: the term that bears it comes first, even when the referent's own
    # text states it (the relation shape would quote the referent first)
    assert _first(glossary, engine, *turns) == first


@pytest.mark.slow
def test_a_how_question_about_the_term_under_discussion(
    glossary: Glossary, real_engine: SearchEngine
) -> None:
    # the ranker keeps BF16; "推理" before the pronoun is a name half the glossary uses
    turns = (
        "BF16 有什么特点？",
        "它跟 FP16 比，动态范围哪个大？",
        "做推理时为什么常拿它当量化精度的对照基准？",
    )
    assert _first(glossary, real_engine, *turns) == "bf16"


@pytest.mark.parametrize(
    ("text", "switches"),
    [
        ("cool thx. unrelated, but who won the champions league last year?", True),
        ("好了不聊这个,今晚吃火锅还是烤肉?", True),
        ("ok, changing the subject: what is a warp?", True),
        ("unrelated: what's the weather?", True),
        ("ok so what is it used for?", False),
        ("好的,它用在哪个阶段?", False),
    ],
)
def test_a_topic_switch_after_thanks_or_an_ok(text: str, switches: bool) -> None:
    from kg.chat.intents import TOPIC_SWITCH

    assert bool(TOPIC_SWITCH.match(text)) is switches


@pytest.mark.parametrize(
    "turns",
    [
        (
            "hey, wat is pagedattention exactly",
            "cool thx. unrelated, but who won the champions league last year?",
        ),
        ("不用额外的 draft 模型也能做投机解码吗？", "好了不聊这个，今晚吃火锅还是烤肉？"),
    ],
)
def test_chit_chat_after_a_switch_is_declined(
    glossary: Glossary, engine: SearchEngine, turns: tuple[str, ...]
) -> None:
    answers, _ = converse(glossary, engine, *turns)
    assert not answers[-1].grounded and not answers[-1].citations


@pytest.mark.parametrize(
    ("question", "intent", "slots"),
    [
        ("fine. how do b200 and b300 compare on memory then?", "comparison", ["b200", "b300"]),
        ("how does it compare with tpot?", "comparison", ["it", "tpot"]),
        ("and nvidia template libs, cutlass vs cute?", "comparison", ["cutlass", "cute"]),
        ("what's a gpu node, typically?", "definition", ["gpu node"]),
        ("what technique fixes fragmentation?", "which", ["fixes fragmentation"]),
    ],
)
def test_comparison_and_naming_frames_in_english(question: str, intent: str, slots: list[str]) -> None:
    p = parse(question)
    assert (p.intent, [s.text for s in p.slots]) == (intent, slots)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "first"),
    [
        # the name "how does …" opens with is the subject, whatever the search ranks first
        ("how does autoscaling work for model replicas?", "autoscaling"),
        # a remedy asked of a name is answered with the mechanism, which the search finds
        ("How does vLLM keep its KV cache memory from fragmenting?", "pagedattention"),
        # so is the name "why does …" opens with, not what the rest of the question names
        (
            "Why does tensor parallelism crawl when I stretch it across nodes over InfiniBand?",
            "tensor-parallelism",
        ),
    ],
)
def test_how_does_a_named_term(
    glossary: Glossary, real_engine: SearchEngine, question: str, first: str
) -> None:
    assert _first(glossary, real_engine, question) == first


def test_a_name_the_question_opens_with_before_a_placing_demonstrative(
    glossary: Glossary, engine: SearchEngine
) -> None:
    # "这种场景" only places the question in the setting under discussion; RoPE is its subject
    assert (
        _first(glossary, engine, "长上下文场景的压力主要在哪", "RoPE 对这种场景有什么帮助")
        == "rotary-positional-embeddings"
    )
    # a demonstrative standing alone still points back: "对这个有支持吗" asks about vLLM
    assert _first(glossary, engine, "vLLM 是什么", "SGLang 对这个有支持吗？") == "vllm"
    # "属于这一类": 于 ends a verb here, no preposition placing anything
    answers, _ = converse(
        glossary, engine, "什麼是訓練後量化？", "AWQ、GPTQ 跟 SmoothQuant 都屬於這一類演算法嗎？"
    )
    assert answers[1].citations[0].term_id == "post-training-quantization"


def test_a_plural_takes_up_the_name_put_in_front(glossary: Glossary, engine: SearchEngine) -> None:
    assert parse("moe models - what's the deal with them?").intent == "definition"
    assert _first(glossary, engine, "MoE models - what's the deal with them?") == "mixture-of-experts"


def test_both_after_a_verb_quantifies_and_an_ordinal_picks_its_term(
    glossary: Glossary, engine: SearchEngine
) -> None:
    p = parse("medusa and eagle are both examples, right? does the first one need a separate draft model?")
    assert [x.text for x in p.pronouns] == ["the first one"]
    turns = (
        "explain speculative decoding in one line",
        "Medusa and EAGLE are both examples, right? does the first one need a separate draft model?",
    )
    assert _first(glossary, engine, *turns) == "medusa"


@pytest.mark.parametrize(
    ("question", "slot"),
    [
        ("long prompts give me terrible ttft, why?", "long prompts give me terrible ttft"),
        ("my decode is slow - why?", "my decode is slow"),
        ("ttft is high, but why is that?", "ttft is high"),
    ],
)
def test_a_why_after_the_complaint_asks_why(question: str, slot: str) -> None:
    p = parse(question)
    assert (p.intent, [s.text for s in p.slots]) == ("howto_why", [slot])
    assert parse("tell me why").intent != "howto_why"  # no complaint before it


@pytest.mark.slow
def test_the_name_a_yes_no_question_opens_with_is_its_subject(
    glossary: Glossary, real_engine: SearchEngine
) -> None:
    # "that" is the problem under discussion; chunked prefill, the name before the verb, is asked about
    turns = ("Long prompts give me terrible TTFT, why?", "Would chunked prefill help with that?")
    assert _first(glossary, real_engine, *turns) == "chunked-prefill"
    # the conversation moves on to it: the next "it" is chunked prefill, not TTFT
    _, state = converse(glossary, real_engine, *turns)
    assert state.topic[:1] == ["chunked-prefill"]
    # an owner is no subject: "does vLLM's built-in prefix caching …" asks about prefix caching
    assert (
        _first(glossary, real_engine, "Does vLLM's built-in prefix caching work beyond GPU memory?") != "vllm"
    )


def test_an_agent_noun_names_the_process(glossary: Glossary, engine: SearchEngine) -> None:
    from kg.chat.normalize import known_words, normalize

    words = known_words(glossary)
    assert "n-gram speculation" in normalize("How do n-gram speculators propose drafts?", words).text
    assert "quantization" in normalize("Which quantizer uses Hessian info?", words).text
    # plain English agent nouns and glossary words stay as typed
    assert "generator" in normalize("Is the generator optional?", words).text
    assert "tokenizer" in normalize("What does the tokenizer do?", words).text


@pytest.mark.parametrize(
    ("question", "term"),
    [
        ("What is knowledge distillation?", "distillation"),  # 002 L17 points to its page 知识蒸馏
        ("知识蒸馏是什么", "distillation"),
        ("How does KV-aware routing work?", "cache-aware-routing"),  # 000's KV 感知路由, word for word
    ],
)
def test_editorial_names_of_source_terms(
    glossary: Glossary, engine: SearchEngine, question: str, term: str
) -> None:
    assert _first(glossary, engine, question) == term


@pytest.mark.slow
def test_a_name_placing_the_kind_asked_for_is_no_subject(
    glossary: Glossary, real_engine: SearchEngine
) -> None:
    # "of inference" places the phase; TPOT's own text says "对应 decode 阶段"
    assert _first(glossary, real_engine, "Which phase of inference mostly determines TPOT?") == "decode"
    turns = (
        "What does TTFT actually measure?",
        "Which phase of inference mostly determines it?",
        "And TPOT?",
    )
    assert _first(glossary, real_engine, *turns) == "decode"


@pytest.mark.slow
@pytest.mark.parametrize(
    "turns",
    [
        (
            "What does TTFT actually measure?",
            "Which phase of inference mostly determines it?",
            "And TPOT?",
            "So how do those two add up to the full end-to-end latency?",
        ),
        ("TTFT 跟 prefill 是什么关系", "那 TPOT 呢？", "这两个拼起来算一次请求总时长的指标是哪个"),
    ],
)
def test_the_whole_two_terms_add_up_to(
    glossary: Glossary, real_engine: SearchEngine, turns: tuple[str, ...]
) -> None:
    # the pair is TTFT and TPOT (the user's names), not the phases the answers led with
    assert _first(glossary, real_engine, *turns) == "e2e-latency"
    # a choice between the two is no whole
    answers, _ = converse(
        glossary,
        real_engine,
        "What is Medusa?",
        "And EAGLE?",
        "Which of the two doesn't need a separate draft model?",
    )
    assert answers[-1].citations[0].term_id in ("medusa", "eagle")
