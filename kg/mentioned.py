"""Mentioned-only nodes: named things the definitions mention but no source defines.

002 says "JIT 在运行时即时编译（PyTorch 的 eager + torch.compile）" and 000 "NCCL 是 NVIDIA 的集合通信库，
…，RCCL 是 AMD 的对应实现", yet no source has an entry for PyTorch or RCCL. Each such name becomes a
node of ``kind: "mentioned"``: no definition, only the sentences that mention it (source, line,
sentence), so that ``glossary lookup PyTorch`` can say where it is mentioned and the edge builder
can link NCCL to RCCL.

The rule reads every definition and note (and the body of every confusables paragraph) and keeps a
Latin name when all of these hold (each guards a mistake measured on the bundled sources):

1. it is not inside a known term's name as the text writes it: term names are masked first, so
   "Inference" of "Triton Inference Server" or "Cache" of "KV Cache" is never a candidate;
2. it is not a name of a term, nor a short form of one: the head of a term's name ("Dynamo" of
   NVIDIA Dynamo), its name without a classifier that is itself a term ("Grace" of Grace CPU),
   its spelled-out form ("PCI Express" of PCIe), a version of it ("EAGLE-2") or a kind of it
   ("iGPU"); nor a compound of terms' names ("CPU-GPU");
3. it has the shape of a name: CamelCase (PyTorch, TorchDynamo), an acronym (RCCL, MMLU), letters
   with digits (HBM3e, FP32), a hyphenated name with a capital (NVLink-C2C), or a capitalised word
   (Whisper, Ethernet) that the sources never write in lower case ("Key" is also "key-value");
   lower-case words are never names;
4. it is not a unit (GB/s, TFLOPS), a version or size tag (v2, x128), a percentile (P90), a cache
   level (L1), a configuration ("TP4×2"), a single letter, a maker (:data:`MAKERS`) or an
   everyday computing abbreviation (:data:`COMMON_ABBREVIATIONS`).

Chinese-script names have no shape of their own (no capitals), so one is kept only where the
text itself marks it as a name, and never when it is a term's name (rule 1, 2) or a maker's:

5. the text names it: 被称为 / 称为 / 叫做 / 名为 「X」 ("常被称为「会话恢复风暴」");
6. it is the one Chinese item of a 、-list whose other items (two or more) are all Latin names
   ("广义含 TPU、昇腾、Apple Neural Engine、高通 Hexagon 等": 昇腾 sits among products);
7. a clause is nothing but it and a classifier of named things, an apposition to the thing defined
   ("华为自研 AI 处理器，达芬奇架构，国产算力替代主力": the processor's architecture is named), and
   the sources never use its stem outside that name (达芬奇 is a name; 基础 of "基础架构" is a word).

Makers are left out on purpose: the sources name NVIDIA, Google or AMD as who built something,
and a node for each would be a hub linked from a third of the glossary that no definition
describes. Deterministic: same entries, same names, same order.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

from kg.ids import pinyin_slug
from kg.mentions import MentionFinder
from kg.model import ConfusionGroup, MentionSite, RawEntry, Term
from kg.textnorm import fold, has_cjk, is_cjk_char, lang_of, name_key, slugify, to_simplified

#: Organisations the sources name as makers ("NVIDIA 官方的", "Google 自研的", "Intel 的 …工具链").
MAKERS = frozenset(
    {
        "amd",
        "apache",
        "apple",
        "berkeley",
        "google",
        "hugging face",
        "huggingface",
        "intel",
        "msu",
        "nvidia",
        "openai",
        "uc berkeley",
    }
)
#: The same makers as the Chinese sources write them ("华为自研", "字节跳动的 PTQ 方案", "高通 Hexagon").
MAKERS_ZH = frozenset(
    {
        "华为",
        "英伟达",
        "谷歌",
        "微软",
        "英特尔",
        "字节跳动",
        "高通",
        "苹果",
        "阿里",
        "阿里巴巴",
        "腾讯",
        "百度",
        "亚马逊",
    }
)
#: Abbreviations of everyday computing that no inference glossary would define.
COMMON_ABBREVIATIONS = frozenset({"ai", "dag", "dsl", "os", "sku", "url"})

_TOKEN = re.compile(
    r"(?<![A-Za-z0-9_.\-])[A-Za-z][A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)*(?:\+\+)?(?![A-Za-z0-9_+])"
)
_SENTENCE = re.compile(r"[^。；;！!？?\n]+[。；;！!？?]?")
_UNIT = re.compile(
    r"(?:[KMGTPE]i?B|[KMGTPE]?B/s|[kKMGT]?W|[mun]?s|[KMGTPE]?FLOPS?|(?:kilo|mega|giga|tera|peta|exa)\w*|bits?|bytes?)",
    re.IGNORECASE,
)
_TAG = re.compile(r"[vVxX]\d+[a-z]?|Gen\d+|P\d{2}(?:\.\d+)?|L\d|[A-Za-z]")
# "Q/K/V", "K、V": letters the sources use as symbols; "KV" and "QK" are made of them.
_SYMBOL_LIST = re.compile(r"(?<![A-Za-z])[A-Z](?:\s*[/、]\s*[A-Z](?![A-Za-z]))+")
_MASK = "\x00"
_MAX_WORDS = 4  # the longest multi-word name kept ("Apple Neural Engine" has three)
_CAPITAL_BEFORE = re.compile(r"(?<![A-Za-z0-9])[A-Z][A-Za-z0-9]* $")
_TIMES = re.compile(r"\s*[×x*]\s*\d")
# a title-case word opening an English sentence (text start, or after ". ", "! ", "? ", ": ")
_OPENING = re.compile(r"(^|[.!?:]\s+)([A-Z])(?=[a-z]+\b)")


@lru_cache(maxsize=8192)
def _fold_char(c: str) -> str:
    return to_simplified(c).casefold()


def _fold_map(text: str) -> tuple[str, list[int]]:
    """:func:`kg.textnorm.fold` of *text*, and for each folded character the index it comes from."""
    chars: list[str] = []
    where: list[int] = []
    for i, ch in enumerate(text):
        for c in unicodedata.normalize("NFKC", ch):
            if c.isspace() or unicodedata.category(c) == "Cc":
                c = " "
            if c == " " and (not chars or chars[-1] == " "):
                continue
            for f in _fold_char(c):
                chars.append(f)
                where.append(i)
    while chars and chars[-1] == " ":
        chars.pop()
        where.pop()
    out_c: list[str] = []
    out_w: list[int] = []
    n = len(chars)
    for k, c in enumerate(chars):
        if c == " " and 0 < k < n - 1 and (is_cjk_char(chars[k - 1]) or is_cjk_char(chars[k + 1])):
            continue
        out_c.append(c)
        out_w.append(where[k])
    return "".join(out_c), out_w


def mask_terms(text: str, finder: MentionFinder) -> str:
    """*text* with every known term name it contains replaced by :data:`_MASK` characters.

    A term name that is only part of a longer name is left alone: one glued to another word by
    a hyphen ("NVLink" of NVLink-C2C) and a capitalised one-word name that continues a
    capitalised word ("Engine" of Apple Neural Engine)."""
    folded, where = _fold_map(text)
    if folded != fold(text):  # a normalisation this map does not follow: mask nothing by position
        return text
    chars = list(text)
    for span in finder.find(folded):
        start, end = where[span.start], where[span.end - 1] + 1
        if re.match(r"-[A-Za-z0-9]", text[end : end + 2]) or re.search(
            r"[A-Za-z0-9]-$", text[max(0, start - 2) : start]
        ):
            continue
        before = "".join(chars[max(0, start - 64) : start])  # a bounded window: linear on long lines
        if _title(text[start:end]) and _CAPITAL_BEFORE.search(before):
            continue
        for i in range(start, end):
            chars[i] = _MASK
    return "".join(chars)


def _runs(masked: str, text: str) -> list[tuple[str, int]]:
    """Name-shaped runs of a masked sentence and where each ends: single tokens, capitalised words
    joined by one space ("Apple Neural Engine", "Hugging Face"), and a capitalised word that
    continues a term's name ("NVLink Switch": *text* gives the name)."""
    out: list[tuple[str, int]] = []
    tokens = list(_TOKEN.finditer(masked))
    k = 0
    while k < len(tokens):
        start, end = tokens[k].start(), tokens[k].end()
        j = k
        while (
            j + 1 < len(tokens)
            and j - k < _MAX_WORDS - 1
            and masked[end : tokens[j + 1].start()] == " "
            and tokens[j].group()[0].isupper()
            and _title(tokens[j + 1].group())
        ):
            j += 1
            end = tokens[j].end()
        word = tokens[k].group()
        if _title(word) and word.isalpha() and masked[max(0, start - 2) : start] == _MASK + " ":
            head = start - 1
            while head > 0 and masked[head - 1] == _MASK:
                head -= 1
            if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9 .\-]*", text[head : start - 1]):
                start = head
        out.append((text[start:end] if masked[start] == _MASK else masked[start:end], end))
        k = j + 1
    return out


def _title(word: str) -> bool:
    return len(word) > 1 and word[0].isupper() and word[1:].islower()


def _strip_maker(run: str) -> str:
    """A maker's name before one word is dropped ("AMD Instinct" → Instinct); before a longer
    name it is part of that name (Apple Neural Engine)."""
    words = run.split(" ")
    for n in range(len(words) - 1, 0, -1):
        if " ".join(words[:n]).lower() in MAKERS:
            return " ".join(words[n:]) if len(words) - n == 1 else run
    return run


def _shaped(name: str, lower_words: set[str]) -> bool:
    """Rule 3 of the module docstring: *name* looks like a proper name."""
    if " " in name:
        return all(w[:1].isupper() for w in name.split(" "))
    letters = [c for c in name if c.isalpha()]
    if not any(c.isupper() for c in letters):
        return False
    if re.search(r"[a-z][A-Z]", name):  # PyTorch, TorchDynamo, gRPC
        return True
    if sum(c.isupper() for c in letters) >= 2:  # RCCL, FP32, HBM3e, NVLink-C2C
        return True
    if any(c.isdigit() for c in name) or "-" in name or name.endswith("++"):
        return True  # FP32, NVLink-C2C, C++
    return _title(name) and name.lower() not in lower_words


def _excluded(name: str) -> bool:
    """Rule 4: units, tags, makers, everyday abbreviations."""
    key = name.lower()
    return bool(_UNIT.fullmatch(name) or _TAG.fullmatch(name) or key in MAKERS or key in COMMON_ABBREVIATIONS)


class _Terms:
    """The defined terms' names: masking, exact names and short forms (rules 1 and 2)."""

    def __init__(self, terms: Iterable[Term]) -> None:
        terms = list(terms)
        pairs = [(t.id, n) for t in terms for n in t.all_names()]
        self.finder = MentionFinder(pairs)
        self.keys = {name_key(n) for _, n in pairs}
        self.abbreviations = sorted({a for t in terms for a in t.abbreviations if " " not in a})
        self.short: set[str] = set()
        for _, n in pairs:
            words = n.split()
            for k in range(1, len(words)):
                head = " ".join(words[k:])
                self.short.add(name_key(head))  # "NVIDIA Dynamo" → Dynamo
                if name_key(head) in self.keys:  # "Grace CPU" → Grace (CPU is a term)
                    self.short.add(name_key(" ".join(words[:k])))

    def known(self, name: str) -> bool:
        """*name* is a term's name, a short or long form of one, or made of terms' names."""
        key = name_key(name)
        if key in self.keys or key in self.short:
            return True
        if " " in name and any(_spells(a, name.split(" ")) for a in self.abbreviations):
            return True  # "PCI Express" spelled out: PCIe
        parts = name.split("-")
        if len(parts) > 1 and all(p.islower() or name_key(p) in self.keys for p in parts):
            return True  # "CPU-GPU"
        if len(parts) > 1 and re.fullmatch(r"[vV]?\d+[a-z]?", parts[-1]) and self.known("-".join(parts[:-1])):
            return True  # "EAGLE-2": a version of a term
        m = re.fullmatch(r"([a-z]{1,4})([A-Z].*)", name)
        return bool(m and name_key(m.group(2)) in self.keys)  # "iGPU": a kind of GPU


def _spells(short: str, words: list[str]) -> bool:
    """*short* is the words' openings run together, each word giving one ("PCIe": PCI Express)."""
    if not words:
        return not short
    word = words[0].lower()
    low = short.lower()
    return any(
        low[:n] == word[:n] and _spells(short[n:], words[1:]) for n in range(1, min(len(low), len(word)) + 1)
    )


def _texts(
    entries: list[RawEntry], entry_to_term: dict[int, str], confusions: list[ConfusionGroup]
) -> list[tuple[str, int, str | None, str]]:
    """(source, line, owning term, text) of every definition, note and confusables paragraph."""
    out: list[tuple[str, int, str | None, str]] = []
    for i, e in enumerate(entries):
        owner = entry_to_term.get(i)
        if owner is None:
            continue
        for text in (e.definition, e.note):
            if text:
                out.append((e.source, e.line, owner, text))
    for g in confusions:
        _, sep, body = g.evidence.partition("：")
        if sep and body:
            out.append((g.source, g.line + 1, None, body))
    return out


def _symbols(texts: list[tuple[str, int, str | None, str]]) -> set[str]:
    """Capital letters the sources list as symbols ("Q/K/V")."""
    return {c for _, _, _, text in texts for m in _SYMBOL_LIST.findall(text) for c in m if c.isupper()}


def _lower_words(texts: list[tuple[str, int, str | None, str]]) -> set[str]:
    """Latin words the sources write in lower case somewhere: common words, not names."""
    words: set[str] = set()
    for _, _, _, text in texts:
        words.update(w for w in re.findall(r"[A-Za-z]+", text) if w.islower())
    return words


def _lower_openings(sentence: str) -> str:
    """An English *sentence* with the capital of each sentence-opening word lowered: English
    capitalises the first word whatever it is ("See Prefill.", "Replicas kept loaded…"), so that
    capital is no sign of a name. CamelCase and acronyms are left alone; the length is kept."""
    if lang_of(sentence) != "en":
        return sentence
    return _OPENING.sub(lambda m: m.group(1) + m.group(2).lower(), sentence)


_CJK_NAME = r"[\u4e00-\u9fff]{2,8}"
# rule 5: a name the text gives in quotes after a verb of naming
_NAMED_AS = re.compile(rf"(?:被称为|称为|称作|叫做|叫作|名为|俗称)\s*[「“『\"](?P<n>{_CJK_NAME})[」”』\"]")
# rule 7: a clause that is only a name and a classifier of named things
_APPOSITION = re.compile(r"^(?P<n>[\u4e00-\u9fff]{2,5})(?:架构|系列)$")
_CLAUSES = re.compile(r"[^，,；;：:。（）()]+")
_LIST_ITEM_CUT = re.compile(r"^(?:广义|狭义)?(?:含|包括|包含|如|例如|比如)\s*|\s*等.*$")


def _latin_name(item: str, known: _Terms, lower_words: set[str]) -> bool:
    """A list item that is a Latin name: a term's name or a proper-name-shaped word, after a maker."""
    text = item.strip()
    for maker in MAKERS_ZH:
        text = text.removeprefix(maker).strip()
    if not text or re.search(r"[\u4e00-\u9fff]", text):
        return False
    name = _strip_maker(text)
    return known.known(name) or (_shaped(name, lower_words) and not _excluded(name))


def _chinese_names(sentence: str, known: _Terms, lower_words: set[str], corpus: str) -> list[str]:
    """Chinese-script names a sentence marks as names (rules 5–7 of the module docstring);
    *corpus* is all the texts, to tell a name's stem from a word used elsewhere."""
    found = [m.group("n") for m in _NAMED_AS.finditer(sentence)]
    for clause in _CLAUSES.findall(sentence):
        items = [_LIST_ITEM_CUT.sub("", i).strip() for i in clause.split("、")]
        if len(items) >= 3:
            cjk = [i for i in items if re.fullmatch(_CJK_NAME, i)]
            others = [i for i in items if i not in cjk]
            if len(cjk) == 1 and all(_latin_name(i, known, lower_words) for i in others):
                found.append(cjk[0])
        m = _APPOSITION.match(clause.strip())
        if m and corpus.count(m.group("n")) == corpus.count(clause.strip()):
            found.append(clause.strip())
    return [n for n in dict.fromkeys(found) if n not in MAKERS_ZH and not known.known(n)]


def find_mentioned(
    terms: list[Term],
    entries: list[RawEntry],
    entry_to_term: dict[int, str],
    confusions: list[ConfusionGroup],
) -> dict[str, list[MentionSite]]:
    """Names mentioned but not defined → the sentences that mention them, in source order.

    Spellings that fold alike ("Pytorch", "PyTorch") are one name, written as first found.
    """
    known = _Terms(terms)
    texts = _texts(entries, entry_to_term, confusions)
    lower_words = _lower_words(texts)
    symbols = _symbols(texts)
    corpus = "\n".join(text for _, _, _, text in texts)
    found: dict[str, list[MentionSite]] = {}
    spelling: dict[str, str] = {}
    for source, line, owner, text in texts:
        for sentence in _SENTENCE.findall(text):
            sentence = sentence.strip()
            probe = _lower_openings(sentence)
            masked = mask_terms(probe, known.finder)
            names = _chinese_names(sentence, known, lower_words, corpus)
            for run, end in _runs(masked, probe):
                name = _strip_maker(run)
                if _excluded(name) or not _shaped(name, lower_words) or known.known(name):
                    continue
                if len(name) <= 3 and set(name) <= symbols:
                    continue  # "KV", "QK": attention's symbols
                if _TIMES.match(sentence, end):
                    continue  # "TP4×2": a configuration, not a name
                names.append(name)
            for name in names:
                key = name_key(name)
                spelling.setdefault(key, name)
                sites = found.setdefault(spelling[key], [])
                site = MentionSite(source=source, line=line, sentence=sentence, term=owner)
                if all((s.source, s.line, s.sentence) != (source, line, sentence) for s in sites):
                    sites.append(site)
    return found


def mentioned_nodes(
    terms: list[Term],
    entries: list[RawEntry],
    entry_to_term: dict[int, str],
    confusions: list[ConfusionGroup],
) -> list[Term]:
    """A ``kind: "mentioned"`` node per name :func:`find_mentioned` finds, sorted by id.

    The node has the name as its label, no definitions or categories, and the sentences that
    mention it as ``mentioned_in``. Its id is the name's slug, suffixed ``-mentioned`` in the
    unlikely case a defined term already has that id.
    """
    taken = {t.id for t in terms}
    out: list[Term] = []
    for name, sites in find_mentioned(terms, entries, entry_to_term, confusions).items():
        base = (pinyin_slug(name) if has_cjk(name) else slugify(name)) or "mentioned"
        tid = base if base not in taken else f"{base}-mentioned"
        n = 2
        while tid in taken:
            tid, n = f"{base}-mentioned-{n}", n + 1
        taken.add(tid)
        out.append(
            Term(
                id=tid,
                labels={lang_of(name): name},
                aliases=[],
                abbreviations=[],
                definitions=[],
                categories=[],
                sources=sorted({s.source for s in sites}),
                kind="mentioned",
                mentioned_in=list(sites),
                label_origin={lang_of(name): "source"},  # the name as the sources write it
            )
        )
    return sorted(out, key=lambda t: t.id)


def mentioned_note(term: Term, lang: str = "en") -> str:
    """What every view says about a mentioned-only node: not defined here, mentioned N times."""
    name = term.label(lang)
    n = len(term.mentioned_in)
    places = len({(m.source, m.line) for m in term.mentioned_in})
    if lang == "zh":
        return f"{name} 不是词表中定义的术语；来源中有 {places} 处提到它（{n} 句）"
    return (
        f"{name} is not defined in the glossary; it is mentioned in {n} sentence{'s' * (n != 1)} "
        f"on {places} source line{'s' * (places != 1)}"
    )
