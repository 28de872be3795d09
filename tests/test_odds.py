"""The odds tables: dealt as games are dealt, counted by the compiled searches, checked against exact values
and the rules reference."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

import sim
from sim import cards, rules
from sim.deals import deal
from sim.engine import deals as kernels
from sim.odds_tables import goes_out_at_once


def codes(row) -> list[int]:
    return [int(c) for c in row if c >= 0]


@pytest.mark.parametrize("name,rnd", [("rami51", 0), ("rami51", 2), ("contrat", 4), ("rami51-classic", 1)])
def test_the_deal_is_the_deal_a_traced_game_gets(name, rnd):
    r = rules.preset(name)
    seed, game = 7, 3
    events = sim.play_traced(r, ["random"] * r.players, seed=seed, game=game)
    dealt = [e for e in events if e["type"] == "deal" and e["round"] == rnd]
    if not dealt:
        pytest.skip("the game ended before that round")
    traced = dealt[0]
    d = deal(r, 1, seed=seed, first_game=game, round_index=rnd, stock_cards=3)
    assert d.first == traced["first"]
    for seat in range(r.players):
        assert sorted(codes(d.hands[0, seat])) == sorted(int(c) for c in cards.parse(traced["hands"][seat]))
    assert int(d.pile[0]) == int(cards.parse(traced["pile"])[0])
    assert d.stock[0].tolist() == [int(c) for c in cards.parse(traced["stock"])[:3]]


def test_a_rejected_deal_is_followed_by_the_next_deal_of_the_same_stream():
    r = rules.preset("rami51")
    from sim.deals import Dealer

    dealer = Dealer(r, 5, np.arange(4), 0, 2)
    first, second = dealer.next(), dealer.next()
    again = Dealer(r, 5, np.arange(4), 0, 2)
    assert np.array_equal(again.next().hands, first.hands)
    assert np.array_equal(again.next(np.array([2])).hands[0], second.hands[2])
    assert not np.array_equal(first.hands, second.hands)
    assert second.attempts.tolist() == [1, 1, 1, 1]


def test_the_first_turn_hand_is_the_hand_dealt_and_the_first_draw():
    d = deal("rami51", 50, seed=3)
    first_turn = d.first_turn_hands()
    for i in range(50):
        assert sorted(codes(first_turn[i])) == sorted(codes(d.hands[i, 0]) + [int(d.stock[i, 0])])
    classic = deal("rami51-classic", 5, seed=3)
    assert (classic.first_turn_hands() >= 0).sum(axis=1).tolist() == [15] * 5  # 14 dealt and one more, no draw


@pytest.mark.parametrize("name", ["rami51", "contrat", "rami51-classic"])
def test_the_joker_table_holds_the_exact_hypergeometric_value_in_its_interval(name):
    r = rules.preset(name)
    table = sim.odds(r, precision=0.01, seed=11)
    jokers = table.filter(table["table"] == "jokers")
    size = r.hand_size(0) + int(r.first_player_extra_card)
    for row in jokers.iter_rows(named=True):
        k = row["value"]
        exact = comb(r.n_jokers, k) * comb(r.deck_size - r.n_jokers, size - k) / comb(r.deck_size, size)
        assert row["low"] <= exact <= row["high"], (k, exact, row)
    assert jokers["hits"].sum() == jokers["hands"][0]


def test_the_opening_tables_are_direct_counts_of_the_same_deals():
    result = sim.odds("rami51", precision=0.01, seed=2, tables=True, thresholds=[40, 51])
    d = deal("rami51", result.hands, seed=2)
    best = sim.best_openings(d.first_turn_hands(), "rami51")
    dealt = sim.best_openings(d.hands[:, 0, :], "rami51")
    frame = result.frame()
    for table, totals in (("first_turn", best), ("dealt", dealt)):
        for t in (40, 51):
            row = frame.filter((frame["table"] == table) & (frame["value"] == t)).row(0, named=True)
            assert row["hits"] == int((totals >= t).sum()) and row["hands"] == result.hands
    points = frame.filter(frame["table"] == "points")
    assert points["hits"].sum() == result.hands
    assert points.filter(points["value"] == 0)["hits"][0] == int((best == 0).sum())


@pytest.mark.parametrize("name", ["rami51", "rami51-ducale", "basic"])
def test_dealt_hands_get_the_reference_opening(name):
    r = rules.preset(name)
    d = deal(r, 60, seed=19)
    hands = d.first_turn_hands()
    got = sim.best_openings(hands, r)
    assert got.tolist() == [rules.best_opening(codes(h), r) for h in hands]


def test_most_melded_is_the_reference_on_dealt_hands():
    r = rules.preset("rami51")
    hands = deal(r, 40, seed=23).first_turn_hands()
    out = np.zeros(40, dtype=np.int64)
    kernels.most_melded(hands, r.min_run, r.ace_high, out)
    assert out.tolist() == [rules.max_melded_cards(codes(h), r) for h in hands]


@pytest.mark.parametrize("round_index", range(7))
def test_contracts_held_is_the_reference_on_dealt_contrat_hands(round_index):
    r = rules.preset("contrat")
    d = deal(r, 40, seed=29, round_index=round_index)
    number = round_index + 1
    sets, runs = r.contract(number)
    for hands in (np.ascontiguousarray(d.hands[:, d.first, :]), d.first_turn_hands()):
        out = np.zeros(40, dtype=np.int64)
        kernels.contracts_held(hands, sets, runs, number == rules.WHOLE_HAND_DEAL, r.min_run, r.ace_high, out)
        assert out.tolist() == [int(rules.meets_contract(codes(h), number, r)) for h in hands]


def slow_goes_out(hand: list[int], r: rules.Ruleset) -> bool:
    """Going out at once, by ``rules.best_collection`` on each hand less the card left out."""
    waived = r.lay_all_ignores_opening
    options = sorted(set(hand)) if r.go_out == "discard_only" else [None, *sorted(set(hand))]
    for c in options:
        rest = list(hand)
        if c is not None:
            rest.remove(c)
        total, _ = rules.best_collection(rest, r, lambda reading, m: 1000 * len(m) + reading.points,
                                         r.open_needs_natural_run and not waived)
        if total >= 1000 * len(rest) and (waived or total - 1000 * len(rest) >= r.open_threshold):
            return True
    return False


@pytest.mark.parametrize("name", ["rami51", "rami51-classic", "rami51-ducale"])
def test_going_out_at_once_is_the_slow_reference(name):
    r = rules.preset(name)
    examples = ["A♣ 2♣ 3♣ 4♣ 5♥ 6♥ 7♥ 8♥ 9♥ J♠ J♦ J♥ K♠ K♦",  # 14 cards laid whole: 10 + 35 + 30 + 20 ...
                "A♣ 2♣ 3♣ 5♥ 6♥ 7♥ J♠ J♦ J♥ K♠ K♦ K♥ Q♣ 2♦",  # all but one
                "A♣ 2♣ 3♣ 5♥ 6♥ 7♥ J♠ J♦ J♥ K♠ K♦ Q♣ 2♦ 9♠"]  # two cards left: no
    hands = [[int(c) for c in cards.parse(e)] for e in examples]
    # Dealt hands that the compiled searches leave to the reference (most cards melded), and a few others.
    d = deal(r, 20_000, seed=31).first_turn_hands()
    out = np.zeros(len(d), dtype=np.int64)
    kernels.most_melded(d, r.min_run, r.ace_high, out)
    size = (d >= 0).sum(axis=1)
    hands += [codes(h) for h in d[out >= size - 1][:6]] + [codes(h) for h in d[:4]]
    got = [goes_out_at_once(h, r) for h in hands]
    assert got == [slow_goes_out(h, r) for h in hands]
    assert got[2] is False and any(got)


def test_going_out_at_once_needs_the_threshold_unless_waived():
    low = [int(c) for c in cards.parse("A♣ 2♣ 3♣ 3♥ 4♥ 5♥ 2♠ 2♦ 2♥ 5♠ 6♠ 7♠ 8♠ 9♦")]
    assert not goes_out_at_once(low, "rami51")  # 6 + 12 + 6 + 26 = 50 < 51, 9♦ discarded
    assert goes_out_at_once(low, rules.preset("rami51").replace(open_threshold=40))
    assert goes_out_at_once(low, rules.preset("rami51").replace(lay_all_ignores_opening=True))


def test_odds_refuse_bad_values():
    for kwargs, needle in [({"precision": 0}, "precision"), ({"precision": float("nan")}, "precision"),
                           ({"max_hands": 10}, "max_hands"), ({"seed": -1}, "seed"),
                           ({"thresholds": []}, "thresholds"), ({"thresholds": [0]}, "thresholds"),
                           ({"players": 9}, "players")]:
        with pytest.raises(ValueError, match=needle):
            sim.odds("rami51", **kwargs)
    with pytest.raises(ValueError, match="hand_size"):
        sim.odds("contrat", hand_size=10)


def test_odds_stop_at_max_hands_and_say_so():
    result = sim.odds("rami51", precision=0.0001, max_hands=5000, tables=True)
    assert result.hands == 5000 and not result.reached
    assert set(result.frame()["hands"].to_list()) == {5000}
