"""A glossary loaded from an artifact is the one built in memory, stored more compactly: terms made
from detached copies of the parsed JSON, shared read-only values for recurring fields, isolated
terms kept out of the networkx graph (kg/detached.py, kg/store.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from kg.build import BuildResult, write_artifact
from kg.detached import FieldSharer, FrozenDict, FrozenList, detached
from kg.store import Glossary


@pytest.fixture(scope="module")
def loaded(built: BuildResult, tmp_path_factory: Any) -> Glossary:
    out = write_artifact(built, tmp_path_factory.mktemp("loaded") / "artifact")
    return Glossary.load(out)


def test_detached_copies_every_string_and_number() -> None:
    doc = json.loads(
        '{"id": "kv-cache", "labels": {"en": "KV cache"}, "line": 4582, "w": 0.25, "x": [null, true]}'
    )
    copy = detached(doc)
    assert copy == doc
    assert copy["id"] is not doc["id"] and copy["labels"]["en"] is not doc["labels"]["en"]
    assert copy["line"] is not doc["line"] and copy["w"] is not doc["w"]
    assert copy["x"] is not doc["x"] and copy["x"][1] is True
    # keys are interned: equal keys of different objects are one string
    other = detached(json.loads('{"labels": {"en": "x"}}'))
    assert next(iter(other)) is next(k for k in copy if k == "labels")
    assert sys.intern("labels") is next(iter(other))


def test_shared_fields_are_equal_and_read_only() -> None:
    class Obj:
        def __init__(self, a: list[str], b: list[str], c: dict[str, str]) -> None:
            self.a, self.b, self.c = a, b, c

    sharer = FieldSharer(("a",), ("b", "c"))
    one = sharer.share(Obj([], ["synthetic"], {}))
    two = sharer.share(Obj(["alias"], ["synthetic"], {"en": "source"}))
    assert one.a == [] and one.a is sharer.share(Obj([], [], {})).a  # empty: shared
    assert two.a == ["alias"] and type(two.a) is list  # not empty, not shared
    assert one.b == two.b == ["synthetic"] and one.b is two.b
    assert one.c == {} and two.c == {"en": "source"} and isinstance(two.c, FrozenDict)
    assert isinstance(one.b, FrozenList)
    with pytest.raises(TypeError, match="read-only"):
        one.b.append("x")
    with pytest.raises(TypeError, match="read-only"):
        one.b += ["x"]
    with pytest.raises(TypeError, match="read-only"):
        two.c["zh"] = "x"
    assert one.b == ["synthetic"] and two.c == {"en": "source"}


def test_loaded_glossary_is_the_built_one(loaded: Glossary, glossary: Glossary) -> None:
    assert list(loaded.terms) == list(glossary.terms)
    assert all(loaded.terms[i] == t for i, t in glossary.terms.items())
    assert [t.to_dict() for t in loaded.terms.values()] == [t.to_dict() for t in glossary.terms.values()]
    assert loaded.edges == glossary.edges and loaded.id_aliases == glossary.id_aliases
    assert list(loaded.names()) == list(glossary.names())
    for name in ("ttft", "KV cache", "张量并行", "continuous batching", "no such name"):
        assert loaded.lookup(name) == glossary.lookup(name)
    # the loaded terms' recurring fields are shared, and refuse changes
    shared = [t for t in loaded.terms.values() if not t.aliases]
    assert len(shared) > 1 and len({id(t.aliases) for t in shared}) == 1
    with pytest.raises(TypeError):
        shared[0].aliases.append("x")


def test_isolated_terms_are_not_graph_nodes(loaded: Glossary) -> None:
    isolated = [i for i in loaded.terms if not loaded.edges_of(i)]
    linked = next(i for i in loaded.terms if loaded.edges_of(i))
    assert isolated, "the bundled corpus has terms without edges"
    term = isolated[0]
    assert term not in loaded.graph and linked in loaded.graph
    assert loaded.neighbours(term) == {}
    assert loaded.related(term) == [] and loaded.confusables(term) == []
    assert loaded.shortest_path(term, term) == [term]
    assert loaded.shortest_path(term, linked) is None
    assert loaded.shortest_path(linked, linked) == [linked]
    assert term in loaded and loaded.get(term).id == term


def test_path_of_the_artifact_is_kept(loaded: Glossary) -> None:
    assert isinstance(loaded.artifact_dir, Path)
    assert loaded.document["nodes"][0]["id"] == next(iter(loaded.terms))


def test_name_tables_give_every_name_in_table_order(loaded: Glossary) -> None:
    from kg.textnorm import fold, name_key

    # the tables keep term ids and read the names back from the terms: same entries, same order
    # as a table of (term id, name, kind) per folded name / loose key
    by_fold: dict[str, list[tuple[str, str, str]]] = {}
    by_loose: dict[str, list[tuple[str, str, str]]] = {}
    for t in loaded.terms.values():
        for kind, ns in (
            ("label", t.labels.values()),
            ("abbreviation", t.abbreviations),
            ("alias", t.aliases),
        ):
            for n in ns:
                by_fold.setdefault(fold(n), []).append((t.id, n, kind))
                by_loose.setdefault(name_key(n), []).append((t.id, n, kind))
    assert list(loaded.names()) == [e for entries in by_fold.values() for e in entries]
    assert any(len({tid for tid, _, _ in v}) > 1 for v in by_loose.values())  # keys of several terms
    for key, entries in by_loose.items():
        assert list(loaded._expand(loaded._loose, key, name_key)) == entries


def test_name_table_answers_like_a_dict_of_id_lists() -> None:
    import random

    from kg.nametable import NameTable

    rng = random.Random(1)
    ids = [f"t{i}" for i in range(300)]
    keys = ["kv cache", "kvcache", "张量并行", "ttft", "é", "a", "ab", "b", "", "首token延迟"]
    pairs = [(rng.choice(keys) + rng.choice(["", "x", "并"]), rng.randrange(300)) for _ in range(2000)]
    pairs += [("ttft", 7), ("ttft", 7), ("ttft", 8), ("ttft", 7)]  # again right after itself: once
    table = NameTable(pairs, ids)
    expected: dict[str, list[str]] = {}
    for key, t in pairs:
        got = expected.setdefault(key, [])
        if not got or got[-1] != ids[t]:
            got.append(ids[t])
    assert list(table) == list(expected) and len(table) == len(expected)
    for key, want in expected.items():
        assert table.get(key) == tuple(want) and key in table
    for missing in ("kv", "ttfu", "zz", "张量", "\U0010ffff"):
        assert table.get(missing) == () and missing not in table
    assert table.get("ttft")[-3:] == ("t7", "t8", "t7")


def test_graph_walks_without_networkx_match_the_networkx_graph(loaded: Glossary) -> None:
    """edges_of and neighbours read an adjacency of their own; networkx (``Glossary.graph``) gives
    the same edges and the same distances in the same order."""
    graph = loaded.graph
    assert graph is loaded.graph  # built once
    linked = [t for t in loaded.terms if t in graph]
    assert linked and len(linked) < len(loaded.terms)
    for term in linked:
        by_nx = [d["edge"] for _, _, d in graph.edges(term, data=True)]
        assert loaded.edges_of(term) == sorted(by_nx, key=lambda e: (e.type, e.source, e.target))
        dist, frontier = {term: 0}, [term]
        for d in (1, 2):
            nxt = []
            for node in frontier:
                for _, other, key in graph.edges(node, keys=True):
                    if key[0] == "related_to" and other not in dist:
                        dist[other] = d
                        nxt.append(other)
            frontier = nxt
        dist.pop(term)
        assert list(loaded.neighbours(term, ("related_to",), depth=2).items()) == list(dist.items())
