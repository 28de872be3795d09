"""Cards: codes, decks and the text notation.

A card is one small integer, its *code*:

==========  =====================================================
code        card
==========  =====================================================
0 .. 51     a natural card, ``suit * 13 + (rank - 1)``
52          the joker
==========  =====================================================

Ranks run ``1`` (ace) to ``13`` (king); suits run ``0`` clubs ♣, ``1``
diamonds ♦, ``2`` hearts ♥, ``3`` spades ♠. The two copies of a natural card
in a two-deck game share one code: they are interchangeable for every rule,
so a hand is a multiset of codes.

Notation (docs/rules.md section 1): rank then suit, the suit as the last
character, ``♣ ♦ ♥ ♠`` or ASCII ``C D H S``; ranks ``A 2 … 10 J Q K`` with the
French aliases ``V`` (valet), ``D`` (dame) and ``R`` (roi) accepted on input;
the joker is ``★`` or ``JK``. Tokens are separated by white space.
"""

from __future__ import annotations

from collections.abc import Iterable
from numbers import Integral
from typing import Union

__all__ = [
    "Card",
    "CardsLike",
    "JOKER",
    "N_CODES",
    "N_NATURAL",
    "SUITS",
    "ascii_text",
    "card",
    "deck",
    "format",
    "parse",
    "to_cards",
]

N_NATURAL = 52
"""Number of distinct natural cards (codes 0 .. 51)."""
JOKER_CODE = 52
N_CODES = 53
"""Number of distinct card codes, naturals and the joker."""

SUITS = "♣♦♥♠"
ASCII_SUITS = "CDHS"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
RANK_TEXT = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")

_RANK_OF_TEXT = {text: i + 1 for i, text in enumerate(RANK_TEXT)}
_RANK_OF_TEXT.update({"V": 11, "D": 12, "R": 13})
_SUIT_OF_CHAR = {c: i for i, c in enumerate(SUITS)}
_SUIT_OF_CHAR.update({c: i for i, c in enumerate(ASCII_SUITS)})
_JOKER_TOKENS = ("★", "JK")


class Card(int):
    """A card code with a readable face.

    ``Card`` is an ``int`` (so it indexes arrays and compares as its code)
    whose ``repr`` and ``str`` are the card notation.
    """

    __slots__ = ()

    def __new__(cls, code: int) -> "Card":
        code = int(code)
        if not 0 <= code < N_CODES:
            raise ValueError(f"card code {code} is out of range 0..{N_CODES - 1}")
        return super().__new__(cls, code)

    @property
    def is_joker(self) -> bool:
        return self == JOKER_CODE

    @property
    def rank(self) -> int:
        """1 (ace) .. 13 (king); 0 for the joker."""
        return 0 if self.is_joker else int(self) % 13 + 1

    @property
    def suit(self) -> int:
        """0 clubs, 1 diamonds, 2 hearts, 3 spades; -1 for the joker."""
        return -1 if self.is_joker else int(self) // 13

    def text(self, ascii: bool = False) -> str:
        """The card in notation, with ``♣ ♦ ♥ ♠`` or, if ``ascii``, ``C D H S``."""
        if self.is_joker:
            return "JK" if ascii else "★"
        suits = ASCII_SUITS if ascii else SUITS
        return RANK_TEXT[self.rank - 1] + suits[self.suit]

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return self.text()


JOKER = Card(JOKER_CODE)
_TEXTS = tuple(Card(code).text() for code in range(N_CODES))
_ASCII_TEXTS = tuple(Card(code).text(ascii=True) for code in range(N_CODES))

CardsLike = Union[str, Iterable[Union[int, str]]]
"""A notation string (``"7♣ 8♣ ★"``), or a sequence of card codes, ``Card``
or one-card strings (``["7♣", "8C", "JK"]``)."""


def card(rank: int, suit: int) -> Card:
    """The natural card of ``rank`` (1 ace .. 13 king) and ``suit`` (0 ♣ .. 3 ♠)."""
    if not 1 <= rank <= 13:
        raise ValueError(f"rank {rank} is out of range 1 (ace) .. 13 (king)")
    if not 0 <= suit <= 3:
        raise ValueError(f"suit {suit} is out of range 0 (clubs) .. 3 (spades)")
    return Card(suit * 13 + rank - 1)


def _parse_token(token: str) -> Card:
    if token in _JOKER_TOKENS:
        return JOKER
    expected = (
        "expected a rank (A 2-10 J Q K, or V D R) followed by a suit "
        "(♣ ♦ ♥ ♠ or C D H S), or a joker (★ or JK)"
    )
    if len(token) < 2:
        raise ValueError(f"bad card token {token!r}: {expected}")
    rank_text, suit_char = token[:-1], token[-1]
    if suit_char not in _SUIT_OF_CHAR:
        raise ValueError(f"bad card token {token!r}: unknown suit {suit_char!r}; {expected}")
    if rank_text not in _RANK_OF_TEXT:
        raise ValueError(f"bad card token {token!r}: unknown rank {rank_text!r}; {expected}")
    return card(_RANK_OF_TEXT[rank_text], _SUIT_OF_CHAR[suit_char])


def parse(text: str) -> list[Card]:
    """Read cards written in notation.

    Parameters
    ----------
    text : str
        Tokens separated by white space, e.g. ``"7♣ 10D VH ★ JK"``.

    Returns
    -------
    list of Card
        One card per token, in order.

    Raises
    ------
    ValueError
        A token is not a card; the message names the token and what was expected.
    """
    if not isinstance(text, str):
        raise TypeError(f"parse expects a string of card tokens, got {type(text).__name__}")
    return [_parse_token(token) for token in text.split()]


def format(cards: Iterable[int], ascii: bool = False) -> str:  # noqa: A001 - the notation's verb
    """Write cards in notation, separated by single spaces.

    ``format(parse(s))`` gives back ``s`` written canonically (♣ ♦ ♥ ♠ suits,
    J Q K ranks, ★ joker); with ``ascii=True`` the suits are ``C D H S`` and
    the joker ``JK``.
    """
    texts = _ASCII_TEXTS if ascii else _TEXTS
    # Read from a table (a trace writes every hand of every event so); a code out of range goes through Card,
    # which names it in its error.
    return " ".join([texts[c] if 0 <= c < N_CODES else Card(c).text() for c in map(int, cards)])


def to_cards(cards: CardsLike) -> list[Card]:
    """Cards from notation text, or from a sequence of codes, ``Card`` or one-card strings.

    Raises
    ------
    ValueError
        A token or a code is not a card; the message names it.
    TypeError
        ``cards`` is neither text nor a sequence, or holds something that is
        neither a code nor a card string.
    """
    if isinstance(cards, str):
        return parse(cards)
    if not isinstance(cards, Iterable):
        raise TypeError(f"cards are notation text or a sequence of cards, got {type(cards).__name__}")
    out = []
    for item in cards:
        if isinstance(item, str):
            # One card per item, as the item's own token: "7H 8H" inside a
            # list is a mistake worth naming, not two cards.
            out.append(_parse_token(item.strip()))
        elif isinstance(item, bool) or not isinstance(item, Integral):
            raise TypeError(f"a card is a code 0..{N_CODES - 1} or a card string such as '7♣', got {item!r}")
        else:
            out.append(Card(item))
    return out


_ASCII = str.maketrans({"♣": "C", "♦": "D", "♥": "H", "♠": "S", "★": "JK", "—": "-", "–": "-", "…": "...",
                        "±": "+/-", "×": "x", "≥": ">=", "≤": "<="})


def ascii_text(text: str) -> str:
    """``text`` with every card written in ASCII notation (``7C``, ``JK``).

    Suits become ``C D H S`` and the joker ``JK``; the few other symbols the
    project prints (dashes, ``±``, ``×``) get ASCII spellings, so the result
    prints on any console.
    """
    return text.translate(_ASCII)


def deck(decks: int = 2, jokers: int = 4) -> list[Card]:
    """Every physical card of a game, naturals in code order then the jokers.

    ``deck(2, 4)`` is the 108-card Rami 51 deck; ``deck(1, 0)`` the 52-card
    deck of basic rummy.
    """
    if decks < 1:
        raise ValueError(f"decks must be at least 1, got {decks}")
    if jokers < 0:
        raise ValueError(f"jokers must be at least 0, got {jokers}")
    return [Card(c) for c in range(N_NATURAL) for _ in range(decks)] + [JOKER] * jokers
