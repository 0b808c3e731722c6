"""Where each value of a JSON document starts, so that input errors can name ``file:line``.

>>> lines = value_lines('{\\n "sources": [\\n  {"id": "000"}\\n ]\\n}')
>>> lines[("sources", 0, "id")], lines[("sources", 0)], lines[()]
(3, 3, 1)

Keys map to the line of the value (which is the key's line in any ordinary layout). The text
must already be valid JSON (``json.loads`` succeeded); this scanner only records positions. It
is linear in the length of the text and iterative (no recursion limit on deep documents).
"""

from __future__ import annotations

import bisect
import re
from json.decoder import scanstring  # type: ignore[attr-defined]

Path_ = tuple[str | int, ...]

_WS = re.compile(r"[ \t\n\r]*")
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null")


def _skip(text: str, pos: int) -> int:
    """The position after the whitespace at *pos*."""
    m = _WS.match(text, pos)
    return m.end() if m else pos


def value_lines(text: str) -> dict[Path_, int]:
    """JSON path (keys and list indexes) → 1-based line where that value starts."""
    out: dict[Path_, int] = {}
    newlines = [m.start() for m in re.finditer("\n", text)]

    def line_at(pos: int) -> int:
        return bisect.bisect_right(newlines, pos - 1) + 1

    # stack of (path of the container, kind, next index)
    stack: list[tuple[Path_, str, int]] = []
    pos = _skip(text, 0)
    path: Path_ = ()
    while True:
        out[path] = line_at(pos)
        c = text[pos] if pos < len(text) else ""
        if c == "{" or c == "[":
            pos = _skip(text, pos + 1)
            close = "}" if c == "{" else "]"
            if text[pos : pos + 1] == close:
                pos += 1
            else:
                stack.append((path, "object" if c == "{" else "array", 0))
                path, pos = _next_member(text, pos, stack)
                continue
        elif c == '"':
            _, pos = scanstring(text, pos + 1)
        else:
            m = _SCALAR.match(text, pos)
            if m is None:
                raise ValueError(f"not JSON at character {pos}")
            pos = m.end()
        # after a value: a comma (next member) or the end of containers
        while stack:
            pos = _skip(text, pos)
            if text[pos : pos + 1] == ",":
                pos = _skip(text, pos + 1)
                parent, kind, index = stack.pop()
                stack.append((parent, kind, index + 1))
                path, pos = _next_member(text, pos, stack)
                break
            pos += 1  # the closing bracket
            stack.pop()
        else:
            return out


def _next_member(text: str, pos: int, stack: list[tuple[Path_, str, int]]) -> tuple[Path_, int]:
    """The path of the member starting at *pos* and the position of its value."""
    parent, kind, index = stack[-1]
    if kind == "array":
        return (*parent, index), pos
    key, pos = scanstring(text, pos + 1)
    pos = _skip(text, pos)
    pos = _skip(text, pos + 1)  # past the colon
    return (*parent, key), pos


def line_of(lines: dict[Path_, int], *path: str | int) -> int:
    """The line of *path*, else of its nearest enclosing value that has one (1 at worst)."""
    p: Path_ = tuple(path)
    while p not in lines and p:
        p = p[:-1]
    return lines.get(p, 1)
