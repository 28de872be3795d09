"""The melds a hand can lay: their listing as candidates, and the quick tests that need no listing.

A *candidate* is a meld the hand ``(lo, jk)`` can lay (the words of
:mod:`sim.engine.bits`): a mask of natural cards (one copy of each), an
optional joker, and its description in an ``info`` row (the ``I_*``
columns below, which a table meld's row shares). :func:`enumerate_melds`
lists every candidate of a hand; the searches pick disjoint ones among
them, :mod:`sim.engine.meld_search` for an opening's points or the most
cards laid, :mod:`sim.engine.contract_search` for a contract of Rami
contrat.

Most questions a turn asks need no listing: whether a card or a joker
would sit in some meld (:func:`card_in_meld`, :func:`joker_in_meld`),
which cards sit in one (:func:`melded_cards`), whether the hand holds any
(:func:`holds_meld`). They read the run windows of every suit at once
(:func:`run_positions`, :func:`window_starts`, :func:`run_cards`), which the
searches' bounds and tests read too.
"""

from __future__ import annotations

import numpy as np

from sim.engine.bits import (
    ONE,
    RANK_CARDS,
    SUIT_BITS,
    ZERO,
    bit,
    code_at,
    lowest,
    popcount,
    position_value,
    rank_of,
    rank_value,
    suit_of,
    suit_ranks,
    window_mask,
)
from sim.engine.jit import kernel

MAX_CANDIDATES = 4096

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

# A hand's naturals as run positions, all four suits in one word: suit s
# holds positions 1 .. 14 at bits 14 s .. 14 s + 13 (the ace at both ends
# when it ranks high), so a shift tests one window position of every suit
# at once, and windows never straddle two suits (see window_starts).
FIELD_ONES = np.uint64(1 | 1 << 14 | 1 << 28 | 1 << 42)  # position 1 of each suit


@kernel(forceinline=True)
def run_positions(lo, ace_high):
    """The naturals of ``lo`` as run positions, four 14-bit suit fields in one word."""
    p = ((lo & SUIT_BITS) | (((lo >> np.uint64(13)) & SUIT_BITS) << np.uint64(14))
         | (((lo >> np.uint64(26)) & SUIT_BITS) << np.uint64(28)) | (((lo >> np.uint64(39)) & SUIT_BITS) << np.uint64(42)))
    if ace_high:
        p |= (p & FIELD_ONES) << np.uint64(13)
    return p


@kernel(forceinline=True)
def _codes(p):
    """The card codes of the positions ``p`` (:func:`run_positions`'s layout): the ace laid high is the ace."""
    q = p | ((p >> np.uint64(13)) & FIELD_ONES)
    return ((q & SUIT_BITS) | (((q >> np.uint64(14)) & SUIT_BITS) << np.uint64(13))
            | (((q >> np.uint64(28)) & SUIT_BITS) << np.uint64(26)) | (((q >> np.uint64(42)) & SUIT_BITS) << np.uint64(39)))


@kernel(forceinline=True)
def window_starts(p, min_run, ace_high, joker):
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
def run_cards(lo, min_run, ace_high, joker):
    """The naturals of ``lo`` that some run of the hand holds (with one joker when ``joker``), as card codes.

    A run's naturals all lie in windows of ``min_run`` positions that hold
    every position, or (with the joker) all but one.
    """
    p = run_positions(lo, ace_high)
    w = window_starts(p, min_run, ace_high, joker)
    cover = w | (w << np.uint64(1)) | (w << np.uint64(2))  # three positions at least, as in window_starts
    for i in range(3, min_run):
        cover |= w << np.uint64(i)
    return _codes(cover & p)


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
        ranks = suit_ranks(lo, suit)
        if ace_high and (ranks & 1):
            ranks |= 1 << 13
        # A run's first min_run positions are all held, or (joker) all but
        # one: bit s of ``first`` says so of positions s + 1 .. s + min_run,
        # the window ending within the suit. The windows starting elsewhere
        # stop below min_run cards, listing nothing, and most suits of a
        # hand have no such start at all.
        if use_joker and popcount(ranks) + 1 < min_run:
            continue
        first = np.int64(window_starts(np.uint64(ranks), min_run, ace_high, use_joker))
        # A window starts on a card of the hand, or (joker) just before one.
        starts = (ranks | ((ranks >> 1) if use_joker else 0)) & first
        if starts == 0:
            continue
        while starts:
            start = lowest(starts) + 1
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
    r0, r1, r2, r3 = suit_ranks(lo, 0), suit_ranks(lo, 1), suit_ranks(lo, 2), suit_ranks(lo, 3)
    three = (r0 & r1 & r2) | (r0 & r1 & r3) | (r0 & r2 & r3) | (r1 & r2 & r3)
    two = (r0 & r1) | (r0 & r2) | (r0 & r3) | (r1 & r2) | (r1 & r3) | (r2 & r3)
    ranks_with_set = two if use_joker else three
    while ranks_with_set:
        rank = lowest(ranks_with_set) + 1
        ranks_with_set &= ranks_with_set - 1
        # The rank's suits, bit 13 s for suit s, as the cards of rank 1.
        suits = (lo >> np.uint64(rank - 1)) & RANK_CARDS
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
                jsuit = lowest(~sub)  # the lowest suit the set lacks
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
    others = popcount(lo & (RANK_CARDS << np.uint64(rank - 1)) & ~bit(code))
    if others >= 2 or (others >= 1 and jk > 0):
        return True
    ranks = np.int64((lo >> np.uint64(13 * suit)) & SUIT_BITS) | (1 << (rank - 1))
    if ace_high and (ranks & 1):
        ranks |= 1 << 13
    # Bit s of ``starts``: the window of positions s + 1 .. s + min_run ends
    # within the suit and holds every position, or all but one with a joker
    # (the suit's positions are field 0 of a word of positions).
    starts = np.int64(window_starts(np.uint64(ranks), min_run, ace_high, jk > 0))
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
    # Every suit's run windows at once (see run_cards).
    out = run_cards(lo, min_run, ace_high, jk > 0)
    r0, r1, r2, r3 = suit_ranks(lo, 0), suit_ranks(lo, 1), suit_ranks(lo, 2), suit_ranks(lo, 3)
    three = (r0 & r1 & r2) | (r0 & r1 & r3) | (r0 & r2 & r3) | (r1 & r2 & r3)
    two = (r0 & r1) | (r0 & r2) | (r0 & r3) | (r1 & r2) | (r1 & r3) | (r2 & r3)
    ranks_with_set = two if jk > 0 else three
    return out | (lo & (np.uint64(ranks_with_set) * RANK_CARDS))


@kernel(forceinline=True)
def holds_meld(lo, jk, min_run, ace_high):
    """Whether the hand ``(lo, jk)`` holds some meld: whether :func:`enumerate_melds` lists any candidate.

    A few word operations, where the listing walks every suit: most hands of
    players who have opened hold no meld.
    """
    r0, r1, r2, r3 = suit_ranks(lo, 0), suit_ranks(lo, 1), suit_ranks(lo, 2), suit_ranks(lo, 3)
    if jk > 0:
        if (r0 & r1) | (r0 & r2) | (r0 & r3) | (r1 & r2) | (r1 & r3) | (r2 & r3):
            return True
    elif (r0 & r1 & r2) | (r0 & r1 & r3) | (r0 & r2 & r3) | (r1 & r2 & r3):
        return True
    return window_starts(run_positions(lo, ace_high), min_run, ace_high, jk > 0) != ZERO
