"""Answers a reader can use: no sentence of the sources is printed twice in one answer.

An edge's evidence is often a sentence of the definition the answer has just quoted ("70B 模型 FP16
需约 140 GB…" is both memory capacity's definition and its link to quantization). The answer then
names the linked terms with that quote's marker instead of quoting the sentence again.
"""

from __future__ import annotations

import json
from pathlib import Path

from kg.chat.bot import answer
from kg.chat.compose import Composer, best_edge, repeated_sentences
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
