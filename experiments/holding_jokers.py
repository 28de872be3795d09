"""What does holding jokers cost?

Two readings. First, what jokers still in hand at the end of a round cost:
each is a 20-point penalty under Rami 51 for a player who has opened (an
unopened hand pays 100 however many jokers it holds), so the joker points
per round measure what held jokers actually cost a greedy player. Second, as
a policy: one player keeps its jokers, either for its opening (``jokers=1``)
or for going out in one turn with a rami sec (``jokers=2``), while the others
lay them as soon as they help (``jokers=0``, greedy). Each habit is an arm
played on duplicate deals (the strategies rotate through the seats on every
deal) and on the same deals as the reference arm, where that player lays
its jokers at once like the others; from 2 to 5 players.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import polars as pl
from matplotlib.figure import Figure

from experiments import compare, design, plots, wording
from experiments.design import Arm, Finding

TITLE = "What does holding jokers cost?"
FOCAL = 0
HABITS = {0: "lays jokers at once", 1: "keeps jokers for the opening", 2: "keeps jokers for a rami sec"}


@dataclass(frozen=True)
class Config(design.Config):
    """Config of this experiment.

    Attributes
    ----------
    ruleset : str
        A Rami 51 preset or ruleset file.
    players : tuple of int
        Table sizes, each a group of arms.
    """

    games: int = 2000
    ruleset: str = "rami51"
    players: tuple[int, ...] = (2, 3, 4, 5)


QUICK = {"games": 200}

NOTES = [
    "A greedy player (jokers=0) lays a joker as soon as it helps, so the jokers it still holds at the end of a "
    "round are held in rounds it never opened, where the hand pays the flat 100 points whatever it holds, or "
    "in blocked rounds, which score nothing: in the joker points per round of this report it pays nothing for "
    "them (the table shows it).",
]


def _joker_points(ruleset: str) -> pl.Expr:
    from sim import rules

    penalty = rules.as_ruleset(ruleset).joker_penalty
    charged = pl.col("opened") & ~pl.col("went_out") & (pl.col("blocked") == "none")
    return pl.when(charged).then(pl.col("jokers_held") * penalty).otherwise(0)


def _measures(config: Config) -> dict[str, compare.Metric]:
    return {
        "points per round": compare.Metric(pl.col("points"), "lower", headline=True),
        "joker points in hand per round": compare.Metric(_joker_points(config.ruleset), "lower"),
        "share of rounds ending with a joker in hand": compare.Metric(pl.col("jokers_held") > 0, "lower"),
        "rami sec rate": compare.Metric(pl.col("rami_sec"), "higher"),
    }


def arm_name(players: int, habit: int) -> str:
    return f"{players} players: {HABITS[habit]}"


def arms(config: Config) -> list[Arm]:
    out = []
    for p in config.players:
        for habit in HABITS:
            focal = "greedy" if habit == 0 else f"greedy:jokers={habit}"
            out.append(Arm(arm_name(p, habit), config.ruleset, (focal,) + ("greedy",) * (p - 1), duplicate=True))
    return out


def analyse(frame: pl.DataFrame, config: Config) -> list[Finding]:
    comparisons = [compare.Comparison(arm_name(p, h), arm_name(p, 0), f"{p} players")
                   for p in config.players for h in (1, 2)]
    return compare.focal_findings(frame, config, comparisons, _measures(config), FOCAL)


def conclusions(findings: list[Finding], config: Config) -> list[str]:
    lines = []
    for f in findings:
        if len(f.arms) == 2 and f.metric == "points per round":
            habit = f.arms[0].split(": ", 1)[1]
            lines.append(wording.difference_sentence(f, f"a player who {habit}", "one who lays them at once"))
    for habit in HABITS:
        for metric in ("share of rounds ending with a joker in hand", "joker points in hand per round"):
            f = next((f for f in findings if len(f.arms) == 1 and f.metric == metric
                      and f.arms[0] == arm_name(_middle(config), habit)), None)
            if f is not None:
                lines.append(wording.level_sentence(f, f"a player who {HABITS[habit]}"))
    return lines


def _middle(config: Config) -> int:
    """The table size the level sentences speak of: 4 players when studied."""
    return 4 if 4 in config.players else config.players[len(config.players) // 2]


def figures(frame: pl.DataFrame, findings: list[Finding], config: Config) -> dict[str, Figure]:
    def pick(metric: str, habit: int, n_arms: int) -> list:
        out = []
        for p in config.players:
            arm = arm_name(p, habit)
            out.extend(f.estimate for f in findings if f.metric == metric and f.arms[0] == arm
                       and len(f.arms) == n_arms)
        return out

    fig1, _ = plots.series_plot(list(config.players), {HABITS[h]: pick("points per round", h, 2) for h in (1, 2)},
                                "players", "points per round against laying jokers at once\n(fewer is better)",
                                title="The cost of keeping jokers, as a policy", reference=0.0)
    fig2, _ = plots.series_plot(list(config.players),
                                {HABITS[h]: pick("joker points in hand per round", h, 1) for h in HABITS},
                                "players", "penalty points of jokers left in hand, per round",
                                title="What jokers still in hand at the end cost")
    return {"policy": fig1, "held": fig2}


def run(config: Config, out: Path | None = None, progress=None) -> design.Results:
    """Play, analyse and (with ``out``) write the dataset and ``summary.json``."""
    return design.run_experiment(sys.modules[__name__], config, out, progress)
