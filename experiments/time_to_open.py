"""How long does it take to open?

Tables of greedy players of Rami 51 at several opening thresholds and table
sizes. Every seat of every round is one observation of the time to open,
counted in the seat's own turns: it ends when the seat opens, or is cut
short (censored) when the round ends first. The Kaplan-Meier curve gives the
share of players still waiting to open after each of their turns, with a
95% band from resampling whole games; the report leads with the share
opened by own turns 1, 2, 3, 5 and 10. The median turn to open (where the
curve crosses one half) moves by whole turns on this stepped curve, so it
is given only where it says more than the shares, not where they already
bracket it. A threshold of 51 asks, for instance, for
K♣ K♦ K♥ + 9♠ 10♠ J♠ (30 + 29 = 59 points).
"""

from __future__ import annotations

import math

import sys
from dataclasses import dataclass
from pathlib import Path

import polars as pl
from matplotlib.figure import Figure

from experiments import configs, metrics, plots, search_player, stats, wording
from experiments.arms import Arm
from experiments.experiment import experiment_from
from experiments.findings import Finding, Results, rng_for, rounds_of
from experiments.parts import arm_parts

TITLE = "How long does it take to open?"
HORIZON = 60  # own turns followed; rounds rarely last longer


@dataclass(frozen=True)
class Config(configs.Config):
    """Config of this experiment.

    Attributes
    ----------
    ruleset : str
        A Rami 51 preset or ruleset file.
    thresholds : tuple of int
        Opening thresholds studied.
    players : tuple of int
        Table sizes studied.
    by_turns : tuple of int
        The own turns at which the share of players opened is reported.
    """

    games: int = 2000
    ruleset: str = "rami51"
    thresholds: tuple[int, ...] = (30, 51, 71)
    players: tuple[int, ...] = (2, 3, 4, 5)
    by_turns: tuple[int, ...] = (1, 2, 3, 5, 10)


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
    """Per arm: survival, its band, the median turn and the shares opened by ``by_turns`` (see stats.survival_curve)."""
    if any(t < 1 or t > HORIZON for t in config.by_turns) or not config.by_turns:
        raise ValueError(f"config key 'by_turns' must list own turns from 1 to {HORIZON}, got {config.by_turns!r}")
    keys, events, at_risk = metrics.opening_times(frame, horizon=HORIZON)
    arm_of = keys["arm"].to_numpy()
    out = {}
    for k, (t, p) in enumerate((t, p) for t in config.thresholds for p in config.players):
        name = arm_name(t, p)
        rows = arm_of == name
        out[name] = stats.survival_curve(events[rows], at_risk[rows], rng_for(config, k),
                                         min(config.resamples, 500), by_time=tuple(config.by_turns))
    return out


def share_metric(turn: int) -> str:
    return f"share opened by own turn {turn}"


MEDIAN = "median own turn of opening"


def analyse(frame: pl.DataFrame, config: Config) -> list[Finding]:
    findings = []
    for name, (_, _, _, median, by) in curves(frame, config).items():
        n_rounds = rounds_of(frame.filter(pl.col("arm") == name))
        for turn, share in zip(config.by_turns, by):
            findings.append(Finding(share_metric(turn), (name,), share, share.clusters, n_rounds,
                                    headline=turn == max(config.by_turns)))
        findings.append(Finding(MEDIAN, (name,), median, median.clusters, n_rounds))
    return findings


def _turns(low: float, high: float) -> str:
    """A median turn's interval in words: a resample in which too few players opened gives no bound."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return "no interval at this size"
    return f"{low:.0f} to {high:.0f}"


def median_says_something(f: Finding, turns: tuple[int, ...]) -> bool:
    """Whether a median adds to the shares: known, and not already read from them.

    A median at turn ``m`` says that the share opened crosses one half
    between turns ``m - 1`` and ``m``; when both shares are in the table
    (or ``m`` is 1 and its share is), the median repeats them.
    """
    m = f.estimate.estimate
    if m != m:
        return False
    return not (m in turns and (m == 1 or m - 1 in turns))


def claims(findings: list[Finding], config: Config) -> dict[str, str]:
    """Per threshold, the ordering of the table sizes by the share opened at the last turn reported, in words."""
    out = {}
    last = share_metric(max(config.by_turns))
    for t in config.thresholds:
        shares = {p: next(f for f in findings if f.metric == last and f.arms[0] == arm_name(t, p))
                  for p in config.players}
        for p, q in zip(config.players, config.players[1:]):
            a, b = shares[p].estimate, shares[q].estimate
            word = "more" if a.low > b.high else "fewer" if a.high < b.low else "intervals overlap"
            out[f"threshold {t}: {p} players against {q}, {last}"] = word
    return out


def conclusions(findings: list[Finding], config: Config) -> list[str]:
    lines = []
    early, late = min(config.by_turns), max(config.by_turns)
    mid = sorted(config.by_turns)[len(config.by_turns) // 2]
    for t in config.thresholds:
        def span(turn: int) -> str:
            rows = [f for f in findings if f.metric == share_metric(turn) and f.arms[0].startswith(f"threshold {t},")]
            lo = min(rows, key=lambda f: f.estimate.estimate)
            hi = max(rows, key=lambda f: f.estimate.estimate)
            return (f"{wording.fmt(lo.metric, lo.estimate.estimate)} ({lo.arms[0].split(', ')[1]}) to "
                    f"{wording.fmt(hi.metric, hi.estimate.estimate)} ({hi.arms[0].split(', ')[1]})")
        lines.append(f"With an opening threshold of {t}, players have opened by their own turn {early} in "
                     f"{span(early)}, by turn {mid} in {span(mid)}, and by turn {late} in {span(late)} of rounds.")
    games = findings[0].estimate.clusters
    lines.append(f"Each share carries a 95% interval over games ({games:,} games per table, greedy players); "
                 "the table below gives every threshold and table size.")
    return lines


def page_blocks(runs: list[Results]) -> list[tuple]:
    """One table: the share opened by each reported turn, per threshold and table size, and the median where it helps."""
    first = runs[0]
    config = first.config
    others = [{(f.metric, f.arms[0]): f for f in r.findings} for r in runs[1:]]
    rows = []
    for t in config.thresholds:
        for p in config.players:
            arm = arm_name(t, p)
            cells = []
            for turn in config.by_turns:
                f = next(f for f in first.findings if f.metric == share_metric(turn) and f.arms[0] == arm)
                cell = f"{wording.fmt(f.metric, f.estimate.estimate)} ({wording.interval_text(f)})"
                for other in others:
                    g = other.get((f.metric, arm))
                    if g is not None and (g.estimate.high < f.estimate.low or g.estimate.low > f.estimate.high):
                        cell += " ⚠"
                cells.append(cell)
            m = next(f for f in first.findings if f.metric == MEDIAN and f.arms[0] == arm)
            median = (f"turn {m.estimate.estimate:.0f} ({_turns(m.estimate.low, m.estimate.high)})"
                      if median_says_something(m, tuple(config.by_turns)) else "—")
            rows.append([str(t), str(p), *cells, median])
    return [("h2", "Share of players opened by their own turn"),
            ("p", f"Seed {config.seed}, each share with its 95% interval (games resampled); ⚠: the other seed's "
                  "interval does not overlap. The median turn is given only where the shares do not already say it "
                  "(the curve moves by whole turns: a median at turn 3 with the shares by turns 2 and 3 in the table "
                  "adds nothing)."),
            ("table", ["threshold", "players", *[f"by turn {turn}" for turn in config.by_turns], "median turn"],
             rows)]


def figures(frame: pl.DataFrame, findings: list[Finding], config: Config) -> dict[str, Figure]:
    data = curves(frame, config)
    out = {}
    mid = config.players[len(config.players) // 2]
    fig, _ = plots.survival_plot({f"threshold {t}": data[arm_name(t, mid)][:3] for t in config.thresholds},
                                 "the player's own turn", metrics.NOT_YET_OPENED,
                                 title=f"Time to open by threshold, {mid} players")
    out["by_threshold"] = fig
    t0 = config.thresholds[len(config.thresholds) // 2]
    fig, _ = plots.survival_plot({f"{p} players": data[arm_name(t0, p)][:3] for p in config.players},
                                 "the player's own turn", metrics.NOT_YET_OPENED,
                                 title=f"Time to open by table size, threshold {t0}")
    out["by_players"] = fig
    for fig in out.values():
        fig.axes[0].set_xlim(0, 30.5)  # past 30 own turns, few rounds are still running
    return out


EXPERIMENT = experiment_from(sys.modules[__name__],
                             parts=lambda config: arm_parts(arms(config), config.seed),
                             page_blocks=search_player.with_reading("time_to_open", page_blocks),
                             claims=claims,
                             estimand=ESTIMAND,
                             cites=(search_player.PAGE,))


def run(config: Config, out: Path | None = None, progress=None) -> Results:
    """Play, analyse and (with ``out``) write the dataset and ``summary.json``."""
    return EXPERIMENT.run(config, out, progress)
