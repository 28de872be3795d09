"""Interval estimates for experiment metrics: :mod:`sim.intervals`, under the experiments' name.

The intervals of the experiments, of a simulation's summary and of a
position's rollouts are defined once, in :mod:`sim.intervals` (the
simulator may not import the experiments, so they live there); the
experiments keep importing them from here.
"""

from __future__ import annotations

from sim.intervals import (
    Estimate,
    bootstrap_interval,
    contrast_estimate,
    normal_interval,
    paired_difference,
    ratio_bootstrap_interval,
    ratio_estimate,
    simultaneous_interval,
    survival_curve,
    unpaired_difference,
)

__all__ = [
    "Estimate",
    "bootstrap_interval",
    "contrast_estimate",
    "normal_interval",
    "paired_difference",
    "ratio_bootstrap_interval",
    "ratio_estimate",
    "simultaneous_interval",
    "survival_curve",
    "unpaired_difference",
]
