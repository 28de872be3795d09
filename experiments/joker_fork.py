"""Lay the joker now or keep it: what is this one decision worth, at positions of real games?

Positions are drawn from games of four greedy players (Rami 51, 4 players):
turns where the seat to move, already opened, lays a joker on the table (a
new meld holding it, or the joker added to a meld) without going out that
turn. At each, the two choices are played out from the same position on
common random numbers (:func:`sim.rollout`, belief mode: the cards the seat
cannot see are re-dealt at every trial consistently with what it saw, the
question the player faces): lay the joker now, as greedy does, or keep it,
laying nothing more this turn and throwing a card (the joker stays in hand;
greedy may lay it on a later turn). After the fork every seat plays greedy
again. The cost of keeping is the seat's round points after keeping minus
after laying, mean over trials at each position, then over positions, with a
95% interval that resamples games (two positions at most per game, resampled
together). The game-level answer of `holding_jokers` stands beside it.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
from matplotlib.figure import Figure

from experiments import forks, metrics, plots
from experiments.findings import Finding, Results

TITLE = "Lay the joker now or keep it: what is this one decision worth?"


def _candidate(events: list[dict[str, Any]], index: int) -> dict[str, Any] | None:
    """A joker laid on the table by a seat that does not go out that turn.

    A joker placed right after a recovery is part of that recovery's action
    (the recovered joker laid again), not a decision of its own.
    """
    e = events[index]
    if events[index - 1]["type"] == "recover":
        return None
    if e["type"] == "meld" and "★" in e["cards"]:
        laying = "a new meld"
    elif e["type"] == "add" and e["card"] == "★":
        laying = "added to a table meld"
    else:
        return None
    return None if forks.went_out_this_turn(events, index) else {"laying": laying}


FORK = forks.Fork(now="laying the joker now", other="keeping the joker", other_choice="stop",
                  candidate=_candidate, plays_now=lambda c: c.startswith(("meld ", "add ")) and "★" in c, salt=12,
                  facts={"laying": pl.String})


@dataclass(frozen=True)
class Config(forks.ForkConfig):
    """Config of this experiment (see :class:`experiments.forks.ForkConfig`)."""

    games: int = 150


QUICK = {"games": 30, "trials": 200}

NOTES = [
    "Keeping means holding the joker through this turn only: the seat lays nothing more now (joker-free layings "
    "it would have made this turn wait too) and plays greedy again from its next decision, so it may lay the "
    "joker a turn later. A habit of keeping jokers is the game-level experiment's question.",
    "The points are the seat's round points (penalty: fewer is better), counted to the end of the round in which "
    "the decision is made.",
]


def groups(config: Config) -> list[tuple[str, pl.Expr]]:
    """The breakdown: by cards left in hand, by the seat's turn, and by where the joker goes."""
    return [
        ("hands of 3 or 4 cards", pl.col("hand_size") <= 4),
        ("hands of 5 or 6 cards", pl.col("hand_size").is_between(5, 6)),
        ("hands of 7 cards or more", pl.col("hand_size") >= 7),
        ("turns 1 to 3 of the seat", pl.col("table_turn") <= 3),
        ("turns 4 to 6 of the seat", pl.col("table_turn").is_between(4, 6)),
        ("turn 7 of the seat or later", pl.col("table_turn") >= 7),
        ("a joker in a new meld", pl.col("laying") == "a new meld"),
        ("a joker added to a table meld", pl.col("laying") == "added to a table meld"),
    ]


def analyse(frame: pl.DataFrame, config: Config) -> list[Finding]:
    return forks.breakdown_findings(FORK, frame, config, groups(config))


def conclusions(findings: list[Finding], config: Config) -> list[str]:
    return forks.conclusions(FORK, findings)


def figures(frame: pl.DataFrame, findings: list[Finding], config: Config) -> dict[str, Figure]:
    return forks.figures(FORK, frame, findings, "hand_size", "cards in hand at the decision")


def _game_rows(summary: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    players = summary["config"]["players"]
    table = 4 if 4 in players else players[len(players) // 2]
    names = {f"{table} players: keeps jokers for the opening": "habit: keeps jokers for the opening",
             f"{table} players: keeps jokers for a rami sec": "habit: keeps jokers for a rami sec"}
    return [(f"{names[f['arms'][0]]}, {table} players, against laying them at once", f)
            for f in summary["findings"] if f["metric"] == metrics.POINTS_PER_ROUND and len(f["arms"]) == 2
            and f["arms"][0] in names]


def page_blocks(runs: list[Results]) -> list[tuple]:
    return forks.page_blocks(FORK, runs, _game_rows, "holding_jokers",
                             "keeping its jokers for the opening, or for a rami sec",
                             "by cards in hand, by turn, by where the joker goes",
                             lambda row: f"the joker {row['laying']}")


EXPERIMENT = forks.experiment(sys.modules[__name__], FORK, page_blocks=page_blocks, notes=tuple(NOTES))


def run(config: Config, out: Path | None = None, progress=None) -> Results:
    """Draw the positions, roll both choices out, analyse and (with ``out``) write the rows and ``summary.json``."""
    return EXPERIMENT.run(config, out, progress)
