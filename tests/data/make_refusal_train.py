"""Write kg/chat/data/refusal_train.jsonl: the labelled questions the refusal model learns from.

    python tests/data/make_refusal_train.py

Sources (dev only — never chat_blind_test.jsonl):
- chat_blind_dev.jsonl: every turn that stands on its own (no pronoun, not a clarify turn);
  out_of_domain turns are negatives, the rest positives;
- chat_eval.jsonl (the original hand-written conversations), likewise;
- retrieval_dev.jsonl: every query, a positive;
- refusal_ood_train.jsonl: out-of-domain questions (chit-chat, other fields, near-domain traps,
  invented names) written for training only, negatives;
- refusal_indomain_train.jsonl: in-domain questions (many how-to and "which" questions that name
  no term, colloquial, typos, Traditional) written for training only, positives;
- refusal_ood_train2.jsonl and refusal_indomain_train2.jsonl: a second pair written blind the same
  way by another writer (more near-domain traps and descriptive how-to / "which" questions).
- refusal_ood_train3.jsonl and refusal_indomain_train3.jsonl: a third pair, 300 + 300, written blind
  by a third writer (181 near-domain traps: the glossary's words in other senses — gaming GPUs,
  crypto and lexer tokens, web caches, OS kernels, quant trading, statistical inference …).
- refusal_ood_train6.jsonl and refusal_indomain_train6.jsonl: a sixth pair, 300 + 300, written blind
  from the sources by a fourth writer (120 near-domain traps, 60 invented names, 60 out-of-domain
  judgement questions; in-domain: symptoms, units, typos, translated names, comparisons …). The
  fourth and fifth pairs are never trained on: `glossary eval-refusal` measures on them.
- refusal_ood_train7.jsonl and refusal_indomain_train7.jsonl: a seventh pair, 300 + 300, written
  blind from the sources by a seventh writer: in-domain questions in everyday frames around one
  glossary name ("How does quantization affect output quality?", "How do I pick a batch size?",
  "What determines TTFT?", trade-offs, "when should I use …", plurals and possessives, lowercase
  and typos, a sentence of situation first); out of domain, the same frames around the glossary's
  words in other fields (150 near-domain traps: baking batches, Bluetooth latency, oven
  temperature …), machine learning outside inference (60) and others (90).
"""

from __future__ import annotations

import json
from pathlib import Path

from kg.chat.intents import find_pronouns
from kg.textnorm import fold

HERE = Path(__file__).parent
OUT = HERE.parent.parent / "kg" / "chat" / "data" / "refusal_train.jsonl"


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def examples() -> list[dict]:
    out: list[dict] = []
    # a question that also occurs in the test split ("What is PagedAttention?", "tell me a joke")
    # is left out, so that no test question is ever trained on
    seen: set[str] = {t["user"] for conv in _rows(HERE / "chat_blind_test.jsonl") for t in conv["turns"]}

    def add(text: str, in_domain: bool, origin: str) -> None:
        if text not in seen:
            seen.add(text)
            out.append({"text": text, "in_domain": in_domain, "from": origin})

    for name in ("chat_blind_dev.jsonl", "chat_eval.jsonl"):
        for conv in _rows(HERE / name):
            for turn in conv["turns"]:
                if turn["kind"] == "clarify" or find_pronouns(fold(turn["user"])):
                    continue
                add(turn["user"], turn["kind"] != "out_of_domain", name)
    for q in _rows(HERE / "retrieval_dev.jsonl"):
        add(q["query"], True, "retrieval_dev.jsonl")
    for suffix in ("", "2", "3", "6", "7"):
        for q in _rows(HERE / f"refusal_ood_train{suffix}.jsonl"):
            add(q["text"], False, f"refusal_ood_train{suffix}.jsonl")
        for q in _rows(HERE / f"refusal_indomain_train{suffix}.jsonl"):
            add(q["text"], True, f"refusal_indomain_train{suffix}.jsonl")
    return out


def render() -> str:
    return "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in examples())


if __name__ == "__main__":
    OUT.write_text(render(), encoding="utf-8")
    rows = examples()
    print(f"{len(rows)} examples, {sum(not r['in_domain'] for r in rows)} out of domain -> {OUT}")
