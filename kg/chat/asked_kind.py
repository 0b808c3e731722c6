"""The one term of the kind a follow-up asks for that the graph links to the term under discussion.

"Which collective op does it lean on?" after tensor parallelism asks for a collective; of the terms
the graph links to tensor parallelism, one calls itself a collective by its own account
(AllReduce: "…集合通信…"), so it is the answer. After expert parallelism the same question is
answered by All-to-All, after a GPU "Which architecture is it built on?" by its architecture.

Decided only when an English question asks "which <kind>" with the pronoun as the subject
of its verb ("does it lean on"), and exactly one linked term is of that kind; with none or several
the follow-up ranker's choice stands. Chinese ones ("它用哪种集合通信把结果汇总？") keep the rule
of kg/chat/bot.py that quotes the referent first when its own text states the answer.
"""

from __future__ import annotations

import re

from kg.chat.context import Ctx
from kg.chat.genus import CLASS_WORDS, own_account
from kg.store import Glossary
from kg.textnorm import fold

__all__ = ["KIND_WORDS", "linked_of_asked_kind"]

#: The kinds a follow-up may ask for, with the words the sources use for them: the class nouns of
#: :data:`kg.chat.genus.CLASS_WORDS` and two the follow-ups ask for that no name modifies.
KIND_WORDS: dict[str, tuple[str, ...]] = {
    **CLASS_WORDS,
    "collective": ("collective", "集合通信"),
    "architecture": ("architecture", "架构"),
}
_ALT = "|".join(sorted({w for ws in KIND_WORDS.values() for w in ws if w.isascii()}, key=len, reverse=True))
_KEY = {w: k for k, ws in KIND_WORDS.items() for w in ws}
#: "which collective op does it lean on?", "which GPU architecture is it built on?": the kind, then
#: an auxiliary and the pronoun as the subject. Not "What engine does it plug into?", which the
#: blind writers of one dev split answer with the term under discussion first (LMCache, then vLLM).
_WHICH_KIND = rf"\bwhich\s+(?:\w+\s+)?(?P<kind>{_ALT})(?:s|es)?(?:\s+(?:op|ops|operation|operations))?\s+"
_EN = re.compile(
    _WHICH_KIND + r"(?:does|do|did|is|was|would|will|can)\s+(?:it|that one|this one|that|this)\b"
)
#: The same question asked again of a name: "which collective op does pipeline parallelism lean on?"
_EN_NAMED = re.compile(_WHICH_KIND + r"(?:does|do|did|is|was|would|will|can)\s+\S")


#: Kind words that may follow the asked one without making it a modifier: a collective is a
#: "集合通信原语" (a primitive) too, where a "集合通信库" is a library.
_SAME_KIND: dict[str, frozenset[str]] = {"collective": frozenset({"primitive", "原语", "操作", "operation"})}
_OTHER_KINDS = sorted({w for ws in KIND_WORDS.values() for w in ws}, key=len, reverse=True)
_CLAUSE_MARK = re.compile(r"[，,。；;：:（()）/]")


def _is_head(text: str, word: str, key: str) -> bool:
    """*word* occurs in *text* as the kind itself, not as a modifier of another kind word after it
    in the same clause ("集合通信库", "collective communications library": a library)."""
    same = _SAME_KIND.get(key, frozenset()) | set(KIND_WORDS[key])
    for m in re.finditer(re.escape(word), text):
        after = _CLAUSE_MARK.split(text[m.end() : m.end() + 24], maxsplit=1)[0]
        if not any(w in after for w in _OTHER_KINDS if w not in same):
            return True
    return False


def _of_kind(glossary: Glossary, term_id: str, key: str) -> bool:
    """*term_id* is a *key* by its own account: its names or the first sentence of a definition
    use the kind's word as their head."""
    return any(_is_head(t, w, key) for t in own_account(glossary, term_id) for w in KIND_WORDS[key] if w in t)


def linked_of_asked_kind(ctx: Ctx, question: str) -> str | None:
    """The one neighbour of the referent that is of the kind an English "which <kind> does it …"
    follow-up asks for, or None. "And pipeline parallelism?" after such a question answered in the
    which shape asks it again of the new name (:attr:`Ctx.reasked`: the parsed text is the previous
    question with the name in place of its pronoun), and keeps that shape: AllGather."""
    m = _EN.search(fold(question)) if ctx.pronoun is not None else None
    subject = _referent(ctx) if m is not None else None
    if m is None and ctx.pronoun is None and _after_which(ctx):
        m = _EN_NAMED.search(ctx.parsed.folded)
        # the name asked about, not one inside the kind's phrase ("op" names operator)
        named = {s.term_id for s in ctx.analysis.spans if m is not None and s.start >= m.end() - 1}
        subject = named.pop() if len(named) == 1 else None
    if m is None or subject is None:
        return None
    key = _KEY[m.group("kind")]
    g = ctx.glossary
    if _of_kind(g, subject, key):
        return None  # "Which engine is it?" of an engine: about the referent itself
    found = sorted(t for t in g.neighbours(subject) if t in g.terms and _of_kind(g, t, key))
    return found[0] if len(found) == 1 else None


def _referent(ctx: Ctx) -> str | None:
    """The one term the question's pronoun points at in the conversation."""
    if not ctx.used_context or not ctx.referent or len(ctx.referents) >= 2:
        return None
    return ctx.referent


def _after_which(ctx: Ctx) -> bool:
    """The question is the previous one asked again of a new name, after an answer in the which shape."""
    state = ctx.state
    return ctx.reasked and state is not None and bool(state.turns) and state.turns[-1].intent == "which"
