"""A simple term matcher for plain text: longest match over names, word boundaries for Latin names.

This is a stand-in until the shared annotation engine (issue 12, part 1) exists; callers use
only :func:`find_mentions` / :class:`NameMatcher.find`, so swapping it is one import.

Rules, deliberately plain:

* the longest name wins where names overlap (one regular expression, longest alternative first);
* a name with Latin letters or digits at an edge must not touch another letter, digit or ``_``
  on that side ("EP" is not found in "EPYC"); a Chinese edge has no such check;
* a single Latin word matches in its written case (``TTFT``, ``vLLM`` never as ``ttft``), except
  that a lower-case or capitalised word may change the case of its first letter (``Prefill``
  finds "prefill"); longer names (``KV cache``) and Chinese names match case-insensitively;
* a Latin name may take a plural ``s`` or a possessive ``'s`` ("KV caches", "vLLM's").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

_LATIN_EDGE = re.compile(r"[A-Za-z0-9_]")
_SINGLE_LATIN_WORD = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")


@dataclass(frozen=True)
class Mention:
    """A found name: ``text[start:end]``, the name it matched and the id of its term."""

    start: int
    end: int
    name: str
    term_id: str


def _case_sensitive(name: str) -> bool:
    return bool(_SINGLE_LATIN_WORD.match(name))


def _pattern(name: str) -> str:
    body = re.escape(name)
    if not _case_sensitive(name):
        body = f"(?i:{body})"
    if _LATIN_EDGE.match(name[-1]) and name[-1].isalpha():
        body += "(?:'s|s)?"
    if _LATIN_EDGE.match(name[0]):
        body = r"(?<![A-Za-z0-9_])" + body
    if _LATIN_EDGE.match(name[-1]):
        body += r"(?![A-Za-z0-9_])"
    return body


def _written_forms(name: str) -> list[str]:
    """The forms a case-sensitive name is found in: itself, and with the other case of its first
    letter when the rest is lower case ("Prefill" / "prefill")."""
    if name[1:] == name[1:].lower() and name[0].isalpha():
        return list(dict.fromkeys([name, name[0].swapcase() + name[1:]]))
    return [name]


class NameMatcher:
    """Finds the names of *names* (name → term id) in text; see the module docstring for the rules."""

    def __init__(self, names: Mapping[str, str]) -> None:
        self._exact: dict[str, tuple[str, str]] = {}
        self._folded: dict[str, tuple[str, str]] = {}
        forms: list[str] = []
        for name, tid in names.items():
            if not name.strip():
                continue
            if _case_sensitive(name):
                for form in _written_forms(name):
                    self._exact.setdefault(form, (name, tid))
                    forms.append(form)
            else:
                self._folded.setdefault(name.casefold(), (name, tid))
                forms.append(name)
        ordered = sorted(set(forms), key=lambda n: (-len(n), n))
        self._re = re.compile("|".join(_pattern(n) for n in ordered)) if ordered else None

    def _resolve(self, matched: str) -> tuple[str, str] | None:
        for text in (matched, re.sub(r"(?:'s|s)$", "", matched)):
            if text in self._exact:
                return self._exact[text]
            if text.casefold() in self._folded:
                return self._folded[text.casefold()]
        return None

    def find(self, text: str) -> list[Mention]:
        """Non-overlapping mentions in *text*, left to right."""
        if self._re is None:
            return []
        out = []
        for m in self._re.finditer(text):
            hit = self._resolve(m.group(0))
            if hit is not None:
                out.append(Mention(m.start(), m.end(), hit[0], hit[1]))
        return out


def find_mentions(text: str, names: Mapping[str, str]) -> list[Mention]:
    """Mentions of *names* (name → term id) in *text*; builds a :class:`NameMatcher` each call."""
    return NameMatcher(names).find(text)
