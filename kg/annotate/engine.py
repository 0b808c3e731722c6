"""The annotator: find the glossary's terms in a page and say where, what and where to read more.

>>> ann = Annotator(Glossary.load("build/artifact"))                      # doctest: +SKIP
>>> [m.term_id for m in ann.annotate("vLLM's KV caches", AnnotateOptions()).mentions]  # doctest: +SKIP
['vllm', 'kv-cache']

One pass per page, linear in its length:

1. :func:`kg.annotate.markup.layout` masks what is never annotated (code, links, tags, …) and,
   unless asked otherwise, the headings;
2. the page is folded (:func:`kg.annotate.normalize.fold_with_map`) and the vocabulary's
   Aho-Corasick automaton reports every name in it;
3. each hit is checked: a Latin name must sit on word boundaries (a plural ``s``/``es``/``ies`` or
   a possessive ``'s`` may follow, a dotted identifier such as ``Node.js`` may not), a name in
   capitals must be written in capitals, a product name capitalised; a Chinese name must not
   split a jieba word of its run (jieba holding the glossary's names, as search does);
4. leftmost-longest hits win, everyday words need their context (:mod:`kg.annotate.context`;
   the names in the text of existing links count as context though they are never annotated),
   same-named terms are decided by context or marked ambiguous; a longer hit the context drops
   leaves the shorter names inside it to the same rules;
5. spans are mapped back to offsets into the original page.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kg.annotate import context as ctxmod
from kg.annotate.card import DefinitionRef, definition_of, term_url
from kg.annotate.context import MASK
from kg.annotate.markup import Layout, layout
from kg.annotate.normalize import fold_with_map
from kg.annotate.options import AnnotateOptions
from kg.annotate.segment import cuts
from kg.annotate.vocabulary import CASE_ANY, CASE_CAPITAL, CASE_UPPER, NameEntry, Pattern, Vocabulary
from kg.model import Term
from kg.search.tokenize import CJK_CLASS
from kg.store import Glossary

_KIND_RANK = {"label": 0, "abbreviation": 1, "alias": 2}
_CJK_CHARS = re.compile(f"[{CJK_CLASS}]")
_LATIN_LETTERS = re.compile(r"[A-Za-z]")
#: How many characters a longer everyday word may add on either side of a Chinese match.
_MAX_OUTER = 3


@dataclass(slots=True)
class Mention:
    """A term named in the page: ``page[start:end] == text`` (offsets into the original page)."""

    start: int
    end: int
    text: str
    term_id: str
    name: str  # the glossary name that matched
    match: str  # label | abbreviation | alias
    label: str  # the term's label in the page's language
    labels: dict[str, str]
    definition: DefinitionRef | None
    url: str
    section: int = 0
    ambiguous: bool = False
    candidates: tuple[str, ...] = ()  # the other terms the same words may mean

    def to_dict(self) -> dict[str, Any]:
        return {
            "start": self.start,
            "end": self.end,
            "text": self.text,
            "term_id": self.term_id,
            "name": self.name,
            "match": self.match,
            "label": self.label,
            "labels": dict(self.labels),
            "definition": self.definition.to_dict() if self.definition else None,
            "url": self.url,
            "section": self.section,
            "ambiguous": self.ambiguous,
            "candidates": list(self.candidates),
        }


@dataclass
class Annotation:
    """What :meth:`Annotator.annotate` found in one page."""

    text: str
    format: str
    lang: str
    mentions: list[Mention] = field(default_factory=list)

    @property
    def term_ids(self) -> list[str]:
        """Ids of the terms mentioned, in order of first mention."""
        return list(dict.fromkeys(m.term_id for m in self.mentions))


@dataclass
class _Hit:
    start: int  # folded offsets
    end: int
    entry: NameEntry
    plural: bool  # reached through a suffix or the -ies variant
    term_id: str = ""
    ambiguous: bool = False

    @property
    def length(self) -> int:
        return self.end - self.start


def page_lang(text: str) -> str:
    """``zh`` when Chinese characters carry the page (a Chinese page naming English terms is
    Chinese), else ``en``."""
    cjk = len(_CJK_CHARS.findall(text))
    if not cjk:
        return "en"
    return "zh" if cjk * 4 >= len(_LATIN_LETTERS.findall(text)) else "en"


class Annotator:
    """Annotates pages with one glossary's terms; build once (≈ 1 s), reuse for every page."""

    def __init__(self, glossary: Glossary, vocabulary: Vocabulary | None = None) -> None:
        self.glossary = glossary
        self.vocabulary = vocabulary or Vocabulary(glossary)
        self._segmenter = self.vocabulary.tokenizer.segmenter
        self._definitions: dict[tuple[str, str], DefinitionRef | None] = {}
        self._urls: dict[tuple[str, str, str], str] = {}
        self._abbreviations: dict[str, str] = {}

    # --- public -------------------------------------------------------------------------------
    def annotate(self, text: str, options: AnnotateOptions | None = None) -> Annotation:
        """The terms named in *text* (see the module for the rules and :class:`AnnotateOptions`)."""
        options = options or AnnotateOptions()
        lay = layout(text, options.format)
        masked = self._masked(text, lay, options.skip_headings)
        lang = options.lang or page_lang(masked.replace(MASK, ""))
        folded = fold_with_map(masked)
        found = self._hits(folded.text, text, folded.to_original, options)
        hits = _leftmost_longest(found)
        found_support: list[list[_Hit]] = []

        def support() -> list[_Hit]:
            if not found_support:
                found_support.append(self._link_support(text, lay, folded, options))
            return found_support[0]

        kept = self._decide(hits, folded.text, text, folded.to_original, options, support)
        hits = self._reconsider(found, hits, kept, folded.text, text, folded.to_original, options, support)
        if options.context:
            hits = _other_senses_dropped(hits, text, folded.to_original)
        mentions: list[Mention] = []
        seen: set[tuple[str, int]] = set()
        for h in hits:
            start, end = folded.to_original(h.start), folded.to_original(h.end)
            section = lay.section_of(start)
            if options.occurrences != "all":
                key = (h.term_id, section if options.occurrences == "first-per-section" else 0)
                if key in seen:
                    continue
                seen.add(key)
            mentions.append(self._mention(text, start, end, h, lang, section, options))
        return Annotation(text=text, format=options.format, lang=lang, mentions=mentions)

    def definition(self, term: Term, lang: str) -> DefinitionRef | None:
        """One sentence of the term's definition, in *lang* when a source gives one, with its source."""
        key = (term.id, lang)
        if key not in self._definitions:
            self._definitions[key] = definition_of(self.glossary, term, lang)
        return self._definitions[key]

    def url(self, term_id: str, options: AnnotateOptions) -> str:
        """The link of a term (``url_template`` with ``{base}`` and the URL-quoted ``{id}``)."""
        key = (term_id, options.base_url, options.url_template)
        url = self._urls.get(key)
        if url is None:
            if len(self._urls) > 50_000:
                self._urls.clear()
            url = self._urls[key] = term_url(term_id, options.base_url, options.url_template)
        return url

    # --- steps --------------------------------------------------------------------------------
    @staticmethod
    def _masked(text: str, lay: Layout, skip_headings: bool) -> str:
        spans = list(lay.masked)
        if skip_headings:
            spans = sorted(spans + lay.headings)
        if not spans:
            return text
        parts: list[str] = []
        pos = 0
        for s, e in spans:
            if e <= pos:
                continue
            s = max(s, pos)
            parts.append(text[pos:s])
            parts.append(MASK * (e - s))
            pos = e
        parts.append(text[pos:])
        return "".join(parts)

    def _allowed(self, entry: NameEntry, options: AnnotateOptions) -> bool:
        if entry.mentioned and not options.include_mentioned:
            return False
        tid = entry.term_id
        if options.include_ids and tid not in options.include_ids:
            return False
        if tid in options.exclude_ids:
            return False
        if options.include_categories or options.exclude_categories:
            cats = self.glossary.terms[tid].categories
            if options.include_categories and not set(cats) & set(options.include_categories):
                return False
            if set(cats) & set(options.exclude_categories):
                return False
        return True

    def _allowed_ids(self, options: AnnotateOptions) -> frozenset[str] | None:
        """The term ids the options allow (None: every one)."""
        if not (
            options.include_ids
            or options.exclude_ids
            or options.include_categories
            or options.exclude_categories
        ):
            return None
        probe = {e.term_id: e for e in self.vocabulary.entries}
        return frozenset(tid for tid, e in probe.items() if self._allowed(e, options))

    def _hits(
        self,
        folded: str,
        original: str,
        to_orig: Any,
        options: AnnotateOptions,
        windows: list[tuple[int, int]] | None = None,
    ) -> list[_Hit]:
        """Every name found in *folded* (only inside *windows* when given) that passes the checks."""
        out: list[_Hit] = []
        n = len(folded)
        allowed = self._allowed_ids(options)
        mentioned = options.include_mentioned
        automaton = self.vocabulary.automaton
        reports = (
            automaton.iter(folded)
            if windows is None
            # each window on its own (the automaton reads the whole string it is given, every call)
            else ((lo + last, p) for lo, hi in windows for last, p in automaton.iter(folded[lo:hi]))
        )
        pattern: Pattern
        for last, pattern in reports:
            end = last + 1
            start = end - len(pattern.key)
            for entry in pattern.entries:
                if (entry.mentioned and not mentioned) or (
                    allowed is not None and entry.term_id not in allowed
                ):
                    continue
                stop = end
                plural = pattern.plural
                if entry.latin_start and start > 0 and _word_char(folded[start - 1]):
                    continue
                if entry.latin_end:
                    if not pattern.plural:
                        suffix = _suffix(folded, end, entry.name)
                        stop, plural = end + suffix, suffix > 0
                    if stop < n and (_word_char(folded[stop]) or _dotted(folded, stop)):
                        continue
                if entry.case != CASE_ANY and not self._case_ok(
                    original, to_orig(start), to_orig(end), entry
                ):
                    continue
                if entry.mixed_case and not _spelled_as(original[to_orig(start) : to_orig(end)], entry.name):
                    continue
                if _cjk(folded[start]) and not self._jieba_boundary(folded, start):
                    continue
                if _cjk(folded[end - 1]) and not self._jieba_boundary(folded, end):
                    continue
                if (_cjk(folded[start]) or _cjk(folded[end - 1])) and self._inside_everyday_word(
                    folded, start, end
                ):
                    continue
                out.append(_Hit(start, stop, entry, plural, entry.term_id))
        return out

    @staticmethod
    def _case_ok(original: str, start: int, end: int, entry: NameEntry) -> bool:
        if entry.case == CASE_UPPER:
            return not any(c.islower() for c in original[start:end])
        if entry.case == CASE_CAPITAL:
            return original[start : start + 1].isupper()
        return True

    def _jieba_boundary(self, folded: str, pos: int) -> bool:
        """True when *pos* is a word boundary of jieba's segmentation of the Chinese run around it."""
        lo = pos
        while lo > 0 and _cjk(folded[lo - 1]):
            lo -= 1
        hi = pos
        while hi < len(folded) and _cjk(folded[hi]):
            hi += 1
        if lo == pos or hi == pos:
            return True  # the run starts or ends here
        return (pos - lo) in cuts(self._segmenter, folded[lo:hi])

    def _inside_everyday_word(self, folded: str, start: int, end: int) -> bool:
        """True when the Chinese match lies inside a longer word of jieba's general dictionary
        that the domain never writes ("推理" in "推理小说", "并发" in "并发症"): jieba holding the
        glossary's names may cut such a word in two, the reader does not."""
        general = self.vocabulary.general_words
        n = len(folded)
        for a in range(start, max(start - _MAX_OUTER, 0) - 1, -1):
            if a < start and not _cjk(folded[a]):
                break
            for b in range(end, min(end + _MAX_OUTER, n) + 1):
                if b > end and not _cjk(folded[b - 1]):
                    break
                if (a, b) == (start, end) or not general.get(folded[a:b]):
                    continue
                # a function word added to the match is jieba's noise ("推理则"), not a word
                if ctxmod.function_word(folded[a:start]) or ctxmod.function_word(folded[end:b]):
                    continue
                if not self.vocabulary.domain_text(folded[a:b]):
                    return True
        return False

    def _link_support(self, text: str, lay: Layout, folded: Any, options: AnnotateOptions) -> list[_Hit]:
        """The names in the text of the page's existing links: never annotated, but context for
        the mentions around them (a linked "TPOT" supports the "decode" beside it). Left out in
        the rare page whose folding changes lengths (offsets would not line up)."""
        if not lay.link_texts or not options.context or folded.offsets is not None:
            return []
        parts: list[str] = []
        windows: list[tuple[int, int]] = []
        pos = 0
        for s, e in lay.link_texts:  # fold each link's text alone: the rest is folded already
            piece = fold_with_map(text[s:e])
            if piece.offsets is None:
                parts += [folded.text[pos:s], piece.text]
                windows.append((s, e))
                pos = e
        parts.append(folded.text[pos:])
        inside = [
            h
            for h in self._hits("".join(parts), text, folded.to_original, options, windows)
            if _within(windows, h.start, h.end)
        ]
        return _leftmost_longest(inside)

    def _reconsider(
        self,
        found: list[_Hit],
        chosen: list[_Hit],
        kept: list[_Hit],
        folded: str,
        original: str,
        to_orig: Any,
        options: AnnotateOptions,
        support: Callable[[], list[_Hit]],
    ) -> list[_Hit]:
        """A longer match the context drops ("显存带宽" without support) no longer hides the
        shorter names inside it ("显存"): they are chosen leftmost-longest within its span and go
        through the same rules, beside the matches kept (the dropped one supports nothing)."""
        kept_ids = {id(h) for h in kept}
        dropped = [h for h in chosen if id(h) not in kept_ids]
        if not dropped:
            return kept
        result = list(kept)
        starts = [h.start for h in found]  # sorted by _leftmost_longest
        for _ in range(3):  # names inside names inside names at most
            inner = [
                h
                for d in dropped
                for h in found[bisect_left(starts, d.start) : bisect_left(starts, d.end)]
                if h.end <= d.end and h.length < d.length
            ]
            if not inner:
                break
            layer = _leftmost_longest(inner)
            merged = sorted([*result, *layer], key=lambda h: (h.start, h.end))
            decided = {id(h) for h in self._decide(merged, folded, original, to_orig, options, support)}
            result = sorted(
                [*result, *(h for h in layer if id(h) in decided)], key=lambda h: (h.start, h.end)
            )
            dropped = [h for h in layer if id(h) not in decided]
            if not dropped:
                break
        return result

    def _decide(
        self,
        hits: list[_Hit],
        folded: str,
        original: str,
        to_orig: Any,
        options: AnnotateOptions,
        support: Callable[[], list[_Hit]] | None = None,
    ) -> list[_Hit]:
        """Everyday words need their context; same-named terms are decided by it. *support*: the
        names in link text, which count as context only (asked for when some word needs support)."""
        if not any(
            h.entry.weak or h.entry.rivals or self._short_abbreviation(h.entry) or self._letters(h.entry)
            for h in hits
        ) and not ctxmod.separates_senses(folded):
            return hits
        contexts: dict[tuple[int, int], ctxmod.SentenceContext] = {}

        def ctx_of(span: tuple[int, int]) -> ctxmod.SentenceContext:
            if span not in contexts:
                words = self.vocabulary.tokenizer.tokenize(folded[span[0] : span[1]].replace(MASK, " "))
                contexts[span] = ctxmod.SentenceContext(frozenset(words))
            return contexts[span]

        # the original's characters at folded offsets (the same string unless folding changed
        # lengths): it keeps the case and the line ends that folding turned into spaces
        original_view = original if len(original) == len(folded) else _aligned(original, folded, to_orig)
        bounds = ctxmod.SentenceBounds(original_view)
        clauses = ctxmod.ClauseBounds(original_view)
        sentences = [bounds.span(h.start, h.end) for h in hits]
        vocab = self.vocabulary
        # pass 1, per hit: dropped (0), kept (1), or kept only with support (2): a related term
        # near it (rule 1), its own other name there, or its signature (rule 2)
        status: list[int] = []
        separates: dict[tuple[int, int], bool] = {}

        def separating(span: tuple[int, int]) -> bool:
            if span not in separates:
                separates[span] = ctxmod.separates_senses(original_view[span[0] : span[1]])
            return separates[span]

        for i, (h, sentence) in enumerate(zip(hits, sentences, strict=True)):
            if h.entry.rivals:
                h.term_id, h.ambiguous = ctxmod.choose_term(vocab, h.entry, ctx_of(sentence))
            st = 1
            if not options.context:
                pass
            elif self._letters(h.entry) and ctxmod.other_expansion(
                self._letters(h.entry),
                self.glossary.terms[h.term_id].all_names(),
                original_view[sentence[0] : sentence[1]],
            ):
                st = 0  # rule 10: "ASR means anti-slip regulation"
            elif h.entry.weak:
                latin = _latin(h.entry.name)
                if ctxmod.foreign_compound(
                    vocab, h.entry, folded, original_view, h.start, sentence[0], self._segmenter
                ) or ctxmod.word_as_word(folded, h.start, h.end):
                    st = 0  # rules 3 and 7
                elif (
                    latin
                    and i > 0
                    and status[-1] == 0
                    and hits[i - 1].entry.weak
                    and folded[hits[i - 1].end : h.start] == " "
                ):
                    st = 0  # rule 8: "[search engine] optimization"
                elif (
                    latin
                    and ctxmod.modifier_of_next(
                        vocab, h.entry, folded, original_view, h.end, h.plural, self._segmenter
                    )
                    and not ctxmod.supported(
                        vocab, h.entry, ctx_of(clauses.clause(sentence, h.start, h.end)), min_words=2
                    )
                ):
                    st = 0  # rule 4
                else:
                    st = 2
            elif self._short_abbreviation(h.entry) and ctxmod.modifier_of_next(
                vocab, h.entry, folded, original_view, h.end, h.plural, self._segmenter
            ):
                st = 2  # rule 9: "MAC address"
            if st == 1 and options.context and self._has_other_senses(h.entry) and separating(sentence):
                st = 2  # rule 11: "… has nothing to do with Triton, Neptune's moon"
            status.append(st)
        if all(st == 1 for st in status):
            return hits
        # support is looked for in the sentence up to a contrastive conjunction (rule 5); the
        # terms named there, with the names each is named by (one pass: pages hold thousands)
        needed = {sentence for sentence, st in zip(sentences, status, strict=True) if st == 2}
        spans = [
            (
                clauses.sides(sentence, h.start, h.end)
                if separating(sentence)
                else clauses.contrast(sentence, h.start, h.end)
            )
            if sentence in needed
            else sentence
            for h, sentence in zip(hits, sentences, strict=True)
        ]
        named: dict[tuple[int, int], dict[str, set[str]]] = {}
        for h, sentence, span in zip(hits, sentences, spans, strict=True):
            if sentence in needed:
                named.setdefault(span, {}).setdefault(h.entry.term_id, set()).add(h.entry.name)
        for h in support() if support is not None else ():
            sentence = bounds.span(h.start, h.end)
            if sentence in needed:
                span = (
                    clauses.sides(sentence, h.start, h.end)
                    if separating(sentence)
                    else clauses.contrast(sentence, h.start, h.end)
                )
                named.setdefault(span, {}).setdefault(h.entry.term_id, set()).add(h.entry.name)
        kept: list[_Hit] = []
        for h, span, st in zip(hits, spans, status, strict=True):
            if st == 2:
                here = named.get(span, {})
                near = vocab.related(h.entry.term_id)
                related = any(t in near for t in here if t != h.entry.term_id)
                # its own other name ("tokens per second … TPS") supports it too, not a longer
                # name holding it ("queue" beside "request queue" may be another queue)
                own = h.entry.name.lower()
                spelled_out = any(own not in n.lower() for n in here.get(h.entry.term_id, ()))
                if not (related or spelled_out or ctxmod.supported(vocab, h.entry, ctx_of(span))):
                    continue
            if st:
                kept.append(h)
        return kept

    @staticmethod
    def _has_other_senses(entry: NameEntry) -> bool:
        """A name that may mean something outside the domain (rule 11): a Chinese name or a product
        name (``Triton``); abbreviations and names of several Latin words are the domain's."""
        return entry.case == CASE_CAPITAL or not _latin(entry.name)

    def _letters(self, entry: NameEntry) -> str:
        """The letters of an abbreviation (:func:`kg.annotate.context.abbreviation_letters`), cached."""
        got = self._abbreviations.get(entry.name)
        if got is None:
            got = self._abbreviations[entry.name] = ctxmod.abbreviation_letters(entry.name)
        return got

    def _short_abbreviation(self, entry: NameEntry) -> bool:
        """Three capitals and nothing else (MAC, SLA, TPS) that few definitions name: such an
        abbreviation has other expansions outside the domain (:mod:`kg.annotate.context`, rule 9)."""
        return (
            entry.case == CASE_UPPER
            and len(entry.name) == 3
            and entry.name.isalpha()
            and entry.name not in self.vocabulary.widely_used
        )

    def _mention(
        self, original: str, start: int, end: int, h: _Hit, lang: str, section: int, options: AnnotateOptions
    ) -> Mention:
        term = self.glossary.terms[h.term_id]
        candidates = tuple(t for t in (h.entry.term_id, *h.entry.rivals) if t != h.term_id)
        return Mention(
            start=start,
            end=end,
            text=original[start:end],
            term_id=term.id,
            name=h.entry.name,
            match=h.entry.kind,
            label=term.label(lang),
            labels=dict(term.labels),
            definition=self.definition(term, lang),
            url=self.url(term.id, options),
            section=section,
            ambiguous=h.ambiguous,
            candidates=candidates,
        )


_PARAGRAPH_BREAK = re.compile(r"\n\s*\n|</p>|<br\s*/?>|</li>", re.IGNORECASE)


def _other_senses_dropped(hits: list[_Hit], original: str, to_orig: Any) -> list[_Hit]:
    """Rule 12 of :mod:`kg.annotate.context`: uses of a term before the one the paragraph marks
    as its own sense are the other sense."""
    drop: set[int] = set()
    for k, h in enumerate(hits):
        if k == 0 or not ctxmod.marks_own_sense(original, to_orig(h.start), to_orig(h.end)):
            continue
        for j in range(k - 1, -1, -1):
            between = original[to_orig(hits[j].end) : to_orig(h.start)]
            if _PARAGRAPH_BREAK.search(between):
                break
            if hits[j].term_id == h.term_id:
                drop.add(j)
    return [h for i, h in enumerate(hits) if i not in drop] if drop else hits


def _aligned(original: str, folded: str, to_orig: Any) -> str:
    """The original's character at each folded offset (case kept), for the case-sensitive rules."""
    return "".join(original[to_orig(i)] if to_orig(i) < len(original) else " " for i in range(len(folded)))


def _spelled_as(text: str, name: str) -> bool:
    """A name with inner capitals (``LoRA``) matches its own spelling, all lower case, all
    capitals or only a first capital, not another mix of cases (``LoRa``, the radio). Full-width
    letters count as the letters they stand for (``ＲｏＣＥｖ２``). A short one (three letters at
    most, ``MoE``) is an abbreviation: only its own spelling or all capitals ("moe", "Moe" are
    words)."""
    text = unicodedata.normalize("NFKC", text)
    if text == name or len(text) != len(name):
        return True
    if sum(c.isalpha() for c in name) <= 3:
        return text == text.upper()
    if text in (text.lower(), text.upper()):
        return True
    return text == text[:1].upper() + text[1:].lower()


def _latin(name: str) -> bool:
    """A name written in Latin letters only (no Chinese)."""
    return not _CJK_CHARS.search(name)


def _cjk(ch: str) -> bool:
    """:func:`kg.textnorm.is_cjk_char`, inlined for the hot loops."""
    return (
        "\u4e00" <= ch <= "\u9fff"
        or "\u3400" <= ch <= "\u4dbf"
        or "\uf900" <= ch <= "\ufaff"
        or "\U00020000" <= ch <= "\U0002fa1f"
    )


def _word_char(ch: str) -> bool:
    return (ch.isalnum() or ch == "_") and not _cjk(ch)


def _dotted(folded: str, pos: int) -> bool:
    """A dot joining the name to more letters: an identifier or a file name (``Node.js``)."""
    return (
        folded[pos] == "."
        and pos + 1 < len(folded)
        and folded[pos + 1].isalpha()
        and folded[pos + 1].isascii()
    )


def _suffix(folded: str, end: int, name: str) -> int:
    """Length of a plural or possessive ending right after a Latin name (0 when none)."""
    tail = folded[end : end + 3]
    if tail[:2] in ("'s", "’s"):
        return 2
    if tail[:1] == "s":
        if tail[1:2] in ("'", "’") and not _word_char(tail[2:3] or " "):
            return 2
        return 1
    if tail[:2] == "es" and name[-1:].lower() in ("s", "x", "z", "h"):
        return 2
    if tail[:1] in ("'", "’") and name[-1:].lower() == "s":
        return 1
    return 0


def _within(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """``[start, end)`` lies inside one of the sorted, disjoint *spans*."""
    i = bisect_left(spans, (start + 1,)) - 1
    return i >= 0 and spans[i][0] <= start and end <= spans[i][1]


def _leftmost_longest(hits: list[_Hit]) -> list[_Hit]:
    """Non-overlapping hits, left to right, the longest at each place (exact names before derived
    plurals, labels before abbreviations before aliases)."""
    hits.sort(key=lambda h: (h.start, -h.length, h.plural, h.entry.weak, _KIND_RANK.get(h.entry.kind, 3)))
    out: list[_Hit] = []
    end = -1
    for h in hits:
        if h.start >= end:
            out.append(h)
            end = h.end
    return out
