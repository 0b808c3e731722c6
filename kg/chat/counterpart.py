"""Counterpart questions: the term that plays the anchor's role on another side.

"And AMD's counterpart to NCCL?", "它相当于 NVIDIA 那边的啥？", "And the output counterpart?",
"每 token 成本在电力那一侧对应的指标叫什么？": the question names (or points back at) an anchor term
and a *side* — a vendor, a platform, input or output, power — and asks for the term that does
on that side what the anchor does on its own. Retrieval ranks the anchor first (its name is in
the question), so the which-shape would answer with the anchor itself.

The answer is a graph neighbour of the anchor (any edge, mentioned-only nodes included: RCCL is
only mentioned, in NCCL's entry) that one clause of the sources ties to the side's words: a
clause of the neighbour's own definition, of the anchor's definition naming the neighbour, or
of a sentence mentioning the neighbour ("RCCL 是 AMD 的对应实现"). A contrast edge breaks ties
(counterparts are contrasts: ROCm / CUDA); otherwise the first neighbour wins only if it is the
only one with the side's words. No side, no anchor, or no neighbour carrying the side: None,
and the question goes through the usual pipeline.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kg.contrasts import opposite_names
from kg.store import Glossary
from kg.textnorm import fold

__all__ = [
    "asks_counterpart",
    "asks_for_one",
    "asks_opposite",
    "counterpart",
    "counterpart_in",
    "opposite",
    "side_words",
]

# the words that ask for a counterpart; Chinese "对应" alone also asks which phase or metric a
# term corresponds to ("TPOT 对应推理的哪个阶段"), so it counts only with a side ("AMD 那边")
_EN_ASKS = re.compile(
    r"\b(?:counterparts?|equivalents?|analogu?es?)\b"
    # "SGLang's version of that", "the 'wide' version of it" — not "which version of it targets
    # Hopper?", which asks for a version of the term itself
    r"|(?<!which )\b(?:version|implementation|variant|flavou?r)\s+of\b"
    # "Which library does AMD use instead of NCCL?": what a side uses in the named term's place
    # (a side must be the verb's subject: "What can I use instead of NCCL?" names none)
    r"|\b(?:does|do|did)\s+(?!i\b|we\b|you\b)[a-z0-9][a-z0-9-]*\s+(?:use|have|ship|offer)\b[^?]*\b(?:instead of|in place of)\b"
)
_ZH_ASKS = re.compile(r"对应|相当于|对标")
_ZH_SIDE = re.compile(
    r"(?:在|到|换到|放到)?\s*(?P<side>[a-z0-9][a-z0-9 .-]*|[\u4e00-\u9fff]{1,4}?)\s*(?:那边|那一侧|那侧|一侧|这边|平台上|阵营|家的|卡上)"
)
_ZH_ON_LATIN = re.compile(
    r"(?<![a-z0-9])(?P<side>[a-z][a-z0-9.-]*)\s*(?:上|平台|卡)(?=\s*(?:对应|相当于|的))"
)
_ZH_NEXT_TO = re.compile(
    r"(?:对标|相当于)[^，,。？?]*?的(?P<side>[\u4e00-\u9fff]{2,6}?)(?:是|叫|有|吗|呢|？|\?|$)"
)

_EN_STOP = frozenset(
    re.split(
        r"\s+",
        "a an and the its it this that their what whats which who is are was s to of on in for at from "
        "with by as side platform version thing one there any counterpart counterparts equivalent "
        "equivalents analog analogs analogue analogues own called name named does do did so ok then also "
        "version versions implementation implementations variant variants flavor flavour",
    )
)
_ZH_SIDE_STOP = frozenset({"它", "这个", "那个", "其", "业界", "我们", "这"})

_CLAUSE = re.compile(r"[^，,。；;：:！!？?\n]+")


def asks_for_one(folded: str) -> bool:
    """Whether the question asks for a counterpart at all ("version of", "对应"), a side named or not."""
    return bool(_EN_ASKS.search(folded) or _ZH_ASKS.search(folded))


def asks_counterpart(folded: str) -> bool:
    """Whether the question asks for a counterpart on some side ("AMD's counterpart to NCCL",
    "NCCL 在 AMD 那边的对应实现"); see :func:`side_words`."""
    return asks_for_one(folded) and bool(side_words(folded, ()))


def side_words(folded: str, names: Sequence[tuple[int, int]]) -> list[str]:
    """The words that name the side the counterpart is on: English words of the question other
    than the anchor's name (*names*: folded ranges to leave out) and frame words ("amd", "output",
    "nvidia"); in Chinese, what stands before 那边 / 那一侧 / 平台上 ("AMD", "电力"), or what
    "对标 X 的…" asks for ("开放标准"). Empty when the question names no side."""
    text = "".join(" " if any(a <= i < b for a, b in names) else ch for i, ch in enumerate(folded))
    words: list[str] = []
    if _EN_ASKS.search(text):
        for w in re.findall(r"[a-z][a-z0-9]*", text.replace("'s", " ").replace("’s", " ")):
            if w not in _EN_STOP and len(w) > 1:
                words.append(w)
    if _ZH_ASKS.search(text):
        for m in _ZH_SIDE.finditer(text):
            # "成本在电力那一侧": the side is what follows the last 在 / 到
            side = re.split(r"[在到]", m.group("side"))[-1].strip()
            if side and side not in _ZH_SIDE_STOP:
                words.append(side)
        for m in _ZH_ON_LATIN.finditer(text):
            words.append(m.group("side"))
        for m in _ZH_NEXT_TO.finditer(text):
            words.append(m.group("side"))
    return list(dict.fromkeys(words))


def _clauses(text: str) -> list[str]:
    return [fold(c) for c in _CLAUSE.findall(text)]


def _names(glossary: Glossary, term_id: str) -> list[str]:
    return [fold(n) for n in glossary.terms[term_id].all_names() if n.strip()]


def _side_hits(glossary: Glossary, anchor: str, other: str, words: Sequence[str]) -> int:
    """How many side words one clause ties to *other*: a clause of its own definitions, a clause
    of the anchor's definitions that names it, or a clause of a sentence mentioning it."""
    term = glossary.terms[other]
    names = _names(glossary, other)
    clauses = [c for d in term.definitions for c in _clauses(d.text)]
    clauses += [
        c for d in glossary.terms[anchor].definitions for c in _clauses(d.text) if any(n in c for n in names)
    ]
    clauses += [
        c for site in term.mentioned_in for c in _clauses(site.sentence) if any(n in c for n in names)
    ]
    label_text = " ".join(names)
    best = 0
    for c in [*clauses, label_text]:
        best = max(best, sum(1 for w in words if w in c))
    return best


def counterpart(
    glossary: Glossary, anchor: str, words: Sequence[str], exclude: Sequence[str] = ()
) -> str | None:
    """The neighbour of *anchor* that the sources tie to the side *words*, or None (see the
    module docstring). *glossary* is the whole graph, mentioned-only nodes included; *exclude*:
    terms that are no answer (the side itself, when a term names it)."""
    if not words or anchor not in glossary.terms:
        return None
    contrasted = set(glossary.neighbours(anchor, types=("confused_with",)))
    scored = []
    for other in glossary.neighbours(anchor):
        if other == anchor or other in exclude:
            continue
        hits = _side_hits(glossary, anchor, other, words)
        if hits:
            scored.append((hits, other in contrasted, other))
    if not scored:
        return None
    scored.sort(key=lambda x: (-x[0], not x[1]))
    best = scored[0]
    if len(scored) > 1 and scored[1][:2] == best[:2]:
        return None  # two neighbours fit as well: no guess
    return best[2]


#: "And the opposite kind of provider?", "跟它相反的那种呢？": the term the sources set against it.
#: ("the opposite of a hot take" names its own anchor, which no term is: not this question)
_OPPOSITE = re.compile(
    r"\bopposites?\b(?! of (?!it\b|that\b|this\b|them\b|those\b))|\bthe other (?:way|side)\b|相反|对立面|反过来的"
)


def asks_opposite(folded: str) -> bool:
    """Whether the question asks for the term opposite the anchor ("the opposite kind of provider")."""
    return bool(_OPPOSITE.search(folded))


def opposite(glossary: Glossary, anchor: str) -> str | None:
    """The one term a contrast edge sets against *anchor* (Hyperscaler for Neocloud: "和专注 GPU 的
    neocloud 相对"), or None when there is none or more than one."""
    if anchor not in glossary.terms:
        return None
    contrasted = [t for t in glossary.neighbours(anchor, types=("confused_with",)) if t != anchor]
    if len(contrasted) > 1:
        # several contrasts ("离线推理": online inference, and latency, which it does not aim at):
        # the one whose name differs from the anchor's by an opposite modifier (在线 / 离线)
        me = glossary.terms[anchor]
        contrasted = [t for t in contrasted if opposite_names(me, glossary.terms[t])]
    return contrasted[0] if len(contrasted) == 1 else None


def _suffix_shared(a: str, b: str) -> bool:
    """Two Latin names built on one head ("PagedAttention" / "RadixAttention", "NCCL" / "RCCL")."""
    x, y = fold(a), fold(b)
    if not (x.isascii() and y.isascii()) or x == y:
        return False
    n = 0
    while n < min(len(x), len(y)) and x[-1 - n] == y[-1 - n]:
        n += 1
    return n >= 3 and n < min(len(x), len(y))


def counterpart_in(glossary: Glossary, anchor: str, side: str) -> str | None:
    """The term that does in *side*'s world what *anchor* does ("What's SGLang's version of that?"
    after PagedAttention → RadixAttention): a neighbour of *side* most like *anchor* — contrasted
    with it, filed in its category, sharing its neighbours (Jaccard) or named on the same head
    ("…Attention"). None unless one neighbour stands out (more than a shared category)."""
    if anchor not in glossary.terms or side not in glossary.terms or anchor == side:
        return None
    near_anchor = set(glossary.neighbours(anchor))
    if side in near_anchor:
        # the sources link the side to the term itself: "TensorRT-LLM's implementation of continuous
        # batching" is continuous batching (its in-flight batching), no other term
        return None
    contrasted = set(glossary.neighbours(anchor, types=("confused_with",)))
    cats = set(glossary.terms[anchor].categories)
    anchor_names = glossary.terms[anchor].all_names()
    scored: list[tuple[float, str]] = []
    for z in glossary.neighbours(side):
        if (
            z in (anchor, side)
            or z not in glossary.terms
            or anchor in glossary.neighbours(z, types=("related_to",))
        ):
            continue  # a term linked to the anchor by use (vLLM uses PagedAttention) is no counterpart
        near = set(glossary.neighbours(z))
        score = 2.0 * (z in contrasted) + 1.0 * bool(cats & set(glossary.terms[z].categories))
        score += len(near & near_anchor) / len(near | near_anchor) if near | near_anchor else 0.0
        score += 1.0 * any(_suffix_shared(a, b) for a in anchor_names for b in glossary.terms[z].all_names())
        scored.append((score, z))
    scored.sort(key=lambda x: (-x[0], x[1]))
    if not scored or scored[0][0] < 1.5 or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None
    return scored[0][1]
