"""Parser for glossaries of one-sentence entries with no term field (000_…).

Each entry is one sentence, blank lines between entries. The term is normally
the grammatical subject that opens the sentence, followed by a predicate marker
(是 / 就是 / 表示 / 指 / 把 / 让 / 衡量 / 会 …): "TTFT 就是…", "并发量就是…",
"MFU 把…". The subject is found by segmenting the opening of the sentence with
jieba (with the glossary's known names added, so "智能体会通过" splits as
智能体 / 会 / 通过) and cutting at the first marker word.

What the text cannot decide is left for the editorial overlay, never guessed:
- a sentence whose subject is a pronoun or demonstrative ("这个指标…", "它估算…",
  "该估算…") or that opens with a verb ("把提示词…") is *unnamed*;
- a sentence that defines two terms in parallel clauses ("内部 TCO 是…，外部 TCO
  是…") yields two entries; "…；这一连串请求就是智能体编码工作负载" names a second one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

import jieba

from kg.model import ParsedSource, ParseIssue, RawEntry
from kg.parsers.common import SourceError, is_furniture, name, numbered_lines, strip_contact_blocks
from kg.textnorm import has_cjk

# Predicate words that end the subject. Order does not matter: the first one
# found in the token stream (after at least one subject token) wins.
MARKERS = frozenset(
    [
        "就是",
        "就像",
        "是指",
        "是",
        "指",
        "表示",
        "把",
        "将",
        "让",
        "使",
        "衡量",
        "会",
        "只",
        "仅",
        "描述",
        "包含",
        "用",
        "在",
        "为",
        "通过",
        "根据",
        "由",
        "对",
        "给",
        "像",
        "先",
        "负责",
        "协调",
        "提供",
        "保存",
        "重现",
        "读取",
        "禁用",
        "同时",
        "驻留",
        "访问",
        "连接",
        "估算",
        "计算",
        "处理",
        "直接",
        "启动",
        "控制",
        "选择",
        "允许",
        "组合",
        "作为",
        "可",
        "可以",
        "能",
        "能够",
        "不",
        "则",
        "即",
        "属于",
        "决定",
        "记住",
        "取回",
        "管理",
        "合并",
        "汇聚",
        "改写",
        "执行",
        "帮助",
        "支持",
        "按",
        "向",
        "从",
        "以",
        "只统计",
        "只读取",
        "只回看",
        "只把",
        "不像",
        "已",
        "正",
        "也",
        "都",
        "还",
        "就",
        "要",
        "需要",
        "旨在",
        "专门",
        "是一种",
        "用来",
        "用于",
        "利用",
        "负责把",
        "先让",
        "像是",
        "意味着",
        "代表",
        "指的是",
        "统计",
        "解决",
        "让每",
        "检索",
        "着眼",
        "消耗",
        "揭示",
        "计",
        "记录",
        "只用",
    ]
)
# Markers jieba glues to the end of the subject ("数据并行复制" → 数据 / 并行复制).
_SUFFIX_MARKERS = ("复制", "处理", "重现", "读取", "驻留")
# One-character markers jieba glues to the next word ("是从", "只用", "把它", "按行").
_PREFIX_MARKERS = ("是", "只", "仅", "把", "让", "由", "用", "将", "为", "对", "给", "按")
# Subjects that are not names: pronouns, demonstratives, conjunctions, a verb.
_PRONOUN = re.compile(
    r"^(这|该|它|此|那|其|本|每个|每一|一个|一种|这些|那些|当|如果|若|因为|而|但|再|也|期间|目标|一直|把|让|将)"
)
# A leading numeral-classifier is not part of the name ("一套测试配置就是…" defines 测试配置).
_QUANTIFIER = re.compile(r"^一(?:套|组|类|项|条)\s*(?=\S{2})")
_TEMPORAL_END = re.compile(r"(前|后|时|之前|之后|期间)$")
_COPULAS = frozenset({"是", "就是", "则", "则是"})
_LEADING_ADVERBIAL = re.compile(r"^在(?P<obj>[^，,。]{1,24}?)(?:上|中|里|时|下|之前|之后)[，,]\s*")
_SECOND_TERM = re.compile(r"[，,；;]\s*这[^，,；;。]{0,10}?就是(?P<t>[^，,；;。]{2,24})。?$")
_TAGLINE_MAX = 24


@lru_cache(maxsize=8)
def _segmenter(vocabulary: tuple[str, ...]) -> jieba.Tokenizer:
    tok = jieba.Tokenizer()
    tok.initialize()
    for word in vocabulary:
        if has_cjk(word):
            tok.add_word(word.replace(" ", ""), freq=200000)
            if " " in word:
                tok.add_word(word, freq=200000)
    return tok


def _tokens(text: str, seg: jieba.Tokenizer, known: frozenset[str] = frozenset()) -> list[tuple[str, int]]:
    """(token, start offset) pairs; Latin runs with inner spaces stay separate tokens.

    A glued marker suffix is split off ("并行复制" → 并行 / 复制) unless the token is a
    known glossary name ("批处理", "连续批处理" end in 处理 but are names).
    """
    out: list[tuple[str, int]] = []
    pos = 0
    for tok in seg.cut(text):
        for suffix in () if tok in known else _SUFFIX_MARKERS:
            if len(tok) > len(suffix) and tok.endswith(suffix):
                out.append((tok[: -len(suffix)], pos))
                # tagged so that only a glued suffix counts as a marker
                out.append(("\0" + suffix, pos + len(tok) - len(suffix)))
                break
        else:
            out.append((tok, pos))
        pos += len(tok)
    return out


def _is_marker(tok: str) -> bool:
    return tok in MARKERS or tok.startswith("\0") or (len(tok) <= 3 and tok[0] in _PREFIX_MARKERS)


def subject_split(
    sentence: str, seg: jieba.Tokenizer, known: frozenset[str] = frozenset()
) -> tuple[str, str] | None:
    """(subject, marker) of a definition sentence, or None when it has no usable subject."""
    head = sentence[:40]
    toks = _tokens(head, seg, known)
    for k, (tok, start) in enumerate(toks):
        if k == 0 or tok.strip() == "":
            continue
        if _is_marker(tok):
            subject = head[:start].strip()
            if not subject or len(subject) > 28 or re.search(r"[，,。；;：:、“”\"]", subject):
                return None
            if _PRONOUN.match(subject) or _TEMPORAL_END.search(subject):
                return None
            return _QUANTIFIER.sub("", subject), tok.lstrip("\0")
        if tok in {"，", ",", "。", "；", ";", "："}:
            return None
    return None


def _share_word(a: str, b: str) -> bool:
    """True when two subjects share a Latin word or a two-character Chinese tail."""
    wa = {w.lower() for w in re.split(r"[\s\-]+", a) if w.isascii() and w}
    wb = {w.lower() for w in re.split(r"[\s\-]+", b) if w.isascii() and w}
    if wa & wb:
        return True
    return has_cjk(a) and has_cjk(b) and len(a) >= 2 and len(b) >= 2 and a[-2:] == b[-2:] and a != b


def _clauses(sentence: str) -> list[str]:
    return [c.strip() for c in re.split(r"[，,；;]", sentence.rstrip("。")) if c.strip()]


def parse_sentences(text: str, source: str, file: str = "", known_names: Iterable[str] = ()) -> ParsedSource:
    """Parse a one-sentence-per-entry glossary (see module docstring).

    ``known_names`` are names from the other glossaries; they only help jieba keep
    multi-character names whole while finding the subject.
    """
    lines, skipped = strip_contact_blocks(numbered_lines(text), source)
    non_blank = [(no, ln) for no, ln in lines if ln]
    if not non_blank:
        raise SourceError(file or source, 1, "empty source: no entries found")
    seg = _segmenter(tuple(sorted(set(known_names))))
    known = frozenset(n.replace(" ", "") for n in known_names if has_cjk(n))
    entries: list[RawEntry] = []
    for idx, (no, line) in enumerate(non_blank):
        if is_furniture(line):
            skipped.append(ParseIssue(source, no, "page furniture", line))
            continue
        sentence = line
        adverbial = _LEADING_ADVERBIAL.match(sentence)
        body = sentence[adverbial.end() :] if adverbial else sentence
        split = subject_split(body, seg, known)
        if split is None and idx == 0 and len(line) <= _TAGLINE_MAX:
            skipped.append(ParseIssue(source, no, "tagline", line))
            continue
        if split is None:
            entries.append(
                RawEntry(
                    source=source,
                    line=no,
                    section=None,
                    names=[],
                    definition=sentence,
                    unnamed=True,
                    raw=line,
                )
            )
            continue
        subject, marker = split
        found: list[tuple[str, str]] = [(subject, marker)]
        # Parallel clauses: "内部 TCO 是…，外部 TCO 是…", "Scale-up 是…，scale-out 则…".
        # Only copula clauses whose subjects share a word with the first one
        # ("TCO", "长度", "scale") count; "…，RCCL 是 AMD 的对应实现" does not.
        if marker in _COPULAS or marker[0] == "是":
            for clause in _clauses(body)[1:]:
                sub = subject_split(clause, seg, known)
                if sub and (sub[1] in _COPULAS or sub[1][0] == "是") and _share_word(subject, sub[0]):
                    found.append(sub)
        second = _SECOND_TERM.search(sentence)
        if second:
            found.append((second.group("t").strip(), "就是"))
        group = tuple(s for s, _ in found) if len(found) > 1 else ()
        for subj, _ in found:
            entries.append(
                RawEntry(
                    source=source,
                    line=no,
                    section=None,
                    names=[name(subj)],
                    definition=sentence,
                    group=group,
                    raw=line,
                )
            )
    if not entries:
        raise SourceError(file or source, non_blank[0][0], "no entries found")
    return ParsedSource(source=source, entries=entries, skipped=skipped)
