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

from experiments import compare, configs, metrics, plots, search_player, wording
from experiments.arms import Arm
from experiments.experiment import experiment_from
from experiments.findings import Finding, Results
from experiments.parts import arm_parts

TITLE = "What does holding jokers cost?"
FOCAL = 0
HABITS = {0: "lays jokers at once", 1: "keeps jokers for the opening", 2: "keeps jokers for a rami sec"}


@dataclass(frozen=True)
class Config(configs.Config):
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
        metrics.POINTS_PER_ROUND: compare.Metric(pl.col("points"), "lower", headline=True),
        metrics.JOKER_POINTS_HELD: compare.Metric(_joker_points(config.ruleset), "lower"),
        metrics.JOKER_HELD_ROUNDS: compare.Metric(pl.col("jokers_held") > 0, "lower"),
        metrics.RAMI_SEC_RATE: compare.Metric(pl.col("rami_sec"), "higher"),
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
    sizes = f"{min(config.players)} to {max(config.players)}" if len(config.players) > 1 else str(config.players[0])
    lines = []
    verbs = []
    for habit in (1, 2):
        diffs = [f for f in findings if len(f.arms) == 2 and f.metric == metrics.POINTS_PER_ROUND
                 and f.arms[0].endswith(HABITS[habit])]
        if not diffs:
            continue
        worse = sum(wording.verdict(f) == "higher" for f in diffs)
        better = sum(wording.verdict(f) == "lower" for f in diffs)
        low = min(f.estimate.estimate for f in diffs)
        high = max(f.estimate.estimate for f in diffs)
        verbs.append((habit, worse, better, len(diffs)))
        lines.append(f"{HABITS[habit][0].upper() + HABITS[habit][1:]}: {wording.fmt('points', low, True)} to "
                     f"{wording.fmt('points', high, True)} points per round against laying them at once "
                     f"(measurably more at {worse}, fewer at {better} of {len(diffs)} table sizes).")
    if verbs and all(worse == n for _, worse, _, n in verbs):
        head = (f"In {wording.game_name(config.ruleset)} at a table of {sizes} greedy players, lay your jokers as "
                "soon as they help: keeping them costs points at every table size measured.")
    elif verbs and not any(better for _, _, better, _ in verbs) and any(worse for _, worse, _, _ in verbs):
        head = (f"In {wording.game_name(config.ruleset)} at a table of {sizes} greedy players, lay your jokers as "
                "soon as they help: keeping them never scores measurably fewer points, and costs points at "
                f"{sum(w for _, w, _, _ in verbs)} of the {sum(n for *_, n in verbs)} habits and table sizes measured.")
    elif verbs and any(better for _, _, better, _ in verbs):
        head = (f"In {wording.game_name(config.ruleset)} at a table of {sizes} greedy players, keeping jokers pays "
                "at some table sizes (the table below says which).")
    else:
        head = (f"In {wording.game_name(config.ruleset)} at a table of {sizes} greedy players, keeping jokers does "
                "not measurably beat laying them at once.")
    games = findings[0].estimate.clusters if findings else 0
    return [head, *lines, f"Every interval is 95% over {games:,} games per habit and table size."]


def page_blocks(runs: list[Results]) -> list[tuple]:
    from experiments import report

    return [("h2", "Each habit against laying jokers at once"),
            ("p", "The player's difference from laying its jokers at once, on the same deals (95% interval); points "
                  "are a penalty, fewer is better."),
            report.difference_table(runs, list(_measures(runs[0].config)), lambda f: f"{f.group}: {f.arms[0].split(': ')[1]}")]


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

    fig1, _ = plots.series_plot(list(config.players), {HABITS[h]: pick(metrics.POINTS_PER_ROUND, h, 2) for h in (1, 2)},
                                "players", "points per round against laying jokers at once\n(fewer is better)",
                                title="The cost of keeping jokers, as a policy", reference=0.0)
    fig2, _ = plots.series_plot(list(config.players),
                                {HABITS[h]: pick(metrics.JOKER_POINTS_HELD, h, 1) for h in HABITS},
                                "players", "penalty points of jokers left in hand, per round",
                                title="What jokers still in hand at the end cost")
    return {"policy": fig1, "held": fig2}


EXPERIMENT = experiment_from(sys.modules[__name__],
                             parts=lambda config: arm_parts(arms(config), config.seed),
                             page_blocks=search_player.with_reading("holding_jokers", page_blocks),
                             notes=tuple(NOTES),
                             cites=(search_player.PAGE,))


def run(config: Config, out: Path | None = None, progress=None) -> Results:
    """Play, analyse and (with ``out``) write the dataset and ``summary.json``."""
    return EXPERIMENT.run(config, out, progress)
