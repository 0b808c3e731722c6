"""What the build does with imported entries once every source is parsed.

- :func:`file_topics`: an imported entry's category (a CSV ``category`` cell, a TBX
  ``subjectField``, a SKOS collection, a Markdown or Sphinx section title) files it under the topic
  of ``categories.json`` whose id or label it is (case-insensitively), unless the ``sections`` of
  ``categories.json`` map that category for the source. Anything else is reported, not guessed:
  the term is then filed by inference like any other uncategorised one.
- :func:`stated_edges`: every relation a file states (:class:`~kg.model.Mention`) becomes an edge
  to the one term its target names: first a label or abbreviation of an entry of the same file,
  then any name of any term of the corpus (:class:`kg.relations.Resolver`). A target no term has,
  or one that names several, is a :class:`~kg.parsers.common.SourceError` naming the file, the
  line and the column or element.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from kg.model import Edge, RawEntry, Term
from kg.parsers.common import SourceError
from kg.relations import EdgeSet, Resolver
from kg.textnorm import fold

STRONG = ("label", "abbr")


def file_topics(
    entries: Sequence[RawEntry],
    imported: Mapping[str, str],
    categories: Mapping[str, Any],
) -> tuple[dict[str, dict[str, str | None]], list[dict[str, Any]]]:
    """The section → topic map of the corpus with the imported sources' categories added, and a
    warning per category (per source) that names no topic.

    *imported* maps the ids of imported sources to their file names. Entries' ``section`` is set
    to the topic id it names, so that a definition's section reads as the topic.
    """
    sections: dict[str, dict[str, str | None]] = {k: dict(v) for k, v in categories["sections"].items()}
    by_name: dict[str, str] = {}
    for topic in categories["topics"]:
        by_name.setdefault(fold(topic["id"]), topic["id"])
        for label in topic.get("labels", {}).values():
            by_name.setdefault(fold(label), topic["id"])
    warnings: list[dict[str, Any]] = []
    reported: set[tuple[str, str]] = set()
    for e in entries:
        if e.source not in imported or not e.section:
            continue
        if e.section in categories["sections"].get(e.source, {}):
            continue  # mapped by categories.json
        own = sections.setdefault(e.source, {})
        # a bilingual title ("Hardware · 硬件", as our exports write them) names it by either half
        topic = next(
            (by_name[k] for k in (fold(e.section), *map(fold, e.section.split(" · "))) if k in by_name), None
        )
        if topic is None:
            if (e.source, e.section) not in reported:
                reported.add((e.source, e.section))
                warnings.append(
                    {
                        "source": e.source,
                        "file": imported[e.source],
                        "line": e.line,
                        "message": f"category {e.section!r} is not a topic of categories.json (an id or "
                        "a label), nor mapped in its 'sections': the term's topic is inferred",
                    }
                )
            continue
        e.section = topic
        own.setdefault(topic, topic)
    return sections, warnings


def stated_edges(
    entries: Sequence[RawEntry],
    entry_to_term: Mapping[int, str],
    terms: Sequence[Term],
    files: Mapping[str, str],
) -> tuple[list[Edge], list[dict[str, Any]]]:
    """The edges the imported files state, and a warning per statement that names its own term.

    *files* maps source ids to their paths (for errors). Overlay edge decisions and the merge with
    the edges the rules read happen afterwards, in the build.
    """
    if not any(e.mentions for e in entries):
        return [], []  # no imported file states a relation (the bundled corpus)
    own: dict[str, dict[str, set[str]]] = {}
    for i, e in enumerate(entries):
        tid = entry_to_term.get(i)
        if tid is None:
            continue
        for n in e.names:
            if n.kind in STRONG:
                own.setdefault(e.source, {}).setdefault(fold(n.text), set()).add(tid)
    resolver = Resolver(terms)
    said: list[tuple[int, int, Edge]] = []  # (file, line, statement): added in the files' order
    order = {s: k for k, s in enumerate(dict.fromkeys(e.source for e in entries))}
    warnings: list[dict[str, Any]] = []
    for i, e in enumerate(entries):
        owner = entry_to_term.get(i)
        if not e.mentions or owner is None:
            continue
        for m in e.mentions:
            line = m.line or e.line
            found = own.get(e.source, {}).get(fold(m.target)) or resolver.resolve(m.target)
            where = m.where or "relation"
            if not found:
                raise SourceError(files[e.source], line, f"{where}: no entry has the name {m.target!r}")
            if len(found) > 1:
                raise SourceError(
                    files[e.source],
                    line,
                    f"{where}: {m.target!r} names {len(found)} terms ({', '.join(sorted(found))}): "
                    "use a name only one of them has",
                )
            (other,) = found
            if other == owner:
                warnings.append(
                    {
                        "source": e.source,
                        "file": Path(files[e.source]).name,
                        "line": line,
                        "message": f"{where}: {m.target!r} is a name of the entry's own term: no edge",
                    }
                )
                continue
            said.append(
                (order[e.source], line, Edge(owner, other, m.kind, m.evidence, m.origin, e.source, line))
            )
    # the first statement of a pair heads its edge (within a rank, kg.relations.EdgeSet): the one
    # written first in the file (a JSON export lists an edge's evidence items in their order)
    edges = EdgeSet()
    for _, _, st in sorted(said, key=lambda x: x[:2]):
        edges.add(st.source, st.target, st.type, st.evidence, st.origin, st.doc, st.line)
    return edges.result(), warnings
