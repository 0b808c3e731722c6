"""Defaults shared by the command line, the benchmarks and the evaluations (one place, no import
of :mod:`kg.cli` from the modules it drives)."""

from __future__ import annotations

import os
from pathlib import Path

#: Where ``glossary build`` writes and ``glossary serve`` reads the artifact.
DEFAULT_ARTIFACT = Path("build/artifact")
#: ``glossary serve`` starts one worker per core (at most 8).
SERVE_WORKERS = max(1, min(os.cpu_count() or 1, 8))
