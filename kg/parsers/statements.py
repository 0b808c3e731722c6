"""Statements inside definitions that parsers turn into structure.

Alias statements ("见 TTFT", "即 TPOT 的别称", "同 kernel fusion",
"`Continuous batching` 的另一种叫法", "矩阵乘法的简称") and site cross-references
("详见X。"). The builder resolves the target names; parsers only read text.
"""

from __future__ import annotations

import re

from kg.model import AliasStatement

_ALIAS_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # "见 TTFT。" — the whole definition is a pointer.
    (re.compile(r"^(?:参见|见)\s+(?P<t>[^。，,；;]+?)\s*[。.]?$"), "see"),
    # "即 TPOT 的别称，…" / "即 X 的简称"
    (re.compile(r"^即\s*(?P<t>[^。，,；;]+?)\s*的(?:别称|简称|缩写|另一种叫法|别名)"), "same"),
    # "同 kernel fusion。" / "同 Engine，TensorRT 术语。"
    (re.compile(r"^同\s+(?P<t>[^。，,；;]+?)\s*(?:[。.，,；;]|$)"), "same"),
    # "`Large Language Model` 的缩写。" / "`Continuous batching` 的另一种叫法。" / "矩阵乘法的简称。"
    (re.compile(r"^`?(?P<t>[^`。，,；;]+?)`?\s*的(?:缩写|另一种叫法|别称|简称|别名)\s*[。.]?"), "same"),
    # "又称 X" / "也叫 X" at the start
    (re.compile(r"^(?:又称|也称|也叫|又叫|亦称)\s*(?P<t>[^。，,；;]+?)\s*(?:[。.，,；;]|$)"), "same"),
)

_SEE_ALSO = re.compile(r"(?:前者|后者)?详见(?P<t>[^。]+?)。")


def alias_statement(definition: str) -> AliasStatement | None:
    """The alias statement a definition opens with, if any."""
    text = definition.strip()
    for pattern, relation in _ALIAS_PATTERNS:
        m = pattern.match(text)
        if m:
            target = m.group("t").strip().strip("`").strip()
            if target and len(target) <= 40:
                return AliasStatement(target=target, relation=relation, evidence=text)  # type: ignore[arg-type]
    return None


def is_pure_pointer(definition: str, statement: AliasStatement) -> bool:
    """True when the definition says nothing beyond the alias statement itself.

    "见 TTFT。" and "同 kernel fusion。" are pure pointers; "即 TPOT 的别称，描述流式生成的
    连续 token 间隔。" carries a description and stays a definition.
    """
    rest = definition.replace(statement.target, "")
    rest = re.sub(r"[`\s。.，,；;]|即|同|见|参见|的|别称|简称|缩写|另一种叫法|别名|术语", "", rest)
    return len(rest) <= 8


def split_see_also(definition: str) -> tuple[str, list[str]]:
    """Remove trailing "详见X。" site references; return (definition, [X, …]).

    X is a page title of the site the glossary came from, not a term; the builder
    links it only where a title, or a part of it joined by 与, is exactly a term name.
    """
    targets = [m.group("t").strip() for m in _SEE_ALSO.finditer(definition)]
    text = _SEE_ALSO.sub("", definition).strip()
    # "前者详见A，后者详见B。" leaves dangling commas.
    text = re.sub(r"[，,]\s*(?=。|$)", "", text).strip()
    return text, targets
