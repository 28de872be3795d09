"""Open now or wait: what is this one decision worth, at positions of real games?

Positions are drawn from games of four greedy players (Rami 51, 4 players):
turns where the seat to move can open and does (greedy opens at its first
chance, with its richest opening), without going out that turn. At each,
the two choices are played out from the same position on common random
numbers (:func:`sim.rollout`, belief mode: the cards the seat cannot see are
re-dealt at every trial consistently with what it saw, the question the
player faces): open now, or wait, laying nothing this turn and throwing a
card. After the fork every seat plays greedy again, so a seat that waited
opens at its next chance. The cost of waiting is the seat's round points
after waiting minus after opening, mean over trials at each position, then
over positions, with a 95% interval that resamples games (two positions at
most per game, resampled together). The game-level answer of
`waiting_to_open` stands beside it.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
from matplotlib.figure import Figure

from experiments import forks, metrics
from experiments.findings import Finding, Results

TITLE = "Open now or wait: what is this one decision worth?"


def _candidate(events: list[dict[str, Any]], index: int) -> dict[str, Any] | None:
    """An opening that does not go out that turn."""
    e = events[index]
    if e["type"] != "open" or e.get("lay_all") or forks.went_out_this_turn(events, index):
        return None
    return {"opening_points": int(e["points"]),
            "opening_joker": any("★" in m["cards"] for m in e["melds"]),
            "opening_melds": len(e["melds"])}


FORK = forks.Fork(now="opening now", other="waiting", other_choice="stop", candidate=_candidate,
                  plays_now=lambda c: c.startswith("open "), salt=13,
                  facts={"opening_points": pl.Int64, "opening_joker": pl.Boolean, "opening_melds": pl.Int64})


@dataclass(frozen=True)
class Config(forks.ForkConfig):
    """Config of this experiment (see :class:`experiments.forks.ForkConfig`)."""

    games: int = 100


QUICK = {"games": 20, "trials": 200}

NOTES = [
    "Waiting means passing this turn's opening only: the seat throws a card, keeps its melds in hand and plays "
    "greedy again from its next decision, opening at its next chance (with the cards it has then). A habit of "
    "waiting for more points is the game-level experiment's question.",
    "The points are the seat's round points (penalty: fewer is better; a seat caught unopened pays 100), counted "
    "to the end of the round in which the decision is made.",
]


def groups(config: Config) -> list[tuple[str, pl.Expr]]:
    """The breakdown: by the points of the opening, by the seat's turn, by its melds, by a joker in it.

    (Every opening is laid from a full hand, just drawn: cards in hand do not vary here.)
    """
    return [
        ("openings of 51 to 59 points", pl.col("opening_points") < 60),
        ("openings of 60 to 69 points", pl.col("opening_points").is_between(60, 69)),
        ("openings of 70 points or more", pl.col("opening_points") >= 70),
        ("turns 1 to 3 of the seat", pl.col("table_turn") <= 3),
        ("turns 4 to 6 of the seat", pl.col("table_turn").is_between(4, 6)),
        ("turn 7 of the seat or later", pl.col("table_turn") >= 7),
        ("openings of two melds", pl.col("opening_melds") == 2),
        ("openings of three melds or more", pl.col("opening_melds") >= 3),
        ("openings with a joker", pl.col("opening_joker")),
        ("openings without a joker", ~pl.col("opening_joker")),
    ]


def analyse(frame: pl.DataFrame, config: Config) -> list[Finding]:
    return forks.breakdown_findings(FORK, frame, config, groups(config))


def conclusions(findings: list[Finding], config: Config) -> list[str]:
    return forks.conclusions(FORK, findings)


def figures(frame: pl.DataFrame, findings: list[Finding], config: Config) -> dict[str, Figure]:
    return forks.figures(FORK, frame, findings, "opening_points", "points of the opening on offer")


def _game_rows(summary: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(f"habit: {f['arms'][0]} points, against opening at the first chance" if f["arms"][0].startswith("wait")
             else f"habit: open only with the {f['arms'][0]}, against opening at the first chance", f)
            for f in summary["findings"] if f["metric"] == metrics.POINTS_PER_ROUND and len(f["arms"]) == 2]


def page_blocks(runs: list[Results]) -> list[tuple]:
    return forks.page_blocks(FORK, runs, _game_rows, "waiting_to_open",
                             "opening only with 60, 70 or 80 points, or with the whole hand",
                             "by the points of the opening, by turn, by its melds, by a joker in it",
                             lambda row: f"an opening of {row['opening_points']} points"
                                         + (" with a joker" if row["opening_joker"] else ""))


EXPERIMENT = forks.experiment(sys.modules[__name__], FORK, page_blocks=page_blocks, notes=tuple(NOTES))


def run(config: Config, out: Path | None = None, progress=None) -> Results:
    """Draw the positions, roll both choices out, analyse and (with ``out``) write the rows and ``summary.json``."""
    return EXPERIMENT.run(config, out, progress)
