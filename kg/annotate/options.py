"""What a caller may ask of the annotator (shared by the CLI, the API, and the docs plugins)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from kg.annotate.markup import FORMATS

Format = Literal["text", "markdown", "html"]
Occurrences = Literal["all", "first", "first-per-section"]
OCCURRENCES: tuple[str, ...] = ("all", "first", "first-per-section")

#: Where a mention links to: ``{base}`` and ``{id}`` (URL-quoted) are filled in.
DEFAULT_URL_TEMPLATE = "{base}/terms/{id}"


@dataclass(frozen=True)
class AnnotateOptions:
    """Options of :meth:`kg.annotate.Annotator.annotate`.

    - ``format``: how to read the page (``text``, ``markdown``, ``html``).
    - ``lang``: the page's language (labels and definitions in it); None: from the page's script.
    - ``occurrences``: ``all`` mentions, the ``first`` of each term per page, or the first per
      section (a heading starts one).
    - ``skip_headings``: never annotate inside headings (nor a table's header row).
    - ``include_categories`` / ``exclude_categories`` / ``include_ids`` / ``exclude_ids``: which
      terms may be annotated (an empty include means every one).
    - ``include_mentioned``: also mentioned-only nodes (no definition of their own).
    - ``context``: everyday words (``token``, ``node``, ``EP``, ``节点``) need their context's
      support (:mod:`kg.annotate.context`); False annotates every match.
    - ``base_url`` / ``url_template``: the link of a term.
    """

    format: Format = "text"
    lang: Literal["zh", "en"] | None = None
    occurrences: Occurrences = "all"
    skip_headings: bool = True
    include_categories: tuple[str, ...] = ()
    exclude_categories: tuple[str, ...] = ()
    include_ids: tuple[str, ...] = ()
    exclude_ids: tuple[str, ...] = ()
    include_mentioned: bool = False
    context: bool = True
    base_url: str = ""
    url_template: str = DEFAULT_URL_TEMPLATE

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {self.format!r}")
        if self.occurrences not in OCCURRENCES:
            raise ValueError(f"occurrences must be one of {', '.join(OCCURRENCES)}, not {self.occurrences!r}")
        if self.lang not in (None, "zh", "en"):
            raise ValueError(f"lang must be zh or en, not {self.lang!r}")
        check_url_template(self.url_template)


def check_url_template(template: str) -> str:
    """*template* when it holds ``{id}`` and no placeholder but ``{base}`` and ``{id}``; else ValueError."""
    if "{id}" not in template:
        raise ValueError("url_template must hold {id}")
    try:
        template.format(base="", id="x")
    except (KeyError, IndexError, ValueError) as exc:
        raise ValueError(
            f"url_template may hold only {{base}} and {{id}} (and {{{{ }}}} for braces): {exc}"
        ) from None
    return template
