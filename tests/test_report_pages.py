"""Experiment pages: the "Puis-je ?" arms, the time to open's median, a level that did not vary."""

from __future__ import annotations

from experiments import may_i, time_to_open
from experiments.design import Finding
from experiments.stats import Estimate


def test_every_puis_je_habit_plays_against_the_same_table():
    arms = may_i.arms(may_i.Config())
    assert [a.name for a in arms] == [may_i.NEVER, may_i.BEFORE, may_i.NAIVE, may_i.NEAR]
    assert [a.strategies[0] for a in arms] == ["greedy:may_i=0", "greedy:may_i=3", "greedy:may_i=1", "greedy:may_i=2"]
    assert len({a.strategies[1:] for a in arms}) == 1 and all(a.duplicate for a in arms)
    # Every habit is compared with never asking, and stopping at the contract with the naive habit.
    assert {b for _, b in may_i.COMPARISONS} == {may_i.NEVER, may_i.NAIVE}


def test_a_level_the_same_in_every_game_says_so_with_its_bound():
    zero = Finding("share of games won", (may_i.NEAR,), Estimate(0.0, 0.0, 0.0, 0.0, 0.0, 6000), 6000, 42000)
    assert may_i.constant_sentence(zero) == ("0% in every one of the 6,000 games (95% bound: at most 0.050%)")
    naive = Finding("share of games won", (may_i.NAIVE,), Estimate(0.25, 0.25, 0.25, 0.25, 0.25, 6000), 6000, 42000)
    assert "1/players" in may_i.constant_sentence(naive)


def _median(turn: float) -> Finding:
    return Finding(time_to_open.MEDIAN, ("threshold 51, 4 players",), Estimate(turn, turn, turn, turn, turn, 100),
                   100, 1000)


def test_the_median_turn_is_given_only_where_the_shares_do_not_say_it():
    turns = (1, 2, 3, 5, 10)
    assert not time_to_open.median_says_something(_median(1.0), turns)  # the share by turn 1 is at least a half
    assert not time_to_open.median_says_something(_median(3.0), turns)  # between the shares by turns 2 and 3
    assert time_to_open.median_says_something(_median(5.0), turns)  # turn 4 is not in the table
    assert time_to_open.median_says_something(_median(12.0), turns)
    assert not time_to_open.median_says_something(_median(float("nan")), turns)
