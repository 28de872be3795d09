"""The engine's action and observation layouts, and the one function that fills an observation.

The compiled policies (:mod:`sim.engine.policies`), policies written in
Python (:mod:`strategies.user`), advice and rollouts read these arrays; the
engine defines them here.

==================  =====================  ======================================
array               index                  holds
==================  =====================  ======================================
``act[i, col]``     ``A_TYPE``             the laying action's type, ``ACT_*``:
                                           stop, open, meld, add, recover
                    ``A_P1`` .. ``A_P5``   its operands: open: ``OPEN_*`` (which
                                           opening); meld: the candidate; add:
                                           card, meld, end; recover: card, meld,
                                           relay (0 new meld, 1 add), meld, end
``facts[i, col]``   ``F_CARDS``            cards the action lays
                    ``F_POINTS``           opening points laid
                    ``F_JOKERS``           jokers laid
                    ``F_LEFT``             cards left in hand after it
``pub[row, code]``  ``PUB_TABLE``          copies of each code on the table
                                           (column 52: jokers on the table)
                    ``PUB_PILE``           copies of each code in the pile
                    ``PUB_TOOK + seat``    copies each seat took from the pile
                    ``PUB_OPENED``         ``pub[PUB_OPENED, seat]``: has opened
``view[col]``       ``V_SEAT``, ``V_NEXT`` the observing seat and the next one
                    ``V_HAND``             its hand size
                    ``V_JOKERS``           jokers in its hand
                    ``V_THRESHOLD``        points an opening needs now
                    ``V_STOCK``            cards in the stock
                    ``V_DECKS``,           the ruleset's decks, shortest run,
                    ``V_MIN_RUN``,         and whether the ace ranks high
                    ``V_ACE_HIGH``
                    ``V_OPENED``           the seat has opened
                    ``V_ACCEPT``           the naturals the table takes (52-bit
                                           mask)
                    ``V_ACCEPT_JOKER``     whether the table takes a joker
==================  =====================  ======================================

A seat's observation is its own hand (``h_lo``, ``h_hi``), ``pub`` and
``view``: never another hand nor the stock.
"""

from __future__ import annotations

from sim.engine.jit import kernel
from sim.engine.state import G_ACCEPT, G_ACCEPT_JOKER, G_STOCK, S_OPENED, threshold

# Action rows, filled by the engine: act[i, A_TYPE], ...
A_TYPE, A_P1, A_P2, A_P3, A_P4, A_P5 = 0, 1, 2, 3, 4, 5
N_A = 6
ACT_STOP, ACT_OPEN, ACT_MELD, ACT_ADD, ACT_RECOVER = 0, 1, 2, 3, 4
OPEN_BEST, OPEN_ALL, OPEN_NO_JOKER = 0, 1, 2
# Per-action facts the engine adds: cards laid, opening points, jokers laid,
# cards left in hand after the action.
F_CARDS, F_POINTS, F_JOKERS, F_LEFT = 0, 1, 2, 3
N_FACTS = 4

# Rows of the public counts ``pub[row, code]``.
PUB_TABLE, PUB_PILE = 0, 1
PUB_TOOK = 2  # rows 2 .. 7: cards each seat took from the pile
PUB_OPENED = 8  # pub[8, seat]: the seat has opened
N_PUB = 9

# Scalars of the observation ``view``.
V_SEAT, V_NEXT, V_HAND, V_THRESHOLD, V_STOCK, V_DECKS, V_MIN_RUN, V_ACE_HIGH, V_OPENED, V_JOKERS = range(10)
V_ACCEPT, V_ACCEPT_JOKER = 10, 11  # the natural cards (a 52-bit mask) and whether a joker the table takes
N_VIEW = 12


@kernel(forceinline=True)
def fill_view(rules, g, seats, h_n, h_jk, seat, view):
    """Write what ``seat`` sees now into ``view`` (its ``pub`` is kept up to date by the engine)."""
    view[V_SEAT] = seat
    # (no division: filled at every decision)
    view[V_NEXT] = seat + 1 if seat + 1 < rules.players else 0
    view[V_HAND] = h_n[seat]
    view[V_JOKERS] = h_jk[seat]
    view[V_THRESHOLD] = threshold(g, rules)
    view[V_STOCK] = g[G_STOCK]
    view[V_DECKS] = rules.decks
    view[V_MIN_RUN] = rules.min_run
    view[V_ACE_HIGH] = rules.ace_high
    view[V_OPENED] = seats[seat, S_OPENED]
    view[V_ACCEPT] = g[G_ACCEPT]
    view[V_ACCEPT_JOKER] = g[G_ACCEPT_JOKER]
