"""Question shapes: intents, slots and pronouns in Chinese and English (no graph needed)."""

from __future__ import annotations

import pytest

from kg.chat.intents import asks_bare_examples, find_pronouns, is_demonstrative, parse


@pytest.mark.parametrize(
    ("question", "intent", "slots"),
    [
        ("什么是 TTFT？", "definition", ["ttft"]),
        ("How does SGLang stack up against MLC-LLM?", "comparison", ["sglang", "mlc-llm"]),
        ("TTFT 是啥", "definition", ["ttft"]),
        # why two terms differ is a comparison
        ("Why does TTFT differ from TTFB?", "comparison", ["ttft", "ttfb"]),
        # a name asked for what a clause describes
        (
            "What's the setup called where prefill and decode share the same chips?",
            "which",
            ["prefill and decode share the same chips"],
        ),
        (
            "what's it called when all-reduce gets moved onto the SparseCore instead?",
            "which",
            ["all-reduce gets moved onto the sparsecore instead"],
        ),
        ("张量并行是什么？", "definition", ["张量并行"]),
        ("光电路交换机是干什么用的？", "definition", ["光电路交换机"]),
        ("What is PagedAttention?", "definition", ["pagedattention"]),
        ("Define triple buffering.", "definition", ["triple buffering"]),
        (
            "What is a recurrent state in linear attention layers?",
            "definition",
            ["recurrent state in linear attention layers"],
        ),
        ("TTFT 和 TPOT 的区别", "comparison", ["ttft", "tpot"]),
        ("GPTQ 和 AWQ 有什么区别？", "comparison", ["gptq", "awq"]),
        ("TTFT 与 TTFB 有什么不同", "comparison", ["ttft", "ttfb"]),
        ("TTFT 和 TTFB 是一回事吗？", "comparison", ["ttft", "ttfb"]),
        ("TTFT vs TTFB", "comparison", ["ttft", "ttfb"]),
        ("What is the difference between TTFT and TTFB?", "comparison", ["ttft", "ttfb"]),
        (
            "Dynamic batching vs continuous batching — what's the difference?",
            "comparison",
            ["dynamic batching", "continuous batching"],
        ),
        ("How does EAGLE differ from Medusa?", "comparison", ["eagle", "medusa"]),
        # where the difference lies; a contraction; a plural subject
        ("SGLang 跟 vLLM 差在哪？", "comparison", ["sglang", "vllm"]),
        ("How's EAGLE different from Medusa?", "comparison", ["eagle", "medusa"]),
        ("Are CUDA cores the same thing as Tensor Cores?", "comparison", ["cuda cores", "tensor cores"]),
        ("它跟 PTQ 比优缺点是啥？", "comparison", ["它", "ptq"]),
        # a remedy asked for after the problem; the tool something is done with
        ("激活里异常值太多、不好量化，有什么办法？", "howto_why", ["激活里异常值太多、不好量化"]),
        ("它的检索层一般用什么来存向量？", "which", ["它的检索层一般用什么来存向量"]),
        ("跨节点的流量一般走什么网络？", "which", ["跨节点的流量一般走什么网络"]),
        ("和 vLLM 相关的概念有哪些？", "relation", ["vllm"]),
        ("What is related to LMCache?", "relation", ["lmcache"]),
        ("LMCache 和 KV cache 是什么关系？", "relation", ["lmcache", "kv cache"]),
        ("怎么降低 TPOT？", "howto_why", ["降低tpot"]),
        ("How to reduce TTFT?", "howto_why", ["reduce ttft"]),
        ("Why is decode memory-bound?", "howto_why", ["decode memory-bound"]),
        ("为什么 decode 阶段是访存受限的？", "howto_why", ["decode阶段是访存受限的"]),
        ("ITL 是什么的缩写？", "abbreviation", ["itl"]),
        ("PUE 是什么缩写，衡量什么？", "abbreviation", ["pue"]),
        ("What does MIG stand for?", "abbreviation", ["mig"]),
        ("有哪些量化方法？", "listing", ["量化方法"]),
        ("常见的推理引擎有哪些？", "listing", ["推理引擎"]),
        ("What kinds of quantization are there?", "listing", ["quantization"]),
        ("Which attention variants are there?", "listing", ["attention variants"]),
        ("What collective ops are there for multi-GPU work?", "listing", ["collective ops"]),
        ("What parallelism strategies are there?", "listing", ["parallelism"]),
        ("What kinds of parallelism can I use to split a model across GPUs?", "listing", ["parallelism"]),
        ("What collective ops will I run into in distributed inference?", "listing", ["collective ops"]),
        ("What numeric precision are common for LLM inference?", "listing", ["numeric precision"]),
        (
            "What are the main parts of an image generation pipeline?",
            "listing",
            ["image generation pipeline"],
        ),
        ("Which strategies does model parallelism cover?", "listing", ["model parallelism"]),
        (
            "What NVIDIA data-center GPU generations does the glossary list?",
            "listing",
            ["nvidia data-center gpu generations"],
        ),
        # weighing two options compares them; asking which one has a property is a choice
        ("PTQ or QAT - which is better for accuracy?", "comparison", ["ptq", "qat"]),
        ("which is better for accuracy, PTQ or QAT?", "comparison", ["ptq", "qat"]),
        ("想把权重压到 INT4，GPTQ 和 AWQ 该选哪个？", "comparison", ["gptq", "awq"]),
        ("which is faster, TP or PP?", "which", ["is faster"]),
        ("SmoothQuant 跟 OmniQuant 哪个效果更好？", "comparison", ["smoothquant", "omniquant"]),
        ("Is RoCEv2 a better choice than iWARP for moving KV cache?", "comparison", ["rocev2", "iwarp"]),
        # one thing or two; why two terms differ
        (
            "Triton 推论服务器和 OpenAI Triton 是同一套软件吗？",
            "comparison",
            ["triton推论服务器", "openai triton"],
        ),
        ("内部 TCO 和外部 TCO 为什么会差很多", "comparison", ["内部tco", "外部tco"]),
        # how one term relates to another, where it fits
        ("How does the SLO relate to the SLA?", "relation", ["slo", "sla"]),
        ("Where does AWQ fit relative to PTQ?", "relation", ["awq", "ptq"]),
        ("how do JAX and XLA relate?", "relation", ["jax", "xla"]),
        ("How are prefill and decode related to each other?", "relation", ["prefill", "decode"]),
        ("分页注意力是怎么工作的？", "howto_why", ["分页注意力"]),
        ("稀疏注意力是如何实现的", "howto_why", ["稀疏注意力"]),
        # the parts, kinds or members of a class the question opens with
        ("TPU 内部有哪些计算部件", "listing", ["tpu"]),
        ("图像生成流水线一般由哪几个模型组成？", "listing", ["图像生成流水线"]),
        ("Which PTQ algorithms are commonly used?", "listing", ["ptq algorithms"]),
        ("Which latency metrics should I track for an LLM endpoint?", "listing", ["latency metrics"]),
        (
            "Which NVIDIA template library gives you GEMM building blocks?",
            "which",
            ["nvidia template library gives you gemm building blocks"],
        ),
        # the subject asked of the glossary itself
        ("What does the glossary say about KV cache?", "definition", ["kv cache"]),
        ("Anything in the glossary about NCCL?", "definition", ["nccl"]),
        ("术语表里 KV cache 是怎么定义的", "definition", ["kv cache"]),
        ("词表里怎么说 PyTorch？", "definition", ["pytorch"]),
        # the role of the term asked about, not of the setting named first
        (
            "In speculative decoding, what role does the small draft model play?",
            "definition",
            ["small draft model"],
        ),
        ("What role does the draft model play in speculative decoding?", "definition", ["draft model"]),
        # 同 inside 不同 is no "and": the sides are scale-out (with its description) and scale-up
        (
            "连接不同服务器的scale-out网络跟scale-up有啥区别",
            "comparison",
            ["连接不同服务器的scale-out网络", "scale-up"],
        ),
        ("NVLink 同 InfiniBand 有什么区别", "comparison", ["nvlink", "infiniband"]),
        # a pronoun beside a namesake's description ("the same X as" has its own frame)
        (
            "Is that the same Triton NVIDIA uses for serving models?",
            "comparison",
            ["that", "triton nvidia uses for serving models"],
        ),
    ],
)
def test_intents_and_slots(question: str, intent: str, slots: list[str]) -> None:
    p = parse(question)
    assert p.intent == intent
    assert [s.text for s in p.slots] == slots
    for s in p.slots:  # offsets index the folded question
        assert p.folded[s.start : s.end] == s.text


@pytest.mark.parametrize("question", ["Is it the same thing?", "Is that the same one?", "Are they the same?"])
def test_the_same_without_a_namesake_is_no_namesake_comparison(question: str) -> None:
    assert parse(question).facet != "namesake"


@pytest.mark.parametrize(
    ("question", "facet"),
    [
        ("它的英文是什么", "names_en"),
        ("它的中文名叫什么？", "names_zh"),
        ("what's its Chinese name?", "names_zh"),
        ("What does MFU measure?", "measure"),
        ("RTF 这个指标是怎么算的？", "measure"),
    ],
)
def test_facets(question: str, facet: str) -> None:
    p = parse(question)
    assert p.intent == "definition"
    assert p.facet == facet


@pytest.mark.parametrize(
    ("question", "pronouns"),
    [
        ("那它和 TPOT 有什么区别？", [("它", "topic")]),
        ("and how is it measured?", [("it", "topic")]),
        ("What is its NVIDIA counterpart?", [("its", "topic")]),
        ("And which phase mostly determines the former?", [("the former", "former")]),
        ("它们有什么区别？", [("它们", "both")]),
        ("其他方法呢", []),  # 其他 is "other", not a pronoun
        ("其最多能把一张卡切成几份？", [("其", "topic")]),  # a clause opening with 其
        ("其中哪个最快？", []),  # 其中 / 其实: "among them", "actually"
        ("其实我想问的是 TTFT", []),
        ("什么是 TTFT？", []),
        # a return to the conversation opens the question; its "it" points at nothing the body asks
        (
            "ok back to it — how does the second one differ from the first?",
            [("the second one", "ord:1"), ("the first", "ord:0")],
        ),
        ("回来说正事：最后那个是谁家出的？", [("最后那个", "ord:-1")]),
        ("回来，它的前缀缓存技术叫什么名字？", [("它", "topic")]),
        ("Back to it: is it faster?", [("it", "topic")]),
        ("vLLM、SGLang 和 TGI 这三个有啥区别", [("这三个", "both")]),
    ],
)
def test_pronouns(question: str, pronouns: list[tuple[str, str]]) -> None:
    assert [(p.text, p.ref) for p in parse(question).pronouns] == pronouns


def test_which_follow_up_asks_for_another_term() -> None:
    # "which X … it": the answer is the X, not the term under discussion (issue 9)
    assert parse("它靠哪种集合通信把结果汇总？").intent == "which"
    assert parse("Which collective does it use to combine the results?").intent == "which"


def test_which_generation_layer_or_step_is_a_which_word() -> None:
    # "哪一代" / "哪一层" / "哪一步" ask for a term as "哪个" does; without them the question fell
    # back to a definition of the term it names (dev6 d6z-012: "FP4 呢？" after "哪一代架构…")
    assert parse("那这种格式是从哪一代架构开始原生支持的？").intent in ("which", "relation")
    assert parse("这三层里哪一层需要单独的存储设备？").intent in ("which", "relation")
    assert parse("这三层里需要单独的存储设备吗？").intent not in ("which", "relation")
    # a named subject with a relation verb is a relation question about that subject
    assert parse("AWQ 属于哪一类量化方法").intent == "relation"
    assert parse("Which model architecture is it specific to?").intent == "relation"
    assert parse("Which engines have adopted FlashInfer?").intent == "relation"
    # the same words without a pronoun do not make a relation question
    assert parse("什么是集合通信？").intent == "definition"


@pytest.mark.parametrize(
    "question", ["今天上海天气怎么样？", "帮我推荐一家好吃的川菜馆", "Who won the 2022 FIFA World Cup?"]
)
def test_chit_chat_has_no_definition_frame(question: str) -> None:
    assert parse(question).intent in ("unknown", "howto_why")


def test_empty_and_odd_input() -> None:
    assert parse("").intent == "unknown"
    assert parse("？？？").slots == []
    assert parse("\x00\u200b").intent == "unknown"


@pytest.mark.parametrize(
    ("question", "pronouns"),
    [
        ("which engine is built around that?", ["that"]),  # after a preposition
        ("what happens if i crank that up?", ["that"]),  # before a verb's particle
        ("which cards support that?", ["that"]),  # closing the clause
        ("who open-sourced that engine?", ["that"]),  # after a participle, before a closing noun
        ("we noticed that the queue grows", []),  # a complement after a participle
        ("i think that is fine", []),  # a complement
        ("the engine that uses it", ["it"]),  # a relative clause
        ("explain tensor parallelism like i'm new to this.", []),  # an idiom: the field
        ("what's it called when you merge ops into one kernel?", []),  # "it" stands for the clause
        ("what do you call it if a replica starts from zero?", []),
        ("what is it called?", ["it"]),  # nothing follows: it points back
    ],
)
def test_that_and_this_point_back_where_they_stand_for_a_thing(question: str, pronouns: list[str]) -> None:
    assert [p.text for p in find_pronouns(question)] == pronouns


@pytest.mark.parametrize(
    ("question", "pronouns"),
    [
        ("他里面的草稿模型是干什么的？", [("他", "topic")]),  # 他 typed for 它
        ("他们有什么区别？", [("他们", "both")]),
        ("其他方法有哪些？", []),  # 其他 is "other"
    ],
)
def test_he_typed_for_it_points_back_as_it_does(question: str, pronouns: list[tuple[str, str]]) -> None:
    assert [(p.text, p.ref) for p in find_pronouns(question)] == pronouns


def test_frames_match_where_fold_dropped_the_space_between_latin_and_chinese() -> None:
    p = parse("what's 冷启动's english name?")
    assert (p.intent, p.facet, [s.text for s in p.slots]) == ("definition", "names_en", ["冷启动"])
    p = parse("difference between 张量并行 and TP")
    assert (p.intent, [s.text for s in p.slots]) == ("comparison", ["张量并行", "tp"])
    # ...but a space between two Latin words is still required ("how does" is no "how do" + "es…")
    assert not any(s.text.startswith("es") for s in parse("how does 分页注意力 work").slots)
    # and a Latin word ends where a Chinese character starts: "what does" is no "what <verb>s …"
    p = parse("What does 推理时消融 mean?")
    assert (p.intent, [s.text for s in p.slots]) == ("definition", ["推理时消融"])


def test_expanding_an_abbreviation_in_chinese() -> None:
    for q, x in [("SIMT 拆开来是什么", "simt"), ("RoCEv2 这串字母展开是什么", "rocev2")]:
        p = parse(q)
        assert (p.intent, [s.text for s in p.slots]) == ("abbreviation", [x]), q


@pytest.mark.parametrize(
    ("question", "intent", "slots"),
    [
        # "what is <noun>…" opens a name, not a "which" question, unless an article follows the verb
        ("What is cache-aware routing?", "definition", ["cache-aware routing"]),
        ("What is model parallelism?", "definition", ["model parallelism"]),
        ("What technique fixes KV cache fragmentation?", "which", ["fixes kv cache fragmentation"]),
        ("What is the name of the engine built on RadixAttention?", "which", ["built on radixattention"]),
        (
            "What kind of model uses every parameter for each token?",
            "which",
            ["model uses every parameter for each token"],
        ),
        # how to answer is not what the question is about
        ("Explain 分离式推理 in English please.", "definition", ["分离式推理"]),
        ("What is KV cache, please?", "definition", ["kv cache"]),
        ("张量并行是什么？用中文解释一下", "definition", ["张量并行"]),
        ("What is TTFT called in English?", "definition", ["ttft"]),
        # adverbs between the subject and the frame
        ("模型并行一般有哪几种方式？", "listing", ["模型并行"]),
        ("推理引擎到底在做什么？", "definition", ["推理引擎"]),
        # what a term's definition lists
        ("冷启动具体包括哪些时间？", "definition", ["冷启动"]),
        # a description asking for a name, whatever it compares on the way
        (
            "训练时就模拟量化误差、精度比训练完再量化更高的方法叫什么？",
            "which",
            ["训练时就模拟量化误差、精度比训练完再量化更高"],
        ),
    ],
)
def test_frames_generalise(question: str, intent: str, slots: list[str]) -> None:
    p = parse(question)
    assert (p.intent, [s.text for s in p.slots]) == (intent, slots)


def test_the_question_sentence_among_context_sentences() -> None:
    p = parse("冷启动具体包括哪些时间？我们 scale-to-zero 之后第一个请求特别慢。")
    assert (p.intent, [s.text for s in p.slots]) == ("definition", ["冷启动"])
    assert p.pronouns == []  # "第一个请求" determines a noun: no ordinal reference


def test_a_lead_in_clause_before_the_how() -> None:
    p = parse("模型一张卡放不下，又希望单用户延迟尽量低，一般怎么把它拆到多卡上？")
    assert p.intent == "howto_why"
    p = parse("老板让我算 TCO，这玩意儿都包括哪些成本？")
    assert p.intent == "definition" and [x.text for x in p.pronouns] == ["这玩意儿"]


def test_a_comparison_on_one_aspect() -> None:
    p = parse("HBM 跟片上的 SRAM 比带宽怎么样？")
    assert p.intent == "comparison" and [x.text for x in p.slots] == ["hbm", "片上的sram"]
    assert parse("它和 TPOT 比起来谁更重要").intent == "comparison"


def test_a_statement_sentence_before_the_question() -> None:
    """ "… changes with the batch size. How do engines pick …?": the question is the last sentence,
    and the body the search reads stays whole."""
    p = parse("Our chips sit idle half the night. How can we cut what we pay for them?")
    assert p.intent == "howto_why" and [x.text for x in p.slots] == ["we cut what we pay for them"]
    assert p.body is not None and p.body.text.startswith("our chips sit idle")
    # an abbreviation's dot is no sentence end
    assert parse("what is e.g. TTFT").intent == "definition"


@pytest.mark.parametrize(
    ("question", "ordinals"),
    [
        ("第二个的核心想法是什么", ["第二个"]),
        ("后一个呢", ["后一个"]),
        ("前一个和后一个分工有什么不同", ["前一个", "后一个"]),
        ("第一个请求特别慢", []),
    ],
)
def test_chinese_ordinals_stand_for_items_not_determine_nouns(question: str, ordinals: list[str]) -> None:
    assert [p.text for p in parse(question).pronouns if p.ref.startswith("ord:")] == ordinals


@pytest.mark.parametrize(
    ("question", "slots"),
    [
        # a description that asks for the term playing a role, with no "which" in it
        ("What connects the GPUs inside one node?", ["connects the gpus inside one node"]),
        ("And the library that sits underneath it?", ["library that sits underneath it"]),
        ("What was the default setup before it?", ["default setup before it"]),
        ("那专门负责调度的那块呢？", ["专门负责调度的那块"]),
        ("有没有不需要单独草稿模型的类似做法？", ["不需要单独草稿模型"]),
        # a superlative picks one term of a kind
        ("What's the smallest unit of execution on a GPU?", ["smallest unit of execution on a gpu"]),
        ("What is the most common quantization format?", ["most common quantization format"]),
        # the doer of what the question describes
        ("What's slowing down my decode?", ["slowing down my decode"]),
        ("What is eating all my GPU memory?", ["eating all my gpu memory"]),
        ("上下文一长显存就被吃光，到底是啥在占显存？", ["上下文一长显存就被吃光"]),  # its first clause
        ("什么东西占用了显存？", ["什么东西占用了显存"]),
        # an elliptical follow-up that describes the term it asks for
        ("And the one built around a radix tree?", ["one built around a radix tree"]),
        ("and one that never grows with the context?", ["one that never grows with the context"]),
        ("那专门做量化缩放的格式呢？", ["专门做量化缩放的格式"]),
    ],
)
def test_descriptions_without_which_ask_for_a_term(question: str, slots: list[str]) -> None:
    p = parse(question)
    assert (p.intent, [s.text for s in p.slots]) == ("which", slots)


@pytest.mark.parametrize(
    "question",
    [
        "What counts as a hyperscaler?",
        "What happens during prefill?",
        "PagedAttention 是怎么运作的？",
        # "best" is left out of the superlatives: it is how off-topic advice is asked
        "What's the best batch size for baking chocolate chip cookies?",
        "What's the request rate of this benchmark?",
        # a gerund name, not a participle taking an object
        "What is batching in vLLM?",
        "What is padding?",
        "什么是占用率？",
        "Medusa 也需要单独一个这样的模型吗？",  # a yes/no question about a named term
        "那个 Plan 文件还有别的叫法吗？",  # other names of a term
    ],
)
def test_questions_about_a_named_thing_stay_off_the_which_frame(question: str) -> None:
    assert parse(question).intent != "which"


def test_a_dash_splits_a_list_from_its_question_but_not_a_name_from_its_rest() -> None:
    p = parse("Pallas, PJRT, XLA — what does the second one do?")
    assert p.intent == "definition" and [x.ref for x in p.pronouns] == ["ord:1"]
    # a bare name before the dash is the subject of what follows
    p = parse("And FLOPS - is the peak figure what I'll actually get?")
    assert p.slots[0].text.startswith("flops")


@pytest.mark.parametrize(
    ("question", "other"),
    [
        ("那另一个的主要毛病是什么？", "另一个"),
        ("And the other one?", "the other one"),
        ("What limits the other?", "the other"),
        ("另一种方法是什么", None),  # determines a noun
        ("How do the other engines do it?", None),
    ],
)
def test_the_other_one_points_at_the_rest_of_a_list(question: str, other: str | None) -> None:
    found = [p.text for p in parse(question).pronouns if p.ref == "other"]
    assert found == ([other] if other else [])


def test_a_chinese_subject_is_the_last_clause_before_its_frame() -> None:
    p = parse("上周压测时大家都在讨论，张量并行到底是什么？")
    assert (p.intent, [s.text for s in p.slots]) == ("definition", ["张量并行"])
    # a "which" description spans every clause: "…，这个叫什么" names what the clauses describe
    p = parse("每个请求先查缓存，没命中再算，这个叫什么？")
    assert p.intent == "which" and p.slots[0].text.startswith("每个请求")


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("Which CPU does it bundle?", "relation"),
        ("Which GPU generation is it optimized for?", "relation"),
        ("Which engines use the second one?", "relation"),
        # the pronoun's part, or another term the question describes: still "which"
        ("Which engine is built around it?", "which"),
        ("Which technique does vLLM use?", "which"),
    ],
)
def test_which_questions_about_the_pronouns_own_facts_are_relations(question: str, intent: str) -> None:
    assert parse(question).intent == intent


@pytest.mark.parametrize(
    ("question", "pointing"),
    [
        ("How is that different from a CDN edge cache?", True),
        ("How do I fix that kind of bottleneck?", True),
        ("Is that the same Triton NVIDIA uses?", True),
        ("Does that help?", True),
        # a relative clause or a complement points nowhere
        ("Which engine is the one that uses RadixAttention?", False),
        ("Does it mean that the cache is full?", False),
        ("Is there a format that keeps outliers?", False),
    ],
)
def test_that_points_back_only_after_a_verb_or_preposition(question: str, pointing: bool) -> None:
    from kg.chat.intents import find_pronouns

    found = [p for p in find_pronouns(question.lower()) if p.text == "that"]
    assert bool(found) == pointing
    assert all(p.ref == "topic" and is_demonstrative(p) for p in found)


@pytest.mark.parametrize(
    ("question", "pronouns"),
    [
        # a demonstrative that determines a time points at no term
        ("Do you think the Lakers will make the playoffs this year?", []),
        ("What happened at that time?", []),
        ("These days, is it still used?", ["it"]),
        ("这个月的 GPU 价格涨了吗？", []),
        ("这一周跑了多少次？", []),
        # the same words before anything else still point back
        ("How does this work?", ["this"]),
        ("这个指标怎么算？", ["这个"]),
    ],
)
def test_a_demonstrative_of_time_is_no_pronoun(question: str, pronouns: list[str]) -> None:
    from kg.chat.intents import find_pronouns

    assert [p.text for p in find_pronouns(question.lower())] == pronouns


def test_what_a_term_does_to_something_defines_the_term() -> None:
    p = parse("What does DVFS do to inference latency?")
    assert p.intent == "definition" and [s.text for s in p.slots] == ["dvfs"]


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        # a lead naming the term under discussion, then a question about it
        ("And the other one — what limits it?", "relation"),
        ("And the first one — what memory bandwidth does the book give it?", "relation"),
        ("The latter: which model backends does it manage?", "relation"),
        ("那另一个，靠哪种集合通信同步？", "relation"),
        # the same lead, but the question asks for another term built on it
        ("And the former, which attention kernel family is built on it?", "which"),
        # no lead: the answer is another term
        ("Which collective does it use to combine the results?", "which"),
    ],
)
def test_a_lead_naming_the_referent_makes_the_question_about_it(question: str, intent: str) -> None:
    assert parse(question).intent == intent


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        # another term, described through the pronoun's
        ("What replaced it for LLMs?", "which"),
        ("What do you compare it against?", "which"),
        ("Who tells it what to run?", "which"),
        ("What's the biggest TPU unit hooked up to it?", "which"),
        ("What's it usually paired with to figure out who spoke when?", "which"),
        ("它相当于 NVIDIA 那边的啥？", "which"),
        # the pronoun's term itself
        ("What is it?", "definition"),
        ("What is it used for?", "definition"),
        ("What about the former?", "unknown"),
        ("What artifact does it produce after compiling a model?", "unknown"),
        ("它一般跟 ISL 一起用来描述什么？", "unknown"),
    ],
)
def test_a_question_for_a_term_described_through_a_pronoun_asks_which(question: str, intent: str) -> None:
    assert parse(question).intent == intent


@pytest.mark.parametrize(
    ("question", "body"),
    [
        ("lol unrelated, what's a good name for a cat?", "what's a good name for a cat"),
        ("Unrelated, but can you recommend a good pizza place?", "can you recommend a good pizza place"),
        ("换个话题：Evals 和 benchmark 有什么不一样？", "evals和benchmark有什么不一样"),
    ],
)
def test_a_change_of_subject_is_no_part_of_the_body(question: str, body: str) -> None:
    from kg.chat.intents import TOPIC_SWITCH

    p = parse(question)
    assert p.body is not None and p.body.text == body
    assert TOPIC_SWITCH.match(p.folded)  # the switch itself is still read on the whole question


@pytest.mark.parametrize(
    ("question", "intent", "slots"),
    [
        ("Quick question: FP8 vs INT8 for inference", "comparison", ["fp8", "int8 for inference"]),
        ("Dumb question, but what is a KV cache?", "definition", ["kv cache"]),
        ("Hey - which PTQ algorithms are commonly used?", "listing", ["ptq algorithms"]),
        ("Sorry if this is a dumb question: what does TTFT stand for?", "abbreviation", ["ttft"]),
        ("小白求问，TTFT 和 TPOT 有什么区别？", "comparison", ["ttft", "tpot"]),
        ("请教一下：分页注意力是什么？", "definition", ["分页注意力"]),
        ("Please help: vLLM vs SGLang", "comparison", ["vllm", "sglang"]),
        ("ELI5: disaggregated inference", "unknown", ["disaggregated inference"]),
        # and so does a manner after it: to whom, how plainly
        ("Explain tensor parallelism to me like I'm new to this.", "definition", ["tensor parallelism"]),
        ("What engine does it plug into, basically?", "relation", ["does it plug into"]),  # a hedge after it
        ("Hi everyone, what is a KV cache?", "definition", ["kv cache"]),
        ("Newbie here: what is a KV cache?", "definition", ["kv cache"]),
        ("求助：TTFT 和 TPOT 有什么区别？", "comparison", ["ttft", "tpot"]),
        ("各位大佬，分页注意力是什么？", "definition", ["分页注意力"]),
    ],
)
def test_a_preamble_that_a_question_follows_is_no_part_of_it(
    question: str, intent: str, slots: list[str]
) -> None:
    """ "Quick question:", "小白求问，": the question after them parses as it does alone (the
    comparison keeps its first side)."""
    p = parse(question)
    assert (p.intent, [x.text for x in p.slots]) == (intent, slots)
    # a word of such a preamble that is what is asked about stays
    body = parse("Question answering models: what are they?").body
    assert body is not None and body.text.startswith("question answering")
    body = parse("Help me understand PagedAttention").body  # a request, not a call for help
    assert body is not None and "pagedattention" in body.text


@pytest.mark.parametrize(
    ("question", "pronouns"),
    [
        ("And Docker itself?", []),  # emphasises the name before it
        ("Whisper itself is what kind of model?", []),
        ("Does it do that by itself?", ["it", "that", "itself"]),  # the object of "by"
    ],
)
def test_an_emphatic_itself_points_at_the_name_before_it(question: str, pronouns: list[str]) -> None:
    from kg.chat.intents import find_pronouns

    assert [p.text for p in find_pronouns(parse(question).folded)] == pronouns


def test_bijiao_before_an_adjective_is_rather_not_compare() -> None:
    # "通常比较慢" is "rather slow" and "比如" is "for example": neither compares two things
    # (dev6 d6z-001: the question was shaped as a comparison with no sides and refused)
    assert parse("为啥那个阶段通常比较慢，主要卡在哪类瓶颈上？").intent != "comparison"
    assert parse("为什么 decode 比较慢").intent == "howto_why"
    assert parse("FP8 比 FP16 快吗").intent == "comparison"
    assert parse("张量并行和流水线并行比较起来区别在哪").intent == "comparison"


@pytest.mark.parametrize(
    ("question", "ref"),
    [
        ("What has to be held fixed for the second kind?", "ord:1"),
        ("What file does TensorRT produce with the first approach?", "ord:0"),
        ("And the last option?", "ord:-1"),
    ],
)
def test_an_ordinal_before_a_noun_of_kind_is_an_item(question: str, ref: str) -> None:
    assert [p.ref for p in find_pronouns(question.lower())] == [ref]


@pytest.mark.parametrize("question", ["Who won the last Super Bowl?", "Why is the first token so slow?"])
def test_an_ordinal_before_another_noun_is_no_pronoun(question: str) -> None:
    assert find_pronouns(question.lower()) == []


@pytest.mark.parametrize(
    ("question", "sides"),
    [
        ("Are ASR and VAD the same thing?", ["asr", "vad"]),
        ("Are TTFT and TTFB different?", ["ttft", "ttfb"]),
        ("PCIe or SXM GPUs for an inference cluster?", ["pcie", "sxm gpus"]),
        ("AWQ or GPTQ for 4-bit weights?", ["awq", "gptq"]),
    ],
)
def test_same_thing_and_either_or_questions_compare(question: str, sides: list[str]) -> None:
    p = parse(question)
    assert (p.intent, [s.text for s in p.slots]) == ("comparison", sides)


def test_either_or_needs_two_named_alternatives_not_a_clause() -> None:
    # "is it compute or memory bound" and "How do I avoid OOM or slowdowns?" are no "X or Y?"
    assert parse("is it compute or memory bound").intent != "comparison"
    assert parse("How do I avoid OOM or slowdowns?").intent == "howto_why"


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("Which TPU network roughly halves the hop count compared to a torus?", "which"),
        ("HBM compared to SRAM?", "comparison"),
    ],
)
def test_a_which_question_measured_against_a_term_asks_for_a_third(question: str, intent: str) -> None:
    assert parse(question).intent == intent


@pytest.mark.parametrize(
    ("question", "bare"),
    [
        ("有哪些代表方法？", True),
        ("有哪些常见做法？", True),
        ("Name some representative methods", True),
        ("What are the common methods?", True),
        ("举几个例子？", True),
        ("有哪些量化方法？", False),  # the class is named
        ("Name some quantization methods", False),
        ("有哪些推理引擎？", False),
    ],
)
def test_a_listing_naming_only_a_class_word_is_bare(question: str, bare: bool) -> None:
    assert asks_bare_examples(parse(question)) is bare


@pytest.mark.parametrize(
    "question",
    [
        "What's ring attention's relationship to context parallelism?",
        # normalising drops the possessive before parsing
        "What's ring attention relationship to context parallelism?",
    ],
)
def test_a_possessive_relationship_question_is_a_relation(question: str) -> None:
    p = parse(question)
    assert p.intent == "relation" and [s.text for s in p.slots][:2] == [
        "ring attention",
        "context parallelism",
    ]


def test_what_does_x_have_to_do_with_y_is_a_relation() -> None:
    p = parse("What does SGLang-JAX have to do with SGLang?")
    assert p.intent == "relation" and [s.text for s in p.slots][:2] == ["sglang-jax", "sglang"]


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        # normalised "What's a GPU's SFU for?": the noun owns the name after it; no "which GPU"
        ("what's a gpu sfu for?", "definition"),
        ("what's the metric for decode speed?", "which"),
    ],
)
def test_a_class_noun_owning_a_name_asks_what_the_name_is_for(question: str, intent: str) -> None:
    assert parse(question).intent == intent


def test_a_pronoun_inside_a_described_name_keeps_the_which_intent() -> None:
    # "it" points inside the description, not at the term under discussion
    q = "What do you call switching off part of a trained model to measure how much it relies on that part?"
    assert parse(q).intent == "which"


def test_a_route_asked_for_is_a_which_but_a_principle_is_not() -> None:
    # "走什么网络" asks for the network (a term); "通过什么原理" asks how, not for a term
    assert parse("跨节点的流量一般走什么网络？").intent == "which"
    assert parse("它是通过什么原理加速的？").intent != "which"
