"""What an experiment finds: its estimates (:class:`Finding`), a run's results (:class:`Results`), and what
stands behind each estimate: the rounds it was measured on and the bootstrap's random state.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from experiments.configs import Config
from experiments.stats import Estimate

__all__ = ["Finding", "Results", "rng_for", "rounds_by_arm", "rounds_of"]


@dataclass(frozen=True)
class Finding:
    """One estimate of an experiment, as ``summary.json`` lists it.

    Attributes
    ----------
    metric : str
        What is measured, in words ("points per round").
    arms : tuple of str
        One arm (a level) or two (the difference first minus second).
    estimate : Estimate
        The estimate and its 95% intervals, with the resampling unit.
    games, rounds : int
        Games (clusters) and rounds (deals, over every arm and rotation
        involved) behind it.
    group : str
        The slice it belongs to ("4 players"), or "".
    headline : bool
        The sequential mode waits for this interval to reach the precision.
    better : str
        "lower", "higher" or "" when neither way is better, for the wording.
    """

    metric: str
    arms: tuple[str, ...]
    estimate: Estimate
    games: int
    rounds: int
    group: str = ""
    headline: bool = False
    better: str = ""

    def to_dict(self) -> dict[str, Any]:
        e = self.estimate
        return {
            "metric": self.metric, "arms": list(self.arms), "group": self.group,
            "estimate": e.estimate, "low": e.low, "high": e.high,
            "normal_low": e.normal_low, "normal_high": e.normal_high,
            "unit": e.unit, "clusters": e.clusters, "games": self.games, "rounds": self.rounds,
            "variance_ratio": None if math.isnan(e.variance_ratio) else e.variance_ratio,
            "headline": self.headline, "better": self.better,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Finding:
        vr = d.get("variance_ratio")
        e = Estimate(d["estimate"], d["low"], d["high"], d["normal_low"], d["normal_high"], d["clusters"],
                     d["unit"], math.nan if vr is None else vr)
        return cls(d["metric"], tuple(d["arms"]), e, d["games"], d["rounds"], d["group"], d["headline"],
                   d["better"])


@dataclass
class Results:
    """What :func:`run_experiment` returns and writes.

    ``frame`` holds every row played (``arm``, ``rotation`` and the result
    columns); ``provenance`` the versions, sizes and wall time.
    """

    name: str
    title: str
    config: Config
    findings: list[Finding]
    conclusions: list[str]
    frame: pl.DataFrame
    provenance: dict[str, Any] = field(default_factory=dict)
    out: Path | None = None

    def summary(self) -> dict[str, Any]:
        return {
            "experiment": self.name, "question": self.title, "config": self.config.to_dict(),
            "conclusions": self.conclusions, "findings": [f.to_dict() for f in self.findings],
            "provenance": self.provenance,
        }


def rounds_of(frame: pl.DataFrame) -> int:
    """Rounds (deals) in ``frame``, counting each arm and rotation (where the rows have them: a part that is no
    arm labels none)."""
    return frame.select([c for c in ("arm", "rotation", "game", "round") if c in frame.columns]).unique().height


def rounds_by_arm(frame: pl.DataFrame) -> dict[str, int]:
    """:func:`rounds_of` each arm's rows, for every arm of ``frame`` at once (the rounds of several arms add
    up: no round belongs to two)."""
    counts = frame.select("arm", "rotation", "game", "round").unique().group_by("arm").len()
    return dict(zip(counts["arm"].to_list(), counts["len"].to_list()))


def rng_for(config: Config, salt: int) -> np.random.Generator:
    """The bootstrap's random state for one finding: explicit, and the same on every run of ``config``."""
    return np.random.default_rng([config.seed, salt])
