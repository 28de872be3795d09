"""Experiments: the strategy questions of rummy, answered with paired designs and intervals.

One module per question (its title is the question), on a framework in
three parts in the manner of rliable: :mod:`experiments.metrics` (pure
functions from result rows to per-game sums), :mod:`experiments.stats`
(interval estimates clustered by game) and :mod:`experiments.plots`
(figures, returned, never saved). Each module gives its typed config
(:mod:`experiments.configs`), plays arms on common deals
(:mod:`experiments.arms`) as the parts of its run (:mod:`experiments.parts`),
and declares all of it as its ``EXPERIMENT``, a typed
:class:`~experiments.experiment.Experiment`; :mod:`experiments.runner` runs
it through the results store into its findings (:mod:`experiments.findings`),
and :mod:`experiments.report` writes the pages of ``reports/``.
"""

from __future__ import annotations

import importlib
import typing

if typing.TYPE_CHECKING:
    from experiments.experiment import Experiment

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
