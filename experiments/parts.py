"""What an experiment's run plays: its parts, each one results dataset of the run's folder, and the parts
that play arms on common deals (:func:`arm_parts`, one dataset per arm and rotation).
"""

from __future__ import annotations

import math
import os
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

import sim
from experiments.arms import Arm, rotated_seats, rotation_columns
from sim import api, distributed

__all__ = ["ArmPart", "Part", "arm_parts"]


class Part(typing.Protocol):
    """One results dataset of an experiment's run: the folder ``data/<name>`` of its output.

    The runner asks each part to play a range of games into its folder
    (through the results store, :mod:`sim.store`, so a run stopped at any
    moment keeps its finished batches and the same run plays only the
    rest), then reads every part's rows back for the analysis.
    """

    name: str

    def play(self, folder: Path, first_game: int, n_games: int, workers: int | None,
             progress: Callable[[int], None] | None) -> None:
        """Make games ``first_game .. first_game + n_games - 1`` of this part present in ``folder``."""
        ...

    def rows(self, folder: Path, n_games: int) -> pl.LazyFrame:
        """The part's rows of games ``0 .. n_games - 1``, labelled for the analysis."""
        ...


def _slug(name: str) -> str:
    """A folder name for an arm's name: ``"4 players: waits"`` is ``4-players-waits``."""
    return "-".join("".join(c if c.isalnum() else " " for c in name.lower()).split()) or "arm"


@dataclass(frozen=True)
class ArmPart:
    """One arm's games in one rotation of its strategies through the seats: a simulation's dataset.

    An arm whose seats all play one strategy plays each game once: its
    rotations would deal the very same game, so its rows are labelled once
    per rotation (``copies``) instead of played again.
    """

    arm: Arm
    rotation: int
    seed: int
    copies: int = 1

    @property
    def name(self) -> str:
        return f"{_slug(self.arm.name)}/rotation-{self.rotation}"

    @property
    def seats(self) -> list[str]:
        """The strategy of each seat in this rotation: seat ``s`` plays strategy ``(s - rotation) mod players``."""
        return rotated_seats(self.arm.strategies, self.rotation)

    def play(self, folder: Path, first_game: int, n_games: int, workers: int | None,
             progress: Callable[[int], None] | None) -> None:
        cluster = distributed.current()
        threads = cluster.threads() if cluster is not None else workers or os.cpu_count() or 1
        # Four batches a thread at least, so that a small arm keeps every thread busy; 50 games at least, so
        # that a batch file's footer and provenance stay a small part of it.
        batch = max(50, min(2000, math.ceil(n_games / (4 * threads))))
        conditioned = {} if self.arm.condition is None else {"condition": self.arm.condition}
        sim.simulate(self.arm.ruleset, self.seats, n_games=n_games, seed=self.seed, workers=threads,
                     batch_size=batch, progress=progress, first_game=first_game, out=folder,
                     command=f"experiment arm {self.arm.name!r}, rotation {self.rotation}", **conditioned)

    def rows(self, folder: Path, n_games: int) -> pl.LazyFrame:
        rounds = sim.load(folder, "rounds").filter(pl.col("game") < n_games)
        games = sim.load(folder, "games").select("game", "seat", *api.GAME_LEVEL)
        # The game-level columns live in the games table: joined back, the rows are the engine's frame.
        rows = (rounds.join(games, on=["game", "seat"], how="left", maintain_order="left")
                .select(list(sim.RESULT_COLUMNS))
                .with_columns(pl.col(pl.Categorical).cast(pl.String)))
        n = len(self.arm.strategies)
        return pl.concat([rows.with_columns(*rotation_columns(k, n, self.arm.name))
                          for k in range(self.rotation, self.rotation + self.copies)])


def arm_parts(arms: Sequence[Arm], seed: int) -> list[ArmPart]:
    """The datasets that play ``arms`` under one seed: one per arm and rotation (once for an arm of one strategy)."""
    names = [a.name for a in arms]
    if len(set(names)) != len(names):
        raise ValueError(f"arm names must differ, got {names}")
    slugs = [_slug(n) for n in names]
    if len(set(slugs)) != len(slugs):
        raise ValueError(f"arm names must differ in their letters and digits (they name folders), got {names}")
    parts = []
    for arm in arms:
        if len(set(arm.strategies)) == 1:
            parts.append(ArmPart(arm, 0, seed, copies=arm.rotations))
        else:
            parts += [ArmPart(arm, k, seed) for k in range(arm.rotations)]
    return parts
