"""The best opening of many hands at once: a search made for that one question.

:func:`sim.rules.best_opening` reads a hand's candidate melds and searches
every collection of them, slowly and obviously. The engine's meld search
(``sim.engine.meld_search``) does the same exactly and fast, for any objective. This
module answers only "what is the best opening total of this hand", for
millions of hands, and uses what that question allows:

suits apart
    Runs stay in one suit and sets in one rank. Once the sets are chosen, each
    suit's runs are found alone, and the suits only share the jokers.
suit patterns
    A suit's cards, as the two 13-bit masks ``a`` (ranks held) and ``b``
    (ranks held twice), repeat from hand to hand far more than hands do (about
    a thousand patterns without joker and eleven thousand with one in 300,000
    random 14-card hands), so a suit's best run totals are memoised by pattern,
    for 0 to 4 jokers and with or without a natural run at once.
run windows
    A card that lies in no window of ``min_run`` positions holding at least
    ``min_run - 1`` cards of its suit (all of them without joker) is in no
    run; it is dropped from the suit's pattern before the memo is read.
free set ranks
    A rank none of whose cards lies in a run window competes with the runs
    only for jokers: its best sets for each number of jokers join the jokers'
    knapsack.
entangled set ranks
    At the other ranks every way to lay sets is tried, save those another way
    beats (as many cards, no more jokers, no more of the cards that lie in run
    windows), and a way is not followed when the sets so far, the runs of the
    whole hand with the jokers left and the most the remaining ranks' sets can
    add cannot beat the best total found.
jokers
    A max-plus knapsack over the suits and the free ranks shares the jokers
    out, each suit's best totals being known for 0 to 4 jokers.

The result is the same as :func:`sim.rules.best_opening` for every hand
(tests check it on thousands of random hands of every preset and of the knobs
that change openings). Scratch and memo live in a :func:`workspace`, kept by
the caller across calls so that the memo stays warm.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
from numba import njit

from sim.engine.bits import JOKER, POSITION_VALUES, rank_of, rank_value, suit_of
from sim.engine.jit import kernel

__all__ = ["best_openings", "workspace"]

MAX_JOKERS = 4  # two packs hold at most four jokers
NEG = -30000  # no collection qualifies (kept in int16 memo rows)
N_RES = 2 * (MAX_JOKERS + 1)  # best totals for 0..4 jokers, then the same holding a natural run
MEMO_BITS = 16
DEPTH = 32  # a suit holds at most 26 cards: one search level each, and one more
MAX_SUIT_RUNS = 256  # runs headed by one card of a suit (at most about 180)


def _set_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every way to lay sets at one rank, as (copies per suit, jokers) pairs.

    A way is one or more sets, each of two to four distinct suits and at
    most one joker, three or four cards in all, taking at most two copies of
    a suit (two packs) and four jokers. Returns ``pack`` (the copies of suit
    ``s`` in bits ``3s .. 3s + 2``), ``jokers``, ``size`` (naturals), sorted
    by cards laid, most first, and ``best[ci, j]``: the most cards ways can
    lay from the copies of count vector ``ci`` (base 3 over suits) with at
    most ``j`` jokers.
    """
    single = [(sub, j) for sub in range(1, 16) for j in (0, 1)
              if bin(sub).count("1") >= 2 and 3 <= bin(sub).count("1") + j <= 4]
    found: set[tuple[tuple[int, ...], int]] = set()

    def grow(start: int, use: tuple[int, ...], jokers: int) -> None:
        for t in range(start, len(single)):
            sub, j = single[t]
            more = tuple(use[s] + (sub >> s & 1) for s in range(4))
            if max(more) <= 2 and jokers + j <= MAX_JOKERS:
                found.add((more, jokers + j))
                grow(t, more, jokers + j)

    grow(0, (0, 0, 0, 0), 0)
    ways = sorted(found, key=lambda w: (-(sum(w[0]) + w[1]), w[1], w[0]))
    use = np.array([w[0] for w in ways], dtype=np.int64)
    jokers = np.array([w[1] for w in ways], dtype=np.int64)
    pack = (use << (3 * np.arange(4))).sum(axis=1)
    counts = np.array([[ci // 3 ** s % 3 for s in range(4)] for ci in range(81)])
    fits = (use[None, :, :] <= counts[:, None, :]).all(axis=2)
    best = np.zeros((81, MAX_JOKERS + 1), dtype=np.int64)
    for j in range(MAX_JOKERS + 1):
        cards = np.where(fits & (jokers <= j)[None, :], use.sum(axis=1) + jokers, 0)
        best[:, j] = cards.max(axis=1)
    return pack, jokers, use.sum(axis=1), best


SET_PACK, SET_JOKERS, SET_SIZE, SET_BEST = _set_tables()
N_WAYS = len(SET_PACK)
FIELD_TOPS = 0b100100100100  # the top bit of each suit's 3-bit field in a pack
POW3 = np.array([1, 3, 9, 27], dtype=np.int64)


def workspace(min_run: int, ace_high: bool) -> tuple:
    """Scratch and memo for :func:`best_openings` under one ``(min_run, ace_high)``.

    The memo rows depend on those two knobs only; a workspace is used by one
    call at a time.
    """
    size = 1 << MEMO_BITS
    top = 14 if ace_high else 13
    return (
        np.array([min_run, top], dtype=np.int64),
        np.cumsum(POSITION_VALUES).astype(np.int64),  # run value of positions 1..e: [e]
        np.zeros((size, 2 + N_RES), dtype=np.int16),  # memo without joker: a, b, totals
        np.zeros((size, 2 + N_RES), dtype=np.int16),  # memo with jokers
        np.full((81 * 16 * (MAX_JOKERS + 1), N_WAYS + 2), -1, dtype=np.int16),  # ways worth trying
    )


_pools: dict[tuple[int, bool], list[tuple]] = {}
_pool_lock = threading.Lock()


@contextmanager
def _borrowed(min_run: int, ace_high: bool) -> Iterator[tuple]:
    """A warm workspace for one call, handed back after it (threads each get their own)."""
    key = (int(min_run), bool(ace_high))
    with _pool_lock:
        free = _pools.setdefault(key, [])
        ws = free.pop() if free else None
    if ws is None:
        ws = workspace(*key)
    try:
        yield ws
    finally:
        with _pool_lock:
            _pools[key].append(ws)


def best_openings(hands: np.ndarray, decks: int, jokers: int, min_run: int, ace_high: bool,
                  need_natural: bool) -> tuple[np.ndarray, int]:
    """Best opening total of every row of ``hands`` (int64 card codes, -1 pads).

    Returns the totals (int64, one per row) and -1, or the first row that
    holds more than ``decks`` copies of a natural card or more than
    ``jokers`` jokers (rows from it on are then not filled).
    """
    out = np.zeros(hands.shape[0], dtype=np.int64)
    with _borrowed(min_run, ace_high) as ws:
        bad = _best_openings(hands, decks, jokers, need_natural, out, *ws)
    return out, bad


@kernel(forceinline=True)
def _lowest_rank(x):
    """Rank (1 .. 13) of the lowest set bit of a non-zero rank mask."""
    r = 1
    while not (x >> (r - 1)) & 1:
        r += 1
    return r


@kernel(forceinline=True)
def _positions(a, top):
    """A suit's ranks as run positions 1 .. top (bits 0 .. top - 1): the ace also at 14 when it may be high."""
    if top == 14:
        return a | ((a & 1) << 13)
    return a


@kernel(forceinline=True)
def _in_windows(a, jokers, m, top):
    """The ranks of ``a`` that lie in some window of ``m`` positions holding ``m`` cards, or ``m - 1`` with jokers."""
    p = _positions(a, top)
    if jokers == 0:
        w = p
        for i in range(1, m):
            w &= p >> i
    else:
        # Windows missing at most one position: a position missing twice sets z2.
        z1 = 0
        z2 = 0
        for i in range(m):
            x = ~(p >> i)
            z2 |= z1 & x
            z1 |= x
        w = ~z2
    w &= (1 << (top - m + 1)) - 1
    if w == 0:
        return 0
    cover = 0
    for i in range(m):
        cover |= w << i
    cover &= p
    return (cover | (cover >> 13)) & 0x1FFF


@kernel(forceinline=True)
def _slot(a, b):
    h = np.uint64(a | (b << 13)) * np.uint64(0x9E3779B97F4A7C15)
    return np.int64(h >> np.uint64(64 - MEMO_BITS))


@kernel(forceinline=True)
def _push(runs, d, n, window, value, joker):
    runs[d, n, 0] = window
    runs[d, n, 1] = value
    runs[d, n, 2] = joker
    return n + 1


@kernel(forceinline=True)
def _open_suit(a, b, d, jokers, m, top, cum, memo, res, runs, frames):
    """Start the search of a suit's cards ``(a, b)`` at depth ``d``.

    True when ``res[d]`` already holds the answer (no run, or the memo knew
    it); else lists in ``runs[d]`` the runs headed by the suit's lowest rank
    and sets up ``frames[d]``.
    """
    keep = _in_windows(a, jokers, m, top)
    a &= keep
    b &= keep
    if a == 0:
        for k in range(MAX_JOKERS + 1):
            res[d, k] = 0
            res[d, MAX_JOKERS + 1 + k] = NEG
        return True
    slot = _slot(a, b)
    if memo[slot, 0] == a and memo[slot, 1] == b:
        for i in range(N_RES):
            res[d, i] = memo[slot, 2 + i]
        return True
    r = _lowest_rank(a)
    p = _positions(a, top)
    gaps = 1 if jokers > 0 else 0
    n = 0
    # Runs from position r: each position a card held or (once) the joker,
    # which may also stand for a card held, freeing it for another run.
    missing = 0
    gap = 0
    for e in range(r, min(top, r + 12) + 1):
        if not (p >> (e - 1)) & 1:
            missing += 1
            gap = e
            if missing > gaps:
                break
        if e - r + 1 < m:
            continue
        value = cum[e] - cum[r - 1]
        window = ((1 << (e - r + 1)) - 1) << (r - 1)
        if missing == 0:
            n = _push(runs, d, n, window, value, 0)
            if jokers > 0:
                for q in range(r + 1, e + 1):
                    n = _push(runs, d, n, window & ~(1 << (q - 1)), value, 1)
        else:
            n = _push(runs, d, n, window & ~(1 << (gap - 1)), value, 1)
    # Runs from position r - 1, the joker standing for it.
    if jokers > 0 and r >= 2:
        for e in range(r, min(top, r + 11) + 1):
            if not (p >> (e - 1)) & 1:
                break
            if e - r + 2 < m:
                continue
            n = _push(runs, d, n, ((1 << (e - r + 1)) - 1) << (r - 1), cum[e] - cum[r - 2], 1)
    # Runs ending on the ace high: the ace is then their lowest card.
    if r == 1 and top == 14:
        missing = 0
        gap = 0
        for s in range(13, 1, -1):
            if not (p >> (s - 1)) & 1:
                missing += 1
                gap = s
                if missing > gaps:
                    break
            if 15 - s < m:
                continue
            value = cum[14] - cum[s - 1]
            window = ((1 << (15 - s)) - 1) << (s - 1)
            if missing == 0:
                n = _push(runs, d, n, window, value, 0)
                if jokers > 0:
                    for q in range(s, 14):
                        n = _push(runs, d, n, window & ~(1 << (q - 1)), value, 1)
            else:
                n = _push(runs, d, n, window & ~(1 << (gap - 1)), value, 1)
    frames[d, 0] = a
    frames[d, 1] = b
    frames[d, 2] = slot
    frames[d, 3] = n
    frames[d, 4] = -1
    return False


@kernel(forceinline=True)
def _suit_runs(a0, b0, jokers, m, top, cum, memo, res, runs, frames):
    """Best run totals of one suit's cards ``(a0, b0)``, into ``res[0]``.

    ``res[0, k]``: the best total of disjoint runs using at most ``k``
    jokers (k = 0 .. 4, or only 0 when ``jokers`` is 0); ``res[0, 5 + k]``:
    the same among collections holding a natural run (``NEG`` if none).

    Exact, as :func:`sim.rules.best_collection`: the suit's lowest card
    either stays out of every run (one copy of it) or heads one of the runs
    listed by :func:`_open_suit`; every collection of disjoint runs is
    reached that way. Depth-first with an explicit stack (numba's cache
    mishandles recursive functions).
    """
    nat = MAX_JOKERS + 1
    kmax = MAX_JOKERS if jokers > 0 else 0
    d = 0
    ready = _open_suit(a0, b0, 0, jokers, m, top, cum, memo, res, runs, frames)
    while True:
        if ready:
            if d == 0:
                return
            # Fold the finished child into its parent.
            d -= 1
            i = frames[d, 4]
            if i < 0:
                for t in range(N_RES):
                    res[d, t] = res[d + 1, t]
            else:
                value = runs[d, i, 1]
                joker = runs[d, i, 2]
                for k in range(joker, kmax + 1):
                    v = value + res[d + 1, k - joker]
                    if v > res[d, k]:
                        res[d, k] = v
                    w = v if joker == 0 else value + res[d + 1, nat + k - 1]
                    if w >= 0 and w > res[d, nat + k]:
                        res[d, nat + k] = w
            frames[d, 4] = i + 1
        i = frames[d, 4]
        a = frames[d, 0]
        b = frames[d, 1]
        if i < 0:
            low = a & -a
            if b & low:
                b &= ~low
            else:
                a &= ~low
            ready = _open_suit(a, b, d + 1, jokers, m, top, cum, memo, res, runs, frames)
            d += 1
        elif i < frames[d, 3]:
            window = runs[d, i, 0]
            used = (window | (window >> 13)) & 0x1FFF
            ready = _open_suit(a & ~(used & ~b), b & ~used, d + 1, jokers, m, top, cum, memo, res, runs, frames)
            d += 1
        else:
            slot = frames[d, 2]
            memo[slot, 0] = a
            memo[slot, 1] = b
            for t in range(N_RES):
                memo[slot, 2 + t] = res[d, t]
            ready = True


@kernel(forceinline=True)
def _count_vector(sa, sb, rank):
    """The copies of ``rank`` in each suit, as one base-3 number."""
    ci = 0
    for s in range(4):
        ci += (((sa[s] >> (rank - 1)) & 1) + ((sb[s] >> (rank - 1)) & 1)) * POW3[s]
    return ci


@kernel(forceinline=True)
def _share_jokers(cur0, cur1, g, jmax):
    """``cur`` := best of ``cur`` and ``g`` together, for 0 .. ``jmax`` jokers, the natural run carried.

    ``cur0[j]``/``g[j]``: best totals with at most j jokers; ``cur1``/``g[5 + j]``:
    the same holding a natural run (negative if none).
    """
    nat = MAX_JOKERS + 1
    for j in range(jmax, -1, -1):
        b0 = NEG
        b1 = NEG
        for i in range(j + 1):
            g0 = g[i]
            g1 = g[nat + i]
            v = cur0[j - i] + g0
            if v > b0:
                b0 = v
            if cur1[j - i] >= 0:
                v = cur1[j - i] + g0
                if v > b1:
                    b1 = v
            if g1 >= 0:
                v = cur0[j - i] + g1
                if v > b1:
                    b1 = v
        cur0[j] = b0
        cur1[j] = b1


@kernel(forceinline=True)
def _runs_total(sa, sb, hand_a, hand_b, g_hand, jleft, free_sets, need_natural, m, top, cum, memo0, memo1, res, runs,
                frames, kn):
    """Best total of the suits' runs ``(sa, sb)`` and the free ranks' sets with ``jleft`` jokers (NEG if none)."""
    cur0 = kn[0]
    cur1 = kn[1]
    for j in range(jleft + 1):
        cur0[j] = free_sets[j]
        cur1[j] = NEG
    for s in range(4):
        if sa[s] == hand_a[s] and sb[s] == hand_b[s]:
            for i in range(N_RES):
                res[0, i] = g_hand[s, i]
        elif jleft == 0:
            # No joker left: the smaller memo of runs without joker answers.
            _suit_runs(sa[s], sb[s], 0, m, top, cum, memo0, res, runs, frames)
        else:
            _suit_runs(sa[s], sb[s], 1, m, top, cum, memo1, res, runs, frames)
        _share_jokers(cur0, cur1, res[0], jleft)
    return cur1[jleft] if need_natural else cur0[jleft]


@kernel(forceinline=True)
def _set_ways(ci, rank, jleft, in_runs, ways):
    """The row of ``ways`` listing the ways worth trying to lay sets at ``rank`` (-1: none).

    Runs only feel the copies a way takes of cards that lie in run windows
    (``in_runs``, per suit): a way that lays no more cards, uses no fewer
    jokers and takes no fewer of those than another is dropped. Column 0 of
    the row holds how many ways follow; rows are filled on first use, by
    count vector, suits whose card lies in a run window, and jokers left.
    """
    bit = 1 << (rank - 1)
    suits = 0
    fields = 0
    for s in range(4):
        if in_runs[s] & bit:
            suits |= 1 << s
            fields |= 7 << (3 * s)
    row = (ci * 16 + suits) * (MAX_JOKERS + 1) + jleft
    if ways[row, 0] >= 0:
        return row
    held = 0
    for s in range(4):
        held |= ((ci // POW3[s]) % 3) << (3 * s)
    kept = 0
    for x in range(-1, N_WAYS):
        jx, sx, ux = 0, 0, 0
        if x >= 0:
            # Ways that fit the copies held (no borrow out of a suit's field) and the jokers left.
            if SET_JOKERS[x] > jleft or ((held | FIELD_TOPS) - SET_PACK[x]) & FIELD_TOPS != FIELD_TOPS:
                continue
            jx, sx, ux = SET_JOKERS[x], SET_SIZE[x] + SET_JOKERS[x], SET_PACK[x] & fields
        beaten = False
        for y in range(-1, N_WAYS):
            if y == x:
                continue
            jy, sy, uy = 0, 0, 0
            if y >= 0:
                if SET_JOKERS[y] > jleft or ((held | FIELD_TOPS) - SET_PACK[y]) & FIELD_TOPS != FIELD_TOPS:
                    continue
                jy, sy, uy = SET_JOKERS[y], SET_SIZE[y] + SET_JOKERS[y], SET_PACK[y] & fields
            if jy <= jx and sy >= sx and ((ux | FIELD_TOPS) - uy) & FIELD_TOPS == FIELD_TOPS:
                if jy < jx or sy > sx or uy != ux or y < x:
                    beaten = True
                    break
        if not beaten:
            kept += 1
            ways[row, kept] = x
    ways[row, 0] = kept
    return row


@kernel(forceinline=True)
def _with_sets(n_ent, ent, sa, sb, g_hand, jk, free_sets, need_natural, m, top, cum, memo0, memo1, res, runs, frames,
               kn, sf, ways, in_runs, in_runs0, bound):
    """Best total over the ways to lay sets at the entangled ranks ``ent[:n_ent]`` (NEG if none qualifies).

    Row ``i`` of ``sa, sb`` holds the suits once ranks ``ent[:i]`` are
    decided; ``sf[i]`` the next way to try, the ways' row, the jokers left
    and the sets' total. ``bound[n_ent + 1, j]`` is the best total of the
    whole hand's runs with ``j`` jokers, ``bound[i, j]`` the most the sets of
    ranks ``ent[i:]`` can add with ``j`` jokers.
    """
    # No set at the entangled ranks is the first collection to beat.
    best = bound[n_ent + 1, jk]
    i = 0
    sf[0, 0] = -2
    sf[0, 2] = jk
    sf[0, 3] = 0
    while i >= 0:
        if i == n_ent:
            # Only reached by a collection laying a set: the runs lose cards.
            v = _runs_total(sa[i], sb[i], sa[0], sb[0], g_hand, sf[i, 2], free_sets, need_natural, m, top, cum,
                            memo0, memo1, res, runs, frames, kn)
            if v >= 0 and sf[i, 3] + v > best:
                best = sf[i, 3] + v
            i -= 1
            continue
        rank = ent[i]
        if sf[i, 0] == -2:
            # With no joker left, only natural runs compete with the sets.
            fits = in_runs0 if sf[i, 2] == 0 else in_runs
            sf[i, 1] = _set_ways(_count_vector(sa[i], sb[i], rank), rank, sf[i, 2], fits, ways)
            sf[i, 0] = 1
        x = sf[i, 0]
        row = sf[i, 1]
        if x > ways[row, 0]:
            i -= 1
            continue
        sf[i, 0] = x + 1
        w = ways[row, x]
        j = 0
        size = 0
        pack = 0
        if w >= 0:
            j = SET_JOKERS[w]
            size = SET_SIZE[w] + j
            pack = SET_PACK[w]
        jleft = sf[i, 2] - j
        value = sf[i, 3] + rank_value(rank) * size
        total = bound[n_ent + 1, jleft]
        if total < 0 or value + total + bound[i + 1, jleft] <= best:
            continue
        bit = 1 << (rank - 1)
        for s in range(4):
            k = (pack >> (3 * s)) & 7
            a = sa[i, s]
            b = sb[i, s]
            if k == 2:
                a &= ~bit
                b &= ~bit
            elif k == 1:
                if b & bit:
                    b &= ~bit
                else:
                    a &= ~bit
            sa[i + 1, s] = a
            sb[i + 1, s] = b
        sf[i + 1, 0] = -2
        sf[i + 1, 2] = jleft
        sf[i + 1, 3] = value
        i += 1
    return best


@kernel(forceinline=True)
def _hand_opening(a4, b4, jk, need_natural, m, top, cum, memo0, memo1, ways, res, runs, frames, kn, sa, sb, sf, g_hand,
                  free_sets, ent, in_runs, in_runs0, bound):
    """Best opening total of the hand whose suits hold ranks ``a4`` (once) and ``b4`` (twice), with ``jk`` jokers."""
    jk = min(jk, MAX_JOKERS)
    memo = memo1 if jk > 0 else memo0
    any_natural = 0
    any_run = 0
    for s in range(4):
        in_runs0[s] = _in_windows(a4[s], 0, m, top)
        in_runs[s] = _in_windows(a4[s], jk, m, top) if jk > 0 else in_runs0[s]
        any_natural |= in_runs0[s]
        any_run |= in_runs[s]
    if need_natural and any_natural == 0:
        return 0
    r0, r1, r2, r3 = a4[0], a4[1], a4[2], a4[3]
    if jk > 0:
        settable = (r0 & r1) | (r0 & r2) | (r0 & r3) | (r1 & r2) | (r1 & r3) | (r2 & r3)
    else:
        settable = (r0 & r1 & r2) | (r0 & r1 & r3) | (r0 & r2 & r3) | (r1 & r2 & r3)
    if settable == 0 and any_run == 0:
        return 0
    for j in range(jk + 1):
        free_sets[j] = 0
    free = settable & ~any_run
    while free:
        rank = _lowest_rank(free)
        free &= free - 1
        ci = _count_vector(a4, b4, rank)
        value = rank_value(rank)
        for j in range(jk, -1, -1):
            best = free_sets[j]
            for i in range(j + 1):
                v = free_sets[j - i] + value * SET_BEST[ci, i]
                if v > best:
                    best = v
            free_sets[j] = best
    n_ent = 0
    tangled = settable & any_run
    while tangled:
        ent[n_ent] = _lowest_rank(tangled)
        tangled &= tangled - 1
        n_ent += 1
    for s in range(4):
        sa[0, s] = a4[s]
        sb[0, s] = b4[s]
        _suit_runs(a4[s], b4[s], jk, m, top, cum, memo, res, runs, frames)
        for i in range(N_RES):
            g_hand[s, i] = res[0, i]
    cur0 = kn[0]
    cur1 = kn[1]
    for j in range(jk + 1):
        cur0[j] = free_sets[j]
        cur1[j] = NEG
    for s in range(4):
        _share_jokers(cur0, cur1, g_hand[s], jk)
    for j in range(jk + 1):
        bound[n_ent + 1, j] = cur1[j] if need_natural else cur0[j]
        bound[n_ent, j] = 0
    for i in range(n_ent - 1, -1, -1):
        ci = _count_vector(a4, b4, ent[i])
        for j in range(jk + 1):
            bound[i, j] = bound[i + 1, j] + rank_value(ent[i]) * SET_BEST[ci, j]
    if n_ent == 0:
        return max(bound[1, jk], 0)
    return max(_with_sets(n_ent, ent, sa, sb, g_hand, jk, free_sets, need_natural, m, top, cum, memo0, memo1, res, runs,
                          frames, kn, sf, ways, in_runs, in_runs0, bound), 0)


@njit(cache=True, nogil=True)
def _best_openings(hands, decks, jokers, need_natural, out, knobs, cum, memo0, memo1, ways):
    """The batch kernel: ``out[h]`` := best opening of row ``h``; -1, or the first impossible row."""
    m = knobs[0]
    top = knobs[1]
    res = np.empty((DEPTH, N_RES), dtype=np.int64)
    runs = np.empty((DEPTH, MAX_SUIT_RUNS, 3), dtype=np.int64)
    frames = np.empty((DEPTH, 5), dtype=np.int64)
    kn = np.empty((2, MAX_JOKERS + 1), dtype=np.int64)
    sa = np.empty((14, 4), dtype=np.int64)
    sb = np.empty((14, 4), dtype=np.int64)
    sf = np.empty((14, 4), dtype=np.int64)
    g_hand = np.empty((4, N_RES), dtype=np.int64)
    free_sets = np.empty(MAX_JOKERS + 1, dtype=np.int64)
    ent = np.empty(13, dtype=np.int64)
    in_runs = np.empty(4, dtype=np.int64)
    in_runs0 = np.empty(4, dtype=np.int64)
    bound = np.empty((15, MAX_JOKERS + 1), dtype=np.int64)
    a4 = np.empty(4, dtype=np.int64)
    b4 = np.empty(4, dtype=np.int64)
    for h in range(hands.shape[0]):
        for s in range(4):
            a4[s] = 0
            b4[s] = 0
        jk = 0
        for j in range(hands.shape[1]):
            c = hands[h, j]
            if c < 0:
                continue
            if c == JOKER:
                jk += 1
                continue
            s = suit_of(c)
            bit = 1 << (rank_of(c) - 1)
            if b4[s] & bit or (decks == 1 and a4[s] & bit):
                return h
            if a4[s] & bit:
                b4[s] |= bit
            else:
                a4[s] |= bit
        if jk > jokers:
            return h
        out[h] = _hand_opening(a4, b4, jk, need_natural, m, top, cum, memo0, memo1, ways, res, runs, frames, kn, sa,
                               sb, sf, g_hand, free_sets, ent, in_runs, in_runs0, bound)
    return -1
