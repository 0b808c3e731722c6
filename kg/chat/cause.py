"""Why a measure is high: "Why is TTFT so high on my long-context requests?" → Prefill.

A why-question that calls a measure high, slow or bad ("为什么它在长 prompt 下会特别高" after TTFT,
"Long prompts give me terrible TTFT, why?") asks what drives the measure, not what the measure is:
its definition was no answer to the user who already watches it. The sources say what drives it
in the measure's own text ("TTFT … 主要由预填充(prefill)阶段决定", "对应 prefill 阶段"). The
answer is that term: the one its own definitions name right after a word that says what the
measure consists of or is decided by (由 / 对应 / 包含 / 取决于 / determined by …), the best-ranked
first when there are several. A measure is a term the sources file under metrics; the question
names exactly one, or points at the one under discussion. A question that asks how to bring it
down ("怎么降低 TTFT") asks for a remedy, which is another question.
"""

from __future__ import annotations

import re

from kg.chat.context import Ctx
from kg.chat.decide import asks_for_remedy
from kg.chat.family import name_family
from kg.chat.followup import definition_mentions, generic_terms
from kg.store import Glossary
from kg.textnorm import fold

__all__ = ["stated_bound", "stated_cause"]

#: The category a measure is filed under.
METRICS = "metrics"

#: A definition that states the measure as a formula of others.
_FORMULA = re.compile(r"[A-Za-z0-9)]\s*=\s*[A-Za-z(]")

_WHY = re.compile(r"\bwhy\b|为什么|為什麼|为何|為何|怎么会|怎麼會|咋会|咋這麼|咋这么")
#: The question calls the measure high, slow or bad. "Long" and 长 are left out: they describe the
#: request ("long-context", "长 prompt"), not the measure.
_HIGH = re.compile(
    r"\b(?:high|higher|slow|slower|bad|worse|terrible|awful|poor|huge|spik(?:e|es|ing|y))\b"
    r"|高|慢|差|飙|变大|很大|特别大|这么大|這麼大"
)


def stated_cause(ctx: Ctx) -> tuple[str, str] | None:
    """(the term driving the measure, the measure) for a why-question that calls a measure high;
    None when the question is no such question or the measure's text names no linked term."""
    parsed = ctx.parsed
    f = parsed.folded
    if ctx.decision is None or ctx.decision.action != "answer":
        return None  # "Why is my home Wi-Fi latency so high?": refused, and no measure of ours
    if parsed.intent != "howto_why" or not _WHY.search(f) or not _HIGH.search(f):
        return None
    if asks_for_remedy(parsed, ctx.analysis):
        return None
    g = ctx.glossary
    named = list(dict.fromkeys(s.term_id for s in ctx.analysis.spans if s.term_id in g.terms))
    measures = [t for t in named if METRICS in g.terms[t].categories]
    if not measures and ctx.used_context and ctx.referent in g.terms:
        measures = [ctx.referent] if METRICS in g.terms[ctx.referent].categories else []
    if len(measures) != 1:
        return None
    measure = measures[0]
    if any(_FORMULA.search(d.text) for d in g.terms[measure].definitions):
        # "E2E = TTFT + TPOT × (output_tokens - 1)": every part of the formula drives it, no one term
        return None
    drivers = _stated_drivers(ctx, measure) - set(named)
    if not drivers:
        return None
    assert ctx.retrieval is not None
    ranked = [h.term_id for h in ctx.retrieval.hits if h.term_id in drivers]
    return (ranked[0] if ranked else sorted(drivers)[0]), measure


#: In a measure's text, the words before what it consists of or is decided by: "对应 prefill 阶段",
#: "主要由预填充(prefill)阶段决定", "通常包含 prefill".
_DRIVER_CUE = re.compile(
    r"由|对应|包含|取决于|受|determined by|dominated by|driven by|includes?|corresponds to"
)
#: How far after the cue the term's name may start.
_CUE_WINDOW = 3


def _stated_drivers(ctx: Ctx, measure: str) -> set[str]:
    """The terms the measure's own definitions name right after a driver cue, that the graph
    links to it (the mention edges of those definitions)."""
    g = ctx.glossary
    linked = set(g.neighbours(measure)) & definition_mentions(g).get(measure, frozenset())
    found: set[str] = set()
    for d in g.terms[measure].definitions:
        text = fold(d.text)
        for m in _DRIVER_CUE.finditer(text):
            for span in ctx.linker.engine.matcher.find_mentions(text[m.end() : m.end() + 40]):
                if span.start <= _CUE_WINDOW and span.term_id in linked:
                    found.add(span.term_id)
    return found


#: The question describes a workload that cannot use the chip's compute: "为什么 decode 阶段 GPU
#: 算力总是跑不满？", "卡在带宽上", "Why is decode so underutilised?". Not "瓶颈" / "bottleneck": "为什么说
#: 显存带宽是 decode 的瓶颈？" names the bottleneck and asks why it is one.
_STARVED = re.compile(
    r"跑不满|用不满|吃不满|打不满|跑不滿|用不滿|吃不滿|利用率(?:很|太|总是|一直)?低|闲着|閒著|闲置|卡在"
    r"|\b(?:underutili[sz]ed|under-utili[sz]ed|idle|saturate|saturating)\b"
)


def stated_bound(ctx: Ctx) -> tuple[str, str] | None:
    """(the bound, the workload) for a why-question about a workload that leaves compute idle
    ("为什么 decode 阶段 GPU 算力总是跑不满？"): of the terms named "… bound" (compute-, memory-,
    capacity-bound), the one the graph links to the workload the question names or points at
    (decode: memory-bound, whose text says "LLM decode 的核心特征"), the best-ranked by the search
    when the names link several; None when they link none."""
    parsed = ctx.parsed
    f = parsed.folded
    if ctx.decision is None or ctx.decision.action != "answer":
        return None
    if not _WHY.search(f) or not _STARVED.search(f) or asks_for_remedy(parsed, ctx.analysis):
        return None
    g = ctx.glossary
    bounds = set(name_family(g, "bound"))
    named = list(dict.fromkeys(s.term_id for s in ctx.analysis.spans if s.term_id in g.terms))
    if bounds & set(named):
        return None  # "为什么 decode 是 memory-bound？" names the bound: it asks why, about it
    common = generic_terms(g)  # "LLM 的 decode": LLM says nothing about which workload
    # "compute" of compute-bound is the resource left idle, not the workload
    resources = {t for t in named for b in bounds if _names_lead(g, t, b)}
    subjects = [t for t in named if t not in common | resources and bounds & set(g.neighbours(t))]
    if ctx.used_context and ctx.referent in g.terms and bounds & set(g.neighbours(ctx.referent)):
        subjects = [ctx.referent]  # "为什么它总是用不满算力？" after decode
    linked = {b for t in subjects for b in bounds & set(g.neighbours(t))}
    if not linked or ctx.retrieval is None:
        return None
    # several named terms ("decode 阶段 GPU 算力": decode and compute) may link different bounds:
    # the search over the whole question decides
    ranked = [h.term_id for h in ctx.retrieval.hits if h.term_id in linked]
    if not ranked:
        return None
    best = ranked[0]
    owner = next(t for t in subjects if best in g.neighbours(t))
    return best, owner


def _names_lead(glossary: Glossary, term_id: str, bound: str) -> bool:
    """One of *term_id*'s names opens one of *bound*'s ("compute" / "compute-bound", "算力"…)."""
    own = [fold(n) for n in glossary.terms[term_id].all_names() if len(n) >= 2]
    theirs = [fold(n) for n in glossary.terms[bound].all_names()]
    return any(b.startswith(n) and b != n for n in own for b in theirs)
