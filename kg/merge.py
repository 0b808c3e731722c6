"""Merge raw entries from every source into one node per concept.

Rules (each one is a test in tests/kg/test_merge.py):

1. Entries sharing a *strong* name — a label or an abbreviation, compared by
   :func:`kg.textnorm.name_key` — are one concept. So are entries whose English
   labels of two or more words are the same words in another order or number
   (:func:`word_key`: "Latency percentiles" / "percentile latency",
   "Weights-only quantization" / "weight-only quantization").
2. A source's alias statement ("即 TPOT 的别称", "同 kernel fusion", "`Continuous
   batching` 的另一种叫法") joins the entry to the node its target names. When
   the target names no entry ("矩阵乘法的简称"), the target becomes a name of the
   entry instead.
3. Aliases (secondary names: "连续批处理 / 动态批处理", "也叫 tool use", a bare name
   under a qualifier) never merge. An alias that is another node's strong name,
   or that two nodes share, is dropped from the node and reported: 002 calls
   动态批处理 a name of continuous batching while 001 defines Dynamic batching
   as its own row.
4. Overlay ``merge`` decisions join names the text spells differently.

Labels: the most frequent name of each language, the sources' own names before names a
rule found and those before editorial ones (:data:`kg.model.NAME_ORIGINS`); the node
records who gave each label in ``label_origin``, and lists the names only an editorial
decision gives in ``editorial_names``.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from kg.ids import assign_ids
from kg.model import NAME_ORIGINS, Definition, Name, RawEntry, Term
from kg.overlay import Decision
from kg.parsers.common import is_abbreviation, is_acronym_of
from kg.textnorm import fold, has_cjk, lang_of, name_key

STRONG = ("label", "abbr")


class UnionFind:
    """Disjoint sets over 0..n-1 (path halving, union by lower index for determinism)."""

    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, x: int) -> int:
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            lo, hi = min(ra, rb), max(ra, rb)
            self.parent[hi] = lo


@dataclass
class MergeResult:
    """Nodes plus what the merger decided, for the build report."""

    terms: list[Term]
    entry_to_term: dict[int, str]
    dropped_aliases: list[dict[str, Any]] = field(default_factory=list)
    unresolved: list[dict[str, Any]] = field(default_factory=list)
    alias_merges: list[dict[str, Any]] = field(default_factory=list)


def strong_keys(entry: RawEntry) -> set[str]:
    return {k for n in entry.names if n.kind in STRONG and (k := name_key(n.text))}


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def word_key(text: str) -> str | None:
    """The words of an English name of two or more words, singular and sorted; None otherwise.

    "Latency percentiles" and "percentile latency" share a key; abbreviations ("FLOPS" /
    "FLOP" are different units) and Chinese names have none.
    """
    if has_cjk(text) or is_abbreviation(text):
        return None
    words = [w for w in re.split(r"[\s\-_/]+", fold(text)) if w]
    if len(words) < 2 or not all(re.search(r"[a-z]", w) for w in words):
        return None
    return " ".join(sorted(_singular(w) for w in words))


def merge_entries(
    entries: list[RawEntry],
    merges: list[Decision],
    priority: dict[str, int],
    section_topics: dict[str, dict[str, str | None]],
) -> MergeResult:
    """Group entries into terms (see module docstring)."""
    unresolved: list[dict[str, Any]] = []
    alias_merges: list[dict[str, Any]] = []

    key_map: dict[str, list[int]] = defaultdict(list)
    for i, e in enumerate(entries):
        for k in strong_keys(e):
            key_map[k].append(i)
    # Rule 2, second half: a "same" statement whose target names no entry gives
    # the entry that name (Matmul: "矩阵乘法的简称").
    for i, e in enumerate(entries):
        st = e.alias_of
        if st and st.relation == "same" and name_key(st.target) not in key_map and e.overlay is None:
            e.names.append(Name(st.target, lang_of(st.target), "label"))  # type: ignore[arg-type]
            key_map[name_key(st.target)].append(i)
            # the statement is then the entry's only definition ("矩阵乘法的简称。")
            e.definition = e.definition or st.evidence
            e.alias_of = None

    uf = UnionFind(len(entries))
    for ids in key_map.values():
        for j in ids[1:]:
            uf.union(ids[0], j)
    # Rule 1, second half: the same words in another order or number.
    by_words: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for i, e in enumerate(entries):
        for n in e.names:
            if n.kind == "label" and n.origin != "editorial" and (wk := word_key(n.text)):
                by_words[wk].append((i, n.text))
    for hits in by_words.values():
        if len({name_key(t) for _, t in hits}) > 1:
            for j, text in hits[1:]:
                if uf.find(j) != uf.find(hits[0][0]):
                    alias_merges.append(
                        {"entry": entries[j].key, "target": hits[0][1], "evidence": f"same words: {text}"}
                    )
                uf.union(hits[0][0], j)
    for i, e in enumerate(entries):
        st = e.alias_of
        if not st:
            continue
        targets = key_map.get(name_key(st.target))
        if not targets:
            unresolved.append({"entry": e.key, "kind": f"alias-{st.relation}", "target": st.target})
            continue
        uf.union(i, targets[0])
        alias_merges.append({"entry": e.key, "target": st.target, "evidence": st.evidence})
    for d in merges:
        found = [key_map.get(name_key(n), []) for n in d.merge]
        if not all(found):
            missing = [n for n, hit in zip(d.merge, found, strict=True) if not hit]
            unresolved.append({"overlay": d.index, "kind": "merge", "target": ", ".join(missing)})
            continue
        d.used += 1
        for hit in found[1:]:
            uf.union(found[0][0], hit[0])

    groups: dict[int, list[int]] = defaultdict(list)
    for i in range(len(entries)):
        groups[uf.find(i)].append(i)

    raw_terms: list[tuple[Term, list[int]]] = []
    for members in groups.values():
        members.sort(key=lambda i: (priority.get(entries[i].source, 99), entries[i].source, entries[i].line))
        term = _assemble([entries[i] for i in members], section_topics)
        if term is not None:
            raw_terms.append((term, members))

    assign_ids(t for t, _ in raw_terms)  # kg/ids.py
    dropped = _resolve_alias_conflicts([t for t, _ in raw_terms])
    for t, _ in raw_terms:
        kept = set(t.all_names())
        t.editorial_names = [n for n in t.editorial_names if n in kept]
    entry_to_term = {i: t.id for t, ms in raw_terms for i in ms}
    terms = sorted((t for t, _ in raw_terms), key=lambda t: t.id)
    return MergeResult(terms, entry_to_term, dropped, unresolved, alias_merges)


def _origin_rank(origin: str) -> int:
    return NAME_ORIGINS.index(origin) if origin in NAME_ORIGINS else len(NAME_ORIGINS)


def _pick(names: list[Name], lang: str, partners: frozenset[str] = frozenset()) -> str | None:
    """Most frequent label of a language across sources.

    The sources' own names win over names a rule found, and those over editorial
    ones; unqualified names ("Hopper") win over qualified ones ("Hopper
    (architecture)"); ties go to a name written next to the other language's chosen
    label (*partners*), then to the higher-priority source.
    """
    cands = [n for n in names if n.kind == "label" and n.lang == lang]
    if not cands:
        return None
    counts = Counter(fold(c.text) for c in cands)
    first_pos: dict[str, tuple[int, str]] = {}
    origin: dict[str, int] = {}
    for pos, c in enumerate(cands):
        first_pos.setdefault(fold(c.text), (pos, c.text))
        origin[fold(c.text)] = min(origin.get(fold(c.text), 99), _origin_rank(c.origin))
    best = min(counts, key=lambda f: (origin[f], "(" in f, -counts[f], f not in partners, first_pos[f][0]))
    return first_pos[best][1]


def _label_origin(names: list[Name], label: str) -> str:
    """Who gave *label*: the best origin among the names written like it."""
    ranks = [_origin_rank(n.origin) for n in names if fold(n.text) == fold(label)]
    return NAME_ORIGINS[min(ranks)] if ranks and min(ranks) < len(NAME_ORIGINS) else "source"


def _assemble(group: list[RawEntry], section_topics: dict[str, dict[str, str | None]]) -> Term | None:
    # An entry that declares itself another name of Y ("见 TTFT", "`Continuous
    # batching` 的另一种叫法") contributes aliases, and a vote for Y as the label.
    names: list[Name] = []
    for e in group:
        if e.alias_of:
            names.extend(
                Name(n.text, n.lang, "alias" if n.kind == "label" else n.kind, n.origin) for n in e.names
            )
            target = e.alias_of.target
            if not e.overlay:
                names.append(Name(target, lang_of(target), "abbr" if is_abbreviation(target) else "label"))  # type: ignore[arg-type]
        else:
            names.extend(e.names)
    if not names:
        return None
    en = _pick(names, "en")
    partners = frozenset(
        fold(n.text) for e in group if en and any(fold(x.text) == fold(en) for x in e.names) for n in e.names
    )
    zh = _pick(names, "zh", partners)
    abbrs: list[str] = []
    for n in names:
        if n.kind == "abbr" and n.text not in abbrs:
            abbrs.append(n.text)
    # An English label that is the acronym of the chosen label is an abbreviation.
    for n in names:
        if (
            en
            and n.lang == "en"
            and n.kind == "label"
            and n.text != en
            and (is_abbreviation(n.text) or (" " not in n.text and len(n.text) <= 8))
            and is_acronym_of(n.text, en)
            and n.text not in abbrs
        ):
            abbrs.append(n.text)
    if en is None and abbrs:
        en = abbrs[0]
    labels = {k: v for k, v in (("en", en), ("zh", zh)) if v}
    label_origin = {k: _label_origin(names, v) for k, v in labels.items()}
    taken = {fold(v) for v in labels.values()} | {fold(a) for a in abbrs}
    aliases: list[str] = []
    for n in names:
        f = fold(n.text)
        if f not in taken:
            taken.add(f)
            aliases.append(n.text)
    defs = []
    for e in group:
        if e.definition:
            source = e.cites or e.source
            defs.append(Definition(lang_of(e.definition), e.definition, source, e.section, e.line, e.note))  # type: ignore[arg-type]
    cats: list[str] = []
    for e in group:
        topic = section_topics.get(e.source, {}).get(e.section or "")
        if topic and topic not in cats:
            cats.append(topic)
    return Term(
        id="",
        labels=labels,
        aliases=aliases,
        abbreviations=abbrs,
        definitions=defs,
        categories=cats,
        sources=sorted({e.source for e in group}),
        # an imported entry with several definitions is several raw entries on one line
        entry_keys=list(dict.fromkeys(f"{e.source}:{e.line}" for e in group)),
        label_origin=label_origin,
        editorial_names=[
            n for n in [*labels.values(), *abbrs, *aliases] if _label_origin(names, n) == "editorial"
        ],
    )


def _resolve_alias_conflicts(terms: list[Term]) -> list[dict[str, Any]]:
    """Rule 3: drop aliases that are another node's strong name or shared by two nodes."""
    strong: dict[str, str] = {}
    for t in terms:
        for n in [*t.labels.values(), *t.abbreviations]:
            strong.setdefault(fold(n), t.id)
    alias_owners: dict[str, set[str]] = defaultdict(set)
    for t in terms:
        for a in t.aliases:
            alias_owners[fold(a)].add(t.id)
    dropped: list[dict[str, Any]] = []
    for t in terms:
        keep = []
        for a in t.aliases:
            f = fold(a)
            owner = strong.get(f)
            if owner and owner != t.id:
                dropped.append({"term": t.id, "alias": a, "why": f"is a name of {owner}"})
            elif len(alias_owners[f]) > 1:
                others = sorted(alias_owners[f] - {t.id})
                dropped.append({"term": t.id, "alias": a, "why": f"shared with {', '.join(others)}"})
            else:
                keep.append(a)
        t.aliases = keep
    return dropped
