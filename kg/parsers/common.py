"""Helpers shared by the per-layout parsers: errors, page furniture, name shapes."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from kg.model import Name, ParseIssue
from kg.textnorm import clean, has_cjk, has_latin

# Navigation labels, page headers and site chrome that several glossary pages
# carry. A line equal to one of these is furniture, never a term.
FURNITURE = frozenset(
    {
        "跳到正文",
        "外观",
        "术语表",
        "使用建议",
        "更新于",
        "目录",
        "返回顶部",
        "上一页",
        "下一页",
        "参考来源",
        "相关链接",
        "分享",
        "Skip to content",
        "Glossary",
    }
)

# Labels of a contact block. The line with the label and the value after it
# are dropped: personal contact details must never reach the graph.
CONTACT_LABELS = re.compile(
    r"^(联系人|联系方式|联系电话|电话|手机|邮箱|电子邮箱|邮件|微信|地址|传真|"
    r"contact|phone|tel|mobile|e-?mail|wechat|address|fax)\s*[:：]?\s*",
    re.IGNORECASE,
)
# An e-mail address is found from its "@" (see has_email): searching for the whole address
# pattern from every position was quadratic on long lines without one (100k characters: 63 s).
EMAIL_LOCAL_CHAR = re.compile(r"[\w.+-]")
EMAIL_DOMAIN = re.compile(r"[\w-]+(?:\.[\w-]+)+")
PHONE = re.compile(r"(?<![\w.])(\+?\d[\d\s\-()]{6,}\d)(?![\w.])")
URL = re.compile(r"https?://\S+")
# "PyTorch 2.x", "v2": a version qualifier in a gloss, not another name of the term.
VERSION = re.compile(r"\d+\.x\b|^v\d+$")


class SourceError(ValueError):
    """A source file that cannot be parsed; names the file and the 1-based line."""

    def __init__(self, file: str, line: int, message: str) -> None:
        super().__init__(f"{file}:{line}: {message}")
        self.file = file
        self.line = line
        self.message = message


def numbered_lines(text: str) -> Iterator[tuple[int, str]]:
    """(1-based line number, stripped line) for every line, blank lines included.

    The text itself is kept as written (full-width punctuation included): it is
    what definitions quote. Matching code normalises on its own copy.
    """
    for i, raw in enumerate(text.splitlines(), start=1):
        yield i, raw.replace("\u3000", " ").strip()


def has_email(line: str) -> bool:
    """True when *line* holds ``local@domain.tld``: an "@" with an address character before it
    and a dotted domain after it.

    Linear in the line's length: each "@" is looked at once, and the domain match after it
    stops at the first character that cannot be part of a domain (another "@" included).
    """
    at = line.find("@")
    while at != -1:
        if at > 0 and EMAIL_LOCAL_CHAR.match(line, at - 1) and EMAIL_DOMAIN.match(line, at + 1):
            return True
        at = line.find("@", at + 1)
    return False


def is_personal_data(line: str) -> bool:
    """True for a line holding an e-mail address or a phone number."""
    return has_email(line) or bool(PHONE.search(line))


# Terminal escape sequences (CSI "ESC [ … m", its one-byte form 0x9B, OSC "ESC ] … BEL" and
# two-character escapes) and the control characters left after them: NUL, C0 controls other
# than tab / line feed / carriage return, DEL and the C1 controls. None belongs in a glossary,
# and any of them could reach a terminal or a web page through a definition.
_CONTROL = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"  # CSI
    r"|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # OSC, to BEL / ST (or the line's end)
    r"|\x1b[@-Z\\-_]"  # two-character escapes
    r"|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]"
)


def strip_control(text: str) -> tuple[str, list[tuple[int, int]]]:
    """*text* without NUL, terminal escape sequences and other control characters, and the
    ``(1-based line, characters removed)`` of every line that had some. Lines are counted at
    ``\\n``, so a removed form feed or vertical tab never shifts the numbering."""
    if not _CONTROL.search(text):
        return text, []
    out: list[str] = []
    changed: list[tuple[int, int]] = []
    for i, line in enumerate(text.split("\n"), start=1):
        cleaned = _CONTROL.sub("", line)
        if len(cleaned) != len(line):
            changed.append((i, len(line) - len(cleaned)))
        out.append(cleaned)
    return "\n".join(out), changed


def strip_contact_blocks(
    lines: Iterable[tuple[int, str]], source: str
) -> tuple[list[tuple[int, str]], list[ParseIssue]]:
    """Drop contact blocks and any line carrying personal data.

    A contact label on its own line ("联系人", "电话") takes the next non-blank
    line (its value) with it; "邮箱: a@b.c" on one line is dropped whole. Lines
    that merely mention an e-mail address or phone number anywhere are dropped too.
    """
    kept: list[tuple[int, str]] = []
    skipped: list[ParseIssue] = []
    drop_next_value = False
    for no, line in lines:
        if not line:
            kept.append((no, line))
            continue
        m = CONTACT_LABELS.match(line)
        if m and len(line) <= 40:
            skipped.append(ParseIssue(source, no, "contact block", "<redacted>"))
            drop_next_value = not line[m.end() :].strip()
            continue
        if drop_next_value:
            drop_next_value = False
            skipped.append(ParseIssue(source, no, "contact block value", "<redacted>"))
            continue
        if is_personal_data(line) or (m and ("AI" in line or "自动" in line)):
            skipped.append(ParseIssue(source, no, "personal data / contact text", "<redacted>"))
            continue
        kept.append((no, line))
    return kept, skipped


def is_furniture(line: str) -> bool:
    """Site chrome: navigation labels, empty headings, lone dates."""
    s = line.strip()
    return s in FURNITURE or s.rstrip("：:") in FURNITURE


# --- name shapes -----------------------------------------------------------

_ABBR = re.compile(r"^[A-Za-z][A-Za-z0-9\-+/.&]*$")


def is_abbreviation(text: str) -> bool:
    """A mostly-capitals short form: TTFT, TP, HBM, RoPE, GB200 are; vLLM, cuDNN, OpenVINO are not.

    Mixed forms such as MoE are recognised later, against the entry's long form
    (:func:`is_acronym_of`)."""
    t = text.strip()
    if " " in t or not _ABBR.match(t) or len(t) > 10:
        return False
    letters = [c for c in t if c.isalpha()]
    if len(letters) < 2 or not t[0].isupper():
        return False
    upper = sum(c.isupper() for c in letters)
    return upper >= 2 and upper / len(letters) >= 0.75


def is_acronym_of(short: str, long: str) -> bool:
    """True when *short*'s letters spell *long* in order, starting with its first letter.

    ``MoE``/"Mixture of Experts", ``RoPE``/"Rotary positional embeddings" and
    ``VAE``/"variational autoencoder" are; ``VRAM``/"device memory" is not.
    """
    s = [c.lower() for c in short if c.isalpha()]
    long_letters = [c.lower() for c in long if c.isalpha()]
    if not s or not long_letters or s[0] != long_letters[0] or (len(long.split()) < 2 and "-" not in long):
        return False
    i = 0
    for c in long_letters:
        if i < len(s) and c == s[i]:
            i += 1
    return i == len(s)


def name(text: str, kind: str = "label") -> Name:
    """A :class:`Name` whose language follows its script."""
    text = clean(text)
    return Name(text=text, lang="zh" if has_cjk(text) else "en", kind=kind)  # type: ignore[arg-type]


def split_alternatives(text: str) -> list[str]:
    """Split "连续批处理 / 动态批处理" or "AOT 与 JIT" into its members (trimmed, non-empty)."""
    parts = re.split(r"\s*/\s*|\s+与\s+|\s*、\s*", text)
    return [p.strip() for p in parts if p.strip()]


def _comma_parts(text: str) -> list[str]:
    """Split "time-to-first-token, TTFT" or "Mixture of Experts,混合专家" at commas, but
    keep "single instruction, multiple threads" whole: a comma separates names only
    when a piece is an abbreviation or the pieces are in different scripts."""
    pieces = [p.strip() for p in re.split(r"[,，;；]", text) if p.strip()]
    if len(pieces) < 2:
        return pieces
    scripts = {has_cjk(p) for p in pieces}
    if len(scripts) > 1 or any(is_abbreviation(p) for p in pieces):
        return pieces
    return [text.strip()]


def name_pair(main: str, gloss: str | None) -> list[Name]:
    """Names of one term written "main（gloss）" (or "main(gloss)").

    The gloss may be the other language ("推理（inference）"), an abbreviation
    ("time-to-first-token, TTFT"), an expansion ("TTFT（Time To First Token）")
    or a list of alternatives ("连续批处理 / 动态批处理"). The first name of each
    language is the label, abbreviations are ``abbr``, later alternatives ``alias``.
    """
    out: list[Name] = []
    parts = _comma_parts(main)
    if gloss:
        parts += [p for p in _comma_parts(gloss) if not VERSION.search(p)]
    seen_lang: set[str] = set()
    for idx, part in enumerate(parts):
        alts = split_alternatives(part) if idx > 0 else [part]
        for j, alt in enumerate(alts):
            n = name(alt)
            if not n.text:
                continue
            if is_abbreviation(n.text) and n.lang == "en":
                out.append(Name(n.text, "en", "abbr"))
            elif n.lang in seen_lang or j > 0:
                out.append(Name(n.text, n.lang, "alias"))
            else:
                seen_lang.add(n.lang)
                out.append(Name(n.text, n.lang, "label"))
    # An abbreviation standing alone as the main name while an English long form
    # exists: "TTFT（Time To First Token）" → label "Time To First Token", abbr TTFT.
    return promote_labels(out)


def promote_labels(names: list[Name]) -> list[Name]:
    """Make sure every language present has one label; keep order, drop duplicates."""
    seen: set[str] = set()
    uniq: list[Name] = []
    for n in names:
        k = n.text.casefold()
        if k in seen:
            continue
        seen.add(k)
        uniq.append(n)
    has_label = {n.lang for n in uniq if n.kind == "label"}
    fixed: list[Name] = []
    for n in uniq:
        if n.kind == "alias" and n.lang not in has_label:
            has_label.add(n.lang)
            fixed.append(Name(n.text, n.lang, "label"))
        else:
            fixed.append(n)
    return fixed


def mixed_or_latin(text: str) -> bool:
    return has_latin(text)
