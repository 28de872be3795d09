"""Facts of the games that several rooms of the lab state: defined here once.

Which way the points go (a penalty to keep low, or a gain to make high),
why a round can stop without a winner and who plays first in each round
are facts of the rules; the
summary, the result columns, the trace, the replay checker and the
experiments read them from here instead of restating them.
"""

from __future__ import annotations

__all__ = ["BLOCKED_REASONS", "POINTS_MEANING", "better_points", "blocked_reasons", "first_player"]

_BETTER = {"rami51": "lower", "contrat": "lower", "basic": "higher"}

POINTS_MEANING = {
    "lower": "points are penalties: lower is better",
    "higher": "points are the round winner's gain (the others score 0): higher is better",
}
"""What the ``points`` of a round mean, by the way they go (:func:`better_points`)."""

BLOCKED_REASONS = ("none", "stock", "turn_cap", "cycle", "table_closed")
"""Why a round stopped, in the order of their codes (0 .. 4, as the engine writes them): ``none``
is a round someone won; ``stock`` (the stock ran out with no card to turn over), ``turn_cap``
(the ruleset's turn cap), ``cycle`` (deterministic players back at a position seen at an earlier
turning of the pile) and ``table_closed`` (Rami contrat: all laid, the table takes no card) are
rounds without a winner."""


def better_points(game: str) -> str:
    """``"lower"`` when a round's points are a penalty (Rami 51, Rami contrat), ``"higher"`` when
    they are the winner's gain (basic rummy)."""
    try:
        return _BETTER[game]
    except KeyError:
        raise ValueError(f"unknown game {game!r}; the games are: {', '.join(_BETTER)}") from None


def first_player(round_index: int, players: int) -> int:
    """The seat that plays first in round ``round_index`` (from 0): seat 0 in the first round, then the next
    seat each round (docs/rules.md item 23; item 31 for Rami contrat's deals). The engine deals the same way,
    which the replay checker holds it to."""
    return round_index % players


def blocked_reasons(game: str) -> tuple[str, ...]:
    """The reasons a round of ``game`` can stop without a winner (``table_closed`` is Rami contrat's alone)."""
    better_points(game)  # refuses an unknown game
    return tuple(r for r in BLOCKED_REASONS[1:] if r != "table_closed" or game == "contrat")
