"""Fixtures for the docs-tool tests: the small export document, Sphinx builds in a tmp dir, no network,
the MkDocs plugin's entry point."""

from __future__ import annotations

import copy
import io
import json
import socket
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any

import pytest

from kg.build import BuildResult
from tests.docs_tools.mkdocs_helpers import PLUGIN, declared_entry_point
from tests.export.conftest import DOC


@pytest.fixture(scope="session")
def real_doc(bundled_build: Callable[[], BuildResult]) -> dict[str, Any]:
    """The export document of the real bundled corpus, built once (a few seconds)."""
    return bundled_build().document()


@pytest.fixture
def small_doc() -> dict[str, Any]:
    """The exporters' hand-made document (tests/export/conftest.py) without its dangling edge,
    which a graph.json may not hold (kg.verify.parse_graph rejects it)."""
    doc = copy.deepcopy(DOC)
    doc["edges"] = [e for e in doc["edges"] if e["target"] != "ghost-node"]
    return doc


@pytest.fixture
def graph_json(tmp_path: Path, small_doc: dict[str, Any]) -> Path:
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(small_doc, ensure_ascii=False), encoding="utf-8")
    return path


def refuse_network(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Make any outgoing connection fail (and record it); returns the attempts."""
    attempts: list[Any] = []

    def refuse(self: Any, address: Any, *args: Any, **kwargs: Any) -> None:
        attempts.append(address)
        raise OSError(f"network disabled in this test: {address}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", lambda address, *a, **k: refuse(None, address))
    return attempts


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Any outgoing connection fails (and is recorded): the builds must work offline."""
    return refuse_network(monkeypatch)


@dataclass
class SphinxBuild:
    srcdir: Path
    outdir: Path
    warnings: str

    def html(self, docname: str) -> str:
        return (self.outdir / f"{docname}.html").read_text(encoding="utf-8")


BuildFn = Callable[..., SphinxBuild]


@pytest.fixture
def sphinx_build(tmp_path: Path) -> BuildFn:
    """``sphinx_build(name, conf, pages, fresh=True)``: write ``conf.py`` (a dict of settings) and
    the pages (docname → reST) under ``tmp_path/name/src`` and build HTML with the Sphinx
    application API; returns the output directory and the warnings printed."""
    pytest.importorskip("sphinx", reason="needs the docs extra: pip install -e '.[docs]'")
    from sphinx.application import Sphinx
    from sphinx.util.docutils import docutils_namespace, patch_docutils

    def build(name: str, conf: dict[str, Any], pages: dict[str, str], fresh: bool = True) -> SphinxBuild:
        root = tmp_path / name
        src, out = root / "src", root / "html"
        src.mkdir(parents=True, exist_ok=True)
        settings = {"project": name, "html_theme": "basic", **conf}
        (src / "conf.py").write_text("".join(f"{k} = {v!r}\n" for k, v in settings.items()), encoding="utf-8")
        for docname, text in pages.items():
            (src / f"{docname}.rst").write_text(text, encoding="utf-8")
        warnings = io.StringIO()
        # as sphinx-build does: docutils' registries are per build, not per process
        with patch_docutils(src), docutils_namespace():
            app = Sphinx(
                str(src), str(src), str(out), str(root / "doctrees"), "html",
                status=io.StringIO(), warning=warnings, freshenv=fresh,
            )  # fmt: skip
            app.build()
        return SphinxBuild(src, out, warnings.getvalue())

    return build


@pytest.fixture(scope="session")
def plugin_entry_point() -> Iterator[str]:
    """MkDocs finds plugins by entry point. When this environment has the package installed with
    the entry point (``pip install -e .``), that one is used and must match pyproject.toml; an
    older install without it gets the declared one (what ``pip install`` would register)."""
    pytest.importorskip("mkdocs", reason="needs the docs extra: pip install -e '.[docs]'")
    from mkdocs.config.defaults import MkDocsConfig

    declared = declared_entry_point()
    installed = [e for e in entry_points(group="mkdocs.plugins") if e.name == PLUGIN]
    if installed:
        assert installed[0].value == declared
        yield "installed"
        return
    option = dict(MkDocsConfig._schema)["plugins"]
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(
            option.installed_plugins, PLUGIN, EntryPoint(name=PLUGIN, value=declared, group="mkdocs.plugins")
        )
        yield "declared"
