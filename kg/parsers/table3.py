"""Parser for a three-column table flattened to three lines per row (001_…).

After each header "Term / 中文理解 / 在推理系统里看什么" come rows of three lines:
the English term, "中文名：definition" (the Chinese name may be missing or be the
English term again) and a practical note. Blocks end at the next section heading
("四、GPU、…") or at a closing heading such as 参考来源.

The file also holds the whole article squashed into one line (title, headers and
every row run together). Any line that carries the header words run together is
such a copy and is dropped, so every row is read once.
"""

from __future__ import annotations

import re

from kg.model import Name, ParsedSource, ParseIssue, RawEntry
from kg.parsers.common import (
    SourceError,
    is_abbreviation,
    is_acronym_of,
    name,
    numbered_lines,
    promote_labels,
    split_alternatives,
    strip_contact_blocks,
)
from kg.parsers.statements import alias_statement, is_pure_pointer
from kg.textnorm import has_cjk

_SECTION = re.compile(r"^[一二三四五六七八九十百]+、\s*(?P<title>.+)$")
_CLOSING = re.compile(r"^(参考来源|参考资料|参考文献|References|延伸阅读)\s*$")
_NAME_SPLIT = re.compile(r"^(?P<name>[^：:。]{1,40}?)\s*[：:](?P<def>.+)$")
_ALSO_CALLED = re.compile(r"[，,]?\s*(?:也叫|又叫|又称|也称|亦称)\s*")


def _find_header(lines: list[tuple[int, str]], i: int) -> int | None:
    """Index of the first header line if lines[i:i+3] are the three column titles."""
    if i + 2 < len(lines):
        a, b, c = (lines[i + k][1] for k in range(3))
        if a.lower() in {"term", "术语", "英文"} and len(b) <= 12 and len(c) <= 16 and not _SECTION.match(b):
            return i
    return None


def _term_names(term: str) -> tuple[list[Name], str | None]:
    """Names of the English term cell and its disambiguating qualifier, if any.

    "Time to first token (TTFT)" → label + abbr; "VAE (variational autoencoder)" →
    abbr + expansion; "PyTorch compile (torch.compile)" → code alias;
    "Sampling (decode)" → label "Sampling (decode)" with qualifier "decode" (a
    qualifier is never an alias: Sampling (decode) ≠ Decode).
    """
    m = re.match(r"^(?P<main>.+?)\s*\((?P<p>[^()]+)\)(?P<tail>.*)$", term)
    if not m:
        return [name(term)], None
    main, paren, tail = m.group("main").strip(), m.group("p").strip(), m.group("tail").strip()
    if tail:  # "Local (edge) inference": qualifier inside the name
        plain = f"{main} {tail}"
        return [name(term), Name(plain, "en", "alias")], paren
    if is_acronym_of(paren, main):
        return [name(main), Name(paren, "en", "abbr")], None
    if is_abbreviation(main) and is_acronym_of(main, paren):
        return [Name(main, "en", "abbr"), name(paren)], None
    if re.fullmatch(r"[\w]+\.[\w.]+", paren):  # a code identifier such as torch.compile
        return [name(main), Name(paren, "en", "label")], None
    # A qualifier: the bare name is only a lookup alias (kind "alias" never merges),
    # so "Quantization (post-training)" does not become the generic Quantization.
    return [name(term), Name(main, "en", "alias")], paren


def _chinese_cell(cell: str) -> tuple[list[Name], str]:
    """Split "中文名：definition"; the name part may list 也叫 aliases or "A / B"."""
    m = _NAME_SPLIT.match(cell)
    if not m or ("，" in m.group("name") and not _ALSO_CALLED.search(m.group("name"))):
        return [], cell
    if "的" in m.group("name") or m.group("name").startswith("一"):
        # "一个有代表性的早期扩散图像 pipeline：…" is a description, not a name.
        return [], cell
    name_part, definition = m.group("name").strip(), m.group("def").strip()
    names: list[Name] = []
    parts = _ALSO_CALLED.split(name_part)
    head_alts = split_alternatives(parts[0])
    if len(head_alts) == 2 and len(head_alts[0]) < len(head_alts[1]) and has_cjk(head_alts[1]):
        # "本地 / 边缘推理": the shared head word applies to both
        from kg.parsers.gloss_lines import _distribute

        head_alts = _distribute(head_alts)
    for k, alt in enumerate(head_alts):
        n = name(alt)
        if not has_cjk(n.text):
            # "API：", "Tensor Core：", "EAGLE：": the row's own English name in the
            # name column — a strong name (it may merge), never the Chinese label.
            names.append(Name(n.text, "en", "label"))
        else:
            names.append(Name(n.text, "zh", "label" if k == 0 else "alias"))
    for extra in parts[1:]:
        for alt in split_alternatives(extra):
            names.append(Name(name(alt).text, name(alt).lang, "alias"))
    return names, definition


def parse_table3(text: str, source: str, file: str = "") -> ParsedSource:
    """Parse a flattened three-column glossary table (see module docstring)."""
    lines, skipped = strip_contact_blocks(numbered_lines(text), source)
    non_blank: list[tuple[int, str]] = []
    for no, ln in lines:
        if not ln:
            continue
        if re.search(r"Term\s*中文理解\s*在推理系统里看什么", ln) or len(ln) > 5000:
            skipped.append(ParseIssue(source, no, "squashed duplicate of the whole table", ln[:60]))
            continue
        non_blank.append((no, ln))
    if not non_blank:
        raise SourceError(file or source, 1, "empty source: no entries found")

    entries: list[RawEntry] = []
    section: str | None = None
    i = 0
    while i < len(non_blank):
        no, line = non_blank[i]
        sec = _SECTION.match(line)
        if sec:
            section = sec.group("title").strip()
            i += 1
            continue
        header = _find_header(non_blank, i)
        if header is None:
            reason = "closing section" if _CLOSING.match(line) else "prose outside the table"
            skipped.append(ParseIssue(source, no, reason, line[:60]))
            i += 1
            continue
        i += 3
        # rows until the next section heading / closing heading / header
        block_start = i
        while i < len(non_blank) and not (
            _SECTION.match(non_blank[i][1])
            or _CLOSING.match(non_blank[i][1])
            or _find_header(non_blank, i) is not None
        ):
            i += 1
        block = non_blank[block_start:i]
        if len(block) % 3:
            bad = block[(len(block) // 3) * 3][0] if block else no
            raise SourceError(
                file or source,
                bad,
                f"table block under section {section!r} has {len(block)} lines, not a multiple of 3 "
                "(term / 中文理解 / note)",
            )
        for r in range(0, len(block), 3):
            (tno, term), (_, cell), (_, note) = block[r : r + 3]
            if has_cjk(term) and not re.search(r"[A-Za-z]", term):
                raise SourceError(file or source, tno, f"expected an English term cell, got: {term[:40]}")
            names, qualifier = _term_names(term)
            zh_names, definition = _chinese_cell(cell)
            # The name column's English name ("Tensor Core") is preferred over a
            # qualified term ("Core (Tensor)").
            en_from_cell = [n for n in zh_names if n.lang == "en"]
            all_names = promote_labels(
                en_from_cell + names + [n for n in zh_names if n.lang == "zh"]
                if qualifier
                else names + zh_names
            )
            entry = RawEntry(
                source=source,
                line=tno,
                section=section,
                names=all_names,
                definition=definition,
                note=note,
                raw=f"{term}\n{cell}\n{note}",
            )
            stmt = alias_statement(definition)
            if stmt:
                entry.alias_of = stmt
                if is_pure_pointer(definition, stmt):
                    entry.definition = None
            if qualifier:
                entry.qualifier = qualifier
            entries.append(entry)
    if not entries:
        raise SourceError(file or source, non_blank[0][0], "no table rows found")
    return ParsedSource(source=source, entries=entries, skipped=skipped)
