"""What is the discard pile worth?

One player never takes the discard's top card and always draws from the
stock (``take=0``); the others take it when it helps (it completes a meld of
the hand, fits a table meld, or is a joker), as greedy does. Under Rami 51's
``must_use`` rule a card taken from the pile must be laid in the same turn;
under ``free`` it may be kept. Each rule is a pair of arms on duplicate deals
(the strategies rotate through the seats on every deal): the player who
never takes against the same deals with that player taking like the others.
Measured for that player: points per round (penalty, fewer is better), its
share of the rounds it wins by going out, and how often it takes the pile.
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

TITLE = "What is the discard pile worth?"
FOCAL = 0
MEASURES = {
    metrics.POINTS_PER_ROUND: compare.Metric(pl.col("points"), "lower", headline=True),
    metrics.ROUNDS_WON: compare.Metric(pl.col("went_out"), "higher"),
    metrics.DISCARD_TAKES: compare.Metric(pl.col("discard_takes"), ""),
}


@dataclass(frozen=True)
class Config(configs.Config):
    """Config of this experiment.

    Attributes
    ----------
    ruleset : str
        A Rami 51 preset or ruleset file.
    players : int
        Seats at the table.
    rules : tuple of str
        Values of the ``discard_take`` knob compared (each a group).
    """

    games: int = 5000
    ruleset: str = "rami51"
    players: int = 4
    rules: tuple[str, ...] = ("must_use", "free")


QUICK = {"games": 600}


def arm_name(rule: str, takes: bool) -> str:
    return f"{rule}: {'takes when it helps' if takes else 'never takes'}"


def arms(config: Config) -> list[Arm]:
    from sim import rules

    out = []
    field = ("greedy",) * (config.players - 1)
    for rule in config.rules:
        r = rules.as_ruleset(config.ruleset).replace(discard_take=rule)
        out.append(Arm(arm_name(rule, True), r, ("greedy", *field), duplicate=True))
        out.append(Arm(arm_name(rule, False), r, ("greedy:take=0", *field), duplicate=True))
    return out


def analyse(frame: pl.DataFrame, config: Config) -> list[Finding]:
    comparisons = [compare.Comparison(arm_name(r, False), arm_name(r, True), f"discard_take = {r}")
                   for r in config.rules]
    return compare.focal_findings(frame, config, comparisons, MEASURES, FOCAL)


def conclusions(findings: list[Finding], config: Config) -> list[str]:
    diffs = [f for f in findings if len(f.arms) == 2 and f.metric == metrics.POINTS_PER_ROUND]
    costs = "; ".join(f"{wording.fmt(f.metric, f.estimate.estimate, True)} points per round under {f.group} "
                      f"(95% interval {wording.interval_text(f, True)})" for f in diffs)
    table = f"In {wording.game_name(config.ruleset)} at a table of {config.players} greedy players"
    if diffs and all(wording.verdict(f) == "higher" for f in diffs):
        head = f"{table}, take the discard when it helps: never taking it costs {costs}."
    elif diffs and all(wording.verdict(f) == "lower" for f in diffs):
        head = f"{table}, never taking the discard pays: {costs}."
    else:
        head = f"{table}, never taking the discard against taking it when it helps: {costs}."
    lines = [head]
    for f in findings:
        if len(f.arms) == 1 and f.metric == metrics.DISCARD_TAKES and f.arms[0].endswith("helps"):
            lines.append(f"A greedy player takes it {wording.fmt(f.metric, f.estimate.estimate)} times per round "
                         f"under {f.arms[0].split(':')[0]} (95% interval {wording.interval_text(f)}).")
    games = diffs[0].estimate.clusters if diffs else 0
    lines.append(f"Every interval is 95% over {games:,} games, each habit played from every seat of every deal.")
    return lines


def page_blocks(runs: list[Results]) -> list[tuple]:
    from experiments import report

    return [("h2", "Never taking against taking when it helps"),
            ("p", "The player who never takes, minus the same player taking when it helps, on the same deals "
                  "(95% interval); points are a penalty, fewer is better."),
            report.difference_table(runs, list(MEASURES), lambda f: f.group)]


def figures(frame: pl.DataFrame, findings: list[Finding], config: Config) -> dict[str, Figure]:
    diffs = [f for f in findings if len(f.arms) == 2 and f.metric == metrics.POINTS_PER_ROUND]
    fig1, _ = plots.interval_plot([f.group for f in diffs], [f.estimate for f in diffs],
                                  "points per round, never taking minus taking when it helps (fewer is better)",
                                  title=f"The value of the discard pile, {config.players} players")
    wins = [f for f in findings if len(f.arms) == 2 and f.metric == metrics.ROUNDS_WON]
    fig2, _ = plots.interval_plot([f.group for f in wins], [f.estimate for f in wins],
                                  "share of rounds won, never taking minus taking when it helps",
                                  title="Rounds won without the discard pile")
    return {"points": fig1, "wins": fig2}


EXPERIMENT = experiment_from(sys.modules[__name__],
                             parts=lambda config: arm_parts(arms(config), config.seed),
                             page_blocks=search_player.with_reading("discard_pile", page_blocks),
                             cites=(search_player.PAGE,))


def run(config: Config, out: Path | None = None, progress=None) -> Results:
    """Play, analyse and (with ``out``) write the dataset and ``summary.json``."""
    return EXPERIMENT.run(config, out, progress)
