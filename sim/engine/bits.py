"""A hand as machine words, the bit operations on them, and what a card counts at an opening.

A hand is three machine words: ``lo`` has bit ``c`` set when the hand holds
at least one natural card of code ``c`` (0 .. 51), ``hi`` when it holds two
(the second deck), and ``jk`` counts jokers. A suit's ranks are the 13 bits
``(lo >> 13 * suit) & 0x1FFF``; the ace is bit 0 and, when ``ace_high``, also
rank position 14, so runs are windows of consecutive bits.

The card codes are :mod:`sim.cards`' (the naturals 0 .. 51 by suit and rank,
then the joker); this module reads a code's suit and rank in the kernels,
changes a hand one card or one mask at a time, and owns the engine's
opening values of a card (by rank, by run position, of a mask of cards).
:mod:`sim.engine.hand` builds the seats' hands on these words; the meld
listing (:mod:`sim.engine.hand_melds`) and the searches
(:mod:`sim.engine.meld_search`, :mod:`sim.engine.contract_search`) read them.
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from sim.cards import JOKER_CODE, N_NATURAL
from sim.engine.jit import kernel

JOKER = JOKER_CODE  # sim.cards' code of the joker, under the engine's name for it

ONE = np.uint64(1)
ZERO = np.uint64(0)
SUIT_BITS = np.uint64(0x1FFF)
# The aces of the four suits (codes 0, 13, 26, 39): shifted by r, the cards of rank r + 1.
RANK_CARDS = np.uint64(1 | 1 << 13 | 1 << 26 | 1 << 39)
SUIT_MASKS = (SUIT_BITS, SUIT_BITS << np.uint64(13), SUIT_BITS << np.uint64(26), SUIT_BITS << np.uint64(39))


@kernel(forceinline=True)
def bit(code):
    return ONE << np.uint64(code)


@kernel(forceinline=True)
def suit_of(code):
    """The suit (0 .. 3) of natural ``code``.

    An unsigned division, which the compiler makes a multiply and a shift:
    ``code // 13`` on a signed integer also corrects the sign, as Python's
    floor division rounds down, for codes that are never negative.
    """
    return np.int64(np.uint64(code) // np.uint64(13))


@kernel(forceinline=True)
def rank_of(code):
    """The rank (1 .. 13, ace 1) of natural ``code``, unsigned as :func:`suit_of`."""
    return np.int64(np.uint64(code) % np.uint64(13)) + 1


@kernel
def popcount(x):
    x = np.uint64(x)
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@kernel
def lowest(x):
    """Index of the lowest set bit of a non-zero word (one machine instruction)."""
    return np.int64(trailing_zeros(np.uint64(x)))


@kernel
def highest(x):
    """Index of the highest set bit of a non-zero word (one machine instruction)."""
    return np.int64(63 - leading_zeros(np.uint64(x)))


@kernel
def count(lo, hi, code):
    """Copies of natural card ``code`` in the hand (0, 1 or 2)."""
    b = bit(code)
    return np.int64((lo & b) != ZERO) + np.int64((hi & b) != ZERO)


@kernel
def add_card(lo, hi, code):
    """The hand with one more copy of natural ``code``: ``(lo, hi)``."""
    # Two bit operations: the compiler made the test a select, which cost
    # more instructions (0.5-0.9% of a round's, in all three games).
    b = bit(code)
    return lo | b, hi | (lo & b)


@kernel
def remove_card(lo, hi, code):
    """The hand with one copy of natural ``code`` less (it must hold one)."""
    # Bit operations, as add_card: the second copy goes first when there is one.
    b = bit(code)
    second = hi & b
    return lo & ~(b ^ second), hi & ~second


@kernel
def remove_mask(lo, hi, m):
    """The hand less one copy of every card of mask ``m`` (all held)."""
    return lo & ~(m & ~hi), hi & ~m


@kernel
def code_at(suit, position):
    """Card code of rank position 1 .. 14 (14 = ace high) in ``suit``."""
    # Not ``(position - 1) % 13``: a signed remainder costs a multiply and
    # sign fixes, and the table's accept mask asks this at every laying.
    return suit * 13 + (position - 1 if position < 14 else 0)


@kernel(constants=True)
def suit_ranks(lo, suit):
    """The 13-bit rank mask of ``suit`` in the natural-card word ``lo``."""
    return np.int64((lo >> np.uint64(13 * suit)) & SUIT_BITS)


@kernel
def window_mask(suit, start, end, skip):
    """Natural-card mask of positions ``start..end`` in ``suit``, leaving out ``skip``."""
    w = ((1 << (end - start + 1)) - 1) << (start - 1)
    if skip > 0:
        w &= ~(1 << (skip - 1))
    # Position 14 is the ace: fold bit 13 onto bit 0.
    w13 = (w & 0x1FFF) | (w >> 13)
    return np.uint64(w13) << np.uint64(13 * suit)


# Opening values read from tables, since the listing adds one at every
# position of every window. By rank (index 1 .. 13): the most a card can
# count, an ace 11, a face 10. By run position (index 1 .. 14): the rank's,
# but the ace counts 1 laid low (position 1) and 11 laid high (position 14).
RANK_VALUES = np.array([0, 11, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10], dtype=np.int64)
POSITION_VALUES = np.concatenate((np.array([0, 1]), RANK_VALUES[2:], np.array([11]))).astype(np.int64)


@kernel
def position_value(position):
    """Opening value at a run position: ace low 1, 2-10 face, J Q K 10, ace high 11."""
    return POSITION_VALUES[np.uint64(position)]  # unsigned: no test for an index from the end


@kernel
def rank_value(rank):
    """Opening value of a card of ``rank`` in a set (ace 11)."""
    return RANK_VALUES[np.uint64(rank)]


def _value_planes() -> tuple[np.uint64, np.uint64, np.uint64, np.uint64]:
    """Bit planes of the cards' opening values (see :func:`cards_value`).

    Plane ``b`` is the mask of the natural codes whose most an opening can
    count (:func:`rank_value`: an ace 11, a face 10) has bit ``b`` set.
    """
    planes = [0, 0, 0, 0]
    for code in range(N_NATURAL):
        value = int(RANK_VALUES[code % 13 + 1])
        for b in range(4):
            if value >> b & 1:
                planes[b] |= 1 << code
    return tuple(np.uint64(x) for x in planes)


VALUE_1, VALUE_2, VALUE_4, VALUE_8 = _value_planes()


@kernel
def cards_value(m):
    """The most the natural cards of mask ``m`` can add to an opening (an ace 11), one copy of each.

    The sum over cards, as four weighted counts of bit planes rather than a
    walk over the cards.
    """
    return (popcount(m & VALUE_1) + 2 * popcount(m & VALUE_2) + 4 * popcount(m & VALUE_4)
            + 8 * popcount(m & VALUE_8))
