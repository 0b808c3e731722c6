"""Which definition a search hit shows, and how it is trimmed."""

from __future__ import annotations

from kg.model import Definition, Term
from kg.search.snippets import ELLIPSIS, best_definition, passage_definition, snippet, trim


def _term() -> Term:
    defs = [
        Definition("zh", "第一条中文定义。", "002", None, 3),
        Definition("en", "The first English definition.", "001", None, 7),
        Definition("zh", "第二条中文定义。", "000", None, 9),
    ]
    return Term("t", {"en": "T", "zh": "甲"}, [], [], defs, [], ["000", "001", "002"])


def test_passage_definition() -> None:
    t = _term()
    assert passage_definition(t, "t#def2") is t.definitions[2]
    for bad in (None, "", "t#names", "t#def9", "other#def0", "t#defx", "t#def-1"):
        assert passage_definition(t, bad) is None


def test_best_definition_prefers_passage_then_language() -> None:
    t = _term()
    assert best_definition(t, "t#def2", "en") is t.definitions[2]
    assert best_definition(t, None, "en") is t.definitions[1]
    assert best_definition(t, "t#names", "zh") is t.definitions[0]
    only_zh = Term("u", {"zh": "乙"}, [], [], [t.definitions[0]], [], [])
    assert best_definition(only_zh, None, "en") is t.definitions[0]
    assert snippet(Term("v", {"en": "V"}, [], [], [], [], []), None, "en") is None


def test_trim() -> None:
    assert trim("short  text\n") == "short text"
    latin = "word " * 60
    out = trim(latin, 160)
    assert len(out) <= 160 and out.endswith(ELLIPSIS) and out[:-1].endswith("word")
    cjk = "字" * 400
    out = trim(cjk, 160)
    assert len(out) == 160 and out == "字" * 159 + ELLIPSIS
    assert trim("字" * 160, 160) == "字" * 160
