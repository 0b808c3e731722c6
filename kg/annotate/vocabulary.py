"""The names the annotator looks for: every label, abbreviation and alias of the glossary, folded,
in one Aho-Corasick automaton (pyahocorasick), with how each name may match.

Per name (:class:`NameEntry`), decided from the glossary's own data, never from a list of words:

- **case**: an abbreviation written in capitals (``EP``, ``TTFT``, ``FP8``) matches only in
  capitals ("ep", "flop" and "pp." are other words); a single capitalised word that the sources
  never write in lower case and never translate (``Relax``, ``Hopper``, ``Transformers``, ``Triton``:
  product names) matches only capitalised; every other name ignores case.
- **weak**: a name that is also an everyday word — a single Latin word in lower or title case
  (``token``, ``node``, ``Engine``, ``queue``), a two-letter capitals abbreviation
  (``EP``, ``PP``, ``CP``), a Chinese name that jieba's general dictionary holds (``节点``,
  ``温度``, ``编码器``: everyday Chinese, unlike ``张量并行``) — is kept
  only where its context supports it (:mod:`kg.annotate.context`).
- **mixed case**: a name with a capital after a lower-case letter (``LoRA``, ``vLLM``,
  ``InfiniBand``) has a spelling of its own; written with another mix of cases (``LoRa``, the
  radio) it is another word. All lower case, all capitals or only a first capital still match.
- **rivals**: terms a reader could mean by the same words: a ``confused_with`` neighbour named by
  this name plus more words (lone ``Triton`` vs ``Triton Inference Server``: the context decides
  between them), and names equal up to spacing and hyphens (``TensorCore`` vs ``Tensor Core``: the
  spelling decides, the other is offered as a candidate and marked ambiguous when the context
  points to it).

Variants are indexed for what the text may do that the name does not: spaces between Chinese and
Latin characters or not ("首 token 延迟" / "首token延迟"), hyphen for space and back ("KV-cache"),
either apostrophe, the ``-ies`` plural ("latencies"), and the noun of one run of an activity
that ends a name of several words ("load test" for "load testing", :data:`ACTIVITY_NOUNS`;
never a spelling that is another name). A one-word name qualified in brackets also matches the
compound it stands for ("Queue (request)": "request queue", :func:`qualified_names`). Other plurals and possessives are suffixes checked at
match time (:mod:`kg.annotate.engine`).
"""

from __future__ import annotations

import itertools
import math
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import ahocorasick

from kg.model import Term
from kg.search.tokenize import STOPWORDS, Tokenizer, _base_dictionary
from kg.store import Glossary
from kg.textnorm import has_cjk, is_cjk_char, name_key, to_simplified

CASE_ANY = "any"
CASE_UPPER = "upper"  # letters only in capitals (TTFT, EP, FP8)
CASE_CAPITAL = "capital"  # first letter a capital (Relax, Hopper)

_KIND = {"label": "label", "abbreviation": "abbreviation", "alias": "alias"}
_TITLE_WORD = re.compile(r"[A-Z][a-z]+")
_LOWER_WORD = re.compile(r"[a-z]+")
_CAPS = re.compile(r"[A-Z0-9][A-Z0-9\-]*")
_SPACES = re.compile(r" +")
_MIXED_CASE = re.compile(r"[a-z][A-Z]")
_CAPS_WORD = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2,}(?![A-Za-z0-9])")
#: How many definitions must name an abbreviation for it to be the domain's own.
WIDELY_USED = 3
_MAX_SPACE_VARIANTS = 16
#: The activity a multi-word name ends in, and the noun naming one run of it: "load testing" is
#: also written "a load test" / "load tests". A closed list: most "-ing" words do not shorten to a
#: noun of the same thing ("continuous batching" is no "continuous batch", "prefix caching" no
#: "prefix cache").
ACTIVITY_NOUNS = {"testing": "test"}
#: How far in the graph a term supporting an everyday word may be (kg.annotate.context, rule 1).
RELATED_DEPTH = 2


@dataclass(frozen=True, slots=True)
class NameEntry:
    """One glossary name of one term, as the annotator matches it (see the module)."""

    term_id: str
    name: str
    kind: str  # label | abbreviation | alias
    case: str
    weak: bool
    rivals: tuple[str, ...] = ()
    spelled_rivals: tuple[str, ...] = ()  # the rivals that differ only in spacing/hyphens: never switched to
    mentioned: bool = False  # the term is a mentioned-only node (kind "mentioned")
    latin_start: bool = False  # the name starts with a Latin letter or digit (word boundary needed)
    latin_end: bool = False  # … ends with one (word boundary; plural and possessive endings)
    mixed_case: bool = False  # a capital after a lower-case letter (LoRA, vLLM): its own spelling


@dataclass(frozen=True, slots=True)
class Pattern:
    """What one automaton key stands for: the names it spells, and whether it is a derived
    ``-ies`` plural (so a suffix may not follow)."""

    key: str
    entries: tuple[NameEntry, ...]
    plural: bool = False


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() and not is_cjk_char(ch)


def fold_name(name: str) -> str:
    """A name folded the way :func:`kg.annotate.normalize.fold_with_map` folds pages (spaces kept)."""
    text = unicodedata.normalize("NFKC", name).casefold()
    text = _SPACES.sub(" ", re.sub(r"\s", " ", text)).strip()
    return to_simplified(text)


def name_variants(folded: str) -> set[str]:
    """The spellings of a folded name a page may use (see the module)."""
    out = {folded}
    # spaces at Chinese/Latin transitions: with and without
    if has_cjk(folded):
        out |= _cjk_space_variants(folded)
    if not has_cjk(folded):
        if " " in folded:
            out.add(folded.replace(" ", "-"))
        if "-" in folded:
            out.add(folded.replace("-", " "))
            if re.fullmatch(r"[a-z]+(?:-[a-z]+)+", folded):
                out.add(
                    folded.replace("-", "")
                )  # "warm-up" → "warmup" (never spaces: TensorCore ≠ Tensor Core)
    for v in list(out):
        if "'" in v:
            out.add(v.replace("'", "’"))
        if "’" in v:
            out.add(v.replace("’", "'"))
    return {v for v in out if len(v) >= 2}


def activity_variants(folded: str) -> set[str]:
    """The spellings of a folded Latin name of several words ending in an activity
    (:data:`ACTIVITY_NOUNS`) with the noun of one run of it instead ("load testing" → "load test")."""
    if has_cjk(folded):
        return set()
    head, sep, last = folded.rpartition(" ")
    if not sep:
        head, sep, last = folded.rpartition("-")
    noun = ACTIVITY_NOUNS.get(last)
    if not head or noun is None:
        return set()
    return name_variants(head + sep + noun)


def _cjk_space_variants(folded: str) -> set[str]:
    """Every way of writing *folded* with or without a space where Chinese meets another character."""
    parts: list[str] = []  # the characters, with a "\0" slot wherever Chinese meets another script
    slots = 0
    compact: list[str] = []
    # drop the spaces that touch a Chinese character first
    for i, ch in enumerate(folded):
        if (
            ch == " "
            and compact
            and i + 1 < len(folded)
            and (is_cjk_char(compact[-1]) or is_cjk_char(folded[i + 1]))
        ):
            continue
        compact.append(ch)
    for j, ch in enumerate(compact):
        if j and ch != " " and compact[j - 1] != " " and (is_cjk_char(ch) != is_cjk_char(compact[j - 1])):
            parts.append("\0")
            slots += 1
        parts.append(ch)
    if slots == 0 or 2**slots > _MAX_SPACE_VARIANTS:
        return {"".join(p for p in parts if p != "\0"), folded}
    out = set()
    for combo in itertools.product(("", " "), repeat=slots):
        it = iter(combo)
        out.add("".join(next(it) if p == "\0" else p for p in parts))
    return out


def _is_abbreviation(name: str) -> bool:
    letters = [c for c in name if c.isalpha()]
    return bool(letters) and len(name) >= 2 and all(c.isupper() for c in letters) and not has_cjk(name)


class Vocabulary:
    """Every name of a glossary in one automaton, with its matching rules and each term's context
    signature (the words of its definitions and the names of its neighbours)."""

    def __init__(self, glossary: Glossary) -> None:
        self.glossary = glossary
        terms = list(glossary.terms.values())
        names = [(t.id, n, k) for t in terms for k, ns in _names_of(t) for n in ns]
        self.tokenizer = Tokenizer(n for _, n, _ in names)
        lower_corpus = _lower_words(terms, names)
        rivals = _rivals(glossary, names)
        names += qualified_names(
            names, lambda tid, word: _product_name(word, glossary.terms[tid], lower_corpus)
        )
        patterns: dict[str, list[NameEntry]] = defaultdict(list)
        plural_keys: set[str] = set()
        derived: dict[str, list[NameEntry]] = defaultdict(list)
        self.entries: list[NameEntry] = []
        for tid, name, kind in names:
            term = glossary.terms[tid]
            entry = NameEntry(
                term_id=tid,
                name=name,
                kind=kind,
                case=_case_policy(name, term, lower_corpus),
                weak=_is_weak(name, term, lower_corpus),
                rivals=rivals.get((tid, name), ((), ()))[0],
                spelled_rivals=rivals.get((tid, name), ((), ()))[1],
                mentioned=getattr(term, "kind", "defined") == "mentioned",
                latin_start=_is_word_char(name.strip()[0]),
                latin_end=_is_word_char(name.strip()[-1]),
                mixed_case=bool(_MIXED_CASE.search(name)),
            )
            self.entries.append(entry)
            folded = fold_name(name)
            for v in name_variants(folded):
                if entry not in patterns[v]:
                    patterns[v].append(entry)
            if not has_cjk(folded) and re.search(r"[^aeiou]y$", folded) and len(folded) > 3:
                plural = folded[:-1] + "ies"
                plural_keys.add(plural)
                if entry not in patterns[plural]:
                    patterns[plural].append(entry)
        # the noun of a run of an activity ("load test" for "load testing"), unless it names
        # something of its own
        for entry in list(self.entries):
            for v in activity_variants(fold_name(entry.name)):
                if v not in patterns:
                    derived[v].append(entry)
        for key, entries in derived.items():
            patterns[key] = entries
        self.automaton = ahocorasick.Automaton()
        for key, entries in patterns.items():
            self.automaton.add_word(key, Pattern(key, tuple(entries), key in plural_keys))
        self.automaton.make_automaton()
        self.idf, self.signatures = _signatures(glossary, self.tokenizer)
        #: every Latin word of the sources' definitions and of the glossary's names, lower-cased:
        #: the domain's English (kg.annotate.context, rule 4)
        self.domain_words = frozenset(
            w.lower()
            for text in itertools.chain(
                (d.text for t in terms for d in t.definitions), (n for _, n, _ in names)
            )
            for w in re.findall(r"[A-Za-z]+", text)
        )
        #: the sources' definitions, one per line: the domain's Chinese (kg.annotate.context, rule 4)
        self.definition_text = "\n".join(d.text for t in terms for d in t.definitions)
        #: the same, lower-cased with single spaces: the compounds the domain writes (rule 3)
        self.definition_lower = " ".join(self.definition_text.lower().split())
        #: abbreviations that at least :data:`WIDELY_USED` definitions name (GPU, HBM, LLM): the
        #: domain's own, never another thing (kg.annotate.context, rule 9)
        caps: Counter[str] = Counter()
        for t in terms:
            for d in t.definitions:
                caps.update(set(_CAPS_WORD.findall(d.text)))
        self.widely_used = frozenset(w for w, n in caps.items() if n >= WIDELY_USED)
        self._related: dict[str, frozenset[str]] = {}
        #: jieba's general dictionary (word → frequency; prefixes at 0): the everyday Chinese words
        #: a match may sit inside (kg.annotate.engine)
        self.general_words: dict[str, int] = _base_dictionary()[0]
        self._domain_cache: dict[str, bool] = {}

    def domain_text(self, text: str) -> bool:
        """True when *text* is a name or a definition holds it: the domain writes it."""
        got = self._domain_cache.get(text)
        if got is None:
            if len(self._domain_cache) > 50_000:
                self._domain_cache.clear()
            got = self._domain_cache[text] = self.is_name(text) or text in self.definition_text
        return got

    def __len__(self) -> int:
        return len(self.entries)

    def related(self, term_id: str) -> frozenset[str]:
        """Terms within :data:`RELATED_DEPTH` edges of *term_id* (either edge type), cached."""
        got = self._related.get(term_id)
        if got is None:
            got = self._related[term_id] = frozenset(self.glossary.neighbours(term_id, depth=RELATED_DEPTH))
        return got

    def is_name(self, text: str) -> bool:
        """True when *text* (folded) is a name of some term, or one of its indexed variants."""
        return bool(self.automaton.exists(fold_name(text)))


_QUALIFIED = re.compile(r"([A-Za-z][A-Za-z-]*) \(([A-Za-z][A-Za-z-]*)\)")


def qualified_names(
    names: list[tuple[str, str, str]], product: Callable[[str, str], bool]
) -> list[tuple[str, str, str]]:
    """The compound a one-word name with a one-word qualifier in brackets stands for, as an alias:
    "Queue (request)" is a "request queue", "Head (attention)" an "attention head" — when the name
    is no product name (*product*: term id, word → bool; not "Hopper (architecture)": a product
    and its kind), the qualifier is in lower case and no term already has that name. (*names*:
    term id, name, kind.)"""
    taken = {fold_name(n) for _, n, _ in names}
    out: list[tuple[str, str, str]] = []
    for tid, name, _ in names:
        m = _QUALIFIED.fullmatch(name)
        if m is None:
            continue
        head, qualifier = m.groups()
        if not (head[1:].islower() and qualifier.islower()) or product(tid, head):
            continue
        compound = f"{qualifier} {head.lower()}"
        if fold_name(compound) not in taken:
            taken.add(fold_name(compound))
            out.append((tid, compound, "alias"))
    return out


def _names_of(term: Term) -> list[tuple[str, list[str]]]:
    return [
        ("label", list(term.labels.values())),
        ("abbreviation", term.abbreviations),
        ("alias", term.aliases),
    ]


def _lower_words(terms: Iterable[Term], names: list[tuple[str, str, str]]) -> Counter[str]:
    """How often each lower-case Latin word occurs in the sources' definitions and names."""
    counts: Counter[str] = Counter()
    for t in terms:
        for d in t.definitions:
            counts.update(re.findall(r"(?<![A-Za-z])[a-z]+(?![A-Za-z])", d.text))
    for _, n, _ in names:
        counts.update(re.findall(r"(?<![A-Za-z])[a-z]+(?![A-Za-z])", n))
    return counts


def _product_name(name: str, term: Term, lower_corpus: Counter[str]) -> bool:
    """A single capitalised word the sources never write in lower case, of a term with no Chinese
    name: a product or project name (Relax, Hopper, Triton), not a translated concept (Queue)."""
    if not _TITLE_WORD.fullmatch(name) or lower_corpus[name.lower()]:
        return False
    return not any(has_cjk(n) for n in term.all_names())


def _case_policy(name: str, term: Term, lower_corpus: Counter[str]) -> str:
    if _is_abbreviation(name):
        return CASE_UPPER
    if _product_name(name, term, lower_corpus):
        return CASE_CAPITAL
    return CASE_ANY


def _is_weak(name: str, term: Term, lower_corpus: Counter[str]) -> bool:
    if has_cjk(name):
        return bool(_base_dictionary()[0].get(to_simplified(name.strip())))
    if _LOWER_WORD.fullmatch(name) or _TITLE_WORD.fullmatch(name):
        return not _product_name(name, term, lower_corpus)
    return bool(re.fullmatch(r"[A-Z]{2}", name))


def _rivals(
    glossary: Glossary, names: list[tuple[str, str, str]]
) -> dict[tuple[str, str], tuple[tuple[str, ...], tuple[str, ...]]]:
    """Per (term id, name): other terms the same words may mean (see the module), and which of them
    differ only in spacing or hyphens."""
    by_loose: dict[str, set[str]] = defaultdict(set)
    folded_names: dict[str, list[str]] = defaultdict(list)
    for tid, n, _ in names:
        by_loose[name_key(n)].add(tid)
        folded_names[tid].append(fold_name(n))
    confused: dict[str, set[str]] = defaultdict(set)
    for e in glossary.edges:
        if e.type == "confused_with":
            confused[e.source].add(e.target)
            confused[e.target].add(e.source)
    out: dict[tuple[str, str], tuple[tuple[str, ...], tuple[str, ...]]] = {}
    for tid, n, _ in names:
        spelled = set(by_loose[name_key(n)]) - {tid}
        found = set(spelled)
        f = fold_name(n)
        for other in confused[tid]:
            if any(o.startswith(f + " ") for o in folded_names[other]):
                found.add(other)
        if found:
            out[(tid, n)] = (tuple(sorted(found)), tuple(sorted(spelled)))
    return out


def _signatures(
    glossary: Glossary, tokenizer: Tokenizer
) -> tuple[dict[str, float], dict[str, frozenset[str]]]:
    """Each term's context signature (tokens of its definitions and of its neighbours' names) and
    the inverse document frequency of every signature token."""
    raw: dict[str, set[str]] = {}
    for t in glossary.terms.values():
        words: set[str] = set()
        for d in t.definitions:
            words.update(tokenizer.tokenize(d.text))
        for other in glossary.neighbours(t.id):
            for n in glossary.terms[other].all_names():
                words.update(tokenizer.tokenize(n))
        own = {tok for n in t.all_names() for tok in tokenizer.tokenize(n)}
        raw[t.id] = {w for w in words - own if w not in STOPWORDS and len(w) > 1 and not w.isdigit()}
    df: Counter[str] = Counter(w for ws in raw.values() for w in ws)
    total = max(1, len(raw))
    idf = {w: math.log(total / c) for w, c in df.items()}
    return idf, {tid: frozenset(ws) for tid, ws in raw.items()}
