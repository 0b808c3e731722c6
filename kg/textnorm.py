"""Text normalisation shared by ingestion, lookup and search.

Every comparison of names in the project goes through :func:`name_key` (loose,
for merging and lookup) or :func:`fold` (for indexing text), so that full/half
width, case, Traditional characters and spacing never decide a match.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_CJK_RANGES = (
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xF900, 0xFAFF),
    (0x20000, 0x2FA1F),
)

# Characters that separate words inside names but carry no meaning for matching.
_LOOSE_DROP = re.compile(r"[\s\-_‐‑‒–—·・.．/\\'’`\"“”()（）\[\]【】,，:：;；!！?？、]+")
_WS = re.compile(r"\s+")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# The same ranges as one character class: a regex scan is ~20x faster than a Python loop, and
# has_cjk / fold run on every name and question (the chat's refusal fit calls them ~1M times).
_CJK = re.compile("[" + "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _CJK_RANGES) + "]")
# a space with a CJK character on either side (fold drops it)
_CJK_SPACE = re.compile(f"(?<={_CJK.pattern}) | (?={_CJK.pattern})")


@lru_cache(maxsize=1)
def _t2s():  # pragma: no cover - trivial
    import opencc

    return opencc.OpenCC("t2s")


def is_cjk_char(ch: str) -> bool:
    """True for a CJK ideograph (Chinese character)."""
    cp = ord(ch)  # the common range first, no generator: this runs once per character
    return (
        0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0xF900 <= cp <= 0xFAFF or 0x20000 <= cp <= 0x2FA1F
    )


@lru_cache(maxsize=4096)
def readings(ch: str) -> frozenset[str]:
    """The tone-less pinyin readings of one Chinese character, every one it may take (empty for
    anything else): what a pinyin input method offers it for, so two characters sharing one are
    slips of each other (校/教 jiao)."""
    if not is_cjk_char(ch):
        return frozenset()
    from pypinyin import Style, pinyin

    return frozenset(pinyin(ch, style=Style.NORMAL, heteronym=True)[0])


def has_cjk(text: str) -> bool:
    """True when *text* contains at least one Chinese character."""
    return _CJK.search(text) is not None


def has_latin(text: str) -> bool:
    """True when *text* contains an ASCII letter."""
    return any("a" <= c.lower() <= "z" for c in text)


def lang_of(text: str) -> str:
    """Language of a name or sentence: ``zh`` when it has Chinese characters, else ``en``."""
    return "zh" if has_cjk(text) else "en"


def to_simplified(text: str) -> str:
    """Traditional → Simplified Chinese (OpenCC ``t2s``); Latin text is unchanged."""
    if not has_cjk(text):
        return text
    return str(_t2s().convert(text))


def clean(text: str) -> str:
    """NFKC (full width → half width), drop control characters, collapse white space."""
    text = unicodedata.normalize("NFKC", text)
    text = _CONTROL.sub(" ", text)
    return _WS.sub(" ", text).strip()


def fold(text: str) -> str:
    """Case-, width- and script-insensitive form of *text* for indexing and matching.

    Spaces between a Chinese character and a Latin one are removed, so that
    "首 token 延迟" and "首token延迟" fold alike; spaces between Latin words stay.
    """
    text = to_simplified(clean(text)).casefold()
    # Drop the space on either side of a CJK character: zh typography inserts it
    # between scripts, users often do not.
    return _CJK_SPACE.sub("", text) if " " in text else text


#: A Chinese character touching a Latin letter or digit ("报oom", "首token延迟", "FP8精度").
_SCRIPT_SEAM = re.compile(f"(?<={_CJK.pattern})(?=[A-Za-z0-9])|(?<=[A-Za-z0-9])(?={_CJK.pattern})")


def space_scripts(text: str) -> str:
    """*text* with a space wherever a Chinese character touches a Latin letter or digit.

    Chinese typography puts that space ("首 token 延迟"), users often leave it out, and
    :func:`fold` removes it. A sentence encoder reads "报oom" as one unknown piece and
    "报 oom" as the word it knows, so queries are encoded in the spaced form.
    """
    return _SCRIPT_SEAM.sub(" ", text)


def name_key(text: str) -> str:
    """Loose key of a term name: :func:`fold`, then spaces, hyphens and punctuation removed.

    "KV-Cache", "kv cache" and "ＫＶ　Ｃａｃｈｅ" share the key ``kvcache``. This is
    deliberately loose; the few distinct concepts it would join (TensorCore vs
    Tensor Core) are kept apart by the editorial overlay, not by this function.
    """
    return _LOOSE_DROP.sub("", fold(text))


def slugify(text: str) -> str:
    """ASCII slug for ids: lower case, runs of other characters become one hyphen."""
    text = clean(text).lower()
    text = text.replace("+", " plus ").replace("&", " and ")
    slug = re.sub(r"[^a-z0-9]+", "-", text).strip("-")
    return slug
