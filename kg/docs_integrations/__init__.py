"""Glossary-in-docs integrations: the Sphinx extension (:mod:`.sphinx_ext`), the reST glossary it
generates (:mod:`.rst`), the graph loader they share (:mod:`.source`); the MkDocs plugin (:mod:`.mkdocs_plugin`), its glossary page
(:mod:`.glossary_page`) and where it reads the glossary from (:mod:`.backend`: an artifact or a
running API); the tooltip and widget scripts (:mod:`.assets`, files in ``static/``). Nothing here
imports FastAPI; Sphinx is imported only by :mod:`.sphinx_ext` and MkDocs only by
:mod:`.mkdocs_plugin` (the ``docs`` extra). Guide: docs/DOCS-TOOLING.md.
"""
