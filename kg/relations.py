"""Edges between terms, each with its origin and the source's own words as evidence.

``confused_with`` (symmetric) comes from:
- a confusables section or callout (002 易混淆辨析, "两个 Triton 不要混");
- a line that defines two or three terms side by side and names each one in
  its text ("AOT 与 JIT", "prefill / decode", 000's "内部 TCO 是…，外部 TCO 是…"), or
  calls them generations or kinds ("NVIDIA 三代…微架构"); the instances such a line or a
  confusables paragraph gives of two contrasted members are contrasted too ("AOT…（TensorRT
  的 Plan 文件）；JIT…（…torch.compile）", "激活量化…需要 SmoothQuant 这类迁移技术");
- a contrast statement in a definition or note: 不等于 X, 区别于 X, 和 X 相对,
  和 X 做对照, 被 X 取代, 不像 X 那样, 不是 X, 比 X 慢/快, 低于/高于 X, 独立于 X,
  对 X 的回应, 不要与 X 混淆, and the other cues of :mod:`kg.contrasts` (alternatives, figures
  side by side, parallel clauses and slots, opposite names and traits, one role of two vendors,
  one description with other figures).

``related_to`` (directed: the term whose text says it → the term it names) from:
- explicit references: 详见 X where X is a term name, 指向 X, 相当于 X;
- a list line that defines several terms at once (INT8 / INT4 / …);
- a definition or note that mentions another term's label, alias or abbreviation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import combinations, takewhile

from kg.contrasts import (
    adjacent_contrasts,
    adjacent_opposites,
    figure_contrasts,
    marker_contrasts,
    parallel_contrasts,
    parallel_slots,
    same_name_pairs,
    variant_pairs,
    vendor_counterparts,
)
from kg.mentions import MentionFinder
from kg.model import ConfusionGroup, Edge, Evidence, RawEntry, Term
from kg.textnorm import fold, has_cjk, name_key

# Contrast markers. The named group holds the contrasted phrase when the marker
# surrounds it; otherwise the phrase is the rest of the clause. Only the last
# term named in the phrase counts (the head of a Chinese noun phrase comes last:
# "明显低于节点内 NVLink" contrasts with NVLink, not with 节点). A bare 不是/而不是
# is not a marker: in these sources it mostly contrasts with a non-term.
_XREF = re.compile(r"(?:指向|相当于|参见|参照)\s*(?P<t>[^，。；,;]{1,40})")
_SENTENCE = re.compile(r"[^。；;！!？?]+[。；;！!？?]?")
_QUALIFIED_LABEL = re.compile(r"^(.*?\S)\s*[（(]([^）)]+)[）)]\s*$")
# "prefill-decode 分离", "prefill 与 decode 分离": term names joined, then a Chinese word
_DESCRIBED = re.compile(
    r"(?P<parts>[a-z0-9][a-z0-9 .+]*(?:\s*(?:-|/|与|和)\s*[a-z0-9][a-z0-9 .+]*)+)\s*(?P<word>[\u4e00-\u9fff]{2,4})$"
)


class Resolver:
    """Names → term ids: exact folded name first, then the loose name key."""

    def __init__(self, terms: Iterable[Term]) -> None:
        self.by_fold: dict[str, set[str]] = {}
        self.by_key: dict[str, set[str]] = {}
        self.terms: dict[str, Term] = {}
        pairs = []
        for t in terms:
            self.terms[t.id] = t
            for n in t.all_names():
                self.by_fold.setdefault(fold(n), set()).add(t.id)
                self.by_key.setdefault(name_key(n), set()).add(t.id)
                pairs.append((t.id, n))
        self.finder = MentionFinder(pairs)
        # "Benchmark (intelligence)" / "Benchmark (performance)": a bare head that names no
        # term, shared by labels that differ in their qualifier (see :meth:`qualified`)
        self.heads: dict[str, list[str]] = {}
        for t in self.terms.values():
            for label in t.labels.values():
                m = _QUALIFIED_LABEL.match(label)
                if m and fold(m.group(1)) not in self.by_fold and len(fold(m.group(1))) > 2:
                    ids = self.heads.setdefault(fold(m.group(1)), [])
                    if t.id not in ids:
                        ids.append(t.id)

    def resolve(self, name: str) -> set[str]:
        return self.by_fold.get(fold(name)) or self.by_key.get(name_key(name)) or set()

    def mentioned(self, text: str) -> list[tuple[str, str]]:
        """(term id, matched name) for every term named in *text*, in order, unique."""
        seen: dict[str, str] = {}
        for span in self.finder.find(text):
            seen.setdefault(span.term_id, span.name)
        return list(seen.items())

    def qualified(self, phrase: str, context: str) -> str | None:
        """The term a bare head in *phrase* stands for, when the terms that share it differ only
        in their qualifier ("Benchmark (intelligence)", "Benchmark (performance)"): the one
        whose own words, beyond the shared head, *context* (the owner's text) uses ("…测产品场景
        下的模型智能。比通用 benchmark 更接近业务" → 智能基准). None unless exactly one fits."""
        text, ctx = fold(phrase), fold(context)
        for head, ids in self.heads.items():
            if not re.search(rf"(?<![a-z0-9]){re.escape(head)}s?(?![a-z0-9])", text):
                continue
            own = {tid: self._own_words(tid, head, ids) for tid in ids}
            fits = [tid for tid, words in own.items() if any(w in ctx for w in words)]
            if len(fits) == 1:
                return fits[0]
        return None

    def _own_words(self, tid: str, head: str, siblings: list[str]) -> set[str]:
        """Words of a term's names that its siblings' names lack: the English qualifier's words
        and the Chinese label's characters beyond those every sibling shares (智能基准 → 智能)."""
        t = self.terms[tid]
        words: set[str] = set()
        for label in t.labels.values():
            m = _QUALIFIED_LABEL.match(label)
            if m and fold(m.group(1)) == head:
                words |= {w for w in re.split(r"[\s/\-]+", fold(m.group(2))) if len(w) > 3}
        zh = re.sub(r"\s+", "", fold(t.labels.get("zh", "")))
        others = "|".join(fold(self.terms[o].labels.get("zh", "")) for o in siblings if o != tid)
        # two-character words of the Chinese label its siblings' labels lack (智能基准 → 智能)
        words |= {
            zh[i : i + 2]
            for i in range(len(zh) - 1)
            if has_cjk(zh[i : i + 2]) and zh[i : i + 2] not in others
        }
        for o in siblings:
            if o != tid:
                words -= self._plain_words(o)
        return words

    def _plain_words(self, tid: str) -> set[str]:
        return {w for n in self.terms[tid].all_names() for w in re.split(r"[\s()（）/\-]+", fold(n)) if w}

    def described(self, phrase: str) -> str | None:
        """The term a phrase names by its parts: "prefill-decode 分离" (term names joined by - / 与
        / 和, then a Chinese word) is the one term whose name holds that word and whose
        definition names every part (分离式推理: "把 prefill 和 decode 拆到…"). None unless
        exactly one term fits."""
        m = _DESCRIBED.search(fold(phrase).strip())
        if not m:
            return None
        parts = [p.strip() for p in re.split(r"\s*(?:-|/|与|和)\s*", m.group("parts")) if p.strip()]
        part_ids = [self.resolve(p) for p in parts]
        if len(parts) < 2 or not all(len(ids) == 1 for ids in part_ids):
            return None
        wanted = {next(iter(ids)) for ids in part_ids}
        word = m.group("word")
        fits = [
            t.id
            for t in self.terms.values()
            if t.id not in wanted
            and any(word in fold(n) for n in t.all_names())
            and any(wanted <= {tid for tid, _ in self.mentioned(d.text)} for d in t.definitions)
        ]
        return fits[0] if len(fits) == 1 else None

    def kind_named(self, phrase: str, exclude: str = "") -> str | None:
        """The term a Chinese phrase names as "<trait><kind>" when no name is that phrase:
        "不像稀疏模型那样…" in *Dense model* means the one other term whose name ends in the kind
        (模型) and whose definition has the trait (稀疏): 混合专家模型. None unless exactly one fits."""
        text = fold(phrase).strip()
        m = _TRAIT_KIND.fullmatch(text)
        if not m or self.resolve(text):
            return None
        trait, kind = m.group("trait"), m.group("kind")
        fits = [
            t.id
            for t in self.terms.values()
            if t.id != exclude
            and any(fold(n).endswith(kind) for n in t.all_names())
            and any(trait in d.text for d in t.definitions)
        ]
        return fits[0] if len(fits) == 1 else None


#: "<trait><kind>", two to four characters each, Chinese only ("稀疏模型").
_TRAIT_KIND = re.compile(r"(?P<trait>[\u4e00-\u9fff]{2,4})(?P<kind>[\u4e00-\u9fff]{2})")


class EdgeSet:
    """Edge collector: one edge per (unordered pair, type), every distinct statement an item.

    The first statement of a pair sets the edge's direction and headline evidence; later
    ones (the other side's definition, another source) are appended as :class:`Evidence`
    items, and a repeat of the same words from the same place adds nothing.
    """

    def __init__(self) -> None:
        self.edges: dict[tuple[str, str, str], Edge] = {}

    def add(self, a: str, b: str, type_: str, evidence: str, origin: str, doc: str, line: int) -> None:
        if a == b:
            return
        subject = a
        if type_ == "confused_with":
            a, b = sorted((a, b))  # symmetric: stored a < b
        key = (*sorted((a, b)), type_)
        item = Evidence(evidence.strip()[:300], origin, doc, line, subject)
        edge = self.edges.get(key)  # type: ignore[arg-type]
        if edge is None:
            self.edges[key] = Edge(a, b, type_, item.text, origin, doc, line, [item])  # type: ignore[index]
        elif not any((x.doc, x.line, x.text) == (item.doc, item.line, item.text) for x in edge.items):
            edge.items.append(item)

    def result(self) -> list[Edge]:
        """The edges, each headed by its strongest statement: a contrast, then an explicit
        reference, then a shared line, then a plain mention (first come first within a rank)."""
        rank = {"xref": 1, "listed-together": 2, "mention": 3}
        for e in self.edges.values():
            e.items.sort(key=lambda x: rank.get(x.origin, 0))
            head = e.items[0]
            e.evidence, e.origin, e.doc, e.line = head.text, head.origin, head.doc, head.line
            if e.type == "related_to" and head.subject == e.target:
                e.source, e.target = e.target, e.source
        return sorted(self.edges.values(), key=lambda e: (e.type, e.source, e.target))


def consolidate(edges: list[Edge]) -> list[Edge]:
    """One edge per (pair, type), and a contrasted pair is ``confused_with`` only.

    Used after the overlay's edge decisions. The ``related_to`` statements of a contrasted
    pair stay as evidence items of its ``confused_with`` edge, after the contrast's own.
    """
    merged = EdgeSet()
    for e in edges:
        for x in e.items:
            a, b = (e.source, e.target) if x.subject != e.target else (e.target, e.source)
            merged.add(a, b, e.type, x.text, x.origin, x.doc, x.line)
    contrasted = {(e.source, e.target) for e in merged.edges.values() if e.type == "confused_with"}
    out: list[Edge] = []
    related = []
    for e in merged.result():
        pair = (e.source, e.target) if e.source < e.target else (e.target, e.source)
        if e.type == "related_to" and pair in contrasted:
            related.append((pair, e))
        else:
            out.append(e)
    by_pair = {(e.source, e.target): e for e in out if e.type == "confused_with"}
    for pair, e in related:
        target = by_pair[pair]
        seen = {(x.doc, x.line, x.text) for x in target.items}
        target.items.extend(x for x in e.items if (x.doc, x.line, x.text) not in seen)
    return out


def duplicate_evidence_edges(edges: list[Edge]) -> int:
    """Edges that repeat another of the same pair and type, or hold the same statement twice."""
    seen: set[tuple[str, str, str]] = set()
    dup = 0
    for e in edges:
        a, b = sorted((e.source, e.target))
        key = (a, b, e.type)
        dup += key in seen
        seen.add(key)
        places = [(x.doc, x.line, x.text) for x in e.items]
        dup += len(places) - len(set(places))
    return dup


def pairs_with_both_types(edges: list[Edge]) -> int:
    """Pairs that are both ``related_to`` and ``confused_with`` (the model allows neither)."""
    by_type: dict[str, set[frozenset[str]]] = {}
    for e in edges:
        by_type.setdefault(e.type, set()).add(frozenset((e.source, e.target)))
    return len(by_type.get("related_to", set()) & by_type.get("confused_with", set()))


def confusable_member_entries(entries: list[RawEntry], confusions: list[ConfusionGroup]) -> list[RawEntry]:
    """Entries for confusable-group members that no source entry names.

    002's 易混淆辨析 names 激活量化 in "PTQ / QAT / 权重量化 / 激活量化" and describes it in the
    paragraph ("激活量化连激活也压、需要 SmoothQuant 这类迁移技术") but has no entry for it. The
    member becomes a term whose definition is the paragraph's clause about it, so every
    pair of the group can be linked.
    """
    from kg.parsers.common import name

    known = {name_key(n.text) for e in entries for n in e.names if n.kind in ("label", "abbr")}
    out: list[RawEntry] = []
    for group in confusions:
        _, _, body = group.evidence.partition("：")
        for member in group.members:
            if name_key(member) in known:
                continue
            clause = next(
                (c.strip() for c in re.split(r"[；;。]", body) if c.strip().startswith(member)), None
            )
            if not clause:
                continue
            known.add(name_key(member))
            out.append(
                RawEntry(
                    source=group.source,
                    line=group.line + 1,
                    section=None,
                    names=[name(member)],
                    definition=clause + "。",
                    note=None,
                    raw=clause,
                )
            )
    return out


_CLAUSE = re.compile(r"[^。；;，,：:]+")
_LATIN_RUN = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-_./+ ]*")


def _clauses(text: str) -> list[tuple[str, bool]]:
    """(clause, whether it starts a sentence) of *text*."""
    out: list[tuple[str, bool]] = []
    for sentence in _SENTENCE.findall(text):
        out += [(c, k == 0) for k, c in enumerate(_CLAUSE.findall(sentence))]
    return out


def _members_opening(clause: str, group: tuple[str, ...]) -> set[str]:
    """Members of a multi-term line that a clause opens with ("FP16/BF16 训练默认" → FP16,
    BF16; "非对称允许…" → 非对称量化: a Chinese member by its longest shared opening)."""
    text = clause.strip()
    run = _LATIN_RUN.match(text)
    if run:
        words = {w for w in re.split(r"[\s/]+", fold(run.group())) if w}
        found = {m for m in group if fold(m) in words}
        if found:
            return found
    opening = fold(text).replace(" ", "")
    best: set[str] = set()
    best_len = 0
    for m in group:
        name = fold(m).replace(" ", "")
        n = sum(1 for _ in takewhile(lambda pair: pair[0] == pair[1], zip(name, opening, strict=False)))
        if (n >= 2 or (n and n == len(name))) and n > best_len:  # two characters, or the whole name
            best, best_len = {m}, n
    return best


def _member_of(entry: RawEntry) -> str | None:
    """Which member of its line's group an entry is: an exact name first, else the longest
    member its names contain (非对称量化 is 非对称量化, not 对称)."""
    names = [fold(n.text) for n in entry.names]
    members = entry.group or ()
    exact = [m for m in members if fold(m) in names]
    if exact:
        return exact[0]
    contained = [m for m in members if any(fold(m) in n for n in names)]
    return max(contained, key=lambda m: len(m), default=None)


def _own_text(definition: str, entry: RawEntry, res: Resolver) -> str:
    """The part of a multi-term line's definition about *entry*'s member.

    002 defines several terms on one line ("AllReduce 求和后广播（TP 用）；AllGather 各卡拼齐
    （PP 用）…"): each member's clauses are the ones that open with its name, up to the next
    member's; clauses before any member's are shared. Mentions are read from those only, so
    AllReduce is not linked to PP. A shared clause listing one term per member, in order
    ("Ampere / Hopper / Blackwell：A100、H100、B200"), gives each member the term in its
    position. Lines of one term are returned whole.
    """
    member = _member_of(entry) if entry.group and len(entry.group) > 1 else None
    if member is None:
        return definition
    group = entry.group or ()
    owners: set[str] = set()
    kept: list[str] = []
    for clause, sentence_start in _clauses(definition):
        opening = _members_opening(clause, group)
        if opening or sentence_start:
            owners = opening  # a new sentence that opens with no member is shared again
        if owners:
            if member in owners:
                kept.append(clause)
            continue
        items = [res.mentioned(part) for part in re.split(r"[、/]", clause)]
        if len(group) > 2 and len(items) == len(group) and all(len(found) == 1 for found in items):
            kept.append(items[group.index(member)][0][1])  # positional list: this member's item
        else:
            kept.append(clause)
    return "，".join(kept)


def _sentence_of(text: str, needle: str) -> str:
    for s in _SENTENCE.findall(text):
        if needle and fold(needle) in fold(s):
            return s.strip()
    return text.strip()[:200]


def _section_pairs(group: ConfusionGroup, ids_by_member: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Pairs of a confusables group that its paragraph sets side by side.

    "PTQ / QAT / 权重量化 / 激活量化：PTQ…；QAT…。权重量化…，激活量化…" contrasts PTQ with QAT and
    weight-only with activation quantization: two axes in two sentences. When the paragraph
    has several sentences and each member is named in one, only members of one sentence pair.
    """
    members = [m for m in group.members if ids_by_member.get(m)]
    _, _, body = group.evidence.partition("：")
    parts = [p for p in re.split(r"。", body) if p.strip()]
    where: dict[str, set[int]] = {m: {k for k, p in enumerate(parts) if fold(m) in fold(p)} for m in members}
    per_sentence = len(parts) > 1 and all(where[m] for m in members)
    out: list[tuple[str, str]] = []
    for x, y in combinations(members, 2):
        if per_sentence and not (where[x] & where[y]):
            continue
        for a in sorted(ids_by_member[x]):
            for b in sorted(ids_by_member[y]):
                out.append((a, b))
    return out


# A line that calls its members generations or kinds of one thing sets them side by side
_KINDS_OF = re.compile(r"[两二三四]\s*(?:代|种|类|个阶段|阶段)")


_PARENS = re.compile(r"[（(]([^（）()]{1,60})[）)]")
_EXAMPLE_MARKED = re.compile(
    r"([^，。；,;、（）()\s]{1,30})\s*(?:这类|这一类|之类)|(?:例如|比如|譬如)\s*([^，。；,;]{1,40})"
)
_USED_BY = ("用", "使用", "采用")


def _examples(text: str, res: Resolver) -> tuple[list[str], list[str]]:
    """Terms a member's own clauses name as its instances: in parentheses that open with a term
    ("（TensorRT 的 Plan 文件）"), and marked ones ("SmoothQuant 这类迁移技术", "例如 X"). A term
    in parentheses with 用 names a user, not an instance ("（TP 用）"). Returns (parenthesised,
    marked)."""
    instances: list[str] = []
    for m in _PARENS.finditer(text):
        inner = fold(m.group(1)).strip()
        spans = res.mentioned(m.group(1))
        if not spans or not inner.startswith(spans[0][1]):
            continue
        tail = inner[len(spans[0][1]) :].strip()
        if tail not in _USED_BY and (not tail or tail.startswith("的")):
            # the term that opens each listed item ("PyTorch 的 eager + torch.compile"), not
            # what an item owns ("TensorRT 的 Plan 文件": Plan is TensorRT's)
            for item in re.split(r"\s*[+/、]\s*|与|\s和\s", inner):
                found = res.mentioned(item)
                if found and item.strip().startswith(found[0][1]):
                    instances.append(found[0][0])
    marked = [
        tid for m in _EXAMPLE_MARKED.finditer(text) for tid, _ in res.mentioned(m.group(1) or m.group(2))
    ]
    return list(dict.fromkeys(instances)), list(dict.fromkeys(marked))


def _member_clauses(body: str, members: tuple[str, ...]) -> dict[str, str]:
    """Each member's own clauses of a paragraph: those from one that opens with its name up to the
    next member's (a new sentence that opens with no member belongs to none)."""
    own: dict[str, list[str]] = {}
    owner: str | None = None
    for clause, sentence_start in _clauses(body):
        opening = [m for m in members if fold(clause).strip().startswith(fold(m))]
        if opening:
            owner = max(opening, key=len)
        elif sentence_start:
            owner = None
        if owner:
            own.setdefault(owner, []).append(clause)
    return {m: "，".join(c) for m, c in own.items()}


def _example_pairs(
    pairs: Iterable[tuple[str, str]], own_text: dict[str, str], skip: set[str], res: Resolver
) -> set[tuple[str, str]]:
    """What contrasting two members says of their examples: "AOT…（TensorRT 的 Plan 文件）；JIT…
    （PyTorch 的 eager + torch.compile）" sets TensorRT against JIT and against torch.compile.

    An instance is set against the other member and the other member's instances, never against
    its own member (SmoothQuant is what activation quantization needs, not its look-alike).
    Parenthesised instances count when both members have them (one slot filled twice); marked
    ones always; terms in *skip* (the members, mentioned-only nodes) are none. Users
    ("AllReduce…（TP 用）；AllGather…（PP 用）") are no instances: TP is not AllGather's
    look-alike, and TP / PP / EP are contrasted where the text compares them (linking them here
    made the chatbot answer "which parallelism strategies are there" with TP alone).
    """
    out: set[tuple[str, str]] = set()
    for a, b in pairs:
        (ia, ma), (ib, mb) = _examples(own_text.get(a, ""), res), _examples(own_text.get(b, ""), res)
        both = bool(ia) and bool(ib)
        ex_a = [x for x in dict.fromkeys([*(ia if both else []), *ma]) if x not in skip]
        ex_b = [y for y in dict.fromkeys([*(ib if both else []), *mb]) if y not in skip]
        out.update((x, b) for x in ex_a if x not in ex_b)
        out.update((a, y) for y in ex_b if y not in ex_a)
        out.update((x, y) for x in ex_a for y in ex_b if x != y)
    return out


def _joint_pairs(
    entries: list[RawEntry], idxs: list[int], entry_to_term: dict[int, str]
) -> set[tuple[str, str]]:
    """Members of a line that defines several terms, set against each other by that line.

    Two members ("SLA / SLO", "AOT 与 JIT") are stated jointly and contrasted; three are when
    the text names each ("prefill / decode / …"); in a longer list only members that open
    clauses of one sentence are ("INT8 推理主流，INT4 端侧激进").
    """
    first = entries[idxs[0]]
    members = first.group
    ids = list(dict.fromkeys(entry_to_term[i] for i in idxs))
    definition = fold(first.definition or "")
    if len(ids) == 2:
        return {(ids[0], ids[1])}
    if len(ids) == 3:
        named = all(fold(m) in definition or fold(m.split(" ")[-1]) in definition for m in members)
        # "Ampere / Hopper / Blackwell：NVIDIA 三代…微架构": the line calls them kinds or generations
        return set(combinations(ids, 2)) if named or _KINDS_OF.search(definition) else set()
    id_of = {m: entry_to_term[i] for i in idxs if (m := _member_of(entries[i]))}
    out: set[tuple[str, str]] = set()
    for sentence in _SENTENCE.findall(first.definition or ""):
        openers: list[set[str]] = []
        for clause in _CLAUSE.findall(sentence):
            opened = {tid for m in _members_opening(clause, members) if (tid := id_of.get(m))}
            if opened:
                openers.append(opened)
        for k, first_ids in enumerate(openers):  # across clauses, never within one ("FP16/BF16 训练默认")
            for later in openers[k + 1 :]:
                out.update((a, b) for a in first_ids for b in later if a != b)
    return out


def build_edges(
    terms: list[Term],
    entries: list[RawEntry],
    entry_to_term: dict[int, str],
    confusions: list[ConfusionGroup],
) -> tuple[list[Edge], list[dict[str, str]]]:
    """All edges plus a list of unresolved references for the build report."""
    res = Resolver(terms)
    by_id = {t.id: t for t in terms}
    # examples a line gives are read for defined terms only: an imported file keeps no line
    # structure to read them again for a mentioned-only node ("PyTorch 的 eager + torch.compile")
    mentioned_only = {t.id for t in terms if not t.defined}
    edges = EdgeSet()
    unresolved: list[dict[str, str]] = []

    # 1. confusables sections and callouts
    for group in confusions:
        if group.members:
            ids_by_member: dict[str, set[str]] = {}
            for m in group.members:
                found = res.resolve(m)
                if not found:
                    unresolved.append(
                        {"kind": "confusable member", "target": m, "where": f"{group.source}:{group.line}"}
                    )
                ids_by_member[m] = found
            section_pairs = _section_pairs(group, ids_by_member)
            for a, b in section_pairs:
                edges.add(a, b, "confused_with", group.evidence, group.origin, group.source, group.line)
            by_member = _member_clauses(group.evidence.partition("：")[2], group.members)
            own = {tid: text for m, text in by_member.items() for tid in ids_by_member.get(m, ())}
            member_ids = {tid for found in ids_by_member.values() for tid in found}
            for a, b in _example_pairs(section_pairs, own, member_ids | mentioned_only, res):
                edges.add(a, b, "confused_with", group.evidence, group.origin, group.source, group.line)
            continue
        heading, _, body = group.evidence.partition("：")
        words = {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z\-]+", heading)}
        ids = [tid for tid, nm in res.mentioned(body) if not words or any(w in nm for w in words)]
        for a, b in combinations(dict.fromkeys(ids), 2):
            edges.add(a, b, "confused_with", group.evidence, group.origin, group.source, group.line)

    # 2. lines that define several terms together
    by_line: dict[tuple[str, int], list[int]] = {}
    for i, e in enumerate(entries):
        if e.group and i in entry_to_term:
            by_line.setdefault((e.source, e.line), []).append(i)
    for (src, line), idxs in by_line.items():
        ids = list(dict.fromkeys(entry_to_term[i] for i in idxs))
        raw = entries[idxs[0]].raw
        joint = _joint_pairs(entries, idxs, entry_to_term) if len(ids) >= 2 else set()
        for a, b in combinations(ids, 2):
            if (a, b) in joint or (b, a) in joint:
                edges.add(a, b, "confused_with", raw, "paired-definition", src, line)
            else:
                edges.add(a, b, "related_to", raw, "listed-together", src, line)
        first = entries[idxs[0]]
        if joint and first.definition:
            own = {entry_to_term[i]: _own_text(first.definition, entries[i], res) for i in idxs}
            for a, b in _example_pairs(joint, own, set(ids) | mentioned_only, res):
                edges.add(a, b, "confused_with", raw, "paired-definition", src, line)

    # 3. per entry: contrasts, explicit references, mentions
    for i, e in enumerate(entries):
        owner = entry_to_term.get(i)
        if not owner:
            continue
        texts: list[str] = [t for t in (e.definition, e.note) if t]
        for body in texts:
            denied: set[tuple[str, str]] = set()  # (term, sentence) that the text says it is not
            scanned_contrasts = marker_contrasts(by_id[owner], body, res, e.source, e.line)
            scanned_contrasts += parallel_contrasts(by_id[owner], body, res, e.source, e.line)
            scanned_contrasts += parallel_slots(by_id[owner], body, res, e.source, e.line)
            scanned_contrasts += figure_contrasts(by_id[owner], body, res, e.source, e.line)
            for c in scanned_contrasts:
                edges.add(c.a, c.b, "confused_with", c.sentence, c.kind, c.doc, c.line)
                if c.kind in ("negation", "instead") and "不是" in c.sentence:
                    denied.add((c.b, c.sentence))
            for sent in _SENTENCE.findall(body):
                for xm in _XREF.finditer(sent):
                    for other, _ in res.mentioned(xm.group("t")):
                        edges.add(owner, other, "related_to", sent, "xref", e.source, e.line)
            scanned = _own_text(body, e, res) if body is e.definition else body
            for other, nm in res.mentioned(scanned):
                sentence = _sentence_of(body, nm)
                if (other, sentence) not in denied:
                    edges.add(owner, other, "related_to", sentence, "mention", e.source, e.line)
        for title in e.see_also:
            pieces = [title, *re.split(r"\s*与\s*", title)]
            for piece in dict.fromkeys(pieces):
                if not re.search(r"[A-Za-z]", piece):
                    continue
                for other in sorted(res.resolve(piece)):
                    edges.add(owner, other, "related_to", f"详见{title}", "xref", e.source, e.line)

    # 4. opposite names, same names and one role of two vendors
    pairwise_rules = adjacent_opposites(entries, entry_to_term, by_id) + adjacent_contrasts(
        entries, entry_to_term, by_id
    )
    for c in pairwise_rules + same_name_pairs(terms) + vendor_counterparts(terms) + variant_pairs(terms):
        edges.add(c.a, c.b, "confused_with", c.sentence, c.kind, c.doc, c.line)

    return edges.result(), unresolved
