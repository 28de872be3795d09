"""Conditioned deals: the condition language, rejection on each game's own deck stream, refusals."""

from __future__ import annotations

import math
import time
from collections import Counter

import numpy as np
import pytest

import sim
from sim import cards, rules
from sim.conditions import ConditionError, parse_condition
from sim.deals import Dealer, sample
from sim.distributed import ClusterError


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


@pytest.mark.parametrize("text", ["opening(0) >= 51", 'not holds(2, "7♥")', "every_seat(opening(seat) < 51)"])
def test_the_acceptance_rate_is_a_direct_count_over_the_same_streams(text):
    # holds() under not (or, any_seat) is tested deal by deal like any other term.
    r = rules.preset("rami51")
    n = 12
    s = sample(r, text, n, seed=9, first_game=40)
    check = REFERENCE.get(text) or (lambda h, r, rnd: not holds(h[2], "7♥"))
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


def test_simulate_refuses_a_condition_it_cannot_play(tmp_path):
    with pytest.raises(ConditionError, match="seat 5"):
        sim.simulate("rami51", ["greedy"] * 4, n_games=2, condition="jokers(5) >= 1")
    with pytest.raises(ValueError, match="too rare to sample"):
        sim.simulate("rami51", ["greedy"] * 4, n_games=2, condition="jokers(0) == 4 and opening(1) >= 100")
    # A condition plays on a cluster too (its workers draw the same deals); a scheduler nobody answers at is
    # refused by its address before anything is made.
    with pytest.raises(ClusterError, match="127.0.0.1:1"):
        sim.simulate("rami51", ["greedy"] * 4, n_games=2, condition="jokers(0) >= 1", out=tmp_path / "d",
                     scheduler="tcp://127.0.0.1:1")
    assert not (tmp_path / "d").exists()


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


def test_a_searching_seat_plays_the_accepted_deals():
    # The searching game loop takes the accepted first deals as the plain one does: a condition every deal meets
    # plays its unconditioned games row for row, and a real condition the same deals as any other arm.
    table = ["search:trials=4", "expert", "greedy"]
    plain = sim.simulate("rami51", table, n_games=3, seed=31, workers=1, max_rounds=2)
    kept = sim.simulate("rami51", table, n_games=3, seed=31, workers=2, max_rounds=2, condition="jokers(0) >= 0")
    assert kept.drop("deals").equals(plain)
    text = "jokers(0) >= 2"
    searched = sim.simulate("rami51", table, n_games=3, seed=17, max_rounds=1, condition=text)
    greedy = sim.simulate("rami51", ["greedy"] * 3, n_games=3, seed=17, max_rounds=1, condition=text)
    kept = sample("rami51", text, 3, seed=17, players=3)
    for frame in (searched, greedy):
        firsts = frame.filter(frame["seat"] == 0).sort("game")
        assert firsts["deals"].to_list() == (kept.deals.attempts + 1).tolist()


# ---------------------------------------------------------------- holds() dealt exactly
def both_copies_share(n: int, h: int) -> float:
    """Among hands of h cards out of n holding a given card of two copies, the share holding both."""
    both = math.comb(2, 2) * math.comb(n - 2, h - 2)
    return both / (math.comb(2, 1) * math.comb(n - 2, h - 1) + both)


def test_holds_is_dealt_exactly_with_the_conditional_distribution_of_a_shuffle():
    r = rules.preset("rami51")
    n, h = r.deck_size, r.hand_size(0)
    games = 4000
    s = sample(r, 'holds(0, "7♥")', games, seed=3)
    hand = s.deals.hands[:, 0, :]
    seven, other = cards.parse("7♥ 7♦")
    copies = (hand == seven).sum(axis=1)
    assert copies.min() >= 1 and s.dealt == games and s.deals.attempts.max() == 0
    # Two copies of each card: a hand holding both copies has half the weight of one copy dealt and the rest shuffled.
    expected = both_copies_share(n, h)
    se = math.sqrt(expected * (1 - expected) / games)
    assert abs((copies == 2).mean() - expected) < 4 * se, ((copies == 2).mean(), expected)
    # Another card's presence given the condition: P(7♥ and 7♦) / P(7♥), by inclusion-exclusion.
    none = math.comb(n, h)
    p_seven = 1 - math.comb(n - 2, h) / none
    p_both = 1 - 2 * math.comb(n - 2, h) / none + math.comb(n - 4, h) / none
    expected = p_both / p_seven
    se = math.sqrt(expected * (1 - expected) / games)
    assert abs(((hand == other).sum(axis=1) >= 1).mean() - expected) < 4 * se
    # Nothing else to accept: every game's first deal, and the rate is the chance of holding 7♥.
    assert s.rate == pytest.approx(p_seven, rel=1e-12) and s.held_text == 'holds(0, "7♥")'


def test_a_condition_far_too_rare_to_reject_on_is_dealt_exactly_and_fast():
    r = rules.preset("rami51")
    text = 'holds(0, "7♥ 7♥ 7♦ 7♦ 7♣ 7♣ 7♠") and jokers(1) >= 1'
    sample(r, text, 5, seed=1)  # compiled or loaded before timing
    start = time.perf_counter()
    s = sample(r, text, 2000, seed=7)
    assert time.perf_counter() - start < 20
    n, h = r.deck_size, r.hand_size(0)
    exact = (2 * math.comb(n - 8, h - 7) + math.comb(n - 8, h - 8)) / math.comb(n, h)
    assert s.held == pytest.approx(exact, rel=1e-12) and exact < 1e-6
    assert s.rate == pytest.approx(exact * s.accepted / s.dealt)
    assert parse_condition(text).evaluate(s.deals).all()
    for i in range(0, 2000, 97):
        hands = [hand_of(row) for row in s.deals.hands[i]]
        assert holds(hands[0], "7♥ 7♥ 7♦ 7♦ 7♣ 7♣ 7♠") and hands[1].count(52) >= 1
        # Every card of the deck, once: the deal is still a deck.
        whole = s.deals.hands[i][s.deals.hands[i] >= 0].tolist() + [int(s.deals.pile[i])] + hand_of(s.deals.stock[i])
        assert len(whole) == 4 * h + 1 + r.players


@pytest.mark.parametrize("text", [
    'holds(0, "7♥") and jokers(0) >= 1',
    'jokers(2) == 0 and holds(1, "★ 7♦") and holds(2, "7♦ K♠") and opening(3) >= 20',
    'holds(0, "A♠") and holds(0, "A♠ A♠ 2♠")',
    '(holds(3, "K♠ K♠") and melds(3) >= 3) and not holds(1, "A♣")',
])
def test_every_deal_with_held_cards_satisfies_the_whole_condition(text):
    r = rules.preset("rami51")
    s = sample(r, text, 300, seed=12, stock_cards=sim.deals.stock_size(r))
    assert parse_condition(text).evaluate(s.deals).all()
    assert s.held < 1 and s.held_text
    for i in range(300):
        deck = sorted(s.deals.orders()[i].tolist())
        assert deck == sorted(list(range(52)) * 2 + [52] * 4)


def test_held_cards_for_two_seats_are_dealt_jointly():
    # 7♦ twice in the deck, named for two seats: each holds exactly one. Seat 1's joker count stays a shuffle's.
    r = rules.preset("rami51")
    s = sample(r, 'holds(1, "7♦ ★") and holds(2, "7♦")', 3000, seed=4)
    seven = cards.parse("7♦")[0]
    assert ((s.deals.hands[:, 1] == seven).sum(axis=1) == 1).all()
    assert ((s.deals.hands[:, 2] == seven).sum(axis=1) == 1).all()
    n, h = r.deck_size, r.hand_size(0)
    # P(seat 1 holds a joker and one 7♦, seat 2 the other), exactly: choose which 7♦ goes where (2 ways),
    # then seat 1's other 12 cards among the 106 others with a joker, seat 2's 12 among what is left.
    ways = 0
    for jokers in range(1, 5):
        ways += 2 * math.comb(4, jokers) * math.comb(n - 6, h - 1 - jokers) * math.comb(n - 2 - (h - 1), h - 1)
    exact = ways / (math.comb(n, h) * math.comb(n - h, h))
    assert s.held == pytest.approx(exact, rel=1e-9)
    jokers = (s.deals.hands[:, 1] == 52).sum(axis=1)
    shares = [2 * math.comb(4, j) * math.comb(n - 6, h - 1 - j) * math.comb(n - 2 - (h - 1), h - 1) / ways
              for j in range(1, 5)]
    mean = sum(j * p for j, p in zip(range(1, 5), shares))
    sd = math.sqrt(sum((j - mean) ** 2 * p for j, p in zip(range(1, 5), shares)) / 3000)
    assert abs(jokers.mean() - mean) < 4 * sd


def test_held_deals_do_not_depend_on_workers_or_on_how_many_games():
    text = 'holds(0, "7♥") and jokers(0) >= 1'
    one = sample("rami51", text, 40, seed=13)
    three = sample("rami51", text, 40, seed=13, workers=3)
    fewer = sample("rami51", text, 15, seed=13)
    later = sample("rami51", text, 10, seed=13, first_game=30)
    assert np.array_equal(one.deals.hands, three.deals.hands) and one.dealt == three.dealt
    assert np.array_equal(one.deals.stock, three.deals.stock) and np.array_equal(one.deals.pile, three.deals.pile)
    assert np.array_equal(one.deals.hands[:15], fewer.deals.hands)
    assert np.array_equal(one.deals.hands[30:], later.deals.hands)
    frames = [sim.simulate("rami51", ["greedy"] * 4, n_games=6, seed=13, workers=w, batch_size=b, condition=text)
              for w, b in ((1, 6), (2, 2))]
    assert frames[0].equals(frames[1])
    firsts = frames[0].filter((frames[0]["round"] == 0) & (frames[0]["seat"] == 0)).sort("game")
    assert firsts["deals"].to_list() == (one.deals.attempts[:6] + 1).tolist()


def test_the_rate_with_held_cards_is_their_exact_chance_times_the_rest_measured():
    r = rules.preset("rami51")
    text = 'holds(0, "7♥") and jokers(0) >= 1'
    n, h = r.deck_size, r.hand_size(0)
    p_seven = 1 - math.comb(n - 2, h) / math.comb(n, h)
    s = sample(r, text, 3000, seed=21)
    assert s.held == pytest.approx(p_seven, rel=1e-12)
    assert s.rest_rate == s.accepted / s.dealt and s.rate == pytest.approx(p_seven * s.rest_rate)
    interval = s.rate_interval()
    assert interval.low < s.rate < interval.high
    assert interval.mean == pytest.approx(p_seven * s.rest_rate_interval().mean)
    # A direct count of the whole condition over shuffled deals.
    plain = sim.deals.deal(r, 60_000, seed=22)
    direct = parse_condition(text).evaluate(plain).mean()
    se = math.hypot(math.sqrt(direct * (1 - direct) / 60_000), p_seven * math.sqrt(
        s.rest_rate * (1 - s.rest_rate) / s.dealt))
    assert abs(s.rate - direct) < 4 * se, (s.rate, direct)
    # The rest's rate (jokers given 7♥) against its exact value: 1 - P(no joker among the hand's other cards).
    # One copy of 7♥ held (2 ways) or both; the hand's other cards are drawn among the 106 others.
    no_joker = (2 * math.comb(n - 6, h - 1) + math.comb(n - 6, h - 2)) / (2 * math.comb(n - 2, h - 1)
                                                                           + math.comb(n - 2, h - 2))
    exact_rest = 1 - no_joker
    assert abs(s.rest_rate - exact_rest) < 4 * math.sqrt(exact_rest * (1 - exact_rest) / s.dealt)


def test_the_pilot_measures_the_rest_of_a_condition_with_held_cards():
    with pytest.raises(ValueError, match=r"beyond holds\(0, \"7♥ 7♥\"\) \(dealt exactly\) is too rare"):
        sample("rami51", 'holds(0, "7♥ 7♥") and jokers(0) == 4 and opening(1) >= 120', 5)
    with pytest.raises(ValueError, match="can never hold"):
        sample("rami51", 'holds(0, "7♥") and holds(1, "7♥ 7♥")', 5)


@pytest.mark.parametrize("preset,round_index", [("rami51-classic", 0), ("contrat", 3)])
def test_held_cards_keep_the_deck_whole_when_hands_differ_in_size(preset, round_index):
    # The first player's extra card (Rami 51 classic) and the rounds' hand sizes (contrat): the held hand and
    # the others keep their sizes, every card of the deck dealt once.
    r = rules.preset(preset)
    first = round_index % r.players
    text = f'holds({first}, "7♥ ★") and holds({(first + 1) % r.players}, "7♥")'
    s = sample(r, text, 200, seed=2, round_index=round_index, stock_cards=sim.deals.stock_size(r, round_index))
    assert parse_condition(text).evaluate(s.deals).all()
    plain = sim.deals.deal(r, 1, seed=2, round_index=round_index, stock_cards=sim.deals.stock_size(r, round_index))
    deck = sorted(plain.orders()[0].tolist())
    assert all(sorted(row) == deck for row in s.deals.orders().tolist())
    assert np.array_equal((s.deals.hands >= 0).sum(axis=2), np.repeat((plain.hands >= 0).sum(axis=2), 200, axis=0))


def test_rami_simulate_reports_the_held_chance_the_rest_measured_and_their_product(tmp_path):
    import json

    from click.testing import CliRunner

    from sim.cli import main

    text = 'holds(0, "7♥") and jokers(0) >= 1'
    args = ["simulate", "--games", "30", "--workers", "1", "--seed", "3", "--condition", text,
            "--out", str(tmp_path / "d")]
    result = CliRunner().invoke(main, [*args, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)["condition"]
    kept = sample("rami51", text, 30, seed=3)
    assert report["held"] == 'holds(0, "7♥")' and report["held_chance"] == kept.held
    assert (report["accepted"], report["dealt"]) == (30, kept.dealt)
    assert report["rest_rate"] == pytest.approx(30 / kept.dealt)
    assert report["rate"] == pytest.approx(kept.held * 30 / kept.dealt)
    lines = CliRunner().invoke(main, [*args[:-1], str(tmp_path / "e")]).output
    assert 'holds(0, "7♥") dealt exactly (chance 0.2272)' in lines and "the whole condition's rate" in lines


def test_seats_past_the_counts_limit_are_left_to_rejection():
    # Seat 0 holds every club: one copy each. Seat 1's A♣ with seat 0's cards would make 3**12 possible counts,
    # more than HELD_COUNTS: seat 1's term is tested deal by deal, on deals where seat 0 holds its clubs.
    r = rules.preset("rami51")
    clubs = "A♣ 2♣ 3♣ 4♣ 5♣ 6♣ 7♣ 8♣ 9♣ 10♣ J♣ Q♣ K♣"
    text = f'holds(0, "{clubs}") and holds(1, "A♣")'
    held = parse_condition(text).held(r)
    assert held.seats == (0,) and held.text == f'holds(0, "{clubs}")'
    n, h = r.deck_size, r.hand_size(0)
    assert held.probability == pytest.approx(2 ** 13 / math.comb(n, h), rel=1e-12)
    s = sample(r, text, 300, seed=6)
    assert parse_condition(text).evaluate(s.deals).all()
    # The other A♣ is in seat 1's hand with chance 13 / 95 (95 cards outside seat 0's hand).
    expected = 13 / (n - h)
    assert abs(s.rest_rate - expected) < 4 * math.sqrt(expected * (1 - expected) / s.dealt)
    assert s.rate == pytest.approx(held.probability * s.rest_rate)
