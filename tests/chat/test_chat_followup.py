"""The follow-up ranker (kg/chat/followup.py): which term a pronoun follow-up is about."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kg.chat import ConversationState, answer
from kg.chat.followup import (
    FEATURES,
    MODEL_PATH,
    FollowupRanker,
    candidate_features,
    default_ranker,
    is_yes_no,
    ranks,
)
from kg.chat.retrieve import Retrieval
from kg.search.engine import Hit, SearchEngine
from kg.store import Glossary
from tests.chat.chat_helpers import converse


def _retrieval(ids: list[str], named: list[str] | None = None) -> Retrieval:
    return Retrieval("q", [Hit(t, 1.0 / (i + 1), ranks={"dense": i}) for i, t in enumerate(ids)], named or [])


def test_the_shipped_model_has_a_weight_for_every_feature_and_no_other() -> None:
    doc = json.loads(MODEL_PATH.read_text(encoding="utf-8"))
    assert set(doc["weights"]) == set(FEATURES)
    assert "test" not in " ".join(doc["splits"])  # fitted on the dev splits only
    assert default_ranker() is not None


def test_an_unknown_feature_in_a_model_file_is_an_error(tmp_path: Path) -> None:
    bad = tmp_path / "ranker.json"
    bad.write_text(json.dumps({"weights": {"ref": 1.0, "made_up": 2.0}}), encoding="utf-8")
    with pytest.raises(ValueError, match="made_up"):
        FollowupRanker.load(bad)
    assert FollowupRanker.load(tmp_path / "absent.json") is None


def test_features_cover_the_referent_and_both_searches(glossary: Glossary) -> None:
    ref = "tensor-parallelism"
    plain = _retrieval(["allreduce", "pipeline-parallelism", ref])
    subst = _retrieval([ref, "allgather"])
    feats = candidate_features(
        glossary,
        referent=ref,
        intent="which",
        question="which collective op does it lean on?",
        plain=plain,
        substituted=subst,
        last_terms=[ref],
        demonstrative=False,
        rules="pipeline-parallelism",
    )
    assert next(iter(feats)) == ref  # the referent is always a candidate, first
    assert set(feats) == {ref, "allreduce", "pipeline-parallelism", "allgather"}
    for f in feats.values():
        assert set(f) == set(FEATURES)
    assert feats["allreduce"]["plain_top"] == 1.0 and feats["allreduce"]["plain_rr"] == 1.0
    assert feats["allgather"]["plain_rr"] == 0.0 and feats["allgather"]["subst_rr"] == 0.5
    assert feats[ref]["ref_which"] == 1.0 and feats["allreduce"]["ref_which"] == 0.0
    assert feats["pipeline-parallelism"]["rules"] == 1.0
    # graph links: a related_to neighbour of tensor parallelism
    assert feats["allreduce"]["neighbour"] == float("allreduce" in glossary.neighbours(ref))


def test_choose_takes_the_best_score_and_ties_keep_the_pool_order() -> None:
    r = FollowupRanker({"ref": 1.0, "plain_rr": 2.0})
    assert r.choose({"a": {"ref": 1.0, "plain_rr": 0.0}, "b": {"ref": 0.0, "plain_rr": 1.0}}) == "b"
    assert r.choose({"a": {"ref": 1.0, "plain_rr": 0.5}, "b": {"ref": 0.0, "plain_rr": 1.0}}) == "a"
    assert r.choose({}) is None


@pytest.mark.slow
def test_a_which_follow_up_answers_with_the_term_it_leads_to(
    glossary: Glossary, real_engine: SearchEngine
) -> None:
    # the answer is another term than the one under discussion, found by what the question says
    state = ConversationState()
    answer(glossary, real_engine, "What's the KV cache?", context=state)
    q = "What attention variant shrinks it by letting query heads share key-value heads?"
    a = answer(glossary, real_engine, q, context=state)
    assert a.grounded and a.citations[0].term_id == "grouped-query-attention"
    assert a.decision["followup"] == "grouped-query-attention"
    state = ConversationState()
    answer(glossary, real_engine, "什么是 Reduce-scatter？", context=state)
    a = answer(glossary, real_engine, "NVIDIA 做这类集合通信用的是哪个库？", context=state)
    assert a.citations[0].term_id == "nvidia-collective-communications-library"
    # a definition follow-up stays on the term under discussion
    state = ConversationState()
    answer(glossary, real_engine, "What is an embedding model?", context=state)
    b = answer(glossary, real_engine, "What is it used for?", context=state)
    assert b.citations[0].term_id == "embedding-model" and b.decision["followup"] == "embedding-model"


def test_an_elliptical_follow_up_swaps_the_pronoun_not_the_kind_asked_for(
    glossary: Glossary, real_engine: SearchEngine
) -> None:
    # "op" in "Which collective op does it lean on?" links to *operator*: it is the kind asked
    # for, so "And pipeline parallelism?" replaces "it" — replacing "op" left "it" pointing at TP,
    # and the answer defined tensor parallelism
    state = ConversationState()
    answer(glossary, real_engine, "What is tensor parallelism?", context=state)
    answer(glossary, real_engine, "Which collective op does it lean on?", context=state)
    a = answer(glossary, real_engine, "And pipeline parallelism?", context=state)
    assert a.citations and a.citations[0].term_id != "tensor-parallelism", a.terms
    assert "tensor-parallelism" not in a.terms[:2], a.terms


def test_the_ranker_stays_out_of_an_engine_with_another_encoder(
    glossary: Glossary, engine: SearchEngine
) -> None:
    # the hashing test encoder ranks differently from the encoder the weights were fitted on
    ranker = default_ranker()
    assert ranker is not None and not ranker.fits(engine)
    s = ConversationState()
    answer(glossary, engine, "What is autoscaling?", context=s)
    a = answer(glossary, engine, "And the window it uses to decide?", context=s)
    assert a.decision["followup"] is None


@pytest.mark.parametrize(
    ("intent", "question", "ranked"),
    [
        ("which", "which engine is built on it?", True),
        ("definition", "what is it used for?", True),
        ("relation", "which collective op does it lean on?", True),
        ("relation", "它属于哪套接口标准？", True),
        ("relation", "它和 nvswitch 是什么关系？", False),
        # "what is built on / based on it" asks for the term built on it, as "which" does
        ("relation", "what's built on top of it to coordinate all gpus in a node?", True),
        ("relation", "what is it related to?", False),
        ("comparison", "which is faster, it or tpot?", False),
        ("listing", "有哪些引擎用它？", False),
    ],
)
def test_which_follow_ups_the_ranker_sees(intent: str, question: str, ranked: bool) -> None:
    assert ranks(intent, question) is ranked


@pytest.mark.parametrize(
    "question",
    [
        "它那个前缀缓存技术叫什么？",
        "它的前缀缓存是靠什么机制做的？",
        "What's its prefix caching mechanism called?",
    ],
)
def test_the_kind_its_pronoun_owns_is_answered_by_the_instance_its_text_names(
    glossary: Glossary, engine: SearchEngine, question: str
) -> None:
    # 002: SGLang "主打结构化生成与 RadixAttention 前缀缓存": its prefix caching is RadixAttention,
    # quoted first (the pronoun owns the kind; it is not the subject the answer is quoted from)
    (_, a), _ = converse(glossary, engine, "SGLang 主打啥？", question)
    assert [c.term_id for c in a.citations[:2]] == ["radixattention", "sglang"]


def test_a_name_that_only_modifies_another_noun_is_no_kind_the_pronoun_owns(
    glossary: Glossary, engine: SearchEngine
) -> None:
    # "它的显存碎片问题": the question is about fragmentation, not about KV cache's own 显存, so the
    # term KV cache's text writes before 显存 ("推理显存" → inference) is no answer
    (_, a), _ = converse(glossary, engine, "KV cache 是干嘛用的？", "它的显存碎片问题靠哪个技术解决？")
    assert a.citations and a.citations[0].term_id != "inference"


def test_the_owner_named_and_the_kind_pointed_at_give_the_owners_instance(
    glossary: Glossary, engine: SearchEngine
) -> None:
    # the reverse of the above: the kind (prefix caching) is "it", the owner (SGLang) is named
    (_, a), _ = converse(glossary, engine, "什么是前缀缓存？", "SGLang 里它对应的实现叫什么？")
    assert a.citations and a.citations[0].term_id == "radixattention"


@pytest.mark.parametrize("question", ["SGLang 那边对应的是啥？", "SGLang 那边对应的前缀缓存呢？"])
def test_a_named_owners_counterpart_without_a_pronoun(
    glossary: Glossary, engine: SearchEngine, question: str
) -> None:
    # the kind is the term under discussion, or the words after 对应; SGLang's own text writes
    # RadixAttention before it
    (_, a), _ = converse(glossary, engine, "什么是前缀缓存？", question)
    assert a.citations and a.citations[0].term_id == "radixattention"


@pytest.mark.parametrize(
    "question",
    ["What's SGLang's counterpart for prefix caching?", "What's SGLang's own version of prefix caching?"],
)
def test_a_named_owners_version_of_a_named_kind_is_the_instance_its_text_names(
    glossary: Glossary, engine: SearchEngine, question: str
) -> None:
    # no pronoun: both the owner (SGLang) and the kind (prefix caching) are named, opening a
    # conversation; SGLang's text writes RadixAttention before 前缀缓存
    a = answer(glossary, engine, question)
    assert a.intent == "which"
    assert [c.term_id for c in a.citations[:2]] == ["radixattention", "sglang"]


def test_a_part_the_pronoun_owns_is_what_is_asked_about(glossary: Glossary, engine: SearchEngine) -> None:
    # "它里面的草稿模型": the draft model of speculative decoding, defined first (not left out as a
    # name the question merely gives)
    (_, a), _ = converse(glossary, engine, "什么是投机解码？", "它里面的草稿模型是干什么的？")
    assert a.citations and a.citations[0].term_id == "draft-model"


@pytest.mark.parametrize(
    "question",
    ["How do the two combine into end-to-end latency?", "How do I get end-to-end latency out of those two?"],
)
def test_a_term_linked_to_both_of_a_pair_is_what_a_question_about_the_pair_explains(
    glossary: Glossary, engine: SearchEngine, question: str
) -> None:
    # E2E latency is linked to TTFT and to TPOT: the answer explains it, the pair beside it
    (_, a), _ = converse(glossary, engine, "TTFT 和 TPOT 有什么区别？", question)
    assert a.intent == "howto_why" and a.citations[0].term_id == "e2e-latency"
    assert {"time-to-first-token", "time-per-output-token"} <= set(a.terms)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("first", "as_it", "as_typed"),
    [
        # a demonstrative that stands alone points back as surely as "it"
        ("What is disaggregated inference?", "What's the downside of it?", "What's the downside of this?"),
        ("What is PagedAttention?", "Which engine is built around it?", "Which engine is built around that?"),
        # 这个 before an adverb stands alone too ("这个能耗指标…" would determine a noun)
        ("KV cache 是什么？", "它一般设多大比较合适？", "这个一般设多大比较合适？"),
        # a lead-in's capitals ("OK") are no unknown name, and a capital after it starts the question
        ("What is QPS?", "How does it relate to throughput?", "OK, How does it relate to throughput?"),
    ],
)
def test_a_follow_up_in_other_words_is_answered_alike(
    glossary: Glossary, real_engine: SearchEngine, first: str, as_it: str, as_typed: str
) -> None:
    a, _ = converse(glossary, real_engine, first, as_it)
    b, _ = converse(glossary, real_engine, first, as_typed)
    assert a[1].grounded and b[1].grounded
    assert a[1].citations[0].term_id == b[1].citations[0].term_id


@pytest.mark.slow
def test_a_follow_up_about_a_made_up_product_is_refused(
    glossary: Glossary, real_engine: SearchEngine
) -> None:
    """What "it" points at is known, but the question asks about a product the glossary has never
    seen: no sentence of the glossary answers it. A known product in its place is answered."""
    (_, made_up), _ = converse(
        glossary,
        real_engine,
        "What's the idea behind microscaling formats like MXFP4?",
        "Can I deploy it on a Tesla Dojo HyperCore v9 board?",
    )
    assert not made_up.grounded and made_up.decision["reason"] == "unknown_name"
    (_, known), _ = converse(
        glossary,
        real_engine,
        "What's the idea behind microscaling formats like MXFP4?",
        "Does Blackwell support it?",
    )
    assert known.grounded


@pytest.mark.parametrize(
    ("question", "answered"),
    [
        ("Does the FluxServe scheduler support FP8 on Hopper?", False),  # a product never seen
        ("Does vLLM support FP8 on Hopper?", True),
    ],
)
def test_a_question_about_a_made_up_product_is_refused_without_context(
    glossary: Glossary, real_engine: SearchEngine, question: str, answered: bool
) -> None:
    (a,), _ = converse(glossary, real_engine, question)
    assert a.grounded is answered
    if not answered:
        assert a.decision["reason"] == "unknown_name"


@pytest.mark.parametrize(
    "question",
    [
        "这两个有什么区别？",
        "What's the difference between them?",
        "Compare the two",
        "比较一下这两个",
        "对比一下它们",
    ],
)
def test_two_terms_asked_about_in_turn_are_the_pair_a_comparison_reads(
    glossary: Glossary, engine: SearchEngine, question: str
) -> None:
    """vLLM and SGLang were never named together, but the last two answers were about them: "the
    two" of a comparison are those, in the conversation's order (not SGLang alone)."""
    answers, _ = converse(glossary, engine, "What's vLLM?", "And SGLang?", question)
    a = answers[-1]
    assert a.intent == "comparison" and a.grounded
    assert a.terms[:2] == ["vllm", "sglang"]


def test_them_after_one_term_is_not_read_as_the_last_two_answers(
    glossary: Glossary, engine: SearchEngine
) -> None:
    """ "Which superchip is good for swapping them?" after LoRA asks about LoRAs, one term's plural:
    only a comparison or a relation reads two earlier answers as its pair."""
    answers, _ = converse(glossary, engine, "What is a GPU?", "What is LoRA?", "Which engines support them?")
    assert answers[-1].intent != "comparison"
    assert answers[-1].terms[:2] != ["graphics-processing-unit", "lora"]


def test_the_two_with_nothing_to_point_at_asks_for_the_terms(
    glossary: Glossary, engine: SearchEngine
) -> None:
    (en,), _ = converse(glossary, engine, "Compare the two")
    (zh,), _ = converse(glossary, engine, "比较一下这两个")
    assert en.needs_clarification and not en.grounded and "which terms" in en.answer
    assert zh.needs_clarification and not zh.grounded and "哪些术语" in zh.answer


@pytest.mark.parametrize(
    ("first", "question"),
    [
        ("What is vLLM?", "Who open-sourced that engine?"),
        ("What is vLLM?", "这个引擎最早是谁开源的？"),
    ],
)
def test_a_demonstrative_before_the_class_of_the_term_under_discussion_points_back_at_it(
    glossary: Glossary, engine: SearchEngine, first: str, question: str
) -> None:
    """vLLM's definition calls it an inference engine (kg/chat/genus.py): "that engine" is vLLM,
    not the Engine entry (TensorRT's compiled artefact) whose name the word matches."""
    answers, _ = converse(glossary, engine, first, question)
    assert answers[0].citations[0].term_id == "vllm"
    assert answers[-1].grounded and answers[-1].citations[0].term_id == "vllm"


def test_a_demonstrative_before_a_name_the_topic_is_not_a_kind_of_still_determines_that_name(
    glossary: Glossary, engine: SearchEngine
) -> None:
    """After B300 (a GPU), "that engine" is no B300: the name it determines stays the subject."""
    answers, _ = converse(glossary, engine, "What is B300?", "这个引擎最早是谁开源的？")
    assert [c.term_id for c in answers[-1].citations[:1]] != ["b300"]


@pytest.mark.parametrize(
    ("first", "question", "terms"),
    [
        ("What's a blue-green deployment?", "vs canary?", ["canary-deployment", "blue-green-deployment"]),
        ("TTFT 是什么？", "那跟 TPOT 比呢？", ["time-per-output-token", "time-to-first-token"]),
        ("What is TTFT?", "compared to TPOT?", ["time-per-output-token", "time-to-first-token"]),
    ],
)
def test_a_bare_versus_compares_the_named_term_with_the_one_under_discussion(
    glossary: Glossary, engine: SearchEngine, first: str, question: str, terms: list[str]
) -> None:
    answers, _ = converse(glossary, engine, first, question)
    assert answers[-1].intent == "comparison" and answers[-1].terms[:2] == terms


def test_versus_follow_up_spells_out_only_a_bare_versus() -> None:
    from kg.chat.ellipsis import versus_follow_up

    assert versus_follow_up("vs canary?") == "How is canary different from it?"
    assert versus_follow_up("那跟 TPOT 比呢？") == "TPOT和它有什么区别？"
    assert versus_follow_up("canary vs blue-green?") is None
    assert versus_follow_up("TTFT 跟 TPOT 比呢？") is None


@pytest.mark.slow
def test_its_owned_by_a_thing_the_question_introduces_does_not_point_back(
    glossary: Glossary, real_engine: SearchEngine
) -> None:
    """ "…a new model… its output": the owner is the new model, not blue-green deployments."""
    q = "How can I try a new model on real traffic without users ever seeing its output?"
    answers, _ = converse(glossary, real_engine, "What's a blue-green deployment?", q)
    # answered from the search over the question, not from the term under discussion (which term
    # the search ranks first is the retrieval's business: shadow traffic until the chat fusion was
    # refitted on dev11–dev13, jitter traffic since; docs/EVAL.md counts such turns)
    a = answers[-1]
    assert a.grounded and a.decision["reason"] != "context"
    assert a.citations[0].term_id != "blue-green-deployment"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Is a lower value of it better?", True),
        ("Does it need a separate draft model?", True),
        ("它能单独拿来用吗？", True),
        ("Is there a way to draft tokens without a separate model?", False),  # asks for a term
        ("有没有不靠额外模型的办法？", False),
        ("哪个引擎支持它吗？", False),
        ("Which engines use it?", False),
    ],
)
def test_a_yes_no_question_is_told_from_one_asking_for_a_term(question: str, expected: bool) -> None:
    assert is_yes_no(question) is expected


@pytest.mark.slow
def test_a_yes_no_follow_up_about_the_topic_stays_on_it(
    glossary: Glossary, real_engine: SearchEngine
) -> None:
    # "Is a lower value of it better?" asks about PUE's value, not for a term the words "lower
    # value" pull up (bf16)
    answers, _ = converse(glossary, real_engine, "What's PUE?", "Is a lower value of it better?")
    assert answers[1].citations[0].term_id == "pue", answers[1].citations[:2]
