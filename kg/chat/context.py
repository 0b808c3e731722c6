"""The working state of one question as it moves through the chat pipeline.

:class:`Ctx` carries what each stage found — the parsed question (:mod:`.intents`), the
names linked in it (:mod:`.linking`), the conversation's referent (:mod:`.references`),
the search hits (:mod:`.retrieve`) and the decision (:mod:`.decide`) — to the answer
shapes (:mod:`.shapes`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kg.chat.decide import Decision
from kg.chat.intents import Parsed, Pronoun
from kg.chat.linking import Analysis, Linker
from kg.chat.model import ConversationState
from kg.chat.retrieve import Retrieval
from kg.store import Glossary
from kg.textnorm import fold, has_cjk

__all__ = ["Ctx", "detect_lang"]


def detect_lang(parsed: Parsed, analysis: Analysis) -> str:
    """``zh`` when the words around the term names are Chinese, ``en`` when they are Latin."""
    f = parsed.folded
    keep = [True] * len(f)
    for a, b in [(s.start, s.end) for s in analysis.spans] + analysis.unknown_ranges:
        for i in range(a, b):
            keep[i] = False
    rest = "".join(ch for ch, k in zip(f, keep, strict=True) if k)
    if has_cjk(rest):
        return "zh"
    if re.search(r"[a-z]", rest):
        return "en"
    return "zh" if has_cjk(f) else "en"


@dataclass
class Ctx:
    """Per-question working state."""

    glossary: Glossary
    linker: Linker
    parsed: Parsed
    analysis: Analysis
    lang: str
    state: ConversationState | None
    referent: str | None = None
    referents: list[str] = field(default_factory=list)  # "它们" / "they": the last two terms
    used_context: bool = False
    pronoun: Pronoun | None = None
    suggestions: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    linked_by: str = "none"
    focus: list[str] = field(default_factory=list)
    retrieval: Retrieval | None = None
    decision: Decision | None = None
    # the whole graph, mentioned-only nodes included (``glossary`` is its defined view): for saying
    # that a name is mentioned but not defined (kg/chat/shapes/mentioned.py)
    full: Glossary | None = None
    # the question is the previous one asked again about a new term ("那 TPOT 呢？")
    reasked: bool = False
    # the question left out its subject, the term under discussion ("部署时一般用哪种并行？")
    dropped_subject: bool = False
    # the follow-up ranker picked the term under discussion itself (kg/chat/followup.py): a how/why
    # question about it ("做推理时为什么常拿它当…基准？") is about it, not a name it mentions on the way
    ranked_referent: bool = False
    # the term a relation answer must give beside its subject, though the question names it
    # ("Is it usually compute-bound or memory-bound?": compute-bound, kg/chat/alternatives.py)
    asked: str | None = None

    @property
    def in_domain(self) -> bool:
        """The decision stage's verdict (names, context, or the refusal model's probability)."""
        if self.decision is not None:
            return self.decision.in_domain
        return bool(self.analysis.spans) or self.used_context

    def body_text(self, substitute: bool = True) -> str:
        """The whole question when it has no pronoun (or, substituting, no referent); else the
        question without its frame's edges, pronouns replaced by the referent's name.

        "SGLang 里它对应的实现叫什么" → "SGLang 里前缀缓存对应的实现叫什么", so that a search
        for what else the question asks about knows what "它" is.
        """
        if self.dropped_subject and substitute and self.referent and not self.analysis.pronouns:
            # "部署时一般用哪种并行？" after MoE: searched as "MoE 部署时一般用哪种并行？"
            term = self.glossary.terms[self.referent]
            return f"{fold(term.labels.get(self.lang) or term.label('en'))} {self.parsed.folded}".strip()
        if not self.analysis.pronouns or (substitute and not self.referent):
            # nothing to replace (no pronoun, or one with no referent: "how much electricity it
            # takes"): the whole question, frame words too, is what the search ranks best — the
            # example questions it matches are whole questions ("Which metric tells…"), and
            # they end on a question mark: one the asker left out is put back, so that the same
            # question is the same search with or without it — and with or without a preamble
            # ("Quick question:") or thanks after it, which the body leaves out
            span = self.parsed.body
            folded = self.parsed.folded
            whole = re.sub(r"\s+", " ", span.text if span else folded).strip()
            mark = re.search(r"[?!.]", folded[span.end :] if span else folded[-1:])
            return whole + (mark.group() if mark else "?") if whole else whole
        body = self.parsed.body.text if self.parsed.body else self.parsed.folded
        offset = self.parsed.body.start if self.parsed.body else 0
        name = ""
        if substitute and self.referent:
            term = self.glossary.terms[self.referent]
            # as the sources write it: "PUE", not "pue", which the matcher reads as a word
            name = term.labels.get(self.lang) or term.label("en")
        for p in sorted(self.analysis.pronouns, key=lambda p: -p.start):
            a, b = p.start - offset, p.end - offset
            if 0 <= a <= b <= len(body):
                body = body[:a] + f" {name} " + body[b:]
        return re.sub(r"\s+", " ", body).strip()
