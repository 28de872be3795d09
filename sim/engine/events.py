"""The events a traced game records, one int32 row each (``docs/trace.md``; :mod:`sim.trace` reads them).

Column 0 is the event's type (``EV_*``), column 1 the round, the rest its
operands. Recording writes only when ``g[G_TRACE]`` is set, and notes an
overflow in ``g[G_OVERFLOW]`` instead of writing past the array.
"""

from __future__ import annotations

import numpy as np

from sim.engine.jit import kernel
from sim.engine.bits import JOKER, bit, lowest
from sim.engine.state import G_NEV, G_OVERFLOW, G_PILE, G_ROUND, G_STOCK, G_TRACE

# Event rows (12 int32 columns; column 0 the type, column 1 the round).
EV_DEAL, EV_DRAW, EV_RESTOCK, EV_OPEN, EV_MELD, EV_ADD, EV_RECOVER, EV_DISCARD = 1, 2, 3, 4, 5, 6, 7, 8
EV_CARD, EV_OUT, EV_BLOCKED, EV_ROUND_END, EV_SEAT, EV_GAME_END, EV_MAY_I = 9, 10, 11, 12, 13, 14, 15
N_EV = 12
WHERE_STOCK, WHERE_PILE = 10, 11


@kernel
def record_event(ev, g, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11):
    if not g[G_TRACE]:
        return
    i = g[G_NEV]
    if i >= ev.shape[0]:
        g[G_OVERFLOW] = 1
        return
    ev[i, 0] = a0
    ev[i, 1] = a1
    ev[i, 2] = a2
    ev[i, 3] = a3
    ev[i, 4] = a4
    ev[i, 5] = a5
    ev[i, 6] = a6
    ev[i, 7] = a7
    ev[i, 8] = a8
    ev[i, 9] = a9
    ev[i, 10] = a10
    ev[i, 11] = a11
    g[G_NEV] = i + 1


@kernel
def card_event(ev, g, where, code):
    record_event(ev, g, EV_CARD, g[G_ROUND], where, code, 0, 0, 0, 0, 0, 0, 0, 0)


@kernel
def trace_places(ev, g, stock, pile):
    """Trace the stock (top first) and the pile (bottom first)."""
    if not g[G_TRACE]:
        return
    for i in range(g[G_STOCK] - 1, -1, -1):
        card_event(ev, g, WHERE_STOCK, stock[i])
    for i in range(g[G_PILE]):
        card_event(ev, g, WHERE_PILE, pile[i])


@kernel
def trace_hand(ev, g, seat, lo, hi, jk):
    if not g[G_TRACE]:
        return
    x = lo
    while x:
        c = lowest(x)
        card_event(ev, g, seat, c)
        if hi & bit(c):
            card_event(ev, g, seat, c)
        x &= x - np.uint64(1)
    for _ in range(jk):
        card_event(ev, g, seat, JOKER)
