"""What one seat sees when it decides, read from the compiled arrays the strategies read.

An :class:`Observation` holds the seat's hand as its two words and the
``view`` and ``pub`` arrays of :mod:`sim.engine.layout`, the very ones the
compiled policies are given, and reads them in the game's words: the hand,
whether the seat has opened, the threshold, the stock's size, the cards on
the table and in the pile, what each seat took from the pile. It is what a
strategy written in Python is handed at each decision
(:class:`strategies.user.View` is this type) and what
:meth:`sim.position.Position.observe` returns, so the two can never say
different things of one position.

The arrays hold nothing but the seat's own hand and public facts (the
information rule holds by construction): never another hand nor the
stock. The facts a position knows beyond them, such as the pile's order,
the table's melds or every hand's size, are the position's to give
(:meth:`sim.position.Position.pile`, :meth:`~sim.position.Position.table`,
:meth:`~sim.position.Position.hand_sizes`).

Each reading is made on first use, from the arrays, and kept: a decision
that reads only the hand pays for no other. The counts it gives are copies
of the arrays' rows, so a strategy may change them without changing what
its base strategy reads of the same decision.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from sim.cards import Card
from sim.engine.hand import hand_codes
from sim.engine.layout import (
    PUB_OPENED,
    PUB_PILE,
    PUB_TABLE,
    PUB_TOOK,
    V_ACCEPT,
    V_ACCEPT_JOKER,
    V_JOKERS,
    V_NEXT,
    V_OPENED,
    V_SEAT,
    V_STOCK,
    V_THRESHOLD,
)
from sim.engine.state import MAX_SEATS

__all__ = ["Observation"]


@dataclass(frozen=True, eq=False)
class Observation:
    """What one seat sees when it decides: its own hand and the public counts, never another hand nor the stock.

    Made of the engine's arrays (copies, so an observation kept stays what
    the seat saw); everything else is read from them on first use.

    Attributes
    ----------
    lo, hi : int
        The seat's hand of naturals as two 52-bit words (the second copy of
        a card in ``hi``), as :func:`sim.engine.hand.hand_words` makes them.
    view : numpy.ndarray of int64, shape (N_VIEW,)
        The seat's scalars (``V_*`` of :mod:`sim.engine.layout`).
    pub : numpy.ndarray of int64, shape (N_PUB, 53)
        The public counts (``PUB_*`` of :mod:`sim.engine.layout`).

    Read from them:

    seat, next_seat : int
        This seat and the seat that plays after it.
    hand : list of Card
        The seat's own cards, ascending, the jokers last.
    opened : bool
        The seat has opened (laid its first melds or its contract).
    threshold : int
        Points an opening must reach now (Rami 51).
    stock : int
        Cards left in the stock.
    table, pile : numpy.ndarray of int, shape (53,)
        How many copies of each card code lie on the table and in the pile.
    table_takes : list of Card
        The natural cards that could be added to a table meld now.
    table_takes_joker : bool
        A joker could be added to a table meld now.
    took : numpy.ndarray of int, shape (6, 53)
        Cards each seat took from the pile this round.
    opened_seats : numpy.ndarray of int, shape (6,)
        1 for each seat that has opened.
    """

    lo: int
    hi: int
    view: np.ndarray
    pub: np.ndarray

    @classmethod
    def of(cls, lo: int, hi: int, view: np.ndarray, pub: np.ndarray) -> Observation:
        """An observation of the engine's arrays as they are now (copied: the engine writes on into its own)."""
        return cls(int(lo), int(hi), view.copy(), pub.copy())

    @property
    def seat(self) -> int:
        return int(self.view[V_SEAT])

    @property
    def next_seat(self) -> int:
        return int(self.view[V_NEXT])

    @cached_property
    def hand(self) -> list[Card]:
        return [Card(c) for c in hand_codes(self.lo, self.hi, self.view[V_JOKERS])]

    @property
    def opened(self) -> bool:
        return bool(self.view[V_OPENED])

    @property
    def threshold(self) -> int:
        return int(self.view[V_THRESHOLD])

    @property
    def stock(self) -> int:
        return int(self.view[V_STOCK])

    @cached_property
    def table(self) -> np.ndarray:
        return self.pub[PUB_TABLE].copy()

    @cached_property
    def pile(self) -> np.ndarray:
        return self.pub[PUB_PILE].copy()

    @cached_property
    def table_takes(self) -> list[Card]:
        return [Card(c) for c in hand_codes(self.view[V_ACCEPT])]

    @property
    def table_takes_joker(self) -> bool:
        return bool(self.view[V_ACCEPT_JOKER])

    @cached_property
    def took(self) -> np.ndarray:
        return self.pub[PUB_TOOK:PUB_TOOK + MAX_SEATS].copy()

    @cached_property
    def opened_seats(self) -> np.ndarray:
        return self.pub[PUB_OPENED, :MAX_SEATS].copy()
