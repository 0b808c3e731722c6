"""Answer text built only from the graph, every statement with a numbered citation.

A :class:`Composer` collects lines and :class:`~kg.chat.model.Citation` values; quoting
the same text twice reuses its marker. The words around the quotes (headings, "Definition
(Chinese source 002):", list labels) are fixed templates in the question's language; the
statements themselves are the sources' own words, quoted verbatim.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from difflib import SequenceMatcher
from functools import lru_cache

from rapidfuzz import fuzz

from kg.chat.model import Citation
from kg.model import Definition, Edge, Term
from kg.store import Glossary
from kg.textnorm import fold, has_cjk

__all__ = ["Composer", "display_name", "edges_between", "quote_key", "repeated_sentences", "short_name"]

_T: dict[str, dict[str, str]] = {
    "zh": {
        "def": "定义（{src}）：{q}",
        "def_more": "另一来源（{src}）：{q}",
        "def_same": "同一来源的另一处（{src}）：{q}",
        "note": "在推理系统里看什么（{src}）：{q}",
        "src": "来源 {id}",
        "related": "相关术语：{items}",
        "named_above": "- 上面的引文已说到：{items} {marker}",
        "between": "{a} 与 {b} 的联系（{src}）：{q}",
        "cmp_head": "{a} 与 {b} 的对比：",
        "cmp_diff": "词表的辨析（{src}）：{q}",
        "cmp_edge": "两者的直接联系（{src}）：{q}",
        "cmp_none": "词表里没有直接对比这两个概念的说法；以上是两者各自的定义。",
        "cmp_shared": "两者共同相连的术语：{items}",
        "same_term": "“{a}”和“{b}”在词表里是同一个概念的不同名称：{names}。",
        "rel_head": "词表中与 {a} 相连的术语：",
        "members_head": "词表里与 {a} 相连的{cls}：",
        "examples_head": "词表给出的 {a} 的代表：",
        "rel_pair_none": "词表里没有 {a} 与 {b} 之间的直接说法。",
        "rel_path": "图中连接两者的路径：{path}。",
        "rel_none": "词表里没有与 {a} 相连的术语。",
        "via": "- {n}（与 {b} 相连）：{q}（{src}）",
        "list_head": "词表里属于 {head} 这一类的术语：",
        "list_none": "词表里没有列出 {head} 的具体种类。",
        "howto_head": "词表中与这个问题相关的说法：",
        "howto_tail": "词表没有专门回答怎么做或为什么的条目；以上是相关定义和来源原文。",
        "names": "{t} 的名称 —— 中文：{zh}；英文：{en}{abbr}{alias}。",
        "names_abbr": "；缩写：{v}",
        "names_alias": "；别名：{v}",
        "none": "（词表未给出）",
        "abbr_is": "{asked} 是 {full} 的缩写/简称。",
        "abbr_alias": "{asked} 在词表里是 {full} 的另一个名称。",
        "abbr_nofull": "词表只给出 {asked} 这个写法，没有给出它的全称。",
        "refuse": "词表里没有能回答这个问题的条目，我不做猜测。",
        "refuse_unknown": "词表里没有“{names}”这个术语。",
        "refuse_pronoun": "我不确定“{p}”指的是哪个术语，请直接说出术语名称。",
        "social_hello": "你好！我回答 LLM 推理工程的术语问题，例如：TTFT 是什么？张量并行和流水线并行有什么区别？",
        "social_bye": "不客气！还有术语问题，随时问我。",
        "refuse_pronouns": "我不确定“{p}”指的是哪些术语，请直接说出它们的名称。",
        "which_head": "词表中最符合这个描述的术语是 {a}：",
        "which_more": "其他可能相关的术语：{items}",
        "nearest": "相近的术语：{items}",
        "partial": "词表里找不到与“{slot}”对应的术语（相近：{items}）；下面只介绍 {a}。",
        "mentioned_head": "{a} 不是词表中定义的术语；来源只在以下地方提到它：",
        "mentioned_site": "- {entry} 词条（{src}）：{q}",
        "mentioned_plain": "- {src}：{q}",
        "mentioned_more": "另有 {n} 处提到它，未列出。",
        "sep": "、",
        "colon": "：",
        "q": "「{}」",
    },
    "en": {
        "def": "Definition ({src}): {q}",
        "def_more": "Another source ({src}): {q}",
        "def_same": "Elsewhere in the same source ({src}): {q}",
        "note": "What to watch in inference systems ({src}): {q}",
        "src": "{script}source {id}",
        "related": "Related terms: {items}",
        "named_above": "- Named in the quote above: {items} {marker}",
        "between": "{a} and {b} ({src}): {q}",
        "cmp_head": "{a} vs {b}:",
        "cmp_diff": "How the glossary tells them apart ({src}): {q}",
        "cmp_edge": "Direct link between them ({src}): {q}",
        "cmp_none": "The glossary does not compare these two directly; above are their own definitions.",
        "cmp_shared": "Terms linked to both: {items}",
        "same_term": "“{a}” and “{b}” are names of the same concept in the glossary: {names}.",
        "rel_head": "Terms the glossary links to {a}:",
        "members_head": "The {cls} the glossary links to {a}:",
        "examples_head": "The examples of {a} the glossary gives:",
        "rel_pair_none": "The glossary says nothing directly linking {a} and {b}.",
        "rel_path": "Path between them in the graph: {path}.",
        "rel_none": "The glossary links no other term to {a}.",
        "via": "- {n} (linked to {b}): {q} ({src})",
        "list_head": "Terms of the kind {head} in the glossary:",
        "list_none": "The glossary lists no kinds of {head}.",
        "howto_head": "What the glossary says that bears on this:",
        "howto_tail": "The glossary has no entry answering the how/why directly; above are the relevant definitions "
        "in the sources' own words.",
        "names": "Names of {t} — Chinese: {zh}; English: {en}{abbr}{alias}.",
        "names_abbr": "; abbreviation: {v}",
        "names_alias": "; aliases: {v}",
        "none": "(not given in the glossary)",
        "abbr_is": "{asked} is short for {full}.",
        "abbr_alias": "{asked} is another name of {full} in the glossary.",
        "abbr_nofull": "The glossary only writes it as {asked}; it does not spell it out.",
        "refuse": "The glossary has no entry that answers this, so I won't guess.",
        "refuse_unknown": "The glossary has no term called “{names}”.",
        "refuse_pronoun": "I'm not sure which term “{p}” refers to — please name it.",
        "social_hello": "Hello! I answer questions about the vocabulary of LLM inference, e.g. "
        "“What is TTFT?” or “How does tensor parallelism differ from pipeline parallelism?”",
        "social_bye": "You're welcome! Ask any time you meet another term.",
        "refuse_pronouns": "I'm not sure which terms “{p}” refers to — please name them.",
        "which_head": "The glossary term that best fits this description is {a}:",
        "which_more": "Other terms that may be relevant: {items}",
        "nearest": "Nearest terms in the glossary: {items}",
        "partial": "The glossary has no term matching “{slot}” (nearest: {items}); here is {a} only.",
        "mentioned_head": "{a} is not defined in the glossary; it is mentioned in:",
        "mentioned_site": "- the entry for {entry} ({src}): {q}",
        "mentioned_plain": "- {src}: {q}",
        "mentioned_more": "… and {n} more sentences.",
        "sep": ", ",
        "colon": ": ",
        "q": "\u201c{}\u201d",
    },
}


def t(lang: str, key: str, **kw: str) -> str:
    return _T[lang][key].format(**kw)


def short_name(term: Term, lang: str) -> str:
    """The name to use inside sentences: an abbreviation in English, the Chinese label in Chinese."""
    if lang == "zh":
        return term.labels.get("zh") or (term.abbreviations[0] if term.abbreviations else term.label("en"))
    if term.abbreviations and len(term.abbreviations[0]) <= 10:
        return term.abbreviations[0]
    return term.label("en")


def display_name(term: Term, lang: str) -> str:
    """Full heading name: "首 token 时间（Time To First Token，TTFT）" / "Time To First Token (TTFT; Chinese: 首 token 时间)"."""
    zh, en = term.labels.get("zh"), term.labels.get("en")
    abbr = [a for a in term.abbreviations if a not in (zh, en)][:1]
    if lang == "zh":
        main = zh or en or term.id
        extra = [x for x in (en if main != en else None, *abbr) if x]
        return f"{main}（{'，'.join(extra)}）" if extra else main
    main = en or zh or term.id
    extra = list(abbr)
    if zh and main != zh:
        extra.append(f"Chinese: {zh}")
    elif not en:
        extra.append("Chinese term")
    return f"{main} ({'; '.join(extra)})" if extra else main


def edges_between(glossary: Glossary, a: str, b: str) -> list[Edge]:
    """Edges joining *a* and *b*, ``confused_with`` first."""
    out = [e for e in glossary.edges_of(a) if {e.source, e.target} == {a, b}]
    return sorted(out, key=lambda e: (e.type != "confused_with", e.doc, e.line))


#: a cross-reference ("详见vLLM 与 PagedAttention"): it links two terms but says nothing of how
_LINK_TEXT = re.compile(r"^\s*(?:详见|参见|見|see also\b|see\b)", re.IGNORECASE)


def _said_not_linked(edge: Edge) -> Edge:
    """*edge* headed by its first evidence item that is not link text, when its head is."""
    if not _LINK_TEXT.match(edge.evidence):
        return edge
    item = next((x for x in edge.items if not _LINK_TEXT.match(x.text)), None)
    if item is None:
        return edge
    rest = [x for x in edge.items if x is not item]
    return Edge(
        edge.source, edge.target, edge.type, item.text, item.origin, item.doc, item.line, [item, *rest]
    )


def best_edge(glossary: Glossary, focus: str, other: str) -> Edge | None:
    """The edge that best says how *other* relates to *focus*: confused_with, then a sentence
    rather than a cross-reference ("详见…"), then other's own text, then the shortest."""
    edges = [_said_not_linked(e.stated_by(other) or e) for e in edges_between(glossary, focus, other)]
    if not edges:
        return None
    return sorted(
        edges,
        key=lambda e: (
            e.type != "confused_with",
            bool(_LINK_TEXT.match(e.evidence)),
            e.source != other,
            len(e.evidence),
        ),
    )[0]


_CLAUSE = re.compile(r"[^；;。，,]+[；;。，,]?")


@lru_cache(maxsize=8)
def _sharers(glossary: Glossary) -> dict[str, frozenset[str]]:
    """Definition text -> the terms it defines (more than one for a jointly stated entry)."""
    by_text: dict[str, set[str]] = {}
    for t in glossary.terms.values():
        for d in t.definitions:
            by_text.setdefault(d.text, set()).add(t.id)
    return {text: frozenset(ids) for text, ids in by_text.items()}


def member_part(glossary: Glossary, term: Term, text: str) -> str:
    """The part of a jointly stated definition that is *term*'s own, verbatim.

    "分布式集合通信原语。AllReduce 求和后广播（TP 用）；AllGather 各卡拼齐（PP 用）；…" gives
    AllGather "AllGather 各卡拼齐（PP 用）" and AllReduce "分布式集合通信原语。AllReduce 求和后广播（TP
    用）" (the shared opening when it runs straight into the member's clause). A definition
    without clauses that open with other terms' names is returned whole.
    """
    clauses = [(m.start(), m.end()) for m in _CLAUSE.finditer(text) if m.group(0).strip()]
    if len(clauses) < 2:
        return text
    own = {fold(n) for n in term.all_names() if len(n) >= 2}
    # another member's clause opens with that member's name: the names of the terms the same
    # text defines, not any glossary name ("推理系统的可用性边界" in SLA / SLO's line is no
    # clause of Inference's)
    members = _sharers(glossary).get(text, frozenset()) - {term.id}
    others = sorted(
        {fold(n) for m in members if m in glossary for n in glossary.terms[m].all_names() if len(n) >= 2}
        - own
    )

    def opens_with(i: int, names: Iterable[str]) -> bool:
        head = fold(text[clauses[i][0] : clauses[i][1]].strip())
        return any(head.startswith(n) and not re.match(r"[a-z0-9]", head[len(n) : len(n) + 1]) for n in names)

    mine = [i for i in range(len(clauses)) if opens_with(i, own)]
    theirs = [i for i in range(len(clauses)) if i not in mine and opens_with(i, others)]
    if not mine or not theirs:
        return text
    first, last = mine[0], mine[0]
    while last + 1 in mine:
        last += 1
    if first == min(mine + theirs) and first > 0:
        first = 0  # the shared opening runs straight into this member's clause
    part = text[clauses[first][0] : clauses[last][1]].strip().rstrip("；;，,")
    return part or text


#: where one sentence of a quote ends
_SENTENCE_END = re.compile(r"[。；;！!？?]|\.\s")


#: a clause ends after these (the delimiter stays with its clause)
_CLAUSE_END = re.compile(r"(?<=[，,。；;！!？?\n])")


_QUOTES = re.compile(r"「([^」]*)」|“([^”]*)”")


def repeated_sentences(text: str) -> list[str]:
    """Sentences (six characters or more, spaces and punctuation aside) that two quotes of an
    answer's *text* both print: what readers see as the same sentence twice. ``glossary
    eval-chat`` reports the share of answers that have any."""
    quotes = [a or b for a, b in _QUOTES.findall(text)]
    keys = [quote_key(q) for q in quotes]
    out = []
    for i, quote in enumerate(quotes):
        for sentence in _SENTENCE_END.split(quote):
            k = quote_key(sentence)
            if len(k) >= 6 and any(k in other for j, other in enumerate(keys) if j != i):
                out.append(sentence)
    return out


@lru_cache(maxsize=8)
def _name_keys(glossary: Glossary) -> re.Pattern[str]:
    """Every glossary name as a quote key (longest first), as one pattern."""
    names = {quote_key(n) for term in glossary.terms.values() for n in term.all_names()}
    return re.compile(
        "|".join(map(re.escape, sorted((n for n in names if len(n) >= 2), key=len, reverse=True)))
    )


def quote_key(text: str) -> str:
    """*text* folded, without spaces and punctuation: the same words quoted twice compare equal."""
    return "".join(ch for ch in fold(text) if ch.isalnum())


def _novel(text: str, shown: Sequence[str]) -> bool:
    return len(text) >= 8 and all(fuzz.partial_ratio(text, s) < 75 for s in shown)


class Composer:
    """Lines of one answer plus their citations."""

    def __init__(self, glossary: Glossary, lang: str) -> None:
        self.g = glossary
        self.lang = lang
        self.lines: list[str] = []
        self.citations: list[Citation] = []
        self._markers: dict[tuple[str, str], int] = {}
        # the quoted words so far, folded, with their markers: a later line must not print a
        # sentence again
        self._quoted: list[tuple[str, int]] = []
        self.terms: list[str] = []

    # --- bookkeeping -------------------------------------------------------------------------
    def use(self, *term_ids: str) -> None:
        for tid in term_ids:
            if tid not in self.terms:
                self.terms.append(tid)

    def cite(
        self,
        term_id: str,
        source: str,
        quote: str,
        kind: str = "definition",
        line: int = 0,
        edge: Edge | None = None,
    ) -> str:
        """Record a citation (or reuse the marker of the same quote) and return ``[n]``."""
        key = (source, quote)
        if key not in self._markers:
            marker = len(self.citations) + 1
            self._markers[key] = marker
            self.citations.append(
                Citation(
                    term_id=term_id,
                    source=source,
                    quote=quote,
                    kind=kind,  # type: ignore[arg-type]
                    line=line,
                    marker=marker,
                    edge=None if edge is None else (edge.type, edge.source, edge.target),
                )
            )
            self._quoted.append((quote_key(quote), marker))
        self.use(term_id)
        return f"[{self._markers[key]}]"

    def cited(self, source: str, quote: str) -> bool:
        return (source, quote) in self._markers

    def fresh_statements(self, edges: Sequence[Edge]) -> list[tuple[Edge, str]]:
        """``(edge, words)`` for each evidence item of *edges* that still has words to quote
        (:meth:`fresh_part`), the edge headed by that item so that its marker cites the item's own
        source and line. A cross-reference ("详见vLLM 与 PagedAttention") is never one: when the
        sentence that links two terms is already quoted above, the link's title is not quoted in
        its place."""
        out: list[tuple[Edge, str]] = []
        for e in edges:
            for item in e.items:
                if _LINK_TEXT.match(item.text) or (part := self.fresh_part(item.text)) is None:
                    continue
                out.append((e.headed_by(item), part))
        return out

    def quoted(self, text: str) -> bool:
        """The answer already quotes these words, or one of their sentences (alone or inside a
        longer quote): an edge whose evidence is a sentence of the definition above, or two
        lines of which one is that definition, would print it a second time."""
        return self.quoted_marker(text) is not None

    def fresh_part(self, text: str) -> str | None:
        """*text*, or its longest run of clauses the answer does not quote yet (a joint entry's
        "A 是…，B 是…，两者可能相差很大" after each member's own clause: "两者可能相差很大"), or
        None when all of it is quoted already. The part is the source's own words, verbatim."""
        clauses = [c for c in _CLAUSE_END.split(text) if c]
        new = [self.quoted_marker(c) is None for c in clauses]
        if all(new):
            return text
        best: tuple[int, int] = (0, 0)
        start = 0
        for i, keep in enumerate([*new, False]):
            if not keep:
                if i - start > best[1] - best[0]:
                    best = (start, i)
                start = i + 1
        part = "".join(clauses[best[0] : best[1]]).strip().rstrip("，,；;")
        return part if len(quote_key(part)) >= 6 else None

    def quoted_marker(self, text: str) -> int | None:
        """The marker of the quote that already holds *text* or one of its sentences, or that a
        sentence of *text* holds ("A100 / H100 / … NVIDIA 数据中心 GPU 具体型号" after the quoted
        "NVIDIA 数据中心 GPU 具体型号"; eight characters or more, not a short name)."""
        keys = [quote_key(part) for part in _SENTENCE_END.split(text)]
        keys = [k for k in keys if len(k) >= 6] or [quote_key(text)]
        for q, m in self._quoted:
            for k in keys:
                if k and (k in q or (len(q) >= 8 and q in k) or self._same_but_names(k, q)):
                    return m
        return None

    def _same_but_names(self, k: str, q: str) -> bool:
        """*k* is words of the quote *q* plus glossary names: a source line "static batching（静态
        批处理） 请求攒齐一个 batch 后一起进" after the quoted definition "请求攒齐一个 batch 后一起进、
        一起出。简单但…"."""
        names = _name_keys(self.g)
        rest = names.sub("", k)
        if len(rest) >= 6 and rest != k and rest in q:
            return True  # "INT8 / INT4 / … / BF16 常见数值精度。"
        # names only around the shared words ("batch" inside them is a name too)
        block = SequenceMatcher(None, k, q, autojunk=False).find_longest_match(0, len(k), 0, len(q))
        return block.size >= 8 and len(names.sub("", k[: block.a] + k[block.a + block.size :])) <= 2

    def add(self, line: str) -> None:
        self.lines.append(line)

    def text(self) -> str:
        return "\n".join(self.lines)

    # --- pieces ------------------------------------------------------------------------------
    def q(self, quote: str) -> str:
        return _T[self.lang]["q"].format(quote)

    def src(self, source: str, lang: str = "zh") -> str:
        if self.lang == "zh":
            return t("zh", "src", id=source)
        return t("en", "src", id=source, script="Chinese " if lang == "zh" else "")

    def name(self, term_id: str) -> str:
        return short_name(self.g.terms[term_id], self.lang)

    def bold(self, term_id: str, full: bool = False) -> str:
        term = self.g.terms[term_id]
        return f"**{display_name(term, self.lang) if full else short_name(term, self.lang)}**"

    def definitions(self, term: Term, max_defs: int = 2, notes: int = 1) -> list[Definition]:
        """Cite the best definition, then others that add something, then notes."""
        shown: list[str] = []
        used: list[Definition] = []
        for d in term.definitions:
            if len(used) >= max_defs:
                break
            if used and not _novel(d.text, shown):
                continue
            key = "def" if not used else "def_same" if any(u.source == d.source for u in used) else "def_more"
            # a joint entry's words another side of the answer quotes already are not quoted again
            quote = self.fresh_part(member_part(self.g, term, d.text))
            if quote is None:
                continue
            marker = self.cite(term.id, d.source, quote, "definition", d.line)
            self.add(t(self.lang, key, src=self.src(d.source, d.lang), q=self.q(quote)) + " " + marker)
            shown.append(d.text)
            used.append(d)
        noted = 0
        for d in [*used, *(x for x in term.definitions if x not in used)]:
            if noted >= notes:
                break
            if d.note and _novel(d.note, shown):
                marker = self.cite(term.id, d.source, d.note, "note", d.line)
                self.add(
                    t(self.lang, "note", src=self.src(d.source, d.lang), q=self.q(d.note)) + " " + marker
                )
                shown.append(d.note)
                noted += 1
        self.use(term.id)
        return used

    def first_definition(self, term: Term) -> None:
        quotes = ((d, self.fresh_part(d.text)) for d in term.definitions[:1])
        for d, quote in quotes:
            if quote is None:  # the other side of the answer quotes these words already
                continue
            marker = self.cite(term.id, d.source, quote, "definition", d.line)
            self.add(t(self.lang, "def", src=self.src(d.source, d.lang), q=self.q(quote)) + " " + marker)
        self.use(term.id)

    def edge_marker(self, edge: Edge, about: str, quote: str | None = None) -> str:
        """The marker of *edge*'s evidence (or of *quote*, a part of it) as a citation."""
        return self.cite(about, edge.doc, quote or edge.evidence, "edge", edge.line, edge)

    def edge_items(self, focus: str, others: Sequence[str], max_lines: int = 6) -> list[str]:
        """ "- **Prefill**（预填充）：「evidence」（来源 001）[n]" per neighbour, in *others*' order;
        neighbours whose best edge quotes the same words share one line ("- **SGLang**、**TGI**：…"),
        and those whose evidence the answer already quotes are only named, with that quote's marker
        ("- 上面的引文已说到：**上下文并行** [1]"): no sentence is printed twice."""
        groups: dict[tuple[str, str], tuple[list[str], Edge]] = {}
        # neighbours whose evidence the answer already quotes: named once, with that quote's marker
        above: dict[int, list[str]] = {}
        for other in others:
            edge = best_edge(self.g, focus, other)
            if edge is None or _LINK_TEXT.match(edge.evidence):
                continue  # a bare cross-reference ("详见…") is no sentence to quote
            # each neighbour named above takes the line it would have had: no more terms are listed
            used = len(groups) + sum(map(len, above.values()))
            part = edge.evidence if (edge.doc, edge.evidence) in groups else self.fresh_part(edge.evidence)
            if part is None:
                shown = self.quoted_marker(edge.evidence)
                if used < max_lines and shown is not None:
                    above.setdefault(shown, []).append(other)
                continue
            key = (edge.doc, part)
            # a part inside one already chosen ("LLM 推理的两阶段…" inside "prefill / decode … LLM
            # 推理的两阶段…") shares that line
            key = next((k for k in groups if k[0] == edge.doc and quote_key(part) in quote_key(k[1])), key)
            if key not in groups and any(
                len(quote_key(k[1])) >= 8 and quote_key(k[1]) in quote_key(part) for k in groups
            ):
                continue  # it holds a line already chosen whole: quoting it would repeat that line
            if key not in groups:
                if used >= max_lines:
                    continue
                groups[key] = ([], edge)
            groups[key][0].append(other)
        lines = []
        lines += [self.named_above(shown, members) for shown, members in above.items()]
        for (_, part), (members, edge) in groups.items():
            marker = self.edge_marker(edge, members[0], part)
            for m in members[1:]:
                self.use(m)
            if len(members) == 1:
                head = f"{self.bold(members[0])}{_extra_names(self.g.terms[members[0]], self.lang)}"
            else:
                head = t(self.lang, "sep").join(self.bold(m) for m in members)
            if self.lang == "zh":
                lines.append(f"- {head}：{self.q(part)}（{self.src(edge.doc)}）{marker}")
            else:
                lines.append(f"- {head}: {self.q(part)} ({self.src(edge.doc)}) {marker}")
        return lines

    def named_above(self, marker: int, term_ids: Sequence[str]) -> str:
        """ "- Named in the quote above: **quantization**, **TP** [1]": terms whose link to the
        answer's subject is a sentence quote [marker] already prints (no sentence twice)."""
        self.use(*term_ids)
        items = t(self.lang, "sep").join(self.bold(m) for m in term_ids)
        return t(self.lang, "named_above", items=items, marker=f"[{marker}]")

    def related_names(self, focus: str, others: Iterable[str], limit: int = 4) -> str | None:
        """ "Related terms: Prefill [4], TPOT [5]" — each backed by an edge's evidence."""
        items = []
        for other in others:
            edge = best_edge(self.g, focus, other)
            if edge is None:
                continue
            items.append(f"{self.name(other)} {self.edge_marker(edge, other)}")
            if len(items) >= limit:
                break
        return t(self.lang, "related", items=_T[self.lang]["sep"].join(items)) if items else None

    def follow(self, kind: str, *term_ids: str) -> str:
        names = [self.name(i) for i in term_ids]
        zh = self.lang == "zh"
        if kind == "define":
            return f"什么是 {names[0]}？" if zh else f"What is {names[0]}?"
        if kind == "compare":
            return (
                f"{names[0]} 和 {names[1]} 有什么区别？"
                if zh
                else f"What is the difference between {names[0]} and {names[1]}?"
            )
        if kind == "related":
            return f"和 {names[0]} 相关的概念有哪些？" if zh else f"What is related to {names[0]}?"
        if kind == "names":
            return f"{names[0]} 的英文名是什么？" if zh else f"What is the Chinese name of {names[0]}?"
        raise ValueError(kind)


def _extra_names(term: Term, lang: str) -> str:
    """ "（Prefill）" after a Chinese short name, " (预填充)" after an English one."""
    main = short_name(term, lang)
    other = term.labels.get("en") if lang == "zh" else term.labels.get("zh")
    if not other or other == main:
        return ""
    if lang == "zh" and has_cjk(main):
        return f"（{other}）"
    return f" ({other})"
