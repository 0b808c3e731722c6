"""A name used as a modifier: "What's DeepSeek's GEMM library that does well on FP8?"

A definition frame ("What is …", "What's the …") usually asks for the term its slot names. When
the name is followed by a class noun the term is not ("GEMM library", "KV cache library that
offloads to SSD", "TensorRT engine file"), the name only narrows the class, and the question asks
for another term: the library, the file. It is then a which-question, answered by the term whose
definition fits (the same question asked as "Which GEMM library does well on FP8?").

A class noun that is the term's own kind ("the vLLM engine", "the CUDA toolkit", "the NVLink
interconnect") keeps the question a definition: the term's own names or the first clause of one
of its definitions use the noun (or its Chinese word), so the phrase is just the term with its
kind spelled out.
"""

from __future__ import annotations

import re

from kg.chat.genus import CLASS_WORDS, called_a
from kg.chat.intents import Parsed
from kg.chat.linking import Analysis
from kg.store import Glossary
from kg.textnorm import fold

__all__ = ["names_a_kind_of_thing"]

_CLASS = "|".join(sorted(CLASS_WORDS, key=len, reverse=True))
#: After the name: a class noun (or its plural), then a relative clause that describes it, or the
#: end of the question. "What's the MXFP4 format used for?" asks about MXFP4: no relative clause.
_AFTER_NAME = re.compile(
    rf"^\s*(?P<cls>{_CLASS})(?:e?s)?(?P<rel>\s+(?:that|which|designed for|built for|made for|meant for)\b)?"
    r"(?(rel)|\s*[?.!]*\s*$)"
)
#: What the slot may hold before the name: an article, a possessor ("DeepSeek's"), an adjective.
_BEFORE_NAME = re.compile(
    r"^(?:(?:the|a|an|this|that)\s+)?(?P<owner>[a-z0-9-]+(?:'s|s')\s+)?(?:[a-z0-9-]+\s+)?$"
)


def names_a_kind_of_thing(glossary: Glossary, parsed: Parsed, analysis: Analysis, asked: str) -> bool:
    """A definition question whose slot is a name used as the modifier of a class noun the term is
    not ("What's DeepSeek's GEMM library that does well on FP8?"): it asks for another term.

    *asked* is the question as typed: normalising drops the possessive that marks an owner.
    """
    if parsed.intent != "definition" or parsed.facet is not None or parsed.pronouns:
        return False
    if len(parsed.slots) != 1:
        return False
    slot = parsed.slots[0]
    f = parsed.folded
    inside = [s for s in analysis.spans if s.start >= slot.start and s.end <= slot.end]
    if not inside:
        return False
    first = inside[0]
    before = _BEFORE_NAME.match(f[slot.start : first.start])
    m = _AFTER_NAME.match(f[first.end : slot.end])
    if before is None or m is None:
        return False
    name = re.escape(f[first.start : first.end])
    owner = before.group("owner") or re.search(rf"[a-z0-9]['’]s\s+{name}\b", fold(asked))
    if not (owner or m.group("rel")):
        return False  # "What is the MXFP4 format?": the name with its kind, nothing that narrows it
    if any(s.start < first.end + m.end() and s.start >= first.end for s in inside[1:]):
        return False  # the class noun is (part of) another name the question links
    return not called_a(glossary, first.term_id, m.group("cls"))
