"""Rami lab: rules, a compiled engine and strategies for French rummy.

``sim.cards`` reads and writes cards, ``sim.rules`` holds rulesets and the
pure-Python rules reference; :func:`simulate` plays many games with the
compiled engine and :func:`play_traced` records every event of one;
:func:`advise` explains what a strategy plays at a position of such a trace.
"""

from typing import Any

from sim import cards, rules

__all__ = ["RESULT_COLUMNS", "advise", "best_openings", "cards", "game_summary", "play_traced", "rules", "simulate"]

_API = ("RESULT_COLUMNS", "game_summary", "play_traced", "simulate")


def __getattr__(name: str) -> Any:
    # The API loads the compiled engine, and the engine's policies load engine
    # primitives: importing it lazily keeps `import sim.engine.x` free of cycles.
    if name in _API:
        from sim import api

        return getattr(api, name)
    if name == "best_openings":
        from sim import openings

        return openings.best_openings
    if name == "advise":
        from sim import advice

        return advice.advise
    raise AttributeError(f"module 'sim' has no attribute {name!r}")
