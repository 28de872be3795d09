"""The state of a round in the kernels: one named tuple of arrays, and its columns.

:class:`RoundState` holds every array a round is played on (the hands, the
table, the stock, the pile, the public counts, the observation, and the
scratch space the turn fills). The round scalars are a separate ``int64``
array ``g`` indexed by ``G_*``, and each seat's facts a row of
``RoundState.seats`` indexed by ``S_*``. Kernels may read the fields by name
or unpack the tuple in field order.

============  =================  ============================================
field         shape, dtype       holds
============  =================  ============================================
h_lo, h_hi    (MAX_SEATS,) u64   each hand's naturals: one bit per code, and
                                 a second bit for a second copy
h_jk, h_n     (MAX_SEATS,) i64   each hand's jokers and card count
seats         (MAX_SEATS, N_S)   per seat facts, ``S_*`` columns
table, owner  (MAX_MELDS, ...)   the melds laid (``hand_melds.I_*`` columns) and
                                 the seat that laid each
stock, pile   (MAX_CARDS,) i64   card codes; the top is the last used slot
                                 (``g[G_STOCK] - 1``, ``g[G_PILE] - 1``)
c_mask ...    scratch            the candidate melds of the hand, the legal
                                 laying actions and their facts
                                 (:mod:`sim.engine.layout`), recoveries, the
                                 opening's melds
flips         (MAX_FLIPS,) u64   position fingerprints at turnings of the pile
pub           (N_PUB, 53) i64    public card counts (:mod:`sim.engine.layout`)
obs           (N_VIEW,) i64      the scalars of the seat's observation (``view``)
d_legal ...   (54,)              the legal discards, their penalty and whether
                                 each fits a meld
takes         (MAX_MELDS, 2) u64 what each table meld takes: the naturals it
                                 accepts (bit 52: a joker), and the naturals
                                 that take its joker back (``table_changed``)
============  =================  ============================================
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim.engine.jit import kernel

# The sizes of the round state's arrays.
MAX_SEATS = 6
MAX_MELDS = 48
MAX_ACTIONS = 8192
MAX_CARDS = 128
MAX_FLIPS = 64

# Seat columns.
S_OPENED, S_OPEN_TURN, S_OPEN_POINTS, S_FIRST_LAY, S_JOKERS_LAID, S_TURNS, S_TAKES, S_NO_OPEN, S_MAY_I = range(9)
N_S = 9
# Round scalars.
G_STOCK, G_PILE, G_MELDS, G_TURN, G_RESTOCKS, G_LAST_OPEN, G_NEV, G_ROUND, G_TRACE, G_OVERFLOW, G_NCAND, G_FIRST, G_ACCEPT, G_ACCEPT_JOKER, G_DETERMINISTIC, G_NFLIPS = range(16)
# The naturals that take back some table joker (a 52-bit mask), kept with
# G_ACCEPT after every laying: the turn asks it of every hand.
G_RECOVERING = 16
N_G = 17


class RoundState(NamedTuple):
    """Every array of a round (see the module's table); made by :func:`sim.engine.round.make_buffers`."""

    h_lo: np.ndarray
    h_hi: np.ndarray
    h_jk: np.ndarray
    h_n: np.ndarray
    seats: np.ndarray
    table: np.ndarray
    owner: np.ndarray
    stock: np.ndarray
    pile: np.ndarray
    c_mask: np.ndarray
    c_info: np.ndarray
    s_mask: np.ndarray
    s_info: np.ndarray
    act: np.ndarray
    facts: np.ndarray
    r_mask: np.ndarray
    r_info: np.ndarray
    open_sel: np.ndarray
    open_n: np.ndarray
    flips: np.ndarray
    pub: np.ndarray
    obs: np.ndarray
    d_legal: np.ndarray
    d_penalty: np.ndarray
    d_fits: np.ndarray
    takes: np.ndarray

    def copy(self) -> "RoundState":
        """A deep copy (every array copied)."""
        return RoundState(*(a.copy() for a in self))


@kernel
def threshold(g, rules):
    """The points an opening needs now (it rises after each opening where the rules say so)."""
    t = rules.open_threshold
    if rules.open_threshold_rises and g[G_LAST_OPEN] > 0 and g[G_LAST_OPEN] + 1 > t:
        t = g[G_LAST_OPEN] + 1
    return t
