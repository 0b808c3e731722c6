"""Term ids (kg/ids.py): English slugs, pinyin of Chinese labels, numbered collisions, and the
table of former ids, on the real corpus and on small hand-made terms."""

from __future__ import annotations

import random
from typing import Any

import pytest

import kg.build
from kg.build import BuildResult, build_graph
from kg.ids import assign_ids, id_alias_table, is_hash_id, legacy_hash_id, pinyin_slug
from kg.model import Term
from kg.store import Glossary
from kg.verify import check_graph_shape
from tests.kg.kg_helpers import term_of


def _term(zh: str = "", en: str = "", entry: str = "002:1") -> Term:
    labels = {k: v for k, v in (("en", en), ("zh", zh)) if v}
    return Term(
        id="",
        labels=labels,
        aliases=[],
        abbreviations=[],
        definitions=[],
        categories=[],
        sources=[entry[:3]],
        entry_keys=[entry],
    )


# --- rule 1 and 2: English slug, else pinyin -------------------------------------------------------


def test_pinyin_ids_group_syllables_by_word() -> None:
    assert pinyin_slug("数据并行") == "shuju-bingxing"
    assert pinyin_slug("线性注意力") == "xianxing-zhuyili"
    assert pinyin_slug("命中率") == "mingzhonglv"  # ü is written v
    # Traditional characters and full-width forms give the same id
    assert pinyin_slug("數據並行") == pinyin_slug("数据并行")


def test_mixed_labels_keep_their_latin_pieces() -> None:
    assert pinyin_slug("KV cache 量化") == "kv-cache-lianghua"
    assert pinyin_slug("Die-to-die 链路") == "die-to-die-lianlu"
    assert pinyin_slug("ＫＶ　Cache 分层") == "kv-cache-fenceng"
    assert pinyin_slug("P90 交互性") == "p90-jiaohuxing"


def test_english_label_wins_over_pinyin() -> None:
    both, zh_only = _term("数据并行", "Data parallelism"), _term("数据并行", entry="002:2")
    assign_ids([both, zh_only])
    assert both.id == "data-parallelism"
    assert zh_only.id == "shuju-bingxing"


def test_real_chinese_only_terms_have_pinyin_ids(built: BuildResult, glossary: Glossary) -> None:
    # 冷恢复 was the last Chinese-only term: its editorial English name gives its id, and its
    # pinyin id is a former id
    assert term_of(glossary, "冷恢复") == "cold-restore"
    assert glossary.current_id("leng-huifu") == "cold-restore"
    assert built.report["zh_only_without_en"] == 0
    # a term that gained an English name keeps its pinyin id as a former id
    assert term_of(glossary, "数据并行") == "data-parallelism"
    assert glossary.current_id("shuju-bingxing") == "data-parallelism"
    assert term_of(glossary, "TTFT") == "time-to-first-token"
    assert not [t.id for t in built.terms if is_hash_id(t.id)]
    assert built.report["hash_ids"] == 0
    for t in built.terms:
        if "en" not in t.labels:
            assert t.id.removesuffix("-2") == pinyin_slug(t.labels["zh"]), t.labels


# --- rule 3: collisions -------------------------------------------------------------------------------


def test_collisions_are_numbered_by_first_entry_whatever_the_order() -> None:
    def ids(order: list[int]) -> list[str]:
        terms = [
            _term("草稿模型", entry="002:40"),
            _term("草稿模型", entry="001:7"),
            _term(en="Caogao Moxing", entry="003:2"),  # an English slug equal to the pinyin
            _term("冷恢复", entry="000:1"),
        ]
        assign_ids([terms[i] for i in order])
        return [t.id for t in terms]

    expected = ["caogao-moxing-2", "caogao-moxing", "caogao-moxing-3", "leng-huifu"]
    assert ids([0, 1, 2, 3]) == expected
    assert ids([3, 2, 1, 0]) == expected
    assert ids([2, 0, 3, 1]) == expected


def test_ids_do_not_depend_on_entry_order(built: BuildResult, monkeypatch: pytest.MonkeyPatch) -> None:
    real = kg.build.merge_entries

    def shuffled(entries: list[Any], *args: Any) -> Any:
        random.Random(11).shuffle(entries)  # in place: the rest of the build sees the same order
        return real(entries, *args)

    monkeypatch.setattr(kg.build, "merge_entries", shuffled)
    again = build_graph()
    assert {t.id: sorted(t.entry_keys) for t in again.terms} == {
        t.id: sorted(t.entry_keys) for t in built.terms
    }
    assert again.id_aliases == built.id_aliases


# --- rule 4: former ids ---------------------------------------------------------------------------------


def test_alias_table_resolves_hash_and_pinyin_ids(built: BuildResult, glossary: Glossary) -> None:
    assert glossary.id_aliases == built.id_aliases == built.document()["id_aliases"]
    assert built.report["id_aliases"] == len(built.id_aliases) > 0
    for t in built.terms:
        zh = t.labels.get("zh")
        if not zh or not t.defined:  # a mentioned-only node (会话恢复风暴) never had a hash id
            continue
        assert glossary.current_id(legacy_hash_id(zh)) == t.id
        if "en" in t.labels and pinyin_slug(zh) not in glossary:
            assert glossary.current_id(pinyin_slug(zh)) == t.id
    # the ids 数据并行 had before pinyin ids, and before its English name
    assert glossary.moved_to("zh-0207cfb01c") == "data-parallelism"
    assert glossary.moved_to("shuju-bingxing") == "data-parallelism"
    assert glossary.moved_to("data-parallelism") is None  # a current id has not moved
    # a node merged into another keeps its label's id as a former id (Ops:byte ratio → ridge)
    ridge = glossary.lookup("Ops:byte ratio")[0].term.id
    assert glossary.current_id("ops-byte-ratio-gpu") == ridge
    assert glossary.current_id("no-such-term") is None


def test_a_term_that_gains_an_english_name_keeps_its_pinyin_id(built: BuildResult) -> None:
    terms = [Term.from_dict(t.to_dict()) for t in built.terms]
    term = next(t for t in terms if t.labels.get("zh") == "冷恢复")
    del term.labels["en"]  # Chinese-only, as it was before its editorial English name
    assign_ids(terms)
    assert term.id == "leng-huifu"
    term.labels["en"] = "Cold restore (for this test)"
    assign_ids(terms)
    table, _ = id_alias_table(terms)
    assert term.id == "cold-restore-for-this-test"
    assert table["leng-huifu"] == term.id
    assert table[legacy_hash_id("冷恢复")] == term.id


def test_alias_never_shadows_a_live_id_and_is_never_shared() -> None:
    live = _term(en="Shuju Bingxing", entry="001:1")  # its id is the pinyin of 数据并行
    dp = _term("数据并行", "Data parallelism", entry="002:1")
    twin1 = _term("冷恢复", "Cold restore", entry="002:2")
    twin2 = _term("冷恢复", "Cold recovery", entry="002:3")
    terms = [live, dp, twin1, twin2]
    assign_ids(terms)
    table, dropped = id_alias_table(terms)
    assert "shuju-bingxing" not in table  # would shadow the live term
    assert "leng-huifu" not in table and legacy_hash_id("冷恢复") not in table  # claimed twice
    assert table[legacy_hash_id("数据并行")] == "data-parallelism"
    assert {(d["alias"], d["term"]) for d in dropped} == {
        ("shuju-bingxing", "data-parallelism"),
        ("leng-huifu", "cold-restore"),
        ("leng-huifu", "cold-recovery"),
        (legacy_hash_id("冷恢复"), "cold-restore"),
        (legacy_hash_id("冷恢复"), "cold-recovery"),
    }
    assert all(d["why"] for d in dropped)


def test_store_and_shape_check_never_let_an_alias_shadow_a_node(built: BuildResult) -> None:
    doc = built.document()
    doc["id_aliases"] = {**doc["id_aliases"], "kv-cache": "vllm"}
    assert Glossary(doc).current_id("kv-cache") == "kv-cache"  # a current id wins
    with pytest.raises(ValueError, match="id alias 'kv-cache' is a node's id"):
        check_graph_shape(doc)
    doc["id_aliases"] = {"zh-0000000000": "no-such-node"}
    with pytest.raises(ValueError, match="not a node"):
        check_graph_shape(doc)
    assert Glossary(doc).current_id("zh-0000000000") is None
