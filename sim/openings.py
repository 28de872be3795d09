"""The best opening of many hands at once: the vectorised ``best_opening``.

:func:`sim.rules.best_opening` answers for one hand, slowly and obviously;
:func:`best_openings` answers for millions with a compiled search made for
that question alone (``sim.engine.openings``: a few tenths of a microsecond
per 14-card hand), and gives the same total as the reference for every hand.

It is offered by the API (``sim.best_openings``), not by the rules
package: the reference is the ground truth the compiled search is checked
against, so it imports nothing from the engine. The engine's kernel is
loaded on the first call only, so ``import sim`` stays free of it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sim import cards as cardlib
from sim.cards import JOKER_CODE
from sim.rules.deck import max_hand_cards
from sim.rules.ruleset import Ruleset, as_ruleset

__all__ = ["best_openings"]


def _as_code_rows(hands: np.ndarray | Sequence[str]) -> np.ndarray:
    """Hands as an int64 ``(n, k)`` array of card codes padded with -1."""
    if isinstance(hands, str):
        raise TypeError("hands must be a list of hands or an array of card codes, not one string")
    if isinstance(hands, np.ndarray):
        rows = hands
    else:
        hands = list(hands)
        if hands and all(isinstance(h, str) for h in hands):
            parsed = [cardlib.parse(h) for h in hands]
            rows = np.full((len(parsed), max((len(p) for p in parsed), default=0)), -1, dtype=np.int64)
            for i, hand in enumerate(parsed):
                rows[i, : len(hand)] = [int(c) for c in hand]
        else:
            rows = np.asarray(hands)
    if rows.ndim != 2 or not np.issubdtype(rows.dtype, np.integer):
        raise ValueError(f"hands must be a 2-D array of whole card codes (one row per hand), got shape {rows.shape} "
                         f"of {rows.dtype}")
    bad = (rows < -1) | (rows > JOKER_CODE)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(f"hand {i} holds card code {rows[i, j]}: codes are 0 .. {JOKER_CODE} (52 the joker), "
                         "-1 pads a row")
    return np.ascontiguousarray(rows, dtype=np.int64)


def best_openings(hands: np.ndarray | Sequence[str], ruleset: Ruleset | str = "rami51") -> np.ndarray:
    """The best opening total of every hand (0 when a hand holds no qualifying meld).

    Parameters
    ----------
    hands : array of int, shape (n, k), or sequence of str
        One hand per row as card codes (``sim.cards``: 0 .. 51 naturals, 52
        the joker), rows shorter than ``k`` padded with -1; or one notation
        string per hand, e.g. ``["K♣ K♦ K♥ 9♠ 10♠ J♠ 2♦", ...]``.
    ruleset : Ruleset or str
        Decides ``min_run``, ``ace_high`` and ``open_needs_natural_run``, and
        the deck the hands must come from.

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
        What :func:`sim.rules.best_opening` gives for each hand.

    Raises
    ------
    ValueError
        A code outside -1 .. 52, a hand holding more copies of a card or
        more jokers than the ruleset's deck holds, or more cards than a hand
        can hold (the row is named).

    Examples
    --------
    >>> best_openings(["K♣ K♦ K♥ 9♠ 10♠ J♠ 2♦", "Q♦ K♦ A♦", "2♣ 7♥"], "rami51").tolist()
    [59, 31, 0]
    """
    # The compiled search lives in the engine (sim/engine/openings.py); loaded on first use only.
    import sim.engine.openings as kernel

    r = as_ruleset(ruleset)
    rows = _as_code_rows(hands)
    # The same limit as the reference's (docs/rules.md item 33).
    most = max_hand_cards(r)
    sizes = (rows >= 0).sum(axis=1)
    if sizes.size and sizes.max() > most:
        i = int(np.argmax(sizes > most))
        raise ValueError(f"hand {i} holds {sizes[i]} cards: a {r.game} hand holds at most {most}")
    out, bad = kernel.best_openings(rows, r.decks, r.n_jokers, r.min_run, r.ace_high, r.open_needs_natural_run)
    if bad >= 0:
        raise ValueError(
            f"hand {bad} ({cardlib.format(int(c) for c in rows[bad] if c >= 0)}) holds more copies of a card than "
            f"the deck of {r.game} has ({r.decks} of each card, {r.n_jokers} jokers)"
        )
    return out
