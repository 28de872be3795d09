"""What a hand can lay: best opening, most cards melded, contracts.

docs/rules.md sections 4 and 6, checked on the worked examples and against a
brute force written here: every subset of the hand is judged by
``classify_meld`` / ``meld_readings``, then every packing of disjoint melds
is tried.
"""

import random
from collections import defaultdict
from functools import lru_cache
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.cards import JOKER, Card, card, deck, parse
from sim.rules import best_opening, max_melded_cards, meets_contract, meld_readings, preset

# 14 dealt, so that hands of 15 cards (the biggest here) are hands the game can hold
RAMI51 = preset("rami51", deal=14)
DUCALE = preset("rami51-ducale", deal=14)
CLASSIC = preset("rami51-classic")
CONTRAT = preset("contrat")
BASIC = preset("basic", players=2)  # 10 cards dealt: room for the 9-card hands below
NEG = float("-inf")


# ----------------------------------------------------------------- brute force
def _subset_melds(hand, r):
    """Every subset of the hand (by index) that is a valid meld, with its readings."""
    n = len(hand)
    judged = {}
    found = []
    for size in range(3, n + 1):
        for idx in combinations(range(n), size):
            key = tuple(sorted(hand[i] for i in idx))
            if key not in judged:
                judged[key] = meld_readings(list(key), r)
            readings = judged[key]
            if readings:
                mask = 0
                for i in idx:
                    mask |= 1 << i
                found.append((mask, key, readings))
    by_low = defaultdict(list)
    for mask, key, readings in found:
        by_low[(mask & -mask).bit_length() - 1].append((mask, key, readings))
    return by_low


def brute_pack(hand, r, value, need_natural=False):
    """Best total of ``value(key, readings)`` over packings of disjoint melds."""
    hand = [int(c) for c in hand]
    by_low = _subset_melds(hand, r)

    @lru_cache(maxsize=None)
    def solve(free, need):
        if free == 0:
            return NEG if need else 0
        low = (free & -free).bit_length() - 1
        best = solve(free & ~(1 << low), need)
        for mask, key, readings in by_low[low]:
            if mask & free != mask:
                continue
            natural = JOKER not in key and any(rd.kind == "run" for rd in readings)
            rest = solve(free & ~mask, need and not natural)
            if rest != NEG:
                best = max(best, rest + value(key, readings))
        return best

    return solve((1 << len(hand)) - 1, need_natural)


def brute_opening(hand, r):
    total = brute_pack(hand, r, lambda key, rds: max(rd.points for rd in rds), r.open_needs_natural_run)
    return 0 if total == NEG else max(0, total)


def brute_max_melded(hand, r):
    return brute_pack(hand, r, lambda key, rds: len(key))


def brute_contract(hand, deal, r, by_low=None):
    hand = [int(c) for c in hand]
    sets, runs = r.contract(deal)
    if by_low is None:
        by_low = _subset_melds(hand, r)
    whole = deal == 7

    @lru_cache(maxsize=None)
    def can(free, s, ru):
        if s == 0 and ru == 0:
            return not (whole and free)
        if free == 0:
            return False
        low = (free & -free).bit_length() - 1
        if not whole and can(free & ~(1 << low), s, ru):
            return True
        for mask, key, readings in by_low[low]:
            if mask & free != mask:
                continue
            kinds = {rd.kind for rd in readings}
            if "set" in kinds and s and can(free & ~mask, s - 1, ru):
                return True
            if "run" in kinds and ru and can(free & ~mask, s, ru - 1):
                return True
        return False

    return can((1 << len(hand)) - 1, sets, runs)


# A dense pool so random hands hold melds often: A 2 3 4 J Q K of every suit,
# two copies (two decks), and four jokers.
POOL = [card(rank, suit) for rank in (1, 2, 3, 4, 11, 12, 13) for suit in range(4) for _ in range(2)]
POOL += [JOKER] * 4
# A pool for contrat hands: runs need 4 cards, so take a stretch of ranks.
CONTRAT_POOL = [card(rank, suit) for rank in range(5, 11) for suit in range(4) for _ in range(2)]
CONTRAT_POOL += [JOKER] * 3


def random_hand(rng, size, pool=POOL):
    return [pool[i] for i in rng.sample(range(len(pool)), size)]


# ----------------------------------------------------------- worked examples
def test_three_kings_and_a_run_open():
    """Règles du Rami: « Roi de trèfle, roi de carreau, roi de cœur vaut 30 points, et 9, 10,
    valet de pique vaut 29 points : ensemble, 59 points, tu peux ouvrir. »"""
    hand = "K♣ K♦ K♥ 9♠ 10♠ J♠ 2♦"
    assert best_opening(hand, RAMI51) == 59
    assert best_opening(hand, "rami51") == 59
    assert best_opening(hand, RAMI51) >= RAMI51.open_threshold
    # 9♠ 10♠ J♠ is a tierce franche, so the tables that require one agree
    assert best_opening(hand, DUCALE) == 59
    assert best_opening(hand, CLASSIC) == 59


def test_run_alone_must_wait():
    """Règles du Rami: « La suite 9, 10, valet de pique seule ne vaut que 29 : il faut attendre. »"""
    assert best_opening("9♠ 10♠ J♠ 2♦", RAMI51) == 29
    assert best_opening("9♠ 10♠ J♠ 2♦", RAMI51) < RAMI51.open_threshold


def test_three_kings_are_30():
    """Règles du Rami: « trois rois valent déjà 30. »"""
    assert best_opening("K♣ K♦ K♥", RAMI51) == 30


def test_aces_set_and_natural_run_open_with_54():
    """Le jeu de Rami: « Exemple de jeu posable : ( 8♠ - 7♠ - 6♠ ) + ( As♦ - As♣ - Joker ) »,
    « Ce jeu fait (8+7+6) + (11+11+11) = 54 »; it holds the « tierce franche, c'est-à-dire
    une séquence de trois cartes sans joker » that Le jeu de Rami requires."""
    hand = "8♠ 7♠ 6♠ A♦ A♣ ★"
    # alternatives: 6♠ 7♠ 8♠ ★ as 9♠ = 30 with the aces left in hand; 54 is the most
    assert best_opening(hand, CLASSIC) == 54
    assert best_opening(hand, RAMI51) == 54
    assert best_opening(hand, CLASSIC) >= CLASSIC.open_threshold


def test_one_ace_is_high_or_low_not_both():
    """docs/rules.md section 2.1: the ace goes below the 2 (ace low) or above the king
    (ace high), never both in one run; Le jeu de Rami: « L'as mis en position de 1,
    restera un 1. L'As mis en position d'As (après le roi) restera un As. »"""
    # one A♦: Q-K-A (31) or A-2-3 (6), not both
    assert best_opening("Q♦ K♦ A♦ 2♦ 3♦", RAMI51) == 31
    # two A♦ (two decks): both runs, 31 + 6
    assert best_opening("Q♦ K♦ A♦ A♦ 2♦ 3♦", RAMI51) == 37
    # basic: no ace high, only A-2-3 counts
    assert best_opening("Q♦ K♦ A♦ 2♦ 3♦", BASIC) == 6
    # aces in a set are worth 11
    assert best_opening("A♣ A♦ A♥", RAMI51) == 33


# --------------------------------------------------------------- tierce franche
def test_tierce_franche_required_by_ducale_not_by_rami51():
    """Les règles du Rami 51: « Elles doivent totaliser au moins 51 points et comprendre une suite
    d'au moins trois cartes naturelles, sans joker. » docs/rules.md section 4: open_needs_natural_run
    is false in Règles du Rami, true in Les règles du Rami 51 and Le jeu de Rami."""
    # only melds with jokers: 7♣ 8♣ ★(9♣) = 24, K♠ K♥ ★ = 30
    hand = "7♣ 8♣ ★ K♠ K♥ ★"
    assert best_opening(hand, RAMI51) == 54
    assert best_opening(hand, DUCALE) == 0
    assert best_opening(hand, CLASSIC) == 0
    # sets alone, no run at all
    assert best_opening("K♠ K♥ K♦ Q♠ Q♥ Q♦", RAMI51) == 60
    assert best_opening("K♠ K♥ K♦ Q♠ Q♥ Q♦", DUCALE) == 0
    # a natural run lets the other melds count, jokers included
    assert best_opening("2♣ 3♣ 4♣ K♠ K♥ ★", DUCALE) == 9 + 30
    # the knob alone makes the difference
    assert best_opening(hand, RAMI51.replace(open_needs_natural_run=True)) == 0
    assert best_opening(hand, DUCALE.replace(open_needs_natural_run=False)) == 54


def test_tierce_franche_can_cost_the_joker():
    """The natural run must stay without joker, even when the joker would add points."""
    # rami51: 2♣ 3♣ 4♣ ★(5♣) = 14; ducale: only 2♣ 3♣ 4♣ = 9, joker kept
    assert best_opening("2♣ 3♣ 4♣ ★", RAMI51) == 14
    assert best_opening("2♣ 3♣ 4♣ ★", DUCALE) == 9
    # rami51: 5♣..8♣ ★(9♣) = 35; ducale: 5♣ 6♣ 7♣ 8♣ = 26 (8♣ ★ alone is no meld)
    assert best_opening("5♣ 6♣ 7♣ 8♣ ★", RAMI51) == 35
    assert best_opening("5♣ 6♣ 7♣ 8♣ ★", DUCALE) == 26


# ------------------------------------------------------- 15 cards, 4 jokers
def test_fifteen_cards_four_jokers_upper_bound_reached():
    """15 cards with 4 jokers. The 11 naturals are J Q K (10 each): at most 110.
    A joker is worth at most 11 (as an ace high after a king; a set of aces
    would need two natural aces). So at most 110 + 4 * 11 = 154, and
    Q-K-★(A) in each suit (4 * 31 = 124) + J♣ J♦ J♥ (30) reaches it."""
    hand = "Q♣ K♣ Q♦ K♦ Q♥ K♥ Q♠ K♠ J♣ J♦ J♥ ★ ★ ★ ★"
    assert len(parse(hand)) == 15
    assert best_opening(hand, RAMI51) == 154
    assert max_melded_cards(hand, RAMI51) == 15


def test_fifteen_cards_four_jokers_with_tierce_franche():
    """Same hand under rami51-ducale: a natural run (J-Q-K of one suit, the only
    natural runs held) uses that suit's king, so at most 3 jokers can be an ace
    high (one per remaining king, one joker a meld); the 4th is worth at most 10:
    110 + 3 * 11 + 10 = 153, reached by J♣ Q♣ K♣ + Q-K-★ in ♦ ♥ ♠ + J♦ J♥ ★."""
    hand = "Q♣ K♣ Q♦ K♦ Q♥ K♥ Q♠ K♠ J♣ J♦ J♥ ★ ★ ★ ★"
    assert best_opening(hand, DUCALE) == 153


def test_fifteen_cards_jokers_need_two_naturals_each():
    """15 cards: four kings, seven low cards that make no meld (ranks all
    different, same-suit cards 3 or more ranks apart), four jokers. The only melds
    are sets of kings: K K K K or K K K ★ (40), or two K K ★ (2 * 30 = 60); each
    joker needs two natural cards beside it, so two jokers stay in hand."""
    hand = "K♣ K♦ K♥ K♠ 2♣ 6♣ 3♦ 8♦ 4♥ 9♥ 5♠ ★ ★ ★ ★"
    assert best_opening(hand, RAMI51) == 60
    assert max_melded_cards(hand, RAMI51) == 6
    assert best_opening(hand, DUCALE) == 0  # no run, so no tierce franche


@pytest.mark.parametrize("seed", range(6))
def test_fifteen_cards_four_jokers_match_brute_force(seed):
    rng = random.Random(1000 + seed)
    naturals = [c for c in POOL if not c.is_joker]
    hand = [naturals[i] for i in rng.sample(range(len(naturals)), 11)] + [JOKER] * 4
    rng.shuffle(hand)
    for r in (RAMI51, DUCALE):
        assert best_opening(hand, r) == brute_opening(hand, r), hand
    assert max_melded_cards(hand, RAMI51) == brute_max_melded(hand, RAMI51), hand


# ---------------------------------------------------------- brute-force checks
@pytest.mark.parametrize("r", [RAMI51, DUCALE, BASIC], ids=["rami51", "rami51-ducale", "basic"])
def test_best_opening_and_max_melded_match_brute_force(r):
    rng = random.Random(20240601)
    pool = POOL if r.n_jokers else [c for c in POOL if not c.is_joker]
    if r.decks == 1:
        pool = sorted(set(pool))
    with_opening = with_meld = 0
    for _ in range(150):
        hand = random_hand(rng, rng.randint(6, 9), pool)
        expected = brute_opening(hand, r)
        most = brute_max_melded(hand, r)
        assert best_opening(hand, r) == expected, hand
        assert max_melded_cards(hand, r) == most, hand
        with_opening += expected > 0
        with_meld += most > 0
    # the pool makes melds common, so the check has teeth
    assert with_meld > 50
    assert with_opening > 15


def test_meets_contract_matches_brute_force():
    rng = random.Random(7)
    outcomes = defaultdict(set)
    for _ in range(100):
        size = rng.randint(8, 11)
        hand = random_hand(rng, size, CONTRAT_POOL)
        by_low = _subset_melds([int(c) for c in hand], CONTRAT)
        for deal in range(1, 8):
            expected = brute_contract(hand, deal, CONTRAT, by_low)
            assert meets_contract(hand, deal, CONTRAT) == expected, (deal, hand)
            outcomes[deal].add(expected)
    # both answers occurred for the deals with small contracts
    for deal in (1, 2, 3):
        assert outcomes[deal] == {True, False}


# ---------------------------------------------------------- max_melded_cards
def test_basic_example_lays_all_but_the_discard():
    """Bicycle basic rummy: « Tu as 4, 5 et 7 de cœur, ainsi que trois Dames et un 9 de pique. Tu
    pioches le 6 de cœur. Pose la suite 4-5-6-7 de cœur et les trois Dames, puis
    défausse le 9 de pique : ta main est vide »"""
    before = "4♥ 5♥ 7♥ D♣ D♦ D♠ 9♠"
    assert max_melded_cards(before, BASIC) == 3  # only the queens
    assert max_melded_cards(before + " 6♥", BASIC) == 7  # all but the 9♠


def test_a_card_belongs_to_one_meld_at_a_time():
    """Bicycle basic rummy: « Une carte ne peut appartenir qu'à une combinaison à la fois. »"""
    assert max_melded_cards("7♣ 8♣ 9♣ 9♦ 9♥", BASIC) == 3
    # two decks: a second 9♣ makes both melds
    assert max_melded_cards("7♣ 8♣ 9♣ 9♣ 9♦ 9♥", RAMI51) == 6


def test_max_melded_cards_examples():
    assert max_melded_cards("", RAMI51) == 0
    assert max_melded_cards("★ ★ ★ ★", RAMI51) == 0
    assert max_melded_cards("7♣ 8♣ ★ ★", RAMI51) == 3  # one joker a meld
    assert max_melded_cards("7♣ 8♣ 9♣ 10♣ J♣ Q♣ K♣ A♣", RAMI51) == 8
    assert max_melded_cards("7♣ 8♣ 9♣ 10♣ J♣ Q♣ K♣ A♣", BASIC) == 7  # no ace high
    assert max_melded_cards("5♠ 6♠ 7♠", CONTRAT) == 0  # runs of 4 in contrat
    # the Règles du Rami contrat deal-7 hand is all melded
    assert max_melded_cards("2♣ 3♣ 4♣ 5♣ 6♣ 8♥ 9♥ 10♥ V♥ 10♦ V♦ D♦ R♦", CONTRAT) == 13


def test_best_opening_empty_and_jokers_only():
    assert best_opening("", RAMI51) == 0
    assert best_opening("★ ★ ★ ★", RAMI51) == 0
    assert best_opening("2♣ 7♦ 9♥ K♠", RAMI51) == 0


# ------------------------------------------------------------ meets_contract
def test_deal2_set_and_run():
    """Règles du Rami: « À la donne 2, 7 de trèfle, 7 de cœur, 7 de carreau avec 5, 6, 7, 8 de
    pique remplit le contrat. » Règles du Rami contrat: « Donne 2 : 7♣7♥7♦ et 5♠6♠7♠8♠ : le contrat
    est rempli. »"""
    assert meets_contract("7♣ 7♥ 7♦ 5♠ 6♠ 7♠ 8♠", 2) is True
    assert meets_contract("7♣ 7♥ 7♦ 5♠ 6♠ 7♠ 8♠", 2, CONTRAT) is True
    assert meets_contract("7♣ 7♥ 7♦ 5♠ 6♠ 7♠ 8♠", 2, "contrat") is True
    # with the rest of a 10-card hand still held
    assert meets_contract("7♣ 7♥ 7♦ 5♠ 6♠ 7♠ 8♠ K♦ 2♥ 9♣", 2) is True


def test_deal2_three_card_run_is_not_enough():
    """Règles du Rami: « Avec seulement 5, 6, 7 de pique, non : trois cartes ne font pas une
    suite au Rami contrat. » Règles du Rami contrat: « 5♠6♠7♠ ne suffit pas »"""
    assert meets_contract("7♣ 7♥ 7♦ 5♠ 6♠ 7♠", 2) is False
    assert meets_contract("7♣ 7♥ 7♦ 5♠ 6♠ 7♠ K♦ 2♥ 9♣ 3♣", 2) is False


def test_deal2_with_joker_run():
    """Règles du Rami contrat: « Un joker peut tenir une carte : 9♥★V♥D♥ est une suite de quatre »"""
    assert meets_contract("9♥ ★ V♥ D♥ 7♣ 7♥ 7♦", 2) is True


def test_deal1_may_i_completes_a_set():
    """Règles du Rami: « Exemple à la donne 1, contrat de deux brelans. Tu as 9 de trèfle et
    9 de pique en main, et le 9 de cœur est sur la défausse. [...] tu prends le 9 de
    cœur et une carte de pénalité. Ton premier brelan est fait. » Règles du Rami contrat: « Donne 1,
    contrat de deux brelans. Tu as 9♣9♠ en main, et 9♥ est sur la défausse. »"""
    before = "9♣ 9♠ K♦ K♥ K♠ 2♣ 5♦ 8♥ J♠ 4♣"
    assert meets_contract(before, 1) is False
    assert meets_contract(before + " 9♥ 3♦", 1) is True  # the 9♥ and a penalty card


def test_deal1_two_sets():
    assert meets_contract("9♣ 9♠ 9♥ K♦ K♥ K♠", 1) is True
    assert meets_contract("9♣ 9♠ ★ K♦ K♥ K♠", 1) is True
    assert meets_contract("9♣ 9♠ 9♥ 9♦ K♦ K♥ K♠ K♣", 1) is True  # two carrés
    assert meets_contract("9♣ 9♠ 9♥ K♦ K♥", 1) is False
    assert meets_contract("9♣ 9♠ 9♥ 5♦ 6♦ 7♦ 8♦", 1) is False  # a run is not a set
    assert meets_contract("9♣ 9♣ 9♥ K♦ K♥ K♠", 1) is False  # two 9♣ in one set


def test_deal1_three_sets_still_meets():
    """docs/rules.md section 6.3: the contract is laid in one go and exactly: no
    fewer and no more melds than it asks. The player lays exactly two sets and keeps the third in
    hand; holding more than the contract does not forbid laying it (deals 1-6
    end by a discard, so cards may stay in hand)."""
    assert meets_contract("9♣ 9♠ 9♥ K♦ K♥ K♠ 4♣ 4♦ 4♥", 1) is True
    # likewise a set + run held with an extra set, at deal 2
    assert meets_contract("7♣ 7♥ 7♦ 5♠ 6♠ 7♠ 8♠ Q♣ Q♦ Q♥", 2) is True


def test_deal2_needs_a_run_and_a_set():
    assert meets_contract("7♣ 7♥ 7♦ Q♣ Q♦ Q♥", 2) is False  # two sets, no run
    assert meets_contract("5♠ 6♠ 7♠ 8♠ 5♥ 6♥ 7♥ 8♥", 2) is False  # two runs, no set


def test_deal3_two_runs():
    assert meets_contract("5♠ 6♠ 7♠ 8♠ 5♥ 6♥ 7♥ 8♥", 3) is True
    # two copies of the same run (two decks)
    assert meets_contract("5♠ 6♠ 7♠ 8♠ 5♠ 6♠ 7♠ 8♠", 3) is True
    # one long run splits into two runs of four
    assert meets_contract("3♠ 4♠ 5♠ 6♠ 7♠ 8♠ 9♠ 10♠", 3) is True
    # seven cards cannot make two runs of four
    assert meets_contract("3♠ 4♠ 5♠ 6♠ 7♠ 8♠ 9♠", 3) is False
    # runs of three do not count in contrat
    assert meets_contract("5♠ 6♠ 7♠ 5♥ 6♥ 7♥", 3) is False


def test_deals_4_5_6():
    assert meets_contract("2♣ 2♦ 2♥ 6♣ 6♦ 6♠ J♥ J♦ J♠ 4♣ 9♦ K♠", 4) is True
    assert meets_contract("2♣ 2♦ 2♥ 6♣ 6♦ 6♠ J♥ J♦ 4♣ 9♦ K♠ 3♥", 4) is False
    assert meets_contract("2♣ 2♦ 2♥ 6♣ 6♦ ★ 8♥ 9♥ 10♥ J♥ 4♣ K♠", 5) is True
    assert meets_contract("2♣ 2♦ 2♥ 6♣ 6♦ 6♠ 8♥ 9♥ 10♥ 4♣ K♠ K♦", 5) is False
    assert meets_contract("2♣ 2♦ 2♥ 3♠ 4♠ 5♠ 6♠ 8♥ 9♥ ★ J♥ K♠", 6) is True
    assert meets_contract("2♣ 2♦ 2♥ 3♠ 4♠ 5♠ 6♠ 8♥ 9♥ J♥ Q♥ K♠", 6) is False  # gap at 10♥


DEAL7 = "2♣ 3♣ 4♣ 5♣ 6♣ 8♥ 9♥ 10♥ V♥ 10♦ V♦ D♦ R♦"


def test_deal7_lays_the_whole_hand():
    """Règles du Rami contrat: « Contrat 7, treize cartes en main après avoir pioché : 2♣3♣4♣5♣6♣,
    8♥9♥10♥V♥ et 10♦V♦D♦R♦ : trois suites, tu poses tout et tu sors. »
    Règles du Rami: « Avec treize cartes en main après avoir pioché, 2, 3, 4, 5, 6 de trèfle,
    8, 9, 10, valet de cœur et 10, valet, dame, roi de carreau font trois suites »"""
    assert len(parse(DEAL7)) == 13
    assert meets_contract(DEAL7, 7) is True


def test_deal7_needs_every_card_in_the_three_runs():
    """docs/rules.md section 6.5: deal 7 lays the whole hand as the three runs, with
    no final discard (item 6: the three runs must hold the whole hand)."""
    assert meets_contract(DEAL7 + " K♠", 7) is False
    # the same 14 cards meet a 3-run contract that leaves cards in hand (deal 6 needs a set: no)
    assert meets_contract(DEAL7 + " K♠", 6) is False
    # a run one card shorter is still a run of four: all 12 cards laid
    assert meets_contract(DEAL7.replace("2♣ ", ""), 7) is True
    # 6♣ replaced by K♠: 2♣-5♣ is still a run but the K♠ has nowhere to go
    assert meets_contract(DEAL7.replace("6♣", "K♠"), 7) is False
    # one suit A..K splits into three runs (4 + 4 + 5)
    assert meets_contract("A♠ 2♠ 3♠ 4♠ 5♠ 6♠ 7♠ 8♠ 9♠ 10♠ J♠ Q♠ K♠", 7) is True
    # a joker may fill a run
    assert meets_contract(DEAL7.replace("9♥", "★"), 7) is True


# ---------------------------------------------------------------- properties
def hands(pool, min_size=0, max_size=15):
    return st.lists(
        st.integers(min_value=0, max_value=len(pool) - 1), min_size=min_size, max_size=max_size, unique=True
    ).map(lambda idx: [pool[i] for i in idx])


RAMI_POOL = list(deck(2, 4))


@settings(max_examples=60, deadline=None)
@given(hands(POOL, 0, 15), st.randoms(use_true_random=False))
def test_order_does_not_matter(hand, rnd):
    shuffled = list(hand)
    rnd.shuffle(shuffled)
    for r in (RAMI51, DUCALE):
        assert best_opening(shuffled, r) == best_opening(hand, r)
        assert max_melded_cards(shuffled, r) == max_melded_cards(hand, r)


@settings(max_examples=60, deadline=None)
@given(hands(POOL, 0, 14), st.integers(min_value=0, max_value=len(POOL) - 1))
def test_adding_a_card_never_lowers(hand, extra_index):
    extra = POOL[extra_index]
    # keep the multiset possible: at most 2 copies of a natural, 4 jokers
    limit = 4 if extra == JOKER else 2
    if hand.count(extra) >= limit:
        return
    bigger = hand + [extra]
    assert best_opening(bigger, RAMI51) >= best_opening(hand, RAMI51)
    assert max_melded_cards(bigger, RAMI51) >= max_melded_cards(hand, RAMI51)
    # a collection of the smaller hand is one of the bigger hand, tierce franche or not
    assert best_opening(bigger, DUCALE) >= best_opening(hand, DUCALE)


@settings(max_examples=60, deadline=None)
@given(hands(RAMI_POOL, 0, 15), st.randoms(use_true_random=False))
def test_properties_on_the_whole_deck(hand, rnd):
    shuffled = list(hand)
    rnd.shuffle(shuffled)
    assert best_opening(shuffled, RAMI51) == best_opening(hand, RAMI51)
    assert 0 <= max_melded_cards(hand, RAMI51) <= len(hand)
    if hand:
        smaller = hand[:-1]
        assert best_opening(smaller, RAMI51) <= best_opening(hand, RAMI51)
        assert max_melded_cards(smaller, RAMI51) <= max_melded_cards(hand, RAMI51)
    assert all(isinstance(c, Card) for c in hand)
