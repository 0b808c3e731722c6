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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

from kg.store import Glossary

T = TypeVar("T")

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
    out: list[T] = []
    with Path(path).open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                out.append(parse(json.loads(line)))
            except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
                raise ValueError(f"{path}:{lineno}: bad {what} record: {exc}") from exc
    return out


def load_queries(path: str | Path) -> list[Query]:
    """Read a JSON Lines dataset (blank lines skipped); ``ValueError`` names the bad line."""
    return read_jsonl(path, Query.from_dict, "query")


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
