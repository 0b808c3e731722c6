"""Answers a reader can use: no sentence of the sources is printed twice in one answer.

An edge's evidence is often a sentence of the definition the answer has just quoted ("70B 模型 FP16
需约 140 GB…" is both memory capacity's definition and its link to quantization). The answer then
names the linked terms with that quote's marker instead of quoting the sentence again.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kg.chat.bot import answer
from kg.chat.compose import Composer, best_edge, edges_between, repeated_sentences
from kg.chat.model import ConversationState
from kg.search.engine import SearchEngine
from kg.store import Glossary

DEV = Path(__file__).resolve().parents[1] / "data" / "chat_blind_dev.jsonl"


def test_the_checker_sees_a_repeat() -> None:
    text = "定义：「能装下多大模型。70B 模型需约 140 GB。」 [1]\n- **量化**：「70B 模型需约 140 GB。」 [2]"
    assert repeated_sentences(text) == ["70B 模型需约 140 GB", "70B 模型需约 140 GB"]
    assert repeated_sentences("定义：「甲乙丙丁戊己。」 [1]\n- **X**：「庚辛壬癸子丑。」 [2]") == []


def test_a_link_stated_in_the_quoted_definition_is_named_not_quoted_again(glossary: Glossary) -> None:
    focus = "memory-capacity"
    evidence = best_edge(glossary, focus, "quantization")
    assert evidence is not None and evidence.evidence in glossary.terms[focus].definitions[0].text
    c = Composer(glossary, "en")
    c.definitions(glossary.terms[focus], max_defs=1, notes=0)
    lines = c.edge_items(focus, ["quantization", "graphics-processing-unit", "tensor-parallelism"])
    assert lines[0] == "- Named in the quote above: **quantization**, **TP** [1]"
    assert lines[1].startswith("- **GPU**: “")  # a sentence not quoted yet is quoted
    assert {"quantization", "tensor-parallelism", "graphics-processing-unit"} <= set(c.terms)
    assert repeated_sentences("\n".join([c.text(), *lines])) == []


def test_no_answer_repeats_a_sentence(glossary: Glossary, engine: SearchEngine) -> None:
    """Every turn of the first blind dev split, asked in its conversation."""
    checked = 0
    for line in DEV.read_text(encoding="utf-8").splitlines():
        conv = json.loads(line)
        state = ConversationState()
        for turn in conv["turns"]:
            ans = answer(glossary, engine, turn["user"], context=state)
            assert repeated_sentences(ans.answer) == [], (turn["user"], ans.answer)
            checked += ans.grounded
    assert checked >= 200


def test_a_cross_reference_is_not_quoted_as_evidence(glossary: Glossary) -> None:
    """002's "详见Roofline 模型" links arithmetic intensity to the roofline model, but says nothing
    of how: the edge's sentence is quoted instead, and an edge with nothing but such a link is not
    quoted at all."""
    edge = best_edge(glossary, "arithmetic-intensity", "roofline-model")
    assert edge is not None and edge.evidence.startswith("把算术强度和内存带宽")
    only_links = best_edge(glossary, "kv-cache", "vllm")
    assert only_links is not None and only_links.evidence.startswith("详见")
    c = Composer(glossary, "zh")
    assert c.edge_items("kv-cache", ["vllm"]) == []


def test_the_words_left_to_quote_of_a_link_are_never_its_cross_reference(glossary: Glossary) -> None:
    """vLLM's definition ("…PagedAttention + continuous batching 起家") is quoted first, so the
    sentence linking it to PagedAttention is said; what is left of the link to quote is a sentence
    of PagedAttention's, never 002's "详见vLLM 与 PagedAttention", and its marker cites that
    sentence's own place."""
    c = Composer(glossary, "zh")
    c.cite("vllm", "002", glossary.terms["vllm"].definitions[0].text, "definition", 0)
    edges = edges_between(glossary, "vllm", "pagedattention")
    assert any(x.text.startswith("详见") for e in edges for x in e.items)  # 002 does link them so
    fresh = c.fresh_statements(edges)
    assert fresh and all(not part.startswith("详见") for _, part in fresh)
    for e, part in fresh:
        assert part in e.evidence and (e.doc, e.line, e.evidence) == (
            e.items[0].doc,
            e.items[0].line,
            e.items[0].text,
        )


@pytest.mark.slow
def test_which_engine_introduced_it_quotes_no_cross_reference(
    glossary: Glossary, real_engine: SearchEngine
) -> None:
    state = ConversationState()
    answer(glossary, real_engine, "What is PagedAttention?", context=state)
    a = answer(glossary, real_engine, "Which engine introduced it?", context=state)
    assert a.citations[0].term_id == "vllm"
    assert "详见" not in a.answer and all(not c.quote.startswith("详见") for c in a.citations)


def test_a_joint_definition_is_cut_only_at_another_member_s_clause(glossary: Glossary) -> None:
    """SLA / SLO share "服务等级协议/目标，通常以…形式给出。推理系统的可用性边界。": no clause opens with
    the other member's name, so each keeps the whole text (the "推理" opening the last clause is
    Inference's name, not a member's). AllReduce / AllGather's line gives each its own clause."""
    from kg.chat.compose import member_part

    sla = glossary.terms["service-level-agreement"]
    text = next(d.text for d in sla.definitions if d.source.startswith("002"))
    assert member_part(glossary, sla, text) == text
    gather = glossary.terms["allgather"]
    joint = next(d.text for d in gather.definitions if "AllReduce" in d.text and "AllGather" in d.text)
    part = member_part(glossary, gather, joint)
    assert part.startswith("AllGather") and "AllReduce" not in part
