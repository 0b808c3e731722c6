"""Surface variants of first turns (kg/evaluation/variants.py): the variants, the counting, the
table, and the real chatbot keeping its answer across them."""

from __future__ import annotations

from typing import Any

from kg.chat.evaluate import ChatTurn, Conversation
from kg.chat.model import Answer, Citation
from kg.evaluation.variants import VARIANTS, render_markdown, score_variants, variants_of
from kg.search.engine import SearchEngine
from kg.store import Glossary


def _conv(cid: str, user: str, cite: str, kind: str = "definition") -> Conversation:
    return Conversation(cid, "en", (ChatTurn(user, ((cite,),) if cite else (), kind),))


def test_english_variants_are_fixed_and_each_changes_the_question() -> None:
    q = "What is PagedAttention?"
    got = dict(variants_of(q))
    assert set(got) == {n for n, (lang, _) in VARIANTS.items() if lang == "en"}
    assert got["en_caps"] == "WHAT IS PAGEDATTENTION?"
    assert got["en_request"] == "Can you tell me: what is PagedAttention?"
    assert got["en_typo"] == "What is PagedAtention?"  # the middle letter of the longest word
    assert got["en_no_mark"] == "What is PagedAttention"
    assert dict(variants_of(q)) == got  # no randomness: a rerun asks the same
    assert "en_typo" not in dict(variants_of("What is TTFT?"))  # no word long enough to misspell


def test_chinese_variants() -> None:
    got = dict(variants_of("这个指标怎么算？"))
    assert got["zh_traditional"] == "這個指標怎麼算？"
    assert got["zh_marker"] == "具体来说，这个指标怎么算？"
    assert got["zh_no_mark"] == "这个指标怎么算"
    assert not any(n.startswith("en_") for n in got)


def _stand_in(glossary: Glossary, engine: Any, text: str, **_: Any) -> Answer:
    # cites PagedAttention only when the question spells it exactly (any case): a typo loses it
    cites = (
        [Citation("pagedattention", "002", "…", "definition", 1, 1)]
        if "pagedattention" in text.lower()
        else []
    )
    return Answer(
        text, "en", "definition", "…", bool(cites), terms=[c.term_id for c in cites], citations=cites
    )


def test_kept_and_lost_variants_are_counted(glossary: Glossary) -> None:
    convs = [
        _conv("a", "What is PagedAttention?", "PagedAttention"),
        _conv("b", "What is TTFT?", "TTFT"),  # answered wrong: its variants are not asked
        _conv("c", "best cookie recipe?", "", kind="out_of_domain"),  # not scored
    ]
    r = score_variants(glossary, None, convs, answer_fn=_stand_in)  # type: ignore[arg-type]
    assert (r.right, r.first_turns) == (1, 2)
    assert r.asked["en_typo"] == 1 and r.kept.get("en_typo", 0) == 0
    assert r.lost["en_typo"][0]["variant"] == "What is PagedAtention?"
    assert r.share("en_caps") == 1.0
    n = len(dict(variants_of("What is PagedAttention?")))
    assert r.share() == (n - 1) / n
    md = render_markdown({"dev": r}, command="glossary eval-variants")
    assert "| `en_typo` | 0.0 % (0/1) |" in md
    assert "| first turns right / scored | 1/2 |" in md


def test_the_chatbot_keeps_its_answer_across_variants(glossary: Glossary, engine: SearchEngine) -> None:
    convs = [
        _conv("p", "What is PagedAttention?", "PagedAttention"),
        Conversation("z", "zh", (ChatTurn("什么是张量并行？", (("张量并行",),), "definition"),)),
    ]
    r = score_variants(glossary, engine, convs)
    assert r.right == 2
    assert r.share() == 1.0, r.lost
