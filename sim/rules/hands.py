"""What a hand can lay: best opening, most cards melded, contracts.

Each question is an exact search over collections of disjoint melds taken
from the hand (:func:`sim.rules.melds.candidate_melds`). The search decides
the hand's lowest natural card first: either it stays in hand, or it goes into
a meld whose lowest natural card it is. Every collection of disjoint melds is
reached exactly that way, so the answers are exact; results are memoised on
the multiset of cards left, which keeps hands of 15 cards with 4 jokers quick.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from functools import lru_cache

from sim.cards import JOKER, CardsLike
from sim.rules.deck import check_cards
from sim.rules.melds import MeldReading, checked_candidate_melds
from sim.rules.ruleset import WHOLE_HAND_DEAL, Ruleset, as_ruleset

__all__ = ["best_opening", "max_melded_cards", "meets_contract", "best_collection"]

_IMPOSSIBLE = float("-inf")


def _remove(remaining: tuple[int, ...], meld: tuple[int, ...]) -> tuple[int, ...] | None:
    """``remaining`` less the cards of ``meld`` (both sorted), or None if it lacks one."""
    left = list(remaining)
    for c in meld:
        try:
            left.remove(c)
        except ValueError:
            return None
    return tuple(left)


def best_collection(
    hand: CardsLike,
    ruleset: Ruleset | str,
    value: Callable[[MeldReading, tuple[int, ...]], float],
    need_natural_run: bool = False,
) -> tuple[float, list[tuple[int, ...]]]:
    """The best value of disjoint melds from ``hand`` and the melds that reach it.

    Parameters
    ----------
    value : callable
        ``value(reading, codes)`` of one meld; a collection is worth the sum.
    need_natural_run : bool
        Only collections holding at least one run without joker count.

    Returns
    -------
    (float, list of tuple of int)
        The best total (``-inf`` if no collection qualifies, ``0`` for the
        empty collection when allowed) and the melds, as sorted card codes.
    """
    r = as_ruleset(ruleset)
    held = check_cards(hand, r)
    cards = tuple(sorted(int(c) for c in held))
    by_lowest: dict[int, list[tuple[tuple[int, ...], MeldReading]]] = defaultdict(list)
    for codes, reading in checked_candidate_melds(held, r).items():
        by_lowest[codes[0]].append((codes, reading))

    @lru_cache(maxsize=None)
    def solve(remaining: tuple[int, ...], need_natural: bool) -> tuple[float, tuple]:
        if not remaining or remaining[0] == int(JOKER):
            # Only jokers are left, and no meld is made of jokers alone.
            return (_IMPOSSIBLE, ()) if need_natural else (0.0, ())
        lowest = remaining[0]
        best = solve(remaining[1:], need_natural)
        for codes, reading in by_lowest.get(lowest, ()):
            left = _remove(remaining, codes)
            if left is None:
                continue
            rest, melds = solve(left, need_natural and not reading.is_natural_run)
            total = rest + value(reading, codes)
            if total > best[0]:
                best = (total, (codes, *melds))
        return best

    total, melds = solve(cards, need_natural_run)
    return total, list(melds)


def best_opening(hand: CardsLike, ruleset: Ruleset | str) -> int:
    """Highest opening total of disjoint valid melds from ``hand`` (docs/rules.md section 4).

    Honours ``open_needs_natural_run``: then only collections holding a run
    without joker count. 0 when the hand holds no qualifying meld.

    >>> best_opening("K♣ K♦ K♥ 9♠ 10♠ J♠ 2♦", "rami51")
    59
    """
    r = as_ruleset(ruleset)
    total, _ = best_collection(
        hand, r, lambda reading, codes: reading.points, r.open_needs_natural_run
    )
    return max(0, int(total)) if total != _IMPOSSIBLE else 0


def max_melded_cards(hand: CardsLike, ruleset: Ruleset | str) -> int:
    """Largest number of the hand's cards that disjoint valid melds can hold."""
    total, _ = best_collection(hand, ruleset, lambda reading, codes: len(codes))
    return int(total)


def meets_contract(hand: CardsLike, deal: int, ruleset: Ruleset | str = "contrat") -> bool:
    """Whether ``hand`` holds disjoint melds making exactly the contract of ``deal``.

    Exactly the contract's number of sets and runs (docs/rules.md section 6); the
    melds may be longer than the minimum. Deal 7 is laid only to go out, so
    there the three runs must hold the whole hand (the decision is in
    ``docs/rules.md``).

    >>> meets_contract("7♣ 7♥ 7♦ 5♠ 6♠ 7♠ 8♠", 2)
    True
    """
    r = as_ruleset(ruleset)
    sets, runs = r.contract(deal)
    held = check_cards(hand, r)
    cards = tuple(sorted(int(c) for c in held))
    melds = checked_candidate_melds(held, r)
    by_lowest: dict[int, list[tuple[tuple[int, ...], str]]] = defaultdict(list)
    for codes, reading in melds.items():
        by_lowest[codes[0]].append((codes, reading.kind))
    whole_hand = deal == WHOLE_HAND_DEAL

    @lru_cache(maxsize=None)
    def can(remaining: tuple[int, ...], sets_left: int, runs_left: int) -> bool:
        if sets_left == 0 and runs_left == 0:
            return not (whole_hand and remaining)
        if not remaining or remaining[0] == int(JOKER):
            return False
        lowest = remaining[0]
        if not whole_hand and can(remaining[1:], sets_left, runs_left):
            return True
        for codes, kind in by_lowest.get(lowest, ()):
            if (kind == "set" and sets_left == 0) or (kind == "run" and runs_left == 0):
                continue
            left = _remove(remaining, codes)
            if left is None:
                continue
            if can(left, sets_left - (kind == "set"), runs_left - (kind == "run")):
                return True
        return False

    return can(cards, sets, runs)
