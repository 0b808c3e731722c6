"""Mixed-script names (kg/search/mixed_names.py): "L2 缓存" for L2 cache."""

from __future__ import annotations

from kg.model import Term
from kg.search.engine import SearchEngine
from kg.search.mixed_names import head_translations, mixed_variants


def _term(tid: str, en: str, zh: str) -> Term:
    return Term(
        id=tid,
        labels={"en": en, "zh": zh},
        aliases=[],
        abbreviations=[],
        definitions=[],
        categories=[],
        sources=[],
    )


TERMS = [
    _term("kv-cache", "KV cache", "KV 缓存"),
    _term("page-cache", "File system page cache", "文件系统页缓存"),
    _term("l2-cache", "L2 cache", "二级缓存"),  # no own pair: learned from the two above
    _term("ttft", "Time to first token", "首 token 时间"),
    _term("tpot", "Time per output token", "每 token 时间"),
    _term("attention", "Sparse attention", "稀疏注意力"),
    _term("gqa", "Grouped-query attention", "分组查询注意力"),
]


def test_head_words_are_learned_from_the_label_pairs() -> None:
    table = head_translations(TERMS)
    assert table["cache"] == "缓存"
    assert table["attention"] == "注意力"  # 注意力 and 意力 tie: the longer
    assert "token" not in table  # "首 token 时间": token is kept, not translated


def test_a_latin_name_gets_its_head_translated() -> None:
    table = head_translations(TERMS)
    assert mixed_variants("L2 cache", table) == ["L2 缓存"]
    assert mixed_variants("cache", table) == []  # one word: nothing to keep in Latin
    assert mixed_variants("Cost per cache", table) == []  # "per": the last word is no head noun
    assert mixed_variants("二级缓存", table) == []


def test_the_engine_links_the_mixed_name() -> None:
    engine = SearchEngine.build(TERMS, "hash:64")
    spans = engine.matcher.find_mentions("b200 的 l2 缓存有多大")
    assert "l2-cache" in {s.term_id for s in spans}
