"""Context decisions: is an everyday word a term here, and which of two same-named terms is meant.

**Everyday words** (:attr:`NameEntry.weak <kg.annotate.vocabulary.NameEntry>`: ``token``,
``node``, ``engine``, ``EP``, ``节点``…) are kept only when their sentence supports the
glossary sense. The rule set, tuned on the dev splits of the labelled paragraphs only (``dev``
and ``dev-traps``; rules 5–9 were also checked on ``dev-traps2``, see docs/EVAL.md):

1. *Support from related terms*: a term within two edges of it in the graph is named in the
   same sentence ("with an FP8 KV cache the same node holds twice the sessions" keeps "node":
   KV cache and node are related through the graph; a term unrelated to it does not count).
   Measured on dev, reaching the sentences before and after too kept more traps than mentions.
2. *Support from the term's signature*: the sentence shares words with the term's own
   definitions or its neighbours' names, weighted by how rare the word is among all signatures
   (inverse document frequency); a total of at least :data:`SIGNATURE_THRESHOLD` keeps it.
3. *A foreign compound*: an everyday word right after a modifier that makes it another thing
   is dropped whatever the support: a capitalised word that is not a glossary name and does not
   start the sentence ("Hugging Face token", "Kubernetes operator"), a word joined to it by a
   hyphen ("no-op"), or a content word ("die temperature", "message queue", "视频编码器",
   "核心温度") — unless the modifier is itself a glossary name, one of the term's signature
   words, a number or code ("g6e instances", "30k-token"), a determiner, quantifier, adjective or
   verb (a short list of English ones plus their endings; in Chinese, any word jieba's dictionary
   does not tag as a noun — a verbal noun, ``vn``, is taken as the verb it mostly is before a
   term: "影响吞吐", "对应 decode"), or the match is an abbreviation ("needs TP=2"). A possessive owner
   is a noun ("the router's gate"); after "to", a modal or a subject pronoun the word is a verb
   ("to compute", "we batch"); "for instance" and "pay attention" are idioms. A capitalised
   content word opening the sentence is a modifier too ("Reviewer latency"). Not foreign: the
   tail of a hyphenated modifier ("256k-entry vocabulary", "dynamic-shape kernels") and a
   compound the sources' definitions write as words of their own ("system prompt"; "value
   head" inside "key-value head" does not count).

4. *A modifier of the next word*: an everyday Latin word right before a lower-case noun that
   the domain never uses (no definition or name of the glossary holds it, nor the term's
   signature) only modifies that noun ("token bucket", "kernel upgrade", "IR camera", "AL
   East") — unless the sentence's signature support (rule 2) keeps it. A plural is a head, and a
   verb or adverb after it ("-s", "-ing", "-ed", "-ly", a common irregular past) is no noun. Tried
   on Chinese too (the next jieba word a noun of no definition): on dev it lost as many mentions
   ("带宽惩罚") as it saved traps ("预热宣传"), so it is not used. An ``-er`` word before the
   match is a noun ("user agent"), unless it is a comparative ("larger batch"). A preposition
   after it is no noun ("TP inside a node"); after an abbreviation, a word in "-ss", "-us" or
   "-is" is no plural ("MAC address", "RAG status"; kept as a verb ending after everyday words,
   "the training process" being the domain's). In mixed text the next word may be Chinese: a latin everyday
   word before a jieba noun that no definition holds ("batch 实习生") only modifies it. The
   signature support that rescues such a word must be local: two different signature words in
   its own clause (between commas), not one generic word of the sentence ("rate" in "rate
   limiting uses a token bucket").
5. *Contrast*: support (rules 1 and 2) is looked for only up to a contrastive conjunction
   ("but", "yet", "whereas", "although", "though"; "不过", "但", "可是", "然而"): it joins two
   things set against each other ("throughput of the coffee roaster is a joke, but GPU
   throughput is measured in tokens per second"). Splitting at every comma lost many mentions
   on dev (support often sits in the next clause), splitting at "so" or "while" too.
6. *Function words are no signature*: English prepositions, determiners, auxiliaries and the
   short lists of modifiers and verbs below, and the Chinese words jieba tags as adverbs,
   numerals, locality words, pronouns, particles… ("通常", "一次", "per") weigh nothing in
   rule 2: they are as frequent outside the domain as inside.
7. *Word as word*: an everyday word talked about as a word ("the word engine", "engine
   这个词") is no use of the term.
8. *Compound chains*: an everyday latin word right after another one dropped as a foreign
   compound belongs to the same compound ("search engine optimization").
9. *Abbreviations of three capitals* (letters only: MAC, MLA, SLA) have other expansions
   outside the domain; one that only modifies an outside noun ("MAC address", "SLA 树脂") needs
   support like an everyday word (rule 1, rule 2, or its own spelled-out name in the sentence,
   "TPS … tokens per second"). Asking support of every such abbreviation lost mentions on dev
   (GPU, PUE alone in a sentence). Not concerned: longer ones (TTFT), names with digits (H100,
   FP4), and the abbreviations the domain uses everywhere — named in at least
   :data:`~kg.annotate.vocabulary.WIDELY_USED` definitions (GPU, HBM, LLM: "HBM stack").

10. *An abbreviation spelled out as something else*: an abbreviation (capitals, or a short mix
   of cases such as ``MoE``) whose sentence spells out another expansion of its letters is that
   other thing ("ASR means anti-slip regulation", "the MoE on our grant paperwork is the
   Ministry of Education"). An expansion is a run of words whose initials spell the letters
   ("of", "and", "the", "for" may sit between them) that is no name of the term, written in
   capitals ("Ministry of Education") or right after a cue that defines it ("means", "stands
   for", "refers to", "(", "=", "即", "指"). The term's own expansion beside it ("MoE 是 Mixture
   of Experts") keeps it.

11. *A sentence that tells two senses apart* ("has nothing to do with", "unrelated", "something
   else", "无关", "没有关系", "两回事", "不是一回事", "同名") names a word in both its senses: there
   an everyday word, a Chinese name or a product name (``Triton``) needs support (rules 1 and 2)
   from its own side — the clause it sits in, cut at commas, colons, brackets, the joining
   "和 / 跟 / 与" and the separating phrase; a clause about "the latter" (", 后者…") stays with
   the one before. Abbreviations and names of several Latin words are left alone: asking them
   for support lost mentions on dev ("… with EP=32", "GPU 上的…").

12. *The page's own sense, marked*: when a name recurs in a paragraph and a later use is
   introduced as the sense the page means ("我们说的 MIG 是…", "本文的混合模型则指…", "另一个 EP",
   "UVA 在我们这里指…", "in this doc Hopper means …", "the other Triton"), the uses of the same
   term before it in that paragraph are the other sense and are dropped ("我爸说的 MIG 是熔化极气体
   保护焊"), whatever kind of name it is.

**Same-named terms** (:attr:`NameEntry.rivals`): the term the sentence's words support most
(same signature score) wins when it leads by :data:`RIVAL_MARGIN`; the term the text names
exactly is kept otherwise, and marked ambiguous when a rival scores as well. A rival spelled
differently (``Tensor Core`` for ``TensorCore``) never wins: the mention is marked ambiguous.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from kg.annotate.segment import words
from kg.annotate.vocabulary import CASE_UPPER, NameEntry, Vocabulary
from kg.search.tokenize import STOPWORDS

#: Signature score (sum of the IDF of shared words) that alone keeps an everyday word.
SIGNATURE_THRESHOLD = 3.0
#: Lead a rival needs over the term the text names exactly.
RIVAL_MARGIN = 2.0

_BOUNDARY = re.compile(r"[。！？!?；;\n]|\.(?=\s|$)")
_MAX_SENTENCE = 400
MASK = "\ue000"  # what the annotator puts where nothing may match (kg.annotate.engine.MASK)


class SentenceBounds:
    """Sentence boundaries of a page, found in one pass: sentence punctuation and line ends."""

    def __init__(self, text: str) -> None:
        self.length = len(text)
        self.ends = [m.start() for m in _BOUNDARY.finditer(text)]  # a boundary character's offset

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The sentence around ``[start, end)`` (at most a few hundred characters either side)."""
        i = bisect_left(self.ends, start)
        a = self.ends[i - 1] + 1 if i > 0 else 0
        j = bisect_left(self.ends, end)
        b = self.ends[j] if j < len(self.ends) else self.length
        return max(a, start - _MAX_SENTENCE), min(b, end + _MAX_SENTENCE)


def sentence_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The sentence of *text* around ``[start, end)``: between sentence punctuation or line ends
    (at most a few hundred characters either side). *text* is the page (line ends intact)."""
    return SentenceBounds(text).span(start, end)


# a contrastive conjunction: the clauses it joins are set against each other (rule 5)
_CONTRAST = re.compile(
    r"(?:[,:—]|\s[-–])\s*(?=(?:but|yet|whereas|although|though)\b)|\bbut\b"
    r"|[，：—](?=不过|但|可是|然而)|不过|但是|然而"
)
# a sentence that tells two senses of a word apart (rule 11)
_SEPARATES = re.compile(
    r"\b(?:nothing|anything) to do with\b|\bunrelated\b|\bsomething else\b|\bnot the same\b"
    r"|无关|没有(?:任何)?关系|没关系|毫无关系|两回事|不是一回事|同名",
    re.I,
)
# the sides of such a sentence: its clauses (a clause about "the latter" goes with the one before),
# the Chinese words that join the two things compared, and the separating phrase itself
_SIDES = re.compile(
    r"[,，](?!\s*(?:后者|前者|the latter|the former))|[:：、;()（）—]|\s[-–]\s|(?:和|跟|与)(?!其)"
    r"|\b(?:nothing|anything) to do with\b|\bunrelated to\b",
    re.I,
)


def separates_senses(sentence: str) -> bool:
    """Rule 11: the sentence says two senses of a word differ ("has nothing to do with", "无关")."""
    return bool(_SEPARATES.search(sentence))


# a clause boundary inside a sentence (rule 4's local support)
_CLAUSE = re.compile(r"[,，:：、—]|\s[-–]\s")


class ClauseBounds:
    """Contrast and clause boundaries inside the sentences of a page, found on demand, once per
    sentence (rules 4 and 5)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._found: dict[tuple[re.Pattern[str], tuple[int, int]], list[int]] = {}

    def _narrow(self, rx: re.Pattern[str], span: tuple[int, int], start: int, end: int) -> tuple[int, int]:
        key = (rx, span)
        ends = self._found.get(key)
        if ends is None:
            ends = self._found[key] = [m.start() for m in rx.finditer(self.text, span[0], span[1])]
        i = bisect_left(ends, start)
        a = ends[i - 1] + 1 if i > 0 else span[0]
        j = bisect_left(ends, end)
        b = ends[j] if j < len(ends) else span[1]
        return a, b

    def contrast(self, span: tuple[int, int], start: int, end: int) -> tuple[int, int]:
        """The part of the sentence *span* around ``[start, end)`` between contrastive conjunctions."""
        return self._narrow(_CONTRAST, span, start, end)

    def sides(self, span: tuple[int, int], start: int, end: int) -> tuple[int, int]:
        """The side of a sentence that separates two senses (rule 11) around ``[start, end)``."""
        return self._narrow(_SIDES, span, start, end)

    def clause(self, span: tuple[int, int], start: int, end: int) -> tuple[int, int]:
        """The clause of the sentence *span* around ``[start, end)`` (between commas, colons…)."""
        return self._narrow(_CLAUSE, span, start, end)


@dataclass
class SentenceContext:
    """The words of one sentence, tokenized once for every decision inside it."""

    tokens: frozenset[str]


def signature_score(vocab: Vocabulary, term_id: str, ctx: SentenceContext) -> float:
    """IDF-weighted overlap of the sentence's words with the term's signature."""
    return sum(vocab.idf.get(w, 0.0) for w in signature_words(vocab, term_id, ctx))


def signature_words(vocab: Vocabulary, term_id: str, ctx: SentenceContext) -> list[str]:
    """The sentence's words in the term's signature, function words left out (rule 6)."""
    sig = vocab.signatures.get(term_id, frozenset())
    return [w for w in ctx.tokens & sig if not _function_word(w)]


# jieba tags of words that carry no topic: adverbs, numerals, quantifiers, locality and time
# words, pronouns, prepositions, conjunctions, particles, interjections, onomatopoeia
_ZH_FUNCTION_TAGS = frozenset(
    [
        "d",
        "m",
        "mq",
        "q",
        "f",
        "t",
        "r",
        "p",
        "c",
        "u",
        "uj",
        "ul",
        "ud",
        "uz",
        "uv",
        "ug",
        "y",
        "e",
        "o",
        "z",
        "b",
        "ad",
    ]
)


@lru_cache(maxsize=4096)
def _function_word(word: str) -> bool:
    """A word that says nothing about the topic (rule 6)."""
    if word.isascii():
        return (
            word in _EN_MODIFIERS_OK
            or word in _EN_VERBS
            or word in _VERB_MARKERS
            or word in _EN_IRREGULAR_PAST
            or word in _EN_PREPOSITIONS
        )
    return _chinese_tags().get(word, "") in _ZH_FUNCTION_TAGS


def function_word(word: str) -> bool:
    """A Chinese word jieba's dictionary tags as a function word (an adverb, conjunction,
    particle…; rule 6's tags)."""
    return bool(word) and _chinese_tags().get(word, "") in _ZH_FUNCTION_TAGS


_EN_LATIN_WORD = re.compile(r"(?<![A-Za-z0-9_])([A-Za-z0-9]+(?:[.'’][A-Za-z0-9]+)*)([ -]?)$")
_ADJECTIVE_ENDINGS = (
    "al",
    "ive",
    "ous",
    "able",
    "ible",
    "ic",
    "ful",
    "less",
    "ant",
    "ent",
    "ary",
    "ly",
    "ed",
    "est",
    "er",
)
_EN_MODIFIERS_OK = frozenset(
    [
        "each",
        "every",
        "same",
        "single",
        "one",
        "two",
        "three",
        "four",
        "first",
        "last",
        "next",
        "new",
        "old",
        "raw",
        "high",
        "low",
        "full",
        "whole",
        "entire",
        "small",
        "large",
        "big",
        "long",
        "short",
        "current",
        "running",
        "total",
        "overall",
        "peak",
        "average",
        "mean",
        "max",
        "maximum",
        "min",
        "minimum",
        "per",
        "extra",
        "separate",
        "own",
        "other",
        "another",
        "any",
        "some",
        "many",
        "more",
        "most",
        "few",
        "fewer",
        "several",
        "real",
        "actual",
        "typical",
        "standard",
        "default",
        "main",
        "local",
        "remote",
        "global",
        "fast",
        "slow",
        "warm",
        "cold",
        "hot",
        "static",
        "dynamic",
        "greedy",
        "final",
        "initial",
        "given",
        "different",
        "similar",
        "specific",
        "individual",
        "various",
        "both",
        "only",
        "also",
        "just",
        "even",
        "such",
        "very",
        "much",
        "shared",
        "dedicated",
        "good",
        "bad",
        "key",
        "main",
        "whole",
        "plain",
        "simple",
        "bare",
        "true",
        "false",
        "open",
        "closed",
        "live",
        "idle",
        "busy",
        "hard",
        "soft",
        "top",
        "bottom",
        "front",
        "back",
        "half",
        "double",
        "triple",
        "multi",
        "non",
        "pre",
        "post",
        "sub",
        "up",
        "down",
        "out",
        "off",
        "over",
        "under",
        "via",
        "whether",
        "if",
        "because",
        "while",
        "though",
        "although",
        "since",
        "unless",
        "until",
        "after",
        "before",
        "during",
        "without",
        "within",
        "across",
        "through",
        "like",
        "nor",
        "yet",
        "so",
        "but",
        "still",
        "never",
        "always",
        "often",
        "usually",
        "rarely",
    ]
)
# prepositions: the word after a match is no noun it modifies when it is one of these
_EN_PREPOSITIONS = frozenset(
    [
        "about",
        "above",
        "across",
        "after",
        "against",
        "along",
        "among",
        "around",
        "before",
        "behind",
        "below",
        "beneath",
        "beside",
        "besides",
        "between",
        "beyond",
        "by",
        "despite",
        "down",
        "during",
        "except",
        "for",
        "from",
        "inside",
        "into",
        "like",
        "near",
        "off",
        "onto",
        "outside",
        "over",
        "past",
        "per",
        "since",
        "than",
        "through",
        "throughout",
        "till",
        "to",
        "toward",
        "towards",
        "under",
        "underneath",
        "unlike",
        "until",
        "upon",
        "versus",
        "via",
        "with",
        "within",
        "without",
    ]
)
# adjectives whose comparatives come before nouns ("wider", "cheaper", "heavier")
_EN_ADJECTIVES = frozenset(
    [
        "wide",
        "deep",
        "cheap",
        "great",
        "light",
        "heavy",
        "easy",
        "tight",
        "loose",
        "strong",
        "weak",
        "quick",
        "tiny",
        "huge",
    ]
)
# verbs that often take a bare noun ("cap concurrency", "make decoding greedy"); other verbs are
# told by their endings (-s, -ing, -ed)
_EN_VERBS = frozenset(
    [
        "make",
        "cap",
        "use",
        "run",
        "set",
        "get",
        "put",
        "take",
        "keep",
        "need",
        "let",
        "add",
        "cut",
        "hit",
        "see",
        "reduce",
        "increase",
        "improve",
        "enable",
        "disable",
        "measure",
        "track",
        "serve",
        "turn",
        "try",
        "cause",
        "avoid",
        "skip",
        "share",
        "split",
        "move",
        "load",
        "store",
        "send",
        "hold",
    ]
)
# a word after these is a verb ("to compute", "we batch the requests"), not the glossary's noun
_VERB_MARKERS = frozenset(
    [
        "to",
        "can",
        "could",
        "will",
        "would",
        "should",
        "may",
        "might",
        "must",
        "shall",
        "cannot",
        "we",
        "they",
        "you",
        "i",
        "don't",
        "doesn't",
        "didn't",
        "won't",
    ]
)
# common irregular past forms (a verb after the word: "distillation gave", "throughput fell")
_EN_IRREGULAR_PAST = frozenset(
    [
        "became",
        "began",
        "brought",
        "built",
        "came",
        "cut",
        "did",
        "drew",
        "drove",
        "fell",
        "felt",
        "found",
        "gave",
        "got",
        "grew",
        "had",
        "held",
        "hit",
        "kept",
        "knew",
        "led",
        "left",
        "lost",
        "made",
        "meant",
        "met",
        "paid",
        "put",
        "ran",
        "rose",
        "said",
        "sat",
        "saw",
        "sent",
        "set",
        "shot",
        "showed",
        "shrank",
        "sold",
        "spent",
        "stood",
        "stuck",
        "took",
        "told",
        "thought",
        "threw",
        "understood",
        "went",
        "won",
        "wrote",
    ]
)
# fixed expressions in which the word keeps its everyday sense
_IDIOMS = frozenset(
    {("for", "instance"), ("pay", "attention"), ("paid", "attention"), ("paying", "attention")}
)
_NOUN_TAGS = frozenset({"n", "nz", "ng", "nt", "ns", "nl"})
_ZH_DETERMINER_START = tuple("每一这那各整多几单某该本此其两三四五六七八九十百千万首末前后上下")


def _latin_before(folded: str, original: str, start: int, lo: int) -> tuple[str, str, int] | None:
    """The Latin word right before *start* (one space or a hyphen between), its joiner and offset."""
    m = _EN_LATIN_WORD.search(folded, max(lo, start - 60), start)
    if m is None or m.end() != start:
        return None
    return original[m.start(1) : m.end(1)], m.group(2), m.start(1)


def foreign_compound(
    vocab: Vocabulary,
    entry: NameEntry,
    folded: str,
    original: str,
    start: int,
    sentence_start: int,
    segmenter: object,
) -> bool:
    """Rule 3 (see the module): True when the word before the match makes it another thing.

    *start* and *sentence_start* index *folded*; *original* is the page with the same offsets
    (the annotator maps them when folding changed the length)."""
    sig = vocab.signatures.get(entry.term_id, frozenset())
    prev = _latin_before(folded, original, start, sentence_start)
    if prev is not None:
        word, joiner, at = prev
        low = word.lower()
        possessive = low.endswith(("'s", "’s"))
        if possessive:  # "the router's gate": the owner is a noun
            word, low = word[:-2], low[:-2]
        if (low, folded[start : start + len(entry.name)]) in _IDIOMS:
            return True
        if low in _VERB_MARKERS and entry.case != CASE_UPPER:
            return True  # "to compute", "we batch": the word is a verb here
        if any(c.isdigit() for c in word) or vocab.is_name(word) or low in sig:
            return False
        if at > 0 and folded[at - 1] == "-" and joiner == " ":
            return False  # the tail of a hyphenated modifier ("256k-entry", "dynamic-shape")
        if _written_compound(vocab, f"{low} {folded[start : start + len(entry.name)]}"):
            return False  # a compound the sources write ("system prompt")
        if word[0].isupper() and any(c.islower() for c in word):
            first = not folded[sentence_start:at].replace(MASK, " ").strip()
            if not first and original[start : start + 1].islower():
                return True  # a foreign owner: "Hugging Face token"
        if entry.case == CASE_UPPER:
            return False  # "needs TP=2": an abbreviation is no compound's head
        if joiner == "-":
            return word.isalpha()
        return _content_word(low, possessive)
    # a Chinese word right before (with or without a space)
    pos = start
    if pos > sentence_start and folded[pos - 1] == " ":
        pos -= 1
    lo = pos
    while lo > sentence_start and _is_cjk(folded[lo - 1]):
        lo -= 1
    if lo == pos:
        return False
    word = _last_word(segmenter, folded[lo:pos])
    if len(word) < 2 or word in STOPWORDS or word.startswith(_ZH_DETERMINER_START):
        return False
    if vocab.is_name(word) or word in sig or any(word[i : i + 2] in sig for i in range(len(word) - 1)):
        return False
    return word in _chinese_nouns()  # "核心温度", "视频编码器"; a verb or a conjunction before is no compound


def _written_compound(vocab: Vocabulary, compound: str) -> bool:
    """True when the sources' definitions write *compound* (lower case) as words of their own, not
    as the tail of a longer hyphenated word ("value head" in "key-value head" does not count)."""
    text = vocab.definition_lower
    pos = text.find(compound)
    while pos >= 0:
        before = text[pos - 1 : pos]
        after = text[pos + len(compound) : pos + len(compound) + 1]
        if not (before.isalnum() or before == "-") and not (after.isalnum() and after != "s"):
            return True
        pos = text.find(compound, pos + 1)
    return False


_EN_NEXT_WORD = re.compile(r" ([A-Za-z]+)(?![A-Za-z0-9_'’.-]*[A-Za-z0-9_])")


def modifier_of_next(
    vocab: Vocabulary,
    entry: NameEntry,
    folded: str,
    original: str,
    end: int,
    plural: bool,
    segmenter: object = None,
) -> bool:
    """Rule 4 (see the module): True when the everyday word only modifies the noun after it, a
    noun that has nothing to do with the term ("token bucket", "kernel upgrade", "IR camera").

    *end* indexes *folded* (the match's end, any plural ending included); *original* has the same
    offsets. A plural ("tokens generated") is a head, not a modifier. The next word keeps the
    match when it is a glossary name, one of the term's signature words, a function word, a verb
    or adverb by its ending, or a word of the short lists of modifiers, verbs and prepositions.
    With *segmenter*, a Chinese word after the match counts too: a jieba noun that no definition
    holds ("batch 实习生", "SLA 树脂")."""
    if plural:
        return False
    m = _EN_NEXT_WORD.match(folded, end)
    if m is None:
        return segmenter is not None and _chinese_noun_after(vocab, entry, folded, end, segmenter)
    word = original[m.start(1) : m.end(1)]
    low = word.lower()
    if word != low and entry.case != CASE_UPPER:
        return False  # "the token Alice sent": a capitalised word starts something else
    if (
        len(low) < 3
        or low in STOPWORDS
        or low in _EN_MODIFIERS_OK
        or low in _EN_VERBS
        or low in _VERB_MARKERS
        or low in _EN_PREPOSITIONS
    ):
        return False
    singular_s = entry.case == CASE_UPPER and low.endswith(("ss", "us", "is"))  # "MAC address"
    if low.endswith(("ing", "ed", "ly")) or (low.endswith("s") and not singular_s):
        return False  # a verb or an adverb ("the kernel finished", "decode runs"), or a plural head
    if low in _EN_IRREGULAR_PAST or low in vocab.domain_words:
        return False  # "throughput fell"; "decode step", "engine file": the domain's own compounds
    sig = vocab.signatures.get(entry.term_id, frozenset())
    return not (low in sig or vocab.is_name(low))


def _chinese_noun_after(
    vocab: Vocabulary, entry: NameEntry, folded: str, end: int, segmenter: object
) -> bool:
    """Rule 4 in mixed text: the jieba word right after a latin match (one space allowed) is a
    noun of jieba's dictionary that no definition, name or signature of the term holds."""
    pos = end + 1 if folded[end : end + 1] == " " else end
    hi = pos
    while hi < len(folded) and hi < pos + 12 and _is_cjk(folded[hi]):
        hi += 1
    if hi == pos:
        return False
    ws = words(segmenter, folded[pos:hi])
    word = ws[0] if ws else ""
    if len(word) < 2 or word in STOPWORDS or vocab.is_name(word):
        return False
    if word in vocab.signatures.get(entry.term_id, frozenset()) or word in vocab.definition_text:
        return False
    return word in _chinese_nouns()


_META_BEFORE = re.compile(r"(?:the|this|that)\s+(?:word|term|name)s?\s+[\"'“‘]?$")
_META_AFTER = re.compile(r"[\"'”’]?\s*(?:这个词|这个字|一词|二字|这个名字|这个说法|这个称呼|这个叫法)")


def word_as_word(folded: str, start: int, end: int) -> bool:
    """Rule 7: the match is talked about as a word ("the word token", "engine 这个词")."""
    return bool(_META_BEFORE.search(folded, max(0, start - 30), start) or _META_AFTER.match(folded, end))


def _is_cjk(ch: str) -> bool:
    return (
        "\u4e00" <= ch <= "\u9fff"
        or "\u3400" <= ch <= "\u4dbf"
        or "\uf900" <= ch <= "\ufaff"
        or "\U00020000" <= ch <= "\U0002fa1f"
    )


def _content_word(low: str, noun: bool = False) -> bool:
    """A Latin word that can modify a noun as a noun ("die", "message", "prediction"; *noun*: known
    to be one, as the owner of a possessive)."""
    if noun:
        return len(low) >= 2 and low not in STOPWORDS
    if low in STOPWORDS or low in _EN_MODIFIERS_OK or low in _EN_VERBS or len(low) < 3:
        return False
    if low.endswith(("ing", "ed")) or (low.endswith("s") and not low.endswith(("ss", "us", "is"))):
        return False  # a verb ("splits", "setting") or a plural
    if low.endswith("er"):
        return not _comparative(low)  # "user agent", "server node" are compounds; "larger batch" is not
    return not low.endswith(_ADJECTIVE_ENDINGS)


_EN_COMPARATIVES = frozenset(
    ["better", "worse", "later", "former", "latter", "other", "ever", "never", "either", "neither", "rather"]
)


def _comparative(low: str) -> bool:
    """An ``-er`` word that is a comparative ("higher", "larger", "bigger", "easier"), not an agent
    noun ("user", "server", "router")."""
    if low in _EN_COMPARATIVES:
        return True
    stems = (low[:-2], low[:-1], low[:-3], low[:-3] + "y")
    return any(st in _EN_MODIFIERS_OK or st in _EN_ADJECTIVES for st in stems)


@lru_cache(maxsize=1)
def _chinese_tags() -> dict[str, str]:
    """The part-of-speech tag of every word of jieba's general dictionary (its ``dict.txt``)."""
    import jieba

    path = Path(jieba.__file__).parent / "dict.txt"
    out: dict[str, str] = {}
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            parts = line.split()
            if len(parts) == 3:
                out[parts[0]] = parts[2]
    return out


@lru_cache(maxsize=1)
def _chinese_nouns() -> frozenset[str]:
    """The nouns of jieba's general dictionary."""
    return frozenset(w for w, tag in _chinese_tags().items() if tag in _NOUN_TAGS)


def _last_word(segmenter: object, run: str) -> str:
    ws = words(segmenter, run[-12:])
    return ws[-1] if ws else ""


def supported(vocab: Vocabulary, entry: NameEntry, ctx: SentenceContext, min_words: int = 1) -> bool:
    """Rule 2 for an everyday word that no other term supports (rule 1 is counted by the caller):
    a signature score of at least :data:`SIGNATURE_THRESHOLD` from at least *min_words* words."""
    found = signature_words(vocab, entry.term_id, ctx)
    if len(found) < min_words:
        return False
    return sum(vocab.idf.get(w, 0.0) for w in found) >= SIGNATURE_THRESHOLD


def choose_term(vocab: Vocabulary, entry: NameEntry, ctx: SentenceContext) -> tuple[str, bool]:
    """The term meant by a name with rivals, and whether it stays ambiguous."""
    own = signature_score(vocab, entry.term_id, ctx)
    best_id, best = entry.term_id, own
    for rival in entry.rivals:
        s = signature_score(vocab, rival, ctx)
        if s > best:
            best_id, best = rival, s
    if best_id != entry.term_id and best >= own + RIVAL_MARGIN:
        if best_id in entry.spelled_rivals:
            return entry.term_id, True  # the spelling names this term; the context points elsewhere
        return best_id, False
    others = [signature_score(vocab, r, ctx) for r in entry.rivals]
    return entry.term_id, bool(others) and max(others) + RIVAL_MARGIN > own


_EXP_WORD = re.compile(r"[A-Za-z]+")
_EXP_CONNECTORS = frozenset({"of", "and", "the", "for", "in", "on", "to", "a"})
_EXP_CUE = re.compile(
    r"(?:\bmeans?|\bmeant|\bstands?\s+for|\bshort\s+for|\brefers?\s+to|\bi\.e\.,?|[(=（]|即|指)\s*$",
    re.I,
)


def abbreviation_letters(name: str) -> str:
    """The letters an abbreviation spells ("ASR", "MoE"), or "" for a name that is none (rule 10):
    Latin letters only, two to six of them, at least two capitals."""
    if not name.isascii() or not name.isalpha() or not 2 <= len(name) <= 6:
        return ""
    return name if sum(c.isupper() for c in name) >= 2 else ""


def _loose(text: str) -> str:
    return " ".join(_EXP_WORD.findall(text.lower()))


def other_expansion(letters: str, own_names: Iterable[str], sentence: str) -> bool:
    """Rule 10: *sentence* spells out *letters* as something that is none of *own_names*."""
    found = list(_EXP_WORD.finditer(sentence))
    own = {_loose(n) for n in own_names}
    want = letters.lower()
    other = False
    for i, first in enumerate(found):
        if first.group()[0].lower() != want[0] or first.group() == letters:
            continue
        k, j, last = 0, i, i
        while j < len(found) and k < len(want):
            w = found[j].group()
            if j > i and sentence[found[j - 1].end() : found[j].start()] not in (" ", "-"):
                break
            if w[0].lower() == want[k] and (w.lower() not in _EXP_CONNECTORS or letters[k].islower()):
                k, last = k + 1, j
            elif not (k and w.lower() in _EXP_CONNECTORS):
                break
            j += 1
        if k < len(want):
            continue
        words_ = [m.group() for m in found[i : last + 1]]
        phrase = " ".join(w.lower() for w in words_)
        if phrase in own:
            return False  # the term's own expansion is written here
        capitals = all(w[0].isupper() for w in words_ if w.lower() not in _EXP_CONNECTORS)
        if capitals or _EXP_CUE.search(sentence, max(0, first.start() - 20), first.start()):
            other = True
    return other


#: Words right before a name that mark it as the sense the page means, set against an earlier
#: use of the same name in the paragraph ("我们说的 MIG 是…", "本文的混合模型则指…", "另一个 EP",
#: "the other Triton", "in this doc Hopper means …", "we mean X").
_OWN_SENSE_BEFORE = re.compile(
    r"(?:(?:我们|咱们|这里|此处|本文|本篇|文中|下文|我们这里|我们这边|这边)(?:所|要)?"
    r"(?:说|讲|谈|指|关心|讨论|用到|提到|聊)的|另一个|另一种|另外一个)\s*$"
    r"|\b(?:the other|another|we mean|in (?:this|our) (?:doc|document|article|post|page|guide|note|context|codebase|team)s?,?"
    r"(?: by)?|(?:for us|here),)\s+$",
    re.IGNORECASE,
)
#: …or right after it ("UVA 在我们这里指…", "Hopper here means …", "X, in our context, is …").
_OWN_SENSE_AFTER = re.compile(
    r"^\s*(?:在(?:我们|本文|这里|这边|此处)(?:这里|这边|里|中)?(?:指|是|说的是)|"
    r"(?:here|in this (?:doc|document|article|post|page|guide|note|context)),? (?:means|refers to|is)\b)",
    re.IGNORECASE,
)


def marks_own_sense(original: str, start: int, end: int) -> bool:
    """The name at ``original[start:end]`` is introduced as the page's own sense of it, set
    against another use of the same name (rule 12 of the module docstring)."""
    return bool(
        _OWN_SENSE_BEFORE.search(original[max(0, start - 24) : start])
        or _OWN_SENSE_AFTER.match(original[end : end + 30])
    )
