"""The shape stage: what to quote for each kind of question.

One module per shape — :mod:`.definition` (definition, names, abbreviation, bare names),
:mod:`.comparison`, :mod:`.relation`, :mod:`.listing`, :mod:`.howto` (how/why and "which …")
— over the helpers of :mod:`.common`. A shape receives a question the decision stage chose to
answer; it refuses only when nothing in the question, the conversation or the search names a
term it can quote.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kg.chat.compose import t
from kg.chat.context import Ctx
from kg.chat.model import Answer
from kg.chat.shapes.common import refuse
from kg.chat.shapes.comparison import comparison
from kg.chat.shapes.definition import abbreviation, definition
from kg.chat.shapes.howto import howto, which
from kg.chat.shapes.listing import listing
from kg.chat.shapes.relation import relation

__all__ = ["clarify", "shape"]

_HANDLERS: dict[str, Callable[[Ctx], Answer]] = {
    "definition": definition,
    "abbreviation": abbreviation,
    "comparison": comparison,
    "relation": relation,
    "listing": listing,
    "howto_why": howto,
    "which": which,
}


def unknown(ctx: Ctx) -> Answer:
    """No question frame: a bare name ("TTFT"), an elliptical follow-up, or chit-chat."""
    if ctx.analysis.spans or (ctx.pronoun is not None and ctx.referent):
        other = _elliptical_comparison(ctx)
        if other is not None:
            # "How is it different from shadow traffic?" … "And from blue-green deployments?"
            ctx.referents = other
            return comparison(ctx)
        if (
            ctx.referent
            and not ctx.analysis.spans
            and ctx.state is not None
            and ctx.state.last_intent == "relation"
        ):
            return relation(ctx)
        return definition(ctx)
    if ctx.in_domain:
        # no frame and no name, but the decision stage found it in the domain ("pagedattn",
        # "I keep seeing a Pareto frontier on the charts …"): retrieval's best term
        return definition(ctx)
    return refuse(ctx)


_ELLIPSIS_FILLER = re.compile(
    r"^(?:and|also|then|so|what|how|about|from|with|to|against|vs\.?|versus|compared|那|那么|还有|和|跟|与|比|相比|呢|"
    r"[\s,，.。?？!！])*$"
)


_ELLIPSIS_OTHER_SIDE = re.compile(r"\b(?:from|with|to|against|vs\.?|versus|compared)\b|和|跟|与|比|相比")


def _elliptical_comparison(ctx: Ctx) -> list[str] | None:
    """After a comparison, a question that only names another term ("And from blue-green
    deployments?", "那和 TPOT 比呢？") compares the term under discussion with it."""
    state = ctx.state
    if state is None or state.last_intent != "comparison" or not state.topic:
        return None
    named = list(dict.fromkeys(s.term_id for s in ctx.analysis.spans))
    if len(named) != 1 or named[0] == state.topic[0]:
        return None
    f = ctx.parsed.folded
    rest = "".join(f[i] for i in range(len(f)) if not any(s.start <= i < s.end for s in ctx.analysis.spans))
    if not _ELLIPSIS_FILLER.match(rest):
        return None
    # "And from blue-green deployments?" keeps the topic as the subject; a bare "And static
    # batching?" makes the new name the subject, compared with the topic
    bare = not _ELLIPSIS_OTHER_SIDE.search(rest)
    return [named[0], state.topic[0]] if bare else [state.topic[0], named[0]]


def shape(ctx: Ctx) -> Answer:
    """The answer of an in-domain question, shaped by its intent."""
    return _HANDLERS.get(ctx.parsed.intent, unknown)(ctx)


def clarify(ctx: Ctx) -> Answer:
    """A pronoun with nothing to point at: ask which term is meant (no guess, no citation)."""
    p = ctx.pronoun.text if ctx.pronoun is not None else ""
    # "the two", "这两个", "them": ask for the terms, not one term
    key = "refuse_pronouns" if ctx.pronoun is not None and ctx.pronoun.ref == "both" else "refuse_pronoun"
    result = refuse(ctx, "unknown", t(ctx.lang, key, p=p))
    result.needs_clarification = True
    return result
