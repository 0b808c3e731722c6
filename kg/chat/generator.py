"""Optional rephrasing by an OpenAI-compatible LLM, constrained to the retrieved context.

When configured (``GLOSSARY_LLM_BASE_URL``), a grounded retrieval answer and its numbered
citations are sent to ``POST {base}/v1/chat/completions`` with instructions to answer only
from them and to keep the ``[n]`` markers. The reply replaces the answer text only if it
is non-empty and cites at least one of the given markers (and none that do not exist);
on any error, timeout or unusable reply the retrieval answer is returned unchanged with a
warning. Refusals (ungrounded answers) are never sent: there is nothing to ground them.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

from kg.chat.model import Answer

if TYPE_CHECKING:
    import httpx

__all__ = ["LLMGenerator", "chat_completions_url"]

_MARKER = re.compile(r"\[(\d{1,3})\]")

_SYSTEM = {
    "zh": (
        "你是一个术语表问答助手。只能使用下面“资料”里的内容回答，不要加入资料以外的任何事实。"
        "引用资料时保留方括号编号，例如 [1]。资料不足以回答时，就说词表没有相关内容。用中文回答。"
    ),
    "en": (
        "You answer questions about a glossary. Use ONLY the numbered context below; add no fact that "
        "is not in it. Keep the citation markers such as [1] after every statement taken from the "
        "context. If the context does not answer the question, say the glossary does not cover it. "
        "Answer in English; the context is mostly Chinese: translate faithfully and keep the markers."
    ),
}


def chat_completions_url(base_url: str) -> str:
    """``http://h:p`` or ``http://h:p/v1`` → ``http://h:p/v1/chat/completions``."""
    base = base_url.rstrip("/")
    if base.endswith("/chat/completions"):
        return base
    if not base.endswith("/v1"):
        base += "/v1"
    return base + "/chat/completions"


class LLMGenerator:
    """Rephrase grounded answers with an OpenAI-compatible chat model (sync, short timeout)."""

    def __init__(
        self,
        base_url: str,
        *,
        model: str = "default",
        api_key: str | None = None,
        timeout: float = 5.0,
        max_tokens: int = 800,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        import httpx  # only needed when an LLM is configured

        self.url = chat_completions_url(base_url)
        self.model = model
        self.timeout = timeout
        self.max_tokens = max_tokens
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(timeout=timeout, headers=headers, transport=transport)

    def close(self) -> None:
        self._client.close()

    def messages(self, ans: Answer) -> list[dict[str, str]]:
        """The prompt: instructions, the numbered quotes, the retrieval draft, the question."""
        lines = [f"[{c.marker}] ({c.term_id}, source {c.source}, {c.kind}) {c.quote}" for c in ans.citations]
        context = "\n".join(lines)
        user = (
            f"Context:\n{context}\n\nDraft answer built from the context:\n{ans.answer}\n\n"
            f"Question: {ans.question}"
        )
        return [{"role": "system", "content": _SYSTEM[ans.lang]}, {"role": "user", "content": user}]

    def payload(self, ans: Answer) -> dict[str, Any]:
        return {
            "model": self.model,
            "messages": self.messages(ans),
            "temperature": 0,
            "max_tokens": self.max_tokens,
            "stream": False,
        }

    def rewrite(self, ans: Answer) -> Answer:
        """*ans* with the LLM's text, or *ans* unchanged plus a warning when that fails."""
        if not ans.grounded or not ans.citations:
            return ans
        import httpx

        try:
            resp = self._client.post(self.url, json=self.payload(ans))
            resp.raise_for_status()
            text = str(resp.json()["choices"][0]["message"]["content"] or "").strip()
        except httpx.TimeoutException:
            return _warn(ans, f"llm timed out after {self.timeout:g} s; retrieval answer returned")
        except (httpx.HTTPError, ValueError, KeyError, IndexError, TypeError) as exc:
            return _warn(ans, f"llm unavailable ({type(exc).__name__}); retrieval answer returned")
        problem = check_markers(text, len(ans.citations))
        if problem:
            return _warn(ans, f"llm answer dropped: {problem}; retrieval answer returned")
        if ans.script == "traditional":  # the asker wrote Traditional characters: so does the answer
            from kg.chat.normalize import to_traditional

            text = to_traditional(text)
        return dataclasses.replace(ans, answer=text, generator="llm")


def check_markers(text: str, n_citations: int) -> str | None:
    """Why an LLM reply cannot be used (no text, no marker, unknown markers), or None."""
    if not text:
        return "empty reply"
    markers = {int(m) for m in _MARKER.findall(text)}
    if not markers:
        return "no citation markers"
    bad = sorted(m for m in markers if not 1 <= m <= n_citations)
    if bad:
        return f"unknown citation markers {bad}"
    return None


def _warn(ans: Answer, message: str) -> Answer:
    return dataclasses.replace(ans, warnings=[*ans.warnings, message])
