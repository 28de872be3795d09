"""Melds, read the slow and obvious way: the rules reference for the engine.

Glossary (docs/rules.md section 2):

meld
    Three or more cards laid together; a *run* or a *set*. French:
    combinaison.
run
    Cards of one suit with consecutive ranks, at least ``min_run`` of them.
    The ace sits before the 2 (*low*, worth 1 to an opening) or after the king
    (*high*, worth 11), never both and never between: K-A-2 is refused.
    French: suite, séquence.
natural run
    A run without joker: the *tierce franche* some tables require to open.
set
    Three or four cards of one rank, all suits different (two 7♥ never go in
    one set). French: brelan (3), carré (4).
joker
    Stands for one exact card, fixed when laid; at most ``jokers_per_meld``
    in a meld, which keeps at least two natural cards.
reading
    One way to understand a group of cards as a meld: its kind, the card each
    joker stands for, its cards in order. ``7♠ 8♠ ★`` has two readings as a
    run (the joker as 6♠ or as 9♠).
opening value
    What a laid meld adds toward the opening threshold (docs/rules.md section 4).

Everything here is written to be read, not to be fast: the compiled engine is
checked against it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from sim.cards import JOKER, Card, CardsLike, card
from sim.rules.deck import check_cards
from sim.rules.ruleset import Ruleset, as_ruleset

__all__ = [
    "MeldReading",
    "candidate_melds",
    "checked_candidate_melds",
    "classify_meld",
    "meld_points",
    "meld_readings",
    "rank_value",
]

ACE_HIGH_POSITION = 14
"""A run's ranks are positions 1 (ace low) .. 13 (king), 14 (ace high)."""


@dataclass(frozen=True)
class MeldReading:
    """One reading of a group of cards as a meld.

    Attributes
    ----------
    kind : str
        ``"run"`` or ``"set"``.
    stands_for : tuple of Card
        The card each joker stands for, in the order the jokers were given.
    order : tuple of Card
        The meld's cards as they lie on the table, jokers replaced by the cards
        they stand for: a run from its lowest position up, a set by suit.
    positions : tuple of int
        For a run, the rank position of each card of ``order`` (1 ace low ..
        14 ace high); for a set, the rank repeated.
    points : int
        The opening value of this reading (docs/rules.md section 4).
    """

    kind: str
    stands_for: tuple[Card, ...]
    order: tuple[Card, ...]
    positions: tuple[int, ...]
    points: int

    def text(self, ascii: bool = False) -> str:
        """The meld in notation, each joker shown as ``★`` at its place."""
        jokers = JOKER.text(ascii)
        return " ".join(jokers if c in self.stands_for else c.text(ascii) for c in self.order)

    @property
    def is_natural_run(self) -> bool:
        """A run without joker: a tierce franche."""
        return self.kind == "run" and not self.stands_for


def rank_value(position: int) -> int:
    """Opening value of a card at rank position ``position`` (1 .. 14).

    Ace low 1, 2 to 10 face value, J Q K 10, ace high 11.
    """
    if position == 1:
        return 1
    if position == ACE_HIGH_POSITION:
        return 11
    return min(position, 10)


def _set_value(rank: int) -> int:
    # An ace in a set counts as high (docs/rules.md section 4).
    return 11 if rank == 1 else min(rank, 10)


def _run_readings(naturals: list[Card], jokers: int, r: Ruleset) -> list[MeldReading]:
    size = len(naturals) + jokers
    # 13 positions at most: the ace is low or high, never both (K-A-2 and
    # A..K-A are refused).
    if size < r.min_run or size > 13 or len({c.suit for c in naturals}) != 1:
        return []
    suit = naturals[0].suit
    readings = []
    lowest_start, highest_start = 1, (ACE_HIGH_POSITION if r.ace_high else 13) - size + 1
    for start in range(lowest_start, highest_start + 1):
        window = range(start, start + size)
        used: set[int] = set()
        fits = True
        for c in naturals:
            # An ace takes the low or the high end, whichever the window holds.
            pos = c.rank
            if c.rank == 1 and ACE_HIGH_POSITION in window:
                pos = ACE_HIGH_POSITION
            if pos not in window or pos in used:
                fits = False
                break
            used.add(pos)
        if not fits:
            continue
        missing = [p for p in window if p not in used]
        if len(missing) != jokers:
            continue
        stands_for = tuple(card(1 if p == ACE_HIGH_POSITION else p, suit) for p in missing)
        order = tuple(card(1 if p == ACE_HIGH_POSITION else p, suit) for p in window)
        readings.append(
            MeldReading(
                kind="run",
                stands_for=stands_for,
                order=order,
                positions=tuple(window),
                points=sum(rank_value(p) for p in window),
            )
        )
    return readings


def _set_readings(naturals: list[Card], jokers: int) -> list[MeldReading]:
    size = len(naturals) + jokers
    ranks = {c.rank for c in naturals}
    suits = [c.suit for c in naturals]
    if not 3 <= size <= 4 or len(ranks) != 1 or len(set(suits)) != len(suits):
        return []
    rank = naturals[0].rank
    missing_suits = [s for s in range(4) if s not in suits]
    readings = []
    # With one joker, each missing suit is a reading; the opening value is the same.
    choices = [()] if jokers == 0 else [(s,) for s in missing_suits]
    for joker_suits in choices:
        stands_for = tuple(card(rank, s) for s in joker_suits)
        order = tuple(sorted([*naturals, *stands_for], key=lambda c: c.suit))
        readings.append(
            MeldReading(
                kind="set",
                stands_for=stands_for,
                order=order,
                positions=(rank,) * size,
                points=_set_value(rank) * size,
            )
        )
    return readings


def meld_readings(cards: CardsLike, ruleset: Ruleset | str) -> list[MeldReading]:
    """Every reading of ``cards`` as one meld under ``ruleset``; empty if none.

    Parameters
    ----------
    cards : str or sequence of int
        The meld's cards, in any order, jokers included.
    ruleset : Ruleset or str
        A ruleset or a preset name.
    """
    r = as_ruleset(ruleset)
    return _meld_readings(check_cards(cards, r, hand=False), r)


def _meld_readings(cards: list[Card], r: Ruleset) -> list[MeldReading]:
    naturals = [c for c in cards if not c.is_joker]
    jokers = len(cards) - len(naturals)
    if len(cards) < 3 or jokers > r.jokers_per_meld or len(naturals) < 2:
        return []
    return _run_readings(naturals, jokers, r) + _set_readings(naturals, jokers)


def classify_meld(cards: CardsLike, ruleset: Ruleset | str) -> MeldReading | None:
    """Whether ``cards`` make a valid meld, and how.

    Returns
    -------
    MeldReading or None
        ``None`` if the cards are no meld; else the reading worth most to an
        opening (its ``kind`` is ``"run"`` or ``"set"``, its ``stands_for``
        the card each joker stands for). :func:`meld_readings` gives them all.

    Examples
    --------
    >>> classify_meld("7♣ ★ 9♣", "rami51").stands_for
    (8♣,)
    >>> classify_meld("K♣ A♣ 2♣", "rami51") is None
    True
    """
    r = as_ruleset(ruleset)
    return _best(_meld_readings(check_cards(cards, r, hand=False), r))


def _best(readings: list[MeldReading]) -> MeldReading | None:
    if not readings:
        return None
    return max(readings, key=lambda reading: reading.points)


def meld_points(cards: CardsLike, ruleset: Ruleset | str) -> int | None:
    """Opening value of one meld, an ambiguous joker placed where it is worth most.

    ``None`` if the cards are not a valid meld.

    >>> meld_points("Q♦ K♦ A♦", "rami51"), meld_points("A♥ 2♥ 3♥", "rami51")
    (31, 6)
    """
    best = classify_meld(cards, ruleset)
    return None if best is None else best.points


def candidate_melds(hand: CardsLike, ruleset: Ruleset | str) -> dict[tuple[int, ...], MeldReading]:
    """Every distinct meld that can be taken from ``hand``.

    ``hand`` may be any cards of the ruleset's deck, a whole pack included:
    only the deck's copies and jokers are checked, not a hand's size.

    Returns
    -------
    dict
        Key: the meld's card codes, sorted (a multiset drawn from the hand);
        value: its best reading (:func:`classify_meld`).

    The search tries every window of ranks for runs, with a joker in any
    position (even one whose natural card the hand holds, which frees that
    card for another meld), and every choice of suits for sets.
    """
    r = as_ruleset(ruleset)
    return checked_candidate_melds(check_cards(hand, r, hand=False), r)


def checked_candidate_melds(hand: list[Card], r: Ruleset) -> dict[tuple[int, ...], MeldReading]:
    """:func:`candidate_melds` of cards already checked against the deck (:func:`sim.rules.check_cards`).

    The hand searches of :mod:`sim.rules.hands` check their hand once and call
    this, rather than having every search check the cards again.
    """
    counts = Counter(hand)
    jokers = counts.pop(JOKER, 0)
    max_jokers = min(jokers, r.jokers_per_meld)
    found: dict[tuple[int, ...], MeldReading] = {}

    def consider(naturals: list[Card], n_jokers: int) -> None:
        key = tuple(sorted(int(c) for c in naturals)) + (int(JOKER),) * n_jokers
        if key in found:
            return
        best = _best(_meld_readings([Card(c) for c in key], r))
        if best is not None:
            found[key] = best

    # Runs: a window of positions in one suit, each position a natural the
    # hand holds or (at most jokers_per_meld of them) a joker.
    top = ACE_HIGH_POSITION if r.ace_high else 13
    for suit in range(4):
        for start in range(1, top + 1):
            for end in range(start + r.min_run - 1, min(top, start + 12) + 1):
                window = range(start, end + 1)
                cards_at = [card(1 if p == ACE_HIGH_POSITION else p, suit) for p in window]
                absent = [i for i, c in enumerate(cards_at) if counts[c] == 0]
                if len(absent) > max_jokers:
                    continue
                if absent:
                    consider([c for i, c in enumerate(cards_at) if i != absent[0]], 1)
                    continue
                consider(cards_at, 0)
                if max_jokers:
                    for i in range(len(cards_at)):
                        consider(cards_at[:i] + cards_at[i + 1 :], 1)

    # Sets: distinct suits of one rank, with or without a joker.
    for rank in range(1, 14):
        suits = [s for s in range(4) if counts[card(rank, s)] > 0]
        for mask in range(1, 16):
            chosen = [card(rank, s) for s in range(4) if mask >> s & 1]
            if any(c.suit not in suits for c in chosen):
                continue
            for n_jokers in range(0, max_jokers + 1):
                if 3 <= len(chosen) + n_jokers <= 4:
                    consider(chosen, n_jokers)
    return found
