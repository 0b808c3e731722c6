"""Where a docs build gets the glossary from: a local artifact, or a running glossary-kg API.

Both backends answer the same three questions, so a plugin does not care which one it has:

- :meth:`~LocalBackend.glossary`: the whole graph (for a generated glossary page);
- :meth:`~LocalBackend.annotate_html`: a page's HTML with its term mentions marked up
  (:func:`kg.annotate.rewrite`, or ``POST /v1/annotate`` with ``output: html``);
- :meth:`~LocalBackend.cards`: tooltip cards, in the JSON shape of ``GET /v1/terms/{id}/card``
  (:func:`card_dict`).

:class:`LocalBackend` reads an artifact directory (checked against its manifest) or a graph.json
and never touches the network. :class:`ApiBackend` talks to the API with httpx (a dependency of
the project); it waits and retries when the API answers 503 with ``Retry-After``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import quote

import httpx

from kg.annotate import AnnotateOptions, Annotator, TermCard, rewrite, term_card
from kg.annotate.render import CONFUSED_HEADING
from kg.docs_integrations.source import load_graph
from kg.errors import GlossaryError, TermNotFound
from kg.store import Glossary


class BackendError(Exception):
    """The glossary could not be read or the API could not answer (the message says which)."""


@dataclass(frozen=True)
class AnnotatedPage:
    """A page's HTML with its mentions marked up, the language it was read in and the terms named."""

    html: str
    lang: str
    term_ids: list[str]


def card_dict(card: TermCard) -> dict[str, Any]:
    """A card as ``GET /v1/terms/{id}/card`` returns it (JSON), the warning's heading included."""
    d = card.to_dict()
    d["confused_with_heading"] = CONFUSED_HEADING.get(card.lang, CONFUSED_HEADING["en"])
    return d


class Backend(Protocol):
    def describe(self) -> str: ...

    def glossary(self) -> Glossary: ...

    def annotate_html(self, html: str, options: AnnotateOptions) -> AnnotatedPage: ...

    def cards(self, term_ids: Iterable[str], lang: str) -> dict[str, dict[str, Any]]: ...


# one annotator per graph document (load_graph returns the same object while the file is
# unchanged): `mkdocs serve` rebuilds the site on every edit, the automaton takes a second
_ANNOTATOR: list[tuple[dict[str, Any], Glossary, Annotator]] = []


class LocalBackend:
    """The glossary of an artifact directory or a graph.json file, annotated in process."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = str(path)
        try:
            doc = load_graph(self.path)
        except GlossaryError as exc:
            raise BackendError(f"artifact {self.path!r}: {exc.message}") from None
        if not _ANNOTATOR or _ANNOTATOR[0][0] is not doc:
            glossary = Glossary(doc)
            _ANNOTATOR[:] = [(doc, glossary, Annotator(glossary))]
        _, self._glossary, self._annotator = _ANNOTATOR[0]

    def describe(self) -> str:
        return f"artifact {self.path}"

    def glossary(self) -> Glossary:
        return self._glossary

    def annotate_html(self, html: str, options: AnnotateOptions) -> AnnotatedPage:
        annotation = self._annotator.annotate(html, options)
        return AnnotatedPage(rewrite(annotation, "link"), annotation.lang, annotation.term_ids)

    def cards(self, term_ids: Iterable[str], lang: str) -> dict[str, dict[str, Any]]:
        out = {}
        for tid in term_ids:
            try:
                out[tid] = card_dict(term_card(self._glossary, tid, lang))
            except TermNotFound:
                continue
        return out


class ApiBackend:
    """The glossary of a running API (``glossary serve``): ``/v1/export``, ``/v1/annotate`` and cards."""

    def __init__(self, url: str, timeout: float = 30.0, retries: int = 5) -> None:
        self.url = url.rstrip("/")
        self.retries = retries
        self._client = httpx.Client(
            base_url=self.url, timeout=timeout, headers={"Accept": "application/json"}
        )
        self._glossary: Glossary | None = None

    def describe(self) -> str:
        return f"API {self.url}"

    def close(self) -> None:
        self._client.close()

    def _call(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        for attempt in range(self.retries + 1):
            try:
                resp = self._client.request(method, path, **kwargs)
            except httpx.HTTPError as exc:
                raise BackendError(f"{method} {self.url}{path}: {exc}") from None
            if resp.status_code == 503 and "retry-after" in resp.headers and attempt < self.retries:
                time.sleep(min(float(resp.headers["retry-after"] or 1), 5.0))
                continue
            return resp
        raise AssertionError("unreachable")  # pragma: no cover

    def _json(self, method: str, path: str, **kwargs: Any) -> Any:
        resp = self._call(method, path, **kwargs)
        if resp.status_code != 200:
            raise BackendError(
                f"{method} {self.url}{path} answered {resp.status_code}: {_error_message(resp)}"
            )
        try:
            return resp.json()
        except ValueError:
            raise BackendError(f"{method} {self.url}{path}: the answer is not JSON") from None

    def glossary(self) -> Glossary:
        if self._glossary is None:
            doc = self._json("GET", "/v1/export", params={"format": "json"})
            try:
                self._glossary = Glossary(doc)
            except (KeyError, TypeError, ValueError) as exc:
                raise BackendError(f"{self.url}/v1/export: not a glossary-kg graph ({exc})") from None
        return self._glossary

    def annotate_html(self, html: str, options: AnnotateOptions) -> AnnotatedPage:
        body = {
            "text": html,
            "format": options.format,
            "lang": options.lang,
            "occurrences": options.occurrences,
            "skip_headings": options.skip_headings,
            "include_categories": list(options.include_categories),
            "exclude_categories": list(options.exclude_categories),
            "include_ids": list(options.include_ids),
            "exclude_ids": list(options.exclude_ids),
            "include_mentioned": options.include_mentioned,
            "context": options.context,
            "base_url": options.base_url,
            "url_template": options.url_template,
            "output": "html",
            "markup": "link",
        }
        answer = self._json("POST", "/v1/annotate", json=body)
        return AnnotatedPage(answer["html"], answer["lang"], list(answer["terms"]))

    def cards(self, term_ids: Iterable[str], lang: str) -> dict[str, dict[str, Any]]:
        out = {}
        for tid in term_ids:
            path = f"/v1/terms/{quote(tid, safe='')}/card"
            resp = self._call("GET", path, params={"lang": lang})
            if resp.status_code == 404:
                continue
            if resp.status_code != 200:
                raise BackendError(
                    f"GET {self.url}{path} answered {resp.status_code}: {_error_message(resp)}"
                )
            out[tid] = resp.json()
        return out


def _error_message(resp: httpx.Response) -> str:
    try:
        return str(resp.json()["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return resp.text[:200]
