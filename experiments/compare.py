"""Findings of the commonest design: one seat's habit against a reference, on the same deals.

Each arm seats the strategy under study at position ``focal`` of its list
(the others play the field) on duplicate deals; the reference arm seats the
reference habit there. Both arms play the same games, so a metric of the
focal seat is compared game by game (:func:`experiments.stats.paired_difference`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import polars as pl

from experiments import configs, metrics, stats
from experiments.findings import Finding, rng_for, rounds_by_arm

__all__ = ["Comparison", "Metric", "focal_findings"]


@dataclass(frozen=True)
class Metric:
    """A per-seat-round metric: its value per row, which way is better, whether it is a headline."""

    value: pl.Expr
    better: str = ""
    headline: bool = False
    where: pl.Expr | None = None


@dataclass(frozen=True)
class Comparison:
    """Arm ``arm`` against arm ``reference``, reported in ``group``."""

    arm: str
    reference: str
    group: str = ""


def focal_findings(
    frame: pl.DataFrame,
    config: configs.Config,
    comparisons: Sequence[Comparison],
    measures: Mapping[str, Metric],
    focal: int = 0,
    levels: bool = True,
) -> list[Finding]:
    """Levels of every arm named in ``comparisons`` and the paired difference of each comparison.

    Parameters
    ----------
    frame : polars.DataFrame
        The experiment's rows (arms of :func:`experiments.arms.play_arms`).
    comparisons : sequence of Comparison
    measures : mapping of metric name to Metric
    focal : int
        Position of the seat under study in each arm's strategy list.
    levels : bool
        Also report each arm's level (once per arm).
    """
    findings = []
    seat = pl.col("strategy_index") == focal
    rounds = rounds_by_arm(frame)  # once, rather than for every measure and arm
    for m_index, (name, m) in enumerate(measures.items()):
        where = seat if m.where is None else seat & m.where
        table = metrics.per_game(frame, m.value, where)
        seen: set[str] = set()
        for c_index, c in enumerate(comparisons):
            for arm in (c.reference, c.arm) if levels else ():
                if arm in seen:
                    continue
                seen.add(arm)
                t, n = metrics.cluster_arrays(table, arm=arm)
                est = stats.ratio_estimate(t, n, rng_for(config, 1000 * m_index + len(seen)), config.resamples)
                findings.append(Finding(name, (arm,), est, len(t), rounds.get(arm, 0), c.group, better=m.better))
            arrays = metrics.paired_arrays(table, {"arm": c.arm}, {"arm": c.reference})
            est = stats.paired_difference(*arrays, rng_for(config, 1000 * m_index + 500 + c_index),
                                          config.resamples)
            findings.append(Finding(name, (c.arm, c.reference), est, len(arrays[0]),
                                    rounds.get(c.arm, 0) + rounds.get(c.reference, 0), c.group,
                                    headline=m.headline, better=m.better))
    return findings
