"""Does the seat, or playing first, give an advantage?

Tables of greedy players of Rami 51 (2 to 5 players), Rami contrat (3 to 5)
and basic rummy (2 to 6). The first player of round ``r`` is seat
``r mod players``, so seat 0 plays first in the first round and the turn to
play first passes round the table. Two measures: the share of games each
seat wins, against the fair share ``1/players`` (a tie shares the win), and,
round by round, how the first player fares against the others of the same
round: its points minus the mean of theirs (a paired difference inside each
round; in basic rummy points are the winner's gain, elsewhere a penalty),
and its share of rounds won against ``1/players``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist

import polars as pl
from matplotlib.figure import Figure

from experiments import design, metrics, plots, stats, wording
from experiments.design import Arm, Finding

TITLE = "Does the seat, or playing first, give an advantage?"
TABLES = {"rami51": (2, 3, 4, 5), "contrat": (3, 4, 5), "basic": (2, 3, 4, 5, 6)}


@dataclass(frozen=True)
class Config(design.Config):
    """Config of this experiment.

    Attributes
    ----------
    games_played : tuple of str
        The games (presets) studied; each with the table sizes it allows.
    max_players : int
        Largest table studied.
    """

    games: int = 6000
    games_played: tuple[str, ...] = ("rami51", "contrat", "basic")
    max_players: int = 6


QUICK = {"games": 800}


def _tables(config: Config) -> list[tuple[str, int]]:
    unknown = [g for g in config.games_played if g not in TABLES]
    if unknown:
        raise ValueError(f"unknown game {unknown[0]!r}; the games are: {', '.join(TABLES)}")
    return [(g, p) for g in config.games_played for p in TABLES[g] if p <= config.max_players]


def arm_name(game: str, players: int) -> str:
    return f"{game}, {players} players"


def arms(config: Config) -> list[Arm]:
    return [Arm(arm_name(g, p), g, ("greedy",) * p) for g, p in _tables(config)]


def analyse(frame: pl.DataFrame, config: Config) -> list[Finding]:
    findings = []
    wins = metrics.win_shares(frame, key="seat")
    first = pl.col("seat") == pl.col("first")
    players = pl.col("seat").max().over("arm", "rotation", "game", "round") + 1
    per_round = frame.with_columns(players.alias("players"),
                                   pl.col("points").sum().over("arm", "rotation", "game", "round").alias("all_points"))
    # The first player's points minus the mean of the others of its round.
    edge = pl.col("points") - (pl.col("all_points") - pl.col("points")) / (pl.col("players") - 1)
    points = metrics.per_game(per_round, edge, first)
    rounds_won = metrics.per_game(per_round, pl.col("went_out").cast(pl.Float64) - 1.0 / pl.col("players"), first)
    for k, (game, p) in enumerate(_tables(config)):
        arm = arm_name(game, p)
        n_rounds = design.rounds_of(frame.filter(pl.col("arm") == arm))
        for seat in range(p):
            t, c = metrics.cluster_arrays(wins, arm=arm, seat=seat)
            est = stats.ratio_estimate(t - c / p, c, design.rng_for(config, 100 * k + seat), config.resamples)
            findings.append(Finding("share of games won above 1/players", (arm,), est, len(t), n_rounds,
                                    f"seat {seat}", headline=True))
        better = "higher" if game == "basic" else "lower"
        t, c = metrics.cluster_arrays(points, arm=arm)
        est = stats.ratio_estimate(t, c, design.rng_for(config, 100 * k + 50), config.resamples)
        findings.append(Finding("points per round, first player minus the others", (arm,), est, len(t), n_rounds,
                                "first player", better=better))
        t, c = metrics.cluster_arrays(rounds_won, arm=arm)
        est = stats.ratio_estimate(t, c, design.rng_for(config, 100 * k + 51), config.resamples)
        findings.append(Finding("share of rounds won above 1/players", (arm,), est, len(t), n_rounds,
                                "first player", headline=True, better="higher"))
    return findings


def _simultaneous(f: Finding, family: int) -> tuple[float, float]:
    """The normal interval of ``f`` widened to 95% for all ``family`` table sizes at once (Bonferroni)."""
    e = f.estimate
    z = NormalDist().inv_cdf(1 - 0.025 / family)
    half = (e.normal_high - e.normal_low) / 2 * z / 1.96
    return e.estimate - half, e.estimate + half


def _summary(findings: list[Finding], game: str, subject: str, verb: str, unit: str) -> str:
    """One sentence per game: the table sizes where ``subject`` has a measurable edge, or none.

    A claim about "any table size" is a family of tests: an edge counts only
    when its interval excludes zero with 95% for all the game's table sizes
    together (Bonferroni), so a single size crossing zero by chance is not
    reported as an advantage; the table of findings keeps each size's own
    95% interval.
    """
    rows = [f for f in findings if f.arms[0].startswith(f"{game},")]
    sizes = ", ".join(f.arms[0].split(", ")[1].split()[0] for f in rows)
    bounds = {id(f): _simultaneous(f, len(rows)) for f in rows}
    moved = [f for f in rows if bounds[id(f)][0] > 0 or bounds[id(f)][1] < 0]
    level = f"95% intervals holding for the {len(rows)} table sizes together"
    if not moved:
        low = min(bounds[id(f)][0] for f in rows)
        high = max(bounds[id(f)][1] for f in rows)
        return (f"{game}: no measurable advantage for {subject} at {sizes} players ({level} all include zero "
                f"and span {wording.fmt(rows[0].metric, low, True)} to {wording.fmt(rows[0].metric, high, True)}; "
                f"{rows[0].estimate.clusters:,} games each).")
    parts = [f"{wording.fmt(f.metric, abs(f.estimate.estimate)).replace('%', ' percentage points')} "
             f"{'more' if f.estimate.estimate > 0 else 'less'} often than a fair share of {unit} at "
             f"{f.arms[0].split(', ')[1]} ({wording.fmt(f.metric, bounds[id(f)][0], True)} to "
             f"{wording.fmt(f.metric, bounds[id(f)][1], True)})" for f in moved]
    still = len(rows) - len(moved)
    tail = f"; no measurable difference at the other {still} table size{'s' if still > 1 else ''}" if still else ""
    return (f"{game}: {subject} {verb} " + "; ".join(parts) + tail
            + f" ({level}; {moved[0].estimate.clusters:,} games each).")


def conclusions(findings: list[Finding], config: Config) -> list[str]:
    lines = []
    games = [f for f in findings if f.metric == "share of games won above 1/players" and f.group == "seat 0"]
    rounds = [f for f in findings if f.metric == "share of rounds won above 1/players"]
    for game in config.games_played:
        lines.append(_summary(games, game, "the seat that plays first in the first round", "wins", "games"))
    for game in config.games_played:
        lines.append(_summary(rounds, game, "the round's first player", "goes out", "rounds"))
    return lines


def figures(frame: pl.DataFrame, findings: list[Finding], config: Config) -> dict[str, Figure]:
    tables = _tables(config)
    sizes = sorted({p for _, p in tables})
    out = {}

    def series(metric: str, group: str) -> dict[str, list]:
        result = {}
        for game in config.games_played:
            pts = [next(f.estimate for f in findings if f.metric == metric and f.group == group
                        and f.arms[0] == arm_name(game, p)) for p in sizes if (game, p) in tables]
            xs = [p for p in sizes if (game, p) in tables]
            result[game] = (xs, pts)
        return result

    for key, metric, group, title in (
        ("first_player", "share of rounds won above 1/players", "first player",
         "The round's first player: rounds won above a fair share"),
        ("seat0", "share of games won above 1/players", "seat 0",
         "The seat that plays first in the first round: games won above a fair share"),
    ):
        fig, _ = plots.series_plot(sizes, series(metric, group), "players", metric, title=title, reference=0.0,
                                   percent=True)
        out[key] = fig
    return out


def run(config: Config, out: Path | None = None, progress=None) -> design.Results:
    """Play, analyse and (with ``out``) write the dataset and ``summary.json``."""
    return design.run_experiment(sys.modules[__name__], config, out, progress)
