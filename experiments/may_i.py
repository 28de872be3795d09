"""What is "Puis-je ?" worth in Rami contrat?

In Rami contrat a player may ask for the discard out of turn ("Puis-je ?")
and take it with one penalty card from the stock. One player never asks
(``may_i=0``), or asks also for cards that only build a near-meld
(``may_i=2``), while the others ask when the card completes a meld
(``may_i=1``, greedy). Each habit is an arm played on duplicate deals (the
strategies rotate through the seats on every deal) and on the same deals as
the reference arm, where that player asks like the others. Measured for that
player: points per round (penalty, fewer is better), its share of the games
won, and how many cards per round it takes by "Puis-je ?".
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import polars as pl
from matplotlib.figure import Figure

from experiments import compare, design, metrics, plots, stats, wording
from experiments.design import Arm, Finding

TITLE = 'What is "Puis-je ?" worth in Rami contrat?'
FOCAL = 0
REFERENCE = "asks when it completes a meld"
HABITS = {0: "never asks", 1: REFERENCE, 2: "asks also for near-melds"}


@dataclass(frozen=True)
class Config(design.Config):
    """Config of this experiment.

    Attributes
    ----------
    ruleset : str
        A Rami contrat preset or ruleset file.
    players : int
        Seats at the table (3 to 5).
    """

    games: int = 6000
    ruleset: str = "contrat"
    players: int = 4


QUICK = {"games": 800}

MEASURES = {
    "points per round": compare.Metric(pl.col("points"), "lower", headline=True),
    "cards taken by Puis-je per round": compare.Metric(pl.col("may_i"), ""),
}


def arms(config: Config) -> list[Arm]:
    field = ("greedy",) * (config.players - 1)
    return [Arm(HABITS[h], config.ruleset, ("greedy" if h == 1 else f"greedy:may_i={h}", *field), duplicate=True)
            for h in (1, 0, 2)]


def analyse(frame: pl.DataFrame, config: Config) -> list[Finding]:
    comparisons = [compare.Comparison(HABITS[h], REFERENCE) for h in (0, 2)]
    findings = compare.focal_findings(frame, config, comparisons, MEASURES, FOCAL)
    wins = metrics.win_shares(frame).filter(pl.col("strategy_index") == FOCAL)
    for k, h in enumerate((0, 2)):
        arrays = metrics.paired_arrays(wins, {"arm": HABITS[h]}, {"arm": REFERENCE})
        est = stats.paired_difference(*arrays, design.rng_for(config, 9000 + k), config.resamples)
        both = frame.filter(pl.col("arm").is_in([HABITS[h], REFERENCE]))
        findings.append(Finding("share of games won", (HABITS[h], REFERENCE), est, len(arrays[0]),
                                design.rounds_of(both), better="higher"))
    return findings


def conclusions(findings: list[Finding], config: Config) -> list[str]:
    lines = []
    for f in findings:
        if len(f.arms) == 2 and f.metric in ("points per round", "share of games won"):
            lines.append(wording.difference_sentence(f, f"a player who {f.arms[0]}", f"one who {f.arms[1]}"))
    for f in findings:
        if len(f.arms) == 1 and f.metric == "cards taken by Puis-je per round":
            lines.append(wording.level_sentence(f, f"a player who {f.arms[0]} (the others asking when a card "
                                                   "completes a meld)"))
    return lines


def figures(frame: pl.DataFrame, findings: list[Finding], config: Config) -> dict[str, Figure]:
    diffs = [f for f in findings if len(f.arms) == 2 and f.metric == "points per round"]
    fig1, _ = plots.interval_plot([f.arms[0] for f in diffs], [f.estimate for f in diffs],
                                  "points per round against asking when the card completes a meld (fewer is better)",
                                  title=f'"Puis-je ?" habits, Rami contrat, {config.players} players')
    levels = [f for f in findings if len(f.arms) == 1 and f.metric == "cards taken by Puis-je per round"]
    fig2, _ = plots.interval_plot([f.arms[0] for f in levels], [f.estimate for f in levels],
                                  'cards taken by "Puis-je ?" per round', title="How often each habit asks",
                                  reference=None)
    return {"points": fig1, "asks": fig2}


def run(config: Config, out: Path | None = None, progress=None) -> design.Results:
    """Play, analyse and (with ``out``) write the dataset and ``summary.json``."""
    return design.run_experiment(sys.modules[__name__], config, out, progress)
