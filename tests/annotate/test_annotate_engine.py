"""The annotation engine on the real glossary: matching rules, skips, offsets, options."""

from __future__ import annotations

from typing import Any

import pytest

from kg.annotate import AnnotateOptions, Annotator, page_lang
from kg.annotate.context import SentenceContext, choose_term
from kg.annotate.normalize import fold_with_map
from kg.store import Glossary
from tests.annotate.annotate_helpers import found, ids

# --- offsets and folding -----------------------------------------------------------------------


def test_spans_are_offsets_into_the_original_page(ann: Any) -> None:
    text = "ß… ＫＶ　Ｃａｃｈｅ and 連續批處理, then TTFT."
    result = ann(text)
    assert found(result) == [
        ("ＫＶ　Ｃａｃｈｅ", "kv-cache"),
        ("連續批處理", "continuous-batching"),
        ("TTFT", "time-to-first-token"),
    ]
    for m in result.mentions:
        assert text[m.start : m.end] == m.text


def test_folding_keeps_every_offset() -> None:
    text = "KV…cache ß ＫＶ　Ｃａｃｈｅ ㎏ 連續批處理 İx\tA\nB"
    folded = fold_with_map(text)
    assert len(folded.text) == len(text) and folded.offsets is None
    assert "kv cache" in folded.text and "连续批处理" in folded.text
    assert folded.text[text.index("…")] == "…"  # a character folding to several stays itself


def test_traditional_and_full_width_match(ann: Any) -> None:
    assert ids(ann("前綴緩存與分頁注意力")) == {"prefix-caching", "pagedattention"}
    assert ids(ann("ＴＴＦＴ 很高")) == {"time-to-first-token"}


def test_chinese_names_with_or_without_the_space_before_latin(ann: Any) -> None:
    for text in ("首 token 延迟很高", "首token延迟很高"):
        assert "time-to-first-token" in ids(ann(text)), text


# --- English word rules ------------------------------------------------------------------------


def test_plurals_and_possessives(ann: Any) -> None:
    got = found(ann("vLLM's KV caches on eight TPUs and two GPUs' HBM cut the TTFT latencies of H100s."))
    assert ("vLLM's", "vllm") in got
    assert ("KV caches", "kv-cache") in got
    assert ("TPUs", "tensor-processing-unit") in got
    assert ("GPUs'", "graphics-processing-unit") in got
    assert ("H100s", "h100") in got
    assert ("latencies", "latency") in got


def test_latin_names_sit_on_word_boundaries(ann: Any) -> None:
    # "TP" is inside neither "TTFT" nor "output"; "GPU" not inside "GPUX"; "Node.js" is not a node
    got = found(ann("TTFT and output of the GPUX box; the Node.js gateway feeds each GPU."))
    assert ("TTFT", "time-to-first-token") in got
    assert all(t != "tensor-parallelism" for _, t in got)
    assert [s for s, _ in got].count("GPU") == 1
    assert ("Node", "gpu-node") not in got


def test_abbreviations_match_only_in_capitals(ann: Any) -> None:
    assert "floating-point-operation" not in ids(ann("Our FP4 rollout was a flop on the MoE evals."))
    assert ("FLOPs", "floating-point-operation") in found(ann("FlashAttention 省的是 HBM 读写，不是 FLOPs。"))
    assert "expert-parallelism" not in ids(ann("Use ep=16 for the MoE model on the GPU."))
    assert "expert-parallelism" in ids(ann("Use EP=16 for the MoE model on the GPU."))


def test_product_names_match_only_capitalised(ann: Any) -> None:
    assert "relax" not in ids(ann("We had to relax the P99 TTFT target for the GPU fleet."))
    assert "relax" in ids(ann("TVM's Relax IR handles dynamic shapes."))


def test_everyday_words_need_their_context(ann: Any) -> None:
    # no glossary sense nearby: an auth token, not the LLM token
    assert "token" not in ids(ann("Before you start, export your Hugging Face token."))
    assert "token" in ids(ann("Each decode step emits one token per request in the batch."))
    # a foreign compound: the die's temperature, the Kubernetes operator, a no-op
    assert "temperature" not in ids(ann("The GPUs reached a die temperature of 87 °C during decode."))
    assert "temperature" in ids(ann("Set the sampling temperature to 0 so that decoding is greedy."))
    assert "operator" not in ids(ann("The Kubernetes operator only manages pods; the GPUs do the decode."))
    # without the context rules, every match is kept
    assert "token" in ids(ann("Before you start, export your Hugging Face token.", context=False))


def test_an_everyday_word_that_only_modifies_an_outside_noun_is_dropped(ann: Any) -> None:
    # the next word is a noun the glossary never uses: another thing
    assert "kernel" not in ids(
        ann("After the kernel upgrade the NVIDIA driver failed and every GPU left the pool.")
    )
    assert "intermediate-representation" not in ids(
        ann("We moved the IR camera feed off the CPU onto a GPU.")
    )
    # the domain's own compounds, a verb after it, or a plural head keep it
    assert "decode" in ids(ann("New requests join the running batch at every decode step."))
    assert "kernel" in ids(ann("The attention kernel finished in 2 ms on the GPU after kernel fusion."))
    # an -er noun before it makes a compound ("user agent"); a comparative does not
    assert "agent" not in ids(ann("The server logs the user agent of each client sending prompts."))
    assert "batch" in ids(ann("A larger batch raises throughput but also TPOT during decode."))


def test_a_chinese_match_never_splits_a_jieba_word(ann: Any) -> None:
    assert "distillation" not in ids(ann("液冷机柜的冷却液一般要用蒸馏水，GPU 才不会过热。"))
    assert "training" not in ids(ann("公司新开的 AI 训练营讲的是 GPU 推理成本。"))
    assert "distillation" in ids(ann("蒸馏让 8B 小模型学会 70B 模型的输出，量化之后还能放进一张 GPU。"))


def test_a_chinese_noun_before_an_everyday_word_makes_it_another_thing(ann: Any) -> None:
    got = ids(ann("机房空调故障那天，GPU 的核心温度一度逼近 90 度，解码速度明显下降。"))
    assert "temperature" not in got and "decode" in got


# --- same-named terms --------------------------------------------------------------------------


def test_the_longest_name_wins(ann: Any) -> None:
    got = found(ann("We wrote the kernel in Triton, then served it with Triton Inference Server."))
    assert ("Triton", "triton") in got
    assert ("Triton Inference Server", "triton-inference-server") in got


def test_tensorcore_and_tensor_core_stay_apart(ann: Any) -> None:
    # the spelling decides, even in a sentence about the other one; the rival is offered as a candidate
    result = ann("Unlike NVIDIA's Tensor Cores inside every SM, the TensorCore is a TPU chip's main block.")
    assert ("Tensor Cores", "tensor-core") in found(result)
    assert ("TensorCore", "tensorcore-tpu") in found(result)
    tc = next(m for m in result.mentions if m.text == "TensorCore")
    assert tc.candidates == ("tensor-core",)


def test_context_decides_between_rivals(annotator: Annotator, glossary: Glossary) -> None:
    entry = next(e for e in annotator.vocabulary.entries if e.name == "Triton")
    assert entry.rivals == ("triton-inference-server",)
    server = glossary.terms["triton-inference-server"]
    words = frozenset(annotator.vocabulary.tokenizer.tokenize(" ".join(d.text for d in server.definitions)))
    assert choose_term(annotator.vocabulary, entry, SentenceContext(words)) == (
        "triton-inference-server",
        False,
    )
    own = glossary.terms["triton"]
    words = frozenset(annotator.vocabulary.tokenizer.tokenize(" ".join(d.text for d in own.definitions)))
    assert choose_term(annotator.vocabulary, entry, SentenceContext(words))[0] == "triton"
    # no clue either way: the name's own term, marked ambiguous
    assert choose_term(annotator.vocabulary, entry, SentenceContext(frozenset())) == ("triton", True)


# --- skips ---------------------------------------------------------------------------------------

MARKDOWN = """---
title: KV cache notes
---
# KV cache offloading

Setext heading with TTFT
========================

| TPOT | ITL |
|---|---|
| HBM | 80 GB |

Inline `KV cache` code, a [KV cache link](https://example.com/kv-cache), an <https://vllm.ai/TTFT>,
a [ref link][kv] and https://example.com/TTFT/page, an image ![TTFT chart](ttft.png).

    indented code: TPOT

```python
ttft = kv_cache.TTFT
```

*[HBM]: High bandwidth memory
[kv]: https://example.com/kv

<!-- TPOT comment --> <span title="TPOT">prose TPOT</span> and the KV cache.
"""


def test_markdown_skips_code_links_urls_headings_and_html(ann: Any) -> None:
    result = ann(MARKDOWN, format="markdown")
    got = found(result)
    assert got == [
        ("HBM", "high-bandwidth-memory"),
        ("TPOT", "time-per-output-token"),
        ("KV cache", "kv-cache"),
    ]
    assert MARKDOWN[result.mentions[1].start - 6 : result.mentions[1].end] == "prose TPOT"


def test_headings_are_annotated_when_asked(ann: Any) -> None:
    got = found(ann(MARKDOWN, format="markdown", skip_headings=False))
    assert got[0] == ("KV cache", "kv-cache")
    assert ("TTFT", "time-to-first-token") in got and ("TPOT", "time-per-output-token") in got


HTML = """<!DOCTYPE html><html><head><title>TTFT</title><style>.ttft{color:red}</style></head>
<body><h2>KV cache</h2>
<script>const TTFT = 1; // TPOT</script>
<p title="TTFT" data-x='TPOT'>Prose about TTFT with <a href="/tpot">TPOT link</a>,
<code>KV cache</code>, <pre>HBM</pre>, <kbd>GPU</kbd> <!-- ITL --> and <abbr title="inter-token latency">ITL</abbr>.</p>
<div class="note gkg-skip"><p>TPOT skipped by the page</p></div>
<table><tr><th>TPOT</th></tr><tr><td>HBM cell</td></tr></table>
</body></html>"""


def test_html_skips_tags_attributes_script_style_comments_links_and_code(
    ann: Any, glossary: Glossary
) -> None:
    itl = glossary.lookup("ITL")[0].term.id
    got = found(ann(HTML, format="html"))
    assert got == [("TTFT", "time-to-first-token"), ("ITL", itl), ("HBM", "high-bandwidth-memory")]


def test_plain_text_is_all_prose_but_urls(ann: Any) -> None:
    got = found(ann("# TTFT `TPOT` see https://x.org/TTFT"))
    assert got == [("TTFT", "time-to-first-token"), ("TPOT", "time-per-output-token")]


# --- options ---------------------------------------------------------------------------------------

PAGE = "## One\n\nTTFT and TTFT, then KV cache.\n\n## Two\n\nTTFT again and the KV cache.\n"


def test_occurrences_all_first_and_first_per_section(ann: Any) -> None:
    assert [m.text for m in ann(PAGE, format="markdown").mentions] == [
        "TTFT",
        "TTFT",
        "KV cache",
        "TTFT",
        "KV cache",
    ]
    assert [m.text for m in ann(PAGE, format="markdown", occurrences="first").mentions] == [
        "TTFT",
        "KV cache",
    ]
    per_section = ann(PAGE, format="markdown", occurrences="first-per-section").mentions
    assert [(m.text, m.section) for m in per_section] == [
        ("TTFT", 0),
        ("KV cache", 0),
        ("TTFT", 1),
        ("KV cache", 1),
    ]


def test_include_and_exclude_categories_and_ids(ann: Any) -> None:
    text = "vLLM cut the TTFT by caching the KV cache."
    assert ids(ann(text)) == {"vllm", "time-to-first-token", "kv-cache"}
    assert ids(ann(text, include_categories=("metrics",))) == {"time-to-first-token"}
    assert ids(ann(text, exclude_categories=("metrics",))) == {"vllm", "kv-cache"}
    assert ids(ann(text, include_ids=("vllm",))) == {"vllm"}
    assert ids(ann(text, exclude_ids=("vllm",))) == {"time-to-first-token", "kv-cache"}


def test_mentioned_only_nodes_are_skipped_unless_asked(graph_doc: dict[str, Any]) -> None:
    g = Glossary(graph_doc)
    g.terms["kv-cache"].kind = "mentioned"  # type: ignore[attr-defined]  # as kg/mentioned.py marks them
    annotator = Annotator(g)
    text = "The KV cache grows with TTFT."
    assert {m.term_id for m in annotator.annotate(text).mentions} == {"time-to-first-token"}
    both = annotator.annotate(text, AnnotateOptions(include_mentioned=True)).mentions
    assert {m.term_id for m in both} == {"kv-cache", "time-to-first-token"}


def test_label_definition_source_and_url(ann: Any) -> None:
    zh = ann("首 token 延迟是 TTFT。").mentions[0]
    assert zh.label == "首 token 时间" and zh.labels["en"] == "Time To First Token"
    assert zh.definition is not None and zh.definition.source == "002" and zh.definition.text.endswith("。")
    assert zh.definition.source_title
    en = ann(
        "TTFT is high.", base_url="https://docs.example.com/", url_template="{base}/g/{id}.html"
    ).mentions[0]
    assert en.label == "Time To First Token"
    assert en.url == "https://docs.example.com/g/time-to-first-token.html"


def test_page_language() -> None:
    assert page_lang("The KV cache grows.") == "en"
    assert page_lang("KV cache 放不下的时候有三条路") == "zh"
    assert page_lang("") == "en"


@pytest.mark.parametrize(
    "bad",
    [
        {"format": "pdf"},
        {"occurrences": "some"},
        {"lang": "fr"},
        {"url_template": "/x"},
        {"url_template": "{id}{oops}"},
    ],
)
def test_bad_options_are_refused(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        AnnotateOptions(**bad)


def test_layout_keeps_the_visible_text_of_links() -> None:
    from kg.annotate.markup import layout

    md = "See [the KV cache](/g/kv) and ![a GPU](gpu.png), then `[x](y)`."
    texts = [md[s:e] for s, e in layout(md, "markdown").link_texts]
    assert texts == ["the KV cache"]  # an image's alt text and a code span are no link text
    html = '<p><a href="/g/tpot">the <b>TPOT</b> page</a> <code><a href="x">no</a></code></p>'
    assert [html[s:e] for s, e in layout(html, "html").link_texts] == ["the ", "TPOT", " page"]


def test_an_activity_name_matches_the_noun_of_one_run_of_it(ann: Any) -> None:
    from kg.annotate.vocabulary import activity_variants

    assert found(ann("We ran two load tests last night.")) == [("load tests", "load-testing")]
    assert found(ann("The load-test showed queueing at 300 RPS.")) == [("load-test", "load-testing")]
    assert found(ann("Our load testing found the knee.")) == [("load testing", "load-testing")]
    assert found(ann("The test passed.")) == []
    # a closed list: "continuous batching" is no "continuous batch"; one word alone is left alone
    assert activity_variants("continuous batching") == set()
    assert activity_variants("testing") == set()
    assert activity_variants("load testing") == {"load test", "load-test"}


def test_a_name_with_a_qualifier_in_brackets_matches_the_compound_it_stands_for(
    ann: Any, annotator: Annotator
) -> None:
    from kg.annotate.vocabulary import qualified_names

    assert found(ann("Requests wait in the request queue until a slot frees up.")) == [
        ("request queue", "queue-request")
    ]
    assert found(ann("Each attention head sees a slice of the hidden state.")) == [
        ("attention head", "head-attention")
    ]
    # the longer name holding an everyday word does not spell it out: the bakery's queue stays a queue
    assert found(ann("The queue outside the bakery was longer than our request queue.")) == [
        ("request queue", "queue-request")
    ]
    names = [
        ("a", "Queue (request)", "label"),
        ("b", "Hopper (architecture)", "label"),
        ("c", "Core (CUDA)", "label"),
    ]
    # a product and its kind is no compound; a capitalised qualifier is a name of its own
    assert qualified_names(names, lambda tid, word: word == "Hopper") == [("a", "request queue", "alias")]
    taken = [names[0], ("d", "request queue", "label")]
    assert qualified_names(taken, lambda tid, word: False) == []  # some term has that name
