"""The chatbot: answers about the glossary, grounded in the graph, with citations.

>>> from kg.chat import answer, ConversationState                      # doctest: +SKIP
>>> a = answer(glossary, engine, "什么是 TTFT？", context=ConversationState())  # doctest: +SKIP

Modules: :mod:`.intents` (question shapes), :mod:`.linking` (names first, search second),
:mod:`.compose` (answer text from quoted graph text), :mod:`.bot` (the pipeline),
:mod:`.sessions` (bounded conversations in memory, SQLite or Redis), :mod:`.generator` (optional LLM
rephrasing), :mod:`.evaluate` (the chat evaluation). No FastAPI here.
"""

from kg.chat.bot import answer
from kg.chat.model import INTENTS, Answer, Citation, ConversationState, Intent

__all__ = ["INTENTS", "Answer", "Citation", "ConversationState", "Intent", "answer", "forget_artifacts"]


def forget_artifacts() -> None:
    """Drop the chat's caches keyed by a glossary or an engine (names, vocabularies): a server
    that has swapped its artifact calls this so the old one can be freed (they refill from the
    new one on the next question)."""
    from kg.chat import compose, linking, normalize, refusal

    for cached in (
        compose._sharers,
        linking._cached_vocabulary,
        normalize.known_words,
        normalize._zh_names,
        refusal.name_parts,
        refusal.text_words,
    ):
        cached.cache_clear()
