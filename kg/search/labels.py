"""Name lookup for glossary terms: exact, fuzzy, mentions in text, autocomplete.

A :class:`LabelMatcher` is built once from ``(term_id, name, kind)`` triples
(``kind`` is ``label``, ``abbr`` or ``alias``; names in either language). All
comparisons use :func:`kg.textnorm.name_key` or :func:`kg.textnorm.fold`, so
case, full/half width, spacing, hyphens and Traditional characters never decide
a match.

Results are per term: when several names of one term match, the best one is
reported. Ordering is deterministic (score, then label < abbr < alias, then
shorter name, then name and term id).
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass

from rapidfuzz import process
from rapidfuzz.distance import OSA

from kg.search.charfilter import CharFilter
from kg.search.tokenize import CJK_CLASS
from kg.search.trie import MAX_CHAR, PrefixWalk
from kg.textnorm import fold, has_cjk, is_cjk_char, name_key

__all__ = ["KIND_RANK", "LabelMatcher", "Match", "Span"]

#: Preference between name kinds when several match equally well.
KIND_RANK: dict[str, int] = {"label": 0, "abbr": 1, "alias": 2}

#: Default minimum score of :meth:`LabelMatcher.fuzzy`.
DEFAULT_CUTOFF = 0.7

# Separators that find_mentions may step over inside a name ("kv-cache" ~ "KV cache").
# A suffix of the suggest tables while they are sorted: entry number << _OFFSET_BITS | offset.
_OFFSET_BITS = 20
_OFFSET_MASK = (1 << _OFFSET_BITS) - 1

_SKIP = frozenset(" -_‐‑‒–—·・./\\'’")
_MAX_CHAR = MAX_CHAR


@dataclass(frozen=True, slots=True)
class Match:
    """One term found for a query; ``score`` in [0, 1].

    ``method`` is ``exact``, ``fuzzy``, ``prefix`` or ``infix``; ``name`` and
    ``kind`` describe the name of the term that matched.
    """

    term_id: str
    name: str
    kind: str
    score: float
    method: str


@dataclass(frozen=True, slots=True)
class Span:
    """A name found inside a text; offsets index the *folded* text (``fold(text)``).

    ``text`` is ``fold(text)[start:end]``. When the matched name belongs to
    several terms ("Triton"), ``term_ids`` lists all of them, the preferred one
    (``term_id``) first.
    """

    term_id: str
    name: str
    kind: str
    start: int
    end: int
    text: str
    term_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Entry:
    term_id: str
    name: str
    kind: str
    key: str

    @property
    def order(self) -> tuple[int, int, str, str]:
        return (KIND_RANK[self.kind], len(self.key), self.name, self.term_id)


class _Suffixes:
    """The sorted suffixes of the suggest tables as a read-only sequence (for ``bisect``): item
    ``i`` is ``keys[entries[i]][offsets[i]:]``, made when a binary search reads it."""

    __slots__ = ("_entries", "_keys", "_offsets")

    def __init__(self, keys: list[str], entries: array[int], offsets: array[int]) -> None:
        self._keys, self._entries, self._offsets = keys, entries, offsets

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, i: int) -> str:
        return self._keys[self._entries[i]][self._offsets[i] :]


_WORD_CHAR = re.compile(f"[^\\W_{CJK_CLASS}]")


def _word_mask(text: str) -> str:
    """Same-length copy of *text* with U+0001 wherever it has a Latin letter or digit.

    Those (letters and digits of any script but Chinese) are the characters word
    boundaries concern. *text* must be folded, so it holds no control characters.
    """
    return _WORD_CHAR.sub("\x01", text)


def _plural_at(folded: str, mask: str, j: int, key: str) -> bool:
    """An "s" at *j* that ends the word makes the name before it plural ("gpus", "kv caches").

    Only for Latin names of three or more characters ending in a letter other than "s", so
    that "ops" is never "op" + s and "TPs" is never "TP".
    """
    n = len(folded)
    return (
        len(key) >= 3
        and key[-1].isascii()
        and key[-1].isalpha()
        and key[-1] != "s"
        and folded[j] == "s"
        and (j + 1 >= n or mask[j + 1] != "\x01")
    )


def _is_short(key: str) -> bool:
    """Abbreviation-like keys (≤4 ASCII characters, or ≤2 of any) only match near-exactly."""
    return len(key) <= 2 or (key.isascii() and len(key) <= 4)


def _spaced(name: str) -> str:
    """Folded name with separators turned into spaces, for word-order-insensitive comparison."""
    return " ".join("".join(" " if c in _SKIP else c for c in fold(name)).split())


def _token_sorted(text: str) -> str:
    """Words sorted and joined by one space: what ``fuzz.token_sort_ratio`` compares."""
    return " ".join(sorted(text.split()))


def _same_or(kept: str, text: str) -> str:
    """*kept* when it equals *text*: one string object instead of two equal ones (a one-word
    name's spaced form is its key)."""
    return kept if kept == text else text


def _is_subsequence(short: str, long: str) -> bool:
    it = iter(long)
    return all(ch in it for ch in short)


def _abbrev_score(query: str, key: str) -> float:
    """Score of *query* as a compression of *key* ("pagedattn" → "pagedattention"), else 0.

    The query must share the key's first 3+ characters, not be a plain prefix of
    it, keep its characters in order, and cover at least half of it.
    """
    if len(query) < 5 or len(query) >= len(key) or not key.isascii():
        return 0.0
    lcp = 0
    for a, b in zip(query, key, strict=False):
        if a != b:
            break
        lcp += 1
    if lcp < 3 or lcp == len(query) or not _is_subsequence(query, key):
        return 0.0
    coverage = len(query) / len(key)
    return 0.7 + 0.25 * coverage if coverage >= 0.5 else 0.0


_NAME_WORD = re.compile(r"[a-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def _holds_words(name: str, words: list[str]) -> bool:
    """*words* are a run of whole words of *name* (camel-case humps count as words)."""
    own = _NAME_WORD.findall(fold(_CAMEL.sub(" ", name)))
    n = len(words)
    return any(own[i : i + n] == words for i in range(len(own) - n + 1))


def _word_tails(entry: _Entry) -> set[str]:
    """Proper suffixes of the entry's key that start a word of its name, for infix suggestions.

    Word starts: after a separator, at a lower→upper case change ("PagedAttention"),
    at a Latin/Chinese change, and at every Chinese character ("分页注意力" → "注意力").
    """
    name = entry.name
    tails: set[str] = set()
    for i in range(1, len(name)):
        prev, ch = name[i - 1], name[i]
        if not (
            (prev in _SKIP or not prev.isalnum())
            or (prev.islower() and ch.isupper())
            or is_cjk_char(ch)
            or is_cjk_char(prev)
        ):
            continue
        tail = name_key(name[i:])
        if tail and tail != entry.key and entry.key.endswith(tail):
            tails.add(tail)
    return tails


class LabelMatcher:
    """Exact, fuzzy, in-text and prefix lookup of term names."""

    def __init__(self, names: Iterable[tuple[str, str, str]]) -> None:
        found: list[_Entry] = []
        for term_id, name, kind in names:
            if kind not in KIND_RANK:
                raise ValueError(
                    f"unknown name kind {kind!r} for {term_id!r} (want one of {sorted(KIND_RANK)})"
                )
            key = name_key(name)
            if key:
                found.append(_Entry(term_id, name, kind, key))
        # one entry per (term, key, kind), the one with the smallest name (same input in any order,
        # same entries). Sorted out in one go: a dict keyed by (term, key, kind) tuples, freed
        # afterwards, left its tuples' holes between the entries (~25 MB at 100k terms)
        found.sort(key=lambda e: (e.term_id, e.key, e.kind, e.name))
        unique = [
            e
            for i, e in enumerate(found)
            if not i
            or (e.term_id, e.key, e.kind) != (found[i - 1].term_id, found[i - 1].key, found[i - 1].kind)
        ]
        del found
        self._entries: list[_Entry] = sorted(unique, key=lambda e: (e.key, e.order))
        del unique
        # the entries' keys in the same order: the entries of one key, best first, are a range of
        # it found by binary search (_bucket; a dict of key -> entries took ~7 MB at 100k terms)
        self._prefix_keys = [e.key for e in self._entries]

        # fuzzy: long keys (rapidfuzz choices), short keys, spaced forms per entry
        keys = list(dict.fromkeys(self._prefix_keys))  # distinct, sorted
        self._long_keys = [k for k in keys if not _is_short(k)]
        self._short_keys = [k for k in keys if _is_short(k)]
        self._spaced_entries = [e for e in self._entries if not _is_short(e.key)]
        # exact pre-filters: only names that can reach the cutoff are scored (kg/search/charfilter.py)
        self._long_filter = CharFilter(self._long_keys)
        self._spaced_filter = CharFilter(
            [_same_or(e.key, _token_sorted(_spaced(e.name))) for e in self._spaced_entries]
        )
        # abbreviation candidates share the query's first 3 characters (see _abbrev_score): a
        # range of the sorted long keys, found by binary search (_long_with_prefix)

        # find_mentions: a trie walk over the sorted keys (no dict per node: kg/search/trie.py)
        self._trie = PrefixWalk(keys)
        # short keys whose own name has a separator ("llm-d" → "llmd"): a separator inside
        # them is the name's, not a sign of a different word ("t-p" is no "TP")
        self._separated_short = frozenset(
            e.key for e in self._entries if len(e.key) <= 4 and any(c in _SKIP for c in e.name)
        )

        # suggest: sorted keys (prefix: _prefix_keys) and sorted proper suffixes (infix); a suffix
        # is kept as (entry, offset into its key), not as a string (at 100k terms, ~900k of them)
        # sorted one first character at a time, so that the sort's key strings never all exist at
        # once; a suffix waits as one machine integer (entry << 20 | offset) in an array, not as
        # a tuple of two ints (~100 MB of them at 100k terms)
        by_first: dict[str, array[int]] = {}
        for n, e in enumerate(self._entries):
            for tail in _word_tails(e):
                codes = by_first.get(tail[0])
                if codes is None:
                    codes = by_first[tail[0]] = array("q")
                codes.append(n << _OFFSET_BITS | (len(e.key) - len(tail)))
        tail_entries: array[int] = array("i")
        # offsets into a key: two bytes each unless some key is longer than 65,535 characters
        tail_offsets: array[int] = array("H" if all(len(k) < 2**16 for k in self._prefix_keys) else "i")
        keys_ = self._prefix_keys
        for first in sorted(by_first):
            group = sorted(
                by_first.pop(first), key=lambda c: (keys_[c >> _OFFSET_BITS][c & _OFFSET_MASK :], c)
            )
            tail_entries.extend(c >> _OFFSET_BITS for c in group)
            tail_offsets.extend(c & _OFFSET_MASK for c in group)
        self._suffix_entries = tail_entries
        self._suffix_keys = _Suffixes(self._prefix_keys, tail_entries, tail_offsets)

    def __len__(self) -> int:
        """Number of distinct (term, name key, kind) entries."""
        return len(self._entries)

    def _bucket(self, key: str) -> tuple[_Entry, ...]:
        """The entries whose name key is *key*, best first (empty when none)."""
        keys = self._prefix_keys
        lo = bisect_left(keys, key)
        return tuple(self._entries[lo : bisect_right(keys, key, lo)])

    # -- exact ---------------------------------------------------------------

    def exact(self, text: str) -> list[Match]:
        """Terms with a name whose :func:`name_key` equals that of *text* (score 1.0)."""
        bucket = self._bucket(name_key(text))
        found = self._per_term((e, 1.0, "exact") for e in bucket)
        # terms sharing the key ("Tensor Core" / "TensorCore"): a name written exactly as *text*
        # first (stable: otherwise the preferred-name order)
        surface = fold(text).strip()
        return sorted(found, key=lambda m: fold(m.name) != surface)

    # -- fuzzy ---------------------------------------------------------------

    def fuzzy(self, text: str, limit: int = 10, cutoff: float = DEFAULT_CUTOFF) -> list[Match]:
        """Terms whose names resemble *text* despite typos, truncation or word order.

        Scores (0–1): 1.0 for an exact key; otherwise the best of the normalised
        Indel similarity of the keys (``fuzz.ratio``: typos, missing letters),
        ``token_sort_ratio`` × 0.95 on the spaced names (word order), and an
        abbreviation score for in-order compressions ("pagedattn"). Short keys
        (abbreviations: ≤4 ASCII or ≤2 characters) only match exactly; a
        one-edit near miss between them ("ttfb" vs "ttft") scores below 0.5 and
        is returned only when nothing reaches *cutoff*. Keys of two characters
        ("tp" vs "pp") never fuzzy-match.
        """
        q = name_key(text)
        if not q or limit <= 0:
            return []
        found: list[tuple[_Entry, float, str]] = [(e, 1.0, "exact") for e in self._bucket(q)]
        key_scores: dict[str, float] = {}
        if not _is_short(q):
            for key, score, _ in self._long_filter.extract(q, cutoff * 100):
                key_scores[key] = score / 100
            for key in self._long_with_prefix(q[:3]):
                ab = _abbrev_score(q, key)
                if ab >= cutoff and ab > key_scores.get(key, 0.0):
                    key_scores[key] = ab
            spaced = _spaced(text)
            if " " in spaced:
                # token_sort_ratio = ratio of the token-sorted forms (word order does not count)
                sorted_query = _token_sorted(spaced)
                for _, score, n in self._spaced_filter.extract(sorted_query, min(100.0, cutoff * 100 / 0.95)):
                    entry = self._spaced_entries[n]
                    key_scores[entry.key] = max(key_scores.get(entry.key, 0.0), score * 0.95 / 100)
        key_scores.pop(q, None)
        found += [(e, s, "fuzzy") for key, s in key_scores.items() for e in self._bucket(key)]
        if not found:
            found = self._near_misses(q)
        return self._per_term(found)[:limit]

    def _long_with_prefix(self, prefix: str) -> list[str]:
        """The long keys that start with *prefix*, in sorted order."""
        lo = bisect_left(self._long_keys, prefix)
        return self._long_keys[lo : bisect_left(self._long_keys, prefix + _MAX_CHAR, lo)]

    def _near_misses(self, q: str) -> list[tuple[_Entry, float, str]]:
        """One-edit neighbours among short keys ("ttfb" ~ "ttft"), scored < 0.5."""
        if len(q) < 3 or len(q) > 5:
            return []
        out: list[tuple[_Entry, float, str]] = []
        for key, dist, _ in process.extract(
            q, self._short_keys, scorer=OSA.distance, score_cutoff=1, limit=None
        ):
            if dist != 1 or min(len(key), len(q)) < 3:
                continue
            score = 0.5 * (1 - dist / max(len(key), len(q)))
            out += [(e, score, "fuzzy") for e in self._bucket(key)]
        return out

    # -- mentions -------------------------------------------------------------

    def find_mentions(self, text: str) -> list[Span]:
        """Names occurring in *text*, non-overlapping, longest first, in text order.

        Matching runs on ``fold(text)`` against name keys, stepping over single
        separators inside a name ("kv-cache", "Flash Attention"); a Latin name
        must not start or end inside a Latin word ("TP" is not found in "TTFT"
        or "output"). Abbreviations (≤4 characters) must appear without inner
        separators.
        """
        folded = fold(text)
        n = len(folded)
        mask = _word_mask(folded)
        trie = self._trie
        candidates: list[tuple[int, int, int, int, str]] = []
        for i, ch in enumerate(folded):
            if i > 0 and mask[i] == "\x01" and mask[i - 1] == "\x01":
                continue
            node = trie.root(ch)
            if node is None:
                continue
            j, skipped = i + 1, False
            while True:
                key = trie.word(node)
                if key is not None and not (skipped and len(key) <= 4 and key not in self._separated_short):
                    if not (j < n and mask[j - 1] == "\x01" and mask[j] == "\x01"):
                        candidates.append((-len(key), -(j - i), i, j, key))
                    elif _plural_at(folded, mask, j, key):
                        # "TPUs", "KV caches": an English plural of the name (the span keeps the "s")
                        candidates.append((-len(key), -(j - i), i, j + 1, key))
                if j >= n:
                    break
                nxt = trie.child(node, folded[j])
                if nxt is None and folded[j] in _SKIP and j + 1 < n:
                    nxt = trie.child(node, folded[j + 1])
                    if nxt is not None:
                        skipped = True
                        j += 1
                if nxt is None:
                    break
                node = nxt
                j += 1
        candidates.sort()
        taken = bytearray(n)
        spans: list[Span] = []
        for _, _, start, end, key in candidates:
            if any(taken[start:end]):
                continue
            taken[start:end] = b"\x01" * (end - start)
            bucket = self._bucket(key)
            surface = folded[start:end]
            # two terms share the key ("Tensor Core" / "TensorCore", the TPU's block): the one
            # whose name is written exactly as the text writes it, else the preferred name
            best = next((e for e in bucket if fold(e.name) == surface), bucket[0])
            term_ids = tuple(dict.fromkeys(e.term_id for e in bucket))
            spans.append(Span(best.term_id, best.name, best.kind, start, end, folded[start:end], term_ids))
        spans.sort(key=lambda s: s.start)
        return spans

    # -- autocomplete -----------------------------------------------------------

    def suggest(self, prefix: str, limit: int = 10) -> list[Match]:
        """Autocomplete: terms with a name starting with *prefix* (after :func:`name_key`).

        Order: exact name, then prefix matches, then (for prefixes of 2+
        characters, when prefixes give fewer than *limit* terms) names with a
        later word starting with it ("att" → "PagedAttention", "注意力" →
        "分页注意力"). Within each group: labels before abbreviations before
        aliases, then names in the prefix's script (Chinese or not), then shorter
        names. ``score`` is the share of the name the prefix covers (halved for
        infix matches), so it is not monotonic across kinds.
        """
        p = name_key(prefix)
        if not p or limit <= 0:
            return []
        zh = has_cjk(p)
        ranked: dict[str, tuple[tuple[int, int, int, int, str, str], Match]] = {}

        def offer(entry: _Entry, group: int, method: str) -> None:
            other_script = int(has_cjk(entry.key) != zh)
            rank = (group, KIND_RANK[entry.kind], other_script, len(entry.key), entry.name, entry.term_id)
            current = ranked.get(entry.term_id)
            if current is None or rank < current[0]:
                coverage = len(p) / len(entry.key)
                score = 1.0 if group == 0 else round(coverage if group == 1 else coverage / 2, 4)
                ranked[entry.term_id] = (rank, Match(entry.term_id, entry.name, entry.kind, score, method))

        lo = bisect_left(self._prefix_keys, p)
        hi = bisect_left(self._prefix_keys, p + _MAX_CHAR, lo)
        for n in range(lo, hi):
            entry = self._entries[n]
            offer(entry, 0 if entry.key == p else 1, "exact" if entry.key == p else "prefix")
        if len(ranked) < limit and len(p) >= 2:
            lo = bisect_left(self._suffix_keys, p)
            hi = bisect_left(self._suffix_keys, p + _MAX_CHAR, lo)
            for n in range(lo, hi):
                entry = self._entries[self._suffix_entries[n]]
                if entry.term_id not in ranked:
                    offer(entry, 2, "infix")
        return [m for _, m in sorted(ranked.values(), key=lambda rm: rm[0])][:limit]

    def word_of_one_name(self, text: str, limit: int = 10) -> str | None:
        """The one term a few Latin words name as whole words of its name ("canary" → Canary
        deployment, "shadow" → Shadow traffic, "blue-green" → Blue-green deployment); None when
        *text* is a name itself, names no term that way, or words of several terms' names
        ("deployment", "window", "paged": PagedAttention and ragged paged attention)."""
        words = _NAME_WORD.findall(fold(text))
        if not words or len(words) > 3 or has_cjk(text) or sum(map(len, words)) < 4:
            return None
        found = self.suggest(" ".join(words), limit=limit)
        if len(found) >= limit or any(m.method == "exact" for m in found):
            return None
        owners = {m.term_id for m in found if _holds_words(m.name, words)}
        return owners.pop() if len(owners) == 1 else None

    # -- helpers --------------------------------------------------------------

    @staticmethod
    def _per_term(found: Iterable[tuple[_Entry, float, str]]) -> list[Match]:
        """Best match per term, sorted by score then name preference (deterministic)."""
        best: dict[str, tuple[tuple[float, int, int, str, str], Match]] = {}
        for entry, score, method in found:
            score = round(min(1.0, max(0.0, score)), 4)
            rank = (-score, *entry.order)
            current = best.get(entry.term_id)
            if current is None or rank < current[0]:
                best[entry.term_id] = (rank, Match(entry.term_id, entry.name, entry.kind, score, method))
        return [m for _, m in sorted(best.values(), key=lambda rm: rm[0])]
