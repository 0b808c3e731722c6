"""A small XML element tree that knows the line of every element (for ``file:line`` errors).

:mod:`xml.etree.ElementTree` forgets where elements are, so the TBX importer reads through
expat directly. Namespaces are dropped (``tag`` is the local name; ``xml:lang`` stays
``xml:lang``). Entity declarations are refused: a glossary needs none, and they are how XML
bombs and external-entity reads start; external entities are never loaded.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from xml.parsers import expat

from kg.parsers.common import SourceError

_XML_NS = "http://www.w3.org/XML/1998/namespace"


@dataclass
class Element:
    """An element: local tag, attributes (local names, ``xml:lang``), line, children and text."""

    tag: str
    attrs: dict[str, str]
    line: int
    children: list[Element] = field(default_factory=list)
    parts: list[str | Element] = field(default_factory=list)

    def get(self, name: str, default: str | None = None) -> str | None:
        return self.attrs.get(name, default)

    def find_all(self, *tags: str) -> list[Element]:
        """Direct children with one of *tags*."""
        return [c for c in self.children if c.tag in tags]

    def iter(self, *tags: str) -> Iterator[Element]:
        """This element and its descendants (document order) with one of *tags* (any when none)."""
        stack = [self]
        while stack:
            el = stack.pop()
            if not tags or el.tag in tags:
                yield el
            stack.extend(reversed(el.children))

    def text(self) -> str:
        """All the text inside, markup removed, stripped."""
        out: list[str] = []
        stack: list[str | Element] = [self]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                out.append(item)
            else:
                stack.extend(reversed(item.parts))
        return "".join(out).strip()


def _local(name: str) -> str:
    uri, _, local = name.rpartition(" ")
    return f"xml:{local}" if uri == _XML_NS else local


def parse_xml(text: str, file: str) -> Element:
    """The root element of *text*; SourceError with the line and column of the first XML error."""
    parser = expat.ParserCreate(namespace_separator=" ")
    root: list[Element] = []
    stack: list[Element] = []

    def start(name: str, attrs: dict[str, str]) -> None:
        el = Element(_local(name), {_local(k): v for k, v in attrs.items()}, parser.CurrentLineNumber)
        if stack:
            stack[-1].children.append(el)
            stack[-1].parts.append(el)
        else:
            root.append(el)
        stack.append(el)

    def end(_name: str) -> None:
        stack.pop()

    def chars(data: str) -> None:
        if stack:
            stack[-1].parts.append(data)

    def entity_decl(name: str, *_args: object) -> None:
        raise SourceError(
            file,
            parser.CurrentLineNumber,
            f"<!ENTITY {name}>: entity declarations are not read (a glossary needs none)",
        )

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = chars
    parser.EntityDeclHandler = entity_decl
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    try:
        parser.Parse(text.encode("utf-8"), True)
    except expat.ExpatError as exc:
        message = expat.ErrorString(exc.code)
        raise SourceError(
            file, exc.lineno, f"not well-formed XML: {message} (column {exc.offset + 1})"
        ) from exc
    if not root:
        raise SourceError(file, 1, "no XML element")
    return root[0]
