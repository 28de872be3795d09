"""Does the seat, or playing first, give an advantage?

Tables of greedy players of Rami 51 (2 to 5 players), Rami contrat (3 to 5)
and basic rummy (2 to 6). The first player of round ``r`` is seat
``r mod players``, so seat 0 plays first in the first round and the turn to
play first passes round the table. Measured: the share of games each
seat wins, against the fair share ``1/players`` (a tie shares the win);
among the rounds someone won, the share each place in the turn order wins
(the round's first player, the next, ...) against ``1/players``, with the
share of rounds nobody won beside it (a blocked round is no evidence about
who goes out first, and counting it as a loss for every seat would push
every place below its fair share); and how the first player's points
compare with the mean of the others' in the same round (a paired
difference inside each round; in basic rummy points are the winner's gain,
elsewhere a penalty). Every seat and place is reported with intervals that
hold together for all the table sizes of a game (Bonferroni).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import polars as pl
from matplotlib.figure import Figure

from experiments import configs, metrics, plots, stats, wording
from experiments.arms import Arm
from experiments.experiment import experiment_from
from experiments.findings import Finding, Results, rng_for, rounds_of
from experiments.parts import arm_parts
from sim import rules

TITLE = "Does the seat, or playing first, give an advantage?"
TABLES = {"rami51": (2, 3, 4, 5), "contrat": (3, 4, 5), "basic": (2, 3, 4, 5, 6)}


@dataclass(frozen=True)
class Config(configs.Config):
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
    max_players: int = rules.MAX_PLAYERS


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


PLACES = ("first player", "second player", "third player", "fourth player", "fifth player", "sixth player")
"""A seat's place in the turn order of a round, from the round's first player."""

WON_ROUNDS = "share of won rounds above 1/players"
GAMES_WON = "share of games won above 1/players"
NO_WINNER = "rounds with no winner"
EDGE = "points per round, first player minus the others"


def analyse(frame: pl.DataFrame, config: Config) -> list[Finding]:
    findings = []
    wins = metrics.win_shares(frame, key="seat")
    places = metrics.won_round_shares(frame)
    first = pl.col("seat") == pl.col("first")
    players = pl.col("seat").max().over("arm", "rotation", "game", "round") + 1
    per_round = frame.with_columns(players.alias("players"),
                                   pl.col("points").sum().over("arm", "rotation", "game", "round").alias("all_points"))
    # The first player's points minus the mean of the others of its round, times the others' number: whole
    # numbers, so a game's sum is exact whatever order the rows are summed in (a float sum's last bit moved
    # with it); divided by the others' number once per arm below.
    edge = pl.col("points") * (pl.col("players") - 1) - (pl.col("all_points") - pl.col("points"))
    points = metrics.per_game(per_round, edge, first)
    no_winner = metrics.per_round(frame, pl.col("blocked").cast(pl.String) != "none")
    for k, (game, p) in enumerate(_tables(config)):
        arm = arm_name(game, p)
        n_rounds = rounds_of(frame.filter(pl.col("arm") == arm))
        for seat in range(p):
            t, c = metrics.cluster_arrays(wins, arm=arm, seat=seat)
            est = stats.ratio_estimate(t - c / p, c, rng_for(config, 100 * k + seat), config.resamples)
            findings.append(Finding(GAMES_WON, (arm,), est, len(t), n_rounds, f"seat {seat}", headline=seat == 0))
        t, c = metrics.cluster_arrays(no_winner, arm=arm)
        est = stats.ratio_estimate(t, c, rng_for(config, 100 * k + 49), config.resamples)
        findings.append(Finding(NO_WINNER, (arm,), est, len(t), n_rounds, "all seats"))
        for place in range(p):
            t, c = metrics.cluster_arrays(places, arm=arm, place=place)
            est = stats.ratio_estimate(t - c / p, c, rng_for(config, 100 * k + 60 + place), config.resamples)
            findings.append(Finding(WON_ROUNDS, (arm,), est, len(t), n_rounds, PLACES[place],
                                    headline=place == 0, better="higher"))
        better = rules.better_points(game)
        t, c = metrics.cluster_arrays(points, arm=arm)
        est = stats.ratio_estimate(t / (p - 1), c, rng_for(config, 100 * k + 50), config.resamples)
        findings.append(Finding(EDGE, (arm,), est, len(t), n_rounds, "first player", better=better))
    return findings


def family_intervals(findings: list[Finding], metric: str) -> dict[tuple[str, str], tuple[float, float]]:
    """Family-wise 95% intervals of ``metric``: one family per game, every table size and seat (or place) of it.

    A question such as "does some seat win more than its share?" is asked of
    every seat of every table size of a game at once; each normal interval
    is widened (Bonferroni) so that all of a game's intervals hold together
    with 95% confidence. Keys are ``(arm, group)``.
    """
    out = {}
    rows = [f for f in findings if f.metric == metric]
    for game in TABLES:
        family = [f for f in rows if f.arms[0].startswith(f"{game},")]
        for f in family:
            out[(f.arms[0], f.group)] = stats.simultaneous_interval(f.estimate, len(family))
    return out


def _players(arm: str) -> int:
    return int(arm.split(", ")[1].split()[0])


def _pp(value: float) -> str:
    return wording.fmt("share", value, True)


def claims(findings: list[Finding], config: Config) -> dict[str, str]:
    """What the page concludes, per game, as words without numbers (two seeds are compared on these)."""
    out = {}
    for metric, what in ((WON_ROUNDS, "places in the turn order that win more or less than a fair share of won rounds"),
                         (GAMES_WON, "seats that win more or less than a fair share of games")):
        bounds = family_intervals(findings, metric)
        for game in config.games_played:
            moved = [f"{arm.split(', ')[1]}: {group} {'more' if lo > 0 else 'less'}"
                     for (arm, group), (lo, hi) in bounds.items() if arm.startswith(f"{game},") and (lo > 0 or hi < 0)]
            out[f"{game}: {what}"] = "; ".join(moved) or "none"
    return out


def conclusions(findings: list[Finding], config: Config) -> list[str]:
    lines = []
    rounds = family_intervals(findings, WON_ROUNDS)
    games = family_intervals(findings, GAMES_WON)
    for game in config.games_played:
        firsts = [f for f in findings if f.metric == WON_ROUNDS and f.group == PLACES[0]
                  and f.arms[0].startswith(f"{game},")]
        blocked = [f for f in findings if f.metric == NO_WINNER and f.arms[0].startswith(f"{game},")]
        above = [f for f in firsts if rounds[(f.arms[0], f.group)][0] > 0]
        below = [f for f in firsts if rounds[(f.arms[0], f.group)][1] < 0]
        parts = []
        for f, word in [(f, "more") for f in above] + [(f, "less") for f in below]:
            p = _players(f.arms[0])
            parts.append(f"{wording.fmt('share', f.estimate.estimate + 1 / p)} of them at {p} players "
                         f"(fair share {wording.fmt('share', 1 / p)})")
        none = min(f.estimate.estimate for f in blocked), max(f.estimate.estimate for f in blocked)
        head = (f"{game}: {wording.fmt('share', none[0])} to {wording.fmt('share', none[1])} of rounds end with "
                f"no winner; of the rounds someone wins, the round's first player wins ")
        if parts:
            head += "; ".join(parts)
            rest = len(firsts) - len(parts)
            if rest:
                head += f", and no measurably different share at the other {rest} table size{'s' if rest > 1 else ''}"
        else:
            head += "no measurably different share from the fair one at any table size"
        seats = [(arm, group) for (arm, group), (lo, hi) in games.items() if arm.startswith(f"{game},")
                 and (lo > 0 or hi < 0)]
        tail = ("no seat wins measurably more or fewer games than its share"
                if not seats else "games won differ from the fair share for " + ", ".join(
                    f"{g} at {_players(a)} players" for a, g in seats))
        lines.append(f"{head}; {tail} (family-wise 95% intervals over the game's table sizes and seats; "
                     f"{firsts[0].estimate.clusters:,} games per table).")
    return lines


def page_blocks(runs: list[Results]) -> list[tuple]:
    """Tables of every seat and place, each seed's estimate with its family-wise interval."""
    blocks: list[tuple] = []
    seeds = [r.config.seed for r in runs]
    for metric, title, key, explain in (
        (WON_ROUNDS, "Rounds someone won: the share each place in the turn order wins", "place",
         "Among the rounds someone won, the share won by the seat at each place after the round's first player, "
         "with the fair share 1/players and the difference; the rounds with no winner are counted beside."),
        (GAMES_WON, "Games: the share each seat wins", "seat",
         "The share of games each seat wins (a tie shares the win) against the fair share 1/players; seat 0 plays "
         "first in the game's first round."),
    ):
        bounds = [family_intervals(r.findings, metric) for r in runs]
        index = [{(f.arms[0], f.group): f for f in r.findings if f.metric == metric} for r in runs]
        blocked = [{f.arms[0]: f for f in r.findings if f.metric == NO_WINNER} for r in runs]
        rows = []
        for (arm, group), f in index[0].items():
            p = _players(arm)
            cells = []
            for b, idx in zip(bounds, index):
                g = idx.get((arm, group))
                if g is None:
                    cells.append("n/a")
                    continue
                lo, hi = b[(arm, group)]
                cells.append(f"{wording.fmt('share', g.estimate.estimate + 1 / p)} ({_pp(g.estimate.estimate)}; "
                             f"{_pp(lo)} to {_pp(hi)})")
            extra = [wording.fmt("share", blk[arm].estimate.estimate) if arm in blk else "n/a" for blk in blocked] \
                if metric == WON_ROUNDS else []
            rows.append([arm, group, wording.fmt("share", 1 / p), *cells, *extra])
        header = ["table", key, "fair share",
                  *[f"seed {s}: share (above fair; family-wise 95% interval)" for s in seeds],
                  *([f"seed {s}: rounds with no winner" for s in seeds] if metric == WON_ROUNDS else [])]
        blocks += [("h2", title), ("p", explain + " The intervals hold together for all the game's table sizes and "
                                   "places (Bonferroni), so a single cell crossing zero by chance is not read as an "
                                   "edge."), ("table", header, rows)]
    return blocks


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
        ("first_player", WON_ROUNDS, PLACES[0],
         "The round's first player: share of won rounds above a fair share"),
        ("seat0", GAMES_WON, "seat 0",
         "The seat that plays first in the first round: games won above a fair share"),
    ):
        fig, _ = plots.series_plot(sizes, series(metric, group), "players", metric, title=title, reference=0.0,
                                   percent=True)
        out[key] = fig
    return out


EXPERIMENT = experiment_from(sys.modules[__name__],
                             parts=lambda config: arm_parts(arms(config), config.seed),
                             page_blocks=page_blocks,
                             claims=claims)


def run(config: Config, out: Path | None = None, progress=None) -> Results:
    """Play, analyse and (with ``out``) write the dataset and ``summary.json``."""
    return EXPERIMENT.run(config, out, progress)
