"""Rami contrat (docs/rules.md section 6) played by the compiled engine."""

from __future__ import annotations

import random

import numpy as np
import polars as pl
import pytest

import sim
from sim import cards, rules
from sim.engine import contract_search, hand_melds, meld_search
from sim.engine.hand import hand_words
from sim.rules.replay import check_trace

CONTRAT = rules.preset("contrat")


def compiled_contract(hand, deal, r=CONTRAT):
    """Cards the compiled contract search lays from ``hand`` at ``deal`` (-1: the contract is not met).

    It calls the meld kernels directly, on purpose: the search's contract is
    checked on the rule book's hands, which no public call reaches one by one.
    """
    lo, hi, jk = hand_words(hand)
    c_mask = np.empty(hand_melds.MAX_CANDIDATES, dtype=np.uint64)
    c_info = np.empty((hand_melds.MAX_CANDIDATES, hand_melds.N_INFO), dtype=np.int32)
    n = hand_melds.enumerate_melds(lo, jk, r.min_run, r.ace_high, c_mask, c_info)
    sets, runs = r.contract(deal)
    out = np.empty(64, dtype=np.int64)
    whole = deal == rules.WHOLE_HAND_DEAL
    cards_laid, _ = contract_search.search_contract(lo, hi, jk, n, c_mask, c_info, sets, runs, whole, -1, len(hand), out,
                                                    meld_search.workspace())
    return cards_laid


def test_rule_book_contract_examples_in_the_compiled_search():
    """Règles du Rami: « À la donne 2, 7 de trèfle, 7 de cœur, 7 de carreau avec 5, 6, 7, 8 de
    pique remplit le contrat. Avec seulement 5, 6, 7 de pique, non : trois cartes ne
    font pas une suite au Rami contrat. Un joker peut tenir une carte : 9 de cœur,
    joker, valet et dame de cœur est bien une suite de quatre »"""
    assert compiled_contract(cards.parse("7♣ 7♥ 7♦ 5♠ 6♠ 7♠ 8♠ 2♦"), 2) == 7
    assert compiled_contract(cards.parse("7♣ 7♥ 7♦ 5♠ 6♠ 7♠ 2♦ K♣"), 2) == -1
    assert compiled_contract(cards.parse("9♥ ★ VH DH 4♣ 4♦ 4♠ 2♦"), 2) == 7
    # « 2, 3, 4, 5, 6 de trèfle, 8, 9, 10, valet de cœur et 10, valet, dame, roi de
    # carreau font trois suites : tu poses tout et tu sors. »
    deal7 = cards.parse("2♣ 3♣ 4♣ 5♣ 6♣ 8♥ 9♥ 10♥ V♥ 10♦ V♦ D♦ R♦")
    assert compiled_contract(deal7, 7) == 13
    assert compiled_contract(deal7 + cards.parse("2♥"), 7) == -1  # deal 7 lays the whole hand


def test_compiled_contract_search_matches_the_reference():
    rng = random.Random(4)
    deck = cards.deck(2, 3)
    positives = 0
    for i in range(1500):
        deal = rng.randint(1, 7)
        size = 10 if deal <= 3 else 12
        if i % 3 == 0:
            # Build hands that often hold contracts: two suits stacked, a rank tripled.
            suit = rng.randint(0, 3)
            base = [cards.card(r, suit) for r in range(rng.randint(1, 5), 14)][:6]
            base += [cards.card(7, s) for s in range(3)]
            hand = base + [c for c in rng.sample(deck, 20) if c not in base][: size - len(base)]
        else:
            hand = rng.sample(deck, size)
        expected = rules.meets_contract(hand, deal, CONTRAT)
        assert (compiled_contract(hand, deal) >= 0) == expected, (deal, cards.format(hand))
        positives += expected
    assert positives > 60


MAY_I_DEAL = {
    # Deal 1, three players, seat 0 plays first. « Tu as 9 de trèfle et 9 de pique en
    # main, et le 9 de cœur est sur la défausse. Ta voisine prend la pioche : tu dis
    # « Puis-je ? », tu prends le 9 de cœur et une carte de pénalité. »
    "hands": ["2♣ 4♦ 6♥ 8♠ 10♣ Q♦ A♥ 3♠ 5♣ 7♦", "9♣ 9♠ K♣ K♦ 2♥ 4♠ 6♣ J♦ 3♥ 5♠", "A♣ A♦ 3♦ 5♥ 7♠ J♣ J♥ Q♠ 8♥ 10♦"],
    "pile": "9♥",
    "stock": "K♥ 2♦",
}


def test_rule_book_may_i_example():
    events = sim.play_traced("contrat", ["greedy"] * 3, seed=2, max_rounds=1, deal=MAY_I_DEAL)
    check_trace(events)
    draw, ask = events[2], events[3]
    assert draw == {"type": "draw", "round": 0, "seat": 0, "source": "stock", "card": "K♥"}
    assert ask == {"type": "may_i", "round": 0, "seat": 1, "card": "9♥", "penalty": "2♦"}
    # « Ton premier brelan est fait. »: with K♣ K♦ and the K♥ gone, seat 1 lays its
    # first set of nines as soon as a second set comes.
    first_open = next(e for e in events if e["type"] == "open" and e["seat"] == 1)
    assert "9♣ 9♥ 9♠" in [m["cards"] for m in first_open["melds"]]


def test_may_i_can_be_switched_off():
    events = sim.play_traced(rules.preset("contrat", may_i=False), ["greedy"] * 3, seed=2, max_rounds=1,
                             deal=MAY_I_DEAL)
    check_trace(events)
    assert not any(e["type"] == "may_i" for e in events)


def test_rule_book_deal7_hand_goes_out_by_laying_it_all():
    """Règles du Rami: « Avec treize cartes en main après avoir pioché, 2, 3, 4, 5, 6 de trèfle,
    8, 9, 10, valet de cœur et 10, valet, dame, roi de carreau font trois suites :
    tu poses tout et tu sors. »"""
    # Deal 7 is round 6; with 3 players its first player is seat 0.
    deal = {
        "round": 6,
        "hands": ["2♣ 3♣ 4♣ 5♣ 6♣ 8♥ 9♥ 10♥ 10♦ V♦ D♦ R♦", "A♠ 3♠ 5♠ 7♠ 9♠ J♠ K♠ A♦ 3♦ 5♦ 7♦ 9♦",
                  "2♠ 4♠ 6♠ 8♠ 10♠ Q♠ 2♥ 4♥ 6♥ A♣ 8♣ 10♣"],
        "pile": "K♣",
        "stock": "V♥",
    }
    events = sim.play_traced("contrat", ["greedy"] * 3, seed=3, deal=deal)
    check_trace(events)
    start = next(i for i, e in enumerate(events) if e["type"] == "deal" and e["round"] == 6)
    draw, lay, out = events[start + 1], events[start + 2], events[start + 3]
    assert draw["card"] == "J♥"
    assert lay["type"] == "open" and sum(len(m["cards"].split()) for m in lay["melds"]) == 13
    assert out == {"type": "out", "round": 6, "seat": 0, "how": "lay"}
    assert events[start + 4]["type"] == "round_end" and events[start + 4]["points"][0] == 0


def test_a_contrat_game_is_seven_deals_and_the_lowest_total_wins():
    df = sim.simulate("contrat", ["greedy", "expert", "random", "greedy"], n_games=60, seed=5, rotate=True)
    games = sim.game_summary(df)
    assert (games["rounds"] == 7).all()
    assert sorted(df["contract"].unique().to_list()) == [1, 2, 3, 4, 5, 6, 7]
    for _, rows in games.group_by("game"):
        lowest = rows["total"].min()
        assert rows.filter(pl.col("won"))["total"].to_list() == [lowest] * rows["won"].sum()
    # Scores count the hands: ace and joker 15 (« l'as comme le joker 15 »).
    counted = df.filter(~pl.col("went_out"))
    assert (counted["points"] == counted["hand_value"]).all()
    assert df["may_i"].sum() > 0


SEATINGS = [
    ["greedy", "random", "expert"],
    ["random", "cautious", "greedy", "random"],
    ["expert", "greedy", "random", "greedy", "random"],
    ["random"] * 3,
]


@pytest.mark.parametrize("seating", SEATINGS, ids=lambda s: f"{len(s)}p-" + "-".join(x[:2] for x in s))
def test_random_contrat_games_replay_through_the_rules_reference(seating):
    ruleset = rules.preset("contrat", players=len(seating), turn_cap=300)
    for game in range(250):  # 4 seatings x 250 = 1,000 games
        # Game g stops after 1 + g mod 7 deals, so every contract is replayed.
        check_trace(sim.play_traced(ruleset, seating, seed=31, game=game, max_rounds=1 + game % 7))
