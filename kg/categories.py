"""Categories: the sources' sections mapped onto one topic list, inferred where no section exists.

001 and 002 file their entries under sections, which ``corpus/categories.json`` maps onto
the shared topics. 000 and 004 have no sections, so a term known only from them gets the
topic most common among the terms its own definitions name and the terms it is confused
with (ties: the order of the topic list). Such terms are marked ``categories_inferred``.
"""

from __future__ import annotations

import math
from collections import Counter

from kg.model import Edge, Term


def infer_categories(terms: list[Term], edges: list[Edge], topic_order: list[str], rounds: int = 3) -> int:
    """Fill in the categories of uncategorised terms from their neighbours; return how many.

    Runs a few rounds so that a term whose neighbours were themselves inferred gets a
    topic too; each round only uses categories known before it (deterministic).
    """
    total = 0
    for _ in range(rounds):
        filled = _infer_round(terms, edges, topic_order)
        total += filled
        if not filled:
            break
    return total


def _infer_round(terms: list[Term], edges: list[Edge], topic_order: list[str]) -> int:
    by_id = {t.id: t for t in terms}
    votes: dict[str, dict[str, float]] = {t.id: {} for t in terms if not t.categories}
    degree: Counter[str] = Counter()
    for e in edges:
        degree[e.source] += 1
        degree[e.target] += 1
    for e in edges:
        # related_to counts from the term whose text names the other; confused_with both ways
        if e.type == "confused_with":
            pairs = [(e.source, e.target), (e.target, e.source)]
        else:  # each side whose own text states the relation
            subjects = {x.subject for x in e.items} & {e.source, e.target} or {e.source}
            pairs = [(s, e.target if s == e.source else e.source) for s in sorted(subjects)]
        for me, other in pairs:
            if me in votes:
                # hubs (推理, token, GPU) are named everywhere and say little about a topic
                weight = (2.0 if e.type == "confused_with" else 1.0) / math.log2(2 + degree[other])
                for c in by_id[other].categories:
                    votes[me][c] = votes[me].get(c, 0.0) + weight
    # ties go to the more specific topic: the broad "fundamentals" comes last
    order = [c for c in topic_order if c != "fundamentals"] + ["fundamentals"]
    rank = {c: i for i, c in enumerate(order)}
    filled = 0
    decided: dict[str, str] = {}
    for tid, counter in votes.items():
        if not counter:
            continue
        decided[tid] = min(counter, key=lambda c: (-counter[c], rank.get(c, len(rank))))
    for tid, best in decided.items():
        by_id[tid].categories = [best]
        by_id[tid].categories_inferred = True
        filled += 1
    return filled
