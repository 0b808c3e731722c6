"""Assertions shared by the chat tests: an answer says nothing the graph does not."""

from __future__ import annotations

import re
from pathlib import Path

from kg.chat.model import Answer, ConversationState
from kg.search.engine import SearchEngine
from kg.store import Glossary
from kg.textnorm import fold

SOURCES = Path(__file__).resolve().parents[2] / "corpus" / "sources"
_QUOTED = re.compile(r"「([^」]*)」|\u201c([^\u201d]*)\u201d")


def source_text(glossary: Glossary, source_id: str) -> str:
    name = Path(glossary.sources[source_id]["file"]).name
    return (SOURCES / name).read_text(encoding="utf-8")


def assert_grounded(ans: Answer, glossary: Glossary) -> None:
    """Every citation quotes the graph verbatim; every quote and marker in the text is a citation."""
    assert ans.grounded and ans.citations, ans.answer
    by_marker = {c.marker: c for c in ans.citations}
    assert sorted(by_marker) == list(range(1, len(ans.citations) + 1))
    for c in ans.citations:
        assert c.term_id in glossary.terms
        if c.kind == "edge":
            assert c.edge is not None
            etype, src, tgt = c.edge
            # the evidence, or the part of it the answer does not quote yet (Composer.fresh_part):
            # always a verbatim piece of one evidence item
            assert any(
                e.type == etype
                and {e.source, e.target} == {src, tgt}
                and any(c.quote in x.text and x.doc == c.source for x in e.items)
                for e in glossary.edges
            ), c
        elif c.kind == "mention":
            # a sentence mentioning a name the glossary does not define: one of its mentions, cited
            # under the entry whose text holds it (else under the mentioned name itself)
            sites = [
                (t, m)
                for t in glossary.terms.values()
                if t.kind == "mentioned" and not t.definitions
                for m in t.mentioned_in
                if (m.source, m.line, m.sentence) == (c.source, c.line, c.quote)
            ]
            assert any(c.term_id in (m.term, t.id) for t, m in sites), c
            assert c.quote in source_text(glossary, c.source)
        else:
            term = glossary.terms[c.term_id]
            assert term.kind == "defined", c
            texts = [d.text for d in term.definitions if d.source == c.source] + [
                d.note for d in term.definitions if d.source == c.source and d.note
            ]
            # a definition, a note, or the member's own part of a jointly stated definition
            # (kg.chat.compose.member_part): always a verbatim piece of one of them
            assert c.quote in texts or any(c.quote in x for x in texts), c
            assert c.quote in source_text(glossary, c.source)  # the words really are the source's
        assert f"[{c.marker}]" in ans.answer, f"citation {c.marker} is never cited"
    for m in re.findall(r"\[(\d{1,3})\]", ans.answer):
        assert int(m) in by_marker, f"marker [{m}] has no citation"
    for line in ans.answer.splitlines():
        quoted = _QUOTED.findall(line)
        if not quoted:
            continue
        if all(fold(a or b) in fold(ans.question) for a, b in quoted):
            continue  # “…” around the user's own words ("no term matching “x”") is not a quote
        assert re.search(r"\[\d{1,3}\]", line), f"a quote without a citation marker: {line!r}"


def assert_refusal(ans: Answer, glossary: Glossary) -> None:
    """Not grounded, no citations, nearest terms suggested, and no definition text anywhere."""
    assert not ans.grounded, ans.answer
    assert ans.citations == []
    assert ans.terms == []
    assert ans.suggestions and all(s in glossary.terms for s in ans.suggestions)
    for tid in ans.suggestions:
        for d in glossary.terms[tid].definitions:
            assert d.text not in ans.answer


def converse(
    glossary: Glossary, engine: SearchEngine, *questions: str
) -> tuple[list[Answer], ConversationState]:
    """Ask *questions* in one conversation: every answer, and the conversation's state after them."""
    from kg.chat.bot import answer

    state = ConversationState()
    return [answer(glossary, engine, q, context=state) for q in questions], state
