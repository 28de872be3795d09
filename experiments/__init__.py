"""Experiments: the strategy questions of rummy, answered with paired designs and intervals.

One module per question (its title is the question), on a framework in
three parts in the manner of rliable: :mod:`experiments.metrics` (pure
functions from result rows to per-game sums), :mod:`experiments.stats`
(interval estimates clustered by game) and :mod:`experiments.plots`
(figures, returned, never saved); :mod:`experiments.design` plays the arms
on common deals, declares the typed :class:`~experiments.design.Experiment`
each module gives as its ``EXPERIMENT``, and runs it through the results
store; :mod:`experiments.report` writes the pages of ``reports/``.
"""

from __future__ import annotations

import importlib
import typing

if typing.TYPE_CHECKING:
    from experiments.design import Experiment

__all__ = ["EXPERIMENTS", "REPORTED", "load"]

REPORTED: tuple[str, ...] = (
    "waiting_to_open",
    "holding_jokers",
    "seat_advantage",
    "rule_variants",
    "may_i",
    "time_to_open",
    "discard_pile",
    "joker_fork",
    "opening_fork",
    "expert_vs_greedy",
    "bot_losses",
    "search_player",
    "strength_ladder",
)
"""The experiments of the report, in its order."""

EXPERIMENTS: tuple[str, ...] = REPORTED
"""Every experiment ``rami experiment run`` knows."""


def load(name: str) -> Experiment:
    """The experiment ``name`` (its module's ``EXPERIMENT``); an unknown name raises ``ValueError`` listing the
    known ones."""
    if name not in EXPERIMENTS:
        raise ValueError(f"unknown experiment {name!r}; the experiments are: {', '.join(EXPERIMENTS)}")
    return importlib.import_module(f"experiments.{name}").EXPERIMENT
