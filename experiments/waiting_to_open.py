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

from experiments import compare, configs, metrics, plots, search_player, wording
from experiments.arms import Arm
from experiments.experiment import experiment_from
from experiments.findings import Finding, Results
from experiments.parts import arm_parts

TITLE = "What does it cost to wait before opening?"
REFERENCE = "first chance"
FOCAL = 0  # the waiting player's position in each arm's strategy list


@dataclass(frozen=True)
class Config(configs.Config):
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
    metrics.POINTS_PER_ROUND: compare.Metric(pl.col("points"), "lower", headline=True),
    metrics.CAUGHT_UNOPENED: compare.Metric(~pl.col("opened") & (pl.col("blocked") == "none"), "lower"),
    metrics.RAMI_SEC_RATE: compare.Metric(pl.col("rami_sec"), "higher"),
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
    diffs = [f for f in findings if len(f.arms) == 2 and f.metric == metrics.POINTS_PER_ROUND]
    worse = [f for f in diffs if wording.verdict(f) == "higher"]
    better = [f for f in diffs if wording.verdict(f) == "lower"]
    table = f"In {wording.game_name(config.ruleset)} at a table of {config.players} greedy players"
    games = diffs[0].estimate.clusters if diffs else 0
    if better:
        best = min(better, key=lambda f: f.estimate.estimate)
        head = (f"{table}, {_describe(best.arms[0])} pays: "
                f"{wording.fmt(best.metric, best.estimate.estimate, True)} points per round against opening at the "
                f"first chance (95% interval {wording.interval_text(best, True)}).")
    elif len(worse) == len(diffs) and diffs:
        low = min(diffs, key=lambda f: f.estimate.estimate)
        high = max(diffs, key=lambda f: f.estimate.estimate)
        head = (f"{table}, open at your first chance: every wait measured costs points, from "
                f"{wording.fmt(low.metric, low.estimate.estimate, True)} points per round ({_describe(low.arms[0])}, 95% "
                f"interval {wording.interval_text(low, True)}) to {wording.fmt(high.metric, high.estimate.estimate)} "
                f"({_describe(high.arms[0])}, {wording.interval_text(high, True)}).").replace(
                f"to {wording.fmt(high.metric, high.estimate.estimate)} (", f"to {wording.fmt(high.metric, high.estimate.estimate, True)} (")
    else:
        head = (f"{table}, no wait measured scores fewer points than opening at the first chance; "
                f"{len(worse)} of {len(diffs)} score measurably more.")
    caught = [f for f in findings if len(f.arms) == 2 and f.metric == metrics.CAUGHT_UNOPENED]
    lines = [head]
    if caught:
        f = max(caught, key=lambda f: f.estimate.estimate)
        lines.append(f"Most of the cost is being caught unopened: {_describe(f.arms[0])} is caught unopened "
                     f"{wording.fmt(f.metric, f.estimate.estimate, True)} more often (95% interval "
                     f"{wording.interval_text(f, True)}).")
    lines.append(f"Every interval is 95% over {games:,} games per habit, the habit played from every seat of every deal.")
    return lines


def page_blocks(runs: list[Results]) -> list[tuple]:
    from experiments import report

    return [("h2", "Each wait against opening at the first chance"),
            ("p", "The waiting player's difference from opening at the first chance on the same deals (95% interval); "
                  "points are a penalty, fewer is better."),
            report.difference_table(runs, list(MEASURES), lambda f: _describe(f.arms[0]))]


def figures(frame: pl.DataFrame, findings: list[Finding], config: Config) -> dict[str, Figure]:
    diffs = [f for f in findings if len(f.arms) == 2 and f.metric == metrics.POINTS_PER_ROUND]
    fig1, _ = plots.interval_plot([f.arms[0] for f in diffs], [f.estimate for f in diffs],
                                  f"points per round against opening at the first chance (fewer is better)",
                                  title=f"The waiting player's extra points per round, {config.players} players")
    levels = {m: [f for f in findings if len(f.arms) == 1 and f.metric == m]
              for m in (metrics.CAUGHT_UNOPENED, metrics.RAMI_SEC_RATE)}
    names = arm_names(config)
    fig2, ax = plots.series_plot(range(len(names)), {m: [f.estimate for f in fs] for m, fs in levels.items()},
                                 "the waiting player's habit", "share of its rounds",
                                 title="Caught unopened, and rami sec")
    ax.set_xticks(range(len(names)), names)
    return {"points": fig1, "rates": fig2}


EXPERIMENT = experiment_from(sys.modules[__name__],
                             parts=lambda config: arm_parts(arms(config), config.seed),
                             page_blocks=search_player.with_reading("waiting_to_open", page_blocks),
                             cites=(search_player.PAGE,))


def run(config: Config, out: Path | None = None, progress=None) -> Results:
    """Play, analyse and (with ``out``) write the dataset and ``summary.json``."""
    return EXPERIMENT.run(config, out, progress)
