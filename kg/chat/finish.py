"""The last stage: the answer text as the asker reads it.

- No line is printed twice (a definition quoted once is never repeated by a later line).
- A question in Traditional characters gets its answer text in Traditional characters
  (OpenCC ``s2t``); the citations keep the sources' exact quotes.
"""

from __future__ import annotations

from kg.chat.model import Answer
from kg.chat.normalize import Question, to_traditional

__all__ = ["polish"]


def _dedupe(text: str) -> str:
    seen: set[str] = set()
    out = []
    for line in text.split("\n"):
        key = line.strip()
        if key and key in seen:
            continue
        seen.add(key)
        out.append(line)
    return "\n".join(out)


def polish(result: Answer, question: Question) -> Answer:
    """Deduplicate the answer's lines, restore the asker's script and original wording."""
    result.question = question.original
    result.answer = _dedupe(result.answer)
    if question.traditional:
        result.answer = to_traditional(result.answer)
        result.script = "traditional"
    return result
