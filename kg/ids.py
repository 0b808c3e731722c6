"""Term ids: readable slugs, numbered on collision, and the table of former ids.

Rules (each one is a test in tests/kg/test_ids.py):

1. A term with an English label has the slug of that label (:func:`kg.textnorm.slugify`):
   "Time To First Token" → ``time-to-first-token``.
2. Otherwise the id is the pinyin of the Chinese label (:func:`pinyin_slug`): the label is cut
   into words (jieba's own dictionary, nothing added), each Chinese word is written as its
   tone-less pinyin syllables run together (pypinyin; ü is ``v``), Latin pieces are kept, and
   the words are joined with ``-`` and slugified: 数据并行 → ``shuju-bingxing``,
   KV cache 量化 → ``kv-cache-lianghua``, 命中率 → ``mingzhonglv``. A label with no readable
   character at all (never seen so far) falls back to the former hash id.
3. Terms whose ids collide are numbered in the order of their first source entry
   (``x``, ``x-2``, ``x-3``), which does not depend on the order the terms come in.
4. Former ids keep resolving (:func:`id_alias_table`): the hash id every Chinese label used to
   give (``zh-`` + 10 hex digits of the SHA-1 of the folded label), and the pinyin id of a term
   that also has an English label (a Chinese-only term that gains an English name moves from its
   pinyin id to the English slug). An alias that is some term's current id, or that two terms
   claim, is dropped and reported.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from kg.model import Term
from kg.textnorm import clean, fold, has_cjk, slugify, to_simplified

#: The ids the build gave Chinese-only terms before pinyin ids (``glossary stats`` counts them).
HASH_ID = re.compile(r"zh-[0-9a-f]{10}(?:-\d+)?")
_CJK_RUN = re.compile("([\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f]+)")


def legacy_hash_id(zh_label: str) -> str:
    """The id the build used to give a term known only by this Chinese label."""
    return "zh-" + hashlib.sha1(fold(zh_label).encode("utf-8")).hexdigest()[:10]


def is_hash_id(term_id: str) -> bool:
    """True for an id of the former hash form (``zh-`` and 10 hex digits, maybe numbered)."""
    return HASH_ID.fullmatch(term_id) is not None


@lru_cache(maxsize=1)
def _segmenter() -> Any:
    """A private jieba tokenizer with jieba's own dictionary only: the words a label is cut into
    must not depend on what else the process has added to the global one."""
    import jieba

    logging.getLogger("jieba").setLevel(logging.WARNING)
    tok = jieba.Tokenizer()
    tok.initialize()
    return tok


def pinyin_slug(text: str) -> str:
    """The pinyin id form of a Chinese (or mixed) label; ``""`` when nothing in it is readable.

    >>> pinyin_slug("数据并行"), pinyin_slug("KV cache 量化")
    ('shuju-bingxing', 'kv-cache-lianghua')
    """
    from pypinyin import lazy_pinyin

    words: list[str] = []
    for i, piece in enumerate(_CJK_RUN.split(to_simplified(clean(text)))):
        if i % 2 == 0:  # Latin, digits, spaces, punctuation: slugify sorts them out below
            words.append(piece)
        else:
            words.extend("".join(lazy_pinyin(w)) for w in _segmenter().cut(piece, HMM=False))
    return slugify("-".join(words))


def base_id(term: Term) -> str:
    """The id a term gets before collisions are numbered (rules 1 and 2)."""
    en = term.labels.get("en", "")
    if en and (slug := slugify(en)):
        return slug
    zh = term.labels.get("zh", "")
    return pinyin_slug(zh) or legacy_hash_id(zh)


def assign_ids(terms: Iterable[Term]) -> None:
    """Give every term its id (rules 1-3), in place.

    Same labels and entries, same ids: collisions are numbered in the order of the terms' first
    source entry, never in the order the terms are passed in.
    """
    keyed = sorted(((base_id(t), min(t.entry_keys, default=""), t) for t in terms), key=lambda x: x[:2])
    used: Counter[str] = Counter()
    for base, _first, term in keyed:
        used[base] += 1
        term.id = base if used[base] == 1 else f"{base}-{used[base]}"


def former_ids(term: Term) -> list[str]:
    """The ids a term may have been known by (rule 4), its current id excluded.

    Besides the forms of its Chinese label, the forms of every other name: a node merged into
    this one ("Ops:byte ratio (GPU)" into roofline ridge) was known by its own label's id.
    """
    zh = term.labels.get("zh", "")
    out = [legacy_hash_id(zh)] if zh else []
    if zh and term.labels.get("en") and has_cjk(zh) and (slug := pinyin_slug(zh)):
        out.append(slug)
    for name in [*term.aliases, *term.abbreviations]:
        if has_cjk(name):
            out += [legacy_hash_id(name), pinyin_slug(name) or ""]
        else:
            out.append(slugify(name))
    return [i for i in dict.fromkeys(out) if i and i != term.id]


def id_alias_table(terms: Sequence[Term]) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """The alias table (former id → current id, sorted) and the aliases dropped from it.

    An alias that is a current id would shadow that term; one two terms claim cannot say which
    of them it meant. Both are dropped and reported (``{"alias", "term", "why"}``).
    """
    live = {t.id for t in terms}
    claims: dict[str, list[str]] = defaultdict(list)
    for t in terms:
        for alias in former_ids(t):
            claims[alias].append(t.id)
    table: dict[str, str] = {}
    dropped: list[dict[str, Any]] = []
    for alias in sorted(claims):
        owners = sorted(claims[alias])
        if alias in live:
            dropped += [
                {"alias": alias, "term": o, "why": "is the current id of another term"} for o in owners
            ]
        elif len(owners) > 1:
            dropped += [
                {
                    "alias": alias,
                    "term": o,
                    "why": f"also a former id of {', '.join(x for x in owners if x != o)}",
                }
                for o in owners
            ]
        else:
            table[alias] = owners[0]
    return table, dropped
