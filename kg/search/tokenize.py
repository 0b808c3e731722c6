"""Bilingual tokenizer for glossary search (Chinese via jieba, Latin by rule).

A :class:`Tokenizer` is built from the glossary's names so that terms such as
"连续批处理", "张量并行" or "首 token 延迟" stay whole tokens, while sub-words
("批处理", "延迟") are emitted as well for recall. Text is folded with
:func:`kg.textnorm.fold` first, so width, case and Traditional characters never
change the tokens.

Each tokenizer owns a private ``jieba.Tokenizer`` (never the global one). The
jieba base dictionary is read once per process and copied into each instance,
and instances are cached per vocabulary, so building a second tokenizer over the
same names is nearly free. A serving process's one tokenizer keeps its dictionary
as a compact table instead (``take_base``, :mod:`kg.search.wordfreq`).
"""

from __future__ import annotations

import itertools
import logging
import re
import sys
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import Any

from kg.search.trie import PrefixWalk
from kg.search.wordfreq import WordFreq
from kg.textnorm import fold, has_cjk, is_cjk_char, name_key

__all__ = ["CJK_CLASS", "STOPWORDS", "TOKENIZER_VERSION", "Tokenizer"]

#: Bump when the tokens produced for a text change (saved indexes must be rebuilt).
TOKENIZER_VERSION = 1

#: Frequency given to glossary words in the private jieba dictionary. jieba's total
#: is ~6e7 and its commonest words have ~3e5, so this keeps names whole without
#: swallowing unrelated neighbours.
_USER_FREQ = 200_000

_EN_STOPWORD_TEXT = """a an the of is are was were be been being what whats which who whom how why when where
    to and or in on at by for from with as into does do did done doing can could should would
    will shall may might must it its this that these those there their them they than then
    me my we our you your i s t d ll re ve not no about between difference differences vs versus
    please explain tell meaning"""
_EN_STOPWORDS = frozenset(_EN_STOPWORD_TEXT.split())

# Pure function words and question words; single characters here are dropped
# whenever jieba emits them alone.
_ZH_STOPWORD_TEXT = """的 了 是 和 与 在 吗 呢 啊 吧 呀 么 嘛 啥 及 或 对 把 被 也 都 就 还 又 而 之 于 跟 同 其 着 过
    地 得 个 这 那 哪 则 即 并 且 从 让 给 为
    什么 怎么 怎样 如何 为什么 为何 哪些 哪个 是否 一个 一种 这个 那个 这些 那些 或者 以及 还是
    请问 一下 有没有 是不是 什么样 之间 区别 意思 含义 指的是 就是"""
_ZH_STOPWORDS = frozenset(_ZH_STOPWORD_TEXT.split())

#: Tokens never emitted by :meth:`Tokenizer.tokenize`.
STOPWORDS: frozenset[str] = _EN_STOPWORDS | _ZH_STOPWORDS

#: Chinese characters as a regex character-class body (same ranges as :func:`kg.textnorm.is_cjk_char`).
CJK_CLASS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f"
_CJK_RUN = re.compile(f"[{CJK_CLASS}]+")
# A Latin/digit word (any non-CJK letter or digit), with inner hyphens, underscores and dots.
_ALNUM = f"[^\\W_{CJK_CLASS}]"
_WORD = re.compile(f"{_ALNUM}+(?:[-_.]{_ALNUM}+)*")
_DECIMAL = re.compile(r"\d+(?:\.\d+)+")
_SPACES = re.compile(r"\s+")
_VOCAB_SEP = "\n"


def _silence_jieba() -> None:
    logging.getLogger("jieba").setLevel(logging.WARNING)


@lru_cache(maxsize=1)
def _base_dictionary() -> tuple[dict[str, int], int]:
    """jieba's default prefix dictionary and total, loaded once per process (~0.4 s)."""
    import jieba

    _silence_jieba()
    base = jieba.Tokenizer()
    base.initialize()
    return base.FREQ, base.total


@lru_cache(maxsize=4)
def _jieba_for(words: tuple[str, ...], take_base: bool = False) -> Any:
    """A private, initialised ``jieba.Tokenizer`` with *words* added; cached per word tuple.

    The cached instance is shared by tokenizers with the same vocabulary; it is
    never modified after this function returns. *take_base*: see :class:`Tokenizer`.
    """
    import jieba

    _silence_jieba()
    freq, total = _base_dictionary()
    jt = jieba.Tokenizer()
    jt.initialized = True
    if take_base:
        _base_dictionary.cache_clear()  # the dictionary is this tokenizer's now
        jt.FREQ, jt.total = _compact_with(freq, total, words)
        return jt
    jt.FREQ = dict(freq)  # ~10 ms; avoids re-reading the dictionary (~400 ms)
    jt.total = total
    for word in words:
        jt.add_word(word, max(_USER_FREQ, jt.FREQ.get(word) or 0))
    return jt


def _compact_with(base: dict[str, int], total: int, words: Iterable[str]) -> tuple[WordFreq, int]:
    """jieba's dictionary *base* (and its *total*) with *words* added as ``add_word`` adds them
    (frequency ``max(_USER_FREQ, base frequency)``, every new prefix at 0), as one
    :class:`WordFreq`: the same lookups, a fifth of the memory (~96 → ~20 MB at 100k terms)."""
    added: dict[str, int] = {}
    for word in words:
        freq = max(_USER_FREQ, base.get(word) or 0)
        added[word] = freq
        total += freq
        for end in range(1, len(word)):
            prefix = word[:end]
            if prefix not in base and prefix not in added:
                added[prefix] = 0
    new = sum(1 for w in added if w not in base)
    items = itertools.chain(((w, f) for w, f in base.items() if w not in added), added.items())
    return WordFreq(items, len(base) + new), total


def _latin_tokens(word: str) -> Iterator[str]:
    """Tokens of one Latin/digit word: the word, joined and split forms of compounds.

    ``all-reduce`` → ``allreduce``, ``all``, ``reduce``; ``fp8`` → ``fp8``;
    ``4.5`` stays whole; ``vllm.ai`` → ``vllm``, ``ai``.
    """
    if "-" in word or "_" in word:
        yield re.sub(r"[-_]", "", word)
        for part in re.split(r"[-_]", word):
            yield from _latin_tokens(part)
    elif "." in word and not _DECIMAL.fullmatch(word):
        for part in word.split("."):
            if part:
                yield part
    else:
        yield word


class Tokenizer:
    """Fold-then-segment tokenizer over Chinese and Latin text.

    *vocabulary* holds glossary names (labels, abbreviations, aliases) in either
    language. Names containing Chinese become jieba words (after folding, so
    "首 token 延迟" is the word "首token延迟"); mixed Chinese/Latin names are
    recognised by a longest-match pre-pass because jieba never sees Latin here.
    """

    def __init__(self, vocabulary: Iterable[str] = (), *, take_base: bool = False) -> None:
        """*take_base*: this tokenizer takes jieba's base dictionary, which is read once per process
        and copied into each tokenizer, instead of a copy, and keeps it with the glossary's words
        as a compact read-only table (:class:`kg.search.wordfreq.WordFreq`: same tokens, ~75 MB
        less at 100k terms, ~1 µs more per dictionary lookup, ~1 s more to make). A server makes
        one tokenizer; the next tokenizer over another vocabulary reads the dictionary again
        (~0.4 s). Without it (builds, which tokenize every document), the words go into a copy
        of jieba's dict."""
        folded = {fold(name) for name in vocabulary}
        names = sorted(n for n in folded if n)
        del folded
        # kept joined in UTF-8 (one object, not one string per name: ~15 MB less at 100k terms); a name
        # holding the separator (none does: names are one line) keeps the tuple
        self._vocabulary: tuple[str, ...] | bytes = (
            tuple(names) if any(_VOCAB_SEP in n for n in names) else _VOCAB_SEP.join(names).encode("utf-8")
        )
        jieba_words: set[str] = set()
        mixed: set[str] = set()
        for name in names:
            if not has_cjk(name):
                continue
            compact = _SPACES.sub("", name)
            if _CJK_RUN.fullmatch(compact):
                jieba_words.add(compact)
                continue
            mixed.add(name)
            # Chinese pieces of a mixed name ("延迟" of "首token延迟") are words too.
            jieba_words.update(run for run in _CJK_RUN.findall(compact) if len(run) >= 2)
        self._jieba = _jieba_for(tuple(sorted(jieba_words)), take_base)
        # a trie walk over the mixed names: matching costs the name length, not the number
        # of names sharing a first character (thousands in a 100k-term glossary)
        self._mixed_trie = PrefixWalk(mixed)

    @property
    def segmenter(self) -> Any:
        """The private ``jieba.Tokenizer`` holding the glossary's Chinese names as words (shared
        by tokenizers of the same vocabulary: read it, never add words to it)."""
        return self._jieba

    @property
    def vocabulary(self) -> tuple[str, ...]:
        """The folded, de-duplicated, sorted names this tokenizer was built from."""
        if isinstance(self._vocabulary, tuple):
            return self._vocabulary
        return tuple(self._vocabulary.decode("utf-8").split(_VOCAB_SEP)) if self._vocabulary else ()

    def tokenize(self, text: str) -> list[str]:
        """Tokens of *text*: folded, segmented, stopwords and punctuation removed.

        Order follows the text; a word may be followed by its sub-words, so the
        list can hold duplicates (BM25 term frequency counts them).
        """
        folded = fold(text)
        out: list[str] = []
        pos = 0
        for start, end in self._mixed_matches(folded):
            self._plain(folded[pos:start], out)
            out.append(name_key(folded[start:end]))
            self._plain(folded[start:end], out)
            pos = end
        self._plain(folded[pos:], out)
        # interned: an index build keeps the tokens of every document until it counts them, and
        # one string per distinct token instead of one per occurrence is what lets a million
        # terms' documents fit (~10x less; the tokens are the same)
        return [sys.intern(tok) for tok in out if tok not in STOPWORDS]

    def __call__(self, text: str) -> list[str]:
        return self.tokenize(text)

    # -- internals ---------------------------------------------------------

    def _mixed_matches(self, text: str) -> Iterator[tuple[int, int]]:
        """Leftmost-longest, non-overlapping occurrences of mixed Chinese/Latin names."""
        if not self._mixed_trie:
            return
        i, n = 0, len(text)
        while i < n:
            hit = 0
            trie = self._mixed_trie
            node = trie.root(text[i])
            j = i + 1
            while node is not None:
                if trie.word(node) is not None and _latin_boundary(text, i, j):
                    hit = j - i  # the longest name that does not cut a Latin word wins
                if j >= n:
                    break
                node = trie.child(node, text[j])
                j += 1
            if hit:
                yield i, i + hit
                i += hit
            else:
                i += 1

    def _plain(self, text: str, out: list[str]) -> None:
        """Append the tokens of *text* (no mixed-name pre-pass) to *out*."""
        pos = 0
        for m in _CJK_RUN.finditer(text):
            self._latin(text[pos : m.start()], out)
            self._chinese(m.group(), out)
            pos = m.end()
        self._latin(text[pos:], out)

    @staticmethod
    def _latin(text: str, out: list[str]) -> None:
        for m in _WORD.finditer(text):
            out.extend(_latin_tokens(m.group()))

    def _chinese(self, run: str, out: list[str]) -> None:
        """Segment a run of Chinese characters like ``cut_for_search``: n-grams, then the word."""
        freq = self._jieba.FREQ
        for word in self._jieba.cut(run, HMM=True):
            n = len(word)
            if n > 2:
                out.extend(word[i : i + 2] for i in range(n - 1) if freq.get(word[i : i + 2]))
            if n > 3:
                out.extend(word[i : i + 3] for i in range(n - 2) if freq.get(word[i : i + 3]))
            out.append(word)


def _latin_boundary(text: str, start: int, end: int) -> bool:
    """False when a match would cut a Latin/digit word in two at either end."""
    if start > 0 and _is_word_char(text[start]) and _is_word_char(text[start - 1]):
        return False
    return not (end < len(text) and _is_word_char(text[end - 1]) and _is_word_char(text[end]))


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() and not is_cjk_char(ch)
