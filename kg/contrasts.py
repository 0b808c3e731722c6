"""Contrast detection: the pairs of terms the sources set against each other (``confused_with``).

A family of small rules, each with a *kind* that the edge carries as its origin:

- ``negation``: the text denies an identity ("不等于 X", "不能等同于 X", "区别于 X", "不像 X
  那样", "（不是 X）", "…而不是 X");
- ``comparative``: the text ranks the term against another ("比 X 更…", "高于 / 低于 / 少于 X",
  "与 X 相比 / 对比 / 相对", "介于 X 与 Y 之间");
- ``counterpart``: the same role on another vendor or platform ("X 是 AMD 的对应实现",
  "相当于 NVIDIA 平台上的 X");
- ``replacement``: succession ("接替 X", "被 X 取代", "用 X 替代");
- ``parallel``: one sentence gives two terms the same verb, clause by clause ("TTFT 衡量…，TPOT
  衡量…");
- ``opposite``: neighbouring entries of one source whose names differ in exactly one word
  (open / closed model, online / offline inference, active-active / active-passive);
- ``same-name``: two nodes whose names differ only by spacing, a plural, a qualifier or a
  generic head ("TensorCore" and "Tensor Core", "roofline" and "Roofline model").

The contrasted phrase of a marker names the other side; only the last term named in each
item of the phrase counts (the head of a Chinese noun phrase comes last: "明显低于节点内
NVLink" contrasts with NVLink, not 节点). A side the text names by a shortened form of a
sibling ("比 driver 更接近…" inside *CUDA runtime*) is completed from the owner's own name.
Confusables sections and jointly defined lines are read in :mod:`kg.relations`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Protocol

from kg.model import Edge, Evidence, RawEntry, Term
from kg.textnorm import fold, has_cjk, is_cjk_char


class NameResolver(Protocol):
    """What the rules need from :class:`kg.relations.Resolver`."""

    def resolve(self, name: str) -> set[str]: ...

    def mentioned(self, text: str) -> list[tuple[str, str]]: ...


@dataclass(frozen=True)
class Contrast:
    """Two terms a source contrasts, with the sentence that does it and the rule's kind."""

    a: str
    b: str
    kind: str
    sentence: str
    doc: str
    line: int


# (kind, pattern). A named group ``x`` holds the contrasted phrase when the marker surrounds
# it; without it the phrase is the rest of the clause. Earlier patterns win where they overlap.
_NP = r"[^，。；,;]"  # a phrase inside one clause
_MARKERS: list[tuple[str, re.Pattern[str]]] = [
    (kind, re.compile(p))
    for kind, p in (
        ("replacement", rf"被(?P<x>{_NP}{{1,30}}?)(?:取代|替代|代替|接替|替换|淘汰)"),
        ("replacement", rf"用(?P<x>{_NP}{{1,30}}?)(?:取代|替代|代替|替换)"),
        (
            "replacement",
            rf"(?:是|作为)(?P<x>{_NP}{{1,30}}?)的(?:继任者|继任|后继者?|下一代|升级版|前代|前身|演进版)",
        ),
        ("negation", rf"不像(?P<x>{_NP}{{1,30}}?)那样"),
        ("negation", r"[（(]不是(?P<x>[^）)]{1,30})[）)]"),
        ("among", rf"(?:区分|分清|辨析)(?P<x>{_NP}{{2,40}})"),
        ("among", rf"(?P<x>{_NP}{{2,40}}?)(?:之间)?的(?:区别|差异|差别)"),
        (
            "comparative",
            rf"比(?:起)?(?P<x>{_NP}{{1,20}}?)(?:更|还|慢|快|大|小|低|高|减半|省|贵|便宜|少|多|强|弱|好|差)",
        ),
        ("comparative", rf"介于(?P<x>{_NP}{{1,40}}?)之间"),
        ("comparative", rf"(?:和|与|跟|同)(?P<x>{_NP}{{1,30}}?)(?:相对|做对照|对照|混淆|相比|对比|比较)"),
        ("comparative", r"(?:和|与|跟|同)(?P<x>[^，。；,;、]{1,30}?)不同(?=[，,。；;]|的是|$)"),
        ("comparative", rf"是(?P<x>{_NP}{{1,20}}?)的(?:[0-9.]+|[一二两三四五六七八九十几数半]+)倍"),
        ("comparative", rf"对(?P<x>{_NP}{{1,20}}?)的回应"),
        ("counterpart", rf"相当于(?P<x>{_NP}{{0,30}}?(?:平台|生态)?上的{_NP}{{1,30}})"),
        ("counterpart", r"对标"),
        (
            "negation",
            r"不代表|不意味着|不等于|不等同于|区别于|有别于|不同于|并非|不属于|不要与|不要和|不要把|别把|"
            r"不能把它等同于|不能等同于|不能与|独立于",
        ),
        (
            "comparative",
            r"低于|高于|少于|多于|大于|小于|优于|劣于|慢于|快于|不如|胜过|相比于?|相较于?|相对于|比起",
        ),
        ("replacement", r"接替|取代|替换|继任"),
        ("instead", r"而不是|而非"),
    )
]
_COUNTERPART = re.compile(r"的对应(?:实现|指标|版本|产品|方案|物|技术|部件|组件|概念|方案|角色)")
_FORMER_LATTER = re.compile(r"前者.*后者")
# What may sit between a comparison's subject and its marker: "H200 比…", "FP8 的 吞吐 则高于…"
_PREPOSITIONS = set("对在为给向从于按用把将让")  # a term after one of these is not the subject
_SUBJECT_GAP = re.compile(r"^[\s的也则更要都还通常往往一般]*$")
_SENTENCE = re.compile(r"[^。；;！!？?]+[。；;！!？?]?")
_CLAUSE_SPLIT = re.compile(r"[，,：:；;]")
_ITEM_SPLIT = re.compile(r"[、/]|\s与\s|(?<=[^A-Za-z])与|(?<=[^A-Za-z])和|\sand\s|\sor\s|或")
_QUALIFIER = re.compile(r"\s*[（(][^）)]*[）)]\s*")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+]*")
# Heads that only say "this is a model/thing": "roofline" and "Roofline model" share a name.
_GENERIC_HEADS = ("model", "模型")


def sentences(text: str) -> list[str]:
    """The sentences of *text* (split at 。；!? and their ASCII forms)."""
    return [s for s in _SENTENCE.findall(text) if s.strip()]


def _items(phrase: str) -> list[str]:
    return [p for p in _ITEM_SPLIT.split(phrase) if p.strip()]


def _last_named(text: str, res: NameResolver, exclude: str) -> str | None:
    found = [tid for tid, _ in res.mentioned(text) if tid != exclude]
    return found[-1] if found else None


def _sibling(phrase: str, owner: Term, res: NameResolver) -> str | None:
    """The term a shortened name stands for, completed from the owner's own name.

    "比 driver 更接近应用代码" in *CUDA runtime* means *CUDA driver*; "接替 Grace" in *Vera CPU*
    means *Grace CPU*; "同型号 SXM 版本" in *PCIe GPU 形态* means *SXM GPU 形态*. Each word of
    the phrase replaces one word of the owner's name; the result must name a term.
    """
    words = [w for w in _WORD.findall(phrase) if len(w) > 1]
    for label in owner.labels.values():
        parts = _QUALIFIER.sub(" ", label).split()
        if len(parts) < 2:
            continue
        for w in words:
            for i in range(len(parts)):
                candidate = " ".join([*parts[:i], w, *parts[i + 1 :]])
                hit = res.resolve(candidate) - {owner.id}
                if len(hit) == 1 and fold(candidate) != fold(label):
                    return next(iter(hit))
    return None


def _targets(phrase: str, owner: Term, res: NameResolver, keep_owner: bool = False) -> list[str]:
    """Terms a contrasted phrase names: the last term of each listed item."""
    out: list[str] = []
    for item in _items(phrase):
        tid = _last_named(item, res, "" if keep_owner else owner.id) or _sibling(item, owner, res)
        if tid and tid not in out:
            out.append(tid)
    return out


def _clause_subject(before: str, owner: Term, res: NameResolver) -> str:
    """Who is compared: the term just before the marker ("…时 H200 比 H100 …"), else a term that
    opens the marker's clause ("FP8 推理时比 FP16 省…"), else the owner (the subject a Chinese
    definition leaves out)."""
    clause = _CLAUSE_SPLIT.split(before)[-1]
    spans = res.mentioned(clause)
    if not spans:
        return owner.id
    folded = fold(clause)
    last_id, last_name = spans[-1]
    end = folded.rfind(last_name)
    governed = end > 0 and folded[:end].rstrip()[-1:] in _PREPOSITIONS  # "对 LLM 通常被…取代"
    if end >= 0 and not governed and _SUBJECT_GAP.match(folded[end + len(last_name) :]):
        return last_id
    if folded.strip().startswith(spans[0][1]):
        return spans[0][0]
    return owner.id


def marker_contrasts(owner: Term, text: str, res: NameResolver, doc: str, line: int) -> list[Contrast]:
    """Contrasts stated by markers in one entry's definition or note (see module docstring).

    "X 而不是 Y" gives kind ``instead``: it holds only when X and Y share a topic, which is
    known after categories are inferred (:func:`settle_instead`).
    """
    out: list[Contrast] = []
    for sent in sentences(text):
        taken: list[tuple[int, int]] = []
        for kind, pattern in _MARKERS:
            for m in pattern.finditer(sent):
                if any(m.start() < e and s < m.end() for s, e in taken):
                    continue
                taken.append((m.start(), m.end()))
                phrase = m.group("x") if "x" in pattern.groupindex else None
                if phrase is None:
                    phrase = _CLAUSE_SPLIT.split(sent[m.end() :])[0]
                if kind == "counterpart" and not re.search(r"上的", phrase):
                    continue  # a plain 相当于 is a cross-reference (kg.relations)
                before = sent[: m.start()]
                if kind == "among":  # "区分 A 和 B", "A 与 B 的区别": the listed terms, not the owner
                    named = _targets(phrase, owner, res, keep_owner=True)
                    for i, x in enumerate(named):
                        out.extend(
                            Contrast(x, y, "comparative", sent.strip(), doc, line) for y in named[i + 1 :]
                        )
                    continue
                if kind == "instead":
                    # "…受可用 FLOPS 限制，而不是内存带宽": the thing before the marker vs X
                    tail = before if _CLAUSE_SPLIT.split(before)[-1].strip() else before.rstrip("，, ")
                    last = _CLAUSE_SPLIT.split(tail.rstrip("，, "))[-1]
                    subject = _last_named(last, res, "")
                    if subject is None:
                        continue  # "中间数据留在快速内存里而不是…": the other side is no term
                else:
                    # only "X 比 Y…" names its own subject; before 高于/低于/取代… a term in the
                    # clause is mostly the property compared ("带宽通常高于 Ethernet")
                    subject = _clause_subject(before, owner, res) if m.group().startswith("比") else owner.id
                for tid in _targets(phrase, owner, res):
                    if tid == subject:
                        continue
                    out.append(Contrast(subject, tid, kind, sent.strip(), doc, line))
        fl = _FORMER_LATTER.search(sent)
        if fl:  # "X 与 Y：前者…，后者…" — the two terms named last before 前者
            named = list(dict.fromkeys(tid for tid, _ in res.mentioned(sent[: fl.start()])))
            if len(named) >= 2:
                out.append(Contrast(named[-2], named[-1], "comparative", sent.strip(), doc, line))
        cm = _COUNTERPART.search(sent)
        if cm:
            # "RCCL 是 AMD 的对应实现" (its subject) or "是每 token 成本在电力侧的对应指标" (its object)
            clause = _CLAUSE_SPLIT.split(sent[: cm.start()])[-1].strip()
            spans = [(tid, nm) for tid, nm in res.mentioned(clause) if tid != owner.id]
            if spans:
                opens = fold(clause).startswith(spans[0][1])
                other = spans[0][0] if opens else spans[-1][0]
                out.append(Contrast(owner.id, other, "counterpart", sent.strip(), doc, line))
    return out


def _verb_after(clause: str, name: str) -> str | None:
    rest = fold(clause).strip()[len(fold(name)) :].strip()
    if not rest:
        return None
    if is_cjk_char(rest[0]):
        head = rest[:2]
        return head if len(head) == 2 and all(is_cjk_char(c) for c in head) else None
    word = re.match(r"[a-z]+", rest)
    return word.group() if word else None


def parallel_contrasts(owner: Term, text: str, res: NameResolver, doc: str, line: int) -> list[Contrast]:
    """ "TTFT 衡量「多久开始说话」，TPOT 衡量「说得有多快」": clauses of one sentence that open
    with different terms followed by the same verb set those terms side by side."""
    out: list[Contrast] = []
    for sent in sentences(text):
        openers: dict[str, list[str]] = {}
        for clause in _CLAUSE_SPLIT.split(sent):
            clause = clause.strip()
            spans = res.mentioned(clause)
            if not spans or not fold(clause).startswith(spans[0][1]):
                continue
            verb = _verb_after(clause, spans[0][1])
            if verb:
                openers.setdefault(verb, [])
                if spans[0][0] not in openers[verb]:
                    openers[verb].append(spans[0][0])
        for ids in openers.values():
            for i, a in enumerate(ids):
                for b in ids[i + 1 :]:
                    out.append(Contrast(a, b, "parallel", sent.strip(), doc, line))
    return out


def _words(label: str) -> list[str]:
    plain = re.sub(r"[（(]([^）)]*)[）)]", r" \1 ", label).strip()  # "Benchmark (performance)"
    if has_cjk(plain):
        return []
    return [w for w in re.split(r"[\s\-]+", fold(plain)) if w]


# Modifiers that answer one question in opposite ways. General English opposites, not pairs
# of this corpus's terms: the rule asks that two names differ in exactly one such word.
_ANTONYMS = [
    {"open", "closed"},
    {"online", "offline"},
    {"static", "dynamic", "continuous"},
    {"active", "passive"},
    {"input", "output"},
    {"internal", "external"},
    {"symmetric", "asymmetric"},
    {"synchronous", "asynchronous"},
    {"dense", "sparse"},
    {"prefill", "decode"},
    {"local", "remote", "cloud"},
    {"control", "data", "workload"},
    {"hot", "warm", "cold"},
    {"up", "out"},
    {"read", "write"},
    {"byte", "token"},
    {"bandwidth", "capacity"},
    {"intelligence", "performance"},
]


def _one_word_apart(x: str, y: str) -> bool:
    """Names of the same shape that differ in one word, and those words are opposites."""
    a, b = _words(x), _words(y)
    if len(a) != len(b) or len(a) < 2:
        return False
    diff = [(p, q) for p, q in zip(a, b, strict=True) if p != q]
    return len(diff) == 1 and any(set(diff[0]) <= group for group in _ANTONYMS)


def adjacent_opposites(
    entries: Sequence[RawEntry], entry_to_term: dict[int, str], terms: dict[str, Term]
) -> list[Contrast]:
    """Neighbouring entries of one source and section whose English names differ in one word.

    Glossaries file opposites next to each other (开放模型 / 封闭模型, 在线推理 / 离线推理,
    主主 / 主备); the shared words say they answer the same question differently.
    """
    order = sorted(
        (i for i in entry_to_term if entries[i].names),
        key=lambda i: (entries[i].source, entries[i].line),
    )
    out: list[Contrast] = []
    for i, j in pairwise(order):
        x, y = entries[i], entries[j]
        if x.source != y.source or x.section != y.section or x.line == y.line:
            continue
        a, b = entry_to_term[i], entry_to_term[j]
        if a == b:
            continue
        la, lb = terms[a].labels.get("en", ""), terms[b].labels.get("en", "")
        if la and lb and _one_word_apart(la, lb):
            evidence = f"{x.raw.strip()[:140]} / {y.raw.strip()[:140]}"
            out.append(Contrast(a, b, "opposite", evidence, x.source, x.line))
    return out


def _name_forms(term: Term) -> set[str]:
    forms: set[str] = set()
    # A qualifier is dropped from labels only: an alias "Quantization (post-training)" names a
    # kind of quantization, a label "PCIe (GPU form factor)" another thing called PCIe.
    for n in [*term.labels.values(), *term.aliases]:
        plain = _QUALIFIER.sub(" ", n) if n in term.labels.values() else n
        key = re.sub(r"[\s\-_]+", "", fold(plain))
        if not key:
            continue
        forms.add(key)
        if key.endswith("s") and len(key) > 4 and not has_cjk(key):
            forms.add(key[:-1])
        for head in _GENERIC_HEADS:
            if key.endswith(head) and len(key) > len(head) + 2:
                forms.add(key[: -len(head)])
    return forms


def same_name_pairs(terms: Iterable[Term]) -> list[Contrast]:
    """Distinct nodes whose names agree once spacing, plurals, qualifiers and generic heads go.

    Kept apart by the merger because the sources define different things ("TensorCore" of
    the TPU and NVIDIA's "Tensor Core"); a reader meets both names and needs the warning.
    """
    by_form: dict[str, list[Term]] = {}
    for t in terms:
        for f in _name_forms(t):
            by_form.setdefault(f, []).append(t)
    out: dict[tuple[str, str], Contrast] = {}
    for group in by_form.values():
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                if a.id == b.id:
                    continue
                key = (a.id, b.id) if a.id < b.id else (b.id, a.id)
                if key in out:
                    continue
                first = a.definitions[0] if a.definitions else (b.definitions[0] if b.definitions else None)
                if first is None:
                    continue
                sentence = sentences(first.text)[0].strip() if sentences(first.text) else first.text
                out[key] = Contrast(key[0], key[1], "same-name", sentence, first.source, first.line)
    return [out[k] for k in sorted(out)]


# Origins of related_to statements (kg.relations); every other origin states a contrast.
RELATED_ORIGINS = ("mention", "xref", "listed-together", "stated-related")


def settle_instead(edges: list[Edge], terms: Iterable[Term]) -> list[Edge]:
    """Keep an "X 而不是 Y" contrast only when X and Y share a topic; otherwise the sentence
    opposes something else ("中间数据留在快速内存里而不是反复经过 HBM": fast memory vs HBM,
    not kernel fusion vs HBM) and the pair stays ``related_to``."""
    topics = {t.id: set(t.categories) for t in terms}
    out: list[Edge] = []
    for e in edges:
        stated = [x for x in e.items if x.origin not in RELATED_ORIGINS]
        only_instead = e.type == "confused_with" and all(x.origin == "instead" for x in stated)
        if only_instead and not topics.get(e.source, set()) & topics.get(e.target, set()):
            items = [Evidence(x.text, "mention", x.doc, x.line, x.subject) for x in stated]
            items += [x for x in e.items if x.origin in RELATED_ORIGINS]
            first = items[0]
            out.append(
                Edge(e.source, e.target, "related_to", first.text, "mention", first.doc, first.line, items)
            )
            continue
        out.append(e)
    return out
