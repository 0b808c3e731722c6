"""Edges between terms, each with its origin and the source's own words as evidence.

``confused_with`` (symmetric) comes from:
- a confusables section or callout (002 易混淆辨析, "两个 Triton 不要混");
- a line that defines two or three terms side by side and names each one in
  its text ("AOT 与 JIT", "prefill / decode", 000's "内部 TCO 是…，外部 TCO 是…");
- a contrast statement in a definition or note: 不等于 X, 区别于 X, 和 X 相对,
  和 X 做对照, 被 X 取代, 不像 X 那样, 不是 X, 比 X 慢/快, 低于/高于 X, 独立于 X,
  对 X 的回应, 不要与 X 混淆.

``related_to`` (directed: the term whose text says it → the term it names) from:
- explicit references: 详见 X where X is a term name, 指向 X, 相当于 X;
- a list line that defines several terms at once (INT8 / INT4 / …);
- a definition or note that mentions another term's label, alias or abbreviation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import combinations, takewhile

from kg.mentions import MentionFinder
from kg.model import ConfusionGroup, Edge, RawEntry, Term
from kg.textnorm import fold, name_key

# Contrast markers. The named group holds the contrasted phrase when the marker
# surrounds it; otherwise the phrase is the rest of the clause. Only the last
# term named in the phrase counts (the head of a Chinese noun phrase comes last:
# "明显低于节点内 NVLink" contrasts with NVLink, not with 节点). A bare 不是/而不是
# is not a marker: in these sources it mostly contrasts with a non-term.
_CONTRAST = re.compile(
    r"(不等于|区别于|不要与|不要和|不能把它等同于|被(?P<by>[^，。；]{1,30}?)取代|不像(?P<like>[^，。；]{1,30}?)那样|"
    r"[（(]不是(?P<isnt>[^）)]{1,30})[）)]|"
    r"比(?P<cmp>[^，。；]{1,20}?)(?:慢|快|大|小|低|高|减半)|低于|高于|独立于|对(?P<resp>[^，。；]{1,20}?)的回应|"
    r"(?:和|与)(?P<rel>[^，。；]{1,30}?)(?:相对|做对照|对照|混淆))"
)
_GROUPS = ("by", "like", "isnt", "cmp", "resp", "rel")
_XREF = re.compile(r"(?:指向|相当于|参见|参照)\s*(?P<t>[^，。；,;]{1,40})")
_SENTENCE = re.compile(r"[^。；;！!？?]+[。；;！!？?]?")


class Resolver:
    """Names → term ids: exact folded name first, then the loose name key."""

    def __init__(self, terms: Iterable[Term]) -> None:
        self.by_fold: dict[str, set[str]] = {}
        self.by_key: dict[str, set[str]] = {}
        pairs = []
        for t in terms:
            for n in t.all_names():
                self.by_fold.setdefault(fold(n), set()).add(t.id)
                self.by_key.setdefault(name_key(n), set()).add(t.id)
                pairs.append((t.id, n))
        self.finder = MentionFinder(pairs)

    def resolve(self, name: str) -> set[str]:
        return self.by_fold.get(fold(name)) or self.by_key.get(name_key(name)) or set()

    def mentioned(self, text: str) -> list[tuple[str, str]]:
        """(term id, matched name) for every term named in *text*, in order, unique."""
        seen: dict[str, str] = {}
        for span in self.finder.find(text):
            seen.setdefault(span.term_id, span.name)
        return list(seen.items())


class EdgeSet:
    """Deduplicating edge collector: one edge per (pair, type, direction rule)."""

    def __init__(self) -> None:
        self.edges: dict[tuple[str, str, str], Edge] = {}

    def add(self, a: str, b: str, type_: str, evidence: str, origin: str, doc: str, line: int) -> None:
        if a == b:
            return
        if type_ == "confused_with":
            a, b = sorted((a, b))  # symmetric: one edge per unordered pair
        key = (a, b, type_)
        if key not in self.edges:
            self.edges[key] = Edge(a, b, type_, evidence.strip()[:300], origin, doc, line)

    def result(self) -> list[Edge]:
        return sorted(self.edges.values(), key=lambda e: (e.type, e.source, e.target))


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


def build_edges(
    terms: list[Term],
    entries: list[RawEntry],
    entry_to_term: dict[int, str],
    confusions: list[ConfusionGroup],
) -> tuple[list[Edge], list[dict[str, str]]]:
    """All edges plus a list of unresolved references for the build report."""
    res = Resolver(terms)
    edges = EdgeSet()
    unresolved: list[dict[str, str]] = []

    # 1. confusables sections and callouts
    for group in confusions:
        ids: list[str] = []
        if group.members:
            for m in group.members:
                found = res.resolve(m)
                if not found:
                    unresolved.append(
                        {"kind": "confusable member", "target": m, "where": f"{group.source}:{group.line}"}
                    )
                ids.extend(sorted(found))
        else:
            heading, _, body = group.evidence.partition("：")
            words = {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z\-]+", heading)}
            for tid, nm in res.mentioned(body):
                if not words or any(w in nm for w in words):
                    ids.append(tid)
        for a, b in combinations(dict.fromkeys(ids), 2):
            edges.add(a, b, "confused_with", group.evidence, group.origin, group.source, group.line)

    # 2. lines that define several terms together
    by_line: dict[tuple[str, int], list[int]] = {}
    for i, e in enumerate(entries):
        if e.group and i in entry_to_term:
            by_line.setdefault((e.source, e.line), []).append(i)
    for (src, line), idxs in by_line.items():
        ids = list(dict.fromkeys(entry_to_term[i] for i in idxs))
        definition = fold(entries[idxs[0]].definition or "")
        members = entries[idxs[0]].group
        named = all(fold(m) in definition or fold(m.split(" ")[-1]) in definition for m in members)
        contrast = 2 <= len(ids) <= 3 and named
        for a, b in combinations(ids, 2):
            if contrast:
                edges.add(a, b, "confused_with", entries[idxs[0]].raw, "paired-definition", src, line)
            else:
                edges.add(a, b, "related_to", entries[idxs[0]].raw, "listed-together", src, line)
                edges.add(b, a, "related_to", entries[idxs[0]].raw, "listed-together", src, line)

    # 3. per entry: contrasts, explicit references, mentions
    for i, e in enumerate(entries):
        owner = entry_to_term.get(i)
        if not owner:
            continue
        texts: list[str] = [t for t in (e.definition, e.note) if t]
        for body in texts:
            denied: set[tuple[str, str]] = set()  # (term, sentence) that the text says it is not
            for sent in _SENTENCE.findall(body):
                for cm in _CONTRAST.finditer(sent):
                    phrase = next((cm.group(g) for g in _GROUPS if cm.group(g)), None)
                    scope = phrase if phrase is not None else re.split(r"[，,：:]", sent[cm.end() :])[0]
                    contrasted = res.mentioned(scope)
                    if contrasted:
                        edges.add(
                            owner, contrasted[-1][0], "confused_with", sent, "contrast", e.source, e.line
                        )
                        if cm.group("isnt"):  # "（不是 OpenAI Triton）" names what it is not
                            denied.add((contrasted[-1][0], sent.strip()))
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

    out = edges.result()
    return out, unresolved
