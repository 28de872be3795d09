"""Seat advantage: the share of rounds won is measured among the rounds someone won."""

from __future__ import annotations

import math

import polars as pl
import pytest

from experiments import metrics
from experiments import seat_advantage as seats

# Two games of contrat at 3 players, four rounds each (first player: seat 0, 1, 2, 0).
# Per round: the seat that went out, or None when the round ended with no winner.
WINNERS = {0: [0, None, None, 0], 1: [1, None, 2, None]}


def _frame() -> pl.DataFrame:
    rows = []
    for game, winners in WINNERS.items():
        for rnd, winner in enumerate(winners):
            for seat in range(3):
                rows.append({
                    "arm": seats.arm_name("contrat", 3), "rotation": 0, "game": game, "round": rnd, "seat": seat,
                    "first": rnd % 3, "went_out": seat == winner,
                    "blocked": "none" if winner is not None else "stock",
                    "points": 0 if seat == winner else 20, "won": seat == game, "strategy_index": seat,
                })
    return pl.DataFrame(rows)


def test_rounds_with_no_winner_count_for_no_place():
    table = metrics.won_round_shares(_frame())
    # Game 0: both won rounds went to the first player. Game 1: the first player
    # won one (round 2, first player seat 2), the second player the other (round 0).
    by = {(r["place"], r["game"]): (r["total"], r["count"]) for r in table.iter_rows(named=True)}
    assert by[(0, 0)] == (2.0, 2) and by[(1, 0)] == (0.0, 2) and by[(2, 0)] == (0.0, 2)
    assert by[(0, 1)] == (1.0, 2) and by[(1, 1)] == (1.0, 2) and by[(2, 1)] == (0.0, 2)


def test_the_first_players_share_of_won_rounds_and_the_no_winner_rate():
    config = seats.Config(games=2, games_played=("contrat",), max_players=3, resamples=60)
    findings = seats.analyse(_frame(), config)
    first = next(f for f in findings if f.metric == seats.WON_ROUNDS and f.group == "first player")
    # 3 of the 4 won rounds went to the round's first player: 75% against a fair 33.3%,
    # where counting the 4 rounds with no winner as losses would give 3/8 - 1/3.
    assert first.estimate.estimate == pytest.approx(3 / 4 - 1 / 3)
    second = next(f for f in findings if f.metric == seats.WON_ROUNDS and f.group == "second player")
    assert second.estimate.estimate == pytest.approx(1 / 4 - 1 / 3)
    shares = [f.estimate.estimate for f in findings if f.metric == seats.WON_ROUNDS]
    assert sum(shares) == pytest.approx(0.0)  # the places' shares of won rounds add up to one
    blocked = next(f for f in findings if f.metric == seats.NO_WINNER)
    assert blocked.estimate.estimate == pytest.approx(4 / 8)
    games = [f for f in findings if f.metric == seats.GAMES_WON]
    assert [f.group for f in games] == ["seat 0", "seat 1", "seat 2"]


def test_family_wise_intervals_are_wider_than_each_ones_own():
    config = seats.Config(games=2, games_played=("contrat",), max_players=3, resamples=60)
    findings = seats.analyse(_frame(), config)
    bounds = seats.family_intervals(findings, seats.WON_ROUNDS)
    assert len(bounds) == 3
    for f in findings:
        if f.metric == seats.WON_ROUNDS:
            low, high = bounds[(f.arms[0], f.group)]
            e = f.estimate
            assert low <= e.normal_low and high >= e.normal_high
            if e.normal_high > e.normal_low:  # three places, z of 0.025 / 3 against 1.96
                assert math.isclose((high - low) / (e.normal_high - e.normal_low), 2.394 / 1.96, rel_tol=1e-3)
