"""answer(): intents, grounding, citations, languages and refusals on the real graph.

The engine here uses the hashing encoder, so every answer below rests on names (labels,
aliases, abbreviations), not on semantic search; tests/chat/test_chat_evaluate.py runs the
real engine on the whole evaluation set.
"""

from __future__ import annotations

import pytest

from kg.chat import ConversationState, answer
from kg.chat.bot import MAX_QUESTION_CHARS
from kg.chat.classnoun import describes_a_kind
from kg.chat.intents import parse
from kg.chat.linking import linker_for
from kg.search.engine import SearchEngine
from kg.store import Glossary
from tests.chat.chat_helpers import assert_grounded, assert_refusal, converse


def ask(glossary: Glossary, engine: SearchEngine, q: str, state: ConversationState | None = None):  # type: ignore[no-untyped-def]
    return answer(glossary, engine, q, context=state)


# --- definitions -------------------------------------------------------------------------------


def test_definition_zh(glossary: Glossary, engine: SearchEngine) -> None:
    a = ask(glossary, engine, "什么是 TTFT？")
    assert_grounded(a, glossary)
    assert (a.lang, a.intent, a.linked_by) == ("zh", "definition", "exact")
    assert a.terms[0] == "time-to-first-token"
    first = a.citations[0]
    assert (first.term_id, first.kind) == ("time-to-first-token", "definition")
    # the best definition first (002), another source that adds something, and 001's note
    assert first.source == "002"
    assert any(c.kind == "note" and c.source == "001" for c in a.citations)
    assert "定义（来源 002）" in a.answer and "在推理系统里看什么" in a.answer
    assert a.follow_ups and all(any("\u4e00" <= ch <= "\u9fff" for ch in f) for f in a.follow_ups)


def test_definition_en_marks_chinese_sources_and_gives_english_labels(
    glossary: Glossary, engine: SearchEngine
) -> None:
    a = ask(glossary, engine, "What is TTFT?")
    assert_grounded(a, glossary)
    assert a.lang == "en"
    assert a.answer.startswith("**Time To First Token (TTFT; Chinese: 首 token 时间)**")
    assert "Definition (Chinese source 002): \u201c" in a.answer
    assert "定义" not in a.answer  # the template words are English
    assert all(f.isascii() or "?" in f for f in a.follow_ups)
    assert a.follow_ups[0].endswith("?")


@pytest.mark.parametrize(
    ("question", "term"),
    [
        ("张量并行是什么？", "tensor-parallelism"),
        ("張量並行是什麼？", "tensor-parallelism"),  # Traditional characters
        ("What is KV-Cache?", "kv-cache"),
        ("ＴＴＦＴ 是啥", "time-to-first-token"),  # full width
        ("TPU 上的 VMEM 是什么？", "vmem"),  # "A 上的 B": B
        ("OpenAI 的 Triton 是什么？", "triton"),
        ("What is NVIDIA Triton Inference Server?", "triton-inference-server"),
        ("What is the OpenAI Triton kernel language?", "triton"),
        ("光电路交换机是干什么用的？", "optical-circuit-switch"),
        ("kv cache", "kv-cache"),  # a bare name
        ("讲讲投机解码", "speculative-decoding"),  # a verb before a name is no product name
        ("What is the vLLM engine?", "vllm"),  # vLLM is an engine (推理引擎): not the Engine file
        ("What is the FlashAttention kernel?", "flashattention"),
        ("What is the TensorRT engine?", "engine"),  # TensorRT is a runtime: its engine is the file
        ("What is the MXFP4 format?", "mxfp4"),  # a name with its kind and nothing narrowing it
    ],
)
def test_definition_links_the_subject(
    glossary: Glossary, engine: SearchEngine, question: str, term: str
) -> None:
    a = ask(glossary, engine, question)
    assert_grounded(a, glossary)
    assert a.citations[0].term_id == term
    assert a.terms[0] == term


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "term"),
    [
        ("What's DeepSeek's GEMM library that does well on FP8?", "deepgemm"),  # a relative clause
        ("What is DeepSeek's GEMM library?", "deepgemm"),  # an owner
        ("What's NVIDIA's GEMM library?", "cublas"),
    ],
)
def test_a_name_before_a_class_noun_it_is_not_asks_for_another_term(
    glossary: Glossary, real_engine: SearchEngine, question: str, term: str
) -> None:
    # GEMM is an operation, not a library: the question asks for the library
    a = ask(glossary, real_engine, question)
    assert_grounded(a, glossary)
    assert a.intent == "which"
    assert a.citations[0].term_id == term


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("and their tuned kernel library for Instinct chips?", True),  # read as a definition
        ("deepseek's gemm kernel library that's strong on fp8?", True),
        ("back to libraries: the kernel library that AMD tunes for Instinct chips?", True),
        ("the vLLM engine?", False),  # the name is an engine itself: it asks about vLLM
        ("What is the MXFP4 format?", False),  # a question frame, not a bare phrase
    ],
)
def test_a_bare_phrase_naming_a_class_asks_which_term_of_it_fits(
    glossary: Glossary, engine: SearchEngine, question: str, kind: bool
) -> None:
    parsed = parse(question)
    analysis = linker_for(glossary, engine).analyse(parsed)
    if parsed.intent != "which":  # (the parser reads "…, the X that …" as a which question itself)
        assert describes_a_kind(glossary, parsed, analysis, question) is kind
    assert (ask(glossary, engine, question).intent == "which") is kind


@pytest.mark.parametrize(
    "turns",
    [
        ["Is OpenAI Triton the same as NVIDIA Triton?"],  # both sides link to Triton by name
        ["What is OpenAI Triton?", "Is that the same Triton NVIDIA uses for serving models?"],
    ],
)
def test_a_side_describing_a_namesake_is_the_namesake(
    glossary: Glossary, engine: SearchEngine, turns: list[str]
) -> None:
    # the two Tritons hold a same-name contrast; "NVIDIA" is in Triton Inference Server's text only
    answers, _ = converse(glossary, engine, *turns)
    a = answers[-1]
    assert_grounded(a, glossary)
    assert a.intent == "comparison"
    assert a.focus[:2] == ["triton", "triton-inference-server"], a.focus


def test_definition_with_a_second_term_quotes_the_edge_between_them(
    glossary: Glossary, engine: SearchEngine
) -> None:
    a = ask(glossary, engine, "What is Goodhart's Law and why does it matter when tuning TTFT?")
    assert_grounded(a, glossary)
    assert a.citations[0].term_id == "goodhart-s-law"
    assert "time-to-first-token" in a.terms
    # what the source says between them (001's note on Goodhart's Law names TTFT) is quoted once,
    # and TTFT is named with that quote's marker
    note = "优化 TPS、TTFT 或 benchmark 时，要同步观察质量、成本和真实体验。"
    assert a.answer.count(note) == 1
    marker = next(c.marker for c in a.citations if c.quote == note)
    assert f"TTFT [{marker}]" in a.answer


def test_names_facet(glossary: Glossary, engine: SearchEngine) -> None:
    s = ConversationState()
    ask(glossary, engine, "PagedAttention 是啥？", s)
    a = ask(glossary, engine, "它的中文名叫什么？", s)
    assert_grounded(a, glossary)
    assert "分页注意力" in a.answer.splitlines()[0]
    a = ask(glossary, engine, "what's its Chinese name?", s)
    assert a.lang == "en" and "分页注意力" in a.answer.splitlines()[0]


# --- abbreviations ----------------------------------------------------------------------------


def test_abbreviation(glossary: Glossary, engine: SearchEngine) -> None:
    a = ask(glossary, engine, "What does TTFT stand for?")
    assert_grounded(a, glossary)
    assert a.intent == "abbreviation"
    assert "**TTFT** is short for **Time To First Token**" in a.answer
    a = ask(glossary, engine, "ITL 是什么的缩写？")  # ITL is a name of TPOT's node
    assert_grounded(a, glossary)
    assert a.citations[0].term_id == "time-per-output-token"
    a = ask(glossary, engine, "What does MFU stand for?")  # never spelled out in the sources
    assert_grounded(a, glossary)
    assert "does not spell it out" in a.answer


# --- comparisons -------------------------------------------------------------------------------


def test_comparison_quotes_the_confusables_evidence(glossary: Glossary, engine: SearchEngine) -> None:
    a = ask(glossary, engine, "PTQ 和 QAT 有什么区别？")
    assert_grounded(a, glossary)
    assert a.intent == "comparison"
    assert a.terms[:2] == ["post-training-quantization", "quantization-aware-training"]
    diff = [c for c in a.citations if c.kind == "edge" and c.edge and c.edge[0] == "confused_with"]
    assert diff, a.answer
    assert "词表的辨析" in a.answer
    pair = {"post-training-quantization", "quantization-aware-training"}
    assert all({c.edge[1], c.edge[2]} == pair for c in diff if c.edge)


def test_comparison_en_and_shared_neighbours(glossary: Glossary, engine: SearchEngine) -> None:
    a = ask(glossary, engine, "What is the difference between prefill and decode?")
    assert_grounded(a, glossary)
    assert a.terms[:2] == ["prefill", "decode"]
    head = a.answer.splitlines()[0]
    assert "prefill" in head and " vs " in head and "decode" in head


def test_comparison_of_two_names_of_one_term(glossary: Glossary, engine: SearchEngine) -> None:
    a = ask(glossary, engine, "TTFT 和首 token 延迟有什么区别？")
    assert_grounded(a, glossary)
    assert "同一个概念" in a.answer
    assert a.terms == ["time-to-first-token"]


@pytest.mark.slow
def test_a_side_only_retrieval_found_is_no_other_name_of_the_named_side(
    glossary: Glossary, real_engine: SearchEngine
) -> None:
    # 华光互连 names nothing; the production search ranks InfiniBand first for it, but calling the
    # two "names of one concept" would invent an alias: the answer says the side is unknown
    a = ask(glossary, real_engine, "华光互连和 InfiniBand 有什么区别？")
    assert "同一个概念" not in a.answer
    assert a.terms == ["infiniband"] and "找不到" in a.answer, a.answer
    # two names of one term still say so
    a = ask(glossary, real_engine, "in-flight batching 和 continuous batching 有区别吗")
    assert "同一个概念" in a.answer and a.terms == ["continuous-batching"], a.answer


def test_comparison_with_an_unknown_side_says_so(glossary: Glossary, engine: SearchEngine) -> None:
    a = ask(glossary, engine, "What is the difference between ZeRO-Infinity and tensor parallelism?")
    assert_grounded(a, glossary)
    assert a.terms == ["tensor-parallelism"]
    assert any("zero-infinity" in w for w in a.warnings)
    assert "no term matching" in a.answer
    # the names offered instead are what the sources set beside tensor parallelism, contrasts
    # first, not what a search for the unknown word alone ranks
    offered = a.answer.split("(nearest: ", 1)[1].split(")", 1)[0].split(", ")

    def names(kinds: tuple[str, ...] = ("related_to", "confused_with")) -> set[str]:
        near = glossary.neighbours("tensor-parallelism", kinds)
        return {x for n in near for x in glossary.terms[n].all_names()}

    contrasted, linked = names(("confused_with",)), names()
    assert offered and offered[0] in contrasted and set(offered) <= linked, offered


@pytest.mark.slow
def test_a_comparison_of_sides_no_name_links_answers_with_retrievals_term(
    glossary: Glossary, real_engine: SearchEngine
) -> None:
    """ "比较两家芯片的时候…要怎么比才公平？" opening a conversation names no two terms: the answer is
    the term the search of the whole question ranks first, not two search guesses for its sides."""
    q = "比较两家芯片的时候，精度和负载设定都不一样，这样的结论可信吗？要怎么比才公平？"
    a = ask(glossary, real_engine, q)
    assert_grounded(a, glossary)
    assert a.intent != "comparison"
    assert a.citations[0].term_id == real_engine.search(q, "hybrid", limit=5).hits[0].term_id, a.terms


# --- relations, listings, how/why ----------------------------------------------------------------


def test_relation_lists_neighbours_with_evidence(glossary: Glossary, engine: SearchEngine) -> None:
    a = ask(glossary, engine, "和 vLLM 相关的概念有哪些？")
    assert_grounded(a, glossary)
    assert a.intent == "relation"
    assert a.citations[0].term_id == "vllm"
    listed = [c.term_id for c in a.citations if c.kind == "edge"]
    assert "pagedattention" in a.terms  # named by vLLM's own definition: listed early
    neighbours = set(glossary.neighbours("vllm"))
    assert listed and set(listed) <= neighbours


def test_relation_between_two_terms(glossary: Glossary, engine: SearchEngine) -> None:
    a = ask(glossary, engine, "NVLink 和 NVSwitch 是什么关系？")
    assert_grounded(a, glossary)
    assert a.terms[:2] == ["nvlink", "nvswitch"]
    assert any(c.kind == "edge" for c in a.citations)


@pytest.mark.parametrize(
    ("question", "central", "members"),
    [
        ("有哪些量化方法？", "quantization", {"post-training-quantization", "quantization-aware-training"}),
        ("常见的推理引擎有哪些？", "inference-engine", {"vllm", "sglang", "tensorrt-llm"}),
        (
            "What parallelism strategies are there?",
            "model-parallelism-overview",
            {"tensor-parallelism", "pipeline-parallelism", "expert-parallelism"},
        ),
        # the head noun ends the class phrase: inference engines, not LLMs
        ("主流的 LLM 推理引擎都有哪些？", "inference-engine", {"vllm", "tensorrt"}),
    ],
)
def test_listing(
    glossary: Glossary, engine: SearchEngine, question: str, central: str, members: set[str]
) -> None:
    a = ask(glossary, engine, question)
    assert_grounded(a, glossary)
    assert a.intent == "listing"
    assert a.citations[0].term_id == central
    assert members <= set(a.terms)


@pytest.mark.slow
def test_a_class_phrase_naming_no_term_is_searched_alone(
    glossary: Glossary, real_engine: SearchEngine
) -> None:
    # "collective ops" names no term; the whole question would follow "inference" instead
    a = ask(glossary, real_engine, "What collective ops will I run into in distributed inference?")
    assert_grounded(a, glossary)
    assert a.intent == "listing"
    # the central term is one of collective communication (NCCL, AllReduce …), not of inference
    central = glossary.terms[a.citations[0].term_id]
    text = " ".join([*central.all_names(), *(d.text for d in central.definitions)]).lower()
    assert "collective" in text or "集合通信" in text, central.id


def test_howto(glossary: Glossary, engine: SearchEngine) -> None:
    a = ask(glossary, engine, "为什么 TPOT 对应 decode 阶段？")  # a why-question about a named term
    assert_grounded(a, glossary)
    assert a.intent == "howto_why"
    assert "没有专门回答" in a.answer  # says plainly that the glossary has no how-to entry
    a = ask(glossary, engine, "Why is decode memory-bound?")
    assert_grounded(a, glossary)
    assert {"decode", "memory-bound"} <= set(a.terms)


@pytest.mark.slow
def test_remedy_and_which_answer_with_another_term(glossary: Glossary, real_engine: SearchEngine) -> None:
    """ "How do I reduce X" / "which … fixes X": the answer is a term other than X (issue 9)."""
    a = ask(glossary, real_engine, "怎么降低 TPOT？")
    assert_grounded(a, glossary)
    assert a.intent == "which" and a.citations[0].term_id != "time-per-output-token"
    assert "time-per-output-token" not in a.focus
    a = ask(glossary, real_engine, "Which framework is built around RadixAttention?")
    assert_grounded(a, glossary)
    assert a.citations[0].term_id == "sglang"


@pytest.mark.slow
def test_a_pronoun_into_a_descriptive_question_does_not_make_its_name_the_answer(
    glossary: Glossary, real_engine: SearchEngine
) -> None:
    """The pronoun points at a name the question gives, but the question describes what it wants:
    the search's best term answers, not the name the pronoun repeats."""
    a = ask(
        glossary,
        real_engine,
        "SGLang 的显存放不下那么多 KV cache 了，想把它挪到主机内存和外部存储上，有开源的现成方案吗？",
    )
    assert_grounded(a, glossary)
    assert a.citations[0].term_id not in ("sglang", "kv-cache"), a.terms


def test_a_name_possessed_by_another_is_the_term_both_name(glossary: Glossary, engine: SearchEngine) -> None:
    """ "TPU 的 TensorCore" is TensorCore (TPU), whose names are "TPU TensorCore" and "TensorCore";
    "TensorRT 的 LLM 专用分支" stays two names (LLM is no name of TensorRT-LLM)."""
    linker = linker_for(glossary, engine)
    spans = linker.analyse(parse("TPU 的 TensorCore 里面都有啥？")).spans
    assert [s.term_id for s in spans] == ["tensorcore-tpu"]
    spans = linker.analyse(parse("算是 TensorRT 的 LLM 专用分支的推理引擎是哪个？")).spans
    assert [s.term_id for s in spans][:2] == ["tensorrt", "large-language-model"]
    a = ask(glossary, engine, "TPU 的 TensorCore 里面都有啥？")
    assert a.citations[0].term_id == "tensorcore-tpu"


def test_a_modifier_coordinated_with_a_name_shares_its_head(glossary: Glossary, engine: SearchEngine) -> None:
    """ "symmetric vs asymmetric quantization" names both terms (gapping), in either language; a
    modifier that is a name of its own ("TTFT 和 TPOT") or names nothing with the head stays as it is."""
    linker = linker_for(glossary, engine)
    for q in (
        "Explain symmetric vs asymmetric quantization.",
        "对称和非对称量化有什么区别",
        "How does symmetric differ from asymmetric quantization?",  # a verb of comparing joins too
    ):
        spans = linker.analyse(parse(q)).spans
        assert [s.term_id for s in spans] == ["symmetric-quantization", "asymmetric-quantization"], q
        a = ask(glossary, engine, q)
        assert a.intent == "comparison"
        assert set(a.terms[:2]) == {"symmetric-quantization", "asymmetric-quantization"}, a.terms
    spans = linker.analyse(parse("static and continuous batching")).spans
    assert [s.term_id for s in spans] == ["static-batching", "continuous-batching"]
    spans = linker.analyse(parse("TTFT 和 TPOT 的区别")).spans
    assert [s.term_id for s in spans] == ["time-to-first-token", "time-per-output-token"]
    spans = linker.analyse(parse("fast and continuous batching")).spans
    assert [s.term_id for s in spans] == ["continuous-batching"]


# --- multi-turn --------------------------------------------------------------------------------------


def test_pronouns_follow_the_topic(glossary: Glossary, engine: SearchEngine) -> None:
    s = ConversationState()
    ask(glossary, engine, "什么是 TTFT？", s)
    a = ask(glossary, engine, "那它和 TPOT 有什么区别？", s)
    assert a.intent == "comparison"
    assert a.terms[:2] == ["time-to-first-token", "time-per-output-token"]
    a = ask(glossary, engine, "它的英文是什么？", s)  # still TTFT: a pronoun turn keeps the topic
    assert a.terms == ["time-to-first-token"] and "Time To First Token" in a.answer
    a = ask(glossary, engine, "What is PagedAttention?", s)  # a new topic
    a = ask(glossary, engine, "and how is it measured?", s)
    assert a.terms[0] == "pagedattention" and a.lang == "en"


def test_a_session_saved_before_a_rebuild_follows_former_ids(
    glossary: Glossary, engine: SearchEngine
) -> None:
    """Saved sessions (SQLite, Redis) outlive a rebuild: former ids in them resolve, gone ones are dropped."""
    from kg.ids import legacy_hash_id

    former = legacy_hash_id("循环状态")  # the id 循环状态 had before pinyin ids
    s = ConversationState(topic=[former], last_terms=[former, "no-such-term"], pair=[former, "kv-cache"])
    a = ask(glossary, engine, "它和什么有关？", s)
    assert a.grounded and a.terms[0] == "recurrent-state"
    assert s.topic == ["recurrent-state"] and s.pair[1:] == ["kv-cache"]
    assert all(former not in t.terms and "no-such-term" not in t.terms for t in s.turns)


def test_part_of_the_topic_does_not_become_the_topic(glossary: Glossary, engine: SearchEngine) -> None:
    s = ConversationState()
    ask(glossary, engine, "什么是 MoE？", s)
    a = ask(glossary, engine, "它的激活参数指什么？", s)
    assert a.citations[0].term_id == "active-parameters"  # 激活参数
    assert "mixture-of-experts" in a.terms
    a = ask(glossary, engine, "那它和稠密模型有什么区别？", s)
    assert a.terms[:2] == ["mixture-of-experts", "dense-model"]


def test_former_latter_and_they(glossary: Glossary, engine: SearchEngine) -> None:
    s = ConversationState()
    ask(glossary, engine, "What is the difference between TTFT and TTFB?", s)
    a = ask(glossary, engine, "How are they related?", s)
    assert a.intent == "relation"
    assert a.terms[:2] == ["time-to-first-token", "time-to-first-byte"]
    a = ask(glossary, engine, "And what is related to the latter?", s)
    assert a.citations[0].term_id == "time-to-first-byte"
    a = ask(glossary, engine, "What about the former?", s)
    assert a.citations[0].term_id == "time-to-first-token"


def test_pronoun_without_context_is_not_guessed(glossary: Glossary, engine: SearchEngine) -> None:
    a = ask(glossary, engine, "它是什么？", ConversationState())
    assert not a.grounded and a.citations == []
    assert a.intent == "unknown"
    assert "它" in a.answer


def test_demonstrative_after_a_name_refers_to_that_name(glossary: Glossary, engine: SearchEngine) -> None:
    s = ConversationState()
    ask(glossary, engine, "什么是 TTFT？", s)
    a = ask(glossary, engine, "RTF 这个指标是怎么算的？", s)
    assert a.citations[0].term_id == "real-time-factor"


def test_off_topic_turn_keeps_the_topic(glossary: Glossary, engine: SearchEngine) -> None:
    s = ConversationState()
    ask(glossary, engine, "What does MIG stand for?", s)
    assert not ask(glossary, engine, "Cool. Who won the last Super Bowl?", s).grounded
    a = ask(glossary, engine, "What is it related to?", s)
    assert a.citations[0].term_id == "multi-instance-gpu"


def test_state_keeps_a_bounded_number_of_turns(glossary: Glossary, engine: SearchEngine) -> None:
    s = ConversationState(max_turns=3)
    for q in ["什么是 TTFT？", "什么是 TPOT？", "什么是 KV cache？", "什么是 vLLM？", "它是什么？"]:
        ask(glossary, engine, q, s)
    assert len(s.turns) == 3
    assert s.topic[0] == "vllm"


# --- out of domain ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "今天上海天气怎么样？",
        "帮我推荐一家好吃的川菜馆",
        "Who won the 2022 FIFA World Cup?",
        "How do I bake sourdough bread?",
        "What is ZeRO-Infinity offload?",
        "What is the FlashDecode-Turbo v9 scheduler?",
        "什么是 Ring-AllGather-X 协议？",
        "什么是 Hyper-KV 量子压缩？",
        "What is Mamba-3 attention?",
        "什么是 GPT-5？",
    ],
)
def test_out_of_domain_is_refused_with_suggestions(
    glossary: Glossary, engine: SearchEngine, question: str
) -> None:
    a = ask(glossary, engine, question)
    assert_refusal(a, glossary)
    assert a.intent == "out_of_domain"
    assert ("词表里没有" in a.answer) if a.lang == "zh" else ("The glossary has no" in a.answer)


def test_a_known_concept_under_a_coined_chinese_modifier_is_refused(
    glossary: Glossary, engine: SearchEngine
) -> None:
    """ "回旋解码是什么？": 解码 is a glossary name, 回旋 occurs in no glossary text, so the question
    asks about a variant the glossary does not define; "动态批处理" is a name as a whole, and a
    modifier the texts use ("静态") is no coinage."""
    a = ask(glossary, engine, "回旋解码是什么？")
    assert_refusal(a, glossary)
    assert a.intent == "out_of_domain"
    for q, tid in (("动态批处理是什么？", "dynamic-batching"), ("静态批处理是什么？", "static-batching")):
        a = ask(glossary, engine, q)
        assert_grounded(a, glossary)
        assert a.citations[0].term_id == tid, q


@pytest.mark.parametrize(
    ("message", "reply"),
    [
        ("你好", "你好！"),
        ("hello", "Hello!"),
        ("謝謝，先這樣吧", "不客氣"),  # Traditional in, Traditional out
        ("好的谢谢", "不客气"),
        ("thanks, that's all for now", "You're welcome"),
    ],
)
def test_greetings_and_thanks_get_a_courteous_reply_and_keep_the_topic(
    glossary: Glossary, engine: SearchEngine, message: str, reply: str
) -> None:
    """A message of greetings, thanks or leave-taking asks nothing: no term is cited, no refusal
    text with "nearest terms" is shown, and the conversation's topic survives it."""
    s = ConversationState()
    ask(glossary, engine, "什么是 TTFT？", s)
    a = ask(glossary, engine, message, s)
    assert a.decision["reason"] == "social", a.decision
    assert a.answer.startswith(reply) and not a.citations and not a.suggestions
    a = ask(glossary, engine, "它主要受哪个阶段影响？", s)
    assert_grounded(a, glossary)
    assert "time-to-first-token" in a.terms
    a = ask(glossary, engine, "谢谢，TTFT 是什么")  # thanks around a question: the question counts
    assert_grounded(a, glossary)


@pytest.mark.parametrize(
    ("question", "coined"),
    [
        ("什么是 token 蒸发率？", True),  # after the name: 蒸发 is in no glossary text
        ("碎片化 MoE 聚变是什么？", True),  # around it
        ("回旋 KV 缓存是怎么工作的？", True),  # how it works, asked of a coinage
        ("分页注意力是怎么工作的？", False),
        ("混合专家模形是什么？", False),  # 模形: a same-sound slip of 模型, not a new word
        ("PagedAttention 原理是啥？", False),  # 原理 asks about an aspect of the name
        # a modifier before the name whose words no glossary name uses, never put before it
        ("流式分页注意力是什么？", True),
        ("追光解码是什么？", True),
        ("模型算力利用率是什么？", False),  # 模型 is a word of glossary names
        ("简单说说 XLA 是做什么的？", False),  # a lead of the request, not a modifier
    ],
)
def test_coined_words_around_a_known_name_are_refused_typos_and_aspects_not(
    glossary: Glossary, engine: SearchEngine, question: str, coined: bool
) -> None:
    a = ask(glossary, engine, question)
    assert (a.decision["reason"] == "unknown_name") is coined, a.decision
    if coined:
        assert_refusal(a, glossary)
    else:
        assert_grounded(a, glossary)


@pytest.mark.parametrize(
    "question",
    [
        "What is quorum decoding?",
        "Can you explain tessellate decoding for LLM serving?",
        "What is vortex batching?",
        "What's the difference between vortex batching and continuous batching?",  # a side
        "How does braid parallelism split MoE experts across GPUs?",  # how such a subject works
    ],
)
def test_a_known_head_under_a_coined_english_modifier_is_refused(
    glossary: Glossary, engine: SearchEngine, question: str
) -> None:
    """ "quorum decoding": decoding heads two glossary names, "quorum" occurs in no glossary text in
    any form, so the question asks about a variant the glossary does not define."""
    a = ask(glossary, engine, question)
    assert_refusal(a, glossary)
    assert a.intent == "out_of_domain"


@pytest.mark.parametrize(
    ("question", "term"),
    [
        ("What is greedy decoding?", None),  # "greedy" is a word of Sampling's definition
        ("What is disaggregated serving?", "disaggregation"),  # a form of a glossary word
        ("What is static batching?", "static-batching"),  # a name as a whole
        ("What is the acronym TTFT?", "time-to-first-token"),  # a word of the question's frame
        ("How's goodput different from plain throughput?", "goodput"),  # a plain adjective
        ("chunkd prefill vs normal prefill", "chunked-prefill"),  # a typo of a name word
        ("How does ring attention reduce memory?", "ring-attention"),  # a name as a whole
        ("How does continuous batching improve throughput?", "continuous-batching"),
    ],
)
def test_an_english_modifier_the_glossary_uses_is_no_coinage(
    glossary: Glossary, engine: SearchEngine, question: str, term: str | None
) -> None:
    a = ask(glossary, engine, question)
    assert a.intent != "out_of_domain"
    if term is not None:
        assert_grounded(a, glossary)
        assert a.citations[0].term_id == term


@pytest.mark.parametrize("question", ["雷鸣推理引擎支持哪些 GPU？", "灵犀推理芯片的显存带宽是多少？"])
def test_a_coined_chinese_product_name_before_its_kind_is_refused(
    glossary: Glossary, engine: SearchEngine, question: str
) -> None:
    """ "雷鸣推理引擎": a noun no glossary text uses, right before the glossary name of its kind."""
    assert_refusal(ask(glossary, engine, question), glossary)


def test_unknown_compound_names_are_reported(glossary: Glossary, engine: SearchEngine) -> None:
    a = ask(glossary, engine, "什么是 Ring-AllGather-X 协议？")
    assert "Ring-AllGather-X" in a.answer
    assert "allgather" in a.suggestions  # the known part is suggested, not defined


def test_odd_input_never_raises(glossary: Glossary, engine: SearchEngine) -> None:
    for q in ["", "   ", "？", "\x00\x01", "🙂🙂", "a" * (MAX_QUESTION_CHARS + 50), "什么是" * 400]:
        a = ask(glossary, engine, q)
        assert isinstance(a.answer, str) and a.answer
    long = ask(glossary, engine, "什么是 TTFT？" + " x" * MAX_QUESTION_CHARS)
    assert any("truncated" in w for w in long.warnings)


def test_answer_is_fast_in_process(glossary: Glossary, engine: SearchEngine) -> None:
    a = ask(glossary, engine, "TTFT 和 TPOT 有什么区别？")
    assert a.took_ms < 500


def test_concurrent_questions_do_not_interfere(glossary: Glossary, engine: SearchEngine) -> None:
    from concurrent.futures import ThreadPoolExecutor

    questions = [
        "什么是 TTFT？",
        "What is PagedAttention?",
        "GPTQ 和 AWQ 有什么区别？",
        "今天上海天气怎么样？",
    ] * 10
    expected = {q: ask(glossary, engine, q).answer for q in set(questions)}
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda q: ask(glossary, engine, q), questions))
    assert [r.answer for r in results] == [expected[q] for q in questions]


def test_a_comparison_of_three_listed_terms_has_three_sides(glossary: Glossary, engine: SearchEngine) -> None:
    (a, third), state = converse(glossary, engine, "vLLM、SGLang 和 TGI 这三个有啥区别", "第三个是哪家出的？")
    assert a.intent == "comparison"
    assert a.focus == ["vllm", "sglang", "text-generation-inference"]  # the user's order
    assert a.citations[0].term_id == "vllm"
    # the third one is a side of the comparison: an ordinal picks it, and "它" is it afterwards
    assert third.citations[0].term_id == "text-generation-inference"
    assert state.topic == ["text-generation-inference"]


def test_a_listing_gives_the_instances_the_source_gives_in_its_order(
    glossary: Glossary, engine: SearchEngine
) -> None:
    # 002: "模型训练完再做量化…。AWQ、GPTQ、SmoothQuant 均属此类。"
    a = answer(glossary, engine, "Which PTQ algorithms are commonly used?", context=ConversationState())
    assert a.intent == "listing" and a.citations[0].term_id == "post-training-quantization"
    assert a.listed[:3] == ["activation-aware-weight-quantization", "gptq", "smoothquant"]


@pytest.mark.parametrize(
    "question",
    [
        "prefill 节点和 decode 节点有啥区别",
        "prefill 和 decode 节点有啥区别",
        "What's the difference between prefill nodes and decode nodes?",
    ],
)
def test_sides_sharing_a_head_name_compare_the_names_before_it(
    glossary: Glossary, engine: SearchEngine, question: str
) -> None:
    # both sides end on 节点 / node (GPU node): the sides differ in prefill / decode, and the
    # head would make them one term
    (a, former), _ = converse(glossary, engine, question, "前者一般是什么瓶颈？")
    assert a.intent == "comparison" and a.focus[:2] == ["prefill", "decode"]
    # "the former" is prefill: the kind of bottleneck asked for is the bound term the sources tie to
    # prefill (kg/chat/alternatives.py), given beside prefill, asked of which it is (a relation
    # answer, the term under discussion first) — decode would be memory-bound
    assert former.citations[0].term_id == "prefill" and "compute-bound" in former.answer


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("Medusa 需要单独的草稿模型吗？", "medusa"),  # not 草稿模型, the noun after 的
        ("vLLM 支持前缀缓存吗？", "vllm"),
        ("vLLM 自带的前缀缓存能用到主机内存上吗？", "prefix-caching"),  # an owner before it, ending in 的
        ("TTFT 包含排队时间吗？", "time-to-first-token"),
    ],
)
def test_a_yes_no_question_is_about_the_name_it_opens_with(
    glossary: Glossary, engine: SearchEngine, question: str, subject: str
) -> None:
    a = answer(glossary, engine, question, context=ConversationState())
    assert a.citations and a.citations[0].term_id == subject


@pytest.mark.slow
@pytest.mark.parametrize(
    "question", ["内部的和外部的有什么区别？", "What's the difference between internal and external?"]
)
def test_bare_modifiers_compared_are_kinds_of_the_topic(
    glossary: Glossary, real_engine: SearchEngine, question: str
) -> None:
    # 000: "内部 TCO 是芯片设计方自己运行它的成本，外部 TCO 是客户购买或租用它付出的成本"
    # (the real engine: whether a question of two bare modifiers is in the domain at all is the
    # refusal model's call, which a hashing encoder's vectors cannot inform)
    (_, a), _ = converse(glossary, real_engine, "TCO 都包括哪些成本？", question)
    assert a.intent == "comparison" and a.focus[:2] == ["internal-tco", "external-tco"]


def test_what_goes_into_a_term_is_its_definition(glossary: Glossary, engine: SearchEngine) -> None:
    a = answer(glossary, engine, "What goes into TCO?", context=ConversationState())
    assert a.citations and a.citations[0].term_id == "tco"


def test_a_counterpart_asked_with_no_name_is_the_topics(glossary: Glossary, engine: SearchEngine) -> None:
    (_, a), _ = converse(glossary, engine, "What is ISL?", "And the output counterpart?")
    assert a.citations and a.citations[0].term_id == "output-sequence-length"


def test_the_opposite_asked_with_no_name_is_the_topics_contrast(
    glossary: Glossary, engine: SearchEngine
) -> None:
    # 001: Hyperscaler "和专注 GPU 的 neocloud 相对" (a contrast edge)
    (_, a, other), _ = converse(
        glossary,
        engine,
        "What's a neocloud?",
        "and the opposite kind of provider?",
        "What's the opposite of a hot take?",
    )
    assert a.citations and a.citations[0].term_id == "hyperscaler"
    assert not other.citations  # the opposite of something no term names: not the topic's


@pytest.mark.slow
def test_a_figure_stated_of_a_joint_pair_answers_with_the_pair(
    glossary: Glossary, real_engine: SearchEngine
) -> None:
    """The search ranks 输出长度 first for "8K/1K"; 000 states the figure of the pair after a clause
    each, input first: the answer is input's, with the line that says it quoted whole. (This engine
    has no examples stage; for the English "What does 8K/1K mean on those charts?" it ranks other
    terms first, which the bundled artifact's engine does not.)"""
    assert (
        real_engine.search("8K/1K 是什么意思？", "hybrid", limit=1).hits[0].term_id
        == "output-sequence-length"
    )
    a = ask(glossary, real_engine, "8K/1K 是什么意思？")
    assert a.citations[0].term_id == "input-sequence-length", a.terms
    assert "8K/1K 表示长提示词配较短回答" in a.answer
    assert "output-sequence-length" in a.terms


@pytest.mark.slow
def test_what_determines_a_term_is_what_its_own_definition_names(
    glossary: Glossary, real_engine: SearchEngine
) -> None:
    # TTFT: "对应 prefill 阶段" / "通常包含 prefill" — the search ranks E2E latency (whose formula
    # names TTFT) above Prefill; TTFT's own text says what it depends on
    a = ask(glossary, real_engine, "What determines TTFT?")
    assert_grounded(a, glossary)
    assert a.intent == "which" and a.citations[0].term_id == "prefill", a.terms


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "refused"),
    [
        ("墨水在水里的扩散速度和温度有什么关系？", True),  # 温度 is Temperature's name, the rest chemistry
        ("How does OmniFabric-X differ from InfiniBand?", True),  # one side made up, p ≈ 0.004
        ("Temperature 和 logits 有什么关系？", False),
        ("HBM 和 GDDR7 有什麼差別？", False),  # a real product the glossary lacks, beside a term
    ],
)
def test_an_exact_name_does_not_outvote_a_model_all_but_sure_of_another_field(
    glossary: Glossary, real_engine: SearchEngine, question: str, refused: bool
) -> None:
    a = ask(glossary, real_engine, question)
    assert (not a.grounded) is refused, (a.decision, a.terms)


@pytest.mark.parametrize(
    ("question", "term"),
    [
        # "cache hit rate" ends "Prefix cache hit rate": the words after KV cache ask for that term
        ("What's the KV cache hit rate?", "prefix-cache-hit-rate"),
        ("What is the KV cache?", "kv-cache"),
    ],
)
def test_words_after_a_name_that_end_another_terms_name_ask_for_that_term(
    glossary: Glossary, engine: SearchEngine, question: str, term: str
) -> None:
    a = ask(glossary, engine, question)
    assert_grounded(a, glossary)
    assert a.citations[0].term_id == term
