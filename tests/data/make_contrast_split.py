"""Make a contrast dev split from the blind pairs a helper wrote from the sources only.

    PYTHONPATH=. python tests/data/make_contrast_split.py dev3   # writes contrast_pairs_dev3.jsonl
    PYTHONPATH=. python tests/data/make_contrast_split.py dev4   # writes contrast_pairs_dev4.jsonl
    PYTHONPATH=. python tests/data/make_contrast_split.py dev5   # writes contrast_pairs_dev5.jsonl
    PYTHONPATH=. python tests/data/make_contrast_split.py dev6   # writes contrast_pairs_dev6.jsonl
    PYTHONPATH=. python tests/data/make_contrast_split.py dev7   # writes contrast_pairs_dev7.jsonl
    PYTHONPATH=. python tests/data/make_contrast_split.py dev8   # writes contrast_pairs_dev8.jsonl
    PYTHONPATH=. python tests/data/make_contrast_split.py dev9   # writes contrast_pairs_dev9.jsonl
    PYTHONPATH=. python tests/data/make_contrast_split.py dev10  # writes contrast_pairs_dev10.jsonl

Reads ``blind/contrast_pairs_NAME.jsonl`` (as written, labels untouched) and leaves out

- every pair whose two sides resolve (as ``glossary eval-contrasts`` resolves them, on a fresh
  in-memory build) to the same unordered pair of term ids as a pair of the test split, or that
  names the same two names (the first of each side, folded), so that tuning on dev3 never tunes
  on a test pair; the test split's pairs are compared by key only and never printed;
- every exact duplicate of a pair of an earlier dev split (dev and dev2 for dev3; dev, dev2 and
  dev3 for dev4): the same two names (the first of each side, folded), the same label; and a
  pair that repeats an earlier line of the same file. A pair naming the same two terms by other
  names is kept (the helper wrote it from its own sentence) and only counted.

A side no node names is compared by its folded names instead of ids. Prints the counts only.
"""

from __future__ import annotations

import sys
from itertools import product
from pathlib import Path

from kg.build import build_graph, default_corpus_dir
from kg.evaluation.contrasts import LabelledPair, _Names, load_pairs
from kg.textnorm import fold

HERE = Path(__file__).parent


def pair_keys(names: _Names, p: LabelledPair) -> set[frozenset[str]]:
    """The unordered pairs of ids (or, for a side without a node, folded names) the pair names."""

    def side(ns: tuple[str, ...]) -> set[str]:
        return names.ids(ns) or {"name:" + fold(n) for n in ns}

    return {frozenset((x, y)) for x, y in product(side(p.a), side(p.b)) if x != y}


def name_pair(p: LabelledPair) -> frozenset[str]:
    """The pair as written: the first name of each side, folded."""
    return frozenset((fold(p.a[0]), fold(p.b[0])))


#: The contrast dev splits in the order they were written; each new split is deduplicated against
#: every one before it.
ORDER = ("dev", "dev2", "dev3", "dev4", "dev5", "dev6", "dev7", "dev8", "dev9", "dev10")
EARLIER = {
    name: tuple("contrast_pairs.jsonl" if e == "dev" else f"contrast_pairs_{e}.jsonl" for e in ORDER[:i])
    for i, name in enumerate(ORDER)
    if i >= 2
}


def main(split: str) -> None:
    result = build_graph(default_corpus_dir())
    names = _Names(result.terms)
    test_keys: set[frozenset[str]] = set()
    test_names: set[frozenset[str]] = set()
    for p in load_pairs(HERE / "contrast_pairs_test.jsonl"):
        test_keys |= pair_keys(names, p)
        test_names.add(name_pair(p))
    dev_keys: set[tuple[frozenset[str], str]] = set()
    dev_names: set[tuple[frozenset[str], str]] = set()
    for f in EARLIER[split]:
        if not (HERE / f).exists():
            continue  # dev8 was too small to keep as a split (tests/data/README.md)
        for p in load_pairs(HERE / f):
            dev_keys |= {(k, p.label) for k in pair_keys(names, p)}
            dev_names.add((name_pair(p), p.label))
    text = (HERE / "blind" / f"contrast_pairs_{split}.jsonl").read_text(encoding="utf-8")
    raw = [line for line in text.splitlines() if line.strip()]
    pairs = load_pairs(HERE / "blind" / f"contrast_pairs_{split}.jsonl")
    kept, in_test, exact, same_ids = [], 0, 0, 0
    for line, p in zip(raw, pairs, strict=True):
        keys = pair_keys(names, p)
        if keys & test_keys or name_pair(p) in test_names:
            in_test += 1
        elif (name_pair(p), p.label) in dev_names:
            exact += 1
        else:
            dev_names.add((name_pair(p), p.label))  # a line repeating an earlier one of this file
            same_ids += bool({(k, p.label) for k in keys} & dev_keys)
            kept.append(line)
    (HERE / f"contrast_pairs_{split}.jsonl").write_text("\n".join(kept) + "\n", encoding="utf-8")
    print(
        f"{split}: {len(raw)} written blind; left out: {in_test} test pairs, {exact} exact earlier pairs "
        f"(same two names, same label); {len(kept)} kept, {same_ids} of them naming the two terms "
        "of an earlier dev pair of the same label by other names"
    )


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "dev3")
