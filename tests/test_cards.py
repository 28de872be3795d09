"""Cards, decks and the text notation (docs/rules.md section 1)."""

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim import cards
from sim.cards import JOKER, Card, card, deck, parse

CLUBS, DIAMONDS, HEARTS, SPADES = range(4)


# --------------------------------------------------------------------- codes
def test_codes_are_suit_times_13_plus_rank_minus_1():
    assert card(1, CLUBS) == 0
    assert card(13, CLUBS) == 12
    assert card(1, DIAMONDS) == 13
    assert card(7, HEARTS) == 2 * 13 + 6
    assert card(13, SPADES) == 51
    assert JOKER == 52
    assert isinstance(card(7, HEARTS), int)


def test_card_properties():
    c = card(12, DIAMONDS)
    assert (c.rank, c.suit, c.is_joker) == (12, DIAMONDS, False)
    assert (JOKER.rank, JOKER.suit, JOKER.is_joker) == (0, -1, True)
    for code in range(52):
        c = Card(code)
        assert card(c.rank, c.suit) == code
        assert not c.is_joker


@pytest.mark.parametrize("code", [-1, 53, 100])
def test_card_code_out_of_range(code):
    with pytest.raises(ValueError, match=str(code)):
        Card(code)


@pytest.mark.parametrize("rank, suit", [(0, 0), (14, 0), (1, 4), (1, -1)])
def test_card_rank_or_suit_out_of_range(rank, suit):
    with pytest.raises(ValueError):
        card(rank, suit)


# ------------------------------------------------------------------- parsing
# "rank then suit, suit as the last character, ♣ ♦ ♥ ♠ or ASCII C D H S;
#  ranks A 2 … 10 J Q K, French aliases V D R accepted on input."
@pytest.mark.parametrize(
    "token, rank, suit",
    [
        ("A♣", 1, CLUBS),
        ("AC", 1, CLUBS),
        ("2♦", 2, DIAMONDS),
        ("2D", 2, DIAMONDS),
        ("7♥", 7, HEARTS),
        ("7H", 7, HEARTS),
        ("9♠", 9, SPADES),
        ("9S", 9, SPADES),
        ("10♦", 10, DIAMONDS),
        ("10D", 10, DIAMONDS),  # "10D the ten of diamonds"
        ("J♥", 11, HEARTS),
        ("JH", 11, HEARTS),
        ("VH", 11, HEARTS),  # "VH the jack of hearts"
        ("V♥", 11, HEARTS),
        ("Q♦", 12, DIAMONDS),
        ("QD", 12, DIAMONDS),
        ("DD", 12, DIAMONDS),  # "So DD is the queen of diamonds"
        ("D♦", 12, DIAMONDS),
        ("K♠", 13, SPADES),
        ("KS", 13, SPADES),
        ("RS", 13, SPADES),
        ("R♦", 13, DIAMONDS),
    ],
)
def test_parse_one_token(token, rank, suit):
    (c,) = parse(token)
    assert (c.rank, c.suit) == (rank, suit)
    assert c == card(rank, suit)


@pytest.mark.parametrize("token", ["★", "JK"])
def test_parse_joker(token):
    # docs/rules.md section 1: a joker is ★ or JK.
    assert parse(token) == [JOKER]


def test_parse_every_natural_card_in_both_suit_alphabets():
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    for suit, (uni, asc) in enumerate(zip("♣♦♥♠", "CDHS")):
        for rank, text in enumerate(ranks, start=1):
            assert parse(text + uni) == [card(rank, suit)]
            assert parse(text + asc) == [card(rank, suit)]


def test_parse_several_tokens_keeps_order_and_duplicates():
    # Two decks: "every natural card exists twice".
    hand = parse("7♣ 10D VH ★ JK 7♣  DD\tRS\nAH")
    assert hand == [
        card(7, CLUBS),
        card(10, DIAMONDS),
        card(11, HEARTS),
        JOKER,
        JOKER,
        card(7, CLUBS),
        card(12, DIAMONDS),
        card(13, SPADES),
        card(1, HEARTS),
    ]
    assert all(isinstance(c, Card) for c in hand)


def test_parse_empty_text_is_an_empty_hand():
    # The winner's hand at the end of a round is empty ("the winner's is
    # empty", round_scores); an empty string holds no token, so no bad token.
    assert parse("") == []
    assert parse("   ") == []


@pytest.mark.parametrize(
    "token",
    ["11H", "7X", "Z", "1S", "KK", "0C", "A", "10", "7c", "jk", "♣7", "10♣♣", "7♣,8♣", "JK♣", "★★", "14♠", "B♠"],
)
def test_bad_token_raises_value_error_naming_it(token):
    # docs/rules.md section 1 and item 1: any other token is refused, named.
    with pytest.raises(ValueError) as info:
        parse(token)
    assert token in str(info.value)


def test_bad_token_among_good_ones_is_named():
    with pytest.raises(ValueError) as info:
        parse("7♣ 8♣ 7X 9♣")
    assert "7X" in str(info.value)


def test_parse_rejects_non_text():
    with pytest.raises(TypeError):
        parse([1, 2, 3])


# -------------------------------------------------------------------- format
def test_format_canonical_and_ascii():
    hand = parse("7♣ 10D VH DD RS AS ★ JK")
    assert cards.format(hand) == "7♣ 10♦ J♥ Q♦ K♠ A♠ ★ ★"
    assert cards.format(hand, ascii=True) == "7C 10D JH QD KS AS JK JK"
    assert cards.format([]) == ""


def test_str_and_repr_are_the_notation():
    assert str(card(10, HEARTS)) == "10♥"
    assert repr(card(1, SPADES)) == "A♠"
    assert str(JOKER) == "★"
    assert card(12, CLUBS).text(ascii=True) == "QC"
    assert JOKER.text(ascii=True) == "JK"


def test_every_code_round_trips_through_both_notations():
    for code in range(53):
        c = Card(code)
        assert parse(c.text()) == [code]
        assert parse(c.text(ascii=True)) == [code]


# --------------------------------------------------------------------- decks
def test_rami51_deck_has_108_cards():
    # "deux jeux de 52 cartes et quatre jokers, soit 108 cartes" (Règles du Rami);
    # « deux jeux de 54 cartes classiques (dont deux jokers) » (Le jeu de Rami):
    # 2 decks * 52 naturals + 4 jokers = 104 + 4 = 108.
    d = deck(2, 4)
    assert len(d) == 2 * 52 + 4 == 108
    counts = Counter(d)
    assert counts[JOKER] == 4
    assert all(counts[code] == 2 for code in range(52))
    assert set(counts) == set(range(53))
    assert deck() == d  # the default is the Rami 51 deck
    # 26 cards a suit (13 ranks * 2 copies), 8 cards a rank (4 suits * 2).
    suits = Counter(c.suit for c in d if not c.is_joker)
    assert suits == {0: 26, 1: 26, 2: 26, 3: 26}
    ranks = Counter(c.rank for c in d if not c.is_joker)
    assert ranks == {rank: 8 for rank in range(1, 14)}


def test_basic_deck_has_52_cards_and_no_joker():
    # "Il faut 52 cartes ordinaires, sans joker" (Bicycle basic rummy).
    d = deck(1, 0)
    assert len(d) == 52
    assert sorted(d) == list(range(52))
    assert JOKER not in d


def test_deck_sizes_for_other_joker_counts():
    # Rami contrat: two decks and players - 1 jokers (2, 3, 4 at 3, 4, 5 players).
    for jokers in (2, 3, 4):
        d = deck(2, jokers)
        assert len(d) == 104 + jokers
        assert d.count(JOKER) == jokers


@pytest.mark.parametrize("decks, jokers", [(0, 0), (1, -1)])
def test_bad_deck(decks, jokers):
    with pytest.raises(ValueError):
        deck(decks, jokers)


# ---------------------------------------------------------------- properties
codes = st.lists(st.integers(min_value=0, max_value=52), max_size=20)


@settings(max_examples=200, deadline=None)
@given(codes)
def test_format_parse_round_trip(hand):
    assert parse(cards.format(hand)) == hand
    assert parse(cards.format(hand, ascii=True)) == hand
    assert cards.to_cards(cards.format(hand)) == hand


_RANK_SPELLINGS = {
    1: ["A"],
    **{r: [str(r)] for r in range(2, 11)},
    11: ["J", "V"],
    12: ["Q", "D"],
    13: ["K", "R"],
}


@st.composite
def spelled_hand(draw):
    """Codes and one way of writing them with any accepted spelling."""
    hand = draw(codes)
    tokens = []
    for code in hand:
        c = Card(code)
        if c.is_joker:
            tokens.append(draw(st.sampled_from(["★", "JK"])))
        else:
            rank = draw(st.sampled_from(_RANK_SPELLINGS[c.rank]))
            suit = draw(st.sampled_from(["♣♦♥♠"[c.suit], "CDHS"[c.suit]]))
            tokens.append(rank + suit)
    seps = draw(st.lists(st.sampled_from([" ", "  ", "\t", "\n"]), min_size=len(tokens), max_size=len(tokens)))
    text = "".join(sep + tok for sep, tok in zip(seps, tokens))
    return hand, text


@settings(max_examples=200, deadline=None)
@given(spelled_hand())
def test_any_spelling_parses_to_the_same_cards(case):
    hand, text = case
    assert parse(text) == hand
    # and writing them back is canonical whatever the spelling was
    assert cards.format(parse(text)) == cards.format(hand)


@pytest.mark.parametrize("code", [-1, 53, 99])
def test_format_refuses_a_code_out_of_range_by_name(code):
    # The texts come from a table: a negative code must not read it from the end.
    with pytest.raises(ValueError, match=f"card code {code} is out of range"):
        cards.format([0, code])
