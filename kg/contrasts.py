"""Contrast detection: the pairs of terms the sources set against each other (``confused_with``).

A family of small rules keyed on linguistic cues, not on particular sentences; each gives a
*kind* that the edge carries as its origin:

- ``negation``: the text denies an identity ("不等于 X", "不能等同于 X", "区别于 X", "迥异于 X",
  "不像 X 那样", "（不是 X）", "不一定需要独立 X", "勿与 X…", "unlike X", "differs from X",
  "confused with X");
- ``comparative``: the text ranks or weighs terms ("比 / 较之 X 更…", "高于 / 低于 / 逊于 / 不及 X",
  "与 X 相比 / 对比 / 相对 / 相反 / 混为一谈 / 有所不同" — "A 与 B…" with A touching 与 has A as
  its subject, not the owner —, "介于 X 与 Y 之间", "Y 是更…的说法", "than X", "superior to X"),
  offers them as alternatives
  ("X 还是 Y", "可以 X，也可以 Y", "X vs Y", "X 与 Y 之间的权衡", "两者…不同", a trade: "用 X 换 Y",
  "trades X for Y"), names a baseline ("也是量化方案精度对照的基准"), orders two stages ("发生在
  serving 之前"), or sets their
  figures side by side ("A100 2 TB/s、H100 3.35 TB/s");
- ``counterpart``: the same role on another vendor or platform ("X 是 AMD 的对应实现",
  "相当于 NVIDIA 平台上的 X", "对标 X", "the counterpart of X", two definitions that say the same
  of different vendors);
- ``replacement``: succession ("接替 X", "被 X 取代", "用 X 替代", "X 之后的未来…架构", "superseded
  by X", "deprecated in favour of X");
- ``instead``: "X 而不是 Y", "rather than", and "不是 X，而是 Y" / "not X but Y" with both named
  (settled by topic, :func:`settle_instead`); when X
  is what bounds the owner ("计算受限：性能主要受可用 FLOPS 限制，而不是内存带宽"), the owner
  is set against Y too;
- ``implementation``: "算子在硬件上的具体实现" (the abstract thing and its concrete form);
- ``parallel``: one sentence gives two terms the same verb, clause by clause ("TTFT 衡量…，TPOT
  衡量…", "延迟看…；吞吐看…"), or fills one slot with a different term in each clause
  ("AllReduce…（TP 用）；AllGather…（PP 用）", "聊天重 TTFT，批处理重吞吐"), or sets a clause's
  subject against the clause before it with a contrastive topic or conjunction ("scale-out 则…",
  "B 却 / 反而…", "…，而 B…", "…, whereas B…", "…, while B…");
- ``comparative`` also for the parts of one whole ("同时包含注意力层和线性注意力层"), terms called
  different tiers of one thing ("NVLink、HBM、InfiniBand 是不同层级的带宽"), a performance set
  against another term's ("性能接近手写 CUDA"), and two definitions in the same words but for
  their figures ("B200：…192 GB VRAM…" / "B300：…288 GB VRAM…");
- ``opposite``: names that differ in one opposite modifier (open / closed model, 在线 / 离线推理,
  对称 / 非对称量化, 双 / 三缓冲), and neighbouring entries of one kind described by opposite traits (CPU
  "顺序…通用处理器" / GPU "高度并行的处理器");
- ``same-name``: two nodes whose names differ only by spacing, a plural, a qualifier or a
  generic head ("TensorCore" and "Tensor Core", "roofline" and "Roofline model"), or contain each
  other crosswise across the languages ("Engine" / 推理引擎产物 and "inference engine" / 推理引擎).

The contrasted phrase of a marker names the other side; only the last term named in each
item of the phrase counts (an English name in the plural counts too: "than Tensor Cores") (the head of a Chinese noun phrase comes last: "明显低于节点内
NVLink" contrasts with NVLink, not 节点). A side the text names by a shortened form of a
sibling ("比 driver 更接近…" inside *CUDA runtime*) is completed from the owner's own name; a
side named by its parts ("prefill-decode 分离") is the one term whose name holds the word and
whose definition names every part (:meth:`kg.relations.Resolver.described`); a bare head that
labels share once their qualifiers go ("通用 benchmark", with "Benchmark (intelligence)" and
"Benchmark (performance)") is the one whose own words the owner's text uses
(:meth:`kg.relations.Resolver.qualified`); a Chinese "<trait><kind>" phrase no name matches
("不像稀疏模型那样" in *Dense model*) is the one other term of that kind whose definition has the
trait (:meth:`kg.relations.Resolver.kind_named`).
Confusables sections and jointly defined lines (with the examples their members give) are
read in :mod:`kg.relations`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Protocol

from kg.model import Definition, Edge, Evidence, RawEntry, Term
from kg.textnorm import fold, has_cjk, is_cjk_char


class NameResolver(Protocol):
    """What the rules need from :class:`kg.relations.Resolver`."""

    def resolve(self, name: str) -> set[str]: ...

    def mentioned(self, text: str) -> list[tuple[str, str]]: ...

    def qualified(self, phrase: str, context: str) -> str | None: ...

    def described(self, phrase: str) -> str | None: ...

    def kind_named(self, phrase: str, exclude: str = "") -> str | None: ...


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
# it (``t`` / ``o``: the term must end / open it, touching the marker); without it the phrase
# is the rest of the clause. Earlier patterns win where they overlap.
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
        # "Rubin 之后的未来 NVIDIA 架构", "加入 prefill-decode 分离之前的默认部署形态"
        (
            "replacement",
            rf"(?P<t>{_NP}{{1,30}}?)(?:之后|以后|之前|以前)的(?:下一代|新一代|未来|新|默认|上一代|旧|传统)",
        ),
        # "kernel：算子在硬件上的具体实现": the abstract thing and its concrete form
        ("implementation", rf"(?P<t>{_NP}{{1,20}}?)(?:在{_NP}{{1,12}}?上)?的具体(?:实现|形式|化身)"),
        ("negation", rf"不像(?P<x>{_NP}{{1,30}}?)那样"),
        # "不一定需要独立 draft model": an alternative to a separate X (the term opens the phrase)
        (
            "negation",
            rf"(?:不一定|并不|无需|不必|不需要|不依赖)(?:需要|使用|依赖)?(?:额外|独立|单独)的?\s*(?P<o>{_NP}{{1,30}})",
        ),
        ("negation", r"[（(]不是(?P<x>[^）)]{1,30})[）)]"),
        ("among", rf"(?:区分|分清|辨析)(?P<x>{_NP}{{2,40}})"),
        # two kinds of part in one whole: "同时包含注意力层和线性注意力层的模型", "both X and Y"
        ("among", rf"(?:同时|兼)(?:包含|含有|具有|具备|使用|保留)(?P<x>{_NP}{{2,40}}?)的"),
        ("among", r"(?i)\bboth\s+(?P<x>[^,.;:]{1,40}?\s+and\s+[^,.;:]{1,40}?)(?=[,.;:]|$)"),
        ("among", rf"(?P<x>{_NP}{{2,40}}?)(?:之间)?的(?:区别|差异|差别)"),
        ("among", rf"(?P<x>{_NP}{{2,40}}?)之间(?:存在|有)?(?:的)?(?:权衡|取舍|折中)"),
        # "NVLink、HBM、InfiniBand 是不同层级的带宽": listed terms said to be different tiers or kinds
        (
            "among",
            rf"(?P<x>{_NP}{{2,40}}?)(?:是|属于|代表|分属)(?:(?:完全|截然)?不同|两种|三种|两类|三类)(?:的)?(?:层级|层次|级别|类型|种类|阶段|代际|路线)",
        ),
        ("among", r"(?i)\b(?:difference|distinguish)\w*\s+between\s+(?P<x>[^,.;:]{2,60})"),
        ("among", r"(?P<x>[^，。；,;：:]{1,30}?)还是(?P<y>[^，。；,;：:]{1,30})"),
        # alternatives: "可以直接 prompting，也可以 fine-tuning", "要么 X，要么 Y"
        (
            "among",
            r"(?:可以|要么|或者|either)(?P<x>[^。；;]{1,30}?)[，,\s]*(?:也可以|要么|或者|\bor\b)(?P<y>[^，。；,;]{1,30})",
        ),
        ("among", r"(?P<x>[^，。；,;：:（(]{1,40}?)\s+(?:vs\.?|versus|VS)\s+(?P<y>[^，。；,;：:）)]{1,40})"),
        # a trade: "它用显存换计算", "trades memory for compute"
        ("among", rf"(?:用|以|拿)(?P<x>{_NP}{{1,20}}?)(?:换取|换来|来换|换)(?P<y>{_NP}{{1,20}})"),
        ("among", r"(?i)\btrades?\s+(?P<x>[^,.;:]{1,30}?)\s+for\s+(?P<y>[^,.;:]{1,30})"),
        # a baseline compared against: "也是量化方案精度对照的基准", "the baseline for X"
        (
            "comparative",
            rf"(?P<x>{_NP}{{1,30}}?)(?:精度|性能|质量|效果)?(?:对照|对比|比较)的?(?:基准|基线)",
        ),
        # two stages in order: "发生在 serving 之前"
        ("comparative", rf"发生在(?P<x>{_NP}{{1,20}}?)(?:之前|之后|以前|以后)"),
        (
            "comparative",
            rf"(?:比|较之)(?:起)?(?P<x>{_NP}{{1,20}}?)(?:更|还|慢|快|大|小|低|高|减半|省|贵|便宜|少|多|强|弱|好|差)",
        ),
        ("comparative", rf"介于(?P<x>{_NP}{{1,40}}?)之间"),
        # "性能接近手写 CUDA": a performance measured against another term
        (
            "comparative",
            rf"(?:性能|速度|效果|精度|质量)(?:可以|能|已)?(?:接近|逼近|媲美|追平|比肩)(?P<x>{_NP}{{1,30}})",
        ),
        (
            "negation",
            r"(?i)\b(?:unlike|as opposed to|in contrast (?:to|with)|contrary to|not to be confused with|"
            r"(?:as )?distinct from|differs? from|different from|(?:often )?confused with|mistaken for)\b",
        ),
        ("instead", r"(?i)\b(?:rather than|instead of|in place of)\b"),
        (
            "comparative",
            r"(?i)\b(?:(?:as )?compared (?:with|to)|in comparison (?:with|to)|relative to|than|"
            r"outperforms?|superior to|inferior to)\b",
        ),
        (
            "replacement",
            r"(?i)\b(?:replaced by|superseded by|supersedes?|succeeds|successor (?:of|to)|predecessor (?:of|to)|"
            r"(?:deprecated )?in favou?r of|replaces)\b",
        ),
        ("counterpart", r"(?i)\bcounterpart (?:of|to)\b"),
        (
            "comparative",
            rf"(?:和|与|跟|同)(?P<x>{_NP}{{1,30}}?)(?:相对|做对照|对照|混淆|混为一谈|搞混|弄混|相比|对比|比较|"
            r"区分开|区别开|相区别|有别|(?:正好|恰好|恰恰|截然)?相反)",
        ),
        (
            "comparative",
            r"(?:和|与|跟|同)(?P<x>[^，。；,;、]{1,30}?)(?:有所|截然|完全|根本)?(?:不同|不一样)(?=[，,。；;]|的是|$)",
        ),
        ("comparative", rf"是(?P<x>{_NP}{{1,20}}?)的(?:[0-9.]+|[一二两三四五六七八九十几数半]+)倍"),
        ("comparative", rf"对(?P<x>{_NP}{{1,20}}?)的回应"),
        ("counterpart", rf"相当于(?P<x>{_NP}{{0,30}}?(?:平台|生态)?上的{_NP}{{1,30}})"),
        ("counterpart", r"对标"),
        (
            "negation",
            r"不代表|不意味着|不等于|不等同于|区别于|有别于|不同于|迥异于|有异于|并非|不属于|不要与|不要和|不要把|别把|"
            r"勿与|勿把|切勿|不可与|不应与|不宜与|"
            r"不能把它等同于|不能等同于|不能与|独立于",
        ),
        (
            "comparative",
            r"低于|高于|少于|多于|大于|小于|优于|劣于|慢于|快于|强于|弱于|逊于|逊色于|不如|不及|胜过|领先于|落后于|"
            r"相比于?|相较于?|相对于|比起|较之",
        ),
        ("replacement", r"接替|取代|替换|继任|让位于|取而代之"),
        ("instead", r"而不是|而非|而不用|而不采用|而不使用"),
    )
]
_COUNTERPART = re.compile(r"的对应(?:实现|指标|版本|产品|方案|物|技术|部件|组件|概念|方案|角色)")
# "受 X 限制 / 约束 / 制约": the clause names what bounds its subject. (What it aims at, "目标是 X，而
# 不是 Y", sets no such pair: 离线推理 / 延迟 is a contrast to one blind writer, another axis to
# another, and no one mixes the two up.)
_BOUND_BY = re.compile(r"受[^，,]*(?:限制|约束|制约|主导|支配)")
_FORMER_LATTER = re.compile(r"前者.*后者")
# "不是 X，而是 Y" / "并非 X 而是 Y" / "not X but Y": X and Y, both named
_NOT_BUT = re.compile(
    r"(?:并?不是|并非|不在于)(?P<x>[^，。；;：:]{1,30}?)[，,]?\s*而(?:是|在于)(?P<y>[^，。；;：:]{1,30})"
    r"|(?i:\bnot\s+(?P<ex>[^,.;:]{1,40}?),?\s+but(?: rather)?\s+(?P<ey>[^,.;:]{1,40}))"
)
# A clause that sets its subject against the previous clause's: "A 是…，B 则…", "B 却 / 反而…",
# "…，而 B…", "…, whereas B…", "…, while B…" (a contrastive topic or conjunction, general usage)
_THEN_TOPIC = re.compile(r"^\s*(?:则|却|反而|倒是|反倒)")
_WHEREAS = re.compile(
    r"^\s*(?:而(?!不是|不必|不用|不需|非|是|且|后|言|已)|相反[，,]?|反之[，,]?|(?i:whereas|while)\b)\s*"
)
# A clause that ends in a place ("留在快速内存里", "放到…上"): its 而不是 opposes two places
_LOCATIVE = re.compile(r"(?:在|到|进|于)[^，,]*[里中上内]\s*$")
_BOTH_DIFFER = re.compile(
    r"(?:两者|二者|两种|这两个)(?:之间)?(?:可能|往往|通常|完全|截然)?(?:相差|不同|区别|差异|同名|无关|相反|互补|各有)"
)
# What follows a clause's opening term when the clause ranks it: "GEMM 是更具体…", "X 则更…"
_RANKED = re.compile(r"^\s*(?:是|则|则是|反而|要)\s*更(?!多|少)")
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


def _singular(word: str) -> str:
    """An English plural's singular ("GPUs" → "GPU", "caches" → "cache", "batches" → "batch")."""
    if re.search(r"(?:ch|sh|x|ss)es$", word, re.IGNORECASE):
        return word[:-2]
    if len(word) > 2 and word[-1] in "sS" and word[-2] not in "sSuU'":
        return word[:-1]
    return word


def _plural_named(text: str, res: NameResolver, exclude: str) -> str | None:
    """The term the last English words of *text* name in the plural ("than Tensor Cores", "unlike
    GPUs"): the strict scanner wants a name on word boundaries, so "GPUs" is no mention of GPU."""
    words = _WORD.findall(text.rstrip(" .,;:)）。"))
    if not words or not re.search(r"[A-Za-z0-9]\s*$", text.rstrip(" .,;:)）。")):
        return None
    for n in (3, 2, 1):
        if len(words) < n or _singular(words[-1]) == words[-1]:
            continue
        hit = res.resolve(" ".join([*words[-n:-1], _singular(words[-1])])) - {exclude}
        if len(hit) == 1:
            return next(iter(hit))
    return None


def _last_named(text: str, res: NameResolver, exclude: str) -> str | None:
    found = [tid for tid, _ in res.mentioned(text) if tid != exclude]
    return found[-1] if found else _plural_named(text, res, exclude)


# A verb that may sit between an alternative's marker and its term: "是 A 还是补 B"
_LEAD_VERB = re.compile(r"^(?:\s*(?:是|补|选|用|走|看|在|偏|更偏|落在|直接|先|再))*\s*")


def _ending(phrase: str, res: NameResolver) -> str | None:
    """The term whose name ends *phrase* ("…更偏 compute-bound" → compute-bound)."""
    text = fold(phrase).rstrip()
    found = [tid for tid, name in res.mentioned(phrase) if text.endswith(name)]
    return found[-1] if found else res.described(phrase)


def _opening(phrase: str, res: NameResolver) -> str | None:
    """The term whose name opens *phrase*, after a leading verb ("补内存带宽" → memory bandwidth);
    an English word opening it may name a term in an inflected form ("prompting" → prompt)."""
    text = _LEAD_VERB.sub("", fold(phrase))
    found = [tid for tid, name in res.mentioned(phrase) if text.startswith(name)]
    if found:
        return found[0]
    word = re.match(r"[a-z][a-z\-]+", text)
    stem = re.sub(r"(?:ing|ed|s)$", "", word.group()) if word else ""
    hit = res.resolve(stem) if len(stem) > 3 else set()
    return next(iter(hit)) if len(hit) == 1 else None


def _all_named(phrase: str, res: NameResolver) -> bool:
    """Whether each listed item of *phrase* is just a term's name (after a leading 的/在)."""
    for item in _items(phrase):
        text = re.sub(r"^[在的\s]+", "", fold(item)).strip()
        if not any(text == name for _, name in res.mentioned(item)):
            return False
    return True


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
    context = " ".join(d.text for d in owner.definitions)
    for item in _items(phrase):
        tid = (
            res.described(item)  # "prefill-decode 分离" is one term, not decode
            or _last_named(item, res, "" if keep_owner else owner.id)
            or _sibling(item, owner, res)
            or res.qualified(item, context)  # "通用 benchmark" in a text about 模型智能
            or res.kind_named(item, owner.id)  # "不像稀疏模型那样" in 稠密模型: MoE
        )
        if tid and tid not in out and (keep_owner or tid != owner.id):
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


def _touching(before: str, res: NameResolver) -> str | None:
    """The term whose name ends *before* (spaces aside): "H100 与 H200 不同" → H100."""
    clause = _CLAUSE_SPLIT.split(before)[-1]
    spans = res.mentioned(clause)
    if not spans:
        return None
    last_id, last_name = spans[-1]
    return last_id if fold(clause).rstrip().endswith(last_name) else None


def _clause_pairs(owner: Term, sent: str, res: NameResolver, doc: str, line: int) -> list[Contrast]:
    """ "Scale-up 连接芯片，scale-out 则连接服务器", "A 偏重延迟，而 B 偏重吞吐", "A favours latency,
    whereas B favours throughput": a clause whose subject is a term followed by 则 / 却 / 反而, or that
    opens with a contrastive 而 / whereas / while and then a term, sets that term against the
    subject of the clause before it (the term that opens it, else the owner a definition leaves
    out). Clauses inside brackets are not read."""
    out: list[Contrast] = []
    clauses = [c for c in _CLAUSE_SPLIT.split(re.sub(r"[（(][^）)]*[）)]", "", sent)) if c.strip()]
    for prev, clause in pairwise(clauses):
        text = fold(clause).strip()
        lead = _WHEREAS.match(text)
        rest = text[lead.end() :] if lead and lead.end() else text
        spans = [(tid, nm) for tid, nm in res.mentioned(clause) if rest.startswith(nm)]
        if not spans:
            continue
        b, name = spans[0]
        opened = bool(lead and lead.end())
        if not opened and not _THEN_TOPIC.match(_ADVERBS_BEFORE.sub("", rest[len(name) :])):
            continue
        before = fold(prev).strip()
        openers = [tid for tid, nm in res.mentioned(prev) if before.startswith(nm)]
        a = openers[0] if openers else owner.id
        if a != b:
            out.append(Contrast(a, b, "parallel", sent.strip(), doc, line))
    return out


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
                if "t" in pattern.groupindex or "o" in pattern.groupindex:
                    # the term must touch the marker ("Rubin 之后的", "独立 draft model")
                    tight = (
                        _ending(m.group("t"), res)
                        if "t" in pattern.groupindex
                        else _opening(m.group("o"), res)
                    )
                    if tight and tight != owner.id:
                        out.append(Contrast(owner.id, tight, kind, sent.strip(), doc, line))
                    continue
                phrase = m.group("x") if "x" in pattern.groupindex else None
                if phrase is None:
                    phrase = _CLAUSE_SPLIT.split(sent[m.end() :])[0]
                if m.group().startswith("相当于") and not re.search(r"上的", phrase):
                    continue  # a plain 相当于 is a cross-reference (kg.relations)
                before = sent[: m.start()]
                if kind == "among":  # "区分 A 和 B", "A 与 B 的区别": the listed terms, not the owner
                    named = _targets(phrase, owner, res, keep_owner=True)
                    if "y" in pattern.groupindex:  # "A 还是 B", "A vs B": the terms that touch the marker
                        alternatives = m.group().startswith(("可以", "要么", "或者", "either"))
                        left = _opening(phrase, res) if alternatives else _ending(phrase, res)
                        right = _opening(m.group("y"), res) or _ending(m.group("y"), res)
                        named = [left, right] if left and right and left != right else []
                    elif re.search(r"权衡|取舍|折中", m.group()):
                        # "A 与 B 之间的权衡": each listed item is a term's whole name
                        named = [] if not _all_named(phrase, res) else named
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
                    if subject is None and _LOCATIVE.search(last):
                        continue  # "中间数据留在快速内存里而不是…HBM": two places, neither the owner
                    # "为每个请求保留固定大小的运行状态，而不是…的 KV cache": what the owner does
                    # instead (settle_instead keeps it only when both share a topic)
                    subject = subject or owner.id
                    if subject != owner.id and _BOUND_BY.search(last):
                        # "计算受限：性能主要受可用 FLOPS 限制，而不是内存带宽": what bounds the owner
                        # is set against the other side, and so is the owner it defines
                        out.extend(
                            Contrast(owner.id, tid, kind, sent.strip(), doc, line)
                            for tid in _targets(phrase, owner, res)
                            if tid != subject
                        )
                else:
                    # only "X 比 Y…" names its own subject; before 高于/低于/取代… a term in the
                    # clause is mostly the property compared ("带宽通常高于 Ethernet")
                    if m.group().startswith(("比", "较之")):
                        subject = _clause_subject(before, owner, res)
                    elif m.group().startswith(("和", "与", "跟", "同")):
                        subject = _touching(before, res) or owner.id  # "A 与 B 不同": A, not the owner
                    else:
                        subject = owner.id
                targets = _targets(phrase, owner, res)
                for tid in targets:
                    if tid == subject:
                        continue
                    out.append(Contrast(subject, tid, kind, sent.strip(), doc, line))
                if m.group().startswith("介于"):  # "介于 SIMD 与 SMT 之间": the two poles, too
                    out.extend(
                        Contrast(x, y, kind, sent.strip(), doc, line)
                        for i, x in enumerate(targets)
                        for y in targets[i + 1 :]
                    )
        both = _BOTH_DIFFER.search(sent)
        if both:  # "X …，Y …，两者可能相差很大": the two terms named last before 两者
            named = list(dict.fromkeys(tid for tid, _ in res.mentioned(sent[: both.start()])))
            if len(named) == 1 and named[0] != owner.id:
                named.insert(0, owner.id)
            if len(named) >= 2:
                out.append(Contrast(named[-2], named[-1], "comparative", sent.strip(), doc, line))
        for clause in _CLAUSE_SPLIT.split(sent):
            # "GEMM 是更具体…的说法" inside *Matmul*: another term, ranked against the owner
            spans = res.mentioned(clause)
            text = fold(clause).strip()
            opener = spans[0] if spans and text.startswith(spans[0][1]) else None
            if opener and opener[0] != owner.id and _RANKED.match(text[len(opener[1]) :]):
                out.append(Contrast(owner.id, spans[0][0], "comparative", sent.strip(), doc, line))
        out.extend(_clause_pairs(owner, sent, res, doc, line))
        for nb in _NOT_BUT.finditer(sent):
            denied = _last_named(nb.group("x") or nb.group("ex"), res, "")
            said = nb.group("y") or nb.group("ey")
            affirmed = _opening(said, res) or _last_named(said, res, "")
            if denied and affirmed and denied != affirmed:
                out.append(Contrast(denied, affirmed, "instead", sent.strip(), doc, line))
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


_ADVERBS_BEFORE = re.compile(r"^\s*(?:的[^，,\s]{1,6}\s*)?")
# Adverbs between a clause's subject and its verb ("scale-out 则连接…", "INT4 也用…")
_ADVERBS = re.compile(r"^(?:则|也|就|都|只|仅|主要|通常|一般|往往|更|多)+")
# Verbs of definition and role; a clause whose head is one of them gives that verb whole
_ROLE_VERBS = (
    "表示",
    "衡量",
    "对应",
    "负责",
    "用于",
    "适合",
    "关注",
    "决定",
    "主打",
    "强调",
    "侧重",
    "描述",
    "处理",
    "代表",
    "指",
    "是",
    "为",
    "看",
    "管",
    "用",
)


_YEAR_OR_FIGURE_IN_PARENS = re.compile(r"[（(]\s*(\d[\d.,]*\s*[A-Za-z/%+]{0,8})\s*[）)]")
_BEFORE_LIST = re.compile(r"^.*[，,；;：:（(]")
_AFTER_LIST = re.compile(r"[，,。；;）)].*$")


def figure_contrasts(owner: Term, text: str, res: NameResolver, doc: str, line: int) -> list[Contrast]:
    """Terms set side by side by their figures: "A100 2 TB/s、H100 3.35 TB/s、H200 4.8 TB/s",
    "A100（2020）、H100（2022）、B200（2024）". Each item of a 、-list must open with a term and
    give a number after its name; two or more such items compare their terms."""
    out: list[Contrast] = []
    for sent in sentences(text):
        pieces = _YEAR_OR_FIGURE_IN_PARENS.sub(r" \1", sent).split("、")
        if len(pieces) < 2:
            continue
        pieces[0] = _BEFORE_LIST.sub("", pieces[0])
        pieces[-1] = _AFTER_LIST.sub("", pieces[-1])
        run: list[str] = []
        for piece in [*pieces, ""]:
            text_ = fold(piece).strip()
            spans = res.mentioned(piece)
            opener = spans[0] if spans and text_.startswith(spans[0][1]) else None
            rest = text_[len(opener[1]) :] if opener else ""
            if opener and len(rest) <= 16 and re.search(r"\d", rest):
                run.append(opener[0])
                continue
            ids = list(dict.fromkeys(run))
            out.extend(
                Contrast(a, b, "comparative", sent.strip(), doc, line)
                for i, a in enumerate(ids)
                for b in ids[i + 1 :]
            )
            run = []
    return out


def _verb_after(clause: str, name: str) -> str | None:
    rest = fold(clause).strip()[len(fold(name)) :].strip()
    rest = _ADVERBS.sub("", rest)
    if not rest:
        return None
    if is_cjk_char(rest[0]):
        verb = next((v for v in _ROLE_VERBS if rest.startswith(v)), None)
        if verb:
            return verb
        head = rest[:2]
        return head if len(head) == 2 and all(is_cjk_char(c) for c in head) else None
    word = re.match(r"[a-z]+", rest)
    return word.group() if word else None


_FULL_SENTENCE = re.compile(r"[^。！!？?]+[。！!？?]?")


def parallel_contrasts(owner: Term, text: str, res: NameResolver, doc: str, line: int) -> list[Contrast]:
    """ "TTFT 衡量「多久开始说话」，TPOT 衡量「说得有多快」": clauses of one sentence that open
    with different terms followed by the same verb set those terms side by side."""
    out: list[Contrast] = []
    for sent in _FULL_SENTENCE.findall(text):  # "延迟看…；吞吐看…；并发看…" is one sentence here
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


# Modifiers that answer one question in opposite ways. General opposites, not pairs of this
# corpus's terms: the rule asks that two names differ in exactly one such word (English) or
# one such stretch of characters (Chinese), the rest of the name being shared.
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
    {"aggregated", "disaggregated"},
    {"horizontal", "vertical"},
    {"lossy", "lossless"},
    {"explicit", "implicit"},
    {"eager", "lazy"},
    {"blocking", "nonblocking"},
    {"stateful", "stateless"},
    {"single", "multi"},
    {"intra", "inter"},
    {"global", "local"},
    {"homogeneous", "heterogeneous"},
    {"fixed", "variable"},
    {"sync", "async"},
    {"double", "triple"},
    {"revenue", "profit"},
]
_ANTONYMS_ZH = [
    {"开放", "封闭"},
    {"开源", "闭源"},
    {"在线", "离线"},
    {"静态", "动态", "连续"},
    {"主主", "主备"},
    {"对称", "非对称"},
    {"稠密", "稀疏"},
    {"输入", "输出"},
    {"内部", "外部"},
    {"同步", "异步"},
    {"本地", "远程", "云端"},
    {"热", "温", "冷"},
    {"读", "写"},
    {"聚合", "分离"},
    {"横向", "纵向"},
    {"全局", "局部"},
    {"有损", "无损"},
    {"显式", "隐式"},
    {"预填充", "解码"},
    {"节点内", "节点间"},
    {"片上", "片外"},
    {"有状态", "无状态"},
    {"单", "双", "三"},
    {"收入", "利润"},
]
# A prefix that turns a word into its opposite: "asymmetric", "non-blocking", 非对称.
_NEGATING_PREFIXES = ("a", "non", "un", "dis", "in")
_NEGATING_PREFIXES_ZH = ("非", "无", "不", "反")


def _opposite_words(p: str, q: str) -> bool:
    if any({p, q} <= group for group in _ANTONYMS):
        return True
    short, long_ = sorted((p, q), key=len)
    return len(short) > 3 and any(long_ == pre + short for pre in _NEGATING_PREFIXES)


def _one_word_apart(x: str, y: str) -> bool:
    """Names of the same shape that differ in one word, and those words are opposites."""
    a, b = _words(x), _words(y)
    if len(a) != len(b) or len(a) < 2:
        return False
    diff = [(p, q) for p, q in zip(a, b, strict=True) if p != q]
    return len(diff) == 1 and _opposite_words(*diff[0])


def _zh_plain(label: str) -> str:
    return re.sub(r"\s+", "", _QUALIFIER.sub("", fold(label)))


def _one_modifier_apart(x: str, y: str) -> bool:
    """Chinese names that share everything but one opposite modifier (在线推理 / 离线推理,
    对称量化 / 非对称量化); the shared part must be at least two characters."""
    a, b = _zh_plain(x), _zh_plain(y)
    if a == b or not (has_cjk(a) and has_cjk(b)):
        return False
    for group in _ANTONYMS_ZH:
        for u in group:
            for v in group - {u}:
                if u in a and len(a) - len(u) >= 2 and a.replace(u, v, 1) == b:
                    return True
    short, long_ = sorted((a, b), key=len)
    return len(short) >= 2 and any(
        long_ == short[:i] + neg + short[i:] for neg in _NEGATING_PREFIXES_ZH for i in range(len(short))
    )


def opposite_names(x: Term, y: Term) -> bool:
    """Whether two terms' names differ in one opposite modifier (in English or in Chinese)."""
    en = [n for n in (x.labels.get("en", ""), y.labels.get("en", "")) if n]
    zh = [n for n in (x.labels.get("zh", ""), y.labels.get("zh", "")) if n]
    return (len(en) == 2 and _one_word_apart(*en)) or (len(zh) == 2 and _one_modifier_apart(*zh))


def adjacent_opposites(
    entries: Sequence[RawEntry], entry_to_term: dict[int, str], terms: dict[str, Term]
) -> list[Contrast]:
    """Entries whose names differ in one opposite modifier (:func:`opposite_names`).

    Glossaries file opposites next to each other (开放模型 / 封闭模型, 在线推理 / 离线推理,
    主主 / 主备), but the names alone say that the two answer one question in opposite ways,
    wherever each is filed (Scale-up in one source, scale-out in another). The evidence is
    the defining lines of the two entries that stand closest (one source if both are filed in
    it, the nearest lines), the earlier first.
    """
    filed: dict[str, list[int]] = {}
    for i in sorted(entry_to_term, key=lambda i: (entries[i].source, entries[i].line)):
        if entries[i].names:
            filed.setdefault(entry_to_term[i], []).append(i)
    ids = sorted(filed)
    out: list[Contrast] = []
    for k, a in enumerate(ids):
        for b in ids[k + 1 :]:
            if not opposite_names(terms[a], terms[b]):
                continue
            i, j = min(
                ((i, j) for i in filed[a] for j in filed[b]),
                key=lambda p: (
                    entries[p[0]].source != entries[p[1]].source,
                    abs(entries[p[0]].line - entries[p[1]].line),
                    p,
                ),
            )
            x, y = sorted((entries[i], entries[j]), key=lambda e: (e.source, e.line))
            if x.source != y.source:
                # filed in two sources: one evidence item per side, each cited to its own source
                out += [Contrast(a, b, "opposite", entry_line(e), e.source, e.line) for e in (x, y)]
                continue
            evidence = " / ".join(dict.fromkeys((entry_line(x), entry_line(y))))  # one line states both: once
            out.append(Contrast(a, b, "opposite", evidence, x.source, x.line))
    return out


def entry_line(entry: RawEntry) -> str:
    """The source line of *entry* that states its definition ("双活：多个区域或集群…"), verbatim and
    cut at 140 characters: evidence quoted in an answer, not the entry's whole block (a name line,
    the definition and the note on three lines)."""
    lines = [ln.strip() for ln in entry.raw.strip().splitlines() if ln.strip()]
    key = (entry.definition or "").strip()[:12]
    line = next((ln for ln in lines if key and key in ln), lines[0] if lines else "")
    return line[:140]


# Opposite descriptions: two neighbouring entries of one kind of thing, one described by the
# first word, the other by the second (CPU 顺序 / GPU 并行, gRPC 结构化 / WebSocket 非结构化).
_OPPOSITE_TRAITS = [
    ("顺序", "并行"),
    ("串行", "并行"),
    ("通用", "专用"),
    ("同步", "异步"),
    ("实时", "批量"),
    ("实时", "离线"),
    ("在线", "离线"),
    ("静态", "动态"),
    ("稠密", "稀疏"),
    ("结构化", "非结构化"),
    ("有状态", "无状态"),
    ("集中式", "分布式"),
    ("开源", "闭源"),
    ("开放", "专有"),
    ("计算密集", "访存密集"),
    ("有损", "无损"),
    ("sequential", "parallel"),
    ("general-purpose", "specialized"),
    ("synchronous", "asynchronous"),
    ("structured", "unstructured"),
    ("stateful", "stateless"),
]


def _has_trait(text: str, word: str) -> bool:
    # "结构化" inside "非结构化" (or "synchronous" inside "asynchronous") is not the trait
    return re.search(rf"(?<![非无不a-z]){re.escape(word)}", text) is not None


def _genus(entry: RawEntry) -> str:
    """What an entry says its term is: the last two characters (or word) of the definition's
    first clause ("结构化、schema-first 的双向流式协议" → 协议)."""
    first = re.split(r"[，,。；;（(]", fold(entry.definition or ""))[0].strip()
    word = re.search(r"([a-z]+|[^\sa-z0-9]{2})$", first)
    return word.group(1) if word else ""


def _head(term: Term) -> set[str]:
    heads = set()
    en = _words(term.labels.get("en", ""))
    if len(en) >= 2:
        heads.add(en[-1])
    zh = _zh_plain(term.labels.get("zh", ""))
    if len(zh) >= 3 and has_cjk(zh[-2:]):
        heads.add(zh[-2:])
    return heads


def adjacent_contrasts(
    entries: Sequence[RawEntry], entry_to_term: dict[int, str], terms: dict[str, Term]
) -> list[Contrast]:
    """Neighbouring entries of one source and section that are the same kind of thing (the names
    share a head, or the definitions a genus) described by opposite traits (:data:`_OPPOSITE_TRAITS`):
    "CPU：适合顺序工作负载的通用处理器" / "GPU：高度并行的处理器"."""
    order = sorted(
        (i for i in entry_to_term if entries[i].names and entries[i].definition),
        key=lambda i: (entries[i].source, entries[i].line),
    )
    out: list[Contrast] = []
    for i, j in pairwise(order):
        x, y = entries[i], entries[j]
        a, b = entry_to_term[i], entry_to_term[j]
        if x.source != y.source or x.section != y.section or x.line == y.line or a == b:
            continue
        same_kind = bool(_head(terms[a]) & _head(terms[b])) or (_genus(x) != "" and _genus(x) == _genus(y))
        if not same_kind:
            continue
        tx, ty = (fold(f"{e.definition} {e.note or ''}") for e in (x, y))
        if any(
            (_has_trait(tx, p) and _has_trait(ty, q) and not _has_trait(tx, q) and not _has_trait(ty, p))
            or (_has_trait(tx, q) and _has_trait(ty, p) and not _has_trait(tx, p) and not _has_trait(ty, q))
            for p, q in _OPPOSITE_TRAITS
        ):
            evidence = " / ".join(dict.fromkeys((entry_line(x), entry_line(y))))  # one line states both: once
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


def _names_by_script(term: Term) -> tuple[set[str], set[str]]:
    """The term's folded names without a qualifier, Latin-script and Chinese-script apart."""
    latin: set[str] = set()
    cjk: set[str] = set()
    for n in term.all_names():
        key = fold(_QUALIFIER.sub(" ", n)).strip()
        if key:
            (cjk if has_cjk(key) else latin).add(key)
    return latin, cjk


def _inside(small: str, big: str, *, words: bool) -> bool:
    """*small* is a proper part of *big*: whole words in Latin script, any substring in Chinese."""
    if small == big or len(small) < (3 if words else 2):
        return False
    if not words:
        return small in big
    return re.search(rf"(?<![a-z0-9]){re.escape(small)}(?![a-z0-9])", big) is not None


def crossed_name_pairs(terms: Sequence[Term]) -> list[tuple[Term, Term]]:
    """Pairs whose names contain each other crosswise across the two languages.

    A kind's name sits inside its species' name in both languages ("cache" in "KV cache", 缓存 in
    KV 缓存). When the containment runs one way in English and the other way in Chinese — "engine"
    inside "inference engine" while 推理引擎 sits inside 推理引擎产物 (TensorRT's compiled Engine) —
    neither is a kind of the other: one word names two different things.
    """
    by_id = {t.id: t for t in terms}
    scripts = {t.id: _names_by_script(t) for t in terms}
    cjk = [(n, t) for t, (_, names) in scripts.items() for n in names]
    # the Chinese containment first: few names, plain substring tests
    candidates = sorted({(a, b) for x, b in cjk for y, a in cjk if a != b and _inside(x, y, words=False)})
    return [
        (by_id[a], by_id[b])
        for a, b in candidates
        if any(_inside(x, y, words=True) for x in scripts[a][0] for y in scripts[b][0])
    ]


def same_name_pairs(terms: Iterable[Term]) -> list[Contrast]:
    """Distinct nodes whose names agree once spacing, plurals, qualifiers and generic heads go,
    or contain each other crosswise across the languages (:func:`crossed_name_pairs`).

    Kept apart by the merger because the sources define different things ("TensorCore" of
    the TPU and NVIDIA's "Tensor Core"); a reader meets both names and needs the warning.
    """
    terms = list(terms)
    by_form: dict[str, list[Term]] = {}
    for t in terms:
        for f in _name_forms(t):
            by_form.setdefault(f, []).append(t)
    groups = [*by_form.values(), *(list(p) for p in crossed_name_pairs(terms))]
    out: dict[tuple[str, str], Contrast] = {}
    for group in groups:
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


# Vendors whose names a definition may swap for another's: "CUDA 是让程序在 NVIDIA 芯片上运行的
# 软件工具箱" / "ROCm 是让…程序在 AMD 芯片上运行的软件工具箱"
_VENDORS = re.compile(r"nvidia|英伟达|amd|google|谷歌|intel|英特尔|huawei|华为|apple|microsoft|aws|meta")
_SAME_ROLE = 75  # rapidfuzz ratio of two definitions with names and vendors masked


def _role_sentences(term: Term) -> list[tuple[str, frozenset[str], Definition]]:
    """Each definition's first sentence with the term's names and the vendors masked, the
    vendors it named, and the definition."""
    names = sorted((fold(n) for n in term.all_names() if len(n) > 1), key=len, reverse=True)
    out = []
    for d in term.definitions:
        text = fold(re.split(r"[。；;]", d.text)[0])
        for n in names:
            text = text.replace(n, "§")
        vendors = frozenset(_VENDORS.findall(text))
        if vendors and len(text) >= 8:
            out.append((_VENDORS.sub("¤", text), vendors, d))
    return out


def vendor_counterparts(terms: Iterable[Term]) -> list[Contrast]:
    """Terms whose definitions say the same thing of different vendors: one role, two makers.

    The definitions, with each term's own names and the vendor names masked, must agree almost
    word for word (:data:`_SAME_ROLE`), and name different vendors.
    """
    from rapidfuzz import fuzz

    defined = sorted((t for t in terms if t.definitions), key=lambda t: t.id)
    roles = {t.id: _role_sentences(t) for t in defined}
    out: list[Contrast] = []
    for i, a in enumerate(defined):
        for b in defined[i + 1 :]:
            same_role = [
                (dx, dy)
                for x, vx, dx in roles[a.id]
                for y, vy, dy in roles[b.id]
                if not vx & vy and fuzz.ratio(x, y) >= _SAME_ROLE
            ]
            if same_role:
                dx, dy = same_role[0]
                evidence = f"{_first_sentence(dx.text)} / {_first_sentence(dy.text)}"
                out.append(Contrast(a.id, b.id, "counterpart", evidence, dx.source, dx.line))
    return out


def _template(term: Term, d: Definition) -> str:
    """A definition with the term's own names (§) and its figures (#) masked: what is left is
    what it says of any such thing."""
    text = fold(d.text)
    for n in sorted((fold(n) for n in term.all_names() if len(n) > 1), key=len, reverse=True):
        text = text.replace(n, "§")
    return re.sub(r"\d[\d.,]*", "#", text)


def variant_pairs(terms: Iterable[Term]) -> list[Contrast]:
    """Terms defined by the same words but for their figures: "B200：Blackwell 数据中心 GPU；书中
    给出 192 GB VRAM…" / "B300：…288 GB VRAM…" — two models of one line set side by side by their
    specifications. Two definitions that differ in anything else are not variants of one
    description (GB200 "Grace CPU + B200 GPU…" and GH200 "…H200 GPU…" differ in a part, and the
    sources call them similar, not different). One line that defines several terms at once
    ("A100 / H100 / H200：NVIDIA 数据中心 GPU 具体型号") gives them the same words but no figures,
    so the two definitions must differ before masking.
    """
    defined = sorted((t for t in terms if t.definitions), key=lambda t: t.id)
    shapes: dict[str, list[tuple[str, Definition]]] = {}
    for t in defined:
        for d in t.definitions:
            if re.search(r"\d", d.text) and len(d.text) >= 12:
                shapes.setdefault(_template(t, d), []).append((t.id, d))
    out: dict[tuple[str, str], Contrast] = {}
    for group in shapes.values():
        for i, (a, dx) in enumerate(group):
            for b, dy in group[i + 1 :]:
                if a == b or dx.text == dy.text:
                    continue
                key = (a, b) if a < b else (b, a)
                evidence = f"{dx.text.strip()[:140]} / {dy.text.strip()[:140]}"
                out.setdefault(key, Contrast(key[0], key[1], "comparative", evidence, dx.source, dx.line))
    return [out[k] for k in sorted(out)]


def _first_sentence(text: str) -> str:
    found = sentences(text)
    return found[0].strip() if found else text.strip()


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


# What may sit right before a slot-filling term: a bracket or a one-character verb or particle
# ("（TP 用）", "重 TTFT", "多 compute-bound"); never a list separator or a conjunction.
_SLOT_BEFORE = re.compile(r"[（(]|[重用看偏靠走多选是为给对向]$")
_LIST_JOINERS = set("、和与及或/+")


def _slot(clause: str, name: str) -> tuple[str, str] | None:
    """The frame around a term inside a clause that does not open with it: the character
    before its name and the one or two after ("（TP 用）" → ("（", "用）"))."""
    text = fold(clause).strip()
    at = text.find(name)
    if at <= 0:
        return None
    before = text[:at].rstrip()[-1:]
    after = re.sub(r"[\s。！!？?]+", "", text[at + len(name) :])[:2]
    if not before or before in _LIST_JOINERS or not _SLOT_BEFORE.search(before):
        return None
    if after[:1] in _LIST_JOINERS:
        return None
    return before, after


def parallel_slots(owner: Term, text: str, res: NameResolver, doc: str, line: int) -> list[Contrast]:
    """ "AllReduce 求和后广播（TP 用）；AllGather 各卡拼齐（PP 用）", "单用户聊天重 TTFT，离线批处理重
    吞吐": clauses of one sentence that each fill the same slot (the same bracket or verb right
    before the term, the same words right after it) with a different term set those terms side
    by side. A clause that names more than one term in the slot's place is a list, not a slot."""
    out: list[Contrast] = []
    for sent in _FULL_SENTENCE.findall(text):
        slots: dict[tuple[str, str], list[str]] = {}
        for clause in _CLAUSE_SPLIT.split(sent):
            for tid, name in res.mentioned(clause):
                frame = _slot(clause, name)
                if frame and tid != owner.id:
                    ids = slots.setdefault(frame, [])
                    if tid not in ids:
                        ids.append(tid)
        for ids in slots.values():
            out.extend(
                Contrast(a, b, "parallel", sent.strip(), doc, line)
                for i, a in enumerate(ids)
                for b in ids[i + 1 :]
            )
    return out
