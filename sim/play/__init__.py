"""Playing against the lab in a browser: a game with one seat played by a person (:mod:`sim.play.game`) and the
local server that shows it (:mod:`sim.play.server`, ``rami play``; ``docs/play.md``)."""

from sim.play.game import PlayError, TableGame

__all__ = ["PlayError", "TableGame"]
