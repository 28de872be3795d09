"""What cards can be held under a ruleset: the deck's copies, its jokers, a hand's size.

Every public function of the rules reference reads its cards through
:func:`check_cards`, so an impossible hand (three 7♥ from two decks, a joker in
a game without jokers, 27 cards in a Rami 51 hand) raises ``ValueError``
instead of being scored as if it were real.
"""

from __future__ import annotations

from collections import Counter

from sim.cards import JOKER, Card, CardsLike, to_cards
from sim.rules.ruleset import Ruleset

__all__ = ["check_cards", "max_hand_cards"]


def max_hand_cards(r: Ruleset) -> int:
    """Most cards one hand can hold at any moment of a round under ``r``.

    Rami 51 and basic rummy: the largest deal and the card drawn (the first
    player's extra card is that card: it skips the draw). Rami contrat: a
    hand grows by "Puis-je ?" without a fixed bound, so the limit is the deck
    less one card in each other player's hand.
    """
    if r.game == "contrat":
        return r.deck_size - (r.players - 1)
    return r.hand_size(0) + 1


def _hand_limit_text(r: Ruleset) -> str:
    if r.game == "contrat":
        return f"the {r.deck_size}-card deck less one card for each of the {r.players - 1} other players"
    dealt = r.hand_size(0)
    by_players = f" with {r.players} players" if r.deal == "auto" else ""
    return f"{dealt} dealt{by_players} and 1 drawn"


def check_cards(cards: CardsLike, r: Ruleset, hand: bool = True) -> list[Card]:
    """The cards of ``cards``, checked against the deck of ``r``.

    Parameters
    ----------
    cards : str or sequence
        Notation text, or a sequence of codes, ``Card`` or one-card strings.
    r : Ruleset
        The ruleset whose deck the cards come from.
    hand : bool
        The cards are one hand: no more of them than :func:`max_hand_cards`.

    Returns
    -------
    list of Card
        The cards, in the order given.

    Raises
    ------
    ValueError
        A card is not in the deck as often as given (more than ``decks``
        copies of a natural card, more jokers than the deck holds, any joker
        in a game without jokers), or the hand is too big; the message names
        the card or the count and the limit.
    """
    held = to_cards(cards)
    counts = Counter(held)
    jokers = counts.pop(JOKER, 0)
    if jokers:
        if r.n_jokers == 0:
            raise ValueError(f"{JOKER} (joker): this {r.game} ruleset plays without jokers (jokers = {r.jokers})")
        if jokers > r.n_jokers:
            raise ValueError(f"{jokers} jokers: the {r.game} deck holds {r.n_jokers} (jokers = {r.jokers!r}, "
                             f"{r.players} players)")
    for c, n in sorted(counts.items()):
        if n > r.decks:
            copies = "one copy" if r.decks == 1 else f"{r.decks} copies"
            raise ValueError(f"{n} copies of {c}: the {r.game} deck ({r.decks} pack{'s' if r.decks > 1 else ''}) "
                             f"holds {copies} of each card")
    if hand:
        most = max_hand_cards(r)
        if len(held) > most:
            raise ValueError(f"{len(held)} cards: a {r.game} hand holds at most {most} "
                             f"({_hand_limit_text(r)})")
    return held
