"""Which definition to show for a search hit, trimmed for a result list.

The dense stage tells which passage matched (``"{term_id}#def{n}"`` → ``definitions[n]``);
otherwise the first definition in the wanted language (the query's, unless one is asked
for), otherwise the first definition at all. See :mod:`kg.search.passages` for passage ids.
"""

from __future__ import annotations

from kg.model import Definition, Term

SNIPPET_CHARS = 160
ELLIPSIS = "…"


def passage_definition(term: Term, passage_id: str | None) -> Definition | None:
    """The definition a passage id points at (``"vllm#def1"`` → ``definitions[1]``), if any."""
    if not passage_id:
        return None
    tid, _, part = passage_id.partition("#")
    if tid != term.id or not part.startswith("def") or not part[3:].isdigit():
        return None
    n = int(part[3:])
    return term.definitions[n] if n < len(term.definitions) else None


def best_definition(term: Term, passage_id: str | None, lang: str) -> Definition | None:
    """The matched passage's definition, else the first in *lang*, else the first one."""
    found = passage_definition(term, passage_id)
    if found is not None:
        return found
    for d in term.definitions:
        if d.lang == lang:
            return d
    return term.definitions[0] if term.definitions else None


def trim(text: str, limit: int = SNIPPET_CHARS) -> str:
    """*text* cut to at most *limit* characters, at a word boundary for Latin text, with "…"."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit * 3 // 4 and cut[space - 1 : space].isascii():
        cut = cut[:space]
    return cut.rstrip(" ,;:，；：、") + ELLIPSIS


def snippet(term: Term, passage_id: str | None, lang: str, limit: int = SNIPPET_CHARS) -> str | None:
    """The trimmed text of :func:`best_definition`; ``None`` for a term without definitions."""
    d = best_definition(term, passage_id, lang)
    return trim(d.text, limit) if d is not None else None
