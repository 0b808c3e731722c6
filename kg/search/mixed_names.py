"""Mixed-script names: an English name whose last word a Chinese writer translates ("L2 缓存" for
L2 cache, "GPU 内存" …).

Chinese technical writing keeps a Latin modifier and translates the head noun: "L2 cache" becomes
"L2 缓存", "Prefix caching" … The glossary's own bilingual labels say how each head noun is
translated: every term with an English and a Chinese label pairs the English name's last word
with the Chinese name's last characters (cache → 缓存: KV cache / KV 缓存, File system page cache /
文件系统页缓存). A head word seen with the same Chinese ending in at least :data:`MIN_PAIRS`
terms gets it; the other English names ending in that word then also match with the Chinese head
("L2 缓存"). Only names whose remaining words are Latin get such a variant, and the caller keeps
any variant another term already has as a name.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from kg.model import Term

__all__ = ["MIN_PAIRS", "head_translations", "mixed_variants"]

#: Terms that must pair an English head word with the same Chinese ending.
MIN_PAIRS = 2

_CJK_TAIL = re.compile(r"[\u4e00-\u9fff]{2,3}$")
#: "Cost per token", "Mixture of Experts", "Time to first token": the last word is no head noun.
_NOT_HEAD_LAST = re.compile(r"\s(?:per|of|to|for|in|on|with|from|by)\s", re.IGNORECASE)
_LATIN_WORDS = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.+/-]*(?: [A-Za-z0-9][A-Za-z0-9.+/-]*)*$")


def head_translations(terms: Iterable[Term]) -> dict[str, str]:
    """English head word (lower case) → its Chinese ending, learned from the terms' label pairs.
    Of a word's endings the most frequent wins, the longer one on a tie (注意力 over 意力)."""
    seen: Counter[tuple[str, str]] = Counter()
    for t in terms:
        en, zh = t.labels.get("en"), t.labels.get("zh")
        if not en or not zh or " " not in en.strip():
            continue
        head = en.strip().lower().split()[-1]
        if not re.fullmatch(r"[a-z][a-z-]+", head) or _NOT_HEAD_LAST.search(en) or head in zh.lower():
            continue  # "Time to first token" / "首 token 时间": token is kept, not translated
        for k in (2, 3):
            tail = zh.strip()[-k:]
            if len(tail) == k and _CJK_TAIL.fullmatch(tail):
                seen[(head, tail)] += 1
    best: dict[str, tuple[int, int, str]] = {}
    for (head, tail), n in seen.items():
        if n < MIN_PAIRS:
            continue
        key = (n, len(tail), tail)
        if head not in best or key > best[head]:
            best[head] = key
    return {head: v[2] for head, v in best.items()}


def mixed_variants(name: str, table: dict[str, str]) -> list[str]:
    """ "L2 cache" → ["L2 缓存"], when the head word has a learned translation and the words
    before it are Latin; [] otherwise."""
    words = name.strip().split()
    if len(words) < 2 or not _LATIN_WORDS.match(name.strip()) or _NOT_HEAD_LAST.search(name):
        return []
    zh = table.get(words[-1].lower())
    return [f"{' '.join(words[:-1])} {zh}"] if zh else []
