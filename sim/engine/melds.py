"""Bitset hands and the compiled meld search.

A hand is three machine words: ``lo`` has bit ``c`` set when the hand holds
at least one natural card of code ``c`` (0 .. 51), ``hi`` when it holds two
(the second deck), and ``jk`` counts jokers. A suit's ranks are the 13 bits
``(lo >> 13 * suit) & 0x1FFF``; the ace is bit 0 and, when ``ace_high``, also
rank position 14, so runs are windows of consecutive bits.

A *candidate* is a meld the hand can lay: a mask of natural cards (one copy
of each), an optional joker, and its description in ``info`` (columns
below). :func:`search` picks disjoint candidates that maximise opening points
or cards laid, exactly, as :func:`sim.rules.best_collection` does slowly.
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from sim.cards import JOKER_CODE, N_CODES, N_NATURAL
from sim.engine.jit import entry, kernel

# The card codes are sim.cards' (the naturals 0 .. 51 by suit and rank, then the joker): the engine names them.
JOKER = JOKER_CODE
MAX_CANDIDATES = 4096
NO_MELD = -3  # the end of a chain of candidates in the meld search (see _group)

# Columns of a candidate's (or a table meld's) info row.
I_KIND = 0  # 0 run, 1 set
I_KEY = 1  # run: suit; set: rank (1 .. 13)
I_START = 2  # run: lowest position (1 .. 14); set: mask of natural suits
I_END = 3  # run: highest position; set: unused
I_JPOS = 4  # run: position of the joker (0 none); set: suit the joker stands for (-1 none)
I_POINTS = 5  # opening value
I_SIZE = 6  # cards, joker included
I_JOKER = 7  # 1 if the meld holds a joker
N_INFO = 8
KIND_RUN, KIND_SET = 0, 1

ONE = np.uint64(1)
ZERO = np.uint64(0)
# The forced search's order of melds (see search): a key per meld, its index
# in the low bits and what its bound falls short of MAX_BOUND above them.
ORDER_BITS = (MAX_CANDIDATES - 1).bit_length()
ORDER_MASK = (1 << ORDER_BITS) - 1
MAX_BOUND = 1 << 20  # above any bound: at most 108 cards of 11 points
SUIT_BITS = np.uint64(0x1FFF)


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
def _low_bit(x):
    """Index of the lowest set bit of a non-zero int64."""
    return np.int64(trailing_zeros(np.uint64(x)))


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


@kernel
def window_mask(suit, start, end, skip):
    """Natural-card mask of positions ``start..end`` in ``suit``, leaving out ``skip``."""
    w = ((1 << (end - start + 1)) - 1) << (start - 1)
    if skip > 0:
        w &= ~(1 << (skip - 1))
    # Position 14 is the ace: fold bit 13 onto bit 0.
    w13 = (w & 0x1FFF) | (w >> 13)
    return np.uint64(w13) << np.uint64(13 * suit)


@kernel(constants=True)
def _suit_ranks(lo, suit):
    """The 13-bit rank mask of ``suit`` in the natural-card word ``lo``."""
    return np.int64((lo >> np.uint64(13 * suit)) & SUIT_BITS)


@kernel(constants=True)
def _push(n, c_mask, c_info, mask, kind, key, start, end, jpos, points, size, joker):
    if n >= c_mask.shape[0]:
        return n
    c_mask[n] = mask
    c_info[n, I_KIND] = kind
    c_info[n, I_KEY] = key
    c_info[n, I_START] = start
    c_info[n, I_END] = end
    c_info[n, I_JPOS] = jpos
    c_info[n, I_POINTS] = points
    c_info[n, I_SIZE] = size
    c_info[n, I_JOKER] = joker
    return n + 1


@kernel
def enumerate_melds(lo, jk, min_run, ace_high, c_mask, c_info):
    """Fill the candidate arrays with every meld the hand ``(lo, jk)`` can lay.

    Runs: every window of positions of one suit, each position a natural the
    hand holds or (once) a joker, which may also stand for a card the hand
    holds so that card is freed for another meld. A joker at a window's end
    that could sit at either end is one candidate per window, so both
    placements exist. Sets: every choice of distinct suits of a rank, with or
    without a joker. Returns the number of candidates.
    """
    n = 0
    top = 14 if ace_high else 13
    use_joker = jk > 0
    for suit in range(4):
        ranks = _suit_ranks(lo, suit)
        if ace_high and (ranks & 1):
            ranks |= 1 << 13
        # A run's first min_run positions are all held, or (joker) all but
        # one: bit s of ``first`` says so of positions s + 1 .. s + min_run,
        # the window ending within the suit. The windows starting elsewhere
        # stop below min_run cards, listing nothing, and most suits of a
        # hand have no such start at all.
        if use_joker and popcount(ranks) + 1 < min_run:
            continue
        first = np.int64(_window_starts(np.uint64(ranks), min_run, ace_high, use_joker))
        # A window starts on a card of the hand, or (joker) just before one.
        starts = (ranks | ((ranks >> 1) if use_joker else 0)) & first
        if starts == 0:
            continue
        while starts:
            start = _low_bit(starts) + 1
            starts &= starts - 1
            # The first min_run - 1 positions make no run yet: their points
            # and gap are counted apart, with no branch on them (the window's
            # start says they miss at most one position, none without a
            # joker, so nothing stops there), and the loop of the runs starts
            # at the first end that makes one, with no test of the size at
            # each position: a branch the processor mispredicted as the
            # windows' lengths changed. The first two (every run has three
            # positions at least) are written out, and a loop adds contrat's third.
            gap0 = 1 - ((ranks >> (start - 1)) & 1)
            gap1 = 1 - ((ranks >> start) & 1)
            points = position_value(start) + position_value(start + 1)
            missing = gap0 + gap1
            miss_pos = start + 1 if gap1 else (start if gap0 else 0)
            for end in range(start + 2, start + min_run - 1):
                points += position_value(end)
                gap = 1 - ((ranks >> (end - 1)) & 1)
                missing += gap
                miss_pos = end if gap else miss_pos
            for end in range(start + min_run - 1, min(top, start + 12) + 1):
                points += position_value(end)
                if not (ranks >> (end - 1)) & 1:
                    missing += 1
                    miss_pos = end
                    if missing > 1 or not use_joker:
                        break
                size = end - start + 1
                if missing == 0:
                    full = window_mask(suit, start, end, 0)
                    n = _push(n, c_mask, c_info, full, KIND_RUN, suit, start, end, 0, points, size, 0)
                    if use_joker:
                        for p in range(start, end + 1):
                            m = full & ~bit(code_at(suit, p))
                            n = _push(n, c_mask, c_info, m, KIND_RUN, suit, start, end, p, points, size, 1)
                else:
                    m = window_mask(suit, start, end, miss_pos)
                    n = _push(n, c_mask, c_info, m, KIND_RUN, suit, start, end, miss_pos, points, size, 1)
    r0, r1, r2, r3 = _suit_ranks(lo, 0), _suit_ranks(lo, 1), _suit_ranks(lo, 2), _suit_ranks(lo, 3)
    three = (r0 & r1 & r2) | (r0 & r1 & r3) | (r0 & r2 & r3) | (r1 & r2 & r3)
    two = (r0 & r1) | (r0 & r2) | (r0 & r3) | (r1 & r2) | (r1 & r3) | (r2 & r3)
    ranks_with_set = two if use_joker else three
    while ranks_with_set:
        rank = _low_bit(ranks_with_set) + 1
        ranks_with_set &= ranks_with_set - 1
        # The rank's suits, bit 13 s for suit s, as the cards of rank 1.
        suits = (lo >> np.uint64(rank - 1)) & SUIT_ONES
        value = rank_value(rank)
        spread = ZERO
        while True:
            # The next subset of the rank's suits, in increasing order.
            spread = (spread - suits) & suits
            if spread == ZERO:
                break
            k = popcount(spread)
            m = spread << np.uint64(rank - 1)
            # The subset as suit bits 0 .. 3.
            sub = np.int64((spread & ONE) | ((spread >> np.uint64(12)) & np.uint64(2))
                           | ((spread >> np.uint64(24)) & np.uint64(4)) | ((spread >> np.uint64(36)) & np.uint64(8)))
            if 3 <= k <= 4:
                n = _push(n, c_mask, c_info, m, KIND_SET, rank, sub, 0, -1, value * k, k, 0)
            if use_joker and 2 <= k <= 3:
                jsuit = _low_bit(~sub)  # the lowest suit the set lacks
                n = _push(n, c_mask, c_info, m, KIND_SET, rank, sub, 0, jsuit, value * (k + 1), k + 1, 1)
    return n


@kernel
def card_in_meld(lo, jk, code, min_run, ace_high):
    """Whether natural ``code`` added to the hand ``(lo, jk)`` sits in some meld of it.

    The cheap test behind "does this card help?": a set needs two other
    suits of its rank (or one and a joker); a run needs a window of
    ``min_run`` consecutive positions around the card, all held or (with a
    joker) all but one. Every window of the suit is tested at once, as bits
    of a word.
    """
    rank = rank_of(code)
    suit = suit_of(code)
    others = popcount(lo & (SUIT_ONES << np.uint64(rank - 1)) & ~bit(code))
    if others >= 2 or (others >= 1 and jk > 0):
        return True
    ranks = np.int64((lo >> np.uint64(13 * suit)) & SUIT_BITS) | (1 << (rank - 1))
    if ace_high and (ranks & 1):
        ranks |= 1 << 13
    # Bit s of ``starts``: the window of positions s + 1 .. s + min_run ends
    # within the suit and holds every position, or all but one with a joker
    # (the suit's positions are field 0 of a word of positions).
    starts = np.int64(_window_starts(np.uint64(ranks), min_run, ace_high, jk > 0))
    # The windows holding the card start at most min_run - 1 places below it
    # (the ace also at position 14 when it ranks high).
    below = (1 << min_run) - 1
    windows = (below << (rank - 1)) >> (min_run - 1)
    if rank == 1 and ace_high:
        windows |= (below << 13) >> (min_run - 1)
    return (starts & windows) != 0


@kernel
def joker_in_meld(lo, min_run, ace_high):
    """Whether a joker added to the hand ``lo`` sits in some meld of it."""
    for rank in range(13):
        k = 0
        for s in range(4):
            if lo & bit(s * 13 + rank):
                k += 1
        if k >= 2:
            return True
    for suit in range(4):
        ranks = np.int64((lo >> np.uint64(13 * suit)) & SUIT_BITS)
        if ace_high and (ranks & 1):
            ranks |= 1 << 13
        # min_run - 1 naturals within a window of min_run positions.
        top = 14 if ace_high else 13
        for start in range(1, top - min_run + 2):
            window = ((1 << min_run) - 1) << (start - 1)
            w = ranks & window
            c = 0
            while w:
                w &= w - 1
                c += 1
            if c >= min_run - 1:
                return True
    return False


@kernel
def melded_cards(lo, jk, min_run, ace_high):
    """The natural cards of the hand ``(lo, jk)`` that sit in some meld of it, as a mask of codes.

    The union of the candidates :func:`enumerate_melds` lists, found without
    listing them: each candidate holds at most one joker, a run's naturals
    all lie in a window of ``min_run`` positions missing at most one card
    (none without a joker), and every held suit of a rank with a set is in
    one.
    """
    # Every suit's run windows at once (see _run_cards).
    out = _run_cards(lo, min_run, ace_high, jk > 0)
    r0, r1, r2, r3 = _suit_ranks(lo, 0), _suit_ranks(lo, 1), _suit_ranks(lo, 2), _suit_ranks(lo, 3)
    three = (r0 & r1 & r2) | (r0 & r1 & r3) | (r0 & r2 & r3) | (r1 & r2 & r3)
    two = (r0 & r1) | (r0 & r2) | (r0 & r3) | (r1 & r2) | (r1 & r3) | (r2 & r3)
    ranks_with_set = two if jk > 0 else three
    return out | (lo & (np.uint64(ranks_with_set) * SUIT_ONES))


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


# A hand's naturals as run positions, all four suits in one word: suit s
# holds positions 1 .. 14 at bits 14 s .. 14 s + 13 (the ace at both ends
# when it ranks high), so a shift tests one window position of every suit
# at once, and windows never straddle two suits (see _window_starts).
FIELD_ONES = np.uint64(1 | 1 << 14 | 1 << 28 | 1 << 42)  # position 1 of each suit
SUIT_ONES = np.uint64(1 | 1 << 13 | 1 << 26 | 1 << 39)  # rank 1 of each suit, in card codes
SUIT_MASKS = (SUIT_BITS, SUIT_BITS << np.uint64(13), SUIT_BITS << np.uint64(26), SUIT_BITS << np.uint64(39))


@kernel(forceinline=True)
def _positions(lo, ace_high):
    """The naturals of ``lo`` as run positions, four 14-bit suit fields in one word."""
    p = ((lo & SUIT_BITS) | (((lo >> np.uint64(13)) & SUIT_BITS) << np.uint64(14))
         | (((lo >> np.uint64(26)) & SUIT_BITS) << np.uint64(28)) | (((lo >> np.uint64(39)) & SUIT_BITS) << np.uint64(42)))
    if ace_high:
        p |= (p & FIELD_ONES) << np.uint64(13)
    return p


@kernel(forceinline=True)
def _codes(p):
    """The card codes of the positions ``p`` (:func:`_positions`'s layout): the ace laid high is the ace."""
    q = p | ((p >> np.uint64(13)) & FIELD_ONES)
    return ((q & SUIT_BITS) | (((q >> np.uint64(14)) & SUIT_BITS) << np.uint64(13))
            | (((q >> np.uint64(28)) & SUIT_BITS) << np.uint64(26)) | (((q >> np.uint64(42)) & SUIT_BITS) << np.uint64(39)))


@kernel(forceinline=True)
def _window_starts(p, min_run, ace_high, joker):
    """The windows of ``min_run`` positions of ``p`` that hold every position, or (``joker``) all but one.

    Bit ``i`` of the result stands for the window starting at position bit
    ``i``. Only windows that end within their suit's positions 1 .. 13 (14
    with the ace high) are kept, so no window reaches into the next suit.
    """
    top = 14 if ace_high else 13
    # A run has three positions at least (the ruleset's minimum): those are
    # written out, and a loop adds contrat's fourth. A loop over all of them
    # was 2% of a basic rummy round's instructions.
    if joker:
        # Windows missing at most one position: a position missing twice sets ``twice``.
        once = ~p
        x = ~(p >> np.uint64(1))
        twice = once & x
        once |= x
        x = ~(p >> np.uint64(2))
        twice |= once & x
        once |= x
        for i in range(3, min_run):
            x = ~(p >> np.uint64(i))
            twice |= once & x
            once |= x
        w = ~twice
    else:
        w = p & (p >> np.uint64(1)) & (p >> np.uint64(2))
        for i in range(3, min_run):
            w &= p >> np.uint64(i)
    return w & (((ONE << np.uint64(top - min_run + 1)) - ONE) * FIELD_ONES)


@kernel(forceinline=True)
def _run_cards(lo, min_run, ace_high, joker):
    """The naturals of ``lo`` that some run of the hand holds (with one joker when ``joker``), as card codes.

    A run's naturals all lie in windows of ``min_run`` positions that hold
    every position, or (with the joker) all but one.
    """
    p = _positions(lo, ace_high)
    w = _window_starts(p, min_run, ace_high, joker)
    cover = w | (w << np.uint64(1)) | (w << np.uint64(2))  # three positions at least, as in _window_starts
    for i in range(3, min_run):
        cover |= w << np.uint64(i)
    return _codes(cover & p)


@kernel(forceinline=True)
def holds_meld(lo, jk, min_run, ace_high):
    """Whether the hand ``(lo, jk)`` holds some meld: whether :func:`enumerate_melds` lists any candidate.

    A few word operations, where the listing walks every suit: most hands of
    players who have opened hold no meld.
    """
    r0, r1, r2, r3 = _suit_ranks(lo, 0), _suit_ranks(lo, 1), _suit_ranks(lo, 2), _suit_ranks(lo, 3)
    if jk > 0:
        if (r0 & r1) | (r0 & r2) | (r0 & r3) | (r1 & r2) | (r1 & r3) | (r2 & r3):
            return True
    elif (r0 & r1 & r2) | (r0 & r1 & r3) | (r0 & r2 & r3) | (r1 & r2 & r3):
        return True
    return _window_starts(_positions(lo, ace_high), min_run, ace_high, jk > 0) != ZERO


@kernel
def opening_bound(lo, hi, jk, min_run, ace_high):
    """An upper bound on the opening points of any disjoint melds of the hand ``(lo, hi, jk)``, without listing them.

    A meld without joker lies within the cards ``u`` that some meld without
    joker holds, each physical card of them counted once at most. A meld
    with a joker (one joker a meld, so at most ``jk`` such melds) adds at
    most its joker and its naturals outside ``u``, which all lie in one suit
    (a run, among the cards some run with a joker holds) or one rank (a
    set). So the points are at most the value of ``u``'s cards (both copies)
    plus ``jk`` times the most one meld with a joker can add that way.
    """
    r0, r1, r2, r3 = _suit_ranks(lo, 0), _suit_ranks(lo, 1), _suit_ranks(lo, 2), _suit_ranks(lo, 3)
    three = (r0 & r1 & r2) | (r0 & r1 & r3) | (r0 & r2 & r3) | (r1 & r2 & r3)
    u = _run_cards(lo, min_run, ace_high, False) | (lo & (np.uint64(three) * SUIT_ONES))
    bound = cards_value(lo & u) + cards_value(hi & u)
    if jk == 0:
        return bound
    # A joker in a run stands for a position worth at most an ace laid high;
    # in a set, for its rank.
    joker_value = 11 if ace_high else 10
    extra = 0
    runs = _run_cards(lo, min_run, ace_high, True)
    outside = runs & ~u
    for suit in range(4):
        if runs & SUIT_MASKS[suit]:
            extra = max(extra, joker_value + cards_value(outside & SUIT_MASKS[suit]))
    two = (r0 & r1) | (r0 & r2) | (r0 & r3) | (r1 & r2) | (r1 & r3) | (r2 & r3)
    loose = lo & ~u
    while two:
        rank = _low_bit(two) + 1
        two &= two - 1
        outside_suits = popcount(loose & (SUIT_ONES << np.uint64(rank - 1)))
        extra = max(extra, rank_value(rank) * (1 + outside_suits))
    return bound + jk * extra


@kernel
def _card_value(code):
    # The most a natural card can add to an opening: an ace can be 11.
    return rank_value(rank_of(code))


@kernel(constants=("objective",))
def _bound(lo, hi, jk, objective):
    if objective == 1:
        return popcount(lo) + popcount(hi) + jk
    return 11 * jk + cards_value(lo) + cards_value(hi)


@kernel(constants=("objective",), forceinline=True)
def _root_bounds(lo, hi, jk, objective, card_limit, u0, extra):
    """``(bound, second bound)`` on what :func:`_search` can find in the hand ``(lo, hi, jk)`` of its useful cards.

    ``bound`` is the smaller of :func:`_bound` and the second bound (see
    :func:`_joker_extra`), which counts a joker's cards once; the search
    starts from both. For cards laid, ``bound`` is :func:`_bound` at most
    ``card_limit``, and the second bound (points) is not needed: 0.
    """
    bound = _bound(lo, hi, jk, objective)
    if objective == 1:
        return min(bound, card_limit), 0  # (the second bound counts points: unused for cards laid)
    bound0 = cards_value(lo & u0) + cards_value(hi & u0) + jk * extra
    return min(bound, bound0), bound0


@kernel(constants=("objective", "need_natural"))
def search(lo, hi, jk, n, c_mask, c_info, objective, need_natural, forced, card_limit, target, out, ws):
    """The best collection of disjoint candidates, exactly; see :func:`_search`.

    A collection that must use card ``forced`` is searched from the melds
    holding that card: each is laid first, then the rest of the hand is
    searched freely. Few melds hold a given card, so this is far quicker
    than searching everything and discarding what misses it. The melds are
    tried richest bound first, with ties resolved as trying them in listing
    order would: the collection found is the same either way.
    """
    # Settle what needs no search first: most hands a turn looks at hold no
    # candidate, or none with the forced card, or too few useful points.
    if n == 0:
        # (what the searches below return for no candidate at all)
        return (0, 0) if forced < 0 and target <= 0 and not need_natural else (-1, 0)
    useful, joker_useful, natural = _fitting(lo, jk, n, c_mask, c_info)
    if target > 0:
        # A collection is worth at most _bound of the useful cards it holds,
        # so when all of them together fall short, nothing qualifies.
        bound = _bound(lo & useful, hi & useful, jk if joker_useful else 0, objective)
        if objective == 1 and bound > card_limit:
            bound = card_limit
        if bound < target:
            return -1, 0
    u0 = ZERO
    extra = 0
    if objective == 0:
        # A tighter bound on hands with a joker (see _joker_extra), for
        # this hand and for every rest the searches below leave.
        u0 = natural
        extra = _joker_extra(lo, jk if joker_useful else 0, n, c_mask, c_info, u0)
        if target > 0 and cards_value(lo & u0) + cards_value(hi & u0) + (jk if joker_useful else 0) * extra < target:
            return -1, 0
    if forced < 0:
        _group(n, c_mask, c_info, lo & useful, ws, u0)
        return _search(lo, hi, jk, n, c_mask, c_info, objective, need_natural, card_limit, target, out, ws,
                       useful, joker_useful, u0, extra)
    # The melds holding the forced card, each with a bound on what it and
    # the best rest of the hand can be worth, are searched richest bound
    # first: the best opening is then found early, and its value prunes the
    # rests searched after it, most of them at once. Ties still go to the
    # lowest candidate index, as in index order: a rest whose meld comes
    # before the best one's is searched for a collection worth as much.
    order = ws[0][0]  # key per meld: the bound, decreasing, then the index (see below)
    n_order = 0
    for k in range(n):
        joker = c_info[k, I_JOKER]
        m = c_mask[k]
        if forced == JOKER:
            if not joker:
                continue
        elif not (m & bit(forced)):
            continue
        if joker > jk or (m & ~lo) != ZERO:
            continue
        size = c_info[k, I_SIZE]
        if size > card_limit:
            continue
        nlo, nhi = remove_mask(lo, hi, m)
        # The rest's second bound (see _root_bounds) for points, its cards for
        # cards laid: the smaller bound _root_bounds gives cost more to reckon
        # than it saved (Rami 51 1% more instructions a round).
        if objective == 0:
            bound = c_info[k, I_POINTS] + cards_value(nlo & u0) + cards_value(nhi & u0) + (jk - joker) * extra
        else:
            bound = size + min(popcount(nlo) + popcount(nhi) + jk - joker, card_limit - size)
        # A rest that cannot bring what this meld needs is not searched.
        if bound < target:
            continue
        key = ((MAX_BOUND - bound) << ORDER_BITS) | k
        i = n_order
        while i > 0 and order[i - 1] > key:
            order[i] = order[i - 1]
            i -= 1
        order[i] = key
        n_order += 1
    if n_order == 0:
        return -1, 0
    grouped = False
    sub = ws[1][8]
    best = -1
    best_k = n
    n_best = 0
    for i in range(n_order):
        key = order[i]
        k = key & ORDER_MASK
        bound = MAX_BOUND - (key >> ORDER_BITS)
        if bound < best or (bound == best and k > best_k):
            break  # the later melds' bounds are no higher
        joker = c_info[k, I_JOKER]
        size = c_info[k, I_SIZE]
        value = c_info[k, I_POINTS] if objective == 0 else size
        nlo, nhi = remove_mask(lo, hi, c_mask[k])
        natural_run = c_info[k, I_KIND] == KIND_RUN and joker == 0
        # A meld listed before the best one's needs a rest only worth as much; one listed after it, more.
        least = max(target, best if (k < best_k and best >= 0) else best + 1)
        # The rest of the hand is searched with only the cards that melds
        # still fitting it use: a tighter bound, so most rests are settled
        # at once.
        rest_useful, rest_joker_useful, _ = _fitting(nlo, jk - joker, n, c_mask, c_info)
        # Most rests of an opening are settled by the search's first bound:
        # checked here, so that the candidates are chained only when some
        # rest is searched.
        rest_bound, _ = _root_bounds(nlo & rest_useful, nhi & rest_useful, (jk - joker) if rest_joker_useful else 0,
                                     objective, card_limit - size, u0, extra)
        if rest_bound < least - value:
            continue  # the rest's search would stop at once, finding nothing worth that (least - value > 0)
        if not grouped:
            # Chained only for a rest that is searched (see _group).
            _group(n, c_mask, c_info, lo & useful, ws, u0)
            grouped = True
        rest, n_rest = _search(nlo, nhi, jk - joker, n, c_mask, c_info, objective,
                               need_natural and not natural_run, card_limit - size,
                               least - value, sub, ws, rest_useful, rest_joker_useful, u0, extra)
        if rest >= 0 and rest + value >= least:
            best = rest + value
            best_k = k
            out[0] = k
            for j in range(n_rest):
                out[1 + j] = sub[j]
            n_best = 1 + n_rest
    if best < 0:
        return -1, 0
    return best, n_best


@kernel
def _fitting(lo, jk, n, c_mask, c_info):
    """``(mask of the cards, whether a joker, mask of the cards without joker)`` that the candidates fitting the
    hand ``(lo, jk)`` use: all of them, and those without joker (see :func:`_joker_extra`).

    A card outside the first mask can only stay in hand: leaving it out of a
    search changes no collection found, and tightens the search's bound.
    """
    useful = ZERO
    natural = ZERO
    joker_useful = False
    for k in range(n):
        m = c_mask[k]
        joker = c_info[k, I_JOKER]
        # No branch on whether the candidate fits (unpredictable): its mask
        # is kept through an all-ones or all-zeros word.
        fits = ((m & ~lo) == ZERO) & (joker <= jk)
        kept = m & (ZERO - np.uint64(fits))
        useful |= kept
        joker_useful |= fits & (joker != 0)
        natural |= kept & (ZERO - np.uint64(joker == 0))
    return useful, joker_useful, natural


@kernel
def _joker_extra(lo, jk, n, c_mask, c_info, u):
    """``extra``, for a second bound on the opening points of the hand ``(lo, jk)`` and of any part of it.

    ``u`` is the mask of the cards that the candidates without joker fitting
    the hand hold (from :func:`_fitting`), ``extra`` the most points a candidate with a joker fitting
    it counts beyond its naturals in ``u`` (0 when none fits). A part of the
    hand fits no candidate the whole hand does not, so any disjoint
    candidates of it are worth at most the values (:func:`cards_value`) of
    its cards in ``u``, both copies, plus ``extra`` for each joker: the
    candidates without joker hold only cards of ``u``, and each one with a
    joker (one joker each) adds at most ``extra`` to the value of its
    naturals in ``u``. Unlike :func:`_bound`, the cards that only a joker
    makes useful count once per joker, not each.
    """
    extra = 0
    if jk > 0:
        for k in range(n):
            m = c_mask[k]
            if c_info[k, I_JOKER] == 1 and (m & ~lo) == ZERO:
                extra = max(extra, c_info[k, I_POINTS] - cards_value(m & u))
    return extra


@kernel
def _group(n, c_mask, c_info, cards, ws, u0):
    """Chain the candidates by their lowest natural card, for :func:`_search`.

    The search settles the hand's lowest card first, either left in hand or
    in a meld it heads, so it looks candidates up by lowest card: the chain
    of card ``c`` starts at ``ws[0][2][c]`` and goes on through
    ``ws[0][1][k]`` from candidate ``k`` to the next one, in candidate order,
    ending at ``NO_MELD``. Only the chains of the cards of mask ``cards``
    are started (the search meets no other lowest card; the links written
    for other cards are never followed): a handful of stores where a sort
    over every card code cost more than the search on most hands. ``ws[0][4][k]`` receives what candidate ``k`` takes off
    :func:`_bound` of the opening points when laid, ``ws[0][3][k]`` the value
    of its naturals in ``u0`` (what it takes off the bound of
    :func:`_joker_extra`, with ``extra`` for its joker). Done once per
    :func:`search`, however many searches it runs on the same candidates.
    """
    wc = ws[0]
    nxt = wc[1]
    head = wc[2]
    value = wc[4]
    value0 = wc[3]
    x = cards
    while x:
        head[lowest(x)] = NO_MELD
        x &= x - ONE
    for k in range(n - 1, -1, -1):
        # The most candidate k's cards could add to an opening (see _bound).
        x = c_mask[k]
        low = lowest(x)
        whole = cards_value(x)
        value[k] = 11 * np.int64(c_info[k, I_JOKER]) + whole
        # A candidate within u0 (each one without joker that fits the hand) counts all its naturals there.
        value0[k] = whole if (x & ~u0) == ZERO else cards_value(x & u0)
        nxt[k] = head[low]
        head[low] = k


@kernel(constants=("objective",))
def _greedy_value(lo, hi, jk, n, c_mask, c_info, objective, need_natural, card_limit):
    """The value of disjoint candidates picked richest first (a natural run
    first when ``need_natural``); -1 when ``need_natural`` finds none."""
    total = 0
    used = 0
    need = need_natural
    while True:
        pick = -1
        pick_value = 0
        for k in range(n):
            joker = c_info[k, I_JOKER]
            size = c_info[k, I_SIZE]
            if (c_mask[k] & ~lo) != ZERO or joker > jk or used + size > card_limit:
                continue
            if need and (joker or c_info[k, I_KIND] != KIND_RUN):
                continue
            value = c_info[k, I_POINTS] if objective == 0 else size
            if value > pick_value:
                pick = k
                pick_value = value
        if pick < 0:
            return -1 if need else total
        lo, hi = remove_mask(lo, hi, c_mask[pick])
        jk -= c_info[pick, I_JOKER]
        used += c_info[pick, I_SIZE]
        total += pick_value
        need = False


@kernel(constants=("objective",))
def _search(lo, hi, jk, n, c_mask, c_info, objective, need_natural, card_limit, target, out, ws, useful,
            joker_useful, u0, extra):
    """The best collection of disjoint candidates, exactly.

    Parameters
    ----------
    lo, hi, jk : uint64, uint64, int
        The hand.
    n, c_mask, c_info : int, uint64[:], int32[:, N_INFO]
        Candidates from :func:`enumerate_melds` for this hand.
    objective : int
        0: opening points; 1: cards laid.
    need_natural : bool
        Only collections holding a run without joker qualify.
    card_limit : int
        Most cards the collection may hold.
    target : int
        Only collections worth at least this much qualify.
    out : int64[:]
        Receives the chosen candidates' indices.
    ws : tuple
        Scratch arrays from :func:`workspace`, reused across calls, holding
        the candidates chained by :func:`_group`.
    useful, joker_useful : uint64, bool
        What :func:`_fitting` returns for this hand.
    u0, extra : uint64, int
        The cards without joker :func:`_fitting` finds, and what :func:`_joker_extra` returns, for this hand or any hand
        holding it (objective 0; unused for objective 1): a second bound,
        kept beside :func:`_bound` as cards are settled, and the smaller of
        the two prunes. Any upper bound prunes only branches that cannot
        beat the best found so far, so the collection found is the same.

    Returns
    -------
    (int, int)
        The best value (-1 if nothing qualifies) and how many candidates of
        ``out`` make it.
    """
    # Only cards that some candidate uses can be laid: drop the others.
    lo = lo & useful
    hi = hi & useful
    if not joker_useful:
        jk = 0
    # Nothing to find when even every useful card together is not enough.
    root_bound, root_bound0 = _root_bounds(lo, hi, jk, objective, card_limit, u0, extra)
    if root_bound < target or n == 0:
        if target <= 0 and not need_natural:
            return 0, 0
        return -1, 0

    # Candidates chained by their lowest natural card (see _group).
    wc, wf, wu = ws
    nxt = wc[1]
    head = wc[2]
    cand_value = wc[4]
    cand_value0 = wc[3]
    f_bound0 = wf[9]

    f_lo = wu[0]
    f_hi = wu[1]
    f_jk = wf[0]
    f_nat = wf[1]
    # The bound of each frame's hand, kept as the hand loses cards: it is
    # additive over cards, so no frame walks its hand to compute it.
    f_bound = wf[2]
    f_used = wf[3]
    f_val = wf[4]
    f_iter = wf[5]
    f_choice = wf[6]

    # Without a target, a collection picked greedily (the richest meld that
    # still fits, again and again) starts the search off with something to
    # beat, so that poorer branches are cut at once. The first collection of
    # the best value in search order is still the one found: until it is
    # reached, everything recorded is worth less. With a target (an opening
    # threshold) the target alone cuts as much on the hands a round meets,
    # and the greedy pass cost more than it saved (measured on the
    # searches of Rami 51 rounds).
    if target > 0:
        best = target - 1
    else:
        best = max(target, _greedy_value(lo, hi, jk, n, c_mask, c_info, objective, need_natural, card_limit)) - 1
    n_best = 0
    found = False
    d = 0
    f_lo[0] = lo
    f_hi[0] = hi
    f_jk[0] = jk
    f_bound[0] = _bound(lo, hi, jk, objective)
    f_bound0[0] = root_bound0
    f_nat[0] = 1 if need_natural else 0
    f_used[0] = 0
    f_val[0] = 0
    f_iter[0] = -2
    while d >= 0:
        clo = f_lo[d]
        it = f_iter[d]
        if it == -2:
            # A new node: a leaf when no natural is left, else prune or expand.
            if clo == ZERO:
                if not f_nat[d] and f_val[d] > best:
                    best = f_val[d]
                    found = True
                    n_best = 0
                    for e in range(d):
                        if f_choice[e] >= 0:
                            out[n_best] = f_choice[e]
                            n_best += 1
                d -= 1
                continue
            room = card_limit - f_used[d]
            bound = f_bound[d]
            if objective == 1 and bound > room:
                bound = room
            if objective == 0 and f_bound0[d] < bound:
                bound = f_bound0[d]
            if f_val[d] + bound <= best:
                d -= 1
                continue
            f_iter[d] = -1
            it = -1
        c = lowest(clo)
        if it == -1:
            f_iter[d] = head[c]
            # Leave one copy of c in hand.
            nlo, nhi = remove_card(clo, f_hi[d], c)
            f_choice[d] = -1
            e = d + 1
            f_lo[e] = nlo
            f_hi[e] = nhi
            f_jk[e] = f_jk[d]
            f_bound[e] = f_bound[d] - (1 if objective == 1 else _card_value(c))
            f_bound0[e] = f_bound0[d] - (_card_value(c) if (u0 & bit(c)) != ZERO else 0)
            f_nat[e] = f_nat[d]
            f_used[e] = f_used[d]
            f_val[e] = f_val[d]
            f_iter[e] = -2
            d = e
            continue
        if it != NO_MELD:
            k = np.uint64(it)  # unsigned: numba tests a signed index for counting from the end
            f_iter[d] = nxt[k]
            m = c_mask[k]
            if (m & ~clo) != ZERO:
                continue
            joker = c_info[k, I_JOKER]
            if joker > f_jk[d]:
                continue
            size = c_info[k, I_SIZE]
            if f_used[d] + size > card_limit:
                continue
            nlo, nhi = remove_mask(clo, f_hi[d], m)
            f_choice[d] = k
            e = d + 1
            f_lo[e] = nlo
            f_hi[e] = nhi
            f_jk[e] = f_jk[d] - joker
            f_bound[e] = f_bound[d] - (size if objective == 1 else cand_value[k])
            f_bound0[e] = f_bound0[d] - cand_value0[k] - joker * extra
            natural_run = c_info[k, I_KIND] == KIND_RUN and joker == 0
            f_nat[e] = 1 if (f_nat[d] and not natural_run) else 0
            f_used[e] = f_used[d] + size
            f_val[e] = f_val[d] + (c_info[k, I_POINTS] if objective == 0 else size)
            f_iter[e] = -2
            d = e
            continue
        d -= 1
    if not found:
        return -1, 0
    return best, n_best


@entry
def workspace():
    """Scratch arrays for :func:`search`: allocate once, reuse for every call.

    ``[0]`` the candidates chained by lowest card and their values
    (:func:`_group`), row 0 the order a forced search tries its melds in; ``[1]`` and ``[2]`` the depth-first search's frames,
    row 7 of ``[1]`` the chosen melds handed to callers, row 8 those of a
    forced card's sub-search, row 9 the frames' second bound; rows 2 and 3
    of ``[2]`` the contract search's meld masks (:func:`_contract_melds`).
    """
    return (
        np.zeros((5, MAX_CANDIDATES), dtype=np.int64),
        np.zeros((10, 64), dtype=np.int64),
        np.zeros((4, MAX_CANDIDATES), dtype=np.uint64),
    )


@entry
def _best_alone(lo, hi, jk, min_run, ace_high, objective, need_natural):
    """The best value of a hand on its own (0 if none), with scratch of its own."""
    c_mask = np.empty(MAX_CANDIDATES, dtype=np.uint64)
    c_info = np.empty((MAX_CANDIDATES, N_INFO), dtype=np.int32)
    out = np.empty(64, dtype=np.int64)
    n = enumerate_melds(lo, jk, min_run, ace_high, c_mask, c_info)
    value, _ = search(lo, hi, jk, n, c_mask, c_info, objective, need_natural, -1, 1000, 0, out, workspace())
    return max(value, 0)


@entry
def best_opening_points(lo, hi, jk, min_run, ace_high, need_natural):
    """Exact best opening total of a hand (0 if none): the compiled ``best_opening``."""
    return _best_alone(lo, hi, jk, min_run, ace_high, 0, need_natural)


@entry
def max_melded(lo, hi, jk, min_run, ace_high):
    """Most cards of a hand that disjoint melds can hold: the compiled ``max_melded_cards``."""
    return _best_alone(lo, hi, jk, min_run, ace_high, 1, False)


@entry
def best_openings(hands, decks, jokers, min_run, ace_high, need_natural, out):
    """Best opening total of every hand of ``hands``, into ``out``: the batch ``best_opening``.

    ``hands`` is int64 ``(n, k)``: each row a hand's card codes (52 a
    joker), padded with -1. Scratch is allocated once for the whole batch.
    Returns -1, or the first row that holds more than ``decks`` copies of a
    natural card or more than ``jokers`` jokers (``out`` is then partly filled).
    """
    c_mask = np.empty(MAX_CANDIDATES, dtype=np.uint64)
    c_info = np.empty((MAX_CANDIDATES, N_INFO), dtype=np.int32)
    sel = np.empty(64, dtype=np.int64)
    ws = workspace()
    for i in range(hands.shape[0]):
        lo = ZERO
        hi = ZERO
        jk = 0
        for j in range(hands.shape[1]):
            c = hands[i, j]
            if c < 0:
                continue
            if c == JOKER:
                jk += 1
                continue
            b = bit(c)
            if hi & b or (decks == 1 and lo & b):
                return i
            lo, hi = add_card(lo, hi, c)
        if jk > jokers:
            return i
        n = enumerate_melds(lo, jk, min_run, ace_high, c_mask, c_info)
        value, _ = search(lo, hi, jk, n, c_mask, c_info, 0, need_natural, -1, 1000, 0, sel, ws)
        out[i] = max(value, 0)
    return -1


@kernel(constants=True)
def _contract_slot(k, clo, chi, cjk, c_mask, c_info, forced):
    """Lay candidate ``k`` on the hand ``(clo, chi, cjk)`` if it fits.

    Returns ``(fits, lo, hi, jk, cards, points, uses_forced)``.
    """
    m = c_mask[k]
    joker = c_info[k, I_JOKER]
    if (m & ~clo) != ZERO or joker > cjk:
        return False, clo, chi, cjk, 0, 0, False
    nlo, nhi = remove_mask(clo, chi, m)
    uses = (forced == JOKER and joker == 1) or (0 <= forced < JOKER and (m & bit(forced)) != ZERO)
    return True, nlo, nhi, cjk - joker, c_info[k, I_SIZE], c_info[k, I_POINTS], uses


@kernel
def _contract_melds(n, c_mask, c_info, ws, no_joker=False):
    """List the candidates a contract picks from, once per contract search.

    The sets go to ``ws[0][0]`` and the runs to ``ws[0][1]``, each largest
    first and, among melds of one size, in candidate order, so that good
    contracts come early and the size bounds of :func:`_contract` cut the
    rest of each loop. A counting sort over the sizes (3 .. 14), with the
    counts in ``ws[0][2]``: one pass over the candidates instead of one per
    size, and done once for every sub-search a forced card starts rather
    than in each. Slot ``s`` of ``ws[0][2]`` is left holding how many sets
    have ``s`` cards or more, slot ``16 + s`` how many runs. The listed
    melds' masks go to ``ws[2][2]`` (sets) and ``ws[2][3]`` (runs), in list
    order, with :data:`LEAST_JOKER` marking a joker: :func:`_contract` reads
    them in order and tells whether a meld fits a hand with one mask test.
    With ``no_joker`` (the hand searched holds no joker) only the melds
    without a joker are listed: the others fit no part of the hand, and
    every loop over the lists passes over a meld that does not fit, so the
    same contract is found, sooner. Returns ``(sets listed, runs listed,
    mask of the cards some candidate uses)``.
    """
    wc = ws[0]
    set_idx = wc[0]
    run_idx = wc[1]
    # Slots 0 .. 15 count the sets of each size, 16 .. 31 the runs; they
    # then hold where the next meld of that size goes.
    at = wc[2]
    for i in range(32):
        at[i] = 0
    useful = ZERO
    for k in range(n):
        useful |= c_mask[k]
        if no_joker and c_info[k, I_JOKER]:
            continue
        # Unsigned indices here and below: numba tests a signed one for counting from the end.
        at[np.uint64(c_info[k, I_SIZE] + (0 if c_info[k, I_KIND] == KIND_SET else 16))] += 1
    n_sets = 0
    n_runs = 0
    for size in range(15, -1, -1):
        count_sets = at[size]
        at[size] = n_sets
        n_sets += count_sets
        count_runs = at[size + 16]
        at[size + 16] = n_runs
        n_runs += count_runs
    set_mask = ws[2][2]
    run_mask = ws[2][3]
    for k in range(n):
        if no_joker and c_info[k, I_JOKER]:
            continue
        m = c_mask[k] | (LEAST_JOKER if c_info[k, I_JOKER] else ZERO)
        if c_info[k, I_KIND] == KIND_SET:
            slot = np.uint64(c_info[k, I_SIZE])
            place = np.uint64(at[slot])
            set_idx[place] = k
            set_mask[place] = m
        else:
            slot = np.uint64(c_info[k, I_SIZE] + 16)
            place = np.uint64(at[slot])
            run_idx[place] = k
            run_mask[place] = m
        at[slot] += 1
    return n_sets, n_runs, useful


@kernel
def _suits(lo):
    """How many suits the natural cards ``lo`` hold."""
    suits = 0
    for suit in range(4):
        if (lo >> np.uint64(13 * suit)) & SUIT_BITS:
            suits += 1
    return suits


@kernel
def _holds_disjoint(lo, hi, jk, idx, n_idx, count, c_mask, c_info):
    """Whether the hand can lay ``count`` (0 .. 3) of the melds ``idx[:n_idx]`` at once.

    A meld may be taken twice when the hand holds both copies of its cards,
    as in :func:`_contract`. It stops at the first collection found, so a
    hand that holds one costs little; a hand that holds none, the usual
    case, costs one pass over pairs (or triples) of one kind of meld.
    """
    if count <= 0:
        return True
    for a in range(n_idx):
        fit, lo1, hi1, jk1, _, _, _ = _contract_slot(idx[a], lo, hi, jk, c_mask, c_info, -1)
        if not fit:
            continue
        if count == 1:
            return True
        for b in range(a, n_idx):
            fit, lo2, hi2, jk2, _, _, _ = _contract_slot(idx[b], lo1, hi1, jk1, c_mask, c_info, -1)
            if not fit:
                continue
            if count == 2:
                return True
            for c in range(b, n_idx):
                fit, _, _, _, _, _, _ = _contract_slot(idx[c], lo2, hi2, jk2, c_mask, c_info, -1)
                if fit:
                    return True
    return False


# A least meld's mask marks its joker in bit 63 (natural codes use bits 0 .. 51).
LEAST_JOKER = np.uint64(1) << np.uint64(63)


@kernel
def _least_melds(lo, jk, kind, min_run, ace_high, out):
    """The hand's smallest melds of one ``kind`` into ``out``; returns their count.

    Sets of three suits, or two and a joker; runs of ``min_run`` positions,
    all held, or one of them (held or not) a joker. Each is a candidate of
    :func:`enumerate_melds`, and every candidate of that kind holds one of
    them with no more jokers, so the hand can lay some number of disjoint
    candidates of the kind exactly when it can lay as many of these: the
    check of :func:`_holds_disjoint` without listing every candidate.
    Joker melds carry :data:`LEAST_JOKER` in their mask.
    """
    n = 0
    if kind == KIND_SET:
        r0, r1, r2, r3 = _suit_ranks(lo, 0), _suit_ranks(lo, 1), _suit_ranks(lo, 2), _suit_ranks(lo, 3)
        two = (r0 & r1) | (r0 & r2) | (r0 & r3) | (r1 & r2) | (r1 & r3) | (r2 & r3)
        three = (r0 & r1 & r2) | (r0 & r1 & r3) | (r0 & r2 & r3) | (r1 & r2 & r3)
        ranks = two if jk > 0 else three
        while ranks:
            rank = _low_bit(ranks)
            ranks &= ranks - 1
            # The rank's suits, bit 13 s for suit s, as the cards of rank 1.
            suits = (lo >> np.uint64(rank)) & SUIT_ONES
            sub = ZERO
            while True:
                # The next subset of the rank's suits, in increasing order.
                sub = (sub - suits) & suits
                if sub == ZERO:
                    break
                k = popcount(sub)
                if k == 3 or (k == 2 and jk > 0):
                    m = sub << np.uint64(rank)
                    out[n] = m if k == 3 else m | LEAST_JOKER
                    n += 1
        return n
    # Only the windows of min_run positions that hold every position, or
    # (with a joker) all but one, yield runs: _window_starts finds them all
    # at once, suit by suit and by start position, the order a walk over
    # every window would list them in.
    positions = _positions(lo, ace_high)
    starts = _window_starts(positions, min_run, ace_high, jk > 0)
    window = (ONE << np.uint64(min_run)) - ONE
    while starts != ZERO:
        i = lowest(starts)
        starts &= starts - ONE
        suit = i // 14
        start = i - 14 * suit + 1
        end = start + min_run - 1
        missing = window & ~(positions >> np.uint64(i))
        if missing == ZERO:
            out[n] = window_mask(suit, start, end, 0)
            n += 1
            if jk > 0:
                # The joker standing for a card the hand holds frees it.
                for p in range(start, end + 1):
                    out[n] = window_mask(suit, start, end, p) | LEAST_JOKER
                    n += 1
        else:
            # One position missing (only with a joker): the joker's.
            out[n] = window_mask(suit, start, end, start + lowest(missing)) | LEAST_JOKER
            n += 1
    return n


@kernel
def _packs(lo, hi, jk, melds, n_set, run_from, run_to, sets, runs):
    """Whether the hand can lay ``sets`` of the sets ``melds[:n_set]`` and ``runs`` of the runs
    ``melds[run_from:run_to]`` at once (least melds of :func:`_least_melds`; none to three in all).

    The slots are filled sets first, then runs, each slot from its kind's
    melds and, within a kind, from the previous slot's meld on (the same
    meld twice when the hand holds both copies of its cards). One kind alone
    is asked with no meld of the other.
    """
    total = sets + runs
    if total <= 0:
        return True
    start0, end0 = (0, n_set) if sets >= 1 else (run_from, run_to)
    # The melds are read at unsigned indices: the loops start at arguments,
    # which the compiler cannot see are never negative, and numba tests a
    # signed index for counting from the end.
    for a in range(start0, end0):
        ma = melds[np.uint64(a)] & ~LEAST_JOKER
        ja = 1 if melds[np.uint64(a)] & LEAST_JOKER else 0
        if (ma & ~lo) != ZERO or ja > jk:
            continue
        if total == 1:
            return True
        lo1, hi1 = remove_mask(lo, hi, ma)
        jk1 = jk - ja
        start1, end1 = (a, n_set) if sets >= 2 else ((run_from, run_to) if sets == 1 else (a, run_to))
        for b in range(start1, end1):
            mb = melds[np.uint64(b)] & ~LEAST_JOKER
            jb = 1 if melds[np.uint64(b)] & LEAST_JOKER else 0
            if (mb & ~lo1) != ZERO or jb > jk1:
                continue
            if total == 2:
                return True
            lo2, hi2 = remove_mask(lo1, hi1, mb)
            jk2 = jk1 - jb
            start2, end2 = (b, n_set) if sets >= 3 else ((run_from, run_to) if sets == 2 else (b, run_to))
            for c in range(start2, end2):
                mc = melds[np.uint64(c)] & ~LEAST_JOKER
                jc = 1 if melds[np.uint64(c)] & LEAST_JOKER else 0
                if (mc & ~lo2) == ZERO and jc <= jk2:
                    return True
    return False


# Where contract_ruled_out lists the least runs in its scratch: after the
# most least sets a hand can hold (ten a rank: four choices of three suits,
# six of two suits and a joker).
LEAST_RUNS_AT = 130


@kernel
def contract_ruled_out(lo, hi, jk, sets, runs, whole, min_run, ace_high, scratch):
    """Whether :func:`search_contract` finds no contract for a reason seen before listing any candidate.

    With ``whole``, a card in no meld (:func:`melded_cards` is the
    candidates' union) or more suits than runs when there is no set, as the
    search itself tests once the candidates are listed. Then the contract's
    runs alone, its sets alone, and both kinds together, held at once
    (:func:`_least_melds`): every meld of a contract holds a least meld of
    its kind with no more jokers, and least melds are melds, so the hand
    holds some contract, whatever its size, exactly when it holds disjoint
    least melds of the contract's kinds. Most hands asked about are ruled
    out so, and the listing is skipped. ``scratch`` holds the least melds
    (uint64, at least 400 slots: 130 sets from slot 0 and 256 runs from slot
    :data:`LEAST_RUNS_AT`, the runs with a min_run of 7).
    """
    if whole:
        if (lo & ~melded_cards(lo, jk, min_run, ace_high)) != ZERO:
            return True
        if sets == 0 and _suits(lo) > runs:
            return True
    # Each kind alone first (the cheaper tests), runs before sets: most hands
    # asked about a contract with runs lack them (a run needs min_run cards
    # of a suit in a row), and are then ruled out before their sets are
    # listed. Then both kinds together.
    run_to = LEAST_RUNS_AT
    if runs > 0:
        run_to += _least_melds(lo, jk, KIND_RUN, min_run, ace_high, scratch[LEAST_RUNS_AT:])
        if not _packs(lo, hi, jk, scratch, 0, LEAST_RUNS_AT, run_to, 0, runs):
            return True
    if sets > 0:
        n_set = _least_melds(lo, jk, KIND_SET, min_run, ace_high, scratch)
        if not _packs(lo, hi, jk, scratch, n_set, LEAST_RUNS_AT, run_to, sets, 0):
            return True
        if runs > 0 and not _packs(lo, hi, jk, scratch, n_set, LEAST_RUNS_AT, run_to, sets, runs):
            return True
    return False


@kernel(constants=("packed",))
def search_contract(lo, hi, jk, n, c_mask, c_info, sets, runs, whole, forced, card_limit, out, ws, packed=False):
    """The contract of a Rami contrat deal that lays the most cards; see :func:`_contract`.

    A contract that must use card ``forced`` is searched from the melds
    holding that card: each is laid first and the rest of the contract is
    searched freely in what remains, which is far quicker when the card fits
    few melds (the usual case: the card just drawn).

    ``packed`` says that :func:`contract_ruled_out` found this very hand
    not ruled out: it then holds the contract's sets alone and its runs
    alone, which the search need not test again (:func:`_least_melds` gives
    the test's answer exactly).
    """
    if forced >= 0:
        # No candidate holds the card: no contract can use it, and nothing
        # need be listed.
        holds = False
        for k in range(n):
            if (forced == JOKER and c_info[k, I_JOKER] == 1) or (forced < JOKER and (c_mask[k] & bit(forced))):
                holds = True
                break
        if not holds:
            return -1, 0
    if whole:
        # Deal 7 lays every card: a card in no candidate, or more suits than
        # runs when the contract has no set, rules the hand out (whatever
        # meld a forced card goes in first), before any listing.
        useful = ZERO
        for k in range(n):
            useful |= c_mask[k]
        if (lo & ~useful) != ZERO:
            return -1, 0
        if sets == 0 and _suits(lo) > runs:
            return -1, 0
    n_sets, n_runs, useful = _contract_melds(n, c_mask, c_info, ws, jk == 0)
    wc = ws[0]
    set_idx = wc[0]
    run_idx = wc[1]
    # Most searches find no contract (a seat draws many times before it can
    # lay its contract): a hand that cannot hold the contract's sets alone,
    # or its runs alone, cannot hold the contract. Checked once here, not
    # for every meld the search tries first.
    if not packed:
        if not _holds_disjoint(lo, hi, jk, set_idx, n_sets, sets, c_mask, c_info):
            return -1, 0
        if not _holds_disjoint(lo, hi, jk, run_idx, n_runs, runs, c_mask, c_info):
            return -1, 0
    wm = ws[2]
    if forced < 0:
        return _contract(lo, hi, jk, n_sets, n_runs, c_mask, c_info, sets, runs, whole, useful, card_limit, out,
                         wc, wm)
    best_cards = -1
    best_points = 0
    sub = ws[1][8]
    for k in range(n):
        kind = c_info[k, I_KIND]
        if (kind == KIND_SET and sets == 0) or (kind != KIND_SET and runs == 0):
            continue
        fit, lo1, hi1, jk1, cards1, pts1, used = _contract_slot(k, lo, hi, jk, c_mask, c_info, forced)
        if not fit or not used or cards1 > card_limit:
            continue
        rest_sets = sets - (1 if kind == KIND_SET else 0)
        rest_runs = runs - (0 if kind == KIND_SET else 1)
        cards2, pts2 = _contract(lo1, hi1, jk1, n_sets, n_runs, c_mask, c_info, rest_sets, rest_runs, whole,
                                 useful, card_limit - cards1, sub, wc, wm)
        if cards2 < 0:
            continue
        cards = cards1 + cards2
        points = pts1 + pts2
        if cards > best_cards or (cards == best_cards and points > best_points):
            best_cards, best_points = cards, points
            out[0] = k
            for i in range(rest_sets + rest_runs):
                out[1 + i] = sub[i]
    return best_cards, best_points


@kernel
def _contract(lo, hi, jk, n_sets, n_runs, c_mask, c_info, sets, runs, whole, useful, card_limit, out, wc, wm):
    """The contract of a Rami contrat deal that lays the most cards.

    Exactly ``sets`` sets and ``runs`` runs (two or three melds), disjoint,
    from the candidates of the hand, listed by :func:`_contract_melds`
    (``n_sets`` sets and ``n_runs`` runs, largest first, in ``wc`` and
    ``wm``; rows 3 and 4 of ``wc`` are scratch); ``useful`` the cards some
    candidate uses; with ``whole`` they must hold every card of the hand
    (deal 7). At most ``card_limit`` cards are laid. Ties go to the higher
    opening value. Returns ``(cards laid, points)``, ``(-1, 0)`` when no
    contract can be laid, and the melds' candidate indices in ``out``.

    The melds are picked slot by slot (sets first, then runs, indices never
    decreasing within a kind so each collection is tried once; the same meld
    may be taken twice when the hand holds both copies of its cards), and a
    partial pick that no longer fits the hand is abandoned at once. One to
    three melds; no card is forced here (see :func:`search_contract`).
    """
    total = sets + runs
    if total < 1 or total > 3:
        return -1, 0
    if whole:
        # Every card must sit in one of the melds: a card in no candidate, or
        # more suits than runs when there is no set, rules the hand out at once.
        if (lo & ~useful) != ZERO:
            return -1, 0
        if sets == 0 and _suits(lo) > runs:
            return -1, 0
    set_idx = wc[0]
    run_idx = wc[1]
    at_least = wc[2]  # slot s: the sets of s cards or more; slot 16 + s: the runs (see _contract_melds)
    fit1 = wc[3]
    fit2 = wc[4]
    set_mask = wm[2]
    run_mask = wm[3]
    n_cards = popcount(lo) + popcount(hi) + jk
    ceiling = min(n_cards, card_limit)  # no contract lays more
    biggest_set = c_info[set_idx[0], I_SIZE] if n_sets > 0 else 0
    biggest_run = c_info[run_idx[0], I_SIZE] if n_runs > 0 else 0
    best_cards = -1
    best_points = 0
    len0 = n_sets if sets >= 1 else n_runs
    len1 = (n_sets if sets >= 2 else n_runs) if total >= 2 else 1
    len2 = (n_sets if sets >= 3 else n_runs) if total == 3 else 1
    same01 = sets >= 2 or sets == 0  # slots 0 and 1 of one kind
    same12 = sets == 3 or sets <= 1
    # The most the slots after slot 0 and slot 1 can still add.
    most_after0 = ((biggest_set if sets >= 2 else biggest_run) if total >= 2 else 0) + (
        (biggest_set if sets >= 3 else biggest_run) if total == 3 else 0
    )
    most_after1 = (biggest_set if sets >= 3 else biggest_run) if total == 3 else 0
    list0 = set_idx if sets >= 1 else run_idx
    list1 = set_idx if sets >= 2 else run_idx
    list2 = set_idx if sets >= 3 else run_idx
    mask0 = set_mask if sets >= 1 else run_mask
    mask1 = set_mask if sets >= 2 else run_mask
    mask2 = set_mask if sets >= 3 else run_mask
    # Where the sizes of slot 2's kind are counted in at_least.
    sizes2 = 0 if sets >= 3 else 16
    misfit0 = _misfit(lo, jk)
    for a in range(len0):
        if best_cards >= ceiling:
            break  # nothing can lay more cards
        ka = np.uint64(list0[a])  # unsigned, as the inner loops' indices below
        size_a = c_info[ka, I_SIZE]
        after0 = most_after0
        if same01 and total >= 2:
            # Slot 1 picks from slot 0's meld on, so it is no larger (nor is
            # slot 2 when it picks from slot 1's list too).
            after0 = min(most_after0, size_a + ((size_a if same12 else most_after1) if total == 3 else 0))
        if size_a + after0 < best_cards:
            break  # the melds are sorted by size: no later pick does better
        ma = mask0[a]
        if (ma & misfit0) != ZERO:
            continue
        lo1, hi1 = remove_mask(lo, hi, ma & ~LEAST_JOKER)
        jk1 = jk - (1 if (ma & LEAST_JOKER) != ZERO else 0)
        cards1 = size_a
        pts1 = c_info[ka, I_POINTS]
        if total == 1:
            if cards1 > card_limit or (whole and (lo1 | hi1) != ZERO) or (whole and jk1 != 0):
                continue
            if cards1 > best_cards or (cards1 == best_cards and pts1 > best_points):
                best_cards, best_points = cards1, pts1
                out[0] = ka
            continue
        # The melds of slot 1 that fit the hand slot 0 left, in list order
        # (as positions in the list), and those of slot 2 when of the other
        # kind: the inner loops then visit only melds that can still be laid
        # (a meld that does not fit this hand fits none of its parts either),
        # in the same order, so the first best contract found is the same.
        # One mask test a meld (see _misfit), and no branch on it: every
        # position is written and only those that fit are kept. Whether a
        # meld fits follows no pattern a processor can predict, and a
        # mispredicted branch a meld cost more than the stores (valgrind's
        # branch simulation: 5% fewer mispredicted branches a contrat deal
        # for 0.5% more instructions; 2% more deals a second).
        misfit1 = _misfit(lo1, jk1)
        n1 = 0
        for b in range(a if same01 else 0, len1):
            fit1[n1] = b
            n1 += (mask1[b] & misfit1) == ZERO
        n2 = 0
        if total == 3 and not same12:
            for c in range(len2):
                fit2[n2] = c
                n2 += (mask2[c] & misfit1) == ZERO
        # The most slot 2 can add: its largest meld that still fits, which
        # is no larger than slot 1's own when both are of one kind (slot 2
        # then picks from slot 1's meld on, largest first).
        most_after1_fit = 0
        if total == 3 and not same12:
            most_after1_fit = c_info[np.uint64(list2[np.uint64(fit2[0])]), I_SIZE] if n2 > 0 else 0
        for b in range(n1):
            # Positions and candidate indices read from the lists are unsigned:
            # numba tests a signed index for counting from the end.
            pb = np.uint64(fit1[b])
            kb = np.uint64(list1[pb])
            size_b = c_info[kb, I_SIZE]
            if total == 3 and same12:
                most_after1_fit = size_b
            if cards1 + size_b + min(most_after1, most_after1_fit) < best_cards:
                break
            # No fit test: fit1 holds only melds that fit the hand slot 0 left.
            mb = mask1[pb]
            lo2, hi2 = remove_mask(lo1, hi1, mb & ~LEAST_JOKER)
            jk2 = jk1 - (1 if (mb & LEAST_JOKER) != ZERO else 0)
            cards12 = cards1 + size_b
            pts12 = pts1 + c_info[kb, I_POINTS]
            if total == 2:
                if cards12 > card_limit:
                    continue
                if whole and ((lo2 | hi2) != ZERO or jk2 != 0):
                    continue
                if cards12 > best_cards or (cards12 == best_cards and pts12 > best_points):
                    best_cards, best_points = cards12, pts12
                    out[0], out[1] = ka, kb
                continue
            fit_c = fit1 if same12 else fit2
            misfit2 = _misfit(lo2, jk2)
            # Slot 2's loop stops at its first meld too small to reach
            # best_cards: the list being sorted by size, the first at or past
            # the position where the melds of fewer than best_cards - cards12
            # cards begin (found again when best_cards rises).
            stop = _sized_from(at_least, sizes2, best_cards - cards12)
            for c in range(b if same12 else 0, n1 if same12 else n2):
                pc = fit_c[c]
                if pc >= stop:
                    break
                if (mask2[np.uint64(pc)] & misfit2) != ZERO:
                    continue
                kc = np.uint64(list2[np.uint64(pc)])
                size_c = c_info[kc, I_SIZE]
                if whole and cards12 + size_c != n_cards:
                    continue
                if cards12 + size_c > card_limit:
                    continue
                cards = cards12 + size_c
                points = pts12 + c_info[kc, I_POINTS]
                if cards > best_cards or (cards == best_cards and points > best_points):
                    best_cards, best_points = cards, points
                    out[0], out[1], out[2] = ka, kb, kc
                    stop = _sized_from(at_least, sizes2, best_cards - cards12)
    return best_cards, best_points


@kernel(forceinline=True)
def _misfit(lo, jk):
    """The bits a meld's mask as :func:`_contract_melds` lists it must not have to fit the hand ``(lo, jk)``.

    The cards the hand lacks, and the joker mark when it holds no joker: a
    meld holds one joker at most, so one mask test tells both.
    """
    if jk > 0:
        return ~lo & ~LEAST_JOKER
    return ~lo


@kernel(forceinline=True)
def _sized_from(at_least, offset, size):
    """How many melds of one kind have ``size`` cards or more: ``at_least[offset + size]``, for any ``size``."""
    if size <= 0:
        return at_least[offset]
    if size > 15:
        return 0
    return at_least[offset + size]
