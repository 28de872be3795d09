"""How long does it take to open?

Tables of greedy players of Rami 51 at several opening thresholds and table
sizes. Every seat of every round is one observation of the time to open,
counted in the seat's own turns: it ends when the seat opens, or is cut
short (censored) when the round ends first. The Kaplan-Meier curve gives the
share of players still waiting to open after each of their turns, with a
95% band from resampling whole games; the median turn to open is where the
curve crosses one half. A threshold of 51 asks, for instance, for
K♣ K♦ K♥ + 9♠ 10♠ J♠ (30 + 29 = 59 points).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import polars as pl
from matplotlib.figure import Figure

from experiments import design, metrics, plots, stats, wording
from experiments.design import Arm, Finding

TITLE = "How long does it take to open?"
HORIZON = 60  # own turns followed; rounds rarely last longer


@dataclass(frozen=True)
class Config(design.Config):
    """Config of this experiment.

    Attributes
    ----------
    ruleset : str
        A Rami 51 preset or ruleset file.
    thresholds : tuple of int
        Opening thresholds studied.
    players : tuple of int
        Table sizes studied.
    by_turn : int
        The own turn at which the share of players opened is reported.
    """

    games: int = 2000
    ruleset: str = "rami51"
    thresholds: tuple[int, ...] = (30, 51, 71)
    players: tuple[int, ...] = (2, 3, 4, 5)
    by_turn: int = 10


QUICK = {"games": 200}

ESTIMAND = ("the share of players opened by their own turn t is one minus the Kaplan-Meier survival at t, pooled "
            "over every seat-round of every game (each seat-round counts once, so a game of more rounds weighs "
            "more; a round that ended before turn t leaves the count at its last turn, not as a failure to open); "
            "intervals resample whole games.")


def arm_name(threshold: int, players: int) -> str:
    return f"threshold {threshold}, {players} players"


def arms(config: Config) -> list[Arm]:
    from sim import rules

    base = rules.as_ruleset(config.ruleset)
    return [Arm(arm_name(t, p), base.replace(open_threshold=t), ("greedy",) * p)
            for t in config.thresholds for p in config.players]


def curves(frame: pl.DataFrame | pl.LazyFrame, config: Config) -> dict[str, tuple]:
    """Per arm: survival, its band, the median turn and the share opened by ``by_turn`` (see stats.survival_curve)."""
    keys, events, at_risk = metrics.opening_times(frame, horizon=HORIZON)
    arm_of = keys["arm"].to_numpy()
    out = {}
    for k, (t, p) in enumerate((t, p) for t in config.thresholds for p in config.players):
        name = arm_name(t, p)
        rows = arm_of == name
        out[name] = stats.survival_curve(events[rows], at_risk[rows], design.rng_for(config, k),
                                         min(config.resamples, 500), by_time=config.by_turn)
    return out


def analyse(frame: pl.DataFrame, config: Config) -> list[Finding]:
    findings = []
    for name, (_, _, _, median, by) in curves(frame, config).items():
        n_rounds = design.rounds_of(frame.filter(pl.col("arm") == name))
        findings.append(Finding("median own turn of opening", (name,), median, median.clusters, n_rounds))
        findings.append(Finding(f"share opened by own turn {config.by_turn}", (name,), by, by.clusters, n_rounds,
                                headline=True))
    return findings


def conclusions(findings: list[Finding], config: Config) -> list[str]:
    lines = []
    for t in config.thresholds:
        medians = [f for f in findings if f.metric == "median own turn of opening"
                   and f.arms[0].startswith(f"threshold {t},")]
        shares = [f for f in findings if f.metric.startswith("share opened") and f.arms[0].startswith(f"threshold {t},")]
        sizes = ", ".join(str(p) for p in config.players)
        known = [f for f in medians if f.estimate.estimate == f.estimate.estimate]
        if known:
            low = min(f.estimate.low for f in known)
            high = max(f.estimate.high for f in known)
            values = sorted({f"{f.estimate.estimate:.0f}" for f in known})
            head = (f"Threshold {t}: half the players have opened by their own turn {' or '.join(values)} "
                    f"at {sizes} players (95% intervals within turns {low:.0f} to {high:.0f})")
        else:
            head = f"Threshold {t}: fewer than half the players open within {HORIZON} of their turns"
        if len(known) < len(medians):
            head += f"; at {len(medians) - len(known)} table sizes fewer than half ever open in the round"
        lo = min(shares, key=lambda f: f.estimate.estimate)
        hi = max(shares, key=lambda f: f.estimate.estimate)
        lines.append(f"{head}; by their own turn {config.by_turn}, {wording.fmt(lo.metric, lo.estimate.estimate)} "
                     f"({lo.arms[0].split(', ')[1]}) to {wording.fmt(hi.metric, hi.estimate.estimate)} "
                     f"({hi.arms[0].split(', ')[1]}) have opened ({lo.estimate.clusters:,} games per table).")
    return lines


def figures(frame: pl.DataFrame, findings: list[Finding], config: Config) -> dict[str, Figure]:
    data = curves(frame, config)
    out = {}
    mid = config.players[len(config.players) // 2]
    fig, _ = plots.survival_plot({f"threshold {t}": data[arm_name(t, mid)][:3] for t in config.thresholds},
                                 "the player's own turn", "share of players not yet opened",
                                 title=f"Time to open by threshold, {mid} players")
    out["by_threshold"] = fig
    t0 = config.thresholds[len(config.thresholds) // 2]
    fig, _ = plots.survival_plot({f"{p} players": data[arm_name(t0, p)][:3] for p in config.players},
                                 "the player's own turn", "share of players not yet opened",
                                 title=f"Time to open by table size, threshold {t0}")
    out["by_players"] = fig
    for fig in out.values():
        fig.axes[0].set_xlim(0, 30.5)  # past 30 own turns, few rounds are still running
    return out


def run(config: Config, out: Path | None = None, progress=None) -> design.Results:
    """Play, analyse and (with ``out``) write the dataset and ``summary.json``."""
    return design.run_experiment(sys.modules[__name__], config, out, progress)
