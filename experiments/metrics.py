"""Metrics: pure functions from result rows to per-cluster sums.

The input is the frame an experiment plays (:func:`experiments.arms.play_arm`):
one row per arm, rotation, game, round and seat, with the columns of
:data:`sim.RESULT_COLUMNS` plus ``arm`` and ``rotation``. The unit of
resampling is the game (with all its rotations, in a duplicate arm), so every
metric here returns one row per arm (and group) and game: ``total``, the sum
of the metric over the game's units, and ``count``, how many units; the
metric is ``sum(total) / sum(count)`` over games, which
:func:`experiments.stats.ratio_estimate` turns into an interval.

Missing values follow both conventions of the result columns: a player who
never opened is found by ``opened``, never by ``open_turn``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

__all__ = [
    "BLOCKED_RATE",
    "CAUGHT_UNOPENED",
    "CLUSTER",
    "DISCARD_TAKES",
    "FIRST_PLAYER_WINS",
    "GAMES_WON",
    "JOKERS_LAID",
    "JOKER_HELD_ROUNDS",
    "JOKER_POINTS_HELD",
    "MAY_I_CARDS",
    "MAY_I_TAKEN",
    "MEASURE_NAMES",
    "NOT_YET_OPENED",
    "POINTS_PER_ROUND",
    "RAMI_SEC_RATE",
    "ROUNDS_OPENED",
    "ROUNDS_PER_GAME",
    "ROUNDS_WON",
    "TURNS_PER_ROUND",
    "UNOPENED_RATE",
    "cluster_arrays",
    "opening_times",
    "paired_arrays",
    "per_game",
    "per_game_level",
    "per_round",
    "win_shares",
    "won_round_shares",
]

CLUSTER = "game"
"""The unit of resampling: a game, with all its rounds (and rotations)."""


# ------------------------------------------------------------- measure names

# What each measure is called where it is a value: a finding's ``metric``, a table's key, a figure's
# axis. The experiments, the studies and the report look measures up by these names, so each is written
# once, here (a layering test fails on one written out elsewhere).

POINTS_PER_ROUND = "points per round"
"""A seat's points per round: the headline of most questions (fewer is better in Rami)."""

GAMES_WON = "share of games won"
"""The share of games a seat wins."""

ROUNDS_WON = "share of rounds won"
"""The share of rounds a seat wins (goes out)."""

MAY_I_TAKEN = "cards taken by Puis-je per round"
"""Cards a seat takes by "Puis-je ?" per round, as the Puis-je experiment names them."""

MAY_I_CARDS = '"Puis-je ?" cards per round'
"""Cards a seat takes by "Puis-je ?" per round, as the studies and the searching player name them."""

DISCARD_TAKES = "discard takes per round"
"""Cards a seat takes from the discard pile per round."""

RAMI_SEC_RATE = "rami sec rate"
"""The share of rounds a seat goes out by a rami sec (the whole hand laid at once)."""

TURNS_PER_ROUND = "turns per round"
"""A round's length in turns, all seats together."""

ROUNDS_PER_GAME = "rounds per game"
"""Rounds a game lasts."""

UNOPENED_RATE = "unopened rate"
"""The share of seat-rounds that end unopened, in rounds someone won."""

BLOCKED_RATE = "blocked rate"
"""The share of rounds blocked, with no winner."""

FIRST_PLAYER_WINS = "first player round win rate"
"""The share of rounds the round's first player wins."""

CAUGHT_UNOPENED = "share of rounds caught unopened"
"""The share of rounds a seat ends unopened in a round someone won (caught with its whole hand)."""

JOKER_POINTS_HELD = "joker points in hand per round"
"""Penalty points of the jokers a seat still holds at the round's end, per round."""

JOKER_HELD_ROUNDS = "share of rounds ending with a joker in hand"
"""The share of rounds a seat ends with a joker in hand."""

JOKERS_LAID = "jokers laid per round"
"""Jokers a seat lays per round."""

ROUNDS_OPENED = "share of rounds opened"
"""The share of rounds a seat opens."""

NOT_YET_OPENED = "share of players not yet opened"
"""The share of players not yet opened by a given own turn (the time-to-open curves)."""

MEASURE_NAMES: tuple[str, ...] = (
    POINTS_PER_ROUND, GAMES_WON, ROUNDS_WON, MAY_I_TAKEN, MAY_I_CARDS, DISCARD_TAKES, RAMI_SEC_RATE,
    TURNS_PER_ROUND, ROUNDS_PER_GAME, UNOPENED_RATE, BLOCKED_RATE, FIRST_PLAYER_WINS, CAUGHT_UNOPENED,
    JOKER_POINTS_HELD, JOKER_HELD_ROUNDS, JOKERS_LAID, ROUNDS_OPENED, NOT_YET_OPENED,
)
"""Every measure name above."""


def per_game(
    frame: pl.DataFrame | pl.LazyFrame,
    value: pl.Expr,
    where: pl.Expr | None = None,
    by: Sequence[str] = ("arm",),
) -> pl.DataFrame:
    """Sum of ``value`` and count of rows per ``by`` and game, over rows passing ``where``.

    Parameters
    ----------
    frame : polars DataFrame or LazyFrame
        Result rows (one per arm, rotation, game, round and seat).
    value : polars expression
        A number per row, e.g. ``pl.col("points")``.
    where : polars expression, optional
        Which rows count, e.g. ``pl.col("strategy_index") == 0``.
    by : sequence of str
        Columns that split the arms into groups (``arm`` first).

    Returns
    -------
    polars.DataFrame
        Columns ``*by``, ``game``, ``total`` (float64) and ``count`` (int),
        sorted by ``by`` and game.
    """
    lf = frame.lazy()
    if where is not None:
        lf = lf.filter(where)
    return (
        lf.group_by(*by, CLUSTER)
        .agg(value.cast(pl.Float64).sum().alias("total"), pl.len().alias("count"))
        .sort(*by, CLUSTER)
        .collect()
    )


def per_round(
    frame: pl.DataFrame | pl.LazyFrame,
    value: pl.Expr,
    where: pl.Expr | None = None,
    by: Sequence[str] = ("arm",),
) -> pl.DataFrame:
    """As :func:`per_game`, one unit per round (the row of the round's first player).

    For what belongs to the round rather than the seat: its turns, whether it
    was blocked, whether the first player went out.
    """
    first = pl.col("seat") == pl.col("first")
    return per_game(frame, value, first if where is None else first & where, by)


def per_game_level(
    frame: pl.DataFrame | pl.LazyFrame,
    value: pl.Expr,
    by: Sequence[str] = ("arm",),
) -> pl.DataFrame:
    """As :func:`per_game`, one unit per played game (and rotation): ``value`` aggregated over its rows.

    ``value`` is an aggregation over one game's rows, e.g.
    ``pl.col("round").max() + 1`` for rounds per game.
    """
    return (
        frame.lazy()
        .group_by(*by, "rotation", CLUSTER)
        .agg(value.cast(pl.Float64).alias("v"))
        .group_by(*by, CLUSTER)
        .agg(pl.col("v").sum().alias("total"), pl.len().alias("count"))
        .sort(*by, CLUSTER)
        .collect()
    )


def win_shares(frame: pl.DataFrame | pl.LazyFrame, key: str = "strategy_index") -> pl.DataFrame:
    """Each game's win shared out over ``key`` values: 1 for a win alone, ``1/k`` in a ``k``-way tie.

    Returns
    -------
    polars.DataFrame
        Columns ``arm``, ``key``, ``game``, ``total`` (summed shares over
        rotations) and ``count`` (rotations); the shares of a game add up to
        1 per rotation, so a seat wins ``1/players`` by chance.
    """
    last = (
        frame.lazy()
        .group_by("arm", "rotation", CLUSTER, "seat")
        .agg(*([pl.col(key).first()] if key != "seat" else []), pl.col("won").first())
        .with_columns(pl.col("won").sum().over("arm", "rotation", CLUSTER).alias("winners"))
        .with_columns(
            pl.when(pl.col("winners") > 0).then(pl.col("won").cast(pl.Float64) / pl.col("winners")).otherwise(0.0)
            .alias("share")
        )
    )
    return (
        last.group_by("arm", key, CLUSTER)
        .agg(pl.col("share").sum().alias("total"), pl.len().alias("count"))
        .sort("arm", key, CLUSTER)
        .collect()
    )


def won_round_shares(frame: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    """Per game, how many rounds someone won and how many of them each place in the turn order won.

    The place is the seat's position after the round's first player
    (``(seat - first) mod players``: 0 for the first player). A round nobody
    won (``blocked`` is not ``"none"``: stock turned, table closed, turn
    cap) counts for no place: the share of won rounds a place wins is
    ``1/players`` for every place when the order gives no edge, whatever the
    share of rounds without a winner.

    Returns
    -------
    polars.DataFrame
        Columns ``arm``, ``place`` (int), ``game``, ``total`` (rounds won by
        that place, float64) and ``count`` (rounds with a winner), one row
        per arm, place and game, every place of the table present (a place
        that won nothing has total 0), sorted by arm, place and game.
    """
    lf = frame.lazy().with_columns(
        (pl.col("seat").max().over("arm", "rotation", CLUSTER, "round") + 1).alias("players"),
        (pl.col("blocked").cast(pl.String) == "none").alias("has_winner"),
    )
    rows = lf.filter(pl.col("has_winner")).with_columns(
        ((pl.col("seat") - pl.col("first")) % pl.col("players")).cast(pl.Int64).alias("place"))
    won = rows.group_by("arm", "place", CLUSTER).agg(pl.col("went_out").cast(pl.Float64).sum().alias("total"))
    rounds = rows.filter(pl.col("place") == 0).group_by("arm", CLUSTER).agg(pl.len().alias("count"))
    places = rows.select("arm", "players").unique().with_columns(
        pl.int_ranges(0, pl.col("players")).alias("place")).explode("place").select("arm", pl.col("place").cast(pl.Int64))
    games = lf.select("arm", CLUSTER).unique()
    return (
        games.join(places, on="arm")
        .join(rounds, on=["arm", CLUSTER], how="left")
        .join(won, on=["arm", "place", CLUSTER], how="left")
        .with_columns(pl.col("total").fill_null(0.0), pl.col("count").fill_null(0).cast(pl.Int64))
        .select("arm", "place", CLUSTER, "total", "count")
        .sort("arm", "place", CLUSTER)
        .collect()
    )


def cluster_arrays(table: pl.DataFrame, **equals: object) -> tuple[np.ndarray, np.ndarray]:
    """``total`` and ``count`` of the rows of ``table`` matching ``equals``, sorted by game.

    Returns
    -------
    (totals, counts) : arrays of float64, shape (games,)
    """
    rows = table
    for key, value in equals.items():
        rows = rows.filter(pl.col(key) == value)
    rows = rows.sort(CLUSTER)
    return rows["total"].to_numpy().astype(np.float64), rows["count"].to_numpy().astype(np.float64)


def paired_arrays(
    table: pl.DataFrame, a: dict[str, object], b: dict[str, object]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``total`` and ``count`` of two slices of ``table`` aligned on the game.

    A game present in one slice only (no unit of interest in the other)
    counts zero units there.

    Returns
    -------
    (totals_a, counts_a, totals_b, counts_b) : arrays of float64, shape (games,)
    """

    def part(equals: dict[str, object], tag: str) -> pl.DataFrame:
        rows = table
        for key, value in equals.items():
            rows = rows.filter(pl.col(key) == value)
        return rows.select(CLUSTER, pl.col("total").alias(f"t{tag}"), pl.col("count").cast(pl.Float64).alias(f"c{tag}"))

    joined = part(a, "a").join(part(b, "b"), on=CLUSTER, how="full", coalesce=True).fill_null(0.0).sort(CLUSTER)
    return tuple(joined[c].to_numpy().astype(np.float64) for c in ("ta", "ca", "tb", "cb"))  # type: ignore[return-value]


def opening_times(
    frame: pl.DataFrame | pl.LazyFrame, by: Sequence[str] = ("arm",), horizon: int = 60
) -> tuple[pl.DataFrame, np.ndarray, np.ndarray]:
    """Per game, how many seats opened at each of their own turns and how many were still waiting.

    A seat-round is an observation of the time to open, in the seat's own
    turns: it ends at ``open_turn`` when the seat opened, or is censored at
    ``seat_turns`` (the round ended first). This counts, per game and own
    turn ``t = 1 .. horizon``, the openings at ``t`` and the seats at risk
    (not yet opened, still playing at ``t``): what a Kaplan-Meier curve needs.

    Returns
    -------
    keys : polars.DataFrame
        One row per ``by`` and game: the rows of the two arrays.
    events, at_risk : arrays of int64, shape (len(keys), horizon)
    """
    lf = frame.lazy().select(
        *by, CLUSTER,
        pl.when(pl.col("opened")).then(pl.col("open_turn")).otherwise(pl.col("seat_turns"))
        .clip(0, horizon).alias("time"),
        (pl.col("opened") & (pl.col("open_turn") <= horizon)).alias("event"),
    )
    rows = lf.collect()
    keys = rows.select(*by, CLUSTER).unique().sort(*by, CLUSTER).with_row_index("row")
    rows = rows.join(keys, on=[*by, CLUSTER])
    row = rows["row"].to_numpy()
    time = rows["time"].to_numpy().astype(np.int64)
    event = rows["event"].to_numpy().astype(bool)
    n = keys.height
    events = np.zeros((n, horizon + 1), dtype=np.int64)
    np.add.at(events, (row[event], time[event]), 1)
    exits = np.zeros((n, horizon + 2), dtype=np.int64)
    np.add.at(exits, (row, time), 1)
    # At risk at own turn t: observations lasting at least t turns.
    at_risk = exits[:, ::-1].cumsum(axis=1)[:, ::-1][:, : horizon + 1]
    return keys.drop("row"), events[:, 1:], at_risk[:, 1:]
