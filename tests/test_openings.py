"""sim.best_openings: the batch best opening agrees with the reference hand for hand."""

from __future__ import annotations

import numpy as np
import pytest

import sim
from sim import cards, rules


@pytest.mark.parametrize("preset", ["rami51", "rami51-ducale", "contrat", "basic"])
def test_best_openings_match_the_reference(preset):
    r = rules.preset(preset)
    deck = np.array([int(c) for c in cards.deck(r.decks, r.n_jokers)])
    rng = np.random.default_rng(3)
    most = min(15, rules.max_hand_cards(r))  # as many cards as a hand of that game can hold
    sizes = rng.integers(3, most + 1, 120)
    hands = np.full((len(sizes), 15), -1, dtype=np.int64)
    for i, size in enumerate(sizes):
        hands[i, :size] = rng.choice(deck, size, replace=False)
    got = sim.best_openings(hands, r)
    expected = [rules.best_opening([int(c) for c in row if c >= 0], r) for row in hands]
    assert got.tolist() == expected
    assert got.max() > 0


def test_best_openings_read_notation_and_refuse_impossible_hands():
    assert sim.best_openings(["K♣ K♦ K♥ 9♠ 10♠ J♠ 2♦", "Q♦ K♦ A♦", "2♣ 7♥"], "rami51").tolist() == [59, 31, 0]
    with pytest.raises(ValueError, match=r"hand 1 \(7♥ 7♥ 7♥ 8♥\) holds more copies of a card than the deck"):
        sim.best_openings(["A♠ 2♠ 3♠", "7♥ 7♥ 7♥ 8♥"], "rami51")
    with pytest.raises(ValueError, match="0 jokers"):
        sim.best_openings(["A♠ 2♠ 3♠ ★"], "basic")
    with pytest.raises(ValueError, match="hand 0 holds card code 53"):
        sim.best_openings(np.array([[1, 2, 53]]), "rami51")
    with pytest.raises(ValueError, match="hand 1 holds 15 cards: a rami51 hand holds at most 14"):
        sim.best_openings(["A♠ 2♠ 3♠", " ".join(["A♣", "2♣", "3♣", "4♣", "5♣", "6♣", "7♣", "8♣", "9♣", "10♣",
                                                 "J♣", "Q♣", "K♣", "A♦", "2♦"])], "rami51")
    with pytest.raises(ValueError, match="2-D array"):
        sim.best_openings(np.array([1, 2, 3]), "rami51")
