"""Read-side Python API over a built artifact: the graph that ``api/`` calls.

>>> g = Glossary.load("build/artifact")          # doctest: +SKIP
>>> g.lookup("ttft")[0].id                       # doctest: +SKIP
'time-to-first-token'

The graph is a :class:`networkx.MultiGraph` whose edge keys are (type, source,
target), so one pair of terms can hold a ``confused_with`` edge and
``related_to`` edges in either direction. ``related_to``
keeps its direction as edge data (``source``/``target``). A term without edges is not a
node of it. The methods below walk the same adjacency without networkx, which is imported
(~15 MB) and the graph built only when :attr:`Glossary.graph` is first asked for.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.detached import FieldSharer, detached
from kg.errors import ArtifactError, TermNotFound
from kg.model import EDGE_TYPES, Edge, Term
from kg.nametable import NameTable
from kg.textnorm import fold, name_key

if TYPE_CHECKING:
    import networkx as nx

#: term id -> neighbour id -> edge key (type, source, target) -> edge, in the order networkx
#: keeps a MultiGraph's adjacency
#: What separates the parts of a jointly stated heading: "A / B", "A 与 B", "A、B".
_JOINT = re.compile(r"\s*(?:/|／|、|\s与\s|与)\s*")

_Adjacency = dict[str, dict[str, dict[tuple[str, str, str], Edge]]]


def _kinds_and_names(t: Term) -> tuple[tuple[str, Iterable[str]], ...]:
    return (("label", t.labels.values()), ("abbreviation", t.abbreviations), ("alias", t.aliases))


#: List and dict fields of :class:`Term` that are mostly empty, and those whose values recur.
_EMPTY_OFTEN = ("aliases", "abbreviations", "entry_keys", "editorial_names", "mentioned_in")
_REPEATED = ("categories", "sources", "label_origin")


@dataclass(frozen=True)
class LookupHit:
    """A term found by name, and how the name matched."""

    term: Term
    name: str
    match: str  # preferred-label | label | abbreviation | alias (each exact or loose) | joint


class Glossary:
    """The term graph loaded in memory, with lookups by id and by name."""

    def __init__(
        self,
        document: dict[str, Any],
        artifact_dir: Path | None = None,
        *,
        on_step: Callable[[str], None] | None = None,
        document_sha256: str | None = None,
    ) -> None:
        """Build the graph and name tables from a graph *document*; *on_step* (memory
        benchmarks, :mod:`kg.bench.memory_bench`) is called after each structure is built.

        *document_sha256*: the digest of ``graph.json`` in *artifact_dir* that *document* was
        parsed from. The glossary then does not keep the document (see :attr:`document`).
        """
        step = on_step or (lambda _name: None)
        keep = document_sha256 is None or artifact_dir is None
        self._document: dict[str, Any] | None = document if keep else None
        self._document_sha256 = None if keep else document_sha256
        self.artifact_dir = artifact_dir
        # A dropped document is garbage once the terms are built: what they keep must not come
        # from it (see detached). Its terms are read-only: equal values of their often empty or
        # recurring fields are one shared read-only list or dict.
        own: Callable[[Any], Any] = (lambda v: v) if keep else detached
        sharer = FieldSharer(_EMPTY_OFTEN, _REPEATED)
        self.terms: dict[str, Term] = {}
        for raw in document["nodes"]:
            t = Term.from_dict(own(raw))
            self.terms[t.id] = t if keep else sharer.share(t)
        # former id → current id (kg/ids.py); a current id always wins over an alias
        self.id_aliases: dict[str, str] = dict(own(document.get("id_aliases") or {}))
        self.edges: list[Edge] = [Edge.from_dict(own(e)) for e in document["edges"]]
        self.sources: dict[str, dict[str, Any]] = {s["id"]: s for s in own(document.get("sources", []))}
        self.categories: dict[str, dict[str, Any]] = {c["id"]: c for c in own(document.get("categories", []))}
        step("terms")
        # Only terms with edges are nodes: an isolated node costs ~200 bytes (two dicts) and most
        # terms of a large glossary have no edge (the methods below treat a missing node as isolated).
        self._adj: _Adjacency = {}
        for e in self.edges:
            # key (type, source, target): one pair may hold related_to both ways and confused_with;
            # a later edge of the same key replaces the earlier one (as MultiGraph.add_edge does)
            key = (e.type, e.source, e.target)
            self._adj.setdefault(e.source, {}).setdefault(e.target, {})[key] = e
            self._adj.setdefault(e.target, {}).setdefault(e.source, {})[key] = e
        self._graph: nx.MultiGraph | None = None
        step("graph")
        self._defined: Glossary | None = None
        # folded name / loose key -> ids of the terms named so, as compact sorted tables
        # (kg/nametable.py: ~8 MB each at 100k terms where dicts of strings took ~16). The names
        # are read back from the terms (_expand): no (term id, name, kind) tuple per name.
        ids = list(self.terms)
        self._names = NameTable(((fold(n), i) for i, n in self._all_names()), ids)
        self._loose = NameTable(((name_key(n), i) for i, n in self._all_names()), ids)
        step("names")

    def _all_names(self) -> Iterator[tuple[int, str]]:
        """(term number, name) of every label, abbreviation and alias, term by term."""
        for i, t in enumerate(self.terms.values()):
            for _kind, term_names in _kinds_and_names(t):
                for n in term_names:
                    yield i, n

    # --- loading ----------------------------------------------------------
    @classmethod
    def load(cls, artifact_dir: str | Path) -> Glossary:
        """Load ``graph.json`` from an artifact directory written by ``glossary build``.

        A published artifact (a symlink to its current version) is resolved once: ``artifact_dir``
        of the result is that version's directory, so that whatever else is loaded from it comes
        from the same build. The graph must be whole and match its checksum in ``manifest.json``
        (:func:`kg.verify.read_graph`); otherwise :class:`ArtifactError` names ``graph.json``
        (relative, never an absolute path). The rest of the artifact is checked by
        :func:`kg.verify.check_artifact`.
        """
        from kg.verify import read_graph_checked, resolve_artifact

        root = resolve_artifact(artifact_dir)
        doc, digest = read_graph_checked(root)
        try:
            return cls(doc, root, document_sha256=digest)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:  # what the shape check missed
            raise ArtifactError(f"graph.json: malformed ({type(exc).__name__}: {exc})") from None

    @property
    def document(self) -> dict[str, Any]:
        """The graph document (``graph.json``) this glossary was made from.

        A glossary loaded from an artifact (:meth:`load`) does not keep it: at 100k terms the
        parsed JSON takes ~250 MB beside the Term objects made from it, and only exports and
        their tags read it. It is read again from the artifact, and must be the same file
        (:class:`ArtifactError` otherwise); callers that need it more than once keep it.
        """
        if self._document is not None:
            return self._document
        from kg.verify import read_graph

        assert self.artifact_dir is not None  # a dropped document always has its artifact
        return read_graph(self.artifact_dir, expect_sha256=self._document_sha256)

    def defined_view(self) -> Glossary:
        """The graph without its mentioned-only nodes (:mod:`kg.mentioned`) and their edges.

        The chatbot reasons over defined terms (what it quotes, what it lists as related) and
        looks at mentioned nodes only to say that a name is not defined. Built once, then the
        same object (the caches keyed by glossary keep working); ``self`` when there are none.
        """
        if self._defined is None:
            if all(t.defined for t in self.terms.values()):
                self._defined = self
            else:
                keep = {t.id for t in self.terms.values() if t.defined}
                whole = self.document
                doc = {
                    **whole,
                    "nodes": [n for n in whole["nodes"] if n["id"] in keep],
                    "edges": [e for e in whole["edges"] if e["source"] in keep and e["target"] in keep],
                }
                self._defined = Glossary(doc, self.artifact_dir)
        return self._defined

    # --- by id --------------------------------------------------------------
    def get(self, term_id: str) -> Term:
        """The term with this id; :class:`TermNotFound` (with suggestions) otherwise."""
        try:
            return self.terms[term_id]
        except KeyError:
            raise TermNotFound(term_id, self.suggest_ids(term_id)) from None

    def current_id(self, term_id: str) -> str | None:
        """The current id of a term known by *term_id*, its current id or a former one
        (``id_aliases``); None when no term has it."""
        if term_id in self.terms:
            return term_id
        new = self.id_aliases.get(term_id)
        return new if new in self.terms else None

    def moved_to(self, term_id: str) -> str | None:
        """The current id when *term_id* is a former id of a term (not a current one), else None."""
        return None if term_id in self.terms else self.current_id(term_id)

    def __contains__(self, term_id: object) -> bool:
        return term_id in self.terms

    def __len__(self) -> int:
        return len(self.terms)

    # --- by name ------------------------------------------------------------
    def lookup(self, text: str, lang: str | None = None) -> list[LookupHit]:
        """Terms named *text*, best first.

        Order: preferred label in *lang*; any label, case/width/script-insensitive;
        abbreviations; aliases; then the same on the loose key (spacing, hyphens).
        """
        f = fold(text)
        hits: list[tuple[tuple[int, int], LookupHit]] = []
        seen: set[str] = set()
        rank = {"label": 1, "abbreviation": 2, "alias": 3}
        for table, offset in ((self._names, 0), (self._loose, 10)):
            key = f if offset == 0 else name_key(text)
            for tid, n, kind in self._expand(table, key, fold if offset == 0 else name_key):
                if tid in seen:
                    continue
                t = self.terms[tid]
                r = rank[kind]
                if kind == "label" and lang and fold(t.labels.get(lang, "")) == key:
                    r = 0
                if kind == "label" and r == 1 and fold(t.label(lang or "en")) == key:
                    r = 0
                hits.append(((offset + r, len(hits)), LookupHit(t, n, self._match_name(kind, r, offset))))
            seen.update(h.term.id for _, h in hits)
        hits.sort(key=lambda x: x[0])
        if not hits:
            return self._joint_lookup(text, lang)
        return [h for _, h in hits]

    def _joint_lookup(self, text: str, lang: str | None) -> list[LookupHit]:
        """A heading the sources state jointly ("AOT 与 JIT", "AllReduce / AllGather / All-to-All")
        names each of its parts; only when every part is a name (match ``joint``)."""
        parts = [p for p in _JOINT.split(text.strip()) if p.strip()]
        if len(parts) < 2:
            return []
        out: list[LookupHit] = []
        for part in parts:
            found = self.lookup(part, lang)
            if not found:
                return []
            if all(h.term.id != found[0].term.id for h in out):
                out.append(LookupHit(found[0].term, found[0].name, "joint"))
        return out

    @staticmethod
    def _match_name(kind: str, rank: int, offset: int) -> str:
        base = "preferred-label" if rank == 0 else kind
        return base if offset == 0 else f"{base} (loose)"

    def names(self) -> Iterable[tuple[str, str, str]]:
        """(term id, name, kind) for every label, abbreviation and alias."""
        for key in self._names:
            yield from self._expand(self._names, key, fold)

    def _expand(
        self, table: NameTable, key: str, key_of: Callable[[str], str]
    ) -> Iterator[tuple[str, str, str]]:
        """(term id, name, kind) of each name whose *key_of* is *key*, in the order they were added."""
        for tid in table.get(key):
            t = self.terms[tid]
            for kind, term_names in _kinds_and_names(t):
                for n in term_names:
                    if key_of(n) == key:
                        yield tid, n, kind

    def suggest_ids(self, text: str, limit: int = 5) -> list[str]:
        """Nearest term ids for an unknown id or name (rapidfuzz over names and ids)."""
        from rapidfuzz import fuzz, process

        choices = {fold(n): tid for tid, n, _ in self.names()}
        choices.update({tid: tid for tid in self.terms})
        out: list[str] = []
        for key, _score, _ in process.extract(fold(text), list(choices), scorer=fuzz.WRatio, limit=limit * 3):
            tid = choices[key]
            if tid not in out:
                out.append(tid)
            if len(out) == limit:
                break
        return out

    # --- graph ---------------------------------------------------------------
    @property
    def graph(self) -> nx.MultiGraph:
        """The terms with edges as a :class:`networkx.MultiGraph` (see the module docstring),
        built when first asked for."""
        if self._graph is None:
            import networkx as nx

            graph = nx.MultiGraph()
            for e in self.edges:
                graph.add_edge(e.source, e.target, key=(e.type, e.source, e.target), edge=e)
            self._graph = graph
        return self._graph

    def edges_of(self, term_id: str, types: Iterable[str] = EDGE_TYPES) -> list[Edge]:
        """Edges touching a term, filtered by type."""
        self.get(term_id)
        nbrs = self._adj.get(term_id)
        if nbrs is None:
            return []
        wanted = set(types)
        out = [e for keyed in nbrs.values() for key, e in keyed.items() if key[0] in wanted]
        return sorted(out, key=lambda e: (e.type, e.source, e.target))

    def neighbours(self, term_id: str, types: Iterable[str] = EDGE_TYPES, depth: int = 1) -> dict[str, int]:
        """Term ids within *depth* hops over the given edge types → their distance."""
        self.get(term_id)
        if term_id not in self._adj:
            return {}
        wanted = set(types)
        dist = {term_id: 0}
        frontier = [term_id]
        for d in range(1, depth + 1):
            nxt = []
            for node in frontier:
                for other, keyed in self._adj[node].items():
                    for key in keyed:
                        if key[0] in wanted and other not in dist:
                            dist[other] = d
                            nxt.append(other)
            frontier = nxt
        dist.pop(term_id)
        return dist

    def related(self, term_id: str) -> list[Edge]:
        return self.edges_of(term_id, ("related_to",))

    def confusables(self, term_id: str) -> list[Edge]:
        """``confused_with`` edges of a term, each with the sources' evidence."""
        return self.edges_of(term_id, ("confused_with",))

    def shortest_path(self, a: str, b: str, types: Iterable[str] = EDGE_TYPES) -> list[str] | None:
        """Term ids on a shortest path from *a* to *b*, or None when not connected."""
        self.get(a)
        self.get(b)
        if a not in self._adj or b not in self._adj:  # an isolated term
            return [a] if a == b else None
        import networkx as nx

        wanted = set(types)
        view = nx.subgraph_view(self.graph, filter_edge=lambda u, v, k: k[0] in wanted)
        try:
            return list(nx.shortest_path(view, a, b))
        except nx.NetworkXNoPath:
            return None

    def subgraph(self, ids: Iterable[str]) -> tuple[list[Term], list[Edge]]:
        """Terms and the edges among them."""
        keep = [self.get(i).id for i in dict.fromkeys(ids)]
        s = set(keep)
        edges = [e for e in self.edges if e.source in s and e.target in s]
        return [self.terms[i] for i in keep], edges
