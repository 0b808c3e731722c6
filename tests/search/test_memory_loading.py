"""The memory-saving load paths (issue 13 part 5) give the same results as the ones they replace."""

from __future__ import annotations

import json
import random
import shutil
from bisect import bisect_left
from pathlib import Path

import numpy as np
import pytest

from embeddings import build_index, load_index
from kg.errors import ArtifactError
from kg.model import Term
from kg.search.engine import SearchEngine
from kg.search.labels import LabelMatcher, _word_tails
from kg.search.trie import END, MAX_CHAR, PrefixWalk, char_trie
from kg.store import Glossary

DEV = Path(__file__).resolve().parents[1] / "data" / "retrieval_dev.jsonl"


def _queries(n: int = 60) -> list[str]:
    lines = DEV.read_text(encoding="utf-8").splitlines()
    return [json.loads(x)["query"] for x in lines if x.strip()][:n]


def _hits(engine: SearchEngine, query: str, mode: str) -> list[tuple[str, float, dict[str, float]]]:
    return [(h.term_id, h.score, h.components) for h in engine.search(query, mode=mode, limit=20).hits]


def test_mmap_load_gives_the_results_of_an_in_memory_load(hash_artifact: Path) -> None:
    g = Glossary.load(hash_artifact)
    mapped = SearchEngine.for_artifact(hash_artifact, g.terms.values())
    copied = SearchEngine.load(hash_artifact / "search", g.terms.values(), mmap=False)
    assert isinstance(mapped.lexical._bm25.scores["data"], np.memmap)
    assert not isinstance(copied.lexical._bm25.scores["data"], np.memmap)
    for q in _queries():
        for mode in ("hybrid", "lexical", "semantic"):
            assert _hits(mapped, q, mode) == _hits(copied, q, mode), (q, mode)


def test_mmap_hnsw_index_searches_like_the_in_memory_one(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((600, 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    ids = [f"t{i}#def0" for i in range(600)]
    for threshold in (0, 10_000):  # HNSW, then flat
        built = build_index(vectors, ids, encoder_id="hash:16", hnsw_threshold=threshold)
        built.save(tmp_path / str(threshold))
        mapped = load_index(tmp_path / str(threshold), expected_encoder_id="hash:16", expected_dim=16)
        copied = load_index(
            tmp_path / str(threshold), expected_encoder_id="hash:16", expected_dim=16, mmap=False
        )
        assert mapped.kind == built.kind
        queries = rng.standard_normal((25, 16)).astype(np.float32)
        assert mapped.search(queries, 10) == copied.search(queries, 10) == built.search(queries, 10)


def test_loaded_glossary_reads_its_document_again_and_only_the_same_file(
    hash_artifact: Path, tmp_path: Path
) -> None:
    art = tmp_path / "artifact"
    shutil.copytree(hash_artifact.resolve(), art)
    g = Glossary.load(art)
    assert g._document is None  # not kept in memory
    on_disk = json.loads((art / "graph.json").read_text(encoding="utf-8"))
    assert g.document == on_disk
    assert [t.to_dict() for t in g.terms.values()] == on_disk["nodes"]
    # the file changes under the loaded glossary: it never hands out another graph
    (art / "manifest.json").unlink()
    (art / "graph.json").write_text(json.dumps({**on_disk, "nodes": on_disk["nodes"][:3], "edges": []}))
    with pytest.raises(ArtifactError, match="changed since"):
        _ = g.document
    # a glossary made from a document keeps it
    assert Glossary(on_disk).document is on_disk


def test_terms_from_a_document_share_repeated_strings(hash_artifact: Path) -> None:
    g = Glossary.load(hash_artifact)
    sources = [d.source for t in g.terms.values() for d in t.definitions]
    assert len({id(s) for s in sources}) == len(set(sources))
    t = next(iter(g.terms.values()))
    assert Term.from_dict(t.to_dict()) == t
    assert not hasattr(t, "__dict__")  # slots: no per-term attribute dict


def _trie_walk(trie: dict, text: str) -> list[tuple[int, int, str]]:
    out = []
    for i in range(len(text)):
        node, j = trie.get(text[i]), i + 1
        while node is not None:
            if END in node:
                out.append((i, j, node[END]))
            if j >= len(text):
                break
            node, j = node.get(text[j]), j + 1
    return out


def _prefix_walk(walk: PrefixWalk, text: str) -> list[tuple[int, int, str]]:
    out = []
    for i in range(len(text)):
        node, j = walk.root(text[i]), i + 1
        while node is not None:
            word = walk.word(node)
            if word is not None:
                out.append((i, j, word))
            if j >= len(text):
                break
            node, j = walk.child(node, text[j]), j + 1
    return out


def test_prefix_walk_finds_what_the_dict_trie_finds() -> None:
    rng = random.Random(3)
    alphabet = "abc张量并行 -"
    words = {"".join(rng.choice(alphabet) for _ in range(rng.randint(1, 6))) for _ in range(400)}
    trie, walk = char_trie(words), PrefixWalk(words)
    assert len(walk) == len(words)
    for _ in range(200):
        text = "".join(rng.choice(alphabet + "xyz") for _ in range(rng.randint(0, 30)))
        assert _prefix_walk(walk, text) == _trie_walk(trie, text)
    assert PrefixWalk([]).root("a") is None


def test_suggest_suffix_table_is_the_sorted_list_of_word_tails(names: list[tuple[str, str, str]]) -> None:
    m = LabelMatcher(names)
    expected = sorted((tail, n) for n, e in enumerate(m._entries) for tail in _word_tails(e))
    assert [m._suffix_keys[i] for i in range(len(m._suffix_keys))] == [s for s, _ in expected]
    assert list(m._suffix_entries) == [n for _, n in expected]
    for p in ("att", "注意力", "cache", "zz"):
        lo = bisect_left(m._suffix_keys, p)
        hi = bisect_left(m._suffix_keys, p + MAX_CHAR, lo)
        assert [s for s, _ in expected[lo:hi]] == [s for s, _ in expected if s.startswith(p)]


def test_word_freq_answers_like_the_dict_it_was_made_from() -> None:
    from kg.search.wordfreq import WordFreq

    rng = random.Random(0)
    alphabet = "批处理张量并行延迟首注意力ab"
    table = {
        "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 6))): rng.randint(0, 9)
        for _ in range(3000)
    }
    compact = WordFreq(table.items(), len(table))
    assert len(compact) == len(table) and list(compact) == list(table)
    probes = list(table) + [
        "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 7))) for _ in range(3000)
    ]
    for word in probes:
        assert (word in compact) == (word in table), word
        assert compact.get(word) == table.get(word), word
        assert compact.get(word, -1) == table.get(word, -1), word
    with pytest.raises(KeyError):
        compact["不在表里的词"]
    with pytest.raises(ValueError):
        WordFreq(table.items(), len(table) - 1)


def test_serving_tokenizer_keeps_the_dictionary_and_tokens_of_a_build_one(hash_artifact: Path) -> None:
    """take_base (a server's one tokenizer) keeps jieba's dictionary plus the glossary's words as a
    WordFreq: the same entries, total and tokens as the dict of a build's tokenizer."""
    from kg.search.passages import term_document
    from kg.search.tokenize import Tokenizer
    from kg.search.wordfreq import WordFreq

    terms = list(Glossary.load(hash_artifact).terms.values())
    vocabulary = SearchEngine.vocabulary(terms)
    built, served = Tokenizer(vocabulary), Tokenizer(vocabulary, take_base=True)
    full, compact = built.segmenter.FREQ, served.segmenter.FREQ
    assert isinstance(full, dict) and isinstance(compact, WordFreq)
    assert served.segmenter.total == built.segmenter.total
    assert len(compact) == len(full)
    assert all(compact.get(word) == freq for word, freq in full.items())
    assert "连续批处理" in compact and compact["连续批处理"] >= 200_000  # a glossary word
    texts = [term_document(t) for t in terms] + _queries(200)
    assert [served.tokenize(x) for x in texts] == [built.tokenize(x) for x in texts]
