"""Ablation rows for ``glossary eval``: the served engine with one stage taken out at a time.

Each system is the same loaded engine with some stages skipped for the query
(:attr:`SearchEngine.disabled`) or, for ``hybrid-hand``, ranked by the hand weights instead of
the learned fusion (:mod:`kg.search.fusion`). The fusion is not retrained without the stage, so
a row shows what the stage adds to the served ranking.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from kg.search.engine import SearchEngine

__all__ = ["ABLATIONS", "NOTES", "ablation_systems"]

#: system name → the stages it leaves out
ABLATIONS: dict[str, frozenset[str]] = {
    "hybrid-noexact": frozenset({"exact"}),
    "hybrid-nomention": frozenset({"mention"}),
    "hybrid-nofuzzy": frozenset({"fuzzy"}),
    "hybrid-nolexical": frozenset({"lexical"}),
    "hybrid-nochars": frozenset({"chars"}),
    "hybrid-nodense": frozenset({"dense"}),
    "hybrid-noexamples": frozenset({"examples"}),
}

#: legend lines of the report (kg/evaluation/run.py)
NOTES: dict[str, str] = {
    "hybrid-hand": "hybrid ranked by the hand-picked RRF weights instead of the learned fusion (ablation)",
    **{
        name: f"hybrid without the {', '.join(sorted(stages))} stage (ablation; fusion not retrained)"
        for name, stages in ABLATIONS.items()
    },
}


@contextmanager
def _without(engine: SearchEngine, stages: frozenset[str]) -> Iterator[None]:
    before, engine.disabled = engine.disabled, stages
    try:
        yield
    finally:
        engine.disabled = before


def ablation_systems(engine: SearchEngine, k: int = 10) -> dict[str, Callable[[str], list[str]]]:
    """``hybrid-hand`` (when the engine has a learned fusion) and one ``hybrid-no<stage>`` per stage."""
    systems: dict[str, Callable[[str], list[str]]] = {}
    if engine.fusion is not None:
        model = engine.fusion

        def hand(q: str) -> list[str]:
            engine.fusion = None
            try:
                return engine.rank(q, "hybrid", k)
            finally:
                engine.fusion = model

        systems["hybrid-hand"] = hand
    for name, stages in ABLATIONS.items():
        if ("chars" in stages and engine.chars is None) or ("examples" in stages and engine.examples is None):
            continue

        def without(q: str, stages: frozenset[str] = stages) -> list[str]:
            with _without(engine, stages):
                return engine.rank(q, "hybrid", k)

        systems[name] = without
    return systems
