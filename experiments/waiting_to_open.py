"""What does it cost to wait before opening?

One player opens only with 60, 70 or 80 points (the Rami 51 threshold is
51), or only when the whole hand goes down at once; the three others play
greedy, opening at their first chance. Each waiting habit is an arm played on
duplicate deals (the four strategies rotate through the seats on every
deal), and every arm plays the same deals as the reference arm, where the
player opens at the first chance like the others. Measured for that player:
points per round (penalty: fewer is better), the share of rounds in which it
is caught unopened (100 points), and its rami sec rate.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import polars as pl
from matplotlib.figure import Figure

from experiments import compare, design, plots, wording
from experiments.design import Arm, Finding

TITLE = "What does it cost to wait before opening?"
REFERENCE = "first chance"
FOCAL = 0  # the waiting player's position in each arm's strategy list


@dataclass(frozen=True)
class Config(design.Config):
    """Config of this experiment.

    Attributes
    ----------
    ruleset : str
        Preset or ruleset file (a Rami 51 ruleset: it has an opening threshold).
    players : int
        Seats at the table.
    waits : tuple of int
        Opening values the waiting player asks for (each one arm).
    whole_hand : bool
        Add the arm that opens only with the whole hand.
    """

    games: int = 5000
    ruleset: str = "rami51"
    players: int = 4
    waits: tuple[int, ...] = (60, 70, 80)
    whole_hand: bool = True


QUICK = {"games": 600}

MEASURES = {
    "points per round": compare.Metric(pl.col("points"), "lower", headline=True),
    "share of rounds caught unopened": compare.Metric(~pl.col("opened") & (pl.col("blocked") == "none"), "lower"),
    "rami sec rate": compare.Metric(pl.col("rami_sec"), "higher"),
}


def arm_names(config: Config) -> list[str]:
    names = [REFERENCE] + [f"wait for {w}" for w in config.waits]
    return names + (["whole hand"] if config.whole_hand else [])


def arms(config: Config) -> list[Arm]:
    from sim import rules

    threshold = rules.as_ruleset(config.ruleset).open_threshold
    bad = [w for w in config.waits if w <= threshold]
    if bad:
        raise ValueError(f"waits must be above the opening threshold {threshold}, got {bad}")
    focal = ["greedy"] + [f"greedy:open_extra={w - threshold}" for w in config.waits]
    if config.whole_hand:
        focal.append("greedy:open_all=1")
    field = ("greedy",) * (config.players - 1)
    return [Arm(name, config.ruleset, (s, *field), duplicate=True) for name, s in zip(arm_names(config), focal)]


def analyse(frame: pl.DataFrame, config: Config) -> list[Finding]:
    comparisons = [compare.Comparison(name, REFERENCE) for name in arm_names(config)[1:]]
    return compare.focal_findings(frame, config, comparisons, MEASURES, FOCAL)


def _describe(name: str) -> str:
    return "opening at the first chance" if name == REFERENCE else (
        "waiting for the whole hand" if name == "whole hand" else name.replace("wait for", "waiting for") + " points")


def conclusions(findings: list[Finding], config: Config) -> list[str]:
    lines = [wording.difference_sentence(f, _describe(f.arms[0]), _describe(f.arms[1]))
             for f in findings if len(f.arms) == 2 and f.metric == "points per round"]
    caught = [f for f in findings if len(f.arms) == 2 and f.metric == "share of rounds caught unopened"]
    if caught:
        f = max(caught, key=lambda f: f.estimate.estimate)
        lines.append(wording.difference_sentence(f, _describe(f.arms[0]), _describe(f.arms[1])))
    return lines


def figures(frame: pl.DataFrame, findings: list[Finding], config: Config) -> dict[str, Figure]:
    diffs = [f for f in findings if len(f.arms) == 2 and f.metric == "points per round"]
    fig1, _ = plots.interval_plot([f.arms[0] for f in diffs], [f.estimate for f in diffs],
                                  f"points per round against opening at the first chance (fewer is better)",
                                  title=f"The waiting player's extra points per round, {config.players} players")
    levels = {m: [f for f in findings if len(f.arms) == 1 and f.metric == m]
              for m in ("share of rounds caught unopened", "rami sec rate")}
    names = arm_names(config)
    fig2, ax = plots.series_plot(range(len(names)), {m: [f.estimate for f in fs] for m, fs in levels.items()},
                                 "the waiting player's habit", "share of its rounds",
                                 title="Caught unopened, and rami sec")
    ax.set_xticks(range(len(names)), names)
    return {"points": fig1, "rates": fig2}


def run(config: Config, out: Path | None = None, progress=None) -> design.Results:
    """Play, analyse and (with ``out``) write the dataset and ``summary.json``."""
    return design.run_experiment(sys.modules[__name__], config, out, progress)
