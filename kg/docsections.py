"""Generated sections of the docs: each command rewrites only its own block.

``docs/EVAL.md`` and ``docs/BENCHMARKS.md`` hold several sections written by different
commands (``glossary eval``, ``glossary eval-chat``, ``glossary bench-*``). A section sits
between ``<!-- BEGIN name -->`` and ``<!-- END name -->``; :func:`replace_section`
replaces it (or appends it) and leaves the rest of the file as it was, so no figure
in the docs is ever typed by hand.
"""

from __future__ import annotations

import re
from pathlib import Path


def replace_section(path: Path, name: str, content: str, title: str | None = None) -> None:
    """Write *content* as section *name* of the markdown file at *path*."""
    begin, end = f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"
    block = f"{begin}\n{content.strip()}\n{end}"
    text = path.read_text(encoding="utf-8") if path.exists() else f"# {title or path.stem}\n"
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.DOTALL)
    if pattern.search(text):
        text = pattern.sub(lambda _m: block, text)
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
