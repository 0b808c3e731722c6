"""Categories: the sources' sections mapped onto one topic list, inferred where no section exists.

001 and 002 file their entries under sections, which ``corpus/categories.json`` maps onto
the shared topics; those are a term's categories whenever it has one. 000 and 004 have no
sections, so a term known only from them gets a topic by a vote (:func:`category_votes`):

* **mentions** — the topics of the terms its own definitions name (weight 1 each, 2 for a
  term it is confused with), and, at half weight, of the terms whose definitions name it;
  a hub named everywhere (推理, token, GPU) says little about a topic, so each vote is
  divided by ``log2(2 + degree)`` of the other term;
* **name head** — the topics of the sectioned terms whose name ends in the same head word
  (数据并行 and 张量并行 end in 并行; 线性注意力 and 交叉注意力 in 注意力), at most
  :data:`HEAD_WEIGHT` in all, split over the topics of those terms;
* **file neighbours** — 000 lists its entries grouped by topic without headings: the
  topics of the nearest sectioned terms before and after the entry in its own file
  (:data:`NEIGHBOURS` on each side, among the :data:`REACH` nearest rows), at
  :data:`NEIGHBOUR_WEIGHT` each.

The winning topic is kept only when it leads the runner-up by a margin of at least
:data:`MIN_MARGIN` of all the votes; otherwise the term stays uncategorised. Either way the
votes and the margin are recorded on the node (``category_inference``) and the term is marked
``categories_inferred`` when a topic was kept. Votes come from section categories only, so
the outcome does not depend on the order in which terms are visited.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from functools import lru_cache

import jieba

from kg.model import Edge, Term
from kg.textnorm import fold, has_cjk

#: Smallest lead of the winning topic over the runner-up, as a share of all votes.
MIN_MARGIN = 0.2
#: Smallest total vote (weak evidence, e.g. one mention of a hub, decides nothing).
MIN_TOTAL = 0.8
#: Weight of the name-head vote, and the share of the head's terms that must agree on a topic.
HEAD_WEIGHT = 1.0
HEAD_AGREEMENT = 0.6
#: Rows looked at on each side of an entry in its own file, and the weight of the nearest
#: (a row d rows away counts 1/d of it).
REACH = 4
NEIGHBOUR_WEIGHT = 0.3
#: Weight of a vote from a term whose definition names this one (incoming mention).
INCOMING_WEIGHT = 0.5
#: Weight of the definitions-alike vote, how many sectioned terms it asks, and how alike
#: (cosine) they must be.
TEXT_WEIGHT = 1.5
TEXT_NEIGHBOURS = 5
MIN_SIMILARITY = 0.1
#: The broad topic counts half: naming 推理 or token says little about a term's own topic.
FOCUS = {"fundamentals": 0.5}


@lru_cache(maxsize=4096)
def _zh_head(name: str) -> str | None:
    words = [w for w in jieba.lcut(name.replace(" ", "")) if w.strip()]
    if not words:
        return None
    last = words[-1]
    return last if len(last) >= 2 and has_cjk(last) else None


def name_heads(term: Term) -> set[str]:
    """Head words of the term's labels: the last Chinese word (two characters or more) of
    the Chinese label, the last word of the English label (singular, lower case)."""
    heads: set[str] = set()
    zh = term.labels.get("zh")
    if zh:
        latin_tail = re.search(r"([A-Za-z][A-Za-z\-]+)$", zh)
        head = latin_tail.group(1).lower() if latin_tail else _zh_head(zh)
        if head:
            heads.add("zh:" + head)
    en = term.labels.get("en")
    if en and not has_cjk(en):
        words = [w for w in re.split(r"[\s\-/]+", fold(re.sub(r"\(.*?\)", "", en))) if w]
        if len(words) >= 2 and words[-1].isalpha():
            last = words[-1]
            heads.add("en:" + (last[:-1] if len(last) > 3 and last.endswith("s") else last))
    return heads


def _topic_weights(sectioned: dict[str, list[str]]) -> dict[str, float]:
    """Inverse topic frequency: a vote for a topic few terms have says more than one for a
    topic half the glossary has (``log(N / n)``, N the sectioned terms)."""
    sizes: Counter[str] = Counter(c for cats in sectioned.values() for c in cats)
    n = max(len(sectioned), 1)
    return {c: math.log(n / k) for c, k in sizes.items()}


def category_votes(terms: list[Term], edges: list[Edge]) -> dict[str, dict[str, float]]:
    """Topic votes of every term without a section category (see the module docstring)."""
    by_id = {t.id: t for t in terms}
    sectioned = {t.id: list(t.categories) for t in terms if t.categories}
    idf = _topic_weights(sectioned)
    open_ids = [t.id for t in terms if not t.categories]
    votes: dict[str, dict[str, float]] = {tid: defaultdict(float) for tid in open_ids}

    def vote(me: str, cats: list[str], weight: float) -> None:
        for c in cats:
            votes[me][c] += weight * idf.get(c, 1.0) * FOCUS.get(c, 1.0) / len(cats)

    degree: Counter[str] = Counter()
    for e in edges:
        degree[e.source] += 1
        degree[e.target] += 1

    def mention(me: str, other: str, weight: float) -> None:
        if me in votes and other in sectioned:
            vote(me, sectioned[other], weight / math.log2(2 + degree[other]))

    for e in edges:
        if e.type == "confused_with":
            mention(e.source, e.target, 2.0)
            mention(e.target, e.source, 2.0)
        else:  # one edge per pair: each side whose own text states it names the other
            subjects = {x.subject for x in e.items} & {e.source, e.target} or {e.source}
            for s in sorted(subjects):
                other = e.target if s == e.source else e.source
                mention(s, other, 1.0)
                mention(other, s, INCOMING_WEIGHT)

    by_head: dict[str, list[str]] = defaultdict(list)
    for tid in sectioned:
        for h in name_heads(by_id[tid]):
            by_head[h].append(tid)
    for tid in open_ids:
        for h in name_heads(by_id[tid]):
            peers = by_head.get(h, [])
            if len(peers) < 2:
                continue
            # the share of those terms filed under each topic; ties go to the rarer topic
            share = Counter(c for peer in peers for c in sectioned[peer])
            top = max(share, key=lambda c: (share[c], idf.get(c, 0.0), c))
            frac = share[top] / len(peers)
            if frac >= HEAD_AGREEMENT:
                vote(tid, [top], HEAD_WEIGHT * frac)

    # file neighbours: the topics of the sectioned rows around the entry in its own file
    rows: dict[str, dict[int, list[str]]] = defaultdict(lambda: defaultdict(list))
    for t in terms:
        for key in t.entry_keys:
            src, _, line_no = key.partition(":")
            if line_no.isdigit():
                rows[src][int(line_no)].append(t.id)
    for src_rows in rows.values():
        lines = sorted(src_rows)
        for pos, row in enumerate(lines):
            for tid in src_rows[row]:
                if tid not in votes:
                    continue
                for other_pos in range(max(0, pos - REACH), min(len(lines), pos + REACH + 1)):
                    here = [o for o in src_rows[lines[other_pos]] if o in sectioned and o != tid]
                    for o in here:
                        # nearer rows count more; a row of several terms counts once
                        vote(tid, sectioned[o], NEIGHBOUR_WEIGHT / abs(other_pos - pos) / len(here))
    if TEXT_WEIGHT:
        for tid, sims in _similar_definitions(terms, sectioned, open_ids).items():
            for other, sim in sims:
                vote(tid, sectioned[other], TEXT_WEIGHT * sim)
    return {tid: dict(v) for tid, v in votes.items()}


def _similar_definitions(
    terms: list[Term], sectioned: dict[str, list[str]], open_ids: list[str]
) -> dict[str, list[tuple[str, float]]]:
    """For each open term, the :data:`TEXT_NEIGHBOURS` sectioned terms whose names and
    definitions are most alike (TF-IDF cosine over the search tokenizer's words), with
    their similarity (at least :data:`MIN_SIMILARITY`)."""
    from kg.search.tokenize import Tokenizer

    tok = Tokenizer(sorted({n for t in terms for n in t.all_names()}))
    bags: dict[str, Counter[str]] = {}
    for t in terms:
        text = " ".join([*t.all_names(), *(d.text for d in t.definitions)])
        bags[t.id] = Counter(tok.tokenize(text))
    df: Counter[str] = Counter(w for bag in bags.values() for w in bag)
    n = len(bags)
    vectors: dict[str, dict[str, float]] = {}
    for tid, bag in bags.items():
        vec = {w: (1 + math.log(c)) * math.log(n / df[w]) for w, c in bag.items() if df[w] < n}
        norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
        vectors[tid] = {w: v / norm for w, v in vec.items()}
    out: dict[str, list[tuple[str, float]]] = {}
    for tid in open_ids:
        mine = vectors[tid]
        sims = []
        for other in sectioned:
            theirs = vectors[other]
            small, big = (mine, theirs) if len(mine) < len(theirs) else (theirs, mine)
            sim = sum(v * big.get(w, 0.0) for w, v in small.items())
            if sim >= MIN_SIMILARITY:
                sims.append((other, sim))
        out[tid] = sorted(sims, key=lambda x: (-x[1], x[0]))[:TEXT_NEIGHBOURS]
    return out


def _decide(counter: dict[str, float], rank: dict[str, int]) -> tuple[str | None, float]:
    if not counter:
        return None, 0.0
    ordered = sorted(counter, key=lambda c: (-counter[c], rank.get(c, len(rank))))
    total = sum(counter.values())
    top = counter[ordered[0]]
    second = counter[ordered[1]] if len(ordered) > 1 else 0.0
    margin = (top - second) / total if total else 0.0
    return (ordered[0] if margin >= MIN_MARGIN and total >= MIN_TOTAL else None), margin


def infer_categories(terms: list[Term], edges: list[Edge], topic_order: list[str]) -> int:
    """Give each term without a section category the topic its vote elects; return how many.

    Every such term records ``category_inference`` = ``{"votes", "margin", "min_margin"}``.
    """
    # ties go to the more specific topic: the broad "fundamentals" comes last
    order = [c for c in topic_order if c != "fundamentals"] + ["fundamentals"]
    rank = {c: i for i, c in enumerate(order)}
    by_id = {t.id: t for t in terms}
    filled = 0
    for tid, counter in sorted(category_votes(terms, edges).items()):
        best, margin = _decide(counter, rank)
        term = by_id[tid]
        term.category_inference = {
            "votes": {c: round(v, 3) for c, v in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))},
            "margin": round(margin, 3),
            "min_margin": MIN_MARGIN,
        }
        if best:
            term.categories = [best]
            term.categories_inferred = True
            filled += 1
    return filled
