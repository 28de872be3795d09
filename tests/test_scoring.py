"""Scoring (docs/rules.md sections 5, 6 and 7)."""

import pytest

from sim.cards import JOKER, card, parse
from sim.rules import hand_penalty, preset, round_scores
from sim.rules.scoring import card_penalty

RAMI51 = preset("rami51")
DUCALE = preset("rami51-ducale")
CLASSIC = preset("rami51-classic")
CONTRAT = preset("contrat")
BASIC = preset("basic")


# ------------------------------------------------------------- card values
def test_rami51_card_values_in_hand():
    """docs/rules.md section 5.1: 2 to 10 face value, J Q K 10, ace 11, joker 20 (25 in Le jeu de Rami)."""
    for rank in range(2, 11):
        assert card_penalty(card(rank, 0), RAMI51) == rank
    for rank in (11, 12, 13):
        assert card_penalty(card(rank, 3), RAMI51) == 10
    # Règles du Rami: « l'as vaut toujours 11, et le joker a sa propre valeur »
    assert card_penalty(card(1, 2), RAMI51) == 11
    # Règles du Rami: « Un joker en main à la fin de la manche coûte 20 points au Rami 51 »
    assert card_penalty(JOKER, RAMI51) == 20
    assert card_penalty(JOKER, DUCALE) == 20


def test_joker_25_in_rami51_classic():
    """Le jeu de Rami: « Un as, dans cette situation, vaut toujours 11 »; « Un joker, dans
    cette situation, vaut toujours 25 »"""
    assert card_penalty(JOKER, CLASSIC) == 25
    assert card_penalty(card(1, 0), CLASSIC) == 11
    assert hand_penalty("7♣ K♥ ★", CLASSIC) == 7 + 10 + 25
    assert hand_penalty("★ ★", CLASSIC) == 50


def test_hand_of_37():
    """Règles du Rami: « il te reste 7 de trèfle, roi de cœur et un joker, soit 7 + 10 + 20 = 37 points. »"""
    assert hand_penalty("7♣ K♥ ★", RAMI51) == 37
    assert hand_penalty("7♣ K♥ ★", RAMI51, opened=True) == 37
    assert hand_penalty(parse("7♣ K♥ ★"), RAMI51) == 37  # codes work too
    assert hand_penalty("", RAMI51) == 0


def test_unopened_player_scores_100_whatever_the_cards():
    """Règles du Rami: « Un joueur qui n'a pas ouvert quand la manche s'arrête marque 100
    points, quelles que soient ses cartes »; Les règles du Rami 51: « Un joueur qui n'a pas ouvert
    marque 100 points. »; Le jeu de Rami: « Quelqu'un qui n'a pas encore posé ne compte pas
    ses points et marque 100. »"""
    for r in (RAMI51, DUCALE, CLASSIC):
        assert hand_penalty("7♣ K♥ ★", r, opened=False) == 100
        assert hand_penalty("2♣", r, opened=False) == 100
        assert hand_penalty("K♣ K♦ K♥ K♠ A♣ A♦ A♥ A♠ ★ ★ ★ ★ Q♣", r, opened=False) == 100


def test_unopened_penalty_count_cards_override():
    """docs/rules.md section 5.1: knob unopened_penalty, 100 or count_cards (a variant); Variantes
    du Rami: « Joueur qui n'a pas ouvert | 100 points | il compte ses cartes »"""
    r = preset("rami51", unopened_penalty="count_cards")
    assert hand_penalty("7♣ K♥ ★", r, opened=False) == 37
    assert hand_penalty("2♣", r, opened=False) == 2
    assert round_scores(["", "7♣ K♥ ★", "7♣ K♥ ★"], [True, True, False], r, winner=0) == [0, 37, 37]
    # rami sec doubles the counted hand
    assert round_scores(["", "7♣ K♥ ★"], [True, False], r, winner=0, rami_sec=True) == [0, 74]
    # another fixed amount
    r2 = preset("rami51", unopened_penalty=150)
    assert hand_penalty("2♣", r2, opened=False) == 150


# --------------------------------------------------------------- rami sec
def test_round_with_rami_sec_double():
    """Règles du Rami: « Exemple : il te reste 7 de trèfle, roi de cœur et un joker, soit
    7 + 10 + 20 = 37 points. Ton voisin n'a pas ouvert : 100 points. Si le gagnant a
    fait rami sec, tu marques 74 points et ton voisin 200. »"""
    hands = ["", "7♣ K♥ ★", "5♦ 9♠ Q♣"]
    opened = [True, True, False]
    assert round_scores(hands, opened, RAMI51, winner=0) == [0, 37, 100]
    assert round_scores(hands, opened, RAMI51, winner=0, rami_sec=True) == [0, 74, 200]
    # the winner can sit anywhere
    assert round_scores(["7♣ K♥ ★", "", "5♦ 9♠ Q♣"], [True, True, False], RAMI51, winner=1) == [37, 0, 100]
    assert round_scores(["7♣ K♥ ★", "", "5♦ 9♠ Q♣"], [True, True, False], RAMI51, winner=1, rami_sec=True) == [
        74,
        0,
        200,
    ]


def test_rami_sec_flat_200_ducale():
    """docs/rules.md section 5.2, flat_200: the winner opens and goes out in the same turn
    while no opponent has opened; every opponent scores 200. Les règles du Rami 51: « Un Rami
    sec fait marquer 200 points à chaque adversaire »; Règles du Rami: « Dans les deux cas,
    un joueur qui n'avait pas ouvert finit avec 200. » Le jeu de Rami: « Si celui qui a fini a
    tout posé d'un coup alors que personne d'autre n'a encore posé (c'est ce qu'on
    appelle le Rami sec), ses adversaires marquent 200 points. » (docs/rules.md section 5.2:
    Le jeu de Rami also gives 100 or 120; its preset takes flat_200)"""
    hands = ["", "7♣ K♥ ★", "2♣", "A♠ A♥ K♦ K♣ Q♠ J♠ 10♥ 9♥ 9♦ ★ ★ ★ 8♣"]
    opened = [True, False, False, False]
    assert round_scores(hands, opened, DUCALE, winner=0, rami_sec=True) == [0, 200, 200, 200]
    assert round_scores(hands, opened, CLASSIC, winner=0, rami_sec=True) == [0, 200, 200, 200]
    # without rami sec: 100 each
    assert round_scores(hands, opened, DUCALE, winner=0) == [0, 100, 100, 100]
    # both definitions give 200 to a player who had not opened
    assert round_scores(hands, opened, RAMI51, winner=0, rami_sec=True) == [0, 200, 200, 200]


def test_rami_sec_none_gives_no_bonus():
    """docs/rules.md section 5.2: rami_sec none, no bonus."""
    r = preset("rami51", rami_sec="none")
    assert round_scores(["", "7♣ K♥ ★", "2♣"], [True, True, False], r, winner=0, rami_sec=True) == [0, 37, 100]


def test_winner_scores_zero():
    """docs/rules.md section 5.1: the player who goes out scores 0. Les règles du Rami 51: « Le joueur qui sort marque 0 point. »"""
    for r in (RAMI51, DUCALE, CLASSIC, CONTRAT):
        scores = round_scores(["", "7♣", "8♦", "9♥"], [True, True, True, True], r, winner=0)
        assert scores == [0, 7, 8, 9]


# ----------------------------------------------------------------- contrat
def test_contrat_hand_of_44():
    """Règles du Rami: « Il te reste as de trèfle, joker, roi de carreau et 4 de cœur : 15 + 15
    + 10 + 4 = 44 points. » Règles du Rami contrat: « Il te reste A♣★R♦4♥ : 15 + 15 + 10 + 4 = 44 points. »"""
    assert hand_penalty("A♣ ★ K♦ 4♥", CONTRAT) == 44
    assert hand_penalty("A♣ ★ R♦ 4♥", CONTRAT) == 44
    # counted the same whether or not the contract was laid
    assert hand_penalty("A♣ ★ K♦ 4♥", CONTRAT, opened=False) == 44
    assert round_scores(["", "A♣ ★ K♦ 4♥", "2♠ 3♠"], [True, False, True], CONTRAT, winner=0) == [0, 44, 5]


def test_contrat_blocked_deal_counts_hands():
    """Règles du Rami contrat: « à la seconde pioche vide, la donne s'arrête et chacun compte sa main. »
    docs/rules.md section 6.7: at the second empty stock the deal stops and every hand counts."""
    hands = ["A♣ ★ K♦ 4♥", "2♠ 3♠", "Q♥"]
    assert round_scores(hands, [True, False, False], CONTRAT, winner=None, blocked=True) == [44, 5, 10]
    assert round_scores(hands, [True, False, False], CONTRAT, winner=None) == [44, 5, 10]


# ------------------------------------------------------------ blocked round
def test_blocked_round_scores_nothing_under_ducale():
    """Les règles du Rami 51: « Une manche bloquée ne rapporte aucun point à personne. » docs/rules.md
    section 5.3: a blocked round scores nothing for anyone (blocked_scoring nothing)."""
    hands = ["7♣ K♥ ★", "2♣ 3♦", "A♠ A♥ Q♣"]
    assert round_scores(hands, [True, False, True], DUCALE, winner=None, blocked=True) == [0, 0, 0]
    assert round_scores(hands, [True, False, True], DUCALE, winner=None) == [0, 0, 0]


def test_turn_cap_blocked_round_in_rami51():
    """docs/rules.md section 3.6 and item 10: a round that reaches the turn cap is recorded as
    blocked; rami51 scores nothing then."""
    hands = ["7♣ K♥ ★", "2♣ 3♦"]
    assert round_scores(hands, [True, False], RAMI51, winner=None, blocked=True) == [0, 0]


# -------------------------------------------------------------------- basic
def test_basic_card_values():
    """Bicycle basic rummy: « L'As vaut 1 point ; les nombres valent leur nombre ; Valets, Dames et
    Rois valent 10 chacun. »"""
    assert hand_penalty("A♣", BASIC) == 1
    assert hand_penalty("7♦ J♣ Q♥ K♠", BASIC) == 37
    # « chaque adversaire compte toutes les cartes de sa main, même celles qui
    # formaient une combinaison non posée »: nothing special for unopened hands
    assert hand_penalty("A♣ 2♣ 3♣", BASIC, opened=False) == 6


def test_basic_winner_collects_43_or_86_with_rami():
    """Bicycle basic rummy: « Par exemple, les adversaires ont 18 et 25 points en main : tu reçois 43
    points normalement, ou 86 en faisant rami. » « Les autres inscrivent zéro pour cette manche. »"""
    eighteen = "A♣ 7♦ K♠"  # 1 + 7 + 10
    twenty_five = "5♥ 10♣ D♦"  # 5 + 10 + 10
    assert hand_penalty(eighteen, BASIC) == 18
    assert hand_penalty(twenty_five, BASIC) == 25
    hands = ["", eighteen, twenty_five]
    opened = [True, False, True]
    assert round_scores(hands, opened, BASIC, winner=0) == [43, 0, 0]
    assert round_scores(hands, opened, BASIC, winner=0, rami_sec=True) == [86, 0, 0]
    # the gain goes to the winner's seat
    assert round_scores([eighteen, "", twenty_five], opened, BASIC, winner=1) == [0, 43, 0]


@pytest.mark.parametrize("r", [RAMI51, DUCALE, CLASSIC, CONTRAT, BASIC])
def test_round_scores_one_score_per_seat(r):
    hands = ["", "2♣", "3♦", "4♥", "5♠"][: r.players]
    scores = round_scores(hands, [True] * len(hands), r, winner=0)
    assert len(scores) == len(hands)
    assert all(isinstance(s, int) for s in scores)
