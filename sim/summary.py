"""The summary of a simulation: what its rounds say, each figure with its 95% interval.

:func:`summarise` reads the round rows of :func:`sim.simulate` (a polars
DataFrame, or a LazyFrame such as a scanned parquet dataset) and returns a
:class:`Summary`: how the rounds ended (every ``blocked`` reason), and per
strategy the points per round, the games won, the rounds opened and won, and
the opening turn. Every rate is estimated over games: rounds of one game are
not independent (the totals, the seats' states carry over), so each interval
resamples the game, the unit that is independent (a cluster-robust interval
of the ratio of per-game sums; Wilson's interval for the share of games won,
one observation per game). The summary echoes what produced the rows (rules
with overrides, seed, strategies) and says which way the points go.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import polars as pl

from sim.intervals import Interval, ratio_interval, wilson_interval
from sim.rules import BLOCKED_REASONS, GAMES, POINTS_MEANING, Ruleset, as_ruleset, better_points

__all__ = ["BLOCKED_REASONS", "POINTS_DIRECTION", "Interval", "StrategySummary", "Summary", "summarise"]

_REASON_TEXT = {reason: reason.replace("_", " ") for reason in BLOCKED_REASONS[1:]}

POINTS_DIRECTION = {game: POINTS_MEANING[better_points(game)] for game in GAMES}
"""What the ``points`` column means in each game family (:func:`sim.rules.better_points`)."""


@dataclass(frozen=True)
class StrategySummary:
    """One strategy of the list given to ``simulate`` (one seat, unless seats rotated).

    ``points_per_round``, ``opened`` and ``went_out`` are per round;
    ``open_turn`` is the player's own turn of opening, over the rounds it
    opened; ``games_won`` is the share of games with the best total (shared
    ties count for each).
    """

    index: int
    strategy: str
    seat: int | None
    games: int
    rounds: int
    points_per_round: Interval
    games_won: Interval
    opened: Interval
    went_out: Interval
    open_turn: Interval


@dataclass(frozen=True)
class Summary:
    """A simulation's round rows summarised; ``str()`` is the text ``rami simulate`` prints,
    :meth:`to_dict` the same as plain data."""

    game: str
    rules: str
    overrides: dict[str, Any]
    seed: int | None
    strategies: tuple[str, ...]
    rotate: bool
    games: int
    rounds: int
    round_ends: dict[str, int]
    truncated_games: int
    players: tuple[StrategySummary, ...]
    elapsed: float | None = None
    points_direction: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "points_direction", POINTS_DIRECTION[self.game])

    def to_dict(self) -> dict[str, Any]:
        """Every figure as plain data (NaN as ``None``), for JSON."""
        return _no_nan(asdict(self) | {"interval": "95%, clustered by game"})

    def lines(self) -> list[str]:
        """The summary as aligned lines of text."""
        rules = self.rules + (
            " with " + " ".join(f"{k}={v}" for k, v in self.overrides.items()) if self.overrides else ""
        )
        echo = [f"rules {rules}"]
        if self.seed is not None:
            echo.append(f"seed {self.seed}")
        echo.append("strategies " + ",".join(self.strategies) + ("  (seats rotate)" if self.rotate else ""))
        out = ["   ".join(echo)]
        head = f"games {self.games:,}   rounds {self.rounds:,}"
        if self.elapsed:
            head += (f"   {self.elapsed:.1f} s   {self.rounds / self.elapsed:,.0f} rounds/s   "
                     f"{self.games / self.elapsed:,.0f} games/s")
        out.append(head)
        blocked = sum(n for reason, n in self.round_ends.items() if reason != "none")

        def share(n: int) -> str:
            return f"{n:,} ({n / self.rounds:.1%})" if n and self.rounds else f"{n:,}"

        reasons = ", ".join(f"{_REASON_TEXT[r]} {share(self.round_ends[r])}" for r in BLOCKED_REASONS[1:])
        out.append(f"rounds won {share(self.round_ends['none'])}   blocked {share(blocked)}: {reasons}")
        out.append(f"truncated games {self.truncated_games:,}   {self.points_direction}; "
                   "[95% interval] resampling games")
        who = "seat" if not self.rotate else "#"
        out += _table(
            [who, "strategy", "points/round", "games won"],
            [[str(p.index), p.strategy, p.points_per_round.text(2), p.games_won.text(1, percent=True)]
             for p in self.players],
        )
        out += _table(
            [who, "strategy", "opened", "went out", "open turn"],
            [[str(p.index), p.strategy, p.opened.text(1, percent=True), p.went_out.text(1, percent=True),
              p.open_turn.text(2)] for p in self.players],
        )
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    """Columns as wide as their widest cell: the first right-aligned, the strategy left, figures right."""
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows)]

    def line(cells: list[str]) -> str:
        parts = [cells[0].rjust(widths[0]), cells[1].ljust(widths[1])]
        parts += [cell.rjust(w) for cell, w in zip(cells[2:], widths[2:])]
        return "  ".join(parts).rstrip()

    return [line(header), *(line(row) for row in rows)]


def _no_nan(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _no_nan(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_no_nan(v) for v in value]
    return value


def summarise(
    rounds: pl.DataFrame | pl.LazyFrame,
    ruleset: Ruleset | str,
    *,
    overrides: Mapping[str, Any] | None = None,
    seed: int | None = None,
    elapsed: float | None = None,
) -> Summary:
    """Summarise the round rows of a simulation.

    Parameters
    ----------
    rounds : polars.DataFrame or polars.LazyFrame
        Rows with the columns of :data:`sim.RESULT_COLUMNS` (one per game,
        round and seat), e.g. what :func:`sim.simulate` returns or a scan of
        its parquet output.
    ruleset : Ruleset or str
        The rules the rows were played under (a preset name, a TOML file or
        a ruleset): its game family says which way points go; a name is
        echoed as given.
    overrides : mapping, optional
        Knobs changed from ``ruleset``, echoed.
    seed : int, optional
        The simulation seed, echoed.
    elapsed : float, optional
        Seconds the simulation took; adds rounds and games per second.

    Returns
    -------
    Summary
        ``str(summary)`` is the text; ``summary.to_dict()`` plain data.

    Raises
    ------
    ValueError
        ``rounds`` holds no row, or lacks a column the summary reads.
    """
    r = as_ruleset(ruleset)
    label = ruleset if isinstance(ruleset, str) else f"({r.game} ruleset)"
    lf = rounds.lazy()
    needed = {"game", "round", "seat", "strategy", "strategy_index", "points", "opened", "open_turn",
              "went_out", "won", "blocked", "truncated"}
    missing = needed - set(lf.collect_schema().names())
    if missing:
        raise ValueError(f"the rows lack the column(s) {', '.join(sorted(missing))}: give simulate's result rows")
    per_game = (
        lf.group_by("game", "strategy_index")
        .agg(
            pl.col("strategy").first().cast(pl.String),
            pl.col("seat").n_unique().alias("seats"),
            pl.col("seat").first(),
            pl.len().alias("rounds"),
            pl.col("points").sum().alias("points"),
            pl.col("opened").sum().alias("opened"),
            pl.col("went_out").sum().alias("went_out"),
            pl.col("open_turn").filter(pl.col("opened")).sum().alias("open_turn"),
            pl.col("won").first().alias("won"),
        )
        .sort("strategy_index", "game")
        .collect()
    )
    if per_game.height == 0:
        raise ValueError("no rows to summarise: the frame is empty")
    ends = (
        lf.filter(pl.col("seat") == 0)
        .group_by(pl.col("blocked").cast(pl.String))
        .agg(pl.len().alias("n"))
        .collect()
    )
    counts = dict(zip(ends["blocked"].to_list(), ends["n"].to_list()))
    unknown = set(counts) - set(BLOCKED_REASONS)
    if unknown:
        raise ValueError(f"unknown blocked reason(s) {', '.join(sorted(unknown))}; known: {', '.join(BLOCKED_REASONS)}")
    truncated = lf.filter(pl.col("truncated")).select(pl.col("game").n_unique()).collect().item()
    games = per_game["game"].n_unique()
    rotate = bool((per_game["seats"] > 1).any() or (per_game["seat"] != per_game["strategy_index"]).any())
    players = []
    for (index,), part in per_game.group_by("strategy_index", maintain_order=True):
        n_rounds = part["rounds"].to_numpy()
        players.append(StrategySummary(
            index=int(index),
            strategy=str(part["strategy"][0]),
            seat=None if rotate else int(index),
            games=part.height,
            rounds=int(n_rounds.sum()),
            points_per_round=ratio_interval(part["points"].to_numpy(), n_rounds),
            games_won=wilson_interval(int(part["won"].sum()), part.height),
            opened=ratio_interval(part["opened"].to_numpy(), n_rounds, share=True),
            went_out=ratio_interval(part["went_out"].to_numpy(), n_rounds, share=True),
            open_turn=ratio_interval(part["open_turn"].to_numpy(), part["opened"].to_numpy()),
        ))
    return Summary(
        game=r.game,
        rules=str(label),
        overrides=dict(overrides or {}),
        seed=seed,
        strategies=tuple(p.strategy for p in players),
        rotate=rotate,
        games=int(games),
        rounds=int(sum(counts.values())),
        round_ends={reason: int(counts.get(reason, 0)) for reason in BLOCKED_REASONS},
        truncated_games=int(truncated),
        players=tuple(players),
        elapsed=elapsed,
    )

