"""The held-out refusal evaluation (kg/evaluation/refusal.py): counting, file errors, the table."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg.chat.model import Answer, Citation
from kg.evaluation.refusal import load_questions, render_markdown, score_refusals


def _answer(text: str) -> Answer:
    # a stand-in chatbot: cites a term unless the question is about cookies
    cites = [] if "cookie" in text else [Citation("kv-cache", "002", "…", "definition", 1, 1)]
    return Answer(
        text, "en", "definition", "…", bool(cites), terms=[c.term_id for c in cites], citations=cites
    )


def test_refused_questions_are_counted_per_kind(tmp_path: Path) -> None:
    f = tmp_path / "q.jsonl"
    f.write_text(
        '{"text": "best cookie recipe?", "kind": "near_domain"}\n'
        "\n"
        '{"text": "What is KV cache?", "kind": "near_domain"}\n'
        '{"text": "cookie jar sizes", "kind": "made_up", "lang": "en"}\n',
        encoding="utf-8",
    )
    rows = load_questions(f)
    split = score_refusals(None, None, rows, in_domain=False, answer_fn=_answer)  # type: ignore[arg-type]
    assert split.total == {"near_domain": 2, "made_up": 1}
    assert split.refused == {"near_domain": 1, "made_up": 1}
    assert split.rate("near_domain") == 0.5 and split.rate() == pytest.approx(2 / 3)
    md = render_markdown({"ood-x": split}, command="glossary eval-refusal")
    assert "| ood-x | near_domain | 2 | 1 | 50.0% | refused |" in md
    assert "| ood-x | **all** | 3 | 2 | **66.7%** | refused |" in md


@pytest.mark.parametrize(
    ("content", "line"),
    [('{"text": "ok"}\n{not json}\n', 2), ('{"text": ""}\n', 1), ('["a list"]\n', 1)],
)
def test_a_bad_line_names_the_file_and_line(tmp_path: Path, content: str, line: int) -> None:
    f = tmp_path / "bad.jsonl"
    f.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=rf"bad\.jsonl:{line}: bad question record"):
        load_questions(f)
