"""The context rules added for issue 12 (precision on everyday words): each test pairs a
sentence the rule changes with a control sentence it must leave alone."""

from __future__ import annotations

from typing import Any

from kg.annotate import Annotator
from kg.annotate.context import SentenceContext, modifier_of_next, signature_words
from kg.annotate.engine import _spelled_as
from tests.annotate.annotate_helpers import found, ids


def test_support_stops_at_a_contrastive_conjunction(ann: Any) -> None:
    # rule 5: autoscaling would support "queue", but "but" sets the bakery against it
    contrast = "The queue at the bakery was long this morning, but autoscaling added replicas in time."
    assert "queue-request" not in ids(ann(contrast))
    same_topic = "The queue at the bakery was long this morning, and autoscaling added replicas in time."
    assert "queue-request" in ids(ann(same_topic))
    # the same in Chinese: 不过 ends the support of 采样 for 温度
    assert "temperature" not in ids(ann("窗外的温度降到了零下，不过线上服务的采样参数一直没变。"))
    assert "temperature" in ids(ann("窗外的温度降到了零下，线上服务的采样参数一直没变。"))


def test_a_modifier_needs_two_signature_words_of_its_own_clause(ann: Any) -> None:
    # rule 4: "token bucket" is rate limiting; the one signature word "rate" does not rescue it
    got = ids(ann("Rate limiting uses a token bucket per client, and decode speed per GPU is unaffected."))
    assert "token" not in got and "decode" in got
    # a plural head is no modifier: the tokens are the model's
    assert "token" in ids(ann("The tokens generated during decode stream to the client."))


def test_a_latin_word_before_a_chinese_outside_noun_only_modifies_it(ann: Any) -> None:
    # rule 4 in mixed text: "batch 实习生" is a group of interns
    assert "batch" not in ids(ann("这一 batch 实习生下周入职，先熟悉 prefill 和 decode。"))
    # a noun of the domain after it keeps it
    assert "batch" in ids(ann("这批 batch 请求在 prefill 阶段写入 KV cache。"))


def test_a_preposition_after_the_match_is_no_noun_it_modifies(annotator: Annotator) -> None:
    vocab = annotator.vocabulary
    tp = next(e for e in vocab.entries if e.name == "TP")
    for text, expected in (("keep TP inside a node", False), ("keep TP hardware tidy", True)):
        end = text.index("TP") + 2
        assert modifier_of_next(vocab, tp, text.lower(), text, end, False) is expected


def test_function_words_are_no_signature(annotator: Annotator) -> None:
    # rule 6: "per" and 通常 ("usually") are as common outside the domain as inside
    vocab = annotator.vocabulary
    token_sig = vocab.signatures["token"]
    node_sig = vocab.signatures["gpu-node"]
    assert "per" in token_sig and "通常" in node_sig  # in the definitions' words, but not counted
    assert "per" not in signature_words(vocab, "token", SentenceContext(frozenset({"per", "rate"})))
    assert signature_words(vocab, "gpu-node", SentenceContext(frozenset({"通常"}))) == []


def test_a_word_talked_about_as_a_word_is_no_term(ann: Any) -> None:
    # rule 7
    assert "engine" not in ids(ann("engine 这个词有人指 TensorRT 编译出来的文件。"))
    assert "engine" in ids(ann("TensorRT 编译出来的 engine 文件换一张 GPU 就要重建。"))


def test_a_compound_chain_stays_foreign(ann: Any) -> None:
    # rule 8: "search engine" is foreign, so is "[search engine] optimization"
    got = ids(ann("The agency sold us search engine optimization, and our inference engine served prefill."))
    assert "optimization" not in got and "engine" not in got and "inference-engine" in got
    assert "optimization" in ids(ann("Kernel optimization and graph optimization both cut TTFT on the GPU."))


def test_a_short_abbreviation_modifying_an_outside_noun_needs_support(ann: Any) -> None:
    # rule 9: three capitals the definitions rarely use have other expansions
    assert "multiply-accumulate-operation" not in ids(
        ann("The MAC address of the NIC changed after the reboot, so RDMA to the prefill nodes failed.")
    )
    assert not ids(ann("The SLA printer ran out of resin, and the MLA citation style guide is missing."))
    assert "service-level-agreement" not in ids(ann("打印机的 SLA 树脂用完了。"))
    # supported: a plural head, its own spelled-out name, an abbreviation the domain uses widely
    assert "multiply-accumulate-operation" in ids(ann("A systolic array is a grid of MAC units in the TPU."))
    assert found(ann("The TPS figure on the dashboard counts tokens per second for one user."))[0] == (
        "TPS",
        "perceived-tps",
    )
    assert "high-bandwidth-memory" in ids(ann("HBM stack height decides how much fits."))


def test_a_name_with_inner_capitals_keeps_its_spelling(ann: Any) -> None:
    got = found(
        ann("The sensors talk LoRa to the barn gateway, while the chatbot loads LoRA adapters on the GPU.")
    )
    assert [s for s, t in got if t == "lora"] == ["LoRA"]
    assert _spelled_as("lora", "LoRA") and _spelled_as("Lora", "LoRA") and _spelled_as("LORA", "LoRA")
    assert not _spelled_as("LoRa", "LoRA") and not _spelled_as("VLlm", "vLLM")


def test_full_width_letters_keep_a_mixed_case_spelling(ann: Any) -> None:
    # NFKC folds "ＲｏＣＥｖ２" to "RoCEv2": the spelling check reads the letters it stands for
    assert "rocev2" in ids(ann("两个机房之间走 ＲｏＣＥｖ２ 网络。"))
    assert _spelled_as("ＲｏＣＥｖ２", "RoCEv2") and not _spelled_as("ＲｏＣｅ", "RoCE")


def test_a_short_mixed_case_abbreviation_matches_its_spelling_or_capitals_only(ann: Any) -> None:
    # "moe" and "Moe" are words (a name, a style of drawing); "MoE" and "MOE" the abbreviation
    assert not _spelled_as("moe", "MoE") and not _spelled_as("Moe", "MoE")
    assert _spelled_as("MOE", "MoE") and _spelled_as("MoE", "MoE")
    assert "mixture-of-experts" not in ids(ann("Moe from accounting asked whether moe artwork counts."))
    assert "mixture-of-experts" in ids(ann("A MoE layer routes each token to two experts."))


def test_an_abbreviation_spelled_out_as_something_else_is_that_thing(ann: Any) -> None:
    # rule 10: a capitalised expansion, or one after a defining cue, that is no name of the term
    assert "automatic-speech-recognition" not in ids(
        ann("On the loading dock ASR stands for automated storage and retrieval.")
    )
    assert "mixture-of-experts" not in ids(ann("The MoE we report to is the Ministry of Energy."))
    # controls: the term's own expansion, or no expansion at all
    assert "mixture-of-experts" in ids(ann("The MoE (mixture of experts) layer has 64 experts."))
    assert "automatic-speech-recognition" in ids(
        ann("ASR turns the call audio into text before the LLM reads it.")
    )


def test_other_expansion_needs_capitals_or_a_cue() -> None:
    from kg.annotate.context import abbreviation_letters, other_expansion

    assert abbreviation_letters("MoE") == "MoE" and abbreviation_letters("FP8") == ""
    assert abbreviation_letters("Token") == ""
    assert other_expansion("ASR", ["automatic speech recognition"], "ASR means anti-slip regulation")
    assert other_expansion("MoE", ["Mixture of Experts"], "the MoE is the Ministry of Education")
    # lower-case words whose initials happen to spell it, with no cue: no expansion
    assert not other_expansion("ASR", ["automatic speech recognition"], "ASR also slows retrieval a bit")
    assert not other_expansion("MoE", ["Mixture of Experts"], "MoE, i.e. Mixture-of-Experts, again")


def test_a_chinese_match_never_sits_inside_a_longer_everyday_word(ann: Any) -> None:
    # "推理小说" (a detective novel) and "并发症" (a complication) are words of jieba's general
    # dictionary the domain never writes: the names inside them are no mentions
    assert "inference" not in ids(ann("她最爱看推理小说。"))
    assert "concurrency" not in ids(ann("手术后的并发症需要观察。"))
    # a longer word the domain writes, or one that only adds a function word ("推理则"), does not count
    assert "inference" in ids(ann("前端交给 CDN，后端推理则由 vLLM 负责，KV cache 放在 GPU 上。"))


def test_a_capitalised_modifier_opening_the_sentence_is_still_a_modifier(ann: Any) -> None:
    # rule 3: "Reviewer latency" is the reviewer's, like "the reviewer latency" inside a sentence
    assert "latency" not in ids(ann("Reviewer latency is what our editors complain about."))
    assert "latency" in ids(ann("Latency of the decode step rose after the GPU upgrade."))


def test_hyphenated_modifiers_and_written_compounds_are_no_foreign_compounds(ann: Any) -> None:
    # the tail of a hyphenated modifier ("128k-entry", "static-shape") does not make a compound
    assert "vocabulary" in ids(ann("A 128k-entry vocabulary makes the softmax at decode time slower."))
    assert "kernel" in ids(ann("The compiler emits static-shape kernels for the GPU on first use."))
    # "system prompt" is written by the definitions: the domain's own compound
    assert "prompt" in ids(ann("Long system prompts make prefill slower."))
    # a content word before it still makes another thing
    assert "vocabulary" not in ids(ann("Her courtroom vocabulary impressed the judge."))


def test_a_sentence_telling_two_senses_apart_asks_each_side_for_support(ann: Any) -> None:
    # rule 11: the product name and the Chinese name on the outside side have no support there
    got = found(ann("Our Triton Inference Server notes have nothing to do with Triton, the Greek sea god."))
    assert ("Triton", "triton") not in got
    assert "prefill" not in ids(ann("浏览器的自动预填充跟这完全无关。"))
    # the domain's side keeps its mention, a clause about "the latter" included
    got_zh = found(ann("汽车的巡航控制和调度器的批处理是两回事，后者把多个请求合成一个 batch 交给 GPU。"))
    assert ("批处理", "batch") in got_zh
    # the separating phrase alone does not drop a supported name
    assert "prefill" in ids(ann("这次改动和预填充阶段的 KV cache 写入无关。"))
    # without such a phrase nothing changes
    assert ("Triton", "triton") in found(ann("We wrote the fused kernel in Triton and tuned its block size."))


def test_a_dropped_longer_match_leaves_the_names_inside_it_to_the_rules(ann: Any) -> None:
    # the sentence tells two senses apart: the Chinese compound finds no support on its side and
    # is dropped, the multi-word name inside it is no everyday word and stands on its own
    assert found(ann("KV cache 管理器和浏览器的缓存管理器没有关系。")) == [("KV cache", "kv-cache")]
    assert found(ann("KV cache 管理器")) == [("KV cache 管理器", "kv-cache-manager")]


def test_names_in_link_text_support_the_mentions_around_them(ann: Any) -> None:
    # the link's own text is never annotated, but the term it names is context for "decode"
    md = ann("Each [TPOT](/g/tpot) sample is one decode step.", format="markdown")
    assert found(md) == [("decode", "decode")]
    html = ann('<p>Each <a href="/g/tpot"><em>TPOT</em></a> sample is one decode step.</p>', format="html")
    assert found(html) == [("decode", "decode")]
    # link text naming nothing supports nothing
    assert found(ann("Each [photo](/g/tpot) sample is one decode step.", format="markdown")) == []


def test_a_chinese_verbal_noun_before_a_term_is_its_verb_not_a_foreign_modifier(ann: Any) -> None:
    # jieba tags 影响 / 对应 "vn": before a term they take it as object, they make no compound
    assert ("吞吐", "throughput") in found(ann("KV cache 的大小直接影响吞吐和 TPOT。"))
    assert ("decode", "decode") in found(ann("TPOT 只对应 decode 这一步。"))
    # a plain noun before it still makes a compound of another thing
    assert ("温度", "temperature") not in found(ann("CPU 的核心温度超过 90 度。"))


def test_a_use_marked_as_the_pages_own_sense_drops_the_earlier_ones(ann: Any) -> None:
    # rule 12: "我们说的 MIG" sets the welder's MIG before it apart
    welded = "我爸是焊工，他说的 MIG 是熔化极气体保护焊。我们说的 MIG 是把一张 A100 切成最多七个隔离实例。"
    found_mig = [m for m in ann(welded).mentions if m.term_id == "multi-instance-gpu"]
    assert len(found_mig) == 1 and found_mig[0].start == welded.index("MIG", welded.index("我们说的"))
    band = "The band just released a new EP. The other EP is expert parallelism across 32 GPUs."
    eps = [m for m in ann(band).mentions if m.text == "EP"]
    assert len(eps) == 1 and eps[0].start == band.rindex("EP")
    # control: a name used twice in one sense, with no such marker, keeps both uses
    twice = "我们用 MIG 把 A100 切开；MIG 的每个实例有独立的显存。"
    assert sum(m.term_id == "multi-instance-gpu" for m in ann(twice).mentions) == 2
    # the marker reaches back to the paragraph's start only
    other_paragraph = "MIG 把 A100 切成七份。\n\n我们说的 MIG 是同一个东西。"
    assert sum(m.term_id == "multi-instance-gpu" for m in ann(other_paragraph).mentions) == 2
