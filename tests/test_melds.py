"""Melds (docs/rules.md section 2) and their opening values (section 4).

The worked examples of docs/rules.md sections 2 and 4 are here, each test
quoting the sentence it checks, from docs/rules.md or from the published
rule book it names.
"""

from itertools import combinations

import pytest

from sim.cards import JOKER, card, deck, parse
from sim.rules import candidate_melds, check_cards, classify_meld, meld_points, meld_readings, preset

R = {name: preset(name) for name in ("rami51", "rami51-ducale", "rami51-classic", "contrat", "basic")}
RAMI51, DUCALE, CLASSIC, CONTRAT, BASIC = (R[n] for n in R)
ALL = list(R.values())
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)


def c(text):
    (one,) = parse(text)
    return one


def assert_no_meld(cards, r):
    """No meld: None when the deck holds these cards, else the deck check's ValueError."""
    try:
        check_cards(cards, r, hand=False)
    except ValueError:
        with pytest.raises(ValueError):
            classify_meld(cards, r)
        return
    assert classify_meld(cards, r) is None


def kind(cards, ruleset):
    reading = classify_meld(cards, ruleset)
    return None if reading is None else reading.kind


# ------------------------------------------------------------------------ runs
def test_seven_to_ten_of_clubs_is_a_run():
    """Règles du Rami: « 7, 8, 9 et 10 de trèfle : une suite valide. »"""
    for r in ALL:
        reading = classify_meld("7♣ 8♣ 9♣ 10♣", r)
        assert reading is not None and reading.kind == "run"
        assert reading.stands_for == ()
        assert reading.is_natural_run
        assert reading.order == tuple(parse("7♣ 8♣ 9♣ 10♣"))
        assert reading.positions == (7, 8, 9, 10)
    # order of the cards given does not matter
    assert kind("10♣ 8♣ 7♣ 9♣", RAMI51) == "run"


@pytest.mark.parametrize("r", ALL, ids=list(R))
def test_king_ace_two_refused(r):
    """Règles du Rami: « Roi, as, 2 de la même couleur : refusé, l'as ne fait pas la jointure. »
    docs/rules.md section 2.1: never between (K♠ A♠ 2♠ is refused); Les règles du Rami 51: « Il ne relie jamais Roi et 2. »;
    Bicycle basic rummy: « La suite Roi-As-2 est interdite. »"""
    assert_no_meld("K♠ A♠ 2♠", r)
    assert_no_meld("Q♠ K♠ A♠ 2♠", r)
    assert_no_meld("K♠ A♠ 2♠ 3♠", r)
    # nor with a joker bridging the gap
    assert_no_meld("K♠ ★ 2♠", r)


def test_ace_high_and_low_in_rami51():
    """docs/rules.md section 2.1: the ace goes below the 2 (A♥ 2♥ 3♥, ace low) or
    above the king (Q♦ K♦ A♦, ace high); Le jeu de Rami: « (Ex : A♥-R♥-D♥) »"""
    for r in (RAMI51, DUCALE, CLASSIC):
        low = classify_meld("A♥ 2♥ 3♥", r)
        assert low.kind == "run" and low.positions == (1, 2, 3)
        high = classify_meld("Q♦ K♦ A♦", r)
        assert high.kind == "run" and high.positions == (12, 13, 14)
        assert kind("A♥ R♥ D♥", r) == "run"


def test_ace_never_both_low_and_high_in_one_run():
    """docs/rules.md section 2.1: the ace goes below the 2 or above the king,
    never both in one run. A 14-card run A..K-A would need the ace at both
    ends, with two natural aces or with a joker for one of them."""
    clubs = "A♣ 2♣ 3♣ 4♣ 5♣ 6♣ 7♣ 8♣ 9♣ 10♣ J♣ Q♣ K♣"
    assert classify_meld(clubs, RAMI51).kind == "run"  # 13 cards: fine
    assert classify_meld("2♣ 3♣ 4♣ 5♣ 6♣ 7♣ 8♣ 9♣ 10♣ J♣ Q♣ K♣ A♣", RAMI51).kind == "run"
    assert classify_meld(clubs + " A♣", RAMI51) is None


def test_ace_never_both_low_and_high_with_a_joker():
    """docs/rules.md section 2.1: the ace goes below the 2 (ace low) or above the
    king (ace high), never both in one run. A♣ 2♣ .. K♣ + ★ can only be
    read as a 14-card run with an ace (natural or joker) at both ends."""
    clubs = "A♣ 2♣ 3♣ 4♣ 5♣ 6♣ 7♣ 8♣ 9♣ 10♣ J♣ Q♣ K♣"
    assert classify_meld(clubs + " ★", RAMI51) is None
    assert meld_readings(clubs + " ★", RAMI51) == []


def test_basic_ace_low_only():
    """Bicycle basic rummy: « L'As peut former As-2-3, mais pas Dame-Roi-As. »
    docs/rules.md section 2.1: Q♦ K♦ A♦ refused in basic (ace_high false), a run in rami51."""
    assert kind("A♣ 2♣ 3♣", BASIC) == "run"
    assert classify_meld("Q♣ K♣ A♣", BASIC) is None
    assert kind("Q♣ K♣ A♣", RAMI51) == "run"
    assert kind("J♣ Q♣ K♣ A♣", CONTRAT) == "run"
    assert classify_meld("J♣ Q♣ K♣ A♣", BASIC) is None


def test_mixed_suits_not_a_run():
    """Bicycle basic rummy: « Un 4 de cœur, un 5 de carreau et un 6 de cœur ne constituent pas une suite. »"""
    for r in ALL:
        assert classify_meld("4♥ 5♦ 6♥", r) is None
    assert kind("4♥ 5♥ 6♥", BASIC) == "run"  # « 4, 5, 6 de cœur »


def test_extending_a_run():
    """Bicycle basic rummy: « Pour compléter la suite 4-5-6 de cœur, ajoute le 3 de cœur,
    le 7 de cœur ou plusieurs cartes qui prolongent réellement la suite. »"""
    for text in ("3♥ 4♥ 5♥ 6♥", "4♥ 5♥ 6♥ 7♥", "2♥ 3♥ 4♥ 5♥ 6♥ 7♥ 8♥"):
        assert kind(text, BASIC) == "run"
    # a card that does not really extend it
    assert classify_meld("4♥ 5♥ 6♥ 8♥", BASIC) is None


def test_runs_need_consecutive_distinct_ranks():
    """docs/rules.md section 2.1: cards of one suit with consecutive ranks."""
    for r in ALL:
        assert_no_meld("7♣ 7♣ 8♣", r)
        assert_no_meld("7♣ 8♣ 8♣ 9♣", r)
        assert_no_meld("7♣ 9♣ 10♣", r)


def test_contrat_runs_need_four_cards():
    """Règles du Rami: « Avec seulement 5, 6, 7 de pique, non : trois cartes ne font pas
    une suite au Rami contrat. » docs/rules.md section 6: runs of at least 4 cards."""
    assert classify_meld("5♠ 6♠ 7♠", CONTRAT) is None
    assert kind("5♠ 6♠ 7♠ 8♠", CONTRAT) == "run"
    assert kind("5♠ 6♠ 7♠", RAMI51) == "run"
    assert classify_meld("5♠ 6♠ ★", CONTRAT) is None
    assert kind("5♠ 6♠ 7♠ ★", CONTRAT) == "run"


def test_contrat_joker_run():
    """Règles du Rami contrat: « Un joker peut tenir une carte : 9♥★V♥D♥ est une suite de quatre
    (le joker tient le 10 de cœur). »"""
    reading = classify_meld("9♥ ★ V♥ D♥", CONTRAT)
    assert reading.kind == "run"
    assert reading.stands_for == (c("10♥"),)
    assert reading.order == tuple(parse("9♥ 10♥ J♥ Q♥"))
    assert len(meld_readings("9♥ ★ V♥ D♥", CONTRAT)) == 1


# ------------------------------------------------------------------------ sets
def test_three_kings_is_a_set():
    """Règles du Rami: « Roi de pique, roi de cœur, roi de carreau : un brelan valide. »"""
    for r in ALL:
        reading = classify_meld("K♠ K♥ K♦", r)
        assert reading.kind == "set"
        assert reading.stands_for == ()
        assert not reading.is_natural_run
        assert reading.order == tuple(parse("K♦ K♥ K♠"))  # by suit


@pytest.mark.parametrize("r", ALL, ids=list(R))
def test_same_card_twice_refused_in_a_set(r):
    """Règles du Rami: « 7 de cœur, 7 de cœur, 7 de trèfle : refusé, c'est deux fois le même 7. »
    Les règles du Rami 51: « Deux cartes de la même couleur ne peuvent pas appartenir au même groupe. »"""
    assert_no_meld("7♥ 7♥ 7♣", r)
    assert_no_meld("7♥ 7♥ 7♣ 7♠", r)
    assert_no_meld("7♥ 7♥ ★", r)


def test_groups_of_eights():
    """Bicycle basic rummy: « Un groupe réunit trois ou quatre cartes de même valeur : trois 8 »;
    « Pour compléter un groupe de trois 8 déjà posé, ajoute le quatrième 8. »"""
    assert kind("8♣ 8♦ 8♥", BASIC) == "set"
    assert kind("8♣ 8♦ 8♥ 8♠", BASIC) == "set"


def test_threes_of_three_suits_are_a_set():
    """Le jeu de Rami: « de couleurs différentes (Ex : 3♦-3♣-3♠) »"""
    assert kind("3♦ 3♣ 3♠", CLASSIC) == "set"


@pytest.mark.parametrize("r", ALL, ids=list(R))
def test_sets_hold_three_or_four_cards(r):
    """docs/rules.md section 2.2: a set is three (brelan) or four (carré) cards; Les règles du Rami 51: « Trois ou quatre cartes de même valeur. »"""
    assert_no_meld("9♣ 9♦", r)
    assert_no_meld("9♣ 9♦ 9♥ 9♠ ★", r)
    assert_no_meld("9♣ 9♦ 9♥ 9♠ 9♣", r)
    assert_no_meld("9♣ 9♦ 10♥", r)


# ---------------------------------------------------------------------- jokers
def test_joker_as_eight_of_clubs():
    """Règles du Rami: « posé comme 8 de trèfle entre le 7 et le 9, il reste le 8 de trèfle »;
    « Sur la table se trouve 7 de trèfle, joker, 9 de trèfle : le joker tient le 8 de trèfle. »"""
    for r in (RAMI51, DUCALE, CLASSIC):
        reading = classify_meld("7♣ ★ 9♣", r)
        assert reading.kind == "run"
        assert reading.stands_for == (card(8, CLUBS),)
        assert reading.order == tuple(parse("7♣ 8♣ 9♣"))
        assert not reading.is_natural_run
        # the only reading: the joker cannot be anything else
        assert [rd.stands_for for rd in meld_readings("7♣ ★ 9♣", r)] == [(card(8, CLUBS),)]


def test_joker_replayed_with_queen_and_king_of_hearts():
    """Règles du Rami: « tu le rejoues aussitôt, par exemple avec ta dame et ton roi de cœur. »"""
    readings = meld_readings("D♥ R♥ ★", RAMI51)
    assert {rd.stands_for for rd in readings} == {(c("J♥"),), (c("A♥"),)}
    # classify_meld keeps the reading worth most: the joker as the ace high
    best = classify_meld("D♥ R♥ ★", RAMI51)
    assert best.stands_for == (c("A♥"),) and best.points == 31


def test_joker_in_a_set_any_missing_suit():
    """Règles du Rami: « Dans un brelan, le joker se récupère avec la carte de même valeur
    d'une couleur qui manque. » (decision: a joker in a set may stand for any missing suit)"""
    readings = meld_readings("K♠ K♥ ★", RAMI51)
    assert all(rd.kind == "set" for rd in readings)
    assert {rd.stands_for for rd in readings} == {(c("K♣"),), (c("K♦"),)}
    best = classify_meld("K♠ K♥ ★", RAMI51)
    assert best.kind == "set" and best.stands_for[0] in (c("K♣"), c("K♦"))
    assert best.points == 30


def test_unambiguous_joker_recovery_examples():
    """Le jeu de Rami: « 8♠-7♠-Joker. Si on a le 6♠, on peut remplacer le joker »;
    « 9♣-9♠-Joker. Même si on a le 9♦ on ne peut pas remplacer le joker. »;
    « on peut poser le 9♦ pour créer un carré 9♦-9♣-9♠-Joker. »"""
    run = meld_readings("8♠ 7♠ ★", CLASSIC)
    assert {rd.stands_for for rd in run} == {(c("6♠"),), (c("9♠"),)}
    # a 3-card set with a joker is ambiguous: two missing suits
    brelan = meld_readings("9♣ 9♠ ★", CLASSIC)
    assert {rd.stands_for for rd in brelan} == {(c("9♦"),), (c("9♥"),)}
    # a 4-card set with a joker is not: it can only be the 9♥
    carre = meld_readings("9♦ 9♣ 9♠ ★", CLASSIC)
    assert [rd.stands_for for rd in carre] == [(c("9♥"),)]
    assert carre[0].kind == "set" and carre[0].points == 36


@pytest.mark.parametrize("r", ALL, ids=list(R))
def test_at_most_one_joker_and_two_naturals(r):
    """docs/rules.md section 2.3: at most one joker in a meld (jokers_per_meld = 1), and a
    meld keeps at least two natural cards. Les règles du Rami 51: « Une combinaison contient au plus un
    joker et au moins deux cartes naturelles. »"""
    assert_no_meld("7♣ 8♣ ★ ★", r)  # two jokers in a meld
    assert_no_meld("7♣ ★ 9♣ ★ J♣", r)
    assert_no_meld("K♣ K♦ ★ ★", r)
    assert_no_meld("7♣ ★ ★", r)  # one natural + two jokers
    assert_no_meld("★ ★ ★", r)
    assert_no_meld("7♣ ★", r)
    if r.n_jokers >= 2:
        assert meld_points("7♣ 8♣ ★ ★", r) is None


def test_classify_takes_the_reading_worth_most():
    """Decision: classify_meld returns the reading worth the most opening points."""
    best = classify_meld("8♠ 7♠ ★", RAMI51)  # 6♠ gives 21, 9♠ gives 24
    assert best.stands_for == (c("9♠"),) and best.points == 24
    best = classify_meld("★ 2♣ 3♣", RAMI51)  # A♣ low gives 6, 4♣ gives 9
    assert best.stands_for == (c("4♣"),) and best.points == 9
    best = classify_meld("A♣ 2♣ ★", RAMI51)  # only 3♣: the ace cannot be high
    assert best.stands_for == (c("3♣"),) and best.points == 6
    # basic: no ace high, so Q K ★ is J Q K
    best = classify_meld("Q♣ K♣ ★", BASIC.replace(jokers=1))
    assert best.stands_for == (c("J♣"),) and best.points == 30


def test_meld_accepts_codes():
    assert classify_meld([card(7, CLUBS), JOKER, card(9, CLUBS)], RAMI51).stands_for == (c("8♣"),)
    assert classify_meld((6, 7, 8), "rami51").kind == "run"  # codes, preset by name


# ------------------------------------------------------------- opening values
def test_opening_values_section_4():
    """docs/rules.md section 4: K♣ K♦ K♥ is 30 and 9♠ 10♠ J♠ 29, together 59: opens.
    Q♦ K♦ A♦ is 31; A♥ 2♥ 3♥ is 6. Règles du Rami: « Dame, roi, as de carreau vaut 31
    points, parce que l'as vaut 11 après le roi. As, 2, 3 de cœur ne vaut que 6
    points, parce que l'as vaut 1 avant le 2. »"""
    for r in (RAMI51, DUCALE, CLASSIC):
        assert meld_points("K♣ K♦ K♥", r) == 30
        assert meld_points("9♠ 10♠ J♠", r) == 29
        assert meld_points("Q♦ K♦ A♦", r) == 31
        assert meld_points("A♥ 2♥ 3♥", r) == 6


def test_opening_example_of_54():
    """Le jeu de Rami: « Exemple de jeu posable : ( 8♠ - 7♠ - 6♠ ) + ( As♦ - As♣ - Joker ) »
    « Ce jeu fait (8+7+6) + (11+11+11) = 54 (les As dans un brelan valent onze, de
    même que le joker qui remplace un As) »; docs/rules.md section 4: 6♠ 7♠ 8♠ + A♦ A♣ ★ is 21 + 33 = 54."""
    for r in (RAMI51, DUCALE, CLASSIC):
        run = classify_meld("8♠ 7♠ 6♠", r)
        aces = classify_meld("A♦ A♣ ★", r)
        assert run.points == 21 and run.is_natural_run
        assert aces.kind == "set" and aces.points == 33
        assert aces.stands_for[0].rank == 1
        assert run.points + aces.points == 54


def test_opening_value_table():
    """docs/rules.md section 4 table: 2 to 10 face value; J, Q, K 10; ace low 1; ace
    high, or in a set, 11; joker the value of the card it stands for."""
    assert meld_points("2♣ 3♣ 4♣", RAMI51) == 9
    assert meld_points("J♣ Q♣ K♣", RAMI51) == 30
    assert meld_points("A♣ A♦ A♥ A♠", RAMI51) == 44
    assert meld_points("10♥ J♥ Q♥ K♥ A♥", RAMI51) == 51
    assert meld_points("J♥ ★ K♥", RAMI51) == 30  # joker as Q♥: 10
    assert meld_points("5♦ 5♠ ★", RAMI51) == 15
    assert meld_points("K♠ A♠ ★", RAMI51) == 31  # joker as Q♠ before K-A
    assert meld_points("7♥ 7♥ 7♣", RAMI51) is None
    # docs/rules.md section 2: a meld has at least three cards
    assert meld_points("9♣ 10♣", RAMI51) is None


# ---------------------------------------------------------------------- counts
# Derivation, one 52-card deck, no joker (each card once):
#
# * 3-card runs, ace low or high (rami51): a run is 3 consecutive positions of
#   one suit among positions 1 (ace low), 2..13, 14 (ace high). Windows start at
#   1 .. 12 (A-2-3 .. Q-K-A): 12 windows; K-A-2 would need positions 13,14,15
#   and is not one. 12 windows x 4 suits = 48.
# * 3-card runs, ace low only (basic): positions 1 .. 13, windows start at
#   1 .. 11 (A-2-3 .. J-Q-K): 11 x 4 = 44.
# * 3-card natural sets: a rank (13) and 3 of its 4 suits (C(4,3) = 4): 52.
# * 4-card runs (contrat, ace low or high): windows of 4 among 14 positions
#   start at 1 .. 11: 11 x 4 = 44. 3-card runs in contrat: 0.
# * 4-card sets: one per rank: 13.
# * C(52, 3) = 52*51*50/6 = 22100 triples in all, so every other triple is
#   refused: 22100 - 48 - 52 = 22000 (rami51).
def _count_triples(r):
    runs = sets = refused = 0
    for triple in combinations(range(52), 3):
        reading = classify_meld(triple, r)
        if reading is None:
            refused += 1
        elif reading.kind == "run":
            runs += 1
        else:
            sets += 1
    return runs, sets, refused


def test_count_three_card_melds_by_classify_meld():
    assert _count_triples(RAMI51) == (48, 52, 22100 - 48 - 52)
    assert _count_triples(BASIC) == (44, 52, 22100 - 44 - 52)
    assert _count_triples(CONTRAT) == (0, 52, 22100 - 52)


def _count_candidates(r, size):
    melds = candidate_melds(deck(1, 0), r)
    runs = sum(1 for key, rd in melds.items() if len(key) == size and rd.kind == "run")
    sets = sum(1 for key, rd in melds.items() if len(key) == size and rd.kind == "set")
    return runs, sets


def test_count_melds_by_candidate_melds_over_one_deck():
    assert _count_candidates(RAMI51, 3) == (48, 52)
    assert _count_candidates(BASIC, 3) == (44, 52)
    assert _count_candidates(CONTRAT, 3) == (0, 52)
    assert _count_candidates(CONTRAT, 4) == (44, 13)
    assert _count_candidates(RAMI51, 4) == (44, 13)
    # no joker in the deck, so every candidate is natural
    assert all(JOKER not in key for key in candidate_melds(deck(1, 0), RAMI51))


def test_candidate_melds_are_valid_and_drawn_from_the_hand():
    hand = parse("7♣ 8♣ 9♣ 9♦ 9♥ ★ Q♠ K♠")
    melds = candidate_melds(hand, RAMI51)
    assert melds  # there are some
    for key, reading in melds.items():
        assert list(key) == sorted(key)
        assert classify_meld(key, RAMI51) == reading
        for code in set(key):
            assert key.count(code) <= hand.count(code)
    # a few that must be there
    assert tuple(sorted(parse("7♣ 8♣ 9♣"))) in melds
    assert tuple(sorted(parse("9♣ 9♦ 9♥"))) in melds
    assert tuple(sorted(parse("Q♠ K♠ ★"))) in melds
    # a joker may take the place of a card the hand holds
    assert tuple(sorted(parse("7♣ 9♣ ★"))) in melds
