"""Schemas of the chatbot: /v1/ask, /v1/chat, the OpenAI-compatible /v1/chat/completions
and the term-view layout used by the web page."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from kg.chat.model import Answer, Citation, Intent

MAX_MESSAGE_CHARS = 1000
MAX_SESSION_ID_CHARS = 100
MAX_OPENAI_MESSAGES = 50

IntentName = Intent  # one list of intents: kg.chat.model.Intent


class EdgeRefOut(BaseModel):
    type: Literal["related_to", "confused_with"]
    source: str = Field(examples=["prefill"])
    target: str = Field(examples=["time-to-first-token"])


class CitationOut(BaseModel):
    """A quoted piece of the graph an answer statement rests on."""

    marker: int = Field(ge=1, description="The number the answer text cites as `[n]`.", examples=[1])
    term_id: str = Field(description="The term the quote is about.", examples=["time-to-first-token"])
    source: str = Field(description="Source glossary id.", examples=["002"])
    quote: str = Field(
        description="The graph's text, verbatim.",
        examples=["从请求到达到首个 token 输出的时间，对应 prefill 阶段。"],
    )
    kind: Literal["definition", "note", "edge", "mention"] = Field(
        description="`definition`, `note` (001's 在推理系统里看什么 column), `edge` (an edge's evidence) or "
        "`mention` (a sentence mentioning a name the glossary does not define).",
        examples=["definition"],
    )
    line: int = Field(ge=0, description="Line of the quote in the source file.", examples=[22])
    edge: EdgeRefOut | None = Field(default=None, description="For `edge` citations: which edge.")

    @classmethod
    def of(cls, c: Citation) -> CitationOut:
        edge = None if c.edge is None else EdgeRefOut(type=c.edge[0], source=c.edge[1], target=c.edge[2])  # type: ignore[arg-type]
        return cls(
            marker=c.marker,
            term_id=c.term_id,
            source=c.source,
            quote=c.quote,
            kind=c.kind,
            line=c.line,
            edge=edge,
        )


class AskRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"question": "什么是 TTFT？"}]})

    question: str = Field(
        min_length=1,
        max_length=MAX_MESSAGE_CHARS,
        description="A question about the glossary, in Chinese or English.",
        examples=["什么是 TTFT？", "What is the difference between TTFT and TPOT?"],
    )


class AnswerFields(BaseModel):
    answer: str = Field(
        description="The answer text (Markdown-ish: `**bold**`, `- ` items), citing `[n]` markers.",
        examples=[
            "**首 token 时间（Time To First Token，TTFT）**\n定义（来源 002）：「从请求到达到首个 token 输出的时间…」 [1]"
        ],
    )
    grounded: bool = Field(description="False when the glossary has no answer (then `citations` is empty).")
    terms: list[str] = Field(description="Ids of the terms the answer discusses, main one first.")
    citations: list[CitationOut]
    suggestions: list[str] = Field(description="Nearest term ids, when the answer is not grounded.")
    follow_ups: list[str] = Field(description="Suggested next questions, in the question's language.")
    warnings: list[str] = Field(default_factory=list, description="E.g. an LLM that timed out.")
    needs_clarification: bool = Field(
        default=False,
        description="True when the question's pronoun had nothing to point at: the answer asks which term is meant.",
    )
    script: Literal["simplified", "traditional"] = Field(
        default="simplified", description="`traditional` when the question was in Traditional characters."
    )


def answer_fields(a: Answer) -> dict[str, Any]:
    """The fields every answer-shaped response takes from a domain :class:`Answer`."""
    return {
        "lang": a.lang,
        "intent": a.intent,
        "answer": a.answer,
        "grounded": a.grounded,
        "terms": a.terms,
        "citations": [CitationOut.of(c) for c in a.citations],
        "suggestions": a.suggestions,
        "follow_ups": a.follow_ups,
        "warnings": a.warnings,
        "needs_clarification": a.needs_clarification,
        "script": a.script,
    }


class AskResponse(AnswerFields):
    """One question, answered from the graph."""

    question: str = Field(examples=["什么是 TTFT？"])
    lang: Literal["zh", "en"] = Field(description="Language of the question (and of the answer).")
    intent: IntentName = Field(examples=["definition"])

    @classmethod
    def of(cls, a: Answer) -> AskResponse:
        return cls(question=a.question, **answer_fields(a))


class ChatRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"message": "什么是 TTFT？"},
                {"message": "那它和 TPOT 有什么区别？", "session_id": "Vf3kq0-x2Y8dN1uZ4sQbwA"},
            ]
        },
    )

    message: str = Field(min_length=1, max_length=MAX_MESSAGE_CHARS, description="The user's message.")
    session_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_SESSION_ID_CHARS,
        description="Id returned by a previous reply; omit to start a conversation.",
    )
    stream: bool = Field(
        default=False,
        description="Answer with Server-Sent Events (`meta`, `delta`…, `citations`, `done`). "
        "`Accept: text/event-stream` does the same.",
    )


class ChatResponse(AnswerFields):
    session_id: str = Field(description="Send it back with the next message to continue the conversation.")
    session_reset: bool = Field(
        description="True when the given session_id was unknown or had expired: a new conversation started."
    )
    lang: Literal["zh", "en"]
    intent: IntentName

    @classmethod
    def of(cls, a: Answer, session_id: str, reset: bool) -> ChatResponse:
        return cls(session_id=session_id, session_reset=reset, **answer_fields(a))


# --- OpenAI-compatible ---------------------------------------------------------------------------


class OpenAIMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[dict[str, Any]] | None = Field(default=None, description="Text, or a list of parts.")

    def text(self) -> str:
        if self.content is None:
            return ""
        if isinstance(self.content, str):
            return self.content
        return "".join(str(p.get("text", "")) for p in self.content if p.get("type", "text") == "text")


class ChatCompletionRequest(BaseModel):
    """The subset of OpenAI's request this endpoint reads; other fields are accepted and ignored."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "examples": [{"model": "glossary-kg", "messages": [{"role": "user", "content": "什么是 TTFT？"}]}]
        },
    )

    model: str = Field(default="glossary-kg", max_length=200, description="Echoed back; not used.")
    messages: list[OpenAIMessage] = Field(min_length=1, max_length=MAX_OPENAI_MESSAGES)
    stream: bool = False


class CompletionMessage(BaseModel):
    role: Literal["assistant"] = "assistant"
    content: str


class CompletionChoice(BaseModel):
    index: int = 0
    message: CompletionMessage
    finish_reason: Literal["stop"] = "stop"


class CompletionUsage(BaseModel):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class GlossaryExtension(BaseModel):
    """What OpenAI's format has no field for: grounding and citations."""

    grounded: bool
    intent: IntentName
    lang: Literal["zh", "en"]
    terms: list[str]
    citations: list[CitationOut]
    suggestions: list[str]
    follow_ups: list[str]

    @classmethod
    def of(cls, a: Answer) -> GlossaryExtension:
        fields = answer_fields(a)
        return cls(**{name: fields[name] for name in cls.model_fields})


class ChatCompletion(BaseModel):
    id: str = Field(examples=["chatcmpl-3f2a9c"])
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    choices: list[CompletionChoice]
    usage: CompletionUsage
    glossary: GlossaryExtension


# --- web page ------------------------------------------------------------------------------------


class LayoutNode(BaseModel):
    id: str
    label: str
    labels: dict[str, str]
    x: float = Field(ge=0, le=1, description="Horizontal position in [0, 1].")
    y: float = Field(ge=0, le=1, description="Vertical position in [0, 1].")
    center: bool = Field(description="True for the term the layout is about.")


class LayoutEdge(BaseModel):
    source: str
    target: str
    type: Literal["related_to", "confused_with"]
    evidence: str
    doc: str


class TermLayout(BaseModel):
    """A term's neighbourhood with positions computed server-side (networkx spring layout)."""

    id: str
    nodes: list[LayoutNode]
    edges: list[LayoutEdge]
    truncated: bool = Field(description="True when some neighbours were left out (see `limit`).")
