"""Table melds in the kernels: which cards fit them, adding, joker recovery.

A table meld is one row of ``table`` with the candidate columns of
:mod:`sim.engine.hand_melds` (kind, suit or rank, start/end or suits, joker).
For a set, ``I_JPOS`` is the suit its joker stands for: the first suit the
set's naturals lack, recomputed whenever a natural joins it.
"""

from __future__ import annotations

import numpy as np

from sim.engine.params import RECOVER_UNAMBIGUOUS
from sim.engine.jit import kernel
from sim.engine.bits import JOKER, ZERO, code_at, rank_of, suit_of
from sim.engine.hand_melds import I_END, I_JOKER, I_JPOS, I_KEY, I_KIND, I_SIZE, I_START, KIND_RUN
from sim.engine.state import G_ACCEPT, G_ACCEPT_JOKER, G_MELDS, G_RECOVERING, S_OPENED

END_LOW, END_HIGH, END_SET = 0, 1, 2


@kernel
def first_missing_suit(suits):
    s = 0
    while suits & (1 << s):
        s += 1
    return s


@kernel(forceinline=True)
def ends_taking(table, m, code, ace_high):
    """The ends of meld ``m`` that take ``code`` (a natural or the joker), as the bits ``1 << END_*``.

    A run takes the card of its suit just below its lowest position or just
    above its highest (the ace high after the king where the rules say so),
    up to 13 cards; a set a natural of its rank in a suit it lacks, up to
    four; either takes the joker when it holds none. The listing of the
    additions asks this of every card the table takes against every meld:
    a meld of another suit (a run) or rank (a set) is passed over once its
    key is read.
    """
    kind = table[m, I_KIND]
    size = table[m, I_SIZE]
    if kind == KIND_RUN:
        if size >= 13:
            return 0
        start = table[m, I_START]
        high = table[m, I_END] + 1
        top = 14 if ace_high else 13
        if code == JOKER:
            if table[m, I_JOKER]:
                return 0
            return (1 << END_LOW if start > 1 else 0) | (1 << END_HIGH if high <= top else 0)
        if suit_of(code) != table[m, I_KEY]:
            return 0
        position = rank_of(code)
        ends = 0
        if start - 1 == position:
            ends |= 1 << END_LOW
        if high <= top and (high == position or (high == 14 and position == 1)):
            ends |= 1 << END_HIGH
        return ends
    if size >= 4:
        return 0
    if code == JOKER:
        return 0 if table[m, I_JOKER] else 1 << END_SET
    if rank_of(code) != table[m, I_KEY] or (table[m, I_START] & (1 << suit_of(code))):
        return 0
    return 1 << END_SET


@kernel
def accepts(table, first, n_melds, ace_high):
    """What melds ``first .. n_melds - 1`` of the table take: ``(mask of natural codes, whether a joker fits)``."""
    mask = np.uint64(0)
    joker = False
    # Melds at unsigned indices: the loop starts at an argument, which the
    # compiler cannot see is never negative, and numba tests a signed index
    # for counting from the end (sim/engine/jit.py).
    for i in range(first, n_melds):
        m = np.uint64(i)
        if table[m, I_KIND] == KIND_RUN:
            if table[m, I_SIZE] >= 13:
                continue
            suit = table[m, I_KEY]
            if table[m, I_START] > 1:
                mask |= np.uint64(1) << np.uint64(code_at(suit, table[m, I_START] - 1))
                joker = joker or table[m, I_JOKER] == 0
            if table[m, I_END] < (14 if ace_high else 13):
                mask |= np.uint64(1) << np.uint64(code_at(suit, table[m, I_END] + 1))
                joker = joker or table[m, I_JOKER] == 0
        elif table[m, I_SIZE] < 4:
            for suit in range(4):
                if not table[m, I_START] & (1 << suit):
                    mask |= np.uint64(1) << np.uint64(suit * 13 + table[m, I_KEY] - 1)
            joker = joker or table[m, I_JOKER] == 0
    return mask, joker


@kernel
def add_to_meld(table, m, code, end):
    """Add ``code`` to meld ``m`` at ``end``; returns the card a joker stands for (-1 for a natural)."""
    size = table[m, I_SIZE]
    table[m, I_SIZE] = size + 1
    if table[m, I_KIND] == KIND_RUN:
        if end == END_LOW:
            table[m, I_START] -= 1
            pos = table[m, I_START]
        else:
            table[m, I_END] += 1
            pos = table[m, I_END]
        if code == JOKER:
            table[m, I_JOKER] = 1
            table[m, I_JPOS] = pos
            return code_at(table[m, I_KEY], pos)
        return -1
    rank = table[m, I_KEY]
    if code == JOKER:
        table[m, I_JOKER] = 1
    else:
        table[m, I_START] |= 1 << suit_of(code)
    if table[m, I_JOKER]:
        table[m, I_JPOS] = first_missing_suit(table[m, I_START])
        if code == JOKER:
            return table[m, I_JPOS] * 13 + rank - 1
    return -1


@kernel
def recovers(table, m, code, unambiguous_only):
    """Whether natural ``code`` takes back the joker of meld ``m``."""
    if not table[m, I_JOKER] or code == JOKER:
        return False
    if table[m, I_KIND] == KIND_RUN:
        return code == code_at(table[m, I_KEY], table[m, I_JPOS])
    rank = rank_of(code)
    suit = suit_of(code)
    if rank != table[m, I_KEY] or (table[m, I_START] & (1 << suit)):
        return False
    # In a set of three the joker could be either missing suit: ambiguous.
    return table[m, I_SIZE] == 4 or not unambiguous_only


@kernel
def recovering_cards(table, m, unambiguous_only):
    """The naturals that take back the joker of meld ``m``, as a mask of codes.

    The cards for which :func:`recovers` is true, found at once: a hand's
    cards that recover it are then ``lo & recovering_cards(...)``.
    """
    if not table[m, I_JOKER]:
        return np.uint64(0)
    rank = table[m, I_KEY]
    if table[m, I_KIND] == KIND_RUN:
        return np.uint64(1) << np.uint64(code_at(rank, table[m, I_JPOS]))
    if table[m, I_SIZE] != 4 and unambiguous_only:
        return np.uint64(0)
    mask = np.uint64(0)
    for suit in range(4):
        if not table[m, I_START] & (1 << suit):
            mask |= np.uint64(1) << np.uint64(suit * 13 + rank - 1)
    return mask


@kernel
def recover(table, m, code):
    """Put natural ``code`` in place of meld ``m``'s joker."""
    table[m, I_JOKER] = 0
    if table[m, I_KIND] == KIND_RUN:
        table[m, I_JPOS] = 0
    else:
        table[m, I_START] |= 1 << suit_of(code)
        table[m, I_JPOS] = -1


# What the table takes, kept in the round scalars ``g`` (sim.engine.state):
# refreshed after every laying, asked by every turn. Each meld's own part is
# kept in the round state's ``takes`` rows, so that a laying that changes a
# meld or two asks those again, not every meld of the table.

# In a meld's ``takes`` row, the bit of the joker's code: the meld takes a joker.
TAKES_JOKER = np.uint64(1) << np.uint64(JOKER)


@kernel(forceinline=True)
def meld_takes(takes, m, card_bit):
    """Whether table meld ``m`` takes the card whose bit is ``card_bit`` (``1 << code``, the joker's included)."""
    return (takes[m, 0] & card_bit) != ZERO


@kernel(forceinline=True)
def _refresh_meld_takes(takes, table, m, rules):
    """Write what meld ``m`` takes into ``takes[m]``: its naturals (and :data:`TAKES_JOKER`), its recoverers."""
    mask, joker = accepts(table, m, m + 1, rules.ace_high)
    takes[m, 0] = mask | (TAKES_JOKER if joker else ZERO)
    recovering = ZERO
    if rules.jokers > 0:
        recovering = recovering_cards(table, m, rules.joker_recovery_from_set == RECOVER_UNAMBIGUOUS)
    takes[m, 1] = recovering


@kernel
def table_changed(g, table, takes, rules, first_new, changed, changed_too):
    """Refresh the cached set of cards the table takes (after every laying).

    ``first_new``: the laying added melds from this index on (``g[G_MELDS]``
    when it added none); ``changed`` and ``changed_too``: melds it changed
    (-1 for none). Those are asked again what they take (``takes``); the
    table's union is then the old one widened by the new melds, or, when a
    meld changed (it may take less than before), the union of every meld's
    row again. Called, not inlined: forced inline into every laying it cost
    the rollouts' playouts 7-11% (the position machine inlines the laying in
    several places) for 0.5% fewer instructions in a Rami 51 round.
    """
    n_melds = g[G_MELDS]
    for m in range(first_new, n_melds):
        _refresh_meld_takes(takes, table, m, rules)
    if changed >= 0:
        _refresh_meld_takes(takes, table, changed, rules)
    if changed_too >= 0:
        _refresh_meld_takes(takes, table, changed_too, rules)
    if changed < 0 and changed_too < 0:
        mask = np.uint64(g[G_ACCEPT]) | (TAKES_JOKER if g[G_ACCEPT_JOKER] == 1 else ZERO)
        recovering = np.uint64(g[G_RECOVERING])
        first = first_new
    else:
        mask = ZERO
        recovering = ZERO
        first = 0
    for m in range(first, n_melds):
        mask |= takes[np.uint64(m), 0]  # unsigned, as in accepts
        recovering |= takes[np.uint64(m), 1]
    g[G_ACCEPT] = np.int64(mask & ~TAKES_JOKER)  # bits 0 .. 51 only: fits an int64
    g[G_ACCEPT_JOKER] = 1 if (mask & TAKES_JOKER) != ZERO else 0
    g[G_RECOVERING] = np.int64(recovering)


@kernel
def table_accepts(g):
    """``(mask of natural codes, joker fits)`` the table takes now."""
    return np.uint64(g[G_ACCEPT]), g[G_ACCEPT_JOKER] == 1


@kernel
def table_closed(rules, g, seats):
    """Contrat: every player has laid its contract and the table takes no card.

    Asked before every turn: the table's cached acceptance is read first, since
    a table that takes some card (nearly always once a contract is down) or
    holds no meld yet (nobody has laid a contract) is not closed, whoever has
    laid.
    """
    mask, joker = table_accepts(g)
    if mask != ZERO or joker or g[G_MELDS] == 0:
        return False
    for s in range(rules.players):
        if not seats[s, S_OPENED]:
            return False
    return True


@kernel
def hand_recovers(g, lo):
    """Whether some natural of the hand ``lo`` takes back a table joker: checked before listing recoveries,
    so that a hand without one (nearly every hand, even with jokers on the
    table) skips that call and its thirty arguments. Recoveries are listed
    for these cards only, so none is missed. The table's recovering cards
    are kept in ``g[G_RECOVERING]`` (none when the deck has no joker)."""
    return (lo & np.uint64(g[G_RECOVERING])) != ZERO
