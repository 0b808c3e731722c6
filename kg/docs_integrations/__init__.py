"""Glossary-in-docs integrations: the Sphinx extension (:mod:`.sphinx_ext`), the reST glossary it
generates (:mod:`.rst`), the graph loader they share (:mod:`.source`) and a simple mention matcher
(:mod:`.matcher`). Nothing here imports FastAPI; Sphinx is imported only by :mod:`.sphinx_ext`
(the ``docs`` extra). Guide: docs/DOCS-TOOLING.md.
"""
