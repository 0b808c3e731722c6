"""The labelled retrieval queries and the resolution of their gold names to term ids.

A line of ``tests/data/retrieval_dev.jsonl`` names ONE target concept by several
acceptable names (``gold``). :func:`resolve_gold` turns those names into the single
term id a system must return, through :meth:`kg.store.Glossary.lookup`. A query whose
names reach no term, or more than one term, is returned as a :class:`GoldProblem`
(never dropped silently) so that the dataset or the graph can be fixed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, TypeVar

from kg.store import Glossary

T = TypeVar("T")

DATA_DIR = Path(__file__).resolve().parents[2] / "tests" / "data"
#: Issue 14's blind test split: the two files ``glossary eval --section retrieval-test`` evaluates
#: as one dataset. Nothing is tuned on them (see :func:`blind_split_overlap`).
TEST_SPLIT: tuple[Path, ...] = (DATA_DIR / "retrieval_test.jsonl", DATA_DIR / "retrieval_holdout.jsonl")

ProblemReason = Literal["unresolved", "ambiguous"]


@dataclass(frozen=True)
class Query:
    """One labelled query as stored in the dataset."""

    id: str
    query: str
    kind: str
    lang: str
    gold: tuple[str, ...]
    note: str | None = None

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Query:
        """Build from one decoded JSON line; ``KeyError``/``ValueError`` on a malformed record."""
        gold = raw["gold"]
        if isinstance(gold, str) or not gold:
            raise ValueError(f"query {raw.get('id')!r}: gold must be a non-empty list of names")
        return cls(
            id=str(raw["id"]),
            query=str(raw["query"]),
            kind=str(raw["kind"]),
            lang=str(raw["lang"]),
            gold=tuple(str(n) for n in gold),
            note=raw.get("note"),
        )


@dataclass(frozen=True)
class ResolvedQuery:
    """A query whose gold names all designate the same single term."""

    query: Query
    term_id: str

    @property
    def id(self) -> str:
        return self.query.id

    @property
    def text(self) -> str:
        return self.query.query

    @property
    def kind(self) -> str:
        return self.query.kind

    @property
    def lang(self) -> str:
        return self.query.lang


@dataclass(frozen=True)
class GoldProblem:
    """A query whose gold names do not resolve to exactly one term.

    ``resolved`` maps every gold name to the term ids it reached (empty when none);
    ``reason`` is ``"unresolved"`` when some name reaches no term and ``"ambiguous"``
    when the names reach several terms (both may hold; ``ambiguous`` wins then).
    """

    query_id: str
    names: tuple[str, ...]
    resolved: dict[str, tuple[str, ...]] = field(default_factory=dict)
    reason: ProblemReason = "unresolved"

    @property
    def term_ids(self) -> tuple[str, ...]:
        """Every term id reached by any gold name, in first-seen order."""
        return tuple(dict.fromkeys(t for ids in self.resolved.values() for t in ids))

    def describe(self) -> str:
        """One human-readable line: id, reason, and what each name resolved to."""
        parts = [
            f"{name!r} -> {', '.join(ids) if ids else '(nothing)'}" for name, ids in self.resolved.items()
        ]
        return f"{self.query_id} [{self.reason}]: " + "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.query_id,
            "reason": self.reason,
            "names": list(self.names),
            "resolved": {n: list(ids) for n, ids in self.resolved.items()},
        }


def read_jsonl(path: str | Path, parse: Callable[[Any], T], what: str) -> list[T]:
    """Parse each non-blank line of a JSON Lines file; ``ValueError`` names the bad line."""
    return [item for _, item in read_jsonl_numbered(path, parse, what)]


def read_jsonl_numbered(path: str | Path, parse: Callable[[Any], T], what: str) -> list[tuple[int, T]]:
    """:func:`read_jsonl` with the line number (from 1) of each record."""
    out: list[tuple[int, T]] = []
    with Path(path).open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                out.append((lineno, parse(json.loads(line))))
            except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
                raise ValueError(f"{path}:{lineno}: bad {what} record: {exc}") from exc
    return out


def load_queries(path: str | Path) -> list[Query]:
    """Read a JSON Lines dataset (blank lines skipped); ``ValueError`` names the bad line.

    A query id used twice in the file is an error too, naming both lines.
    """
    return [q for _, q in _load_numbered(path)]


def _load_numbered(path: str | Path) -> list[tuple[int, Query]]:
    """The queries of *path* with their line numbers; ``ValueError`` on a bad line or a repeated id."""
    numbered = read_jsonl_numbered(path, Query.from_dict, "query")
    first: dict[str, int] = {}
    for lineno, q in numbered:
        if q.id in first:
            raise ValueError(f"{path}:{lineno}: duplicate query id {q.id!r} (first on line {first[q.id]})")
        first[q.id] = lineno
    return numbered


@dataclass(frozen=True)
class QueryFile:
    """One file of a :func:`load_query_files` union: its path as given and how many queries it holds."""

    path: str
    queries: int

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "queries": self.queries}


def load_query_files(paths: Sequence[str | Path]) -> tuple[list[Query], list[QueryFile]]:
    """Read several JSON Lines datasets as one: their queries in file order, and each file's count.

    Ids stay unique across the union: an id found in more than one file is prefixed, in every file
    that uses it, with the file's stem (``retrieval_holdout:h001``); an id found in one file only is
    kept as it is. ``ValueError`` names the file and line of a malformed record, of an id used twice
    in one file, and of an id still shared after prefixing (two files with the same stem); it names
    the file given twice, or missing or unreadable, too.
    """
    if not paths:
        raise ValueError("no query file given")
    given: dict[Path, str] = {}
    loaded: list[tuple[str, list[tuple[int, Query]]]] = []
    for path in paths:
        key = Path(path).resolve()
        if key in given:
            raise ValueError(f"{path}: query file given twice (also as {given[key]})")
        given[key] = str(path)
        try:
            loaded.append((str(path), _load_numbered(path)))
        except OSError as exc:
            raise ValueError(f"{path}: cannot read the query file ({exc.strerror or exc})") from exc
    files_of: dict[str, set[str]] = {}
    for name, numbered in loaded:
        for _, q in numbered:
            files_of.setdefault(q.id, set()).add(name)
    out: list[Query] = []
    where: dict[str, str] = {}
    for name, numbered in loaded:
        for lineno, q in numbered:
            qid = f"{Path(name).stem}:{q.id}" if len(files_of[q.id]) > 1 else q.id
            if qid in where:
                raise ValueError(f"{name}:{lineno}: query id {qid!r} is also used at {where[qid]}")
            where[qid] = f"{name}:{lineno}"
            out.append(replace(q, id=qid))
    return out, [QueryFile(name, len(numbered)) for name, numbered in loaded]


def name_term_ids(glossary: Glossary, name: str, *, prefer_exact: bool = True) -> tuple[str, ...]:
    """Term ids a gold name designates, in lookup order.

    With ``prefer_exact`` (the default) the loose hits of :meth:`Glossary.lookup`
    (spacing/hyphen-insensitive key) count only when the name has no exact hit: the
    dataset keeps "Tensor Core" (NVIDIA) and "TensorCore" (TPU) apart, and so must
    the grader. With ``prefer_exact=False`` every hit counts.
    """
    hits = glossary.lookup(name)
    if prefer_exact:
        exact = [h for h in hits if not h.match.endswith("(loose)")]
        hits = exact or hits
    return tuple(dict.fromkeys(h.term.id for h in hits))


def resolve_gold(
    glossary: Glossary, queries: Iterable[Query], *, prefer_exact: bool = True
) -> tuple[list[ResolvedQuery], list[GoldProblem]]:
    """Resolve each query's gold names to one term id.

    A query is resolved when every gold name reaches at least one term and all names
    together reach exactly one term. Otherwise it is reported as a :class:`GoldProblem`
    and left out of the resolved list. Input order is kept in both lists.
    """
    resolved: list[ResolvedQuery] = []
    problems: list[GoldProblem] = []
    for q in queries:
        by_name = {name: name_term_ids(glossary, name, prefer_exact=prefer_exact) for name in q.gold}
        ids = _union(by_name.values())
        if len(ids) == 1 and all(by_name.values()):
            resolved.append(ResolvedQuery(q, ids[0]))
            continue
        reason: ProblemReason = "ambiguous" if len(ids) > 1 else "unresolved"
        problems.append(GoldProblem(q.id, q.gold, by_name, reason))
    return resolved, problems


def _union(groups: Iterable[Sequence[str]]) -> list[str]:
    return list(dict.fromkeys(t for ids in groups for t in ids))


def _text_key(text: str) -> str:
    return " ".join(text.split()).casefold()


def blind_split_overlap(
    queries: Iterable[Query], split: Sequence[str | Path] = TEST_SPLIT
) -> tuple[list[Query], list[Query]]:
    """The queries of *queries* that come from the blind test split, and those that only share its text.

    The first list holds copies of test-split records (same id and same text: training on them would
    tune on the test split); the second, queries written separately whose text (spacing and case
    ignored) is also a test-split query's, such as a bare abbreviation written in both. A missing
    split file counts as empty.
    """
    ids: set[tuple[str, str]] = set()
    texts: set[str] = set()
    for path in split:
        if Path(path).is_file():
            for q in load_queries(path):
                ids.add((q.id, _text_key(q.query)))
                texts.add(_text_key(q.query))
    copied: list[Query] = []
    same_text: list[Query] = []
    for q in queries:
        key = _text_key(q.query)
        if (q.id, key) in ids:
            copied.append(q)
        elif key in texts:
            same_text.append(q)
    return copied, same_text


def unseen_queries(queries: Sequence[Query], seen: Iterable[Query]) -> tuple[list[Query], list[Query]]:
    """*queries* without those whose text (spacing and case ignored) is in *seen* or earlier in
    *queries*: an evaluation split must not score a query the systems were tuned on ("EP" written
    in both the dev and the test split), nor count one query twice. Returns (kept, left out)."""
    known = {_text_key(q.query) for q in seen}
    kept: list[Query] = []
    left: list[Query] = []
    for q in queries:
        key = _text_key(q.query)
        (left if key in known else kept).append(q)
        known.add(key)
    return kept, left
