"""The game's value of a round's outcome (sim.engine.game_value): the library of rounds and the futures drawn from it."""

from __future__ import annotations

import numpy as np
import pytest

import sim
import strategies as S
from sim import rules
from sim.engine import game_value as GV
from sim.engine.params import kernel_rules
from sim.engine.rng import STREAM_GAME_FUTURE, derive_seed
from sim.engine.state import MAX_SEATS
from sim.position import Position
from sim.rules.replay import check_trace


def _library(preset: str):
    kr = kernel_rules(rules.preset(preset, players=4))
    kinds, params = S.parameter_arrays([S.get("search:horizon=1").for_game(rules.preset(preset).game)]
                                       + [S.get("expert")] * 3, MAX_SEATS)
    rounds, starts, per_game = GV.futures(kr, kinds, params)
    return kr, rounds[0], starts[0], per_game[0], rounds, per_game


def _value(kr, totals, round_points, rounds_played, library, starts, per_game, seed=1):
    t = np.zeros(MAX_SEATS, dtype=np.int64)
    t[:len(totals)] = totals
    p = np.zeros(MAX_SEATS, dtype=np.int64)
    p[:len(round_points)] = round_points
    rng = np.array([derive_seed(np.uint64(seed), 0, 0, STREAM_GAME_FUTURE)], dtype=np.uint64)
    return GV.game_value(kr, t, p, rounds_played, 0, library, starts, per_game, rng,
                         np.zeros(2 * MAX_SEATS, dtype=np.int64))


def test_the_library_holds_the_bases_rounds_and_the_worth_of_a_point():
    kr, library, starts, per_game, all_rounds, all_per_game = _library("rami51")
    # One range of rounds in a game to a target: about 11 rounds a game of four experts.
    assert starts[0] == 0 and starts[1] == starts[-1] > 8 * GV.LIBRARY_GAMES
    rows = library[:starts[1], :4]
    # In each round one seat went out (0 points) or nobody did; nobody scores below 0 in Rami 51.
    assert (rows >= 0).all() and (rows.min(axis=1) == 0).mean() > 0.95
    # A point of the first round costs about 0.18% of a game: some 550 points a game (module docstring).
    assert 300 < per_game < 1000
    # The other seats do not value the game: their libraries are empty and never read.
    assert (all_rounds[1:] == 0).all() and (all_per_game[1:] == 0).all()


def test_contrat_draws_each_deal_from_its_own_rounds():
    kr, library, starts, per_game, _, _ = _library("contrat")
    # Seven deals, each played once a game.
    assert list(np.diff(starts[:8])) == [GV.LIBRARY_GAMES] * 7
    assert 200 < per_game < 800


def test_a_round_that_ends_the_game_is_valued_by_the_final_totals():
    # Section 5.4: the game ends after a round in which a total reaches the
    # target (500), won by the single lowest total.
    kr, library, starts, per_game, _, _ = _library("rami51")
    # Seat 0 at 480 goes over with 25 points: the game ends and it has lost.
    assert _value(kr, [480, 300, 310, 320], [25, 0, 10, 30], 5, library, starts, per_game) == 0.0
    # A rival goes over while seat 0 is lowest: a sure win, the whole game's worth.
    assert _value(kr, [200, 480, 310, 320], [10, 40, 0, 30], 5, library, starts, per_game) == pytest.approx(-per_game)
    # Under the target the game goes on: a win neither sure nor lost.
    assert -per_game < _value(kr, [200, 300, 310, 320], [10, 40, 0, 30], 5, library, starts, per_game) < 0.0


def test_a_shared_lowest_total_after_the_last_deal_shares_the_win():
    # Section 6.6: after the seventh deal the lowest total wins; a tie shares it.
    kr, library, starts, per_game, _, _ = _library("contrat")
    value = _value(kr, [100, 100, 150, 160], [0, 0, 20, 30], 7, library, starts, per_game)
    assert value == pytest.approx(-per_game / 2)


def test_fewer_points_are_worth_more_on_common_futures():
    kr, library, starts, per_game, _, _ = _library("rami51")
    totals = [300, 320, 330, 340]
    values = [_value(kr, totals, [p, 20, 20, 20], 6, library, starts, per_game) for p in (0, 20, 60, 120)]
    assert values[0] < values[1] < values[-1]
    # Far from the target a point of the round is worth about a point of the game's value.
    early = [_value(kr, [0, 0, 0, 0], [p, 20, 20, 20], 1, library, starts, per_game, seed=s)
             for p in (0, 40) for s in range(20)]
    slope = (np.mean(early[20:]) - np.mean(early[:20])) / 40
    assert 0.3 < slope < 3.0


@pytest.mark.parametrize("ruleset", [rules.preset("rami51", game_target=150), rules.preset("contrat"),
                                     rules.preset("basic")], ids=["rami51", "contrat", "basic"])
def test_a_game_valuing_search_replays_through_the_rules_and_through_positions(ruleset):
    # Its decisions read the game's totals: a position rebuilt from the trace
    # (with the totals of the round's start) must make every searching
    # decision the game made, or from_trace refuses the trace.
    seats = ["search:trials=4,horizon=1", "expert", "expert", "expert"]
    events = sim.play_traced(ruleset, seats, seed=3, max_rounds=3)
    check_trace(events)
    deals = [i for i, e in enumerate(events) if e["type"] == "deal"]
    assert len(deals) >= 2
    for d in deals[1:]:
        end = next(i for i in range(d, len(events)) if events[i]["type"] == "round_end")
        last = max(i for i in range(d, end) if events[i]["type"] in ("discard", "draw"))
        Position.from_trace(events, last)


def test_the_horizon_is_a_search_parameter():
    assert S.get("search:horizon=1").vector()[sim.engine.policies.P_SEARCH_HORIZON] == 1
    assert S.get("search").params["horizon"] == 0
    with pytest.raises(ValueError, match="horizon"):
        S.get("search:horizon=2")
