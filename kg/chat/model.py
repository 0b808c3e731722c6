"""Plain data of the chatbot: answers, citations and the state of one conversation.

Everything here is JSON-friendly (``to_dict``) so that the HTTP layer, the session store
and the evaluation read one shape.
"""

from __future__ import annotations

import types
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

Intent = Literal[
    "definition",
    "comparison",
    "relation",
    "howto_why",
    "abbreviation",
    "listing",
    "which",
    "out_of_domain",
    "unknown",
]
INTENTS: tuple[str, ...] = get_args(Intent)
CitationKind = Literal["definition", "note", "edge", "mention"]


@dataclass(frozen=True)
class Citation:
    """One quoted piece of the graph that a statement of the answer rests on.

    ``quote`` is the graph's text verbatim: a definition, a definition's note (001's
    "在推理系统里看什么" column), an edge's evidence, or (``mention``) a sentence that mentions a
    name the glossary does not define (:mod:`kg.mentioned`). ``term_id`` is the term the quoted
    statement is about (for an edge: the other end, the term the answer line names; for a
    mention: the entry whose text holds the sentence, which the answer line names);
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
    # the terms the question itself names, in the asker's order ("the second one" points here later)
    mentioned: list[str] = field(default_factory=list)
    # the terms a listing answer lists, in its order ("第二个" after it points here)
    listed: list[str] = field(default_factory=list)
    suggestions: list[str] = field(default_factory=list)
    follow_ups: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # how the main term was found: exact | mention | search | context | listing | none
    linked_by: str = "none"
    took_ms: float = 0.0
    generator: str = "retrieval"  # or "llm" when kg.chat.generator rephrased the text
    needs_clarification: bool = False  # a pronoun with nothing to point at: the bot asks
    script: Literal["simplified", "traditional"] = "simplified"  # the asker's script (answer text follows it)
    # how the decision stage chose (kg/chat/decide.py): action, reason, in-domain probability
    decision: dict[str, Any] = field(default_factory=dict)

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
            "needs_clarification": self.needs_clarification,
            "script": self.script,
            "decision": dict(self.decision),
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
    named: list[str] = field(default_factory=list)  # the last turn naming 2+ terms, in the user's order
    last_intent: str | None = None
    # the question the bot answered with a clarifying question ("What's its English name?"),
    # kept for one turn so that "I mean 冷启动" can answer it (kg/chat/clarification.py)
    pending: str | None = None
    # the term a "which" follow-up answered with, when it is not the topic ("哪个框架主打这个？" →
    # SGLang): the next pronoun may point at it instead (kg/chat/bot.py decides by the search)
    answered: str | None = None
    max_turns: int = 20
    turns: deque[Turn] = field(default_factory=deque)

    def record(self, answer: Answer, *, used_context: bool) -> None:
        """Update the state after *answer* (ungrounded answers leave the topic alone)."""
        self.turns.append(Turn(answer.question, answer.intent, tuple(answer.terms), answer.grounded))
        self.pending = answer.question if answer.needs_clarification else None
        while len(self.turns) > self.max_turns:
            self.turns.popleft()
        if not answer.grounded or not answer.terms:
            return
        focus = list(answer.focus or answer.terms[:1])
        self.answered = (
            focus[0]
            if answer.intent == "which" and used_context and len(focus) == 1 and focus[0] not in self.topic
            else None
        )
        self.last_terms = list(answer.terms)
        self.last_intent = answer.intent
        # "What microscaling formats are there?" … "Which one of those is tuned for Blackwell?": the
        # turn picked one of the terms the conversation listed; the next "it" is that one
        picked = used_context and answer.intent == "which" and len(focus) == 1 and focus[0] in self.named
        if len(focus) >= 2:
            self.pair = focus[:2]
        if len(answer.mentioned) >= 2:
            self.named = list(answer.mentioned)
        if len(answer.listed) >= 2:
            # "后者有哪些代表算法？" … "第二个是基于什么信息做的？": the second one the answer listed
            self.named = list(answer.listed)
        if not used_context or not self.topic:
            self.topic = focus
        elif picked or (
            len(self.topic) >= 2 and focus[0] in self.topic and not set(self.topic) <= set(focus)
        ):
            # "Which one handles the gather work?", "第三个是哪家出的？": the turn picked one of the
            # terms under discussion; the next "it" is that one
            self.topic = focus[:1]

    def follow_ids(self, current_id: Callable[[str], str | None]) -> None:
        """Map the term ids kept across turns to current ones (``Glossary.current_id``): a state
        saved before a rebuild may hold former ids (kg/ids.py); ids no term has any more are dropped."""

        def fix(ids: Iterable[str]) -> list[str]:
            return list(dict.fromkeys(c for i in ids if (c := current_id(i)) is not None))

        self.topic, self.last_terms = fix(self.topic), fix(self.last_terms)
        self.pair, self.named = fix(self.pair), fix(self.named)
        self.turns = deque(Turn(t.question, t.intent, tuple(fix(t.terms)), t.grounded) for t in self.turns)

    def to_dict(self) -> dict[str, Any]:
        """Every field as JSON-friendly data (lists, dicts, scalars); :meth:`from_dict` reads it back."""
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, max_turns: int | None = None) -> ConversationState:
        """The state :meth:`to_dict` wrote, field by field from the type annotations.

        Unknown keys are ignored and missing ones take their defaults, so a state saved before
        a field was added (or after one was removed) still loads. A value of the wrong shape
        raises ``ValueError``. *max_turns* (the store's current setting) overrides the saved
        one; the oldest turns beyond it are dropped.
        """
        if not isinstance(data, dict):
            raise ValueError(f"a conversation state is a JSON object, not {type(data).__name__}")
        state = _typed(cls, data)
        if max_turns is not None:
            state.max_turns = max_turns
        while len(state.turns) > state.max_turns:
            state.turns.popleft()
        return state


# --- field-agnostic (de)serialisation of the dataclasses above -----------------------------------


def _plain(value: Any) -> Any:
    """*value* as JSON-friendly data: dataclasses → dicts, sequences → lists."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, list | tuple | deque):
        return [_plain(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted(_plain(v) for v in value)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def _typed(tp: Any, value: Any) -> Any:
    """*value* (from :func:`_plain`) rebuilt as the annotated type *tp*; ``ValueError`` if it does not fit."""
    if tp is Any:
        return value
    origin, args = get_origin(tp), get_args(tp)
    if origin is Union or origin is types.UnionType:
        if value is None and type(None) in args:
            return None
        for arg in args:
            if arg is type(None):
                continue
            try:
                return _typed(arg, value)
            except ValueError:
                continue
        raise ValueError(f"{value!r} is not a {tp}")
    if origin is Literal:
        if value not in args:
            raise ValueError(f"{value!r} is not one of {args}")
        return value
    if isinstance(tp, type) and is_dataclass(tp):
        if not isinstance(value, dict):
            raise ValueError(f"{tp.__name__} needs an object, not {value!r}")
        hints = get_type_hints(tp)
        known = {f.name for f in fields(tp) if f.init}
        try:
            return tp(**{k: _typed(hints[k], v) for k, v in value.items() if k in known})
        except TypeError as exc:  # a required field is missing
            raise ValueError(f"{tp.__name__}: {exc}") from exc
    if origin in (list, tuple, deque, set, frozenset):
        if not isinstance(value, list | tuple):
            raise ValueError(f"{tp} needs an array, not {value!r}")
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            if args and len(args) != len(value):
                raise ValueError(f"{tp} needs {len(args)} items, not {len(value)}")
            return tuple(_typed(a, v) for a, v in zip(args, value, strict=False)) if args else tuple(value)
        item = args[0] if args else Any
        return origin(_typed(item, v) for v in value)
    if origin is dict:
        if not isinstance(value, dict):
            raise ValueError(f"{tp} needs an object, not {value!r}")
        key_tp, val_tp = args or (Any, Any)
        return {_typed(key_tp, k): _typed(val_tp, v) for k, v in value.items()}
    if tp is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if tp in (bool, int, float, str):
        if not isinstance(value, tp) or (tp is int and isinstance(value, bool)):
            raise ValueError(f"{value!r} is not a {tp.__name__}")
        return value
    return value
