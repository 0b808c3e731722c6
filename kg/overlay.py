"""The editorial overlay: decisions the source text cannot make, kept as data.

``corpus/overlay.json`` holds a list of decisions, each with a one-line reason:

- ``name``: give an entry (matched by source and the opening of its text) its
  names — for sentences that name no term or name it mid-sentence;
- ``attach``: add an unnamed entry's definition to the node that has a name;
- ``split``: one sentence defines several terms in a way the parser cannot read;
- ``distinct``: replace an entry's names so it is not merged with a look-alike
  (TPU "TensorCore" vs NVIDIA "Tensor Core");
- ``merge``: two names the text spells differently are one concept;
- ``english``: give the term named ``zh`` the English name ``en`` (and ``abbreviations``)
  that no source gives it; the label is marked ``label_origin: editorial`` everywhere;
- ``drop``: an entry that is not a term;
- ``edge``: drop an edge the rules drew wrongly (``"action": "drop"``: every edge of
  ``type`` between the two named terms, both directions), or add one the rules cannot
  read (``"action": "add"``, with the source's words as ``evidence``, its ``source`` and
  ``line``). Terms are named by any label, alias or abbreviation that names exactly one.

Every decision must be used by the build; an unused one is reported as stale (a drop that
finds no edge, an add whose edge the rules already draw, an ``english`` name for a term the
sources or the name rules already name in English).

Names a decision gives are ``editorial`` (:attr:`kg.model.Name.origin`) unless the entry's
own text contains them: ``name`` only points at the term a sentence names mid-sentence.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kg.model import Edge, Name, RawEntry
from kg.parsers.common import SourceError, name
from kg.textnorm import clean, fold, name_key

OPS = ("name", "attach", "split", "distinct", "merge", "drop", "edge", "english")
EDGE_ACTIONS = ("drop", "add")
EDGE_TYPES = ("related_to", "confused_with")


@dataclass
class Decision:
    """One overlay decision (see module docstring)."""

    index: int
    op: str
    reason: str
    source: str | None = None
    match: str | None = None
    names: list[dict[str, Any]] = field(default_factory=list)
    target: str | None = None
    merge: list[str] = field(default_factory=list)
    # edge decisions
    action: str | None = None
    edge_type: str | None = None
    between: list[str] = field(default_factory=list)
    evidence: str | None = None
    line: int | None = None
    # english decisions: the term's Chinese name, the English name and abbreviations given
    zh: str | None = None
    en: str | None = None
    abbreviations: list[str] = field(default_factory=list)
    overlay_line: int = 1  # where the decision is in overlay.json, for errors
    used: int = 0

    def matches(self, entry: RawEntry) -> bool:
        return (
            self.source == entry.source
            and self.match is not None
            and clean(entry.raw).startswith(clean(self.match))
        )


def _origin(text: str, raw: str) -> str:
    """``source`` when the entry's own text contains the name, else ``editorial``."""
    return "source" if raw and fold(text).replace(" ", "") in fold(raw).replace(" ", "") else "editorial"


def _names(spec: dict[str, Any], raw: str = "") -> list[Name]:
    out: list[Name] = []
    for lang in ("en", "zh"):
        if spec.get(lang):
            text = clean(spec[lang])
            out.append(Name(text, lang, "label", _origin(text, raw)))  # type: ignore[arg-type]
    for abbr in spec.get("abbreviations", []):
        out.append(Name(clean(abbr), "en", "abbr", _origin(clean(abbr), raw)))  # type: ignore[arg-type]
    for alias in spec.get("aliases", []):
        n = name(alias)
        out.append(Name(n.text, n.lang, "alias", _origin(n.text, raw)))  # type: ignore[arg-type]
    return out


def load_overlay(path: Path) -> list[Decision]:
    """Read and validate the overlay; errors name the file and the decision's line."""
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceError(str(path), exc.lineno, f"invalid JSON: {exc.msg}") from exc
    decisions: list[Decision] = []
    lines = text.splitlines()
    for i, raw in enumerate(data.get("decisions", [])):
        key = raw.get("match") or raw.get("merge") or raw.get("between") or raw.get("zh") or "\x00"
        needle = '"' + str(key[0] if isinstance(key, list) and key else key)
        line = next((k + 1 for k, ln in enumerate(lines) if needle in ln), 1)
        op = raw.get("op")
        if op not in OPS:
            raise SourceError(str(path), line, f"decision {i}: unknown op {op!r} (expected one of {OPS})")
        if not raw.get("reason"):
            raise SourceError(str(path), line, f"decision {i}: every decision needs a one-line reason")
        names = raw.get("names", [])
        if isinstance(names, dict):
            names = [names]
        d = Decision(
            index=i,
            op=op,
            reason=raw["reason"],
            source=raw.get("source"),
            match=raw.get("match"),
            names=names,
            target=raw.get("target"),
            merge=list(raw.get("merge", [])),
            action=raw.get("action"),
            edge_type=raw.get("type"),
            between=list(raw.get("between", [])),
            evidence=raw.get("evidence"),
            line=raw.get("line"),
            zh=raw.get("zh"),
            en=raw.get("en"),
            abbreviations=list(raw.get("abbreviations", [])),
            overlay_line=line,
        )
        if op in ("name", "attach", "split", "distinct", "drop") and not (d.source and d.match):
            raise SourceError(str(path), line, f"decision {i}: {op} needs 'source' and 'match'")
        if op == "attach" and not d.target:
            raise SourceError(str(path), line, f"decision {i}: attach needs 'target'")
        if op == "merge" and len(d.merge) < 2:
            raise SourceError(str(path), line, f"decision {i}: merge needs two or more names")
        if op in ("name", "split", "distinct") and not d.names:
            raise SourceError(str(path), line, f"decision {i}: {op} needs 'names'")
        if op == "edge":
            _check_edge_decision(d, str(path), line)
        if op == "english" and not (
            isinstance(d.zh, str) and d.zh.strip() and isinstance(d.en, str) and d.en.strip()
        ):
            raise SourceError(str(path), line, f"decision {i}: english needs 'zh' (the term) and 'en'")
        decisions.append(d)
    return decisions


def _check_edge_decision(d: Decision, path: str, line: int) -> None:
    where = f"decision {d.index}: edge"
    if d.action not in EDGE_ACTIONS:
        raise SourceError(path, line, f"{where} needs 'action' (one of {EDGE_ACTIONS})")
    if d.edge_type not in EDGE_TYPES:
        raise SourceError(path, line, f"{where} needs 'type' (one of {EDGE_TYPES})")
    if len(d.between) != 2 or not all(isinstance(n, str) and n.strip() for n in d.between):
        raise SourceError(path, line, f"{where} needs 'between': two term names")
    if d.action == "add" and not (d.evidence and d.source and isinstance(d.line, int)):
        raise SourceError(path, line, f"{where} add needs the source's words: 'evidence', 'source', 'line'")


def apply_edge_decisions(
    edges: list[Edge], resolve: Callable[[str], set[str]], decisions: list[Decision], path: str
) -> list[Edge]:
    """Apply the ``edge`` decisions to the edges the rules drew; returns the new edge list.

    A name that resolves to several terms is an error naming the overlay line; one that
    resolves to none leaves the decision unused (stale), like an entry decision that matches
    no entry (a corpus without that source).
    """
    out = list(edges)
    for d in decisions:
        if d.op != "edge":
            continue
        ids = []
        for n in d.between:
            found = sorted(resolve(n))
            if len(found) > 1:
                raise SourceError(
                    path,
                    d.overlay_line,
                    f"decision {d.index}: {n!r} names {len(found)} terms ({', '.join(found)})",
                )
            ids += found
        if len(ids) != 2:
            continue  # a term this corpus does not have: the decision is unused (reported as stale)
        pair = {ids[0], ids[1]}
        same = [e for e in out if e.type == d.edge_type and {e.source, e.target} == pair]
        if d.action == "drop":
            if same:
                d.used += 1
                out = [e for e in out if e not in same]
        elif not same:  # add
            d.used += 1
            a, b = sorted(ids) if d.edge_type == "confused_with" else ids  # symmetric: stored a < b
            out.append(
                Edge(a, b, d.edge_type or "", d.evidence or "", "overlay", d.source or "", d.line or 0)
            )
    return out


def apply_entry_decisions(entries: list[RawEntry], decisions: list[Decision]) -> list[RawEntry]:
    """Apply name / attach / split / distinct / drop to the parsed entries.

    ``attach`` entries keep no names; they carry ``alias_of`` so the merger joins
    them to the target node like any other alias statement.
    """
    from kg.model import AliasStatement

    out: list[RawEntry] = []
    consumed: set[int] = set()
    for entry in entries:
        decision = next((d for d in decisions if d.op not in ("merge", "english") and d.matches(entry)), None)
        if decision is None:
            out.append(entry)
            continue
        decision.used += 1
        if decision.op == "drop":
            continue
        if decision.op == "attach":
            entry.names = []
            entry.unnamed = False
            entry.alias_of = AliasStatement(
                target=decision.target or "", relation="same", evidence=decision.reason
            )
            entry.overlay = decision.index
            out.append(entry)
            continue
        if decision.op in ("name", "distinct"):
            entry.names = _names(decision.names[0], entry.raw)
            entry.unnamed = False
            entry.overlay = decision.index
            out.append(entry)
            continue
        # split: one entry per name spec; the sentence stays each one's definition
        if id(entry) in consumed:
            continue
        consumed.add(id(entry))
        group = tuple(n.get("zh") or n.get("en") for n in decision.names)
        for spec in decision.names:
            out.append(
                RawEntry(
                    source=entry.source,
                    line=entry.line,
                    section=entry.section,
                    names=_names(spec, entry.raw),
                    definition=entry.definition,
                    note=entry.note,
                    group=group,  # type: ignore[arg-type]
                    raw=entry.raw,
                    overlay=decision.index,
                )
            )
    # A split sentence may have been parsed into several entries: keep one copy per name.
    seen: set[tuple[str, int, str]] = set()
    deduped = []
    for e in out:
        key = (e.source, e.line, "|".join(n.text for n in e.names))
        if e.overlay is not None and key in seen:
            continue
        seen.add(key)
        deduped.append(e)
    return deduped


def apply_english_decisions(entries: list[RawEntry], decisions: list[Decision], path: str) -> None:
    """Give the entries a decision names by ``zh`` its English name (``editorial`` names).

    A decision is used only where no entry of that name has an English name yet (the
    sources and the name rules come first). An English name that is already another
    entry's name is an error naming the overlay line: joining two terms is a ``merge``.
    """
    strong = ("label", "abbr")
    for d in decisions:
        if d.op != "english" or not d.zh or not d.en:
            continue
        key = name_key(d.zh)
        hits = [e for e in entries if any(n.kind in strong and name_key(n.text) == key for n in e.names)]
        if not hits or any(n.kind in strong and n.lang == "en" for e in hits for n in e.names):
            continue  # a term this corpus lacks, or one the sources name in English: stale
        new = [Name(clean(d.en), "en", "label", "editorial")]
        new += [Name(clean(a), "en", "abbr", "editorial") for a in d.abbreviations]
        taken = {name_key(n.text) for n in new}
        clash = sorted(
            {
                n.text
                for e in entries
                if e not in hits
                for n in e.names
                if n.kind in strong and name_key(n.text) in taken
            }
        )
        if clash:
            raise SourceError(
                path,
                d.overlay_line,
                f"decision {d.index}: {', '.join(clash)} already names another term (use a merge decision)",
            )
        d.used += 1
        for e in hits:
            e.names.extend(new)
