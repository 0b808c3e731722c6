"""What a passage is, and how passage hits roll up to terms.

Each term yields:

- a *names* passage ``"{en} · {zh} · {abbreviations} · {aliases}"`` only for a term with no
  definition (short name-only passages attract unrelated queries; names are matched by the
  label stage instead);
- one passage per definition: ``"{en} / {zh}: {definition} {note}"`` — the labels of both
  languages prefix every definition, so an English question can reach a Chinese-only
  definition through the English label, and the multilingual encoder bridges the rest.
  Only the sources' labels head a passage: an editorial one (``label_origin``, a name no
  source gives, see docs/SCHEMA.md) is matched by the label stage and BM25, but is not
  written into the sources' text the encoder embeds (measured: heading passages with the
  63 editorial English names cost 0.066 of hybrid MRR on the held-out set, all of it on
  English descriptions of terms the sources name only in Chinese).

Passage ids are ``"{term_id}#names"`` and ``"{term_id}#def{n}"``; :func:`term_of` maps them
back. A term's dense score is the best score of its passages (max roll-up): one strong
definition is evidence enough, and a term with five definitions must not outrank a
term with one merely by having more text.

The lexical index uses one document per term (:func:`term_document`): BM25 already
normalises by length, and per-term documents keep its statistics about terms.
"""

from __future__ import annotations

from collections.abc import Iterable

from kg.model import Term

# Names-only passages are short and match almost any query (hubness): measured on the
# dev set they cost 4.7 points of MRR, so names reach the dense index only through the
# headings of definition passages, and label matching covers them directly.
NAMES_PASSAGE = False


def term_of(passage_id: str) -> str:
    """Term id of a passage id."""
    return passage_id.split("#", 1)[0]


def names_text(term: Term) -> str:
    return " · ".join(term.all_names())


def source_labels(term: Term) -> dict[str, str]:
    """The term's labels that come from the sources (not editorial ones)."""
    return {lang: v for lang, v in term.labels.items() if term.label_origin.get(lang) != "editorial"}


def _heading(term: Term) -> str:
    labels = source_labels(term)
    return " / ".join(v for v in (labels.get("en"), labels.get("zh")) if v) or term.label()


def passages(terms: Iterable[Term]) -> list[tuple[str, str]]:
    """(passage id, text) for every defined term, names passage first."""
    out: list[tuple[str, str]] = []
    for t in terms:
        if not t.defined:
            continue  # a mentioned-only node has no text of its own (kg/mentioned.py)
        if NAMES_PASSAGE or not t.definitions:
            out.append((f"{t.id}#names", names_text(t)))
        head = _heading(t)
        for i, d in enumerate(t.definitions):
            text = f"{head}: {d.text}"
            if d.note:
                text += f" {d.note}"
            out.append((f"{t.id}#def{i}", text))
    return out


def term_document(term: Term) -> str:
    """One lexical document per term: every name, every definition and note."""
    parts = [names_text(term)]
    for d in term.definitions:
        parts.append(d.text)
        if d.note:
            parts.append(d.note)
    return "\n".join(parts)
