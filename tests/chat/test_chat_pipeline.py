"""The stages of the chat pipeline one by one: normalize, refer, retrieve, decide, finish,
and the learned refusal model (kg/chat/refusal.py) with its training data."""

from __future__ import annotations

import importlib.util
import json
import math
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from kg.chat import ConversationState, answer
from kg.chat.decide import _candidate, asked_of, asks_for_remedy, decide
from kg.chat.finish import polish
from kg.chat.followup import definition_mentions
from kg.chat.intents import parse
from kg.chat.lineage import ASKS_PREDECESSOR
from kg.chat.linking import Analysis, linker_for
from kg.chat.model import Answer
from kg.chat.normalize import (
    MAX_QUESTION_CHARS,
    correct_chinese,
    correct_in_names,
    expand_acronyms,
    known_words,
    normalize,
)
from kg.chat.refusal import (
    FEATURES,
    HIDDEN_SEEDS,
    HIDDEN_UNITS,
    TRAINING_DATA,
    RefusalModel,
    fit_refusal_model,
    load_examples,
    refusal_model_for,
)
from kg.chat.retrieve import Retrieval, retrieve
from kg.chat.textgrams import TextTopic, grams
from kg.search.engine import Hit, SearchEngine
from kg.store import Glossary
from tests.chat.chat_helpers import converse

DATA = Path(__file__).resolve().parents[1] / "data"


def _load_script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, DATA / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- normalize ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "text"),
    [
        ("What are TPUs?", "What are TPU?"),
        ("vLLM's scheduler", "vLLM scheduler"),
        ("Which engines use GPUs?", "Which engine use GPU?"),
        ("KV caches in vLLM", "KV caches in vLLM"),  # "caches" is itself a word of a glossary name
        ("parallelism strategies", "parallelism strategies"),  # "strategy" is no glossary word
        ("what's it for", "what's it for"),  # a contraction, not a possessive
        ("Goodhart's law", "Goodhart's law"),  # the apostrophe is part of the name
        ("the process", "the process"),  # "proces" is no glossary word
    ],
)
def test_inflections_are_reduced_to_glossary_words(glossary: Glossary, question: str, text: str) -> None:
    assert normalize(question, known_words(glossary)).text == text


@pytest.mark.parametrize(
    ("question", "text"),
    [
        ("continous batching", "continuous batching"),  # a typo of a glossary name word
        # another word that differs from a name word in its first letter is no typo of it
        ("before running transcription", "before running transcription"),  # not "pruning"
        ("adding more FLOPs", "adding more FLOPs"),  # not "padding"
        ("quantize the weights", "quantize the weight"),  # not "dequantize" (the plural reduced)
        # a plain English word is no typo of the name word it resembles (kg/chat/data/english_words.txt)
        ("interactive workloads", "interactive workload"),  # not "iterative"
        ("an engineer asked", "an engineer asked"),  # not "engine"
        ("prefix matching", "prefix matching"),  # not "batching"
        ("large transfers", "large transfers"),  # not "transformers"
        ("shared prefixes", "shared prefix"),  # an inflection of a name word is still reduced
    ],
)
def test_typos_of_name_words_are_corrected_other_words_are_not(
    glossary: Glossary, engine: SearchEngine, question: str, text: str
) -> None:
    linker = linker_for(glossary, engine)
    assert normalize(question, known_words(glossary), linker.vocabulary).text == text


def test_traditional_and_taiwan_wording(glossary: Glossary) -> None:
    q = normalize("KV 快取是什麼？資料平行呢", known_words(glossary))
    assert q.traditional and q.original == "KV 快取是什麼？資料平行呢"
    assert "缓存" in q.text and "数据并行" in q.text
    assert not normalize("KV 缓存是什么", known_words(glossary)).traditional
    # Taiwan wording typed in Simplified characters is the mainland word too ("资料" is not: in
    # mainland usage it means documents)
    q = normalize("张量平行和推论引擎是什么，参考资料呢", known_words(glossary), glossary=glossary)
    assert "张量并行" in q.text and "推理引擎" in q.text and "资料" in q.text and not q.traditional


@pytest.mark.parametrize(
    "question",
    ["什么是 PD 分离？", "P/D 分离是什么", "什么是 prefill-decode 分离？", "What is PD disaggregation?"],
)
def test_short_forms_of_disaggregation_name_it(
    glossary: Glossary, engine: SearchEngine, question: str
) -> None:
    """ "PD 分离" (000 writes "prefill-decode 分离") is 推理分离: it was refused (PD unknown) or
    answered with Prefill."""
    a = answer(glossary, engine, question)
    assert a.citations and a.citations[0].term_id == "disaggregation", a.decision


@pytest.mark.parametrize(
    "question",
    ["And what was the default setup before engines adopted it?", "在引擎支持它之前，默认的部署形态叫什么？"],
)
def test_what_the_term_under_discussion_replaced_is_its_contrasted_term(
    glossary: Glossary, engine: SearchEngine, question: str
) -> None:
    """What disaggregation replaced is the term the sources contrast it with (aggregated serving);
    "before profiling it" asks no such thing."""
    s = ConversationState()
    answer(glossary, engine, "What is disaggregation?", context=s)
    a = answer(glossary, engine, question, context=s)
    assert a.citations and a.citations[0].term_id == "aggregated-serving"
    assert ASKS_PREDECESSOR.search("what did it replace?")
    assert not ASKS_PREDECESSOR.search("how can i tell whether it is compute-bound before profiling it?")


def test_taiwan_phrase_conversion_keeps_the_glossarys_own_names(glossary: Glossary) -> None:
    """OpenCC's tw2sp rewords 離線 as 脱机; where the characters, converted one by one, are a
    glossary name (离线推理) that name is kept; the rest is still reworded (快取 → 缓存)."""
    q = normalize("在線推理和離線推理有什麼區別？KV 快取呢", known_words(glossary), glossary=glossary)
    assert "离线推理" in q.text and "在线推理" in q.text and "缓存" in q.text
    assert "脱机" not in q.text


@pytest.mark.parametrize(
    ("question", "text"),
    [
        ("kv cashe 为什么这么占显存？", "kv cache 为什么这么占显存？"),  # one edit, and the neighbour agrees
        ("is spculative decoding fast", "is speculative decoding fast"),
        ("tensor paralelism vs PP", "tensor parallelism vs PP"),
        ("the latest latent space", "the latest latent space"),  # "latent latent" is no name
        ("the cache is full", "the cache is full"),  # a name word as it stands is never changed
    ],
)
def test_one_edit_from_a_word_of_a_multiword_name(glossary: Glossary, question: str, text: str) -> None:
    assert correct_in_names(question, glossary) == text


@pytest.mark.parametrize(
    ("question", "text"),
    [
        ("投机解吗是怎么加速生成的？", "投机解码是怎么加速生成的？"),  # one wrong character in a name
        ("张亮并行是什么", "张量并行是什么"),
        ("不想重新训练，怎么最快把模型量化掉", "不想重新训练，怎么最快把模型量化掉"),  # not across words
        ("它和专家并行是什么关系？", "它和专家并行是什么关系？"),  # a word glued to a name is no typo
        ("双缓冲 vs 三缓冲", "双缓冲 vs 三缓冲"),  # names as they stand are never changed
        ("专门做矩阵乘加的那块", "专门做矩阵乘加的那块"),  # a word the sources write is no typo of 矩阵乘法
        # a three-character name, one character off, only when it sounds the same (an input-method slip)
        ("分次器是干什么的？", "分词器是干什么的？"),
        ("缓存命中律怎么算？", "缓存命中率怎么算？"),
        ("什么是推理器", "什么是推理器"),  # one character off 推理…, but no name sounds like it
        ("分析器是干什么的？", "分析器是干什么的？"),  # one character off 分词器, another sound
        # a frame's first character glued to the word before it still ends that word, and the 是
        # of "什么是" is no typo of the name after it (长上下文)
        ("上下文并形是什么？", "上下文并行是什么？"),
        ("什么是上下文并形？", "什么是上下文并行？"),
        # a four-character window is corrected only where the character sounds like the name's (a
        # slip of a pinyin input method); another sound is another word, often the next one
        ("算术强渡是什么意思", "算术强度是什么意思"),
        ("前缀缓纯是什么", "前缀缓存是什么"),
        ("注意力是什么", "注意力是什么"),  # not 注意力头 (head attention)
        ("有哪些注意力的变体", "有哪些注意力的变体"),
        ("孩子上课注意力不集中怎么办？", "孩子上课注意力不集中怎么办？"),
        ("会给主机内存带来什么影响？", "会给主机内存带来什么影响？"),  # not 内存带宽
        ("我在看推理存储方案", "我在看推理存储方案"),  # not 在线推理
    ],
)
def test_one_wrong_chinese_character(glossary: Glossary, question: str, text: str) -> None:
    assert correct_chinese(question, glossary) == text


@pytest.mark.parametrize(
    ("question", "text"),
    [
        ("huadong chuangkou zhuyili 是啥", "滑动窗口注意力 是啥"),  # a Chinese name typed in pinyin
        ("zhangliang bingxing zenme lijie", "张量并行 zenme lijie"),
        ("lengqidong shi sha", "冷启动 shi sha"),  # one word of three syllables
        # English words are no pinyin of a name; spacing is left as typed
        ("What is tensor parallelism?", "What is tensor parallelism?"),
        ("CONTINUOUS   batching", "CONTINUOUS   batching"),
    ],
)
def test_a_chinese_name_typed_in_pinyin(glossary: Glossary, question: str, text: str) -> None:
    from kg.chat.normalize import from_pinyin

    assert from_pinyin(question, glossary) == text


def test_a_pinyin_asker_is_answered_in_chinese(glossary: Glossary, engine: SearchEngine) -> None:
    a = answer(glossary, engine, "touji jiema shi shenme yisi", context=ConversationState())
    assert a.grounded and a.lang == "zh" and a.citations[0].term_id == "speculative-decoding"


def test_typos_of_glossary_words_are_corrected(glossary: Glossary) -> None:
    from kg.chat.linking import latin_vocabulary

    q = normalize(
        "Tensor parallelim: does it need NVLink?", known_words(glossary), latin_vocabulary(glossary)
    )
    assert q.text == "Tensor parallelism: does it need NVLink?"
    q = normalize("best batch size for baking cookies", known_words(glossary), latin_vocabulary(glossary))
    assert q.text == "best batch size for baking cookies"
    # "streaming" is 86 % like "streamingllm", but two name words run together are no typo
    q = normalize("attention sinks in StreamingLLM", known_words(glossary), latin_vocabulary(glossary))
    assert q.text.endswith("StreamingLLM")


def test_a_question_in_capitals_is_read_in_lower_case(glossary: Glossary) -> None:
    """Shouting is lower-cased; a row of acronyms is not shouting and keeps its case."""
    words = known_words(glossary)
    assert normalize("WHAT IS THE KV CACHE?", words).text == "what is the kv cache?"
    assert normalize("TTFT VS TPOT", words).text == "TTFT VS TPOT"
    assert normalize("什么是 TTFT？", words).text == "什么是 TTFT？"
    assert normalize("WHAT IS THE KV CACHE?", words).original == "WHAT IS THE KV CACHE?"


@pytest.mark.parametrize(
    ("question", "direct"),
    [
        ("Can you tell me what TTFT is?", "what is TTFT?"),
        ("Do you know what PagedAttention means", "what does PagedAttention mean?"),
        ("Can you tell me how PagedAttention works?", "how does PagedAttention work?"),
        ("Can you tell me: vLLM vs SGLang", "vLLM vs SGLang"),
        ("Could you explain TTFT vs TPOT?", "explain TTFT vs TPOT?"),  # the imperative stays
        ("Can you tell me which engine uses PagedAttention?", "which engine uses PagedAttention?"),
        ("What exactly is PagedAttention?", "What is PagedAttention?"),
        ("How exactly does the SLO relate to the SLA?", "How does the SLO relate to the SLA?"),
        ("Tell me about KV cache", "Tell me about KV cache"),  # a frame of its own
        ("Can you help me?", "Can you help me?"),  # no question inside
    ],
)
def test_a_wrapped_question_is_read_as_the_direct_one(question: str, direct: str) -> None:
    from kg.chat.normalize import direct_question

    assert direct_question(question) == direct


@pytest.mark.slow
@pytest.mark.parametrize(
    ("plain", "wrapped"),
    [
        ("What is TTFT?", "Can you tell me what TTFT is?"),
        ("vLLM vs SGLang", "Can you tell me: vLLM vs SGLang"),
        ("What is PagedAttention?", "What exactly is PagedAttention?"),
        ("TGI 是哪几个词的首字母", "具体来说，TGI 是哪几个词的首字母"),
    ],
)
def test_a_wrapped_question_is_answered_as_the_direct_one(
    glossary: Glossary, real_engine: SearchEngine, plain: str, wrapped: str
) -> None:
    a = answer(glossary, real_engine, plain, context=ConversationState())
    b = answer(glossary, real_engine, wrapped, context=ConversationState())
    assert a.terms[:2] == b.terms[:2] and a.grounded and b.grounded


def test_a_long_name_word_one_letter_off_and_a_misspelt_possessor_are_corrected(glossary: Glossary) -> None:
    """ "PageAttention" splits into two name words (page, attention), but one letter off
    PagedAttention it is a typo of it; a made-up run of two name words stays ("StreamingLLM")."""
    vocabulary = frozenset({"what", "is", "the"})  # plain words; a vocabulary turns corrections on
    words = known_words(glossary)
    assert normalize("What is PageAttention?", words, vocabulary).text == "What is pagedattention?"
    assert normalize("What is StreamingLLM?", words, vocabulary).text == "What is StreamingLLM?"
    assert normalize("What's Godhart's law?", words, vocabulary).text == "What's goodhart's law?"


def test_long_questions_are_cut_with_a_warning(glossary: Glossary) -> None:
    q = normalize("什么是 TTFT" * 500, known_words(glossary))
    assert len(q.text) == MAX_QUESTION_CHARS and q.warnings


# --- references ----------------------------------------------------------------------------------


def test_ordinals_follow_the_users_order(glossary: Glossary, engine: SearchEngine) -> None:
    s = ConversationState()
    answer(glossary, engine, "张量并行和流水线并行有什么区别？", context=s)
    assert s.named[:2] == ["tensor-parallelism", "pipeline-parallelism"]
    a = answer(glossary, engine, "第二个是什么？", context=s)
    assert a.grounded and a.citations[0].term_id == "pipeline-parallelism"
    a = answer(glossary, engine, "Tell me more about the first one", context=s)
    assert a.grounded and a.citations[0].term_id == "tensor-parallelism"


def test_an_ordinal_after_a_question_naming_one_known_term_is_that_term(
    glossary: Glossary, engine: SearchEngine
) -> None:
    s = ConversationState()
    # a Latin side the glossary lacks leaves the known side answered (a coined English modifier on
    # a glossary head, "blorp parallelism", is refused: kg/chat/decide.py)
    answer(glossary, engine, "Compare expert parallelism and Zorblax for me", context=s)
    a = answer(glossary, engine, "Tell me more about the first one", context=s)
    assert a.grounded and a.citations[0].term_id == "expert-parallelism"


def test_which_follow_ups_pick_among_the_referents_neighbours(
    glossary: Glossary, engine: SearchEngine
) -> None:
    s = ConversationState()
    answer(glossary, engine, "PagedAttention 是什么？", context=s)
    # the class the question names (推理引擎) narrows the referent's neighbours to its members
    a = answer(glossary, engine, "哪个推理引擎最早就是靠它起家的？", context=s)
    assert a.grounded and a.citations[0].term_id == "vllm"
    # a fact about the term itself ("哪家出的") is answered with the term, not a neighbour
    s = ConversationState()
    answer(glossary, engine, "vLLM、SGLang 和 TGI 这三个有啥区别", context=s)
    a = answer(glossary, engine, "第三个是哪家出的？", context=s)
    assert a.grounded and a.citations[0].term_id == "text-generation-inference"


def test_a_bare_pronoun_opening_a_conversation_gets_a_question(
    glossary: Glossary, engine: SearchEngine
) -> None:
    for q in ("它和 TPOT 有什么区别？", "What does it stand for?", "那这个呢？"):
        a = answer(glossary, engine, q, context=ConversationState())
        assert a.needs_clarification and not a.grounded and not a.citations, q
        assert a.decision["action"] == "clarify"


def test_a_pronoun_pointing_into_the_question_is_no_reason_to_ask(
    glossary: Glossary, engine: SearchEngine
) -> None:
    a = answer(glossary, engine, "AllGather 和 All-to-All 这两个有啥区别", context=ConversationState())
    assert not a.needs_clarification and a.grounded
    assert {"allgather", "all-to-all"} <= set(a.terms)
    # a pronoun after clauses that describe something points at what they describe
    for q in (
        "有个客户把一整本手册贴进来当 prompt，其他人的输出全都卡住好几秒，这个怎么解决？",
        "Our GPUs sit idle between decode steps because the CPU launches lots of tiny kernels, how do we fix it?",
    ):
        a = answer(glossary, engine, q, context=ConversationState())
        assert not a.needs_clarification and a.grounded, q


# --- retrieve and decide -----------------------------------------------------------------------------


def test_retrieval_orders_and_excludes() -> None:
    hits = [
        Hit("a", 2.0, ranks={"mention": 1, "dense": 3}),
        Hit("b", 1.0, ranks={"dense": 1}),
        Hit("c", 0.5, ranks={"lexical": 1}),
    ]
    r = Retrieval("q", hits, named=["a"])
    assert [h.term_id for h in r.dense_order()] == ["b", "a"]
    assert r.best(["a"]) is hits[1] and r.rank_of("c") == 3 and r.rank_of("z") is None


def test_a_remedy_follow_up_is_no_term_the_referents_definition_names() -> None:
    # TTFT's own definition names prefill ("通常包含 prefill"): that settles "它跟哪个阶段有关" but
    # not "前者一般怎么降下来？", whose answer is what lowers TTFT (ranked first here)
    hits = [Hit("prefix-caching", 2.0), Hit("prefill", 1.0)]
    near = {"prefix-caching", "prefill"}
    stated = frozenset({"prefill"})
    remedy = parse("前者一般怎么降下来？")
    assert remedy.intent == "howto_why" and asks_for_remedy(remedy)
    r = Retrieval("q", hits)
    assert _candidate(remedy, Analysis(), r, "ttft", near, stated=stated) == "prefix-caching"
    which = parse("它一般跟哪个阶段对接？")
    assert which.intent == "which"
    assert _candidate(which, Analysis(), r, "ttft", near, stated=stated) == "prefill"


def test_whether_it_has_an_implementation_asks_for_that_term() -> None:
    # "它有开源实现吗？" after KV Cache 分层: the answer is the implementation (LMCache)
    for q in ("它有开源实现吗？", "它有没有现成的库？"):
        assert parse(q).intent == "which", q
    assert parse("它有什么缺点吗？").intent != "which"


def test_more_remedy_verbs_frame_a_how_to() -> None:
    for q in ("TTFT 一般怎么降下来？", "它怎么缩短？", "这个延迟怎么压下来？"):
        assert parse(q).intent == "howto_why", q


def test_remedy_questions_exclude_the_named_term(glossary: Glossary, engine: SearchEngine) -> None:
    assert asks_for_remedy(parse("怎么降低 TPOT？"))
    assert asks_for_remedy(parse("How do I avoid OOM errors?"))
    assert not asks_for_remedy(parse("FlashAttention 是怎么加速注意力的？"))  # how X works
    assert not asks_for_remedy(parse("How does RadixAttention reduce recomputation?"))
    linker = linker_for(glossary, engine)
    parsed = parse("怎么降低 TPOT？")
    analysis = linker.analyse(parsed)
    retrieval = retrieve(linker, analysis, parsed.body.text if parsed.body else "")
    assert retrieval.named == ["time-per-output-token"]
    d = _decide(glossary, engine, parsed, analysis, retrieval)
    assert d.candidate is not None and d.candidate != "time-per-output-token"


def _decide(
    glossary: Glossary, engine: SearchEngine, parsed: Any, analysis: Any, retrieval: Retrieval, **kw: Any
) -> Any:
    """The decision stage for a question asked with no conversation, the bundled refusal model."""
    model = refusal_model_for(glossary, engine)
    return decide(
        engine, model, parsed, analysis, retrieval, unresolved_pronoun=False, used_context=False, **kw
    )


def _which_candidate(glossary: Glossary, engine: SearchEngine, question: str, hits: list[str]) -> str | None:
    """The decision's candidate for *question*, retrieval's ranking replaced by *hits*."""
    linker = linker_for(glossary, engine)
    parsed = parse(question)
    analysis = linker.analyse(parsed)
    named = list(dict.fromkeys(s.term_id for s in analysis.spans))
    retrieval = Retrieval(question, [Hit(t, 1.0 / (i + 1)) for i, t in enumerate(hits)], named)
    d = _decide(glossary, engine, parsed, analysis, retrieval, near_of=lambda t: set(glossary.neighbours(t)))
    return d.candidate


def test_a_which_question_about_a_named_subject_answers_with_a_term_linked_to_it(
    glossary: Glossary, engine: SearchEngine
) -> None:
    # accelerated-linear-algebra is linked to StableHLO, tvm is not: the subject decides
    assert "accelerated-linear-algebra" in glossary.neighbours("stablehlo")
    assert "tvm" not in glossary.neighbours("stablehlo")
    hits = ["stablehlo", "tvm", "accelerated-linear-algebra"]
    question = "StableHLO 最后交给哪个编译器转成机器码？"
    assert _which_candidate(glossary, engine, question, hits) == "accelerated-linear-algebra"
    # a name saying where the asked-for thing is ("GPU 里…") is no subject: retrieval decides
    hits = ["graphics-processing-unit", "special-function-unit", "streaming-multiprocessor"]
    question = "GPU 里专门加速正弦、余弦的单元叫什么？"
    assert _which_candidate(glossary, engine, question, hits) == "special-function-unit"
    # in English the subject follows "which <kind> does": asked of pipeline parallelism as
    # "…does it lean on?" is asked of "it"; its look-alike data parallelism is not linked to it
    assert "allgather" in glossary.neighbours("pipeline-parallelism")
    assert "data-parallelism" not in glossary.neighbours("pipeline-parallelism")
    question = "Which collective op does pipeline parallelism lean on?"
    linker = linker_for(glossary, engine)
    parsed = parse(question)
    subject = asked_of(parsed, linker.analyse(parsed))
    assert subject is not None and subject.term_id == "pipeline-parallelism"
    hits = ["pipeline-parallelism", "data-parallelism", "allgather"]
    assert _which_candidate(glossary, engine, question, hits) == "allgather"
    # a name inside the kind asked for is no subject ("Which TPU unit does …" asks of no TPU term)
    assert asked_of(parse("Which kernel library is fast?"), Analysis()) is None


def test_a_which_follow_up_prefers_the_neighbour_the_referents_own_text_names(
    glossary: Glossary, engine: SearchEngine
) -> None:
    # TGI's definition: "与 Transformers 生态深度集成" — of its neighbours the search ranks SGLang
    # first, but the one TGI's own text names answers "它跟哪个库的生态结合得最紧？"
    mentions = definition_mentions(glossary)
    assert "transformers-library" in mentions["text-generation-inference"]
    assert "sglang" not in mentions["text-generation-inference"]
    assert not any("inference" in v for v in mentions.values())  # named by 60 texts: says nothing
    linker = linker_for(glossary, engine)
    parsed = parse("它跟哪个库的生态结合得最紧？")
    analysis = linker.analyse(parsed)
    hits = ["sglang", "transformers-library", "vllm"]
    retrieval = Retrieval(parsed.folded, [Hit(t, 1.0 / (i + 1)) for i, t in enumerate(hits)], [])

    def candidate(stated: frozenset[str] | None) -> str | None:
        model = refusal_model_for(glossary, engine)
        d = decide(
            engine,
            model,
            parsed,
            analysis,
            retrieval,
            unresolved_pronoun=False,
            used_context=True,
            referent="text-generation-inference",
            neighbours=set(glossary.neighbours("text-generation-inference")),
            plain=retrieval,
            stated=stated,
        )
        return d.candidate

    assert candidate(None) == "sglang"
    assert candidate(mentions["text-generation-inference"]) == "transformers-library"


@pytest.mark.parametrize(
    ("question", "about_subject"),
    [
        ("StableHLO 最后由哪个编译器转成机器码？", True),
        ("TTFT 主要取决于哪个阶段？", True),
        ("LMCache 是哪种架构的开源实现？", True),
        ("TP 和 PP 里，哪一个对卡间通信要求更高？", False),  # a choice among listed terms
        ("TGI 是哪家出的？", False),  # a fact of the term
        ("GPU 里专门加速正弦的单元是哪个？", False),  # the name says where
        ("推理时哪个阶段一次处理全部输入？", False),  # the name says when
        ("TVM 团队设计的新一代推理 IR 是哪个？", False),  # a description of another term
        ("Which compiler does StableHLO go to?", False),  # English: the which shape decides
    ],
)
def test_a_chinese_which_question_about_its_opening_term(
    glossary: Glossary, engine: SearchEngine, question: str, about_subject: bool
) -> None:
    from kg.chat.decide import asks_about_subject
    from kg.chat.references import choice_terms

    linker = linker_for(glossary, engine)
    parsed = parse(normalize(question, known_words(glossary)).text)
    analysis = linker.analyse(parsed)
    assert asks_about_subject(parsed, analysis, choice_terms(parsed.folded, analysis.spans)) is about_subject


def test_a_which_question_about_its_opening_term_cites_it_then_what_it_asks_for(
    glossary: Glossary, engine: SearchEngine
) -> None:
    a = answer(glossary, engine, "StableHLO 最后由哪个编译器转成 TPU 机器码？", context=ConversationState())
    assert a.intent == "relation" and a.citations[0].term_id == "stablehlo"
    assert "**XLA**" in a.answer


def test_which_vendor_neutral_asks_for_a_term_not_a_vendor() -> None:
    from kg.chat.intents import ASKS_ATTRIBUTE

    assert ASKS_ATTRIBUTE.search("which vendor makes it?")
    assert not ASKS_ATTRIBUTE.search("which vendor-neutral client replays agent sessions?")


@pytest.mark.parametrize(
    ("question", "reason"),
    [
        ("TTFT", "exact"),  # the core is a name
        ("What is the difference between ZeRO-Infinity and tensor parallelism?", "exact"),  # one side is
        ("有哪些量化方法？", "exact"),  # the listing's head is a name
        ("What is Mamba-3 attention?", "unknown_name"),  # a name nothing resembles
        # a capitalised word no glossary text uses heads the subject
        ("What is the Marlin kernel for INT4 inference?", "unknown_name"),
        ("What is ShardSpill offloading in multi-node serving?", "unknown_name"),
        ("What is PrismCore in TPU chips?", "unknown_name"),  # the name alone, then where it is
        # two name words run together that name nothing: a new name, not a typo of either
        ("What is an attention sink in StreamingLLM?", "unknown_name"),
        # a request for entertainment, whatever term it names
        ("Tell me a joke about GPUs.", "chit_chat"),
        ("写一首关于 KV cache 的诗", "chit_chat"),
    ],
)
def test_decision_rules_before_the_model(
    glossary: Glossary, engine: SearchEngine, question: str, reason: str
) -> None:
    a = answer(glossary, engine, question)
    assert a.decision["reason"] == reason
    assert a.grounded == (reason == "exact")


def test_typo_of_a_name_is_not_a_made_up_name(glossary: Glossary, engine: SearchEngine) -> None:
    a = answer(glossary, engine, "What is RadixAtention?")
    assert a.decision["reason"] != "unknown_name"


def test_a_hyphenated_word_of_known_parts_is_not_a_made_up_name(
    glossary: Glossary, engine: SearchEngine
) -> None:
    # "KV-aware": KV is a name word, "aware" a word of "cache-aware"; 000 calls it KV 感知路由
    a = answer(glossary, engine, "What is KV-aware routing?")
    assert a.decision["reason"] != "unknown_name"
    a = answer(glossary, engine, "What is vortex-KV caching?")  # vortex: no glossary word
    assert a.decision["reason"] == "unknown_name"


def test_a_known_name_with_a_compound_suffix_is_not_a_made_up_name(
    glossary: Glossary, engine: SearchEngine
) -> None:
    # "PyTorch-based": PyTorch is a word of the glossary's names, "-based" makes an adjective of it
    a = answer(glossary, engine, "What does SGLang-JAX have to do with PyTorch-based SGLang?")
    assert a.decision["reason"] != "unknown_name" and a.grounded
    a = answer(glossary, engine, "What is DeltaLane-based routing?")  # DeltaLane: no glossary word
    assert a.decision["reason"] == "unknown_name"


@pytest.mark.parametrize(
    ("question", "grounded"),
    [
        ("什麼是 token 摺疊快取？", False),  # a glossary name in a compound the glossary lacks
        ("什么是張量切分？", True),  # 张量 … : the best term's Chinese name holds the compound's characters
        ("What is the thing that splits long prompts?", True),  # a description, not a would-be name
    ],
)
def test_retrieval_first_is_no_answer_to_a_chinese_compound_no_term_names(
    glossary: Glossary, engine: SearchEngine, monkeypatch: pytest.MonkeyPatch, question: str, grounded: bool
) -> None:
    """When the slot links nothing, a definition is answered by the search's best term (retrieval
    first), but not when the slot is a short Chinese compound holding a glossary name whose
    characters that term's names contradict: a name the glossary lacks, refused with suggestions.
    (The refusal model here answers everything: the rule is what is tested, not the model.)"""
    from kg.chat.linking import Linker

    monkeypatch.setattr(Linker, "search_link", lambda self, text, **kw: None)  # no slot search hit
    n = len(FEATURES)
    answers_all = RefusalModel([0.0] * n, [1.0] * n, [0.0] * n, 5.0, 0.5)
    a = answer(glossary, engine, question, refusal=answers_all)
    assert a.grounded is grounded, (a.terms, a.answer)
    if not grounded:
        assert a.suggestions  # the nearest terms, as for any name the glossary lacks


@pytest.mark.parametrize(
    "question",
    [
        "What is the Google TPU?",  # capitalised, but the glossary's own text uses it
        "Explain 分离式推理 in English please.",  # the language asked for is no subject
    ],
)
def test_known_words_are_no_made_up_subject(glossary: Glossary, engine: SearchEngine, question: str) -> None:
    a = answer(glossary, engine, question)
    assert a.decision["reason"] != "unknown_name" and a.grounded


@pytest.mark.parametrize(
    ("question", "made_up"),
    [
        ("双螺旋并行和张量并行有什么区别？", True),  # 双螺旋 is in no glossary text
        ("蜂巢分片注意力和 PagedAttention 有什么区别？", True),
        ("数据并行和张量并行有什么区别？", False),  # two names
        # a Latin name the glossary lacks may be a real product ("vLLM vs LMDeploy"): the known
        # side is answered, and the answer says which side it has no term for
        ("How does SGLang stack up against MLC-LLM?", False),
    ],
)
def test_a_comparison_with_a_coined_chinese_side_is_refused(
    glossary: Glossary, engine: SearchEngine, question: str, made_up: bool
) -> None:
    """A side that is a glossary name under a Chinese modifier no glossary text uses (see
    ``_coined_variant``) makes the comparison one the glossary cannot draw: the answer says so
    and suggests terms, instead of the other side's definition."""
    a = answer(glossary, engine, question)
    assert (a.decision["reason"] == "unknown_name") is made_up, a.decision
    assert bool(a.citations) is not made_up
    if made_up:
        assert a.suggestions
    elif "MLC" in question:
        assert "mlc-llm" in a.answer.lower() and a.citations[0].term_id == "sglang"


@pytest.mark.parametrize(
    ("question", "coined"),
    [
        ("双螺旋并行是什么？", True),  # 并行 heads 张量并行, 流水线并行 …; 双螺旋 is in no text
        ("逐层蒸发缓存是什么？", True),
        ("数据并行是什么？", False),  # a name
        ("序列并行是什么？", False),
    ],
)
def test_an_unknown_kind_of_a_shared_head_is_coined(
    glossary: Glossary, engine: SearchEngine, question: str, coined: bool
) -> None:
    a = answer(glossary, engine, question)
    assert (a.decision["reason"] == "unknown_name") is coined, a.decision
    assert bool(a.citations) is not coined


def test_only_a_referent_from_the_conversation_narrows_the_answer(
    glossary: Glossary, engine: SearchEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "…没有它缓存的那台机器…": 它 points into the question, so decide gets no referent and the
    remedy is not limited to one term's neighbours; a real follow-up passes the conversation's
    term as the referent."""
    import kg.chat.bot as bot

    seen: list[str | None] = []
    real = bot.decide

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(kwargs.get("referent"))
        return real(*args, **kwargs)

    monkeypatch.setattr(bot, "decide", spy)
    state = ConversationState()
    answer(glossary, engine, "What is deployment?", context=state)
    q = "多副本部署，同一个会话的下一轮老被分到没有它缓存的那台机器上，怎么优化？"
    answer(glossary, engine, q, context=state)
    assert seen[-1] is None
    state = ConversationState()
    answer(glossary, engine, "PagedAttention 是什么？", context=state)
    answer(glossary, engine, "哪个推理引擎最早就是靠它起家的？", context=state)
    assert seen[-1] == "pagedattention"


# --- finish --------------------------------------------------------------------------------------------


def test_lines_are_not_repeated_and_traditional_comes_back(glossary: Glossary) -> None:
    ans = Answer("q", "zh", "definition", "张量并行\n定义：「切分」 [1]\n定义：「切分」 [1]", True)
    out = polish(ans, normalize("什麼是張量並行", known_words(glossary)))
    assert out.answer == "張量並行\n定義：「切分」 [1]" and out.script == "traditional"


def test_traditional_question_traditional_answer(glossary: Glossary, engine: SearchEngine) -> None:
    a = answer(glossary, engine, "什麼是張量並行？")
    assert a.grounded and a.script == "traditional"
    assert "張量並行" in a.answer and "张量并行" not in a.answer
    assert a.citations[0].quote in " ".join(
        d.text for d in glossary.terms[a.citations[0].term_id].definitions
    )


# --- the refusal model ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "TTFT是什么意思？",  # answered; spaced between scripts before the dense stage encodes it
        "烤饼干最好用多大的batch？",  # refused: its nearest terms are the first search's
    ],
)
def test_a_question_without_context_is_encoded_once(
    glossary: Glossary, engine: SearchEngine, monkeypatch: pytest.MonkeyPatch, question: str
) -> None:
    """The refusal model reads the vector the search computed, and a refusal suggests the search's
    hits: one encoding per plain question (each encoding is ~30 ms of a ~50 ms answer)."""
    refusal_model_for(glossary, engine)  # fitted or read before counting
    dense = engine.dense
    assert dense is not None
    dense.clear_vectors()
    encoded: list[str] = []
    real = dense.encoder.encode_queries

    def counting(texts: list[str]) -> Any:
        encoded.extend(texts)
        return real(texts)

    monkeypatch.setattr(dense.encoder, "encode_queries", counting)
    answer(glossary, engine, question)
    assert len(encoded) == 1, encoded


def test_refusal_model_round_trip(tmp_path: Path) -> None:
    n = len(FEATURES)
    text_topic = TextTopic({5: 1.5}, 2.0, {b: 0.25 for b in grams("gaming fps")}, -0.1)
    model = RefusalModel(
        [0.0] * n,
        [1.0] * n,
        [0.5] * n,
        -0.2,
        0.6,
        topic_coef=[0.1, -0.1],
        topic_intercept=0.3,
        text_topic=text_topic,
    )
    model.save(tmp_path)
    again = RefusalModel.load(tmp_path)
    assert again is not None and again.to_dict() == model.to_dict()
    feats = dict.fromkeys(FEATURES, 0.3)
    vec = np.array([0.6, 0.8])
    assert again.in_domain(dict(feats), vec, text="gaming fps") == model.in_domain(
        dict(feats), vec, text="gaming fps"
    )
    # the n-grams move the probability: the same features with other text score otherwise
    assert (
        model.in_domain(dict(feats), vec, text="gaming fps")[1]
        != model.in_domain(dict(feats), vec, text="kv")[1]
    )
    assert RefusalModel.load(tmp_path / "nothing") is None
    bad = model.to_dict() | {"format": 0}
    with pytest.raises(ValueError, match="rebuild"):
        RefusalModel.from_dict(bad)


def _toy_examples() -> list[tuple[str, bool]]:
    """Four in-domain and four out-of-domain questions, five times each."""
    inside = ("什么是 TTFT", "What is KV cache?", "PagedAttention 原理", "TPOT 是啥")
    outside = ("今天天气怎么样", "best pizza in town?", "谁赢了世界杯", "how to bake bread")
    return [(q, True) for q in inside] * 5 + [(q, False) for q in outside] * 5


def test_refusal_model_learns_from_examples(glossary: Glossary, engine: SearchEngine) -> None:
    examples = _toy_examples()
    model = fit_refusal_model(glossary, engine, examples)
    assert model.trained_on["examples"] == 40 and 0.0 < model.threshold < 1.0
    assert model.encoder_id == "hash:64"
    with pytest.raises(ValueError, match="in-domain and out-of-domain"):
        fit_refusal_model(glossary, engine, [("什么是 TTFT", True)] * 3)


def test_a_quick_fit_samples_each_class_in_its_share_and_is_keyed_apart(
    glossary: Glossary, engine: SearchEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``GLOSSARY_REFUSAL_SAMPLE`` (the build-pipeline tests' quick fits): the same stratified
    sample every time, and a cache key of its own, so a full fit is never read as a quick one."""
    from kg.chat.refusal import SAMPLE_ENV, refusal_key, training_examples

    monkeypatch.delenv(SAMPLE_ENV, raising=False)
    full = training_examples()
    full_key = refusal_key(glossary, engine)
    assert full == load_examples()
    monkeypatch.setenv(SAMPLE_ENV, "400")
    sample = training_examples()
    assert len(sample) == 400 and sample == training_examples() and set(sample) <= set(full)
    share = sum(label for _, label in full) / len(full)
    assert abs(sum(label for _, label in sample) / 400 - share) < 0.01
    assert refusal_key(glossary, engine) not in (None, full_key)
    for bad, message in (("many", "a number"), ("20", "at least")):
        monkeypatch.setenv(SAMPLE_ENV, bad)
        with pytest.raises(ValueError, match=message):
            training_examples()


def test_training_data_is_current_and_never_from_the_test_split() -> None:
    module = _load_script("make_refusal_train")
    assert (
        TRAINING_DATA.read_text(encoding="utf-8") == module.render()
    )  # regenerate: tests/data/make_refusal_train.py
    texts = {q for q, _ in load_examples()}
    test_questions = {
        t["user"]
        for line in (DATA / "chat_blind_test.jsonl").read_text(encoding="utf-8").splitlines()
        for t in json.loads(line)["turns"]
    }
    assert not texts & test_questions


def test_chat_splits_are_reproducible() -> None:
    dev, test = _load_script("make_chat_splits").split()
    assert (DATA / "chat_blind_dev.jsonl").read_text(encoding="utf-8") == "\n".join(dev) + "\n"
    assert (DATA / "chat_blind_test.jsonl").read_text(encoding="utf-8") == "\n".join(test) + "\n"
    ids = [json.loads(line)["id"] for line in dev + test]
    assert len(ids) == len(set(ids)) and len(test) >= 300


# --- names the question points back at ---------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "term"),
    [
        # the pronoun points back at the name the question opened with, not at a neighbour of it
        ("Goodput: what does it count, and what does it leave out?", "goodput"),
        ("ttft, the wait before the first token shows up - what exactly is it?", "time-to-first-token"),
        # the slot ("that") names nothing; the question does, and its search agrees
        ("functionalization, compiler-wise, what is that?", "functionalization"),
    ],
)
def test_a_definition_of_a_name_the_question_opened_with(
    glossary: Glossary, engine: SearchEngine, question: str, term: str
) -> None:
    # (a model that answers everything: what is tested is which term the answer is about)
    n = len(FEATURES)
    answers_all = RefusalModel([0.0] * n, [1.0] * n, [0.0] * n, 5.0, 0.5)
    a = answer(glossary, engine, question, context=ConversationState(), refusal=answers_all)
    assert a.citations and a.citations[0].term_id == term, (question, a.terms)


def test_a_name_answering_the_bots_question_resumes_the_pending_question(
    glossary: Glossary, engine: SearchEngine
) -> None:
    state = ConversationState()
    first = answer(glossary, engine, "What's its English name?", context=state)
    assert first.needs_clarification and state.pending == "What's its English name?"
    a = answer(glossary, engine, "I mean 冷启动", context=state)
    assert a.grounded and a.citations[0].term_id == "cold-start" and a.intent == "definition"
    assert "Cold start" in a.answer  # the English name the pending question asked for
    assert state.pending is None
    # and the conversation goes on about it
    b = answer(glossary, engine, "How does it relate to scale to zero?", context=state)
    assert b.citations[0].term_id == "cold-start" and "scale-to-zero" in b.terms


def test_a_new_question_after_the_bots_question_is_not_taken_for_a_reply(
    glossary: Glossary, engine: SearchEngine
) -> None:
    state = ConversationState()
    answer(glossary, engine, "它和 TPOT 有什么区别？", context=state)
    a = answer(glossary, engine, "什么是 KV cache？", context=state)
    assert a.citations[0].term_id == "kv-cache" and a.intent == "definition"


def test_name_prior_is_the_smoothed_in_domain_rate_of_the_most_telling_name() -> None:
    from kg.chat.refusal import NAME_PRIOR_WEIGHT, name_prior

    counts = {"ttft": [20, 0], "gpu": [10, 10]}
    base = 0.5
    assert name_prior(counts, base, []) == base  # no name: the overall rate
    assert name_prior(counts, base, ["never-seen"]) == base
    w = NAME_PRIOR_WEIGHT
    assert name_prior(counts, base, ["gpu"]) == pytest.approx((10 + w * base) / (20 + w))
    assert name_prior(counts, base, ["gpu", "ttft"]) == pytest.approx((20 + w * base) / (20 + w))


@pytest.mark.parametrize("question", ["怎么降低 TPOT？", "how do I reduce TTFT?"])
def test_a_remedy_for_exactly_a_name_is_in_the_domain(
    glossary: Glossary, engine: SearchEngine, question: str
) -> None:
    a = answer(glossary, engine, question)
    assert a.decision["reason"] == "exact" and a.grounded


def test_two_names_joined_by_and_are_both_defined_in_the_users_order(
    glossary: Glossary, engine: SearchEngine
) -> None:
    a = answer(glossary, engine, "Explain cuBLAS and cuDNN")
    assert [c.term_id for c in a.citations][:1] == ["cublas"] and "cudnn" in a.terms
    a = answer(glossary, engine, "什么是 KV cache 和 PagedAttention")
    assert a.citations[0].term_id == "kv-cache" and "pagedattention" in a.terms


@pytest.mark.parametrize(
    ("follow_up", "first", "second"),
    [
        # "And from X?" keeps the topic as the subject
        ("And from blue-green deployments?", "canary-deployment", "blue-green-deployment"),
        # a bare "And X?" makes X the subject, compared with the topic
        ("And blue-green deployments?", "blue-green-deployment", "canary-deployment"),
    ],
)
def test_an_elliptical_follow_up_continues_the_comparison(
    glossary: Glossary, engine: SearchEngine, follow_up: str, first: str, second: str
) -> None:
    state = ConversationState()
    answer(glossary, engine, "What is a canary deployment?", context=state)
    answer(glossary, engine, "How is it different from shadow traffic?", context=state)
    a = answer(glossary, engine, follow_up, context=state)
    assert a.intent == "comparison"
    assert [c.term_id for c in a.citations][:1] == [first] and second in a.terms


def test_how_is_that_different_points_back(glossary: Glossary, engine: SearchEngine) -> None:
    state = ConversationState()
    answer(glossary, engine, "What is a canary deployment?", context=state)
    a = answer(glossary, engine, "How's that different from shadow traffic?", context=state)
    assert a.intent == "comparison"
    assert [c.term_id for c in a.citations][:1] == ["canary-deployment"] and "shadow-traffic" in a.terms


def test_a_subject_glossed_by_an_unknown_name_is_refused(glossary: Glossary, engine: SearchEngine) -> None:
    n = len(FEATURES)
    answers_all = RefusalModel([0.0] * n, [1.0] * n, [0.0] * n, 5.0, 0.5)
    made_up = answer(glossary, engine, "潮汐批处理（tidal batching）是怎么工作的？", refusal=answers_all)
    assert not made_up.grounded and made_up.decision is not None
    assert made_up.decision["reason"] == "unknown_name"
    # a gloss that is a glossary name, or made of its words, is the term itself
    for q in ("蒸餾（distillation）是在做什麼？", "分离式部署（disaggregated serving）是什么"):
        a = answer(glossary, engine, q, refusal=answers_all)
        assert a.grounded, q


@pytest.mark.parametrize(
    "question",
    [
        "vLLM 的 --gpu-memory-utilization 参数默认值是多少？",
        "What's the default value of max_num_batched_tokens in vLLM?",
    ],
)
def test_a_configuration_key_is_refused_even_next_to_a_glossary_name(
    glossary: Glossary, engine: SearchEngine, question: str
) -> None:
    n = len(FEATURES)
    answers_all = RefusalModel([0.0] * n, [1.0] * n, [0.0] * n, 5.0, 0.5)
    a = answer(glossary, engine, question, refusal=answers_all)
    assert not a.grounded and a.decision is not None and a.decision["reason"] == "setting"


def test_which_one_of_the_pair_becomes_the_topic(glossary: Glossary, engine: SearchEngine) -> None:
    state = ConversationState(
        topic=["mxu", "sparsecore"], pair=["mxu", "sparsecore"], last_intent="comparison"
    )
    state.record(
        Answer(
            "Which one handles the gathers?",
            "en",
            "which",
            "…",
            True,
            terms=["sparsecore"],
            focus=["sparsecore"],
        ),
        used_context=True,
    )
    assert state.topic == ["sparsecore"]


def test_a_turn_about_one_of_the_pair_narrows_the_topic_to_it() -> None:
    # "FlashInfer vs FlashAttention" … "What is the second one built on since v2?" (answered
    # FlashAttention with Triton beside it): the next "that" is FlashAttention, not FlashInfer
    state = ConversationState(topic=["flashinfer", "flashattention"], pair=["flashinfer", "flashattention"])
    ans = Answer("What is the second one built on since v2?", "en", "relation", "…", True)
    state.record(
        replace(ans, terms=["flashattention", "triton"], focus=["flashattention", "triton"]),
        used_context=True,
    )
    assert state.topic == ["flashattention"]
    # a turn about both keeps both
    state = ConversationState(topic=["flashinfer", "flashattention"])
    state.record(
        replace(ans, terms=["flashinfer", "flashattention"], focus=["flashattention", "flashinfer"]),
        used_context=True,
    )
    assert state.topic == ["flashinfer", "flashattention"]


def test_a_pick_from_the_listed_terms_becomes_the_topic() -> None:
    # "What microscaling formats are there?" … "Which one of those is tuned for Blackwell?": the
    # next "it" ("What block size does it use?") is the format picked, not the class listed
    state = ConversationState(topic=["microscaling-formats"], named=["nvfp4", "mxfp4"])
    state.record(
        Answer("Which one of those is tuned for Blackwell?", "en", "which", "…", True, terms=["nvfp4"]),
        used_context=True,
    )
    assert state.topic == ["nvfp4"]
    # a "which" answer that is none of the listed terms leaves the topic alone
    state = ConversationState(topic=["microscaling-formats"], named=["nvfp4", "mxfp4"])
    state.record(
        Answer("Which GPU generation added it?", "en", "which", "…", True, terms=["blackwell"]),
        used_context=True,
    )
    assert state.topic == ["microscaling-formats"] and state.answered == "blackwell"


@pytest.mark.slow
def test_a_quantity_of_the_term_under_discussion_stays_on_it(
    glossary: Glossary, real_engine: SearchEngine
) -> None:
    # its own text says "block size 16"; Microscaling formats, a neighbour, says "按小块"
    state = ConversationState()
    answer(glossary, real_engine, "NVFP4 是什么？", context=state)
    a = answer(glossary, real_engine, "它的块大小是多少？", context=state)
    assert a.citations[0].term_id == "nvfp4", a.terms


def test_a_subject_pronoun_keeps_the_question_about_the_term_under_discussion(
    glossary: Glossary, engine: SearchEngine
) -> None:
    state = ConversationState()
    answer(glossary, engine, "AWQ 和 GPTQ 有什么不同？", context=state)
    a = answer(glossary, engine, "它们俩都算训练后量化吗？", context=state)
    assert a.citations[0].term_id == "activation-aware-weight-quantization", a.terms


@pytest.mark.slow
def test_an_owner_pronoun_asks_for_a_neighbour(glossary: Glossary, real_engine: SearchEngine) -> None:
    state = ConversationState()
    answer(glossary, real_engine, "What is a TPU?", context=state)
    a = answer(
        glossary,
        real_engine,
        "And the helper core on it that handles gathers and data movement?",
        context=state,
    )
    assert a.citations[0].term_id == "sparsecore", a.terms


def test_an_ordinal_pick_becomes_the_topic(glossary: Glossary, engine: SearchEngine) -> None:
    state = ConversationState()
    answer(glossary, engine, "vLLM、SGLang 和 TGI 这三个有啥区别", context=state)
    answer(glossary, engine, "第三个是哪家出的？", context=state)
    assert state.topic == ["text-generation-inference"]


def test_possessive_relation_frame_and_more_remedy_verbs() -> None:
    p = parse("And what's llm-d's relationship to vLLM?")
    assert (p.intent, [s.text for s in p.slots]) == ("relation", ["llm-d", "vllm"])
    assert asks_for_remedy(parse("怎么缩短 TTFT？"))


# --- this session: the network head, described slots, attributes, short pronoun questions -------


def test_refusal_networks_round_trip_and_answer_with_their_weights() -> None:
    n = len(FEATURES)
    net = {"w1": [[1.0, -1.0]] * n, "b1": [0.0, 0.0], "w2": [2.0, -2.0], "b2": -1.0}
    model = RefusalModel([0.0] * n, [1.0] * n, [0.0] * n, 0.0, 0.5, networks=[net, net])
    feats = dict.fromkeys(FEATURES, 0.1)
    # hidden = relu([1.6, -1.6]) = [1.6, 0]; output sigmoid(3.2 - 1) — not the linear model's 0.5
    expected = 1 / (1 + math.exp(-(2.0 * 0.1 * n - 1.0)))
    assert model.probability(feats) == pytest.approx(expected)
    again = RefusalModel.from_dict(json.loads(json.dumps(model.to_dict())))
    assert again.probability(feats) == pytest.approx(expected)
    linear = RefusalModel([0.0] * n, [1.0] * n, [0.0] * n, 0.0, 0.5)
    assert linear.probability(feats) == pytest.approx(0.5)
    bad = model.to_dict() | {"networks": [net | {"w2": [1.0]}]}
    with pytest.raises(ValueError, match="shape"):
        RefusalModel.from_dict(bad)


def test_fitted_refusal_model_has_one_network_per_seed(glossary: Glossary, engine: SearchEngine) -> None:
    examples = _toy_examples()
    model = fit_refusal_model(glossary, engine, examples)
    assert len(model.networks) == len(HIDDEN_SEEDS)
    assert all(len(net["w1"]) == len(FEATURES) and len(net["w2"]) == HIDDEN_UNITS for net in model.networks)
    _, p = model.in_domain(dict.fromkeys(FEATURES, 0.5))
    assert 0.0 <= p <= 1.0


def test_the_fit_does_not_depend_on_the_number_of_processes(
    glossary: Glossary, engine: SearchEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    import kg.chat.refusal as refusal

    examples = _toy_examples()
    fits = []
    for jobs in (1, 2):
        monkeypatch.setattr(refusal, "_fit_jobs", lambda jobs=jobs: jobs)
        fits.append(fit_refusal_model(glossary, engine, examples).to_dict())
    assert fits[0] == fits[1]  # bit for bit: folds and seeds fitted apart are the same fits


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "as_typed"),
    [
        (
            "I'm hitting a wall with decode speed and adding more FLOPs does nothing - what's the real ceiling?",
            "I'm hitting a wall with decode speed and adding more FLOPs does nothing - what's the real ceiling",
        ),
        (
            "Offloading the KV cache to CPU memory - what's the trade-off?",
            "Offloading the KV cache to CPU memory - what's the trade-off",
        ),
        (
            "长 prompt 一进来其他用户的 token 流就全卡住了 有没有办法缓解？",
            "长 prompt 一进来其他用户的 token 流就全卡住了 有没有办法缓解",
        ),
        (
            "What does the ops:byte ratio of a GPU tell you?",
            "Quick question: What does the ops:byte ratio of a GPU tell you?",
        ),
        (
            "What does the ops:byte ratio of a GPU tell you?",
            "What does the ops:byte ratio of a GPU tell you? Thanks!",
        ),
        # typed in capitals: read as the same words in lower case, not as a row of acronyms
        ("What is the OpenAI Triton kernel language?", "WHAT IS THE OPENAI TRITON KERNEL LANGUAGE?"),
        ("What hardware units does a TPU have?", "WHAT HARDWARE UNITS DOES A TPU HAVE?"),
    ],
)
def test_a_question_mark_left_out_a_preamble_thanks_or_capitals_change_no_answer(
    glossary: Glossary, real_engine: SearchEngine, question: str, as_typed: str
) -> None:
    """The search reads the question with its "?" (the example questions it matches end on one):
    one the asker left out is put back, and a preamble or thanks around it is left out, so each
    pair is the same search and the same answer."""
    a = answer(glossary, real_engine, question, context=ConversationState())
    b = answer(glossary, real_engine, as_typed, context=ConversationState())
    assert a.terms == b.terms and a.decision == b.decision


def test_the_fits_read_from_the_cache_are_the_fits_made(
    glossary: Glossary, engine: SearchEngine, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The topic and text-topic fits (graph-independent) are cached by their inputs: a second
    fit reads them and gives the same model, bit for bit."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    examples = _toy_examples()
    cold = fit_refusal_model(glossary, engine, examples).to_dict()
    cached = sorted(p.name.split("-")[0] for p in (tmp_path / "glossary-kg" / "refusal").glob("*.json"))
    assert cached == ["text", "topic"]
    assert fit_refusal_model(glossary, engine, examples).to_dict() == cold


@pytest.mark.slow
def test_a_described_slot_that_mentions_a_name_is_about_what_search_finds(
    glossary: Glossary, real_engine: SearchEngine
) -> None:
    n = len(FEATURES)
    answers_all = RefusalModel([0.0] * n, [1.0] * n, [0.0] * n, 5.0, 0.5)
    q = "SM 里 32 个线程同时执行同一条指令的最小调度单位是什么？"  # names SM, describes a warp
    a = answer(glossary, real_engine, q, context=ConversationState(), refusal=answers_all)
    assert a.citations and a.citations[0].term_id == "warp", a.terms
    # a slot that is little more than the name stays about the name
    b = answer(glossary, real_engine, "SM 是什么？", context=ConversationState(), refusal=answers_all)
    assert b.citations[0].term_id == "streaming-multiprocessor", b.terms


@pytest.mark.parametrize(
    "question",
    [
        "它们俩能一起用吗",
        "Is it faster than the other one?",
        # a demonstrative standing alone, not determining a noun of its own
        "How much cheaper is that one?",
        "How many of those fit in one server?",
        "那个怎么关掉？",
        # an adverb after it: a determiner would have had its noun there
        "ok so how big does that usually get?",
        "这个一般设多大比较合适？",
        "这个到底是啥？",
    ],
)
def test_a_short_question_about_an_unresolved_pronoun_gets_a_question_back(
    glossary: Glossary, engine: SearchEngine, question: str
) -> None:
    a = answer(glossary, engine, question, context=ConversationState())
    assert a.needs_clarification and not a.grounded, (question, a.intent, a.terms)


def test_a_demonstrative_determining_a_noun_is_no_bare_pronoun() -> None:
    assert not parse("那个看卡有多忙的百分比，为什么经常骗人？").pronouns
    assert [p.text for p in parse("那个是什么？").pronouns] == ["那个"]


def test_modal_gai_is_not_a_demonstrative() -> None:
    assert not parse("该怎么部署这个模型？").pronouns or all(
        p.text != "该" for p in parse("该怎么部署").pronouns
    )
    assert [p.text for p in parse("该技术的原理是什么").pronouns] == ["该"]


def test_a_question_naming_a_term_asks_who_made_that_term(glossary: Glossary, engine: SearchEngine) -> None:
    n = len(FEATURES)
    answers_all = RefusalModel([0.0] * n, [1.0] * n, [0.0] * n, 5.0, 0.5)
    a = answer(glossary, engine, "TGI 是哪家出的？", context=ConversationState(), refusal=answers_all)
    assert a.citations and a.citations[0].term_id == "text-generation-inference", a.terms


def test_is_elliptical_is_names_and_filler_only() -> None:
    from kg.chat.ellipsis import is_elliptical

    assert is_elliptical("那 tpot 呢？", [(2, 6)])
    assert is_elliptical("and for decode?", [(8, 14)])
    assert not is_elliptical("那 tpot 怎么算？", [(2, 6)])
    assert not is_elliptical("and then?", [])
    assert is_elliptical("and with an h200?", [(12, 16)])  # an article is filler too
    # a bare "which" asks the previous which question again ("那流水线并行用的是哪个？")
    assert is_elliptical("那流水线并行用的是哪个？", [(1, 6)])
    assert is_elliptical("专家并行是哪种？", [(0, 4)])
    assert not is_elliptical("流水线并行用哪个集合通信？", [(0, 5)])


def test_an_elliptical_follow_up_takes_the_place_of_the_pronoun_it_continues(
    glossary: Glossary, engine: SearchEngine
) -> None:
    # "Which superchip pairs it with a B200?" then "And with an H200?": the previous question
    # asked again with H200 for B200; its "it" still points at the Grace CPU
    (*_, a), _ = converse(
        glossary,
        engine,
        "What's the Grace CPU?",
        "Which superchip pairs it with a B200?",
        "And with an H200?",
    )
    assert a.intent == "which" and a.citations[0].term_id == "gh200", a.terms


@pytest.mark.slow
def test_an_elliptical_follow_up_replaces_the_name_of_its_own_kind(
    glossary: Glossary, real_engine: SearchEngine
) -> None:
    # the previous question named FP8 and GPU: FP4 takes the place of FP8, the format it is
    # contrasted with, not of GPU
    (*_, a), _ = converse(
        glossary, real_engine, "Which GPU generation first supported FP8 natively?", "And FP4?"
    )
    assert a.citations[0].term_id == "blackwell", a.terms


def test_an_elliptical_follow_up_replaces_the_pronoun_of_a_question_naming_no_term(
    glossary: Glossary, engine: SearchEngine
) -> None:
    # "它靠哪个集合通信原语？" named no term but pointed with 它: the new name replaces 它, and
    # "流水线并行靠哪个集合通信原语？" asks about PP and the op beside it, not for PP's definition
    (*_, b), _ = converse(glossary, engine, "什么是张量并行？", "它靠哪个集合通信原语？", "那流水线并行呢？")
    assert b.question == "流水线并行靠哪个集合通信原语?" and b.intent == "relation"
    assert b.citations[0].term_id == "pipeline-parallelism"


def test_a_pronoun_subject_whose_definition_gives_the_answer_is_quoted_first(
    glossary: Glossary, engine: SearchEngine
) -> None:
    # TP's own definition says it needs frequent all-reduce: TP first, then AllReduce beside it
    (_, b), _ = converse(glossary, engine, "什么是张量并行？", "它靠哪种集合通信来同步结果？")
    assert b.intent == "relation" and b.citations[0].term_id == "tensor-parallelism"
    assert "allreduce" in b.terms
    # a copula puts the asked-for term in focus: the which shape answers with it
    (_, c), _ = converse(glossary, engine, "什么是张量并行？", "它靠的是哪种集合通信？")
    assert c.intent == "which" and c.citations[0].term_id != "tensor-parallelism"


def test_it_in_a_comparison_is_the_last_answer_when_only_that_is_kin_to_the_other_side(
    glossary: Glossary, engine: SearchEngine
) -> None:
    # AllReduce and Reduce-scatter share a category, NCCL (the topic) does not
    (_, b, c), _ = converse(
        glossary,
        engine,
        "NCCL 是干嘛的？",
        "它实现的 AllReduce 具体做了什么？",
        "它和 Reduce-scatter 有啥区别？",
    )
    assert b.citations[0].term_id == "allreduce"
    assert c.intent == "comparison" and c.terms[:2] == ["allreduce", "reduce-scatter"]
    # 激活参数 is no kin of 稠密模型 that MoE is not: "it" stays MoE
    (*_, d), _ = converse(
        glossary, engine, "什么是 MoE？", "它的激活参数指什么？", "那它和稠密模型有什么区别？"
    )
    assert d.terms[:2] == ["mixture-of-experts", "dense-model"]


def test_an_elliptical_follow_up_asks_the_previous_question_about_the_new_term(
    glossary: Glossary, engine: SearchEngine
) -> None:
    n = len(FEATURES)
    answers_all = RefusalModel([0.0] * n, [1.0] * n, [0.0] * n, 5.0, 0.5)
    state = ConversationState()
    first = answer(glossary, engine, "TTFT 主要由哪个阶段决定？", context=state, refusal=answers_all)
    assert first.intent == "relation"  # TTFT, then the stage beside it
    again = answer(glossary, engine, "那 TPOT 呢？", context=state, refusal=answers_all)
    assert again.intent == "relation"  # asked again, not "define TPOT"
    assert again.citations[0].term_id == "time-per-output-token"
    # after a definition, "and X?" defines X
    state = ConversationState()
    answer(glossary, engine, "什么是 TTFT？", context=state, refusal=answers_all)
    b = answer(glossary, engine, "那 TPOT 呢？", context=state, refusal=answers_all)
    assert b.intent == "definition" and b.citations[0].term_id == "time-per-output-token"


def test_a_borderline_question_inside_a_conversation_is_answered(
    glossary: Glossary, engine: SearchEngine
) -> None:
    from kg.chat.decide import CONVERSATION_FACTOR

    n = len(FEATURES)
    # a model whose probability is 0.45 for any question, with a threshold of 0.6
    borderline = RefusalModel([0.0] * n, [1.0] * n, [0.0] * n, math.log(0.45 / 0.55), 0.6)
    assert 0.6 * CONVERSATION_FACTOR <= 0.45
    cold = answer(glossary, engine, "为什么要求形状固定？", context=ConversationState(), refusal=borderline)
    assert not cold.grounded
    state = ConversationState()
    answer(glossary, engine, "什么是 CUDA Graph？", context=state, refusal=borderline)
    warm = answer(glossary, engine, "为什么要求形状固定？", context=state, refusal=borderline)
    assert warm.grounded and warm.decision is not None and warm.decision["reason"] == "conversation"


def test_a_choice_picks_one_of_the_listed_terms_and_the_other_one_follows(
    glossary: Glossary, engine: SearchEngine
) -> None:
    s = ConversationState()
    a = answer(glossary, engine, "TP 和 PP 里，哪一个对卡间通信要求更高？", context=s)
    pair = {"tensor-parallelism", "pipeline-parallelism"}
    assert a.grounded and a.citations[0].term_id in pair
    b = answer(glossary, engine, "那另一个的主要毛病是什么？", context=s)
    assert b.grounded and b.citations[0].term_id == (pair - {a.citations[0].term_id}).pop()


def test_ordinals_count_within_the_list_not_the_clause_before(
    glossary: Glossary, engine: SearchEngine
) -> None:
    s = ConversationState()
    answer(glossary, engine, "想把权重压到 INT4，GPTQ 和 AWQ 该选哪个？", context=s)
    a = answer(glossary, engine, "第二个的核心想法是什么？", context=s)
    assert a.grounded and a.citations[0].term_id == "activation-aware-weight-quantization"
    a = answer(
        glossary, engine, "XLA, PJRT, Pallas — what does the first one do?", context=ConversationState()
    )
    assert a.grounded and a.citations[0].term_id == "accelerated-linear-algebra"


def test_a_which_follow_up_may_pick_a_term_named_after_the_referent(
    glossary: Glossary, engine: SearchEngine
) -> None:
    """Autoscaling window has no edge to Autoscaling; its name extends it, so it is a candidate."""
    s = ConversationState()
    answer(glossary, engine, "What is autoscaling?", context=s)
    a = answer(glossary, engine, "And the window it uses to decide?", context=s)
    assert a.grounded and a.citations[0].term_id == "autoscaling-window"


def test_a_relation_or_comparison_keeps_the_question_s_order_of_named_term_and_pronoun(
    glossary: Glossary, engine: SearchEngine
) -> None:
    """ "SGLang 和它…" holds SGLang up against the term under discussion: SGLang is the subject;
    "它和 X…" / "How is it different from X?" keeps the term under discussion first."""
    s = ConversationState()
    answer(glossary, engine, "RadixAttention 是什么？", context=s)
    a = answer(glossary, engine, "SGLang 和它是什么关系？", context=s)
    assert a.grounded and [c.term_id for c in a.citations[:1]] == ["sglang"]
    assert "radixattention" in a.terms
    s = ConversationState()
    answer(glossary, engine, "What's a canary deployment?", context=s)
    a = answer(glossary, engine, "How is blue-green deployment different from it?", context=s)
    assert a.intent == "comparison" and a.terms[:2] == ["blue-green-deployment", "canary-deployment"]
    s = ConversationState()
    answer(glossary, engine, "What's a canary deployment?", context=s)
    a = answer(glossary, engine, "How is it different from blue-green deployment?", context=s)
    assert a.intent == "comparison" and a.terms[:2] == ["canary-deployment", "blue-green-deployment"]


def test_a_demonstrative_noun_points_at_the_name_ending_in_it(
    glossary: Glossary, engine: SearchEngine
) -> None:
    # in the question itself: "这条定律" is the 定律 named before, not the first name of the question
    q = "我们一直在优化 TPS，结果被古德哈特定律坑了……这条定律讲的是什么？"
    a = answer(glossary, engine, q, context=ConversationState())
    assert a.grounded and a.citations[0].term_id == "goodhart-s-law"
    # in the conversation: "这类并行" is the parallelism the last answer named, not its subject
    s = ConversationState()
    first = answer(glossary, engine, "Ring attention 属于哪类机制？", context=s)
    assert first.citations[0].term_id == "ring-attention" and "context-parallelism" in first.terms
    a = answer(glossary, engine, "那这类并行适合什么样的模型？", context=s)
    assert a.citations[0].term_id == "context-parallelism"


@pytest.mark.slow
def test_a_dash_ends_the_clause_a_pronoun_looks_back_across(
    glossary: Glossary, real_engine: SearchEngine
) -> None:
    # "X - is that …": "that" is the X named before the dash, not the conversation's topic
    s = ConversationState()
    answer(glossary, real_engine, "What is a Dockerfile?", context=s)
    a = answer(glossary, real_engine, "What's NIM - is that just a container too?", context=s)
    assert a.grounded and a.citations[0].term_id == "nim"


@pytest.mark.slow
def test_a_doubted_question_whose_best_hit_is_in_the_conversation_continues_it(
    glossary: Glossary, real_engine: SearchEngine
) -> None:
    from kg.chat.decide import CONVERSATION_FACTOR, LINKED_FACTOR

    n = len(FEATURES)
    # a model that doubts every question: probability 0.05 against a threshold of 0.6
    doubtful = RefusalModel([0.0] * n, [1.0] * n, [0.0] * n, math.log(0.05 / 0.95), 0.6)
    assert 0.6 * LINKED_FACTOR <= 0.05 < 0.6 * CONVERSATION_FACTOR
    q = "Why does a draft model need to be much smaller?"
    cold = answer(glossary, real_engine, q, context=ConversationState(), refusal=doubtful)
    assert not cold.grounded
    state = ConversationState()
    answer(glossary, real_engine, "What is speculative decoding?", context=state)
    about = {*state.topic, *state.last_terms}
    warm = answer(glossary, real_engine, q, context=state, refusal=doubtful)
    assert warm.grounded and warm.decision is not None and warm.decision["reason"] == "conversation_link"
    assert warm.citations[0].term_id in about
    # the same doubt about a question that says it changes the subject: refused
    off = answer(glossary, real_engine, "Unrelated: " + q, context=state, refusal=doubtful)
    assert not off.grounded


@pytest.mark.parametrize(
    ("question", "term"),
    [
        # a pronoun pointing at the name the question gives: the question is about that term
        ("functionalization, compiler-wise, what is that?", "functionalization"),
        # (a how-to quotes what the search finds: the fast engine's hashing vectors find little)
        ("Goodhart's law - how does it apply when you chase a benchmark number?", None),
        # a name, and where the asker met it
        ("Something else: what is a Pareto frontier on these charts?", "pareto-frontier"),
    ],
)
def test_a_question_about_a_name_it_gives_is_answered_whatever_the_model_says(
    glossary: Glossary, engine: SearchEngine, question: str, term: str | None
) -> None:
    n = len(FEATURES)
    doubtful = RefusalModel([0.0] * n, [1.0] * n, [0.0] * n, math.log(0.05 / 0.95), 0.6)
    a = answer(glossary, engine, question, context=ConversationState(), refusal=doubtful)
    assert a.grounded and a.citations
    assert term is None or a.citations[0].term_id == term
    assert a.decision is not None and a.decision["reason"] in ("named_referent", "exact")


def test_a_pronoun_back_at_a_name_does_not_outvote_a_model_all_but_sure(
    glossary: Glossary, engine: SearchEngine
) -> None:
    """ "My Linux kernel panics on boot after an update, how do I fix it?": "it" points at the
    kernel the question names, but a model sure the question is elsewhere (p 0.001, below the
    floor an exact name also needs) refuses it; a doubtful one (p 0.05) does not."""
    n = len(FEATURES)
    q = "My Linux kernel panics on boot after an update, how do I fix it?"
    sure = RefusalModel([0.0] * n, [1.0] * n, [0.0] * n, math.log(0.001 / 0.999), 0.6)
    a = answer(glossary, engine, q, context=ConversationState(), refusal=sure)
    assert not a.grounded and not a.citations
    assert a.decision is not None and a.decision["reason"] == "model"


def test_a_pronoun_after_a_name_the_glossary_lacks_is_that_name(
    glossary: Glossary, engine: SearchEngine
) -> None:
    s = ConversationState()
    answer(glossary, engine, "What is DVFS?", context=s)
    a = answer(glossary, engine, "What about the HyperWarp Boost mode - does that help?", context=s)
    assert not a.grounded and not a.citations


@pytest.mark.slow
def test_a_pronoun_after_a_which_answer_may_point_at_that_answer(
    glossary: Glossary, real_engine: SearchEngine
) -> None:
    from kg.chat.bot import _near

    s = ConversationState()
    answer(glossary, real_engine, "RadixAttention 是什么", context=s)
    a = answer(glossary, real_engine, "哪个框架主打这个？", context=s)
    assert a.citations[0].term_id == "sglang" and s.answered == "sglang" and s.topic == ["radixattention"]
    # the search for "还有个面向 TPU 的版本" reaches SGLang's neighbourhood (SGLang-JAX, TorchTPU)
    # before RadixAttention's: 它 is SGLang, and the answer is one of its neighbours
    b = answer(glossary, real_engine, "它还有个面向 TPU 的版本，叫啥？", context=s)
    assert b.grounded and "sglang" in b.terms
    assert b.citations[0].term_id in _near(glossary.defined_view(), "sglang")
    assert s.answered == "torchtpu" or s.answered == "sglang-jax"


def test_a_demonstrative_summing_up_the_situation_points_at_no_term(
    glossary: Glossary, engine: SearchEngine
) -> None:
    # "这种来回" is the round trip the question describes, not HBM, which it names before
    n = len(FEATURES)
    answers_all = RefusalModel([0.0] * n, [1.0] * n, [0.0] * n, 5.0, 0.5)
    a = answer(glossary, engine, "中间激活总是先写回 HBM 再读出来，这种来回怎么省掉？", refusal=answers_all)
    assert a.decision is not None and a.decision["reason"] != "named_referent"
    assert a.intent == "howto_why"
    # a demonstrative whose noun names the term still points at it
    b = answer(glossary, engine, "我在读古德哈特定律，这条定律讲的是什么？", refusal=answers_all)
    assert b.citations and b.citations[0].term_id == "goodhart-s-law"


@pytest.mark.parametrize(
    ("first", "choice", "expected"),
    [
        ("INT8 vs FP8 for inference?", "Which one needs Hopper or newer for native hardware support?", "fp8"),
        # three named: every one is a choice, not only the first two
        (
            "Ampere, Hopper, Blackwell - roughly which years are those?",
            "Which one brought FP8 support?",
            "hopper",
        ),
    ],
)
def test_which_one_picks_the_term_the_given_name_is_linked_to(
    glossary: Glossary, engine: SearchEngine, first: str, choice: str, expected: str
) -> None:
    state = ConversationState()
    answer(glossary, engine, first, context=state)
    a = answer(glossary, engine, choice, context=state)
    assert a.intent == "which" and a.citations[0].term_id == expected


def test_which_followed_by_a_verb_is_a_choice() -> None:
    from kg.chat.intents import find_pronouns

    assert [(p.text, p.ref) for p in find_pronouns("which has more vram?")] == [("which", "both")]
    assert find_pronouns("which engines use pagedattention?") == []


def test_a_demonstrative_whose_noun_names_the_topic_points_at_it(
    glossary: Glossary, engine: SearchEngine
) -> None:
    n = len(FEATURES)
    # a model that doubts every question: P(in domain) 0.1 against a threshold of 0.6
    doubtful = RefusalModel([0.0] * n, [1.0] * n, [0.0] * n, math.log(0.1 / 0.9), 0.6)
    state = ConversationState()
    answer(glossary, engine, "什么是推理分离？", context=state, refusal=doubtful)
    # "这种分离": the noun is a word of 推理分离, so the demonstrative points at the topic
    a = answer(
        glossary, engine, "还有哪个 Kubernetes 原生框架也支持这种分离？", context=state, refusal=doubtful
    )
    assert a.grounded and a.decision is not None and a.decision["reason"] == "context"
    # "这种天气" determines a noun of its own: the doubt stands
    b = answer(glossary, engine, "这种天气适合出去玩吗？", context=state, refusal=doubtful)
    assert not b.grounded and b.decision is not None and b.decision["reason"] == "model_context"


def test_an_elliptical_follow_up_takes_the_place_of_the_former_or_the_latter(
    glossary: Glossary, engine: SearchEngine
) -> None:
    """ "Which GPU generation first supported the latter?" then "And FP4?": FP4 takes the place of
    "the latter", not of GPU (the one name the question gives); a "它" next to a name of its own
    question ("Vera CPU 和它是什么关系？" then "那 GH200 呢？") leaves the pronoun and swaps the name."""
    from kg.chat.bot import _reasked
    from kg.chat.linking import linker_for
    from kg.chat.model import Turn

    linker = linker_for(glossary, engine)

    def reask(question: str, intent: str, follow_up: str) -> str | None:
        state = ConversationState()
        state.turns.append(Turn(question, intent, ("grace-cpu",), True))
        parsed = parse(normalize(follow_up, known_words(glossary), linker.vocabulary, glossary).text)
        return _reasked(glossary, linker, state, parsed, linker.analyse(parsed))

    again = reask("Which GPU generation first supported the latter?", "which", "And FP4?")
    assert again == "which gpu generation first supported fp4?"
    again = reask("Vera CPU 和它是什么关系？", "relation", "那 GH200 呢？")
    assert again == "gh200和它是什么关系?"


def test_a_word_cut_short_is_completed_when_its_neighbour_spells_the_name(glossary: Glossary) -> None:
    assert correct_in_names("And symmetric vs asymmetric quant?", glossary) == (
        "And symmetric vs asymmetric quantization?"
    )
    assert correct_in_names("What is quant trading?", glossary) == "What is quant trading?"  # no name


@pytest.mark.parametrize(
    ("question", "text"),
    [
        ("文生图里的 CFG 调高会怎么样？", "文生图里的 Classifier-free guidance 调高会怎么样？"),
        ("What's WOQ?", "What's weight-only quantization?"),
        ("KVC 里面存的是什么？", "KV cache 里面存的是什么？"),  # a word in capitals gives all its letters
        ("What is the CPU doing?", "What is the CPU doing?"),  # a name as it stands
        ("Is TPM 2.0 required?", "Is TPM 2.0 required?"),  # "Tokens per megawatt": no guess at "per"
        ("Is DNS slow?", "Is DNS slow?"),  # no name's initials
        ("What is a causal LM?", "What is a Causal language model?"),  # the closing words' initials
        ("the causal lm thing", "the causal lm thing"),  # initials are written in capitals
    ],
)
def test_an_acronym_no_name_is_becomes_the_one_name_whose_initials_make_it(
    glossary: Glossary, question: str, text: str
) -> None:
    assert expand_acronyms(question, glossary) == text


@pytest.mark.parametrize(
    ("question", "swapped"),
    [
        ("What does TTTF measure?", "ttft"),  # two neighbouring letters swapped
        ("How fast is NVLnik?", "nvlink"),
        ("different from a VAE", None),  # "from" is a word, not a slip of "form" (form factor)
    ],
)
def test_two_letters_swapped_in_a_name_written_like_one(
    glossary: Glossary, question: str, swapped: str | None
) -> None:
    from kg.chat.linking import latin_vocabulary

    text = normalize(question, known_words(glossary), latin_vocabulary(glossary), glossary).text.lower()
    if swapped is None:
        assert text == question.lower()
    else:
        assert swapped in text


@pytest.mark.parametrize(
    ("question", "text"),
    [
        ("What is Gated Delta Net?", "What is Gated DeltaNet?"),  # a name word written apart
        ("Flash Infer vs Flash Attention", "FlashInfer vs FlashAttention"),
        ("time to first token", "time to first token"),  # words that are words stay apart
        ("TP8 部署是什么意思？", "TP 8 部署是什么意思？"),  # a degree written onto an abbreviation
        ("B200 vs H100", "B200 vs H100"),  # names as they stand
    ],
)
def test_a_name_written_apart_or_a_degree_written_on(glossary: Glossary, question: str, text: str) -> None:
    from kg.chat.normalize import _join_split_names

    assert _join_split_names(question, known_words(glossary)) == text


@pytest.mark.parametrize(
    ("question", "term"),
    [
        ("Which phase mainly determines TTFT?", "prefill"),  # TTFT: "…对应 prefill 阶段"
        ("Which phase does TPOT correspond to?", "decode"),  # TPOT: "…对应 decode 阶段"
    ],
)
@pytest.mark.slow
def test_a_which_question_for_a_kind_answers_with_the_term_its_subject_says_is_of_it(
    glossary: Glossary, real_engine: SearchEngine, question: str, term: str
) -> None:
    """The subject's own definition names the answer right before the kind asked for ("prefill
    阶段" for "which phase"): that term answers, whatever the search ranks first (it ranked TPOT,
    TTFT's neighbour, for the first question)."""
    a = answer(glossary, real_engine, question)
    assert a.intent == "which" and a.citations[0].term_id == term, a.terms
