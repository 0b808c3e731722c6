"""The first stage of the chat pipeline: the question as the later stages read it.

- Length: a question longer than :data:`MAX_QUESTION_CHARS` is cut (with a warning).
- Script: a question written in Traditional characters is answered in Traditional characters
  (:func:`to_traditional` on the answer text; quotes in citations stay verbatim).
- Taiwan wording: a Traditional question is converted with OpenCC ``tw2sp`` (phrases too:
  快取 → 缓存, 記憶體 → 内存) and a few computing words the converter keeps (平行 → 并行,
  推論 → 推理) before linking, so that "KV 快取" finds KV cache.
- A name word written apart ("Gated Delta Net" → Gated DeltaNet, "Flash Attention" →
  FlashAttention) is joined; a degree written onto an abbreviation ("TP8") is set apart ("TP 8").
- Two neighbouring letters swapped in a glossary name word of four letters or more ("TTTF" →
  TTFT, "NVLnik" → NVLink), the first letter kept, when one name word alone fits and the word is
  written like a name (capitals after its first letter; "from" is no slip of "form").
- Typos of glossary words: a Latin word of five letters or more that no term's text uses and
  that is within a rapidfuzz ratio of 85 of a word of some glossary name is replaced by it
  ("parallelim" → "parallelism", "continous" → "continuous", "lattency" → "latency"), if it has
  the same first letter ("running" is no typo of "pruning"); two name words run together are a
  new name, not a typo ("StreamingLLM" stays); and a plain English word (the vendored list
  ``data/english_words.txt``) is a word, not a slip ("matching" is no typo of "batching",
  "engineer" none of "engine"), unless it is a name word inflected ("prefixes").
- One wrong character in a Chinese name of four or more characters ("投机解吗" → 投机解码,
  "张亮并行" → 张量并行), when the window matches no name as it stands and both its ends fall
  on jieba word boundaries (so "重新训练" never becomes 预训练, nor "模型量化" 反量化).
- Acronyms the sources never spell out: three to five capitals that no name is, but that the
  initials of exactly one Latin name make, become that name ("CFG" → Classifier-free guidance,
  "WOQ" → weight-only quantization, "KVC" → KV cache); names with "per", "of" … are left out. So
  are a name's closing words given by their initials ("causal LM" → Causal language model).
- Pinyin typed for a Chinese name ("huadong chuangkou zhuyili 是啥" → 滑动窗口注意力): a run of
  Latin words that, run together, is exactly the tone-less pinyin of a Chinese glossary name of
  two syllables or more (six letters at least) is replaced by that name. Only whole names that
  one name alone spells so are replaced, so English words are left alone.
- English inflections: possessives ("vLLM's" → "vLLM") and plurals of glossary words
  ("TPUs" → "TPU", "KV caches" → "KV cache", "strategies" → "strategy") are reduced before
  linking, so that a name the glossary knows is found whatever its inflection. A plural is
  reduced only when the singular is a word of some glossary name and the plural is not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from kg.store import Glossary
from kg.textnorm import fold, has_cjk, readings, to_simplified

__all__ = [
    "MAX_QUESTION_CHARS",
    "Question",
    "expand_acronyms",
    "from_pinyin",
    "is_traditional",
    "known_words",
    "name_words",
    "normalize",
    "to_traditional",
]

MAX_QUESTION_CHARS = 1000

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9.+_-]*(?:['’][sS])?")
_POSSESSIVE = re.compile(r"['’][sS]$")
_CONTRACTIONS = frozenset(["what", "it", "that", "there", "here", "who", "let", "he", "she", "where", "how"])


@dataclass(frozen=True)
class Question:
    """The asker's text (``original``) and the text the pipeline links and searches (``text``)."""

    original: str
    text: str
    traditional: bool = False
    warnings: tuple[str, ...] = field(default_factory=tuple)
    #: a Chinese name was typed in pinyin: the asker reads Chinese, whatever script the rest is in
    pinyin: bool = False


#: Taiwan computing vocabulary that OpenCC's tw2sp leaves as is (after its conversion).
_TW_WORDS = (
    ("平行", "并行"),
    ("推论", "推理"),
    ("批次处理", "批处理"),
    ("批量处理", "批处理"),
    ("管线", "流水线"),
    ("资料", "数据"),
)


#: Short forms of a glossary name that practitioners use and the sources spell out: "PD 分离", "P/D
#: disagg" are prefill-decode disaggregation (000 writes "prefill-decode 分离" for 推理分离).
_SHORT_FORMS = (
    (re.compile(r"(?<![a-z0-9])(?:pd|p/d|prefill[-/ ]?decode)\s*分离", re.IGNORECASE), "推理分离"),
    (
        re.compile(
            r"(?<![a-z0-9])(?:pd|p/d|prefill[-/ ]decode)\s+disagg(?:regation|regated|\.)?(?![a-z])",
            re.IGNORECASE,
        ),
        "disaggregation",
    ),
)

#: The Taiwan words of :data:`_TW_WORDS` that mean the same in this domain whatever the script
#: ("资料" is documents in mainland usage, not data).
_TW_WORDS_ANY_SCRIPT = (
    ("平行", "并行"),
    ("推论", "推理"),
    ("批次处理", "批处理"),
    ("通讯", "通信"),
    ("快取", "缓存"),
)


@lru_cache(maxsize=1)
def _tw2sp():  # pragma: no cover - trivial
    import opencc

    return opencc.OpenCC("tw2sp")


def from_taiwan(text: str, names: Iterable[str] = ()) -> str:
    """Traditional (Taiwan) → Simplified with mainland wording, for linking and search.

    *names*: Chinese glossary names (Simplified). Where one of them is what the characters say,
    converted one by one (``t2s``), it is kept as it is: the phrase conversion rewords some of
    them into another mainland word ("離線推理" → 脱机推理, not the glossary's 离线推理)."""
    from kg.textnorm import to_simplified

    chars = to_simplified(text)
    kept: list[tuple[int, int]] = []
    if len(chars) == len(text):  # character by character: the offsets are the question's
        for name in sorted(names, key=len, reverse=True):
            start = chars.find(name)
            while start >= 0:
                end = start + len(name)
                if all(end <= a or b <= start for a, b in kept):
                    kept.append((start, end))
                start = chars.find(name, end)
    pieces, cursor = [], 0
    for a, b in sorted(kept):
        pieces += [_tw_words(str(_tw2sp().convert(text[cursor:a]))), chars[a:b]]
        cursor = b
    pieces.append(_tw_words(str(_tw2sp().convert(text[cursor:]))))
    return "".join(pieces)


def _tw_words(text: str) -> str:
    for tw, cn in _TW_WORDS:
        text = text.replace(tw, cn)
    return text


@lru_cache(maxsize=1)
def _s2t():  # pragma: no cover - trivial
    import opencc

    return opencc.OpenCC("s2t")


def to_traditional(text: str) -> str:
    """Simplified → Traditional characters (OpenCC ``s2t``, character level, no rewording)."""
    return str(_s2t().convert(text)) if has_cjk(text) else text


def is_traditional(text: str) -> bool:
    """True when *text* has Chinese characters that differ from their Simplified forms."""
    from kg.textnorm import to_simplified

    return has_cjk(text) and to_simplified(text) != text


def name_words(names: Iterable[str]) -> frozenset[str]:
    """Folded Latin words of glossary names (what a plural may be reduced to)."""
    out: set[str] = set()
    for n in names:
        for w in re.findall(r"[a-z][a-z0-9.+_'’-]*", fold(n)):
            out.add(w)
            out.add(w.strip(".-"))
            out.add(re.sub(r"['’]s$", "", w))  # "goodhart" of "Goodhart's law": what a typo is of
    return frozenset(out)


@lru_cache(maxsize=8)
def known_words(glossary: Glossary) -> frozenset[str]:
    """:func:`name_words` of every name of *glossary* (cached per glossary)."""
    return name_words(n for t in glossary.terms.values() for n in t.all_names())


def _singular(word: str, known: frozenset[str]) -> str | None:
    """The singular of *word* when it is a glossary word and *word* is not ("GPUs" → "GPU")."""
    low = word.lower()
    if low in known or len(low) < 3 or not low.endswith("s"):
        return None
    for cut, add in ((3, "y"), (2, ""), (1, "")):  # strategies, batches, TPUs
        if cut == 3 and not low.endswith("ies"):
            continue
        if cut == 2 and not low.endswith("es"):
            continue
        base = low[:-cut] + add
        if base in known:
            return word[: len(word) - cut] + add
    return None


def _agent_noun(word: str, known: frozenset[str]) -> str | None:
    """The process a glossary name calls by its "-ation" / "-ization" noun, for the one who does it
    ("n-gram speculators" → n-gram speculation, "Which quantizer …" → quantization), when the agent
    noun is neither a glossary word nor a plain English word ("generator", "operator" stay)."""
    low = word.lower()
    stem = low[:-1] if low.endswith("s") and len(low) > 5 else low
    if stem in known or low in known or stem in english_words():
        return None
    for end, process in (("izer", "ization"), ("iser", "isation"), ("ator", "ation")):
        if stem.endswith(end) and stem[: -len(end)] + process in known:
            return stem[: -len(end)] + process
    return None


@dataclass(frozen=True)
class _ZhNames:
    names: frozenset[str]
    masked: dict[str, str]  # a name with one character masked → the name (only unambiguous keys)
    lengths: tuple[int, ...]
    # the definitions' text: a window the sources themselves write is a word, not a typo
    # ("矩阵乘加" is no misspelling of 矩阵乘法)
    text: str = ""
    # three-character names by their tone-less pinyin (only unambiguous keys): a one-character
    # slip of the input method keeps the sound ("分次器" → 分词器, "命中律" → 命中率)
    sounds: dict[str, str] = field(default_factory=dict)


@lru_cache(maxsize=8)
def _zh_names(glossary: Glossary) -> _ZhNames:
    names = {n for t in glossary.terms.values() for n in (fold(x) for x in t.all_names()) if _all_cjk(n)}
    sounds: dict[str, str] = {}
    heard: set[str] = set()
    for n in sorted(x for x in names if len(x) == 3):
        key = _sound(n)
        if key in sounds:
            heard.add(key)
        sounds[key] = n
    for key in heard:
        del sounds[key]
    names = {n for n in names if len(n) >= 4}
    masked: dict[str, str] = {}
    clash: set[str] = set()
    for n in names:
        for i in range(len(n)):
            key = n[:i] + "?" + n[i + 1 :]
            if key in masked and masked[key] != n:
                clash.add(key)
            masked[key] = n
    for key in clash:
        del masked[key]
    text = "\n".join(to_simplified(fold(d.text)) for t in glossary.terms.values() for d in t.definitions)
    return _ZhNames(
        frozenset(names), masked, tuple(sorted({len(n) for n in names}, reverse=True)), text, sounds
    )


#: Sounds a pinyin typist confuses: flat and curled initials, n/l, front and back nasals.
_FUZZY_SOUNDS = (("zh", "z"), ("ch", "c"), ("sh", "s"), ("ing", "in"), ("eng", "en"), ("ang", "an"))


def _fuzzy(syllable: str) -> str:
    for a, b in _FUZZY_SOUNDS:
        syllable = syllable.replace(a, b)
    return "l" + syllable[1:] if syllable.startswith("n") else syllable


@lru_cache(maxsize=4096)
def _readings(ch: str) -> frozenset[str]:
    return frozenset(_fuzzy(r) for r in readings(ch))


def _sounds_alike(a: str, b: str) -> bool:
    """Whether two characters share a reading, up to the sounds typists confuse (纯/存, 律/率)."""
    return bool(_readings(a) & _readings(b))


def _sound(text: str) -> str:
    """Tone-less pinyin of *text*, syllables joined by spaces."""
    from pypinyin import lazy_pinyin

    return " ".join(lazy_pinyin(text))


def _homophone(window: str, zh: _ZhNames) -> str | None:
    """The three-character name *window* sounds like, one character apart ("分次器" → 分词器)."""
    if len(window) != 3 or window in zh.text:
        return None
    name = zh.sounds.get(_sound(window))
    if name is None or sum(a != b for a, b in zip(name, window, strict=True)) != 1:
        return None
    return name


@lru_cache(maxsize=8)
def _pinyin_names(glossary: Glossary) -> dict[str, str]:
    """Tone-less pinyin, run together, of each Chinese name → the name (unambiguous keys only)."""
    from pypinyin import lazy_pinyin

    def pairs() -> Iterator[tuple[str, str, str]]:
        for t in glossary.terms.values():
            for name in t.all_names():
                folded = fold(name).replace(" ", "")
                if len(folded) < 2 or not _all_cjk(folded):
                    continue
                key = "".join(lazy_pinyin(folded)).lower()
                if len(key) >= 6 and key.isascii():
                    yield key, folded, folded

    return _unambiguous(pairs())


def _unambiguous(pairs: Iterable[tuple[str, str, str]]) -> dict[str, str]:
    """key → value from (key, owner, value) triples, the first value of each key kept; a key two
    owners give different values is dropped (a guess between two names is no normalisation)."""
    out: dict[str, tuple[str, str]] = {}
    clash: set[str] = set()
    for key, owner, value in pairs:
        if key not in out:
            out[key] = (owner, value)
        elif out[key][0] != owner and out[key][1] != value:
            clash.add(key)
    return {k: v for k, (_, v) in out.items() if k not in clash}


@lru_cache(maxsize=8)
def _tail_acronym_patterns(glossary: Glossary) -> tuple[tuple[re.Pattern[str], str], ...]:
    """:func:`_tail_acronyms` as patterns over the question (the initials in capitals)."""
    pats = []
    for key, name in _tail_acronyms(glossary).items():
        *lead, acr = key.split(" ")
        lead_rx = r"\s+".join(map(re.escape, lead))
        pats.append((re.compile(rf"(?<![A-Za-z])(?i:{lead_rx})\s+{acr.upper()}(?![A-Za-z])"), name))
    return tuple(pats)


_LATIN_RUN = re.compile(r"[A-Za-z]+(?:\s+[A-Za-z]+)*")


def from_pinyin(text: str, glossary: Glossary) -> str:
    """Replace runs of Latin words that spell a Chinese glossary name in pinyin by that name."""
    index = _pinyin_names(glossary)
    if not index:
        return text

    def run(m: re.Match[str]) -> str:
        words = m.group(0).split()
        out: list[str] = []
        changed = False
        i = 0
        while i < len(words):
            for j in range(len(words), i, -1):
                joined = "".join(words[i:j]).lower()
                if (j - i >= 2 or len(joined) >= 8) and joined in index:
                    out.append(index[joined])
                    changed = True
                    i = j
                    break
            else:
                out.append(words[i])
                i += 1
        return " ".join(out) if changed else m.group(0)

    return _LATIN_RUN.sub(run, text)


_ACRONYM_STOP = frozenset({"per", "of", "to", "and", "for", "in", "on", "the", "a", "an", "by", "with"})


def _initials(name: str) -> str | None:
    """The acronym a Latin name's words make: "Classifier-free guidance" → CFG, "Weights-only
    quantization" → WOQ, "FlashAttention" → FA, "KV cache" → KVC (a word in capitals gives all its
    letters). None for a name of fewer than two words or with other characters."""
    core = re.sub(r"\s*[（(][^)）]*[)）]\s*", " ", name).strip()
    if not core or not re.fullmatch(r"[A-Za-z][A-Za-z .-]*", core):
        return None
    parts = [part for part in re.split(r"[\s-]+", core) if part]
    if len(parts) < 2:
        return None  # "NVLink", "LoRA": one word, whose capitals are no acronym of it
    if any(part.lower() in _ACRONYM_STOP for part in parts):
        return None  # "Tokens per megawatt": whether "per" gives a letter is anyone's guess
    words = [w for part in parts for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+", part)]
    return "".join(w if w.isupper() else w[0] for w in words).upper()


@lru_cache(maxsize=8)
def _acronyms(glossary: Glossary) -> dict[str, str]:
    """Acronym → the one Latin name it abbreviates, for acronyms no name already is (unambiguous
    keys only)."""
    taken = {fold(n) for t in glossary.terms.values() for n in t.all_names()}

    def pairs() -> Iterator[tuple[str, str, str]]:
        for t in glossary.terms.values():
            for n in t.all_names() if t.definitions else ():
                acr = None if has_cjk(n) else _initials(n)
                if acr and 3 <= len(acr) <= 5 and acr.lower() not in taken:
                    yield acr, t.id, n

    return _unambiguous(pairs())


_CAPS = re.compile(r"(?<![A-Za-z0-9])[A-Z]{3,5}(?![A-Za-z0-9])")


@lru_cache(maxsize=8)
def _tail_acronyms(glossary: Glossary) -> dict[str, str]:
    """Folded "<leading words> <initials of the last words>" → the name ("causal lm" → Causal
    language model): a name of three words or more whose closing words a user shortens to their
    initials, unambiguous keys that are no name already."""
    taken = {fold(n) for t in glossary.terms.values() for n in t.all_names()}

    def pairs() -> Iterator[tuple[str, str, str]]:
        for t in glossary.terms.values():
            for n in t.all_names():
                words = re.sub(r"\s*[（(][^)）]*[)）]\s*", " ", n).strip().split()
                if len(words) < 3 or not all(re.fullmatch(r"[A-Za-z]+", w) for w in words):
                    continue
                if any(w.lower() in _ACRONYM_STOP for w in words):
                    continue
                for k in range(2, len(words)):
                    key = fold(
                        " ".join([*words[: len(words) - k], "".join(w[0] for w in words[-k:]).lower()])
                    )
                    if key not in taken:
                        yield key, n, n

    return _unambiguous(pairs())


def expand_acronyms(text: str, glossary: Glossary) -> str:
    """An acronym of three to five capitals that no glossary name is, but that the initials of
    exactly one Latin name make, is replaced by that name ("文生图里的 CFG" → "… Classifier-free
    guidance", "WOQ" → "weight-only quantization"). (The reverse — a run of words whose initials
    make an acronym the glossary has — was measured and dropped: "I mean tile padding" read as MTP,
    "HyperWarp Boost mode" as HBM.)"""
    expand = _acronyms(glossary)
    text = _CAPS.sub(lambda m: expand.get(m.group(0), m.group(0)), text)
    if not re.search(r"[A-Z]{2}", text):
        return text
    for rx, name in _tail_acronym_patterns(glossary):
        # "What is a causal LM?": the closing words of a name given by their initials, in capitals
        m = rx.search(text)
        if m is not None:
            text = text[: m.start()] + name + text[m.end() :]
    return text


def _all_cjk(text: str) -> bool:
    from kg.textnorm import is_cjk_char

    return bool(text) and all(is_cjk_char(ch) for ch in text)


def _contains_name(text: str, names: frozenset[str]) -> bool:
    return any(text[i:j] in names for i in range(len(text)) for j in range(i + 4, len(text) + 1))


# the first characters of Chinese question frames, and the function characters before a name
_FRAME_START = re.compile(
    r"(?=是什么|是啥|是指|是不是|是怎么|是干|是做|指的是|有什么|有啥|怎么|为什么|如何|吗|呢)"
)
_FRAME_CHARS = frozenset("是的和与跟在了把被对从")


def correct_chinese(text: str, glossary: Glossary) -> str:
    """Replace a window one character away from a Chinese glossary name by that name."""
    from kg.textnorm import is_cjk_char

    zh = _zh_names(glossary)
    if not zh.names or not has_cjk(text):
        return text
    import jieba

    bounds = {0, len(text)}
    for _word, start, end in jieba.tokenize(text):
        bounds.update((start, end))
    # jieba glues a frame's first character to an unknown word before it ("上下文/并/形是/什么"):
    # where a question frame starts, a word ends
    bounds.update(m.start() for m in _FRAME_START.finditer(text))
    out = list(text)
    i = 0
    while i < len(out):
        if not is_cjk_char(out[i]):
            i += 1
            continue
        done = False
        for n in zh.lengths:
            window = "".join(out[i : i + n])
            if len(window) < n or not _all_cjk(window):
                continue
            if to_simplified(window) in zh.names:
                i += n
                done = True
                break
            if i not in bounds or i + n not in bounds:
                continue
            simple = to_simplified(window)
            if simple in zh.text:
                continue
            for k in range(n):
                name = zh.masked.get(simple[:k] + "?" + simple[k + 1 :])
                inner = simple[1:] if k == 0 else simple[:-1] if k == n - 1 else None
                if inner is not None and _contains_name(inner, zh.names):
                    continue  # "和专家并行": a neighbouring word glued to a name, not a typo of another
                if k == 0 and n > 2 and simple[0] in _FRAME_CHARS:
                    continue  # "什么是上下文并形": the 是 of the frame, not a typo of 长上下文's 长
                if name is not None and not _sounds_alike(simple[k], name[k]):
                    # an input method's slip sounds like what was meant ("算术强渡", "前缀缓纯", "张亮
                    # 并行"); another sound is another word: "注意力的变体", "注意力不集中", "主机内存
                    # 带来", "我在看推理…", "输出速度" are no slips of 注意力头, 内存带宽, 在线推理, 输出长度
                    continue
                if name is not None:
                    out[i : i + n] = list(name)
                    i += n
                    done = True
                    break
            if done:
                break
        if not done and i in bounds and i + 3 in bounds:
            name = _homophone(to_simplified("".join(out[i : i + 3])), zh) if i + 3 <= len(out) else None
            if name is not None:
                out[i : i + 3] = list(name)
                i += 3
                done = True
        if not done:
            i += 1
    return "".join(out)


def two_name_words(word: str, known: frozenset[str]) -> tuple[str, str] | None:
    """*word* (folded) as two glossary name words run together ("streamingllm" → streaming, llm),
    or None. Such a word is a new name built from known ones, not a typo of either."""
    for i in range(2, len(word) - 1):
        if word[:i] in known and word[i:] in known:
            return word[:i], word[i:]
    return None


_ABBR_NUMBER = re.compile(r"(?<![A-Za-z0-9])([A-Z]{2,4})(\d{1,3})(?![A-Za-z0-9])")


def _join_split_names(text: str, known: frozenset[str]) -> str:
    """A name word written apart ("Gated Delta Net" → "Gated DeltaNet", "Flash Attention" →
    FlashAttention): two Latin words that, run together, are a word of a glossary name of six
    letters or more, one of them not a name word itself; and a degree written onto an
    abbreviation ("TP8" → "TP 8") when the abbreviation is a name word and the whole is not."""

    words = list(re.finditer(r"[A-Za-z]{2,}", text))
    out, last = [], 0
    i = 0
    while i < len(words) - 1:
        a, b = words[i], words[i + 1]
        joined = (a.group(0) + b.group(0)).lower()
        if (
            text[a.end() : b.start()].isspace()
            and len(joined) >= 6
            and joined in known
            and not (a.group(0).lower() in known and b.group(0).lower() in known)
        ):
            out.append(text[last : a.end()])
            last = b.start()  # drop the space between them
            i += 2
            continue
        i += 1
    text = "".join(out) + text[last:]

    def split(m: re.Match[str]) -> str:
        whole, abbr = m.group(0).lower(), m.group(1).lower()
        return f"{m.group(1)} {m.group(2)}" if abbr in known and whole not in known else m.group(0)

    return _ABBR_NUMBER.sub(split, text)


ENGLISH_WORDS_PATH = Path(__file__).with_name("data") / "english_words.txt"


@lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """Plain English words of four letters or more (tests/data/make_english_words.py)."""
    return frozenset(ENGLISH_WORDS_PATH.read_text(encoding="utf-8").split())


def _inflects(word: str, known: frozenset[str]) -> bool:
    """*word* is a glossary name word with an inflection added or taken off ("prefixes" / prefix,
    "compiling" / compile, "format" / formats), not another word ("engineer" / engine)."""
    for end in ("s", "es", "ed", "d", "ing", "ies"):
        base = word[: -len(end)]
        if word.endswith(end) and (
            base in known or base + "e" in known or (end == "ies" and base + "y" in known)
        ):
            return True
    return any(word + end in known for end in ("s", "es"))


def _correct(word: str, known: frozenset[str], vocabulary: frozenset[str], choices: tuple[str, ...]) -> str:
    """*word*, or the glossary name word it misspells (see the module docstring)."""
    low = word.lower()
    if len(low) < 4 or low in known or low in vocabulary or not low.isalpha():
        return word
    if low in english_words() and not _inflects(low, known):
        return word  # "matching", "engineer", "interactive": words, not slips of batching, engine …
    # only a word written like a name (capitals after its first letter: "TTTF", "NVLnik"): plain
    # words one swap from a name word are words ("from" / form factor)
    swapped = _one_swap(low, known) if any(ch.isupper() for ch in word[1:]) else None
    if swapped is not None:
        return swapped  # "TTTF" → ttft, "NVLnik" → nvlink, "NCLL" → nccl
    from rapidfuzz import fuzz, process
    from rapidfuzz.distance import Levenshtein

    if len(low) >= 8:
        # one letter off a long name word is a typo even when it splits into two name words
        # ("PageAttention": page + attention, one letter off PagedAttention)
        near = [c for c in choices if abs(len(c) - len(low)) <= 1 and Levenshtein.distance(low, c) == 1]
        if len(near) == 1:
            return near[0]
    if len(low) < 5 or two_name_words(low, known) is not None:
        return word  # "StreamingLLM" is no typo of "streaming"

    # a misspelling keeps its first letter (first-letter errors are the rarest kind); a word that
    # does not is another word ("running" is no typo of "pruning")
    same_start = tuple(c for c in choices if c[0] == low[0])
    best = process.extractOne(low, same_start, scorer=fuzz.ratio, score_cutoff=85)
    return str(best[0]) if best else word


def _one_swap(low: str, known: frozenset[str]) -> str | None:
    """The one glossary name word *low* is with two neighbouring letters swapped (the first letter
    kept), or None: the commonest slip in typing a short name, which ratios of four-letter words
    cannot tell from another word."""
    found = {
        cand
        for i in range(1, len(low) - 1)
        if low[i] != low[i + 1] and (cand := low[:i] + low[i + 1] + low[i] + low[i + 2 :]) in known
    }
    return found.pop() if len(found) == 1 else None


@lru_cache(maxsize=8)
def _multiword_names(glossary: Glossary) -> tuple[frozenset[str], dict[str, tuple[str, ...]]]:
    """Folded Latin names of two or more words, and each first letter's name words."""
    names = {
        n
        for t in glossary.terms.values()
        for n in (fold(x) for x in t.all_names())
        if re.fullmatch(r"[a-z0-9][a-z0-9\-]*(?: [a-z0-9][a-z0-9\-]*)+", n)
    }
    words: dict[str, set[str]] = {}
    for n in names:
        for w in n.split():
            if len(w) >= 4 and w.isalpha():
                words.setdefault(w[0], set()).add(w)
    return frozenset(names), {k: tuple(sorted(v)) for k, v in words.items()}


def correct_in_names(text: str, glossary: Glossary) -> str:
    """A word one edit (a letter swapped, dropped, added or changed; the first kept) from a word of
    a multi-word glossary name, or cut short from one, when with its neighbour it then spells that
    name: "kv cashe" → "kv cache", "KV chache hit rate" → "KV cache hit rate", "asymmetric quant"
    → "asymmetric quantization". The neighbour decides, so a real word one
    edit from a name word ("latest", "latent") stays as it is elsewhere."""
    from rapidfuzz.distance import OSA

    names, by_letter = _multiword_names(glossary)
    if not names:
        return text
    spans = [(m.start(), m.end(), m.group(0)) for m in re.finditer(r"[A-Za-z][A-Za-z\-]*", text)]
    keys = [w.lower() for _, _, w in spans]
    out = text
    for i in reversed(range(len(spans))):
        low = keys[i]
        if len(low) < 4 or not low.isalpha() or low in by_letter.get(low[0], ()):
            continue  # too short, or already a word of a name ("cache" stays)
        fixes = set()
        for cand in by_letter.get(low[0], ()):
            # one edit, or the word cut short ("asymmetric quant" → "asymmetric quantization")
            if cand == low or (OSA.distance(low, cand) != 1 and not (len(low) >= 5 and cand.startswith(low))):
                continue
            before = f"{keys[i - 1]} {cand}" if i > 0 else ""
            after = f"{cand} {keys[i + 1]}" if i + 1 < len(keys) else ""
            if any(n == before or n.startswith(before + " ") for n in names if before) or any(
                n == after or n.startswith(after + " ") or n.endswith(" " + after) for n in names if after
            ):
                fixes.add(cand)
        if len(fixes) == 1:
            a, b, _ = spans[i]
            out = out[:a] + fixes.pop() + out[b:]
    return out


_CAPS_WORD = re.compile(r"[A-Z]{2,}")
_GRAMMAR_WORDS = frozenset(
    [
        "what",
        "how",
        "why",
        "which",
        "who",
        "when",
        "where",
        "is",
        "are",
        "was",
        "does",
        "do",
        "did",
        "can",
        "could",
        "should",
        "would",
        "will",
        "the",
        "and",
        "or",
        "of",
        "for",
        "to",
        "in",
        "on",
        "with",
        "from",
        "my",
        "our",
        "your",
        "this",
        "that",
        "it",
        "its",
        "between",
        "than",
    ]
)


def _unshout(text: str) -> str:
    """A question typed all in capitals, lower-cased.

    Names are matched with their case folded, but the reading of the question's shape is not:
    "WHAT IS THE OPENAI TRITON KERNEL LANGUAGE?" read as a row of acronyms was refused, while
    the same words in lower case are answered. Capitals count as shouting when the text has no
    lower-case Latin letter and uses at least one word of plain English grammar ("WHAT", "IS",
    "THE"); "TTFT VS TPOT" is a row of names and stays as typed.
    """
    if re.search(r"[a-z]", text):
        return text
    words = {w.lower() for w in _CAPS_WORD.findall(text)}
    return text.lower() if words & _GRAMMAR_WORDS else text


_WRAPPER = (
    r"(?:(?:can|could|would|will) you (?:please |pls )?(?:tell me|let me know|explain(?: to me)?)|do you know|"
    r"(?:does )?any(?:one|body) know|i (?:want|would like|'d like|need|wanna) to (?:know|understand)|"
    r"i(?:'m| am| was) (?:wondering|curious)|i wonder|please (?:tell me|explain)|tell me)"
)
# "Can you tell me what TTFT is?": the question a request wraps, in the order of a direct one
_EMBEDDED = re.compile(
    rf"^\s*{_WRAPPER}\s*[:,]?\s*(?P<wh>what|how)\s+(?P<x>.+?)\s+"
    r"(?P<verb>is|are|means|mean|stands for|stand for|works|work|does|do)\s*(?P<end>[?.!]*)\s*$",
    re.IGNORECASE,
)
_DIRECT_VERB = {
    ("what", "is"): "what is {x}",
    ("what", "are"): "what are {x}",
    ("what", "means"): "what does {x} mean",
    ("what", "mean"): "what do {x} mean",
    ("what", "stands for"): "what does {x} stand for",
    ("what", "stand for"): "what do {x} stand for",
    ("what", "does"): "what does {x} do",
    ("what", "do"): "what do {x} do",
    ("how", "works"): "how does {x} work",
    ("how", "work"): "how do {x} work",
}
# "Can you tell me: vLLM vs SGLang", "Could you explain TTFT vs TPOT?": the request itself says
# nothing of what is asked (an imperative after "could you" stays: "explain …")
_REQUEST = re.compile(
    rf"^\s*(?:{_WRAPPER}\s*(?:[:,]\s*|(?=(?:what|how|why|which|when|where|who|whether|if)\b))"
    r"|(?:can|could|would|will) you (?:please |pls )?(?=(?:explain|describe|compare|define|summari[sz]e|clarify)\b))",
    re.IGNORECASE,
)
# "What exactly is PagedAttention?", "How exactly does the SLO relate to the SLA?": an adverb of
# emphasis inside the frame
_FRAME_ADVERB = re.compile(
    r"\b(what|how|why|which|where|who)((?:'s|\s+(?:is|are|does|do|did|was|were))?)\s+(?:exactly|actually|really|precisely|basically)\b",
    re.IGNORECASE,
)


def direct_question(text: str) -> str:
    """*text* without a request wrapped around its question, in a direct question's word order
    ("Can you tell me what TTFT is?" → "what is TTFT?"), and without an adverb of emphasis in its
    frame ("What exactly is X?" → "What is X?"). The frames of the parse and the example
    questions of the search are direct questions."""
    m = _EMBEDDED.match(text)
    if m:
        form = _DIRECT_VERB.get((m.group("wh").lower(), m.group("verb").lower()))
        if form is not None:
            text = form.format(x=m.group("x")) + "?"
    else:
        text = _REQUEST.sub("", text, count=1)
    return _FRAME_ADVERB.sub(lambda m: m.group(1) + m.group(2), text)


def normalize(
    question: str,
    known_words: frozenset[str],
    vocabulary: frozenset[str] = frozenset(),
    glossary: Glossary | None = None,
) -> Question:
    """Cut, detect the script, reduce inflections of glossary words (see the module docstring)."""
    warnings: list[str] = []
    text = question.strip()
    if len(text) > MAX_QUESTION_CHARS:
        text = text[:MAX_QUESTION_CHARS]
        warnings.append(f"question truncated to {MAX_QUESTION_CHARS} characters")
    original = text
    text = direct_question(_unshout(text)) or text

    typed = text
    if glossary is not None:
        text = expand_acronyms(from_pinyin(text, glossary), glossary)
    pinyin = text != typed
    choices = tuple(sorted(w for w in known_words if w.isalpha() and len(w) >= 5))

    def reduce(m: re.Match[str]) -> str:
        word = m.group(0)
        if vocabulary:
            # the possessor is what may be misspelt ("Godhart's law"), not the possessive
            owner = _POSSESSIVE.sub("", word)
            word = _correct(owner, known_words, vocabulary, choices) + word[len(owner) :]
        stem = _POSSESSIVE.sub("", word)
        if stem != word and stem.lower() not in _CONTRACTIONS and fold(word) not in known_words:
            word = stem  # "vLLM's scheduler" → "vLLM scheduler" (not "what's", "it's")
        single = _singular(word, known_words)
        word = single if single is not None else word
        done = _agent_noun(word, known_words)
        return done if done is not None else word

    text = _join_split_names(text, known_words)
    text = _WORD.sub(reduce, text)
    if glossary is not None:
        text = correct_in_names(text, glossary)
    traditional = is_traditional(original)
    if traditional:
        text = from_taiwan(text, _zh_names(glossary).names if glossary is not None else ())
    else:
        # Taiwan wording typed in Simplified characters ("张量平行", "推论引擎")
        for tw, cn in _TW_WORDS_ANY_SCRIPT:
            text = text.replace(tw, cn)
    for pattern, name in _SHORT_FORMS:
        text = pattern.sub(name, text)
    if glossary is not None:
        text = correct_chinese(text, glossary)
    return Question(original, text, traditional, tuple(warnings), pinyin)
