"""Rami lab: rules, a compiled engine and strategies for French rummy.

``sim.cards`` reads and writes cards, ``sim.rules`` holds rulesets and the
pure-Python rules reference; :func:`simulate` plays many games with the
compiled engine (or writes them to a results dataset that :func:`load`
reads back) and :func:`play_traced` records every event of one;
:func:`odds` counts the odds of the first hands on the engine's deals;
:func:`advise` explains what a strategy plays at a position of such a trace;
a :class:`Position` stops a round at a decision and :func:`rollout` plays
each of its choices out on the same futures; :func:`analyse` values every
decision of a traced game that way and :func:`review` every decision of a
game record, a game written down from one seat's view; :func:`agreement` measures how often a
strategy chooses what the searching player would at the same positions.

A study file (``docs/studies.md``) runs on the experiments' machinery, which
builds on this package: `experiments.report.run_study` runs it, since
the simulator never imports the experiments.
"""

from typing import Any

from sim import cards, provenance, rules

__all__ = [
    "GAME_COLUMNS", "Position", "RESULT_COLUMNS", "ROUND_COLUMNS", "__version__", "advise", "agreement", "analyse",
    "best_openings", "cards", "game_summary", "load", "odds", "play_traced", "review", "rollout", "rules",
    "search_effort", "simulate",
]

# A source tree that was never installed still gives a version number (``rami --version``).
__version__ = provenance.package_version() if provenance.package_version() != provenance.UNKNOWN else "0+unknown"

_API = ("GAME_COLUMNS", "RESULT_COLUMNS", "ROUND_COLUMNS", "game_summary", "load", "play_traced", "search_effort",
        "simulate")


def __getattr__(name: str) -> Any:
    # The API loads the compiled engine, and the engine's policies load engine
    # primitives: importing it lazily keeps `import sim.engine.x` free of cycles.
    if name in _API:
        from sim import api

        return getattr(api, name)
    if name == "best_openings":
        from sim import openings

        return openings.best_openings
    if name == "odds":
        from sim import odds_tables

        return odds_tables.odds
    if name == "Position":
        from sim import position

        return position.Position
    if name == "rollout":
        # sim.rollouts.rollout, which also takes a position typed in the seat view notation.
        from sim import advice

        return advice.rollout
    if name == "analyse":
        from sim.analysis.analyse import analyse

        return analyse
    if name == "review":
        from sim.analysis.review import review

        return review
    if name == "study":
        # A study runs on the experiments' machinery (designs, intervals, the report), which builds on the
        # simulator: the call goes from the experiments down, never from here up.
        raise AttributeError("sim.study is experiments.report.run_study: a study runs on the experiments' machinery, "
                             "which the simulator never imports")
    if name == "agreement":
        from sim import agreements

        return agreements.agreement
    if name == "advise":
        from sim import advice

        return advice.advise
    raise AttributeError(f"module 'sim' has no attribute {name!r}")
