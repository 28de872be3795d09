"""sim.best_openings: the batch best opening agrees with the reference hand for hand."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sim
from sim import cards, rules

# Every preset, and the knobs that change what an opening can hold: the ace's
# place, the shortest run, one pack (one copy of a card, two jokers).
RULESETS = {
    "rami51": rules.preset("rami51"),
    "rami51-ducale": rules.preset("rami51-ducale"),
    "rami51-classic": rules.preset("rami51-classic"),
    "contrat": rules.preset("contrat"),
    "basic": rules.preset("basic"),
    "ace-low-only": rules.preset("rami51", ace_high=False),
    "min-run-4": rules.preset("rami51", min_run=4),
    "natural-min-run-4": rules.preset("rami51-ducale", min_run=4, ace_high=False),
    "one-pack": rules.preset("rami51", decks=1, jokers=2),
}


def random_hands(r: rules.Ruleset, n: int, seed: int, most: int = 15, jokers: int = 0) -> np.ndarray:
    """``n`` random hands of the deck of ``r``, 3 to ``most`` cards each, at least ``jokers`` of them jokers."""
    naturals = np.array([int(c) for c in cards.deck(r.decks, 0)])
    rng = np.random.default_rng(seed)
    most = min(most, rules.max_hand_cards(r))
    hands = np.full((n, most), -1, dtype=np.int64)
    for i, size in enumerate(rng.integers(max(3, jokers + 2), most + 1, n)):
        # Jokers in about one hand in two, as when dealt, or at least ``jokers`` of them.
        held = jokers + int(rng.integers(0, r.n_jokers - jokers + 1)) * int(rng.integers(0, 2)) if r.n_jokers else 0
        held = min(held, size - 2)
        hands[i, :held] = cards.JOKER_CODE
        hands[i, held:size] = rng.choice(naturals, size - held, replace=False)
    return hands


def reference(hands: np.ndarray, r: rules.Ruleset) -> list[int]:
    return [rules.best_opening([int(c) for c in row if c >= 0], r) for row in hands]


@pytest.mark.parametrize("name", list(RULESETS))
def test_best_openings_match_the_reference(name):
    r = RULESETS[name]
    hands = random_hands(r, 300, seed=3)
    got = sim.best_openings(hands, r)
    assert got.tolist() == reference(hands, r)
    assert got.max() > 0


@pytest.mark.parametrize("name", ["rami51", "rami51-ducale", "one-pack"])
def test_best_openings_match_the_reference_with_several_jokers(name):
    r = RULESETS[name]
    hands = random_hands(r, 150, seed=5, jokers=2)
    assert sim.best_openings(hands, r).tolist() == reference(hands, r)


def test_best_openings_match_the_reference_on_long_contrat_hands():
    # "Puis-je ?" grows a contrat hand past the deal: many runs and sets share its cards.
    r = RULESETS["contrat"]
    hands = random_hands(r, 25, seed=7, most=32)
    assert sim.best_openings(hands, r).tolist() == reference(hands, r)


@pytest.mark.parametrize("name", ["rami51", "rami51-ducale"])
def test_best_openings_match_the_engine_meld_search(name):
    # The engine's general meld search is itself checked against the reference; it is quick enough to
    # compare on many more 14-card hands than the reference allows.
    from sim.engine.deals import opening_totals

    r = RULESETS[name]
    rng = np.random.default_rng(11)
    deck = np.array([int(c) for c in cards.deck(r.decks, r.n_jokers)])
    hands = np.stack([rng.choice(deck, 14, replace=False) for _ in range(30_000)])
    expected = np.zeros(len(hands), dtype=np.int64)
    opening_totals(hands, r.min_run, r.ace_high, r.open_needs_natural_run, expected)
    np.testing.assert_array_equal(sim.best_openings(hands, r), expected)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), name=st.sampled_from(list(RULESETS)))
def test_best_openings_agree_on_generated_hands(data, name):
    r = RULESETS[name]
    deck = [int(c) for c in cards.deck(r.decks, r.n_jokers)]
    size = data.draw(st.integers(0, min(15, rules.max_hand_cards(r))), label="size")
    picks = data.draw(st.lists(st.integers(0, len(deck) - 1), min_size=size, max_size=size, unique=True),
                      label="cards")
    hand = [deck[i] for i in picks]
    row = np.array([hand + [-1]], dtype=np.int64)
    assert sim.best_openings(row, r).tolist() == [rules.best_opening(hand, r)]


def test_best_openings_read_notation_and_refuse_impossible_hands():
    assert sim.best_openings(["K♣ K♦ K♥ 9♠ 10♠ J♠ 2♦", "Q♦ K♦ A♦", "2♣ 7♥"], "rami51").tolist() == [59, 31, 0]
    assert not hasattr(rules, "best_openings")  # the reference imports nothing from the engine
    with pytest.raises(ValueError, match=r"hand 1 \(7♥ 7♥ 7♥ 8♥\) holds more copies of a card than the deck"):
        sim.best_openings(["A♠ 2♠ 3♠", "7♥ 7♥ 7♥ 8♥"], "rami51")
    with pytest.raises(ValueError, match=r"hand 0 \(7♥ 7♥ 8♥\) holds more copies of a card than the deck"):
        sim.best_openings(["7♥ 7♥ 8♥"], RULESETS["one-pack"])
    with pytest.raises(ValueError, match="0 jokers"):
        sim.best_openings(["A♠ 2♠ 3♠ ★"], "basic")
    with pytest.raises(ValueError, match="hand 0 holds card code 53"):
        sim.best_openings(np.array([[1, 2, 53]]), "rami51")
    with pytest.raises(ValueError, match="hand 1 holds 15 cards: a rami51 hand holds at most 14"):
        sim.best_openings(["A♠ 2♠ 3♠", " ".join(["A♣", "2♣", "3♣", "4♣", "5♣", "6♣", "7♣", "8♣", "9♣", "10♣",
                                                 "J♣", "Q♣", "K♣", "A♦", "2♦"])], "rami51")
    with pytest.raises(ValueError, match="2-D array"):
        sim.best_openings(np.array([1, 2, 3]), "rami51")
    assert sim.best_openings(np.zeros((0, 14), dtype=np.int64), "rami51").shape == (0,)


def test_best_openings_from_threads_at_once_give_the_same_totals():
    # Each call borrows its own memo: calls running side by side do not mix them.
    r = RULESETS["rami51"]
    hands = random_hands(r, 4000, seed=9, jokers=1)
    alone = sim.best_openings(hands, r)
    with ThreadPoolExecutor(4) as pool:
        for got in pool.map(lambda part: sim.best_openings(part, r), np.array_split(hands, 8)):
            np.testing.assert_array_equal(got, alone[: len(got)])
            alone = alone[len(got):]


def test_importing_the_rules_does_not_load_the_engine():
    code = ("import sys, sim.rules; "
            "print(sorted(m for m in sys.modules if m.startswith('sim.engine') or m == 'numba'))")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert shown.strip() == "[]"
