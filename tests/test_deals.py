"""Conditioned deals: the condition language, rejection on each game's own deck stream, refusals."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import sim
from sim import cards, rules
from sim.deals import ConditionError, Dealer, parse_condition, sample


def hand_of(row) -> list[int]:
    return [int(c) for c in row if c >= 0]


def holds(hand: list[int], text: str) -> bool:
    need = Counter(int(c) for c in cards.parse(text))
    have = Counter(hand)
    return all(have[c] >= k for c, k in need.items())


# Each condition with the same question asked of the rules reference, hand by hand.
REFERENCE = {
    "jokers(0) >= 1": lambda h, r, rnd: h[0].count(52) >= 1,
    "opening(0) >= 51": lambda h, r, rnd: rules.best_opening(h[0], r) >= 51,
    'holds(2, "7♥ 7♦")': lambda h, r, rnd: holds(h[2], "7♥ 7♦"),
    "every_seat(opening(seat) < 51)": lambda h, r, rnd: all(rules.best_opening(x, r) < 51 for x in h),
    "any_seat(jokers(seat) >= 2) and not melds(1) > 6":
        lambda h, r, rnd: any(x.count(52) >= 2 for x in h) and not rules.max_melded_cards(h[1], r) > 6,
    "opening(0) - opening(1) >= 20 or jokers(3) == 0":
        lambda h, r, rnd: rules.best_opening(h[0], r) - rules.best_opening(h[1], r) >= 20 or h[3].count(52) == 0,
    "30 <= opening(1) < 51": lambda h, r, rnd: 30 <= rules.best_opening(h[1], r) < 51,
}


@pytest.mark.parametrize("text", list(REFERENCE))
def test_every_accepted_deal_satisfies_the_condition_by_the_reference(text):
    r = rules.preset("rami51")
    s = sample(r, text, 25, seed=5)
    assert len(s.deals) == 25 and s.accepted == 25
    for i in range(25):
        hands = [hand_of(row) for row in s.deals.hands[i]]
        assert REFERENCE[text](hands, r, 0), (text, i)


def test_a_contract_condition_in_contrat():
    r = rules.preset("contrat")
    s = sample(r, "contract(1)", 10, seed=2, round_index=1)
    for i in range(10):
        assert rules.meets_contract(hand_of(s.deals.hands[i, 1]), 2, r)


@pytest.mark.parametrize("text", ["opening(0) >= 51", 'holds(2, "7♥")', "every_seat(opening(seat) < 51)"])
def test_the_acceptance_rate_is_a_direct_count_over_the_same_streams(text):
    r = rules.preset("rami51")
    n = 12
    s = sample(r, text, n, seed=9, first_game=40)
    check = REFERENCE.get(text) or (lambda h, r, rnd: holds(h[2], "7♥"))
    dealer = Dealer(r, 9, np.arange(40, 40 + n), 0, r.players)
    dealt = 0
    for i in range(n):
        while True:
            d = dealer.next(np.array([i]))
            dealt += 1
            if check([hand_of(row) for row in d.hands[0]], r, 0):
                break
        assert np.array_equal(d.hands[0], s.deals.hands[i]) and np.array_equal(d.stock[0], s.deals.stock[i])
        assert d.attempts[0] == s.deals.attempts[i]
    assert s.dealt == dealt and s.rate == pytest.approx(n / dealt)
    interval = s.rate_interval()
    assert interval.low <= s.rate <= interval.high


def test_the_first_deal_of_a_game_is_the_deal_it_plays_unconditioned():
    s = sample("rami51", "jokers(0) >= 0", 5, seed=4, first_game=10)
    plain = sim.deals.deal("rami51", 5, seed=4, first_game=10)
    assert np.array_equal(s.deals.hands, plain.hands) and s.deals.attempts.tolist() == [0] * 5
    assert s.dealt == 5 and s.rate == 1.0


def test_the_deals_do_not_depend_on_workers_or_on_how_many_games():
    text = "any_seat(jokers(seat) >= 2)"
    one = sample("rami51", text, 40, seed=13)
    three = sample("rami51", text, 40, seed=13, workers=3)
    fewer = sample("rami51", text, 15, seed=13)
    later = sample("rami51", text, 10, seed=13, first_game=30)
    assert np.array_equal(one.deals.hands, three.deals.hands) and one.dealt == three.dealt
    assert np.array_equal(one.deals.hands[:15], fewer.deals.hands)
    assert np.array_equal(one.deals.hands[30:], later.deals.hands)
    assert np.array_equal(one.deals.attempts, three.deals.attempts)


def test_a_python_predicate_keeps_the_same_deals_as_the_text():
    text = sample("rami51", "jokers(0) >= 1 and jokers(1) == 0", 20, seed=8)
    predicate = sample("rami51", lambda hands: hands[0].count(52) >= 1 and hands[1].count(52) == 0, 20, seed=8)
    assert np.array_equal(text.deals.hands, predicate.deals.hands) and text.dealt == predicate.dealt


def test_every_strategy_played_on_the_accepted_deals_gets_the_same_deal():
    r = rules.preset("rami51")
    s = sample(r, "opening(0) >= 61", 3, seed=21, stock_cards=r.deck_size - 4 * 13 - 1)
    for i in range(3):
        script = s.deals.script(i)
        for strategies in (["greedy"] * 4, ["random", "cautious", "greedy", "expert"]):
            events = sim.play_traced(r, strategies, seed=21, game=int(s.deals.games[i]), max_rounds=1, deal=script)
            dealt = next(e for e in events if e["type"] == "deal")
            assert dealt["hands"] == script["hands"] and dealt["pile"] == script["pile"]
            assert dealt["stock"] == script["stock"]


@pytest.mark.parametrize("text,needles", [
    ("", ["empty"]),
    ("jokers(0) >=", ["cannot be read", "at its end"]),
    ("jokers(0) >= 1 andd 2", ["cannot be read", "column 16"]),
    ("jokers(4) >= 1", ["column 8", "seat 4", "seats 0 .. 3"]),
    ("opening(0)", ["column 1", "a number is not a condition"]),
    ("jokers(0) >= 1 or 3", ["column 19", "a number where a condition is needed"]),
    ("wealth(0) > 2", ["column 1", "unknown feature 'wealth'", "jokers(seat)"]),
    ("__import__('os').system('x')", ["unknown feature"]),
    ("jokers(0) in [1, 2]", ["'in' is not a comparison"]),
    ("jokers(seat) > 1", ["column 8", "only inside any_seat"]),
    ("any_seat(every_seat(jokers(seat) > 0))", ["column 10", "inside another"]),
    ('holds(0, "7X")', ["column 10", "'7X'"]),
    ('holds(0, "7♥ 7♥ 7♥")', ["column 10", "3 times", "deck holds 2"]),
    ("holds(0)", ["takes 2 arguments"]),
    ("jokers(seat=0) > 1", ["by position"]),
    ("contract(0)", ["column 1", "contract() is Rami contrat's"]),
    ("opening(0) * 2 > 3", ["not part of the language"]),
    ("jokers(0) >= 1.5", ["not a whole number"]),
])
def test_a_bad_condition_names_the_problem_and_its_place(text, needles):
    with pytest.raises(ConditionError) as info:
        sample("rami51", text, 5)
    for needle in needles:
        assert needle in str(info.value), (needle, str(info.value))


def test_a_condition_too_rare_is_refused_with_its_measured_rate():
    with pytest.raises(ValueError, match=r"too rare to sample: 0 of 20,000 pilot deals accepted") as info:
        sample("rami51", "jokers(0) == 4 and jokers(1) >= 0 and opening(0) >= 120", 5)
    assert "min_rate" in str(info.value) and "95% interval" in str(info.value)
    # The same condition with a lower floor is sampled (and each deal checked).
    s = sample("rami51", "jokers(0) >= 3", 3, min_rate=1e-3)
    assert all(hand_of(s.deals.hands[i, 0]).count(52) >= 3 for i in range(3))


def test_bad_values_of_sample_are_refused():
    for kwargs, needle in [({"n": 0}, "n must"), ({"seed": -1}, "seed"), ({"min_rate": 0}, "min_rate"),
                           ({"workers": 0}, "workers"), ({"pilot": 10}, "pilot must be 0")]:
        args = {"n": 5, **kwargs}
        with pytest.raises(ValueError, match=needle):
            sample("rami51", "jokers(0) >= 1", **args)
    with pytest.raises(ConditionError):
        sample("rami51", 42, 5)


def test_parse_condition_reads_once_and_keeps_the_text():
    c = parse_condition("every_seat(jokers(seat) <= 1)")
    assert c.text == "every_seat(jokers(seat) <= 1)"
    d = sim.deals.deal("rami51", 200, seed=1)
    expected = [(d.hands[i] == 52).sum(axis=1).max() <= 1 for i in range(200)]
    assert c.evaluate(d).tolist() == expected


def test_simulate_plays_the_accepted_deals_for_every_arm():
    r = rules.preset("rami51")
    text = "jokers(0) >= 2"
    kept = sample(r, text, 6, seed=17, first_game=4)
    arms = [sim.simulate(r, strategies, n_games=6, seed=17, first_game=4, workers=w, condition=text)
            for strategies, w in ((["greedy"] * 4, 1), (["random", "cautious", "greedy", "expert"], 2))]
    for frame in arms:
        firsts = frame.filter((frame["round"] == 0) & (frame["seat"] == 0)).sort("game")
        assert firsts["deals"].to_list() == (kept.deals.attempts + 1).tolist()
    # The games' first rounds are the accepted deals: a traced game given the same deal plays the same round.
    script = kept.deals.script(0)
    full = sample(r, text, 1, seed=17, first_game=4, stock_cards=sim.deals.stock_size(r)).deals
    assert full.script(0)["hands"] == script["hands"]
    events = sim.play_traced(r, ["greedy"] * 4, seed=17, game=4, max_rounds=1, deal=full.script(0))
    end = next(e for e in events if e["type"] == "round_end")
    greedy = arms[0].filter((arms[0]["game"] == 4) & (arms[0]["round"] == 0)).sort("seat")
    assert greedy["points"].to_list() == end["points"]


def test_simulate_refuses_a_condition_it_cannot_play():
    with pytest.raises(ConditionError, match="seat 5"):
        sim.simulate("rami51", ["greedy"] * 4, n_games=2, condition="jokers(5) >= 1")
    with pytest.raises(ValueError, match="too rare to sample"):
        sim.simulate("rami51", ["greedy"] * 4, n_games=2, condition="jokers(0) == 4 and opening(1) >= 100")
    with pytest.raises(ValueError, match="scheduler"):
        sim.simulate("rami51", ["greedy"] * 4, n_games=2, condition="jokers(0) >= 1", out="somewhere",
                     scheduler="tcp://127.0.0.1:1")


def test_an_unconditioned_simulation_has_no_deals_column():
    frame = sim.simulate("rami51", ["greedy"] * 4, n_games=3, seed=2, workers=1)
    assert "deals" not in frame.columns


def test_a_conditioned_dataset_holds_the_rows_played_in_memory(tmp_path):
    text = "opening(1) >= 40"
    frame = sim.simulate("rami51", ["greedy"] * 4, n_games=8, seed=6, workers=2, condition=text)
    sim.simulate("rami51", ["greedy"] * 4, n_games=8, seed=6, workers=1, condition=text, out=tmp_path / "d",
                 batch_size=3)
    stored = sim.load(tmp_path / "d", "rounds").collect().sort("game", "round", "seat")
    mine = frame.sort("game", "round", "seat")
    for column in ("game", "round", "seat", "points", "opened", "open_points", "turns"):
        assert stored[column].to_list() == mine[column].to_list(), column
    with pytest.raises(ValueError, match="Python predicate"):
        sim.simulate("rami51", ["greedy"] * 4, n_games=2, condition=lambda h: True, out=tmp_path / "e")


def test_a_condition_every_deal_meets_plays_the_unconditioned_games():
    # The first deal of each stream is the game's own, and its restocks go on from where that deal left the stream.
    plain = sim.simulate("rami51", ["greedy", "random", "cautious"], n_games=12, seed=31, workers=1)
    kept = sim.simulate("rami51", ["greedy", "random", "cautious"], n_games=12, seed=31, workers=2,
                        condition="jokers(0) >= 0")
    assert kept["deals"].unique().to_list() == [1]
    assert kept.drop("deals").equals(plain)
