"""Which of two named terms a comparative question picks, read from what the sources compare.

"NVLink 跟 PCIe 哪个快？" names two terms and asks which one has a property. When one side's own
text ranks it against the other on that property ("比 NVLink 慢但通用" in *PCIe*), the answer
follows from the text: the subject when the sentence uses the question's word ("快" … "更快"),
the other side when it uses the opposite word ("慢"). Nothing is decided when the sources say
nothing comparative about the pair, or when the question's word is not one of
:data:`OPPOSITES`; the search's order decides then (kg/chat/decide.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kg.store import Glossary
from kg.textnorm import fold

__all__ = ["OPPOSITES", "as_which", "compared_choice"]

#: A property's words and its opposite's, in both languages, as a question asks them ("哪个更快",
#: "which is faster") and a definition compares them ("比 X 慢", "slower than X").
OPPOSITES: tuple[tuple[frozenset[str], frozenset[str]], ...] = tuple(
    (frozenset(a), frozenset(b))
    for a, b in (
        (("快", "faster"), ("慢", "slower")),
        (("高", "higher"), ("低", "lower")),
        (("大", "larger", "bigger"), ("小", "smaller")),
        (("强", "stronger"), ("弱", "weaker")),
        (("多", "more"), ("少", "less", "fewer")),
        (("贵", "costlier", "pricier"), ("便宜", "cheaper")),
    )
)

_ASKED_ZH = re.compile(
    r"哪(?:个|一个|种|一种)(?:的)?(?:[^，。？?]{0,8}?)更?(快|慢|高|低|大|小|强|弱|多|少|贵|便宜)"
)
_ASKED_EN = re.compile(
    r"\bwhich\b.{0,40}?\b(faster|slower|higher|lower|larger|smaller|bigger|stronger|weaker|more|less|fewer|"
    r"cheaper|costlier|pricier)\b"
)


def _asked_word(folded: str) -> str | None:
    m = _ASKED_ZH.search(folded) or _ASKED_EN.search(folded)
    return m.group(1) if m else None


def _stated(sentence: str, other_names: Sequence[str], words: frozenset[str]) -> bool:
    """Whether *sentence* ranks its subject against the other term with one of *words*: "比 NVLink
    慢", "比 NVLink 更慢", "slower than NVLink"."""
    s = fold(sentence)
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    for name in other_names:
        n = re.escape(fold(name))
        if re.search(rf"比\s*{n}\s*(?:还|更|要)?\s*(?:{alternatives})", s):
            return True
        if re.search(rf"\b(?:{alternatives})\s+than\s+(?:the\s+)?{n}\b", s):
            return True
    return False


def compared_choice(glossary: Glossary, folded: str, listed: Sequence[str]) -> str | None:
    """The one of the two *listed* terms the question's comparative word picks, by the
    sources' own comparison of the pair (see the module docstring); None when they say nothing."""
    if len(listed) != 2:
        return None
    word = _asked_word(folded)
    if word is None:
        return None
    sides = next(
        ((same, other) for p, q in OPPOSITES for same, other in ((p, q), (q, p)) if word in same), None
    )
    if sides is None:
        return None
    same, opposite = sides
    a, b = listed
    for subject, other in ((a, b), (b, a)):
        names = glossary.terms[other].all_names()
        for edge in glossary.edges_of(subject):
            if {edge.source, edge.target} != {subject, other}:
                continue
            for item in edge.items:
                if item.subject != subject:
                    continue
                if _stated(item.text, names, same):
                    return subject
                if _stated(item.text, names, opposite):
                    return other
    return None


#: "What's faster, NVLink or PCIe?", "what is better: GPTQ or AWQ?": a comparative, then two
#: alternatives — the "which" question, asked with "what".
_WHAT_CHOICE = re.compile(
    r"^(\s*)what(?:'s|\s+is)(?=\s+(?:better|worse|best|more\s+\w+|less\s+\w+|faster|slower|higher|lower|larger|"
    r"bigger|smaller|stronger|weaker|cheaper|newer|older|quicker|easier|simpler|lighter|heavier|wider|longer|"
    r"shorter|closer|greater|denser)\b[^?？]*?[,:]\s*\S[^?？]*\bor\b)",
    re.IGNORECASE,
)


def as_which(text: str) -> str:
    """*text* with a "what" that asks to choose between two alternatives written as "which"."""
    return _WHAT_CHOICE.sub(lambda m: f"{m.group(1)}Which is", text, count=1)
