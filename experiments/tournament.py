"""Tournaments: rank any list of strategies on duplicate deals, with honest intervals.

Every game of a tournament is played once for each rotation of its table's
strategies through the seats (rotation ``k``: seat ``s`` plays the table's
strategy ``(s - k) mod players``), so each strategy holds every seat's cards
of every deal and the luck of the cards cancels; a game with all its
rotations is one unit of resampling. With more strategies than seats, every
combination of strategies forms a table and the games are shared out
equally among the tables (table ``t`` plays the next block of game
indices), so every strategy meets every other equally often.

Results, for every strategy:

* points per round (the game's own sense: a penalty in Rami 51 and contrat,
  the winner's gain in basic rummy) and share of games won (a ``k``-way tie
  counts ``1/k``), with 95% intervals that resample games;
* the pairwise matrix: points per round of one strategy minus another's, on
  the games where both sat at the table, with paired intervals;
* a rating: one Plackett–Luce fit (``choix``) over the finishing order of
  every game played (each rotation one ranking; ties broken at random with
  the tournament's seed), with a percentile bootstrap over games. A rating
  is a log-strength: two strategies whose ratings differ by ``x`` finish
  ahead of each other at odds ``e**x`` to 1.

``rami tournament random,greedy,cautious,expert`` runs one from the shell.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import shlex
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from matplotlib.figure import Figure

import sim
import strategies as strategy_lib
from experiments import metrics, stats
from experiments.arms import rotated_seats, rotation_columns
from experiments.stats import Estimate
from sim import distributed, rules, store
from sim.checks import check_whole

__all__ = ["SETTINGS_FILE", "Standing", "TournamentResult", "check", "dataset_rows", "identity",
           "play_table", "ranking_from", "renamed", "tables_for", "tournament"]

UNIT = "game"


def identity(strategy: str | strategy_lib.Strategy, game: str) -> tuple:
    """What makes ``strategy`` play as it does in ``game``: its kind and every parameter the
    kernels read there (a Python policy's slot included), never its name. Two strategies of
    one identity play every deal the same way."""
    s = strategy_lib.get(strategy).for_game(game)
    return (game, int(s.kind), tuple(float(v) for v in s.vector()))


def _named(entries: Sequence[str | strategy_lib.Strategy]) -> list[strategy_lib.Strategy]:
    """The strategies, checked to have distinct names (a name is how results tell them apart)."""
    if isinstance(entries, str):  # would be read letter by letter
        raise TypeError(f"strategies must be a list, e.g. {[p.strip() for p in entries.split(',')]!r}, "
                        "not a string")
    chosen = [strategy_lib.get(s) for s in entries]
    names = [s.name for s in chosen]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"strategy {twice[0]!r} is listed twice; give a copy another name "
                         "(dataclasses.replace(strategy, name=...)) to play it against itself")
    if len(chosen) < 2:
        raise ValueError(f"a tournament needs at least 2 strategies, got {len(chosen)}")
    return chosen


def tables_for(n_strategies: int, players: int) -> list[tuple[int, ...]]:
    """Every combination of ``players`` strategies out of ``n_strategies``: each pair sits
    together at the same number of tables, so every strategy meets every other equally."""
    if players > n_strategies:
        raise ValueError(f"a table of {players} needs at least {players} strategies, got {n_strategies}; "
                         f"give players={n_strategies} or more strategies")
    return list(itertools.combinations(range(n_strategies), players))


def play_table(
    ruleset: rules.Ruleset,
    seated: Sequence[str | strategy_lib.Strategy],
    seed: int,
    first_game: int,
    n_games: int,
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
    label: str = "",
    out: Path | str | None = None,
    allow_clairvoyant: bool = False,
) -> pl.DataFrame:
    """Rows of games ``first_game ..`` played once per rotation of ``seated`` through the seats.

    The duplicate design of :func:`experiments.arms.play_arm`, for
    strategies given as objects (a renamed copy, a tuned file) rather than
    names. Returns the result columns plus ``arm`` (``label``) and
    ``rotation``; ``strategy`` and ``strategy_index`` follow the strategy
    whatever its seat. With ``out``, rotation ``k`` is written to the results
    dataset ``out/rotation-k`` (:func:`sim.simulate`'s ``out``: games already
    there are not played again) and the rows are read back from it.
    ``allow_clairvoyant`` seats a strategy that sees the hidden cards
    (:func:`sim.simulate`'s): the strength ladder's ceiling, and only there.
    """
    n = len(seated)
    seated = [strategy_lib.get(s) for s in seated]
    frames = []
    # Names are labels: only strategies that play alike (same kind and parameters) make every
    # rotation the same game. A dataset keeps every rotation, so it is read back whole.
    alike = out is None and len({identity(s, ruleset.game) for s in seated}) == 1
    for k in range(n):
        order = rotated_seats(seated, k)
        if alike and frames:
            # Every rotation of one strategy plays the same game: relabel it.
            df = frames[0].drop("arm", "rotation")
            if progress:
                progress(n_games)
        elif out is not None:
            folder = Path(out) / f"rotation-{k}"
            sim.simulate(ruleset, order, n_games=n_games, seed=seed, workers=workers, progress=progress,
                         first_game=first_game, out=folder, allow_clairvoyant=allow_clairvoyant)
            df = dataset_rows(folder).filter(pl.col("game").is_between(first_game, first_game + n_games - 1))
        else:
            df = sim.simulate(ruleset, order, n_games=n_games, seed=seed, workers=workers, progress=progress,
                              first_game=first_game, allow_clairvoyant=allow_clairvoyant)
        frames.append(_rotation_rows(df, k, n, label))
    return pl.concat(frames)


def _rotation_rows(df: pl.DataFrame, k: int, n: int, label: str) -> pl.DataFrame:
    return df.with_columns(
        pl.col(pl.Categorical).cast(pl.String),
        pl.col(pl.Enum).cast(pl.String),
        *rotation_columns(k, n, label),
    )


def dataset_rows(folder: Path | str) -> pl.DataFrame:
    """The rows of a results dataset with the columns :func:`sim.simulate` returns: its ``rounds``
    table (read with :func:`sim.load`) joined to the game-level facts of its ``games`` table."""
    from sim.api import GAME_LEVEL, RESULT_COLUMNS

    rounds = sim.load(folder, "rounds")
    games = sim.load(folder, "games").select("game", "seat", *GAME_LEVEL)
    return rounds.join(games, on=["game", "seat"]).select(list(RESULT_COLUMNS)).sort("game", "round", "seat") \
        .collect()


@dataclass(frozen=True)
class Standing:
    """One strategy's results in a tournament.

    Attributes
    ----------
    name : str
    points : Estimate
        Points per round (its unit: games resampled).
    wins : Estimate
        Share of games won (a fraction; 1/players by chance).
    rating, rating_low, rating_high : float
        Plackett–Luce log-strength (mean zero over the strategies) and its
        95% bootstrap interval over games.
    """

    name: str
    points: Estimate
    wins: Estimate
    rating: float
    rating_low: float
    rating_high: float


@dataclass
class TournamentResult:
    """What :func:`tournament` returns.

    ``standings`` are sorted by rating, best first; ``pairwise[(a, b)]`` is
    the points-per-round difference ``a − b`` on the games both played;
    ``rating_draws`` holds the bootstrap's ratings, shape
    ``(resamples, strategies)``, columns in ``names`` order.
    """

    ruleset: rules.Ruleset
    names: list[str]
    tables: list[tuple[str, ...]]
    games_per_table: int
    seed: int
    better: str
    standings: list[Standing]
    pairwise: dict[tuple[str, str], Estimate]
    rating_draws: np.ndarray
    ratings: np.ndarray
    frame: pl.DataFrame = field(repr=False)
    wall_seconds: float = 0.0
    command: str = ""
    unbounded: list[str] = field(default_factory=list)
    """Strategies that finished first in every game they played, or last in every one: their
    likelihood has no finite maximum, so their rating only says "above" (or "below") all others."""

    @property
    def games(self) -> int:
        """Games played (each once per rotation)."""
        return self.games_per_table * len(self.tables)

    def standing(self, name: str) -> Standing:
        for s in self.standings:
            if s.name == name:
                return s
        raise ValueError(f"no strategy {name!r} in this tournament; it has: {', '.join(self.names)}")

    def rating_gap(self, a: str, b: str) -> tuple[float, float, float]:
        """Rating of ``a`` minus rating of ``b`` and its 95% bootstrap interval (over games)."""
        i, j = (self.names.index(self.standing(x).name) for x in (a, b))
        draws = self.rating_draws[:, i] - self.rating_draws[:, j]
        low, high = np.quantile(draws, [0.025, 0.975])
        return float(self.ratings[i] - self.ratings[j]), float(low), float(high)

    def table(self) -> pl.DataFrame:
        """The ranking as a frame: one row per strategy, best rating first."""
        return pl.DataFrame([
            {"rank": k + 1, "strategy": s.name, "rating": s.rating, "rating_low": s.rating_low,
             "rating_high": s.rating_high, "points_per_round": s.points.estimate, "points_low": s.points.low,
             "points_high": s.points.high, "win_rate": s.wins.estimate, "win_low": s.wins.low,
             "win_high": s.wins.high, "games": s.points.clusters}
            for k, s in enumerate(self.standings)
        ])

    def __str__(self) -> str:
        r = self.ruleset
        lines = [f"Tournament, {r.game} ({r.players} players), {len(self.names)} strategies at {len(self.tables)} "
                 f"table(s), {self.games:,} games each played once per rotation (seed {self.seed}); "
                 f"95% intervals resample games",
                 f"{'':3} {'strategy':28} {'rating (95% interval)':26} {'points/round (95% interval)':30} "
                 f"win rate (95% interval)"]
        for k, s in enumerate(self.standings):
            lines.append(f"{k + 1:<3} {s.name:28} {s.rating:+6.2f} ({s.rating_low:+.2f} to {s.rating_high:+.2f})    "
                         f"{s.points.estimate:6.2f} ({s.points.low:.2f} to {s.points.high:.2f})        "
                         f"{100 * s.wins.estimate:5.1f}% ({100 * s.wins.low:.1f} to {100 * s.wins.high:.1f})")
        lines.append(f"points per round: {'fewer' if self.better == 'lower' else 'more'} is better; a rating is a "
                     "Plackett–Luce log-strength (a gap x: odds e^x to 1 of finishing ahead)")
        lines += [self._unbounded_note()] if self.unbounded else []
        return "\n".join(lines)

    def _unbounded_note(self) -> str:
        return (f"{', '.join(self.unbounded)}: first or last in every game it played, so its rating has no finite "
                "value and the one shown is set by the fit's light regularisation: read it as above (or below) all")

    def heatmap(self) -> Figure:
        """The pairwise matrix of points-per-round differences (row minus column) as a heat map."""
        order = [s.name for s in self.standings]
        n = len(order)
        values = np.full((n, n), np.nan)
        for i, a in enumerate(order):
            for j, b in enumerate(order):
                if i != j and (a, b) in self.pairwise:
                    values[i, j] = self.pairwise[(a, b)].estimate
        fig = Figure(figsize=(1.3 * n + 3.0, 1.0 * n + 1.8))
        ax = fig.subplots()
        limit = float(np.nanmax(np.abs(values))) if np.isfinite(values).any() else 1.0
        # Red is worse for the row's strategy whichever way points count.
        cmap = "RdBu_r" if self.better == "lower" else "RdBu"
        im = ax.imshow(values, cmap=cmap, vmin=-limit, vmax=limit)
        for i, a in enumerate(order):
            for j, b in enumerate(order):
                e = self.pairwise.get((a, b))
                if i == j or e is None:
                    continue
                mark = "" if e.excludes_zero else "\n(≈0)"
                ink = "white" if abs(e.estimate) > 0.6 * limit else "black"  # readable on dark cells
                ax.text(j, i, f"{e.estimate:+.2f}\n[{e.low:+.2f}, {e.high:+.2f}]{mark}", ha="center", va="center",
                        fontsize=7, color=ink)
        ax.set_xticks(range(n), order, rotation=30, ha="right")
        ax.set_yticks(range(n), order)
        fig.colorbar(im, ax=ax, label="points per round, row − column")
        ax.set_title(f"Pairwise differences, {self.ruleset.game} ({'fewer' if self.better == 'lower' else 'more'} "
                     "is better)\nbrackets: 95% interval, games resampled", fontsize=9)
        fig.tight_layout()
        return fig

    def write_report(self, folder: Path | str) -> Path:
        """The report page (ranking table, pairwise heat map and table) in ``folder``; returns ``index.html``."""
        from experiments import report

        folder = Path(folder)
        r = self.ruleset
        title = f"Tournament: {', '.join(self.names)} ({r.game}, {r.players} players)"
        pct = lambda e: f"{100 * e.estimate:.1f}% ({100 * e.low:.1f} to {100 * e.high:.1f})"  # noqa: E731
        rows = [[str(k + 1), s.name, f"{s.rating:+.2f} ({s.rating_low:+.2f} to {s.rating_high:+.2f})",
                 f"{s.points.estimate:.2f} ({s.points.low:.2f} to {s.points.high:.2f})", pct(s.wins)]
                for k, s in enumerate(self.standings)]
        pair_rows = []
        for (a, b), e in self.pairwise.items():
            if self.names.index(a) < self.names.index(b):
                verdict = "no measurable difference" if not e.excludes_zero else (
                    f"{a} better" if (e.estimate < 0) == (self.better == "lower") else f"{b} better")
                pair_rows.append([f"{a} − {b}", f"{e.estimate:+.2f} ({e.low:+.2f} to {e.high:+.2f})",
                                  f"{e.clusters:,}", verdict])
        blocks = [
            ("h1", title),
            ("p", f"{len(self.names)} strategies at {len(self.tables)} table(s) of {r.players}, "
                  f"{self.games:,} games, each played once for every rotation of its table's strategies through the "
                  f"seats (duplicate deals, seed {self.seed}). Every interval is a 95% percentile bootstrap that "
                  "resamples whole games with all their rotations."),
            ("h2", "Ranking"),
            ("table", ["rank", "strategy", "rating (95% interval)",
                       f"points per round ({'fewer' if self.better == 'lower' else 'more'} is better)",
                       f"games won (chance: {100 / r.players:.0f}%)"], rows),
            ("p", "The rating is one Plackett–Luce fit (the `choix` library) over the finishing order of every game "
                  "played; a rating gap of x means odds of e^x to 1 of finishing ahead. Ratings have mean zero."
                  + (" " + self._unbounded_note() + "." if self.unbounded else "")),
            ("h2", "Pairwise differences"),
            ("fig", "pairwise", "Points per round, row minus column, on the games both strategies played"),
            ("table", ["pair", "points per round, first − second (95% interval)", "games", "reading"], pair_rows),
            ("h2", "How it was measured"),
            ("p", " ".join((__doc__ or "").split("\n\n")[1].split())),
            ("h2", "Provenance"),
            ("ul", [f"{self.games:,} games ({self.games_per_table:,} per table), {self.wall_seconds:.1f} s wall time",
                    f"rules version {rules.RULES_VERSION}; tables: "
                    + "; ".join(" vs ".join(t) for t in self.tables)]),
        ]
        if self.command:
            blocks += [("h2", "Reproduce"), ("pre", self.command)]
        return report.write_document(folder, title, blocks, {"pairwise": self.heatmap()})


def _finishing_orders(frame: pl.DataFrame, index: dict[str, int], better: str, seed: int) -> pl.DataFrame:
    """One row per played game (table, game, rotation): its strategies from first to last place.

    Final totals rank the seats (lowest first, or highest in basic rummy);
    ties are broken at random by ``seed``.
    """
    finals = (
        frame.group_by("arm", "game", "rotation", "strategy")
        .agg(pl.col("total").sort_by("round").last())
        .sort("arm", "game", "rotation", "strategy")
    )
    rng = np.random.default_rng([seed, 77])
    sign = 1.0 if better == "lower" else -1.0
    finals = finals.with_columns(
        (sign * pl.col("total").cast(pl.Float64)).alias("key"),
        pl.Series("tie", rng.random(finals.height)),
        pl.col("strategy").replace_strict(index, return_dtype=pl.Int64).alias("item"),
    )
    return (
        finals.sort("arm", "game", "rotation", "key", "tie")
        .group_by("arm", "game", "rotation", maintain_order=True)
        .agg(pl.col("item"))
    )


def _fit(n: int, rankings: list[tuple[int, ...]], initial: np.ndarray | None = None) -> np.ndarray:
    """Plackett–Luce log-strengths (mean zero) of ``n`` items from ``rankings`` (best first).

    A light regularisation keeps the fit finite when one strategy always
    finishes last.
    """
    import choix

    params = choix.ilsr_rankings(n, rankings, alpha=1e-4, initial_params=initial, max_iter=500, tol=1e-5)
    return params - params.mean()


def _ratings(orders: pl.DataFrame, n: int, rng: np.random.Generator, resamples: int) -> tuple[np.ndarray, np.ndarray]:
    """The fit on every game, and the fits on ``resamples`` bootstrap resamples of games."""
    games = orders.select("arm", "game").unique(maintain_order=True).with_row_index("cluster")
    orders = orders.join(games, on=["arm", "game"])
    by_cluster: list[list[tuple[int, ...]]] = [[] for _ in range(games.height)]
    for cluster, items in zip(orders["cluster"].to_list(), orders["item"].to_list()):
        by_cluster[cluster].append(tuple(items))
    every = [r for group in by_cluster for r in group]
    full = _fit(n, every)
    # Identical rankings repeat a lot; a resample is a count per distinct ranking per game.
    draws = np.empty((resamples, n))
    for b in range(resamples):
        picked = rng.integers(0, len(by_cluster), len(by_cluster))
        draws[b] = _fit(n, [r for c in picked for r in by_cluster[c]], full)
    return full, draws


SETTINGS_FILE = "tournament.json"
"""The settings of a tournament written to a folder; :func:`ranking_from` reads them."""


@distributed.on_cluster
def tournament(
    strategies: Sequence[str | strategy_lib.Strategy],
    ruleset: rules.Ruleset | str = "rami51",
    players: int | None = None,
    games: int = 1000,
    seed: int = 1,
    workers: int | None = None,
    resamples: int = 300,
    progress: Callable[[int, int], None] | None = None,
    out: Path | str | None = None,
    scheduler: Any = None,
) -> TournamentResult:
    """Rank ``strategies`` on duplicate deals (see the module's docstring).

    Parameters
    ----------
    strategies : sequence of str or Strategy
        At least two, with distinct names: presets, ``"name:param=value"``
        strings, registered or tuned names, strategy files, Strategy objects.
    ruleset : Ruleset or str
        A ruleset, preset name or TOML file.
    players : int, optional
        Seats per table (default: every strategy at one table, at most 4).
    games : int
        Games in all, shared equally among the tables (rounded up to a
        multiple of their number); each is played once per rotation.
    seed : int
        Simulation seed; also seeds the bootstraps and the tie-breaks.
    workers : int, optional
        Engine threads (results do not depend on it).
    resamples : int
        Bootstrap resamples for every interval.
    progress : callable, optional
        ``progress(done, total)`` in engine games.
    out : path, optional
        A folder for the games: each table's rotations are written as
        results datasets (``out/table-T/rotation-K``, :mod:`sim.store`) with
        the settings in ``out/tournament.json``; :func:`ranking_from`
        recomputes the ranking from them. A folder holding a tournament of
        the same settings resumes it (its finished batches are not played
        again); any other non-empty folder is refused.
    scheduler : str or distributed.Client, optional
        Play on this Dask cluster (:mod:`sim.distributed`, docs/cluster.md),
        connected once for the whole job: the same results as a local run.

    Returns
    -------
    TournamentResult
    """
    start = time.perf_counter()
    chosen, r, tables, per_table = _plan(strategies, ruleset, players, games, resamples)
    settings = _settings(chosen, r, tables, per_table, seed, resamples)
    if out is not None:
        store.claim_folder(out, SETTINGS_FILE, settings, "a tournament")
    total = per_table * len(tables) * r.players
    done = 0

    def tick(k: int) -> None:
        nonlocal done
        done += k
        if progress:
            progress(done, total)

    frames = []
    for t, members in enumerate(tables):
        seated = [chosen[i] for i in members]
        folder = None if out is None else Path(out) / f"table-{t + 1}"
        frames.append(play_table(r, seated, seed, t * per_table, per_table, workers, tick, label=f"table {t + 1}",
                                 out=folder))
    command = ""
    if isinstance(ruleset, str) and all(isinstance(s, str) for s in strategies):
        command = shlex.join(["rami", "tournament", ",".join(s.name for s in chosen), "--rules", ruleset,
                              "--players", str(r.players), "--games", str(games), "--seed", str(seed)])
    return _result(pl.concat(frames), settings, r, time.perf_counter() - start, command)


def check(strategies: Sequence[str | strategy_lib.Strategy], ruleset: rules.Ruleset | str = "rami51",
          players: int | None = None, games: int = 1000, resamples: int = 300) -> None:
    """Refuse what :func:`tournament` would refuse about its inputs (``ValueError``), playing nothing."""
    _plan(strategies, ruleset, players, games, resamples)


def _plan(strategies, ruleset, players, games, resamples):
    """The strategies, ruleset, tables and games per table, every input checked."""
    chosen = _named(strategies)
    if players is None:
        players = min(len(chosen), 4)
    players = check_whole("players", players, rules.MIN_PLAYERS, rules.MAX_PLAYERS)
    games = check_whole("games", games, 2)
    resamples = check_whole("resamples", resamples, 50)
    base = rules.as_ruleset(ruleset)
    r = base if base.players == players else base.replace(players=players)
    tables = tables_for(len(chosen), players)
    per_table = max(2, math.ceil(games / len(tables)))
    return chosen, r, tables, per_table


def _settings(chosen, r, tables, per_table, seed, resamples) -> dict:
    return {"format": 1, "names": [s.name for s in chosen], "ruleset": r.to_dict(),
            "strategies": [{"name": s.name, "identity": list(identity(s, r.game))} for s in chosen],
            "tables": [list(m) for m in tables], "games_per_table": per_table, "seed": seed,
            "resamples": resamples}


def ranking_from(folder: Path | str) -> TournamentResult:
    """The tournament written to ``folder`` (``tournament(..., out=folder)``), ranked again from its
    datasets alone: the same result as the run that wrote it, whatever was printed then.

    Raises
    ------
    ValueError
        When ``folder`` holds no tournament or a table's games are missing.
    """
    folder = Path(folder)
    marker = folder / SETTINGS_FILE
    if not marker.is_file():
        raise ValueError(f"{folder} holds no tournament ({SETTINGS_FILE} is missing)")
    settings = json.loads(marker.read_text("utf-8"))
    r = rules.Ruleset(**settings["ruleset"])
    per_table = settings["games_per_table"]
    frames = []
    for t, members in enumerate(settings["tables"]):
        for k in range(len(members)):
            rows = dataset_rows(folder / f"table-{t + 1}" / f"rotation-{k}")
            rows = rows.filter(pl.col("game").is_between(t * per_table, (t + 1) * per_table - 1))
            if rows["game"].n_unique() != per_table:
                raise ValueError(f"{folder}/table-{t + 1}/rotation-{k} holds {rows['game'].n_unique()} of its "
                                 f"{per_table} games: run the tournament again to finish it")
            frames.append(_rotation_rows(rows, k, len(members), f"table {t + 1}"))
    return _result(pl.concat(frames), settings, r, 0.0, "")


def _result(frame: pl.DataFrame, settings: dict, r: rules.Ruleset, wall: float, command: str) -> TournamentResult:
    """Rank the strategies of a tournament's rows (``play_table``'s columns, one arm per table)."""
    names = settings["names"]
    seed, resamples = settings["seed"], settings["resamples"]
    tables = [tuple(m) for m in settings["tables"]]
    better = rules.better_points(r.game)
    rng = np.random.default_rng([seed, 13])

    points_table = metrics.per_game(frame, pl.col("points"), by=("strategy",))
    wins_table = metrics.win_shares(frame, key="strategy")
    index = {name: i for i, name in enumerate(names)}
    orders = _finishing_orders(frame, index, better, seed)
    full, draws = _ratings(orders, len(names), rng, resamples)
    places = orders["item"].to_list()
    unbounded = [name for i, name in enumerate(names)
                 if all(p[-1] == i for p in places if i in p) or all(p[0] == i for p in places if i in p)]
    lows, highs = np.quantile(draws, [0.025, 0.975], axis=0)
    standings = []
    for i, name in enumerate(names):
        t, c = metrics.cluster_arrays(points_table, strategy=name)
        points = stats.ratio_estimate(t, c, rng, resamples, unit=UNIT)
        t, c = metrics.cluster_arrays(wins_table, strategy=name)
        wins = stats.ratio_estimate(t, c, rng, resamples, unit=UNIT)
        standings.append(Standing(name, points, wins, float(full[i]), float(lows[i]), float(highs[i])))
    standings.sort(key=lambda s: -s.rating)

    pairwise: dict[tuple[str, str], Estimate] = {}
    for a, b in itertools.permutations(names, 2):
        ta, ca, tb, cb = metrics.paired_arrays(points_table, {"strategy": a}, {"strategy": b})
        both = (ca > 0) & (cb > 0)
        if both.sum() >= 2:
            pairwise[(a, b)] = stats.paired_difference(ta[both], ca[both], tb[both], cb[both], rng, resamples,
                                                       unit=UNIT)
    return TournamentResult(r, names, [tuple(names[i] for i in m) for m in tables], settings["games_per_table"],
                            seed, better, standings, pairwise, draws, full, frame, wall, command, unbounded)


def renamed(strategy: str | strategy_lib.Strategy, name: str) -> strategy_lib.Strategy:
    """A copy of ``strategy`` under another name: it plays exactly the same."""
    return dataclasses.replace(strategy_lib.get(strategy), name=name)
