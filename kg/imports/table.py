"""CSV and TSV glossaries: one row per term, a header row naming the columns.

Columns (:data:`COLUMNS`; any order, header names case-insensitive, spaces and hyphens read as
``_``; at least one of ``en`` and ``zh``):

===================  =======================================================================
``en``, ``zh``       the term's label in English, in Chinese (a name's language is its
                     script: a second name in one script becomes an alias)
``aliases``          other names (list)
``abbreviation``     abbreviations, e.g. TTFT (list); abbreviations and labels merge entries
                     of every source, aliases never do
``definition``       the definition (its language is its script)
``definition_en``,   one more definition each, as the CSV export writes them
``definition_zh``
``note``             a note on ``definition`` (read for relations like a definition)
``source``           where the definitions come from (a source id, a document, a URL): the
                     definitions' ``source`` in the graph; empty → the manifest id of the file
``category``         topics (list): a topic id or label of ``categories.json``, or a name its
                     ``sections`` map for this source
``related``          names (or ids of this file) of related terms (list)
``confused_with``    names (or ids of this file) of terms people confuse with this one (list)
``id``               the row's id, for ``related`` / ``confused_with`` of other rows; the graph's
                     id still follows the id rules (a different one is reported)
``label_en_origin``  who gave that label: ``source`` (or empty), ``rule`` or ``editorial``, as
``label_zh_origin``  the CSV export writes them (:class:`kg.model.Name`)
``editorial_names``  names of the row only an editorial decision gives (list)
``kind``             ``defined`` (or empty), or ``mentioned``: a name definitions only mention,
                     not an entry (:mod:`kg.imports.records`: the build finds such names itself)
===================  =======================================================================

Lists are split at ``|`` or ``;`` (full-width ``｜`` ``；`` too), never at commas. The CSV
export's header (``label_en``, ``label_zh``, ``abbreviations``, ``categories``, ``sources``,
``mentioned_in``) is read too; its ``sources`` column (the term's sources, not the definitions')
and ``mentioned_in`` (places of the sources) are ignored.

Quoting follows RFC 4180 (``csv`` module, strict). A byte-order mark is skipped; blank rows are
skipped. Errors (:class:`~kg.parsers.common.SourceError`) name the line a row starts on and the
column: an unknown or repeated column, a row with more or fewer fields than the header, a quote
never closed, a row with no name, an id or a name given twice.
"""

from __future__ import annotations

import csv
import io
import re

from kg.imports.records import (
    Definition,
    Record,
    Statement,
    entry_kind,
    name_origin,
    one_line,
    split_list,
    to_parsed,
)
from kg.model import ParsedSource
from kg.parsers.common import SourceError

COLUMNS: tuple[str, ...] = (
    "en",
    "zh",
    "aliases",
    "abbreviation",
    "definition",
    "source",
    "category",
    "related",
    "confused_with",
    "definition_en",
    "definition_zh",
    "note",
    "id",
    "label_en_origin",
    "label_zh_origin",
    "editorial_names",
    "kind",
)
#: Header names of the CSV export (kg/export/csv_export.py) read as the column they hold.
SYNONYMS: dict[str, str] = {
    "label_en": "en",
    "label_zh": "zh",
    "abbreviations": "abbreviation",
    "categories": "category",
}
IGNORED: tuple[str, ...] = ("sources", "mentioned_in")
_IGNORED = "\x00ignored"  # a known column that is not read


def _column(cell: str) -> str:
    return re.sub(r"[\s\-]+", "_", cell.strip().lstrip("\ufeff").strip().lower())


def _header(row: list[str], line: int, file: str) -> list[str | None]:
    """Each field's column (None: ignored), checked: known, given once, en or zh present."""
    out: list[str | None] = []
    seen: dict[str, int] = {}
    for k, cell in enumerate(row, start=1):
        name = _column(cell)
        if not name:
            out.append(None)  # a nameless column may only hold empty cells (checked per row)
            continue
        col = SYNONYMS.get(name, name)
        if col in IGNORED:
            out.append(_IGNORED)
            continue
        if col not in COLUMNS:
            raise SourceError(
                file,
                line,
                f"column {k}: unknown column {cell.strip()!r} (known: {', '.join(COLUMNS)})",
            )
        if col in seen:
            raise SourceError(
                file, line, f"column {k}: {cell.strip()!r} repeats column {seen[col]} ({col!r})"
            )
        seen[col] = k
        out.append(col)
    if "en" not in seen and "zh" not in seen:
        raise SourceError(file, line, "the header names no 'en' and no 'zh' column: a term needs a name")
    return out


def parse_table(text: str, source: str, file: str = "", delimiter: str = ",") -> ParsedSource:
    """Parse a CSV (or, with ``delimiter="\\t"``, TSV) glossary (see module docstring)."""
    file = file or source
    kind = "tab" if delimiter == "\t" else "comma"
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff"), newline=""), delimiter=delimiter, strict=True)
    header: list[str | None] | None = None
    records: list[Record] = []
    end = 0
    while True:
        start = end + 1
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise SourceError(
                file, start, f"malformed row: {exc} (a quote opened and never closed?)"
            ) from exc
        end = reader.line_num
        if not any(cell.strip() for cell in row):
            continue
        if header is None:
            header = _header(row, start, file)
            continue
        if len(row) < len(header):
            missing = [c or f"column {k + 1}" for k, c in enumerate(header) if k >= len(row)]
            raise SourceError(
                file,
                start,
                f"malformed row: {len(row)} fields, the header has {len(header)} "
                f"(missing: {', '.join(missing)}); end the row with empty fields",
            )
        for k, cell in enumerate(row):
            if (k >= len(header) or header[k] is None) and cell.strip():
                why = "has no column" if k >= len(header) else "is under a column with no name"
                raise SourceError(
                    file,
                    start,
                    f"malformed row: field {k + 1} ({cell.strip()[:40]!r}) {why} "
                    f"(a {kind} inside a cell that is not quoted?)",
                )
        cells = {col: row[k].strip() for k, col in enumerate(header) if col is not None and col != _IGNORED}
        records.append(_record(cells, start, file))
    if header is None:
        raise SourceError(file, 1, "no header row: the first row names the columns (en, zh, definition, …)")
    return to_parsed(records, source, file)


def _record(cells: dict[str, str], line: int, file: str) -> Record:
    r = Record(line=line, what="row")
    for col in ("en", "zh"):
        origin = name_origin(cells.get(f"label_{col}_origin", ""), f"column 'label_{col}_origin'", file, line)
        if cells.get(col):
            r.add_name(cells[col], "label", f"column {col!r}", file, origin=origin)
    for item in split_list(cells.get("abbreviation", "")):
        r.add_name(item, "abbr", "column 'abbreviation'", file)
    for item in split_list(cells.get("aliases", "")):
        r.add_name(item, "alias", "column 'aliases'", file)
    if not r.names:
        given = [c for c in ("aliases",) if cells.get(c)]
        hint = " (aliases alone do not name a term)" if given else ""
        raise SourceError(file, line, f"column 'en' and column 'zh': both empty, the row names no term{hint}")
    r.mark_editorial(split_list(cells.get("editorial_names", "")), "column 'editorial_names'", file)
    r.mentioned = entry_kind(cells.get("kind", ""), "column 'kind'", file, line)
    if cells.get("id"):
        r.key, r.key_where, r.key_is_id = cells["id"], "column 'id'", True
    cites = cells.get("source") or None
    for col in ("definition", "definition_en", "definition_zh"):
        if cells.get(col):
            note = (cells.get("note") or None) if not r.definitions else None
            r.definitions.append(Definition(one_line(cells[col]), line, cites, note))
    if cells.get("note") and not r.definitions:
        raise SourceError(file, line, "column 'note': a note needs a definition in the same row")
    r.categories = split_list(cells.get("category", ""))
    for col, kind in (("related", "related_to"), ("confused_with", "confused_with")):
        for item in split_list(cells.get(col, "")):
            r.statements.append(
                Statement(kind, item, line, f"column {col!r}", key=item, evidence=f"{col}: {item}")  # type: ignore[arg-type]
            )
    return r


def parse_csv(text: str, source: str, file: str = "") -> ParsedSource:
    """A comma-separated glossary (:func:`parse_table`)."""
    return parse_table(text, source, file, ",")


def parse_tsv(text: str, source: str, file: str = "") -> ParsedSource:
    """A tab-separated glossary (:func:`parse_table`)."""
    return parse_table(text, source, file, "\t")
