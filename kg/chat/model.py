"""Plain data of the chatbot: answers, citations and the state of one conversation.

Everything here is JSON-friendly (``to_dict``) so that the HTTP layer, the session store
and the evaluation read one shape.
"""

from __future__ import annotations

from collections import deque
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, get_args

Intent = Literal[
    "definition",
    "comparison",
    "relation",
    "howto_why",
    "abbreviation",
    "listing",
    "out_of_domain",
    "unknown",
]
INTENTS: tuple[str, ...] = get_args(Intent)
CitationKind = Literal["definition", "note", "edge"]


@dataclass(frozen=True)
class Citation:
    """One quoted piece of the graph that a statement of the answer rests on.

    ``quote`` is the graph's text verbatim: a definition, a definition's note (001's
    "在推理系统里看什么" column) or an edge's evidence. ``term_id`` is the term the quoted
    statement is about (for an edge: the other end, the term the answer line names);
    ``source``/``line`` locate the quote in ``corpus/sources``. ``marker`` is the number
    the answer text cites as ``[n]``.
    """

    term_id: str
    source: str
    quote: str
    kind: CitationKind = "definition"
    line: int = 0
    marker: int = 0
    edge: tuple[str, str, str] | None = None  # (type, source term, target term) for kind "edge"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["edge"] = (
            None
            if self.edge is None
            else {"type": self.edge[0], "source": self.edge[1], "target": self.edge[2]}
        )
        return d


@dataclass
class Answer:
    """What the bot says to one question, with everything it rests on."""

    question: str
    lang: Literal["zh", "en"]
    intent: Intent
    answer: str
    grounded: bool
    terms: list[str] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)
    # the term(s) the question is about (one, or two for comparisons and relations between two)
    focus: list[str] = field(default_factory=list)
    suggestions: list[str] = field(default_factory=list)
    follow_ups: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # how the main term was found: exact | mention | search | context | listing | none
    linked_by: str = "none"
    took_ms: float = 0.0
    generator: str = "retrieval"  # or "llm" when kg.chat.generator rephrased the text

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "lang": self.lang,
            "intent": self.intent,
            "answer": self.answer,
            "grounded": self.grounded,
            "terms": list(self.terms),
            "focus": list(self.focus),
            "citations": [c.to_dict() for c in self.citations],
            "suggestions": list(self.suggestions),
            "follow_ups": list(self.follow_ups),
            "warnings": list(self.warnings),
            "linked_by": self.linked_by,
            "took_ms": self.took_ms,
            "generator": self.generator,
        }


@dataclass(frozen=True)
class Turn:
    """One past exchange, as much as later turns need of it."""

    question: str
    intent: str
    terms: tuple[str, ...]
    grounded: bool


@dataclass
class ConversationState:
    """The terms under discussion, for resolving 它 / 这个 / it / its / the former.

    ``topic`` is the anchor: the term(s) a pronoun refers to. A turn that names its
    terms without a pronoun replaces it; a turn that used a pronoun keeps it (in
    "它的激活参数指什么？" the next 它 is still MoE, not 激活参数). ``last_terms`` are
    the previous grounded turn's terms; ``pair`` the last two terms compared or related, for
    "the former" / "the latter" / "they". Only the
    last ``max_turns`` turns are kept.
    """

    topic: list[str] = field(default_factory=list)
    last_terms: list[str] = field(default_factory=list)
    pair: list[str] = field(default_factory=list)
    last_intent: str | None = None
    max_turns: int = 20
    turns: deque[Turn] = field(default_factory=deque)

    def record(self, answer: Answer, *, used_context: bool) -> None:
        """Update the state after *answer* (ungrounded answers leave the topic alone)."""
        self.turns.append(Turn(answer.question, answer.intent, tuple(answer.terms), answer.grounded))
        while len(self.turns) > self.max_turns:
            self.turns.popleft()
        if not answer.grounded or not answer.terms:
            return
        focus = list(answer.focus or answer.terms[:1])
        self.last_terms = list(answer.terms)
        self.last_intent = answer.intent
        if len(focus) >= 2:
            self.pair = focus[:2]
        if not used_context or not self.topic:
            self.topic = focus

    def to_dict(self) -> dict[str, Any]:
        return {
            "topic": list(self.topic),
            "last_terms": list(self.last_terms),
            "pair": list(self.pair),
            "last_intent": self.last_intent,
            "turns": [asdict(t) for t in self.turns],
        }
