"""Arms on common deals: the ways an experiment plays its games, each over the same deals.

Common random numbers
---------------------
Every arm of an experiment is played with the same seed over the same game
indices. The deck of round ``r`` of game ``g`` is shuffled by a stream of
``(seed, g, r)`` alone and the first player of round ``r`` is seat
``r mod players``, so two arms deal exactly the same hands, first discard and
stock order in every round both play. What the play changes is what follows:
which stock card each seat draws once someone takes from the pile, the
reshuffled stock, and in games played to a target score how many rounds a
game lasts (an arm whose game ends sooner plays fewer of the shared deals).
Per-seat policy randomness (the ``random`` strategy) has its own stream per
round and seat, so it too is shared by seat.

Duplicate deals
---------------
An arm that compares strategies at one table (``duplicate=True``) plays every
game once per rotation of its strategy list through the seats: in rotation
``k`` seat ``s`` plays strategy ``(s - k) mod players``. Each strategy thus
plays every seat's cards of every deal, and a game with all its rotations is
one unit of resampling: the luck of the cards cancels inside it. This module
owns that rotation (:func:`rotated_seats`, :func:`rotation_columns`) for
every room that rotates a table: the arms, the tournament and the ladder.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

import sim
from sim import rules

__all__ = ["Arm", "play_arm", "play_arms", "rotated_seats", "rotation_columns"]


@dataclass(frozen=True)
class Arm:
    """One way of playing the experiment's games.

    Attributes
    ----------
    name : str
        The arm's label in findings and reports.
    ruleset : Ruleset or str
        The rules; ``players`` follows the number of strategies.
    strategies : tuple of str
        One strategy per seat (rotation 0).
    duplicate : bool
        Play each game once per rotation of the strategies through the seats.
    condition : str, optional
        Deal each game's first round until this condition on the hands
        holds (``docs/deals.md``): every arm with the same seed and condition
        plays the same accepted deals.
    """

    name: str
    ruleset: rules.Ruleset | str
    strategies: tuple[str, ...]
    duplicate: bool = False
    condition: str | None = None

    @property
    def rotations(self) -> int:
        return len(self.strategies) if self.duplicate else 1


def rotated_seats(strategies: Sequence[Any], rotation: int) -> list[Any]:
    """Who sits where in rotation ``rotation``: seat ``s`` plays ``strategies[(s - rotation) mod players]``, so
    rotation 0 seats them in order and each later one moves every strategy one seat on. Every room that
    rotates a table (the arms, the tournament, the ladder) seats it here, and labels its rows with
    :func:`rotation_columns`."""
    n = len(strategies)
    return [strategies[(s - rotation) % n] for s in range(n)]


def rotation_columns(rotation: int, players: int, arm: str) -> list[pl.Expr]:
    """The columns that label the rows of rotation ``rotation`` (:func:`rotated_seats`): ``strategy_index``,
    the position of the row's strategy in the arm's list whatever the rotation, then ``arm`` and ``rotation``."""
    return [((pl.col("seat") - rotation) % players).cast(pl.Int16).alias("strategy_index"),
            pl.lit(arm).alias("arm"), pl.lit(rotation, dtype=pl.Int8).alias("rotation")]


def play_arm(
    arm: Arm,
    seed: int,
    first_game: int,
    n_games: int,
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> pl.DataFrame:
    """Rows of games ``first_game .. first_game + n_games - 1`` of ``arm``.

    Returns
    -------
    polars.DataFrame
        :data:`sim.RESULT_COLUMNS` plus ``arm`` (str) and ``rotation``
        (int8); ``strategy_index`` is the position in ``arm.strategies``
        whatever the rotation, ``game`` the shared game index. A progress
        callback receives finished games of each rotation.
    """
    n = len(arm.strategies)
    frames = []
    alike = len(set(arm.strategies)) == 1
    for k in range(arm.rotations):
        seated = rotated_seats(arm.strategies, k)
        if alike and frames:
            # Every rotation of one strategy plays the same game: relabel it.
            df = frames[0].drop("arm", "rotation")
            if progress:
                progress(n_games)
        else:
            df = sim.simulate(arm.ruleset, seated, n_games=n_games, seed=seed, workers=workers, progress=progress,
                              first_game=first_game)
        frames.append(df.with_columns(*rotation_columns(k, n, arm.name)))
    # Category lists differ between rotations' frames; strings stack.
    return pl.concat([f.with_columns(pl.col(pl.Categorical).cast(pl.String)) for f in frames])


def play_arms(
    arms: Sequence[Arm],
    seed: int,
    first_game: int,
    n_games: int,
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> pl.DataFrame:
    """Every arm over the same game range (common random numbers), stacked."""
    names = [a.name for a in arms]
    if len(set(names)) != len(names):
        raise ValueError(f"arm names must differ, got {names}")
    return pl.concat([play_arm(a, seed, first_game, n_games, workers, progress) for a in arms])
