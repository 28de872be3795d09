"""Rami lab: rules, a compiled engine and strategies for French rummy.

``sim.cards`` reads and writes cards, ``sim.rules`` holds rulesets and the
pure-Python rules reference; :func:`simulate` plays many games with the
compiled engine and :func:`play_traced` records every event of one;
:func:`advise` explains what a strategy plays at a position of such a trace.
"""

from typing import Any

from sim import cards, rules

__all__ = ["RESULT_COLUMNS", "advise", "cards", "compare", "game_summary", "play_traced", "rules", "simulate",
           "tournament"]

_API = ("RESULT_COLUMNS", "game_summary", "play_traced", "simulate")


def __getattr__(name: str) -> Any:
    # The API loads the compiled engine, and the engine's policies load engine
    # primitives: importing it lazily keeps `import sim.engine.x` free of cycles.
    if name in _API:
        from sim import api

        return getattr(api, name)
    if name in ("tournament", "compare"):
        # Tournaments and sequential comparisons live with the experiments.
        from experiments import sequential, tournament

        return {"tournament": tournament.tournament, "compare": sequential.compare}[name]
    if name == "advise":
        from sim import advice

        return advice.advise
    raise AttributeError(f"module 'sim' has no attribute {name!r}")
