"""Term linking for the chatbot: names first (longest match, exact), search second.

The order is deliberate. A name the glossary knows — any label, abbreviation or alias,
in either language — is found by :meth:`LabelMatcher.find_mentions` (longest match,
non-overlapping) or by an exact match of the whole slot. Only when no name is there
does :meth:`SearchEngine.search` pick a term, and its hit counts only when

- its fused score reaches :data:`MIN_SEARCH_SCORE`,
- the question is in-domain (it names some term, or continues a conversation about one),
- and the hit's own names do not contradict the words asked about ("data parallelism"
  is not *Model parallelism*; a Chinese-only term cannot contradict English words).

Name-shaped words the glossary has never seen ("ZeRO-Infinity", "FlashDecode-Turbo",
"Ring-AllGather-X") make a slot unknown even when part of them is a known name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache

from kg.chat.genus import CLASS_WORDS, called_a, genus_names
from kg.chat.intents import Parsed, Pronoun, Slot, is_demonstrative
from kg.model import Edge, Term
from kg.search.engine import Hit, SearchEngine, SearchResult
from kg.search.labels import Span
from kg.store import Glossary
from kg.textnorm import fold, has_cjk, is_cjk_char

__all__ = ["MIN_SEARCH_SCORE", "Analysis", "Link", "Linker", "joint_line", "linker_for"]

#: Lowest fused search score (weighted RRF + bonuses, see :mod:`kg.search.engine`) at which a
#: search-only hit may ground an answer: the dense stage's own top hit (3 / (5 + 1) = 0.5).
#: Calibrated on tests/data/retrieval_dev.jsonl (in-domain; queries with an exact name left
#: out): top-1 precision is 0.65 for scores in [0.50, 0.55) — 0.94 once the names check
#: below is applied —, 0.91 in [0.55, 0.60) and 1.0 from 0.60; no in-domain top hit scores
#: below 0.5. Off-topic questions also reach 0.5 through the dense stage alone, so the score
#: cannot refuse them by itself: the in-domain and names checks do (docs/CHAT.md).
MIN_SEARCH_SCORE = 0.5
#: A term found by searching the rest of a follow-up ("the matrix-multiply unit inside it")
#: must be a graph neighbour of the term under discussion and rank at most this high.
MAX_CONTEXT_RANK = 12

#: What joins a possessor's name to a possessed one: "TPU 的 TensorCore", "TPU's SparseCore".
_OF = re.compile(r"\s*(?:的|'s|’s)\s*")
# "<modifier> vs / and / or <named term>", "<修饰>和 / 与 / 还是<名称>" touching the term (gapping)
_GAP_BEFORE = re.compile(
    # the joiners of two sides, the verbs of comparing included ("How does symmetric differ
    # from asymmetric quantization?" names symmetric quantization as "symmetric vs …" does)
    r"(?:^|[\s(（])(?P<en>[a-z][a-z\-]{2,20})\s+(?:vs\.?|versus|and|or|/|over|rather than|instead of|"
    r"(?:differs?|differing|different|compared?|contrasted?|compares|contrasts) (?:from|to|with|against))\s+$"
    r"|(?P<zh>[\u4e00-\u9fff]{1,6})\s*(?:和|与|跟|或|还是|/|、|相比于|相对于|对比|比起|而非|而不是)\s*$"
)
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+_'’-]*[A-Za-z0-9+]|[A-Za-z0-9]")
_LATIN_WORD = re.compile(r"[a-z0-9][a-z0-9+'’-]*")
_EN_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "in",
        "on",
        "for",
        "to",
        "with",
        "and",
        "or",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "what",
        "which",
        "how",
        "why",
        "who",
        "whom",
        "whose",
        "does",
        "do",
        "did",
        "it",
        "its",
        "itself",
        "this",
        "that",
        "these",
        "those",
        "they",
        "them",
        "their",
        "my",
        "our",
        "your",
        "i",
        "we",
        "you",
        "me",
        "us",
        "he",
        "she",
        "his",
        "her",
        "there",
        "here",
        "about",
        "from",
        "by",
        "at",
        "as",
        "into",
        "inside",
        "within",
        "under",
        "over",
        "between",
        "than",
        "then",
        "so",
        "such",
        "some",
        "any",
        "all",
        "each",
        "every",
        "plain",
        "usually",
        "mostly",
        "often",
        "typically",
        "basically",
        "really",
        "just",
        "also",
        "very",
        "more",
        "most",
        "less",
        "much",
        "many",
        "called",
        "named",
        "known",
        "mean",
        "means",
        "use",
        "used",
        "using",
        "help",
        "helps",
        "make",
        "makes",
        "can",
        "could",
        "should",
        "would",
        "will",
        "may",
        "might",
        "kind",
        "kinds",
        "type",
        "types",
        "sort",
        "way",
        "ways",
        "thing",
        "things",
        "stuff",
        "one",
        "ones",
        "called",
        "difference",
        "different",
        "compare",
        "vs",
        "versus",
    ]
)
_ZH_STOP = frozenset(
    "的了是和与跟同也在有就都而及或之其它这那个么吗呢啊呀吧什啥哪怎为如何种些上里中面被把对给让"
)
_PREPOSITION = re.compile(
    r"\s+(?:in|inside|on|of|for|within|from|at|with|that|which|used|during|when|under|behind|"
    # "microscaling formats like MXFP4": what follows gives examples of the noun phrase's head
    r"like|such as|including)\s+"
)


# A quantity: a number with a unit ("30ms", "192GB", "4-bit", "3.35TB/s", "70B", "8x"), not a name
_QUANTITY = re.compile(
    r"\d+(?:\.\d+)?-?(?:[munµ]?s|[kmgtp]i?b(?:/s|ps)?|[kmgtp]?b|bits?|bytes?|[kmgtp]?(?:flops|ops|hz|w)|"
    r"tok(?:en)?s?(?:/s)?|k|m|x|t|tps|qps|rps)",
    re.IGNORECASE,
)


def _is_name_like(token: str) -> bool:
    """CamelCase, ALLCAPS or letters mixed with digits in some part ("ZeRO", "FlashDecode", "v9");
    never a quantity ("30ms", "80GB", "4-bit")."""
    if _QUANTITY.fullmatch(token):
        return False
    if re.search(r"[-_./]", token) and re.search(r"\d", token) and re.search(r"[A-Za-z]", token):
        return True  # "Mamba-3", "GPT-5", "FlashAttention-9"
    for part in re.split(r"[-_./]", token):
        if not part:
            continue
        if re.search(r"[A-Z]", part[1:]):
            return True
        if re.search(r"\d", part) and re.search(r"[A-Za-z]", part):
            return True
    return False


_SENTENCE_START = re.compile(r"(?:^|[.!?:;,，。！？：；]\s*)\W*$")


def _is_capitalised(token: str) -> bool:
    """ "Marlin", "Lattice": an initial capital and lower case after it."""
    return len(token) >= 3 and token[0].isupper() and token[1:].isalpha() and token[1:].islower()


def _modified_name(token: str, pos: int, spans: list[Span]) -> bool:
    """A known name with plain lower-case words hyphenated to it ("TPU-native", "vLLM-based"):
    a mention of that name, not a new one ("FlashAttention-9", "Mamba-3" and "Mirror-MoE" stay
    unknown). *pos* is where the folded *token* starts in the folded question."""
    if "-" not in token:
        return False
    named = False
    offset = pos
    for part in token.split("-"):
        length = len(fold(part))
        if any(s.start <= offset and offset + length <= s.end for s in spans):
            named = True
        elif not (part.isascii() and part.isalpha() and part.islower()):
            return False
        offset += length + 1
    return named


@dataclass
class Link:
    """A term found for a slot, and how."""

    term_id: str
    method: str  # exact | mention | search | context
    score: float = 1.0
    start: int = -1
    end: int = -1
    name: str | None = None

    @classmethod
    def mention(cls, span: Span) -> Link:
        """The link of a name the question gives (a span of the linker's analysis)."""
        return cls(span.term_id, "mention", 1.0, span.start, span.end, span.name)


@dataclass
class Analysis:
    """Everything linking found in one question."""

    spans: list[Span] = field(default_factory=list)  # real mentions (not inside unknown names)
    unknown: list[str] = field(default_factory=list)  # name-shaped words the glossary lacks
    unknown_ranges: list[tuple[int, int]] = field(default_factory=list)  # folded offsets
    pronouns: list[Pronoun] = field(default_factory=list)  # anaphoric ones only
    # capitalised words inside a sentence that no glossary text uses ("the Marlin kernel"): names,
    # though not shaped like one. Only the made-up-subject rule of kg/chat/decide.py reads them;
    # they are not in ``unknown``, since a question may well mention a product the glossary does
    # not list ("serve Mistral with vLLM")
    capitalised: list[tuple[str, tuple[int, int]]] = field(default_factory=list)


class Linker:
    """Links question slots to terms over one glossary and its search engine.

    Make one per question: it caches that question's searches (not thread-safe, not shared).
    """

    def __init__(
        self, glossary: Glossary, engine: SearchEngine, vocabulary: frozenset[str] | None = None
    ) -> None:
        self.glossary = glossary
        self.engine = engine
        self.vocabulary = vocabulary if vocabulary is not None else latin_vocabulary(glossary)
        self._cache: dict[tuple[str, int], SearchResult] = {}

    # --- search, cached per question -----------------------------------------------------
    def search(self, text: str, limit: int = 50) -> SearchResult:
        key = (text, limit)
        result = self._cache.get(key)
        if result is None:
            result = self._cache[key] = self.engine.search(text, "hybrid", limit=limit, profile="chat")
        return result

    # --- analysis -------------------------------------------------------------------------
    def analyse(self, parsed: Parsed) -> Analysis:
        folded = parsed.folded
        spans = self._gapped_names(
            folded, self._possessed_names(folded, self.engine.matcher.find_mentions(folded))
        )
        unknown: list[str] = []
        ranges: list[tuple[int, int]] = []
        capitalised: list[tuple[str, tuple[int, int]]] = []
        cursor = 0
        for m in _TOKEN.finditer(parsed.question):
            tok = m.group(0).strip("'’.-")
            if not tok:
                continue
            key = fold(tok)
            pos = folded.find(key, cursor)
            if pos < 0:
                continue
            cursor = pos + len(key)
            covered = any(s.start <= pos and pos + len(key) <= s.end for s in spans)
            if covered or key in self.vocabulary:
                continue
            if parsed.body is not None and pos + len(key) <= parsed.body.start:
                continue  # "OK, how does it …": a word of the lead-in is no name the question uses
            if not _is_name_like(tok):
                if _is_capitalised(tok) and not _SENTENCE_START.search(parsed.question[: m.start()]):
                    capitalised.append((tok, (pos, pos + len(key))))
                continue
            if _modified_name(tok, pos, spans):
                continue
            unknown.append(tok)
            ranges.append((pos, pos + len(key)))
        spans = [s for s in spans if not any(a <= s.start and s.end <= b for a, b in ranges)]
        pronouns = [
            p
            for p in parsed.pronouns
            if not _appositive(p, spans, folded) and not _determiner(p, spans, folded)
        ]
        pronouns = [p for p in pronouns if not any(s.start <= p.start < s.end for s in spans)]
        return Analysis(spans, unknown, ranges, pronouns, capitalised)

    def _possessed_names(self, folded: str, spans: list[Span]) -> list[Span]:
        """Two names joined by 的 / 's that together are the name of a third term the second also
        names: "TPU 的 TensorCore" is *TensorCore (TPU)* (named "TPU TensorCore" and "TensorCore"),
        not Tensor Core."""
        out: list[Span] = []
        i = 0
        while i < len(spans):
            a = spans[i]
            b = spans[i + 1] if i + 1 < len(spans) else None
            if b is not None and _OF.fullmatch(folded[a.end : b.start]):
                # the possessed name must be a name of that term too ("TensorCore"), so that "TensorRT
                # 的 LLM 专用分支" stays two names, not TensorRT-LLM
                owners = {m.term_id for m in self.engine.matcher.exact(b.text)}
                found = [
                    m
                    for m in self.engine.matcher.exact(f"{a.text} {b.text}")
                    # (the second span may already name it: "TensorCore" is written as the
                    # TPU block's own name, kg/search/labels.py)
                    if m.term_id != a.term_id and m.term_id in owners
                ]
                if len(found) == 1:
                    m = found[0]
                    out.append(
                        Span(m.term_id, m.name, m.kind, a.start, b.end, folded[a.start : b.end], (m.term_id,))
                    )
                    i += 2
                    continue
            out.append(a)
            i += 1
        return out

    def _gapped_names(self, folded: str, spans: list[Span]) -> list[Span]:
        """A modifier coordinated with a named term shares that term's head: "symmetric vs
        asymmetric quantization" names *symmetric quantization* too, "static and continuous
        batching" *static batching*, "对称和非对称量化" 对称量化. The modifier alone becomes a span
        of the term that modifier + head names, when exactly one term has that name."""
        out = list(spans)
        for s in spans:
            m = _GAP_BEFORE.search(folded[: s.start])
            if not m:
                continue
            if m.group("en"):  # English: the head is the span without its first word
                if " " not in s.text:
                    continue
                options = [(m.group("en"), m.start("en"), f"{m.group('en')} {s.text.split(' ', 1)[1]}")]
            else:  # Chinese: the modifier is a tail of the run before 和, the head a tail of the span
                run, end = m.group("zh"), m.end("zh")
                options = [
                    (run[-k:], end - k, run[-k:] + s.text[i:])
                    for k in range(min(4, len(run)), 0, -1)
                    for i in range(1, len(s.text))
                ]
            for modifier, start, form in options:
                if any(o.start <= start < o.end for o in spans):
                    break  # the modifier is a name of its own ("TTFT 和 TPOT")
                hits = {x.term_id for x in self.engine.matcher.exact(form)} - {s.term_id}
                if len(hits) == 1:
                    tid = next(iter(hits))
                    out.append(Span(tid, form, "gapped", start, start + len(modifier), modifier, (tid,)))
                    break
        return sorted(out, key=lambda x: x.start)

    # --- slots ---------------------------------------------------------------------------------
    def spans_in(self, analysis: Analysis, slot: Slot) -> list[Span]:
        return [s for s in analysis.spans if s.start >= slot.start and s.end <= slot.end]

    def unknown_in(self, analysis: Analysis, slot: Slot) -> list[str]:
        return [
            tok
            for tok, (a, b) in zip(analysis.unknown, analysis.unknown_ranges, strict=True)
            if a >= slot.start and b <= slot.end
        ]

    def link_slot(
        self, slot: Slot, analysis: Analysis, *, in_domain: bool, prefer: str = "head", alt: str | None = None
    ) -> tuple[Link | None, list[str]]:
        """The term *slot* names, or None plus the nearest term ids as suggestions."""
        if self.unknown_in(analysis, slot):
            return None, self.nearest(slot.text)
        exact = self.engine.matcher.exact(slot.text)
        if exact:
            return Link(exact[0].term_id, "exact", 1.0, slot.start, slot.end, exact[0].name), []
        spans = self._appositives(slot, self.spans_in(analysis, slot))
        tail = self._tail_named(slot, spans[-1]) if spans else None
        if tail is not None:
            return tail, []
        head = _head(slot, spans, prefer) if spans else None
        if head is not None:
            return Link.mention(self._named_kind(slot, spans, head)), []
        derived = self.derived_name(slot, spans) if in_domain else None
        if derived is not None:
            return derived, []
        hit = self.search_link(slot.text, in_domain=in_domain, alt=alt)
        if hit is not None:
            return hit, []
        if spans and not has_cjk(slot.text):
            fb = fallback_head(slot, spans)
            if fb is not None:
                return Link.mention(fb), []
        return None, self.nearest(slot.text)

    def _tail_named(self, slot: Slot, head: Span) -> Link | None:
        """ "the KV cache hit rate": words after the head name that, with the name's last word,
        end exactly one other term's English name ("prefix cache hit rate") ask for that term —
        the name before them only narrows it. English only; the words must run to the slot's end."""
        text = fold(slot.text)
        name = fold(head.name or "")
        rest = text[head.end - slot.start :].strip(" -?？.!")
        if not name or not rest or not re.fullmatch(r"[a-z][a-z0-9 \-]*", rest) or not name.isascii():
            return None
        tail = f"{name.split()[-1]} {rest}"
        rx = re.compile(rf"(?:^|\s){re.escape(tail)}$")
        found = {
            t.id
            for t in self.glossary.terms.values()
            if t.id != head.term_id and any(rx.search(fold(n)) for n in t.all_names())
        }
        if len(found) != 1:
            return None
        tid = found.pop()
        return Link(tid, "mention", 1.0, head.start, slot.end, tail)

    def _appositives(self, slot: Slot, spans: list[Span]) -> list[Span]:
        """ "the vLLM inference engine good at", "the EAGLE draft model's input": a name followed
        straight by the name of what it is, by its own definition (vLLM：…LLM 推理引擎, EAGLE：…小型
        draft model), is one name: the first, reaching over the second."""
        if len(spans) < 2:
            return spans
        text = fold(slot.text)
        out: list[Span] = []
        for s in spans:
            prev = out[-1] if out else None
            if (
                prev is not None
                and prev.term_id != s.term_id
                and not text[prev.end - slot.start : s.start - slot.start].strip(" -")
                and s.term_id in genus_names(self.glossary, prev.term_id)
            ):
                out[-1] = replace(
                    prev, end=s.end, text=prev.text + text[prev.end - slot.start : s.end - slot.start]
                )
                continue
            out.append(s)
        return out

    def _named_kind(self, slot: Slot, spans: list[Span], head: Span) -> Span:
        """ "the vLLM engine", "the FlashAttention kernel": a class noun that is a term of its own
        (Engine, Kernel) after a name of that class stands for the name; "the CUDA kernel" stays
        Kernel (CUDA is no kernel)."""
        word = fold(head.name or "")
        text = fold(slot.text)
        before = [
            s
            for s in spans
            if s.end <= head.start and not text[s.end - slot.start : head.start - slot.start].strip(" -")
        ]
        if not before:
            return head
        if word in CLASS_WORDS and called_a(self.glossary, before[-1].term_id, word):
            return before[-1]
        if head.term_id in genus_names(self.glossary, before[-1].term_id):
            # "the vLLM inference engine", "the EAGLE draft model": the head is what the name is, by
            # the name's own definition (vLLM：…LLM 推理引擎); the name is the subject
            return before[-1]
        return head

    def derived_name(self, slot: Slot, spans: list[Span]) -> Link | None:
        """The term a participle before a name stands for: "disaggregated inference" is
        Disaggregation, "pruned model" Pruning, "quantized inference" Quantization — a modifier
        no name covers whose noun ("-ation", "-ion", "-ing" for "-ed") is one whole name of one
        term. Without it the name the modifier narrows wins ("inference"), or a look-alike
        ("aggregated serving" for "disaggregated serving")."""
        text = fold(slot.text)
        covered = [(s.start - slot.start, s.end - slot.start) for s in spans]
        found: set[str] = set()
        for m in re.finditer(r"\b[a-z][a-z-]{3,}ed\b", text):
            if any(a <= m.start() < b for a, b in covered):
                continue
            w = m.group()
            stem = w[:-2] if not w.endswith("eed") else w
            forms = {w[:-1] + "ion", stem + "ion", stem + "ation", stem + "ing", w[:-1] + "ing"}
            if stem.endswith(stem[-1] * 2):  # "batched" → batching, "planned" → planning
                forms.add(stem[:-1] + "ing")
            for form in forms:
                ids = {x.term_id for x in self.engine.matcher.exact(form)}
                found |= ids if len(ids) == 1 else set()
        if len(found) != 1:
            return None
        return Link(found.pop(), "search", 1.0)

    def search_link(self, text: str, *, in_domain: bool, alt: str | None = None) -> Link | None:
        """A top search hit for *text* (then for *alt*, the whole question) that passes the checks."""
        if not in_domain:
            return None
        for query in dict.fromkeys(q for q in (text, alt) if q):
            for hit in self.search(query).hits[:2]:
                if hit.rrf < MIN_SEARCH_SCORE:
                    break
                if consistent(text, self.glossary.terms[hit.term_id]):
                    return Link(hit.term_id, "search", hit.score)
        return None

    def joint_statement(self, term_id: str, text: str) -> tuple[list[str], Edge] | None:
        """The members of the jointly stated line of *term_id*, in the line's order, and that line
        (its ``paired-definition`` edge), when *text* asks about what the line says of its members
        together after each has its own clause: "输入长度是…，输出长度是…；8K/1K 表示长提示词配较短
        回答" — "8K/1K" is the pair's. Only figures count (a word with a digit): words are the
        members' own."""
        line = joint_line(self.glossary, term_id)
        if line is None:
            return None
        members, edge, at = line
        if min(at.values()) < 0:
            return None  # a member the line names by no name of its node: no order to read
        last_name = max(at.values())
        line_text = fold(edge.evidence)
        words = [w for w in re.findall(r"[a-z0-9][a-z0-9/.:+-]*[a-z0-9]", fold(text)) if re.search(r"\d", w)]
        if not any(line_text.find(w, last_name) > last_name for w in words):
            return None
        return members, edge

    def joint_lead(self, term_id: str, text: str) -> str:
        """The first member of :meth:`joint_statement`'s line (the search ranks the pair's members
        by their other words, not by the line's order); else *term_id*."""
        found = self.joint_statement(term_id, text)
        return found[0][0] if found else term_id

    def nearest(self, text: str, limit: int = 5) -> list[str]:
        """Nearest term ids for an unanswerable slot (search hits, else fuzzy names)."""
        out = [h.term_id for h in self.search(text).hits[:limit]]
        if not out:
            out = self.glossary.suggest_ids(text, limit)
        return out

    # --- context -------------------------------------------------------------------------------
    def neighbour_hits(self, text: str, anchor: str, exclude: Iterable[str] = ()) -> list[tuple[Hit, int]]:
        """Hits of *text* that are graph neighbours of *anchor*, with their overall rank."""
        near = set(self.glossary.neighbours(anchor)) - {anchor, *exclude}
        out = []
        for rank, hit in enumerate(self.search(text).hits, start=1):
            if hit.term_id in near:
                out.append((hit, rank))
        return out

    def context_link(self, text: str, anchor: str) -> Link | None:
        """A neighbour of *anchor* that *text* describes ("那条脊线", "the matrix-multiply unit")."""
        hits = self.neighbour_hits(text, anchor)
        if hits and hits[0][1] <= MAX_CONTEXT_RANK:
            hit, _ = hits[0]
            return Link(hit.term_id, "context", hit.score)
        return None


def _appositive(p: Pronoun, spans: list[Span], folded: str) -> bool:
    """ "RTF 这个指标": a demonstrative right after a name points at that name, not back in time."""
    if not is_demonstrative(p):
        return False
    return any(s.end <= p.start and not folded[s.end : p.start].strip() for s in spans)


def _determiner(p: Pronoun, spans: list[Span], folded: str) -> bool:
    """ "这个 Triton 跟 …", "this FlashAttention kernel": a demonstrative right before a name
    determines that name; it does not point back in the conversation."""
    if not is_demonstrative(p):
        return False
    return any(s.start >= p.end and not folded[p.end : s.start].strip() for s in spans)


def _head(slot: Slot, spans: list[Span], prefer: str) -> Span | None:
    """The span a slot is about.

    Chinese "A 的 B" / "A 上的 B" / "A 里 B": B. English noun phrase: the longest name before the first
    preposition ("OpenAI Triton kernel language" → OpenAI Triton); when that part holds no
    name but content words ("recurrent state in linear attention layers"), None — the slot
    names something else, which search may find. *prefer* ``first`` takes the first span
    (subjects of why/how questions: "为什么 INT4 量化能让推理变快").
    """
    text = slot.text
    if has_cjk(text) and prefer != "first":
        last_de = -1
        for m in re.finditer(r"的", text):
            if any(s.start >= slot.start + m.end() for s in spans):
                last_de = slot.start + m.end()
        for m in re.finditer(r"(?:里面|里|当中|之中|中)", text):
            # "扩散模型推理里 VAE": a name with a locative after it places the name that follows
            at = slot.start + m.start()
            after = [s for s in spans if s.start >= slot.start + m.end()]
            # (not several: "Little's Law 里并发、吞吐、延迟是啥关系" asks about the law's parts)
            if any(s.end == at for s in spans) and len(after) == 1:
                last_de = max(last_de, slot.start + m.end())
        head = next(s for s in spans if s.start >= last_de) if last_de >= 0 else spans[0]
        return None if _compound_tail(slot, head) else head
    if prefer == "first":
        return spans[0]
    prep = _PREPOSITION.search(text)
    np_end = slot.start + prep.start() if prep else slot.end
    in_np = [s for s in spans if s.end <= np_end]
    np_words = _content_words(text[: np_end - slot.start])
    if in_np:
        last = max(in_np, key=lambda s: s.end)
        tail = _content_words(fold(text)[last.end - slot.start : np_end - slot.start])
        if tail:
            return None  # "GPU utilization", "OpenAI Triton kernel language": the head word is not a name
        if _generic_head(last) and _bare_modifiers(text, slot, in_np, last):
            # "grouped-query attention", "sliding window attention", "sequence-on-lane KV layout":
            # words the glossary does not name narrow a one-word name into another concept
            return None
        return last  # the noun phrase ends on a name: "plain TensorRT", "NVIDIA Triton Inference Server"
    return None if np_words else spans[0]


def _generic_head(span: Span) -> bool:
    """A one-word Latin name ("attention", "layout", "inference") that compounds often narrow."""
    name = fold(span.name or "")
    return bool(re.fullmatch(r"[a-z]+", name)) and not name.isupper() and len(name) >= 4


def _bare_modifiers(text: str, slot: Slot, in_np: list[Span], head: Span) -> bool:
    """Content words before *head* in the noun phrase that no name covers."""
    before = fold(text)[: head.start - slot.start]
    for s in in_np:
        if s is not head and s.end <= head.start:
            a, b = s.start - slot.start, s.end - slot.start
            before = before[:a] + " " * (b - a) + before[b:]
    return bool(_content_words(before))


def fallback_head(slot: Slot, spans: list[Span]) -> Span | None:
    """When search cannot place a slot, the longest name in its noun phrase (or its first name)."""
    m = _PREPOSITION.search(slot.text)
    np_end = slot.start + m.start() if m else slot.end
    in_np = [s for s in spans if s.end <= np_end]
    if in_np:
        return max(in_np, key=lambda s: (s.end - s.start, s.start))
    return None


_GENERIC_TAIL = re.compile(
    r"^(阶段|指标|技术|机制|方法|方式|概念|术语|模式|过程|操作|算法|方案|框架|引擎|格式|本身|层|模块|功能|场景|问题)"
)


_MODAL = re.compile(r"^(?:能|会|可以|可否|需要|要不要|应该|该不该|得|是否|能否|还能|也能)")


def _compound_tail(slot: Slot, head: Span) -> bool:
    """ "流水线气泡": Chinese characters glued after a name make another, unknown, name."""
    i = head.end - slot.start
    run = []
    for ch in slot.text[i:]:
        if not is_cjk_char(ch) or ch in _ZH_STOP:
            break
        run.append(ch)
    tail = "".join(run)
    # "前缀缓存能用到主机内存上吗": a modal verb after the name starts the predicate, no compound
    return len(tail) >= 2 and not _GENERIC_TAIL.match(tail) and not _MODAL.match(tail)


def _content_words(text: str) -> list[str]:
    return [w for w in _LATIN_WORD.findall(fold(text)) if w not in _EN_STOP and not w.isdigit()]


def _latin_tokens(text: str) -> list[str]:
    return _LATIN_WORD.findall(fold(text))


def _cjk_chars(text: str) -> str:
    return "".join(ch for ch in fold(text) if is_cjk_char(ch) and ch not in _ZH_STOP)


def joint_line(glossary: Glossary, term_id: str) -> tuple[list[str], Edge, dict[str, int]] | None:
    """The source line that defines *term_id* together with its siblings ("AllReduce / AllGather /
    All-to-All …", "输入长度是…，输出长度是…"): its members in the order the line names them, its
    ``paired-definition`` edge, and where in the folded line each member's first name stands (-1:
    named by no name of its node, ordered last); None if *term_id* has no such line."""
    edges = [e for e in glossary.edges_of(term_id, ("confused_with",)) if e.origin == "paired-definition"]
    if not edges:
        return None
    doc, line = edges[0].doc, edges[0].line
    text = fold(edges[0].evidence)
    members = {term_id} | {
        e.source if e.target == term_id else e.target for e in edges if (e.doc, e.line) == (doc, line)
    }

    def position(tid: str) -> int:
        found = [text.find(fold(n)) for n in glossary.terms[tid].all_names() if len(n) >= 2]
        return min((i for i in found if i >= 0), default=-1)

    at = {tid: position(tid) for tid in members}
    order = sorted(members, key=lambda tid: (at[tid] if at[tid] >= 0 else len(text), tid))
    return order, edges[0], at


def consistent(text: str, term: Term) -> bool:
    """False when the term's names contradict the words of *text*.

    Latin words asked about must each match a word of one of the term's Latin names
    (prefix or close spelling); Chinese characters asked about must mostly (75 %) occur
    in one of its Chinese names. A term with no name in the script asked in cannot
    contradict it (cross-language hits: "GPU utilization" → GPU 利用率).
    """
    from rapidfuzz import fuzz

    names = term.all_names()
    words = _content_words(text)
    latin_names = [n for n in names if not has_cjk(n)]
    if words:
        if latin_names:
            name_words = {w for n in latin_names for w in _latin_tokens(n)}
            name_words |= {w.replace("-", "") for w in name_words}
            for w in words:
                if not any(
                    nw.startswith(w[:5]) or w.startswith(nw[:5]) or fuzz.ratio(w, nw) >= 80
                    for nw in name_words
                ):
                    return False
        else:
            mixed = {w for n in names for w in _latin_tokens(n)}
            if mixed and not mixed & set(words):
                return False
    chars = _cjk_chars(text)
    zh_names = [n for n in names if has_cjk(n)]
    if chars and zh_names:
        best = max(sum(ch in _cjk_chars(n) for ch in chars) / len(chars) for n in zh_names)
        if best < 0.75:
            return False
    return True


@lru_cache(maxsize=8)
def _cached_vocabulary(glossary: Glossary) -> frozenset[str]:
    return latin_vocabulary(glossary)


def linker_for(glossary: Glossary, engine: SearchEngine) -> Linker:
    """A linker for one question (its search cache is per question); the vocabulary is shared."""
    return Linker(glossary, engine, _cached_vocabulary(glossary))


def latin_vocabulary(glossary: Glossary) -> frozenset[str]:
    """Every Latin token (folded) the graph's names, definitions, notes and evidence use."""
    texts: list[str] = []
    for t in glossary.terms.values():
        texts.extend(t.all_names())
        for d in t.definitions:
            texts.append(d.text)
            if d.note:
                texts.append(d.note)
    texts.extend(e.evidence for e in glossary.edges)
    vocab: set[str] = set()
    for text in texts:
        for m in _TOKEN.finditer(text):
            vocab.add(fold(m.group(0).strip("'’.-")))
    return frozenset(vocab)
