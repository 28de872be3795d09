"""Scoring: the points of cards left in hand and of a whole round.

docs/rules.md sections 5 (Rami 51), 6 (contrat) and 7 (basic rummy).
"""

from __future__ import annotations

from collections.abc import Sequence

from sim.cards import CardsLike, to_cards
from sim.rules.deck import check_cards
from sim.rules.ruleset import Ruleset, as_ruleset

__all__ = ["card_penalty", "hand_penalty", "round_scores"]


def card_penalty(code: int, ruleset: Ruleset | str) -> int:
    """Points of one card left in hand: 2-10 face, J Q K 10, ace and joker per ruleset."""
    r = as_ruleset(ruleset)
    (c,) = to_cards([code])
    if c.is_joker:
        return r.joker_penalty
    if c.rank == 1:
        return r.ace_penalty
    return min(c.rank, 10)


def hand_penalty(hand: CardsLike, ruleset: Ruleset | str, opened: bool = True) -> int:
    """Points of the cards left in ``hand`` at the end of a round.

    A player who has not opened scores ``unopened_penalty`` (100) whatever the
    cards, unless that knob is ``"count_cards"``. Rami sec and blocked rounds
    are round-level rules: see :func:`round_scores`.

    >>> hand_penalty("7♣ K♥ ★", "rami51")
    37
    >>> hand_penalty("A♣ ★ K♦ 4♥", "contrat")
    44
    """
    r = as_ruleset(ruleset)
    if not opened and r.unopened_penalty != "count_cards":
        return int(r.unopened_penalty)
    return sum(card_penalty(c, r) for c in check_cards(hand, r))


def round_scores(
    hands: Sequence[CardsLike],
    opened: Sequence[bool],
    ruleset: Ruleset | str,
    winner: int | None,
    rami_sec: bool = False,
    blocked: bool = False,
) -> list[int]:
    """Points each seat scores for one round.

    Parameters
    ----------
    hands : sequence of hands
        The cards each seat holds when the round ends (the winner's is empty).
    opened : sequence of bool
        Whether each seat had opened (laid its first melds or its contract).
    winner : int or None
        The seat that went out; ``None`` for a blocked round.
    rami_sec : bool
        The winner opened and went out in one turn, under the ruleset's
        definition (``double``: always; ``flat_200``: no opponent had opened).
        For basic rummy this is the "rami" that doubles the winner's gain.
    blocked : bool
        The round stopped without a winner (stock exhausted, or turn cap).

    Returns
    -------
    list of int
        Rami 51 and contrat: penalty points per seat (lower is better). Basic
        rummy: the winner's gain at its seat, 0 elsewhere (higher is better).
    """
    r = as_ruleset(ruleset)
    n = len(hands)
    if blocked or winner is None:
        if r.blocked_scoring == "nothing":
            return [0] * n
        return [hand_penalty(h, r, opened=True) for h in hands]
    if r.game == "basic":
        gain = sum(hand_penalty(h, r) for seat, h in enumerate(hands) if seat != winner)
        if rami_sec and r.rami_sec == "double":
            gain *= 2
        return [gain if seat == winner else 0 for seat in range(n)]
    scores = []
    for seat, hand in enumerate(hands):
        if seat == winner:
            scores.append(0)
            continue
        points = hand_penalty(hand, r, opened=opened[seat])
        if rami_sec and r.rami_sec == "double":
            points *= 2
        elif rami_sec and r.rami_sec == "flat_200":
            points = 200
        scores.append(points)
    return scores
