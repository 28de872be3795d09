"""What is "Puis-je ?" worth in Rami contrat?

In Rami contrat a player may ask for the discard out of turn ("Puis-je ?")
and take it with one penalty card from the stock. One player at a table of
greedy players keeps one asking habit: it never asks (``may_i=0``); asks
only before laying its contract, for a card that completes a meld
(``may_i=3``); asks for a card that completes a meld before and after its
contract, greedy's own naive habit (``may_i=1``); or asks also for cards
that only build a near-meld (``may_i=2``). The other seats are the same
table in every arm (greedy players, who themselves ask naively). Each habit
is an arm played on duplicate deals (the strategies rotate through the
seats on every deal), every arm on the same deals, and every habit is
compared with never asking on those deals. Measured for that player: points
per round (penalty, fewer is better), its share of the games won, and how
many cards per round it takes by "Puis-je ?".
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import polars as pl
from matplotlib.figure import Figure

from experiments import compare, configs, metrics, plots, search_player, stats, wording
from experiments.arms import Arm
from experiments.experiment import experiment_from
from experiments.findings import Finding, Results, rng_for, rounds_of
from experiments.parts import arm_parts

TITLE = 'What is "Puis-je ?" worth in Rami contrat?'
FOCAL = 0
NEVER = "never asks"
BEFORE = "asks before its contract only"
NAIVE = "asks naively (greedy)"
NEAR = "asks also for near-melds"
HABITS = {NEVER: 0, BEFORE: 3, NAIVE: 1, NEAR: 2}
"""Each arm's habit: the player's ``may_i`` parameter."""
COMPARISONS = [(BEFORE, NEVER), (NAIVE, NEVER), (NEAR, NEVER), (BEFORE, NAIVE)]
"""What is compared, first arm minus second, on the same deals."""

NOTES = [
    "Why the earlier report gave the games-won difference of the near-meld habit against the naive one as "
    "'-25.0pp (-25.0 to -25.0)': its reference arm seated the naive habit at a table of naive askers, four "
    "identical players. Rotated through the four seats, such a player holds every seat of every game once, so "
    "its share of the games won is exactly 1/4 in every game by construction, not by chance; and the near-meld "
    "asker won none of its games. The difference was 0 - 1/4 in every game, and resampling games could not move "
    "it. Every habit is now compared with never asking, whose share of the games won varies from game to game, "
    "and an arm that wins every or no game is written as such, with the rule-of-three bound.",
]


@dataclass(frozen=True)
class Config(configs.Config):
    """Config of this experiment.

    Attributes
    ----------
    ruleset : str
        A Rami contrat preset or ruleset file.
    players : int
        Seats at the table (3 to 5).
    table : str
        The strategy of the other seats, the same in every arm.
    """

    games: int = 6000
    ruleset: str = "contrat"
    players: int = 4
    table: str = "greedy"


QUICK = {"games": 800}

MEASURES = {
    metrics.POINTS_PER_ROUND: compare.Metric(pl.col("points"), "lower", headline=True),
    metrics.MAY_I_TAKEN: compare.Metric(pl.col("may_i"), ""),
}


def arms(config: Config) -> list[Arm]:
    field = (config.table,) * (config.players - 1)
    return [Arm(name, config.ruleset, (f"greedy:may_i={h}", *field), duplicate=True) for name, h in HABITS.items()]


def analyse(frame: pl.DataFrame, config: Config) -> list[Finding]:
    comparisons = [compare.Comparison(a, b) for a, b in COMPARISONS]
    findings = compare.focal_findings(frame, config, comparisons, MEASURES, FOCAL)
    wins = metrics.win_shares(frame).filter(pl.col("strategy_index") == FOCAL)
    for k, name in enumerate(HABITS):
        t, c = metrics.cluster_arrays(wins, arm=name)
        est = stats.ratio_estimate(t, c, rng_for(config, 8000 + k), config.resamples)
        findings.append(Finding(metrics.GAMES_WON, (name,), est, len(t),
                                rounds_of(frame.filter(pl.col("arm") == name)), better="higher"))
    for k, (a, b) in enumerate(COMPARISONS):
        arrays = metrics.paired_arrays(wins, {"arm": a}, {"arm": b})
        est = stats.paired_difference(*arrays, rng_for(config, 9000 + k), config.resamples)
        both = frame.filter(pl.col("arm").is_in([a, b]))
        findings.append(Finding(metrics.GAMES_WON, (a, b), est, len(arrays[0]), rounds_of(both),
                                better="higher"))
    return findings


def _find(findings: list[Finding], metric: str, arms: tuple[str, ...]) -> Finding:
    return next(f for f in findings if f.metric == metric and f.arms == arms)


def _diff(f: Finding) -> str:
    return f"{wording.fmt(f.metric, f.estimate.estimate, True)} ({wording.interval_text(f, True)})"


def claims(findings: list[Finding], config: Config) -> dict[str, str]:
    """Which way each comparison goes (two seeds are compared on these)."""
    return {f"{f.metric}: {f.arms[0]} against {f.arms[1]}": wording.verdict(f)
            for f in findings if len(f.arms) == 2 and f.metric in (metrics.POINTS_PER_ROUND, metrics.GAMES_WON)}


def conclusions(findings: list[Finding], config: Config) -> list[str]:
    points = {a: _find(findings, metrics.POINTS_PER_ROUND, (a, b)) for a, b in COMPARISONS if b == NEVER}
    wins = {a: _find(findings, metrics.GAMES_WON, (a, b)) for a, b in COMPARISONS if b == NEVER}
    best = min(points, key=lambda a: points[a].estimate.estimate)
    games = points[best].estimate.clusters
    table = f"at a table of {config.players} {config.table} players (who themselves ask naively)"
    lines = []
    if wording.verdict(points[best]) == "lower":
        lines.append(f"In Rami contrat {table}, ask \"Puis-je ?\" {best.removeprefix('asks ')}: against never "
                     f"asking it changes your points per round by {_diff(points[best])} and your share of games won "
                     f"by {_diff(wins[best])}.")
    else:
        lines.append(f"In Rami contrat {table}, do not ask \"Puis-je ?\": no habit measured scores fewer points "
                     f"per round than never asking.")
    for a in points:
        if a == best and wording.verdict(points[best]) == "lower":
            continue
        lines.append(f"Against never asking, asking {a.removeprefix('asks ')} changes your points per round by "
                     f"{_diff(points[a])} and your share of games won by {_diff(wins[a])}.")
    naive = _find(findings, metrics.POINTS_PER_ROUND, (BEFORE, NAIVE))
    lines.append(f"Greedy's own habit is the naive one: it also asks after laying its contract, when no new meld "
                 f"may be laid and each card taken only adds to its penalty; stopping at the contract changes its "
                 f"points per round by {_diff(naive)}.")
    lines.append(f"Every interval is 95%, resampling whole games ({games:,} games per habit, every seat of every "
                 "deal played by each habit).")
    return lines


def page_blocks(runs: list[Results]) -> list[tuple]:
    """One table: each habit's level and its difference from never asking, every seed."""
    seeds = [r.config.seed for r in runs]
    rows = []
    for name in HABITS:
        for metric in (metrics.POINTS_PER_ROUND, metrics.GAMES_WON, metrics.MAY_I_TAKEN):
            cells = []
            for r in runs:
                level = _find(r.findings, metric, (name,))
                e = level.estimate
                text = f"{wording.fmt(metric, e.estimate)} ({wording.interval_text(level)})"
                if e.high == e.low:
                    text = constant_sentence(level)
                if name != NEVER and metric != metrics.MAY_I_TAKEN:
                    text += f"; {_diff(_find(r.findings, metric, (name, NEVER)))} against never"
                cells.append(text)
            rows.append([name, metric, *cells])
    return [("h2", "Each habit at the same table"),
            ("p", "Each habit's level (95% interval) and, for points and games won, its difference from never "
                  "asking on the same deals. Points are a penalty: fewer is better."),
            ("table", ["habit", "measure", *[f"seed {s}" for s in seeds]], rows)]


def constant_sentence(f: Finding) -> str:
    """A level that did not vary between games: the value, and what 0 or 1 in every game bounds."""
    e = f.estimate
    text = f"{wording.fmt(f.metric, e.estimate)} in every one of the {e.clusters:,} games"
    if f.arms[0] == NAIVE and f.metric == metrics.GAMES_WON:
        text += " (the same habit as the table's: each of four identical players holds every seat once, 1/players)"
    elif wording.is_share(f.metric) and e.estimate in (0.0, 1.0):
        bound = 3 / e.clusters  # rule of three: no event in n trials bounds its rate by 3/n at 95%
        text += f" (95% bound: {'at most' if e.estimate == 0 else 'at least'} " \
                f"{wording.fmt(f.metric, bound if e.estimate == 0 else 1 - bound)})"
    return text


def figures(frame: pl.DataFrame, findings: list[Finding], config: Config) -> dict[str, Figure]:
    diffs = [f for f in findings if len(f.arms) == 2 and f.metric == metrics.POINTS_PER_ROUND]
    fig1, _ = plots.interval_plot([f"{f.arms[0]} − {f.arms[1]}" for f in diffs], [f.estimate for f in diffs],
                                  "points per round, first habit minus second on the same deals (fewer is better)",
                                  title=f'"Puis-je ?" habits, Rami contrat, {config.players} players',
                                  own_scales=True)
    levels = [f for f in findings if len(f.arms) == 1 and f.metric == metrics.MAY_I_TAKEN]
    fig2, _ = plots.interval_plot([f.arms[0] for f in levels], [f.estimate for f in levels],
                                  'cards taken by "Puis-je ?" per round', title="How often each habit asks",
                                  reference=None)
    return {"points": fig1, "asks": fig2}


EXPERIMENT = experiment_from(sys.modules[__name__],
                             parts=lambda config: arm_parts(arms(config), config.seed),
                             page_blocks=search_player.with_reading("may_i", page_blocks),
                             claims=claims,
                             notes=tuple(NOTES),
                             cites=(search_player.PAGE,))


def run(config: Config, out: Path | None = None, progress=None) -> Results:
    """Play, analyse and (with ``out``) write the dataset and ``summary.json``."""
    return EXPERIMENT.run(config, out, progress)
