from pathlib import Path

from kg.docsections import replace_section


def test_sections_are_replaced_in_place(tmp_path: Path) -> None:
    doc = tmp_path / "EVAL.md"
    replace_section(doc, "a", "first A", title="Evaluation")
    replace_section(doc, "b", "first B")
    replace_section(doc, "a", "second A")
    text = doc.read_text(encoding="utf-8")
    assert text.startswith("# Evaluation")
    assert "second A" in text and "first A" not in text and "first B" in text
    assert text.index("second A") < text.index("first B")
