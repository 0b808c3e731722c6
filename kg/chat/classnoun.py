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

__all__ = ["describes_a_kind", "names_a_kind_of_thing"]

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


#: Words that open an elliptical follow-up before its noun phrase ("and …", "back to engines: …").
_LEAD_IN = r"^(?:(?:and|so|ok|okay|also|then|now|what about|how about|back to [^:,;]+[:,;])\s*)*"
#: A bare noun phrase ending in a class noun, with an optional clause or phrase after it that
#: describes it ("the runs-anywhere C++ one that uses GGUF" has no class noun; "their tuned kernel
#: library for Instinct chips" has): no verb of the question's own.
_KIND_PHRASE = re.compile(
    _LEAD_IN
    + r"(?:the |a |an |their |its |our |your |[a-z0-9.+-]+'s )?"
    + r"(?P<mods>(?:(?!(?:what|which|who|how|why|where|when|is|are|was|does|do|did|can)\b)[a-z0-9.+/-]+ ){0,4}?)"
    + rf"(?P<cls>{_CLASS})(?:e?s)?"
    + r"(?P<rest>(?: (?:that|which|for|from|used|with|on|in|of|built|made|designed|strong|good|known)\b[^?]*)?)"
    + r"\s*\??\s*$"
)


def describes_a_kind(glossary: Glossary, parsed: Parsed, analysis: Analysis, asked: str) -> bool:
    """An elliptical English follow-up that is a noun phrase naming a class ("and their tuned
    kernel library for Instinct chips?", "deepseek's gemm kernel library that's strong on fp8?"):
    it asks which term of that class fits, as "Which kernel library …?" would. A phrase whose
    name is itself of that class and says nothing more ("the vLLM engine?") asks about that name.
    """
    if parsed.intent not in ("definition", "unknown") or parsed.facet is not None:
        return False
    m = _KIND_PHRASE.match(fold(asked).strip())
    if m is None:
        return False
    if m.group("rest").strip():
        return True
    return not any(called_a(glossary, s.term_id, m.group("cls")) for s in analysis.spans)
