"""Example questions as a search stage (kg/search/examples.py): reading, resolving, ranking, saving."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from kg.build import BuildResult, default_corpus_dir
from kg.parsers.common import SourceError
from kg.search.engine import SearchEngine
from kg.search.examples import EXAMPLES_FILE, read_examples, resolve_examples
from kg.store import Glossary

QUESTION = "我们的客服机器人被一整篇合同卡住了，别的用户都在等"


@pytest.fixture(scope="module")
def glossary(bundled_build: Callable[[], BuildResult]) -> Glossary:
    return Glossary(bundled_build().document())


def test_bundled_examples_resolve_mostly_to_one_term(glossary: Glossary) -> None:
    rows = read_examples(default_corpus_dir())
    kept, skipped = resolve_examples(rows, glossary.lookup)
    assert len(rows) > 1000 and len(kept) > 0.8 * len(rows) and len(kept) + len(skipped) == len(rows)
    assert all(tid in glossary.terms for tid, _ in kept)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "not JSON"),
        ('["a list"]', "each line is an object"),
        ('{"text": "", "gold": ["TTFT"]}', "'text' must be"),
        ('{"text": "q?", "gold": []}', "'gold' must be"),
        ('{"text": "q?", "gold": "TTFT"}', "'gold' must be"),
    ],
)
def test_a_bad_line_names_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    (tmp_path / EXAMPLES_FILE).write_text(
        '{"text": "ok?", "gold": ["TTFT"]}\n' + line + "\n", encoding="utf-8"
    )
    with pytest.raises(SourceError, match=message) as err:
        read_examples(tmp_path)
    assert err.value.line == 2 and err.value.file.endswith(EXAMPLES_FILE)


def test_no_file_no_examples(tmp_path: Path) -> None:
    assert read_examples(tmp_path) == []


def test_names_that_lead_to_no_or_several_terms_are_left_out(glossary: Glossary) -> None:
    rows = [("q1", ["TTFT"], 1), ("q2", ["no such term at all"], 2), ("q3", ["TTFT", "TPOT"], 3)]
    kept, skipped = resolve_examples(rows, glossary.lookup)
    assert kept == [("time-to-first-token", "q1")] and skipped == [2, 3]


def test_an_example_question_ranks_its_term_and_survives_save_and_load(
    glossary: Glossary, tmp_path: Path
) -> None:
    terms = list(glossary.terms.values())
    engine = SearchEngine.build(
        terms, "hash:64", examples=[("chunked-prefill", QUESTION), ("no-such-id", "x")]
    )
    assert engine.examples is not None and len(engine.examples) == 1  # unknown term ids left out
    hit = next(h for h in engine.search(QUESTION, limit=50).hits if h.term_id == "chunked-prefill")
    assert hit.ranks["examples"] == 1 and hit.raw["examples"] == pytest.approx(1.0, abs=1e-5)
    engine.save(tmp_path / "search")
    again = SearchEngine.load(tmp_path / "search", terms)
    assert again.examples is not None and again.examples.texts == [QUESTION]
    assert [h.term_id for h in again.search(QUESTION, limit=5).hits] == [
        h.term_id for h in engine.search(QUESTION, limit=5).hits
    ]
    # the stage can be switched off by its weight; without examples there is no such stage
    engine.weights.examples = 0.0
    assert all("examples" not in h.ranks for h in engine.search(QUESTION, limit=50).hits)
    plain = SearchEngine.build(terms, "hash:64")
    assert plain.examples is None
