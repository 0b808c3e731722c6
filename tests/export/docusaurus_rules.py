"""The validation rules of docusaurus-plugin-glossary, ported to Python for the tests."""

from __future__ import annotations

import re
from typing import Any

ID_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_.:-]*$")


def plugin_errors(data: Any) -> list[str]:
    """The checks of ``validateGlossaryData`` (docusaurus-plugin-glossary, src/validation.ts), in Python.

    Non-empty string ``term`` and ``definition``; optional ``abbreviation`` (non-empty string),
    ``relatedTerms`` / ``aliases`` (lists of non-empty strings), ``id`` matching ``ID_RE``;
    no duplicate term (case-insensitive), id (case-insensitive, defaulting to the term with
    spaces as hyphens) or phrase (term names and aliases together); every related term is a term.
    """
    errors: list[str] = []
    if not isinstance(data, dict) or not isinstance(data.get("terms"), list):
        return ["root: needs a terms array"]
    for key in ("title", "description"):
        if key in data and not isinstance(data[key], str):
            errors.append(f"{key}: not a string")
    valid = []
    for i, t in enumerate(data["terms"]):
        errs = []
        for key in ("term", "definition"):
            if not isinstance(t.get(key), str) or not t[key].strip():
                errs.append(f"terms[{i}].{key}: missing or empty")
        if "abbreviation" in t and (not isinstance(t["abbreviation"], str) or not t["abbreviation"].strip()):
            errs.append(f"terms[{i}].abbreviation")
        for key in ("relatedTerms", "aliases"):
            if key in t and (
                not isinstance(t[key], list) or any(not isinstance(x, str) or not x.strip() for x in t[key])
            ):
                errs.append(f"terms[{i}].{key}")
        if "id" in t and (not isinstance(t["id"], str) or not ID_RE.match(t["id"])):
            errs.append(f"terms[{i}].id: {t.get('id')!r}")
        errors += errs
        if not errs:
            valid.append(t)
    seen_terms: set[str] = set()
    seen_ids: set[str] = set()
    seen_phrases: set[str] = set()
    for t in valid:
        name = t["term"].lower()
        if name in seen_terms:
            errors.append(f"duplicate term {t['term']!r}")
        seen_terms.add(name)
        tid = (t.get("id") or re.sub(r"\s+", "-", t["term"].lower())).lower()
        if tid in seen_ids:
            errors.append(f"duplicate id {tid!r}")
        seen_ids.add(tid)
        for phrase in [t["term"], *t.get("aliases", [])]:
            if phrase.lower() in seen_phrases:
                errors.append(f"duplicate phrase {phrase!r}")
            seen_phrases.add(phrase.lower())
    for t in valid:
        for r in t.get("relatedTerms", []):
            if r.lower() not in seen_terms:
                errors.append(f"related term {r!r} does not exist")
    return errors
