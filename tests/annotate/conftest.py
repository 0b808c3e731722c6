"""Fixtures for the annotation tests: the real bundled glossary and its annotator, once per session."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kg.annotate import AnnotateOptions, Annotation, Annotator
from kg.build import BuildResult
from kg.store import Glossary


@pytest.fixture(scope="session")
def graph_doc(bundled_build: Callable[[], BuildResult]) -> dict[str, Any]:
    return bundled_build().document()


@pytest.fixture(scope="session")
def glossary(graph_doc: dict[str, Any]) -> Glossary:
    return Glossary(graph_doc)


@pytest.fixture(scope="session")
def annotator(glossary: Glossary) -> Annotator:
    return Annotator(glossary)


@pytest.fixture
def ann(annotator: Annotator) -> Any:
    """``ann(text, **options)`` → the annotation; checks every span against the original text."""

    def run(text: str, **options: Any) -> Annotation:
        result = annotator.annotate(text, AnnotateOptions(**options))
        for m in result.mentions:
            assert text[m.start : m.end] == m.text
        return result

    return run
