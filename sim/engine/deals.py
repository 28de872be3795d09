"""Deals without play: the engine's own deal of many rounds, and what the hands dealt hold.

The odds tables (``sim.odds``) and the conditioned deals (``sim.deals``) ask
questions of the hands a game is dealt, not of hands shuffled some other way.
:func:`deal_many` therefore seeds each round's deck stream with
:func:`sim.engine.game.seed_round` and deals it with
:func:`sim.engine.round.deal_round`, the very two kernels a game runs, and
only copies out what they left: each seat's hand, the stock from its top, and
the discard. A deal that a condition rejects is dealt again from the same
stream, continued (``states`` carries it from one call to the next), so the
deals of a seed are reproducible whatever the calls' sizes.

The other kernels answer, for many hands at once, the questions the engine's
meld search already answers one hand at a time: whether a hand holds a
contract (:func:`contracts_held`), the most cards its melds hold
(:func:`most_melded`) and its best opening total (:func:`opening_totals`,
the general search against which the tests and ``benchmarks/bench_openings.py``
hold the search made for that one question, :mod:`sim.engine.openings`).
"""

from __future__ import annotations

import numpy as np

from sim.engine.bits import JOKER, ONE, ZERO, add_card, bit, lowest
from sim.engine.contract_search import contract_ruled_out, search_contract
from sim.engine.events import N_EV
from sim.engine.game import seed_round
from sim.engine.hand_melds import MAX_CANDIDATES, N_INFO, enumerate_melds
from sim.engine.jit import entry, kernel
from sim.engine.meld_search import search, workspace
from sim.engine.rng import STREAM_HELD_DEAL, below, derive_seed, uniform
from sim.engine.round import deal_round, make_buffers
from sim.engine.state import G_PILE, G_STOCK, MAX_SEATS, N_G

__all__ = ["deck_streams", "deal_many", "deal_held", "streams_after", "contracts_held", "most_melded",
           "opening_totals"]


@entry
def deck_streams(seed, games, rnd):
    """The deck stream of round ``rnd`` of each game of ``games``, as a game seeds it (uint64 each)."""
    states = np.empty(games.shape[0], dtype=np.uint64)
    policy_rng = np.empty(MAX_SEATS, dtype=np.uint64)
    deck_rng = np.empty(1, dtype=np.uint64)
    for i in range(games.shape[0]):
        seed_round(seed, games[i], rnd, policy_rng, deck_rng)
        states[i] = deck_rng[0]
    return states


@entry
def deal_many(rules, rnd, states, rows, hands, stock, pile):
    """Deal round ``rnd`` once for each stream ``states[rows[i]]``, as :func:`deal_round` deals it.

    Writes, for row ``i``: ``hands[i, seat, :]`` each seat's card codes
    (ascending, jokers last, -1 after them), ``stock[i, k]`` the ``k``-th
    card from the stock's top (``k`` below ``stock.shape[1]``, -1 past its
    end) and ``pile[i]`` the discard dealt face up. Each stream is advanced
    in place by the shuffle, so a second call deals the next deal of the
    same streams.
    """
    ev = np.zeros((1, N_EV), dtype=np.int32)
    g = np.zeros(N_G, dtype=np.int64)
    st = make_buffers()
    order = np.zeros(0, dtype=np.int64)
    deck_rng = np.empty(1, dtype=np.uint64)
    first = rnd % rules.players
    width = hands.shape[2]
    for i in range(rows.shape[0]):
        r = rows[i]
        deck_rng[0] = states[r]
        deal_round(rules, rnd, first, g, ev, st, deck_rng, order)
        states[r] = deck_rng[0]
        for s in range(rules.players):
            k = 0
            lo = st.h_lo[s]
            hi = st.h_hi[s]
            # One step per card held rather than per card of the pack.
            while lo != ZERO:
                c = lowest(lo)
                hands[i, s, k] = c
                k += 1
                if hi & bit(c):
                    hands[i, s, k] = c
                    k += 1
                lo &= lo - ONE
            for _ in range(st.h_jk[s]):
                hands[i, s, k] = JOKER
                k += 1
            while k < width:
                hands[i, s, k] = -1
                k += 1
        n_stock = g[G_STOCK]
        for k in range(stock.shape[1]):
            stock[i, k] = st.stock[n_stock - 1 - k] if k < n_stock else -1
        pile[i] = st.pile[g[G_PILE] - 1]


@entry
def streams_after(rules, rnd, states, deals):
    """Where each deck stream ``states[i]`` stands after ``deals[i]`` deals of round ``rnd`` (a new array).

    Deals them again with :func:`deal_round` on scratch buffers, so the
    answer is whatever a deal consumes of its stream.
    """
    ev = np.zeros((1, N_EV), dtype=np.int32)
    g = np.zeros(N_G, dtype=np.int64)
    st = make_buffers()
    order = np.zeros(0, dtype=np.int64)
    deck_rng = np.empty(1, dtype=np.uint64)
    first = rnd % rules.players
    out = np.empty(states.shape[0], dtype=np.uint64)
    for i in range(states.shape[0]):
        deck_rng[0] = states[i]
        for _ in range(deals[i]):
            deal_round(rules, rnd, first, g, ev, st, deck_rng, order)
        out[i] = deck_rng[0]
    return out


@entry
def deal_held(orders, games, attempts, seed, rnd, hands, held, named, copies, counts, cdf):
    """Give held hands exactly the named cards a count draw says, the rest of each deck kept in its shuffled order.

    ``orders[i]``: deal ``attempts[i]`` of round ``rnd`` of game ``games[i]``,
    the whole deck in dealing order; rewritten in place. ``hands``: where
    each hand starts in that order, and where the last ends (the hands come
    sorted, not shuffled). ``held``: for each
    position, the held hand it belongs to (0 ..) or -1. ``named``: a bool per
    card code, the cards named; ``copies[c]``: the copies of card ``c`` in the
    deck. ``counts[j, f, c]``: the ``j``-th possible count of card ``c`` in
    held hand ``f``, drawn with probability ``cdf[j] - cdf[j - 1]``.

    From the stream ``STREAM_HELD_DEAL`` of the game, round and deal, a
    count is drawn, and the named cards not held go to positions drawn
    uniformly among those outside the held hands, in a uniform order. The
    cards not named keep their shuffled order (each hand's cards, which come
    sorted, shuffled first from the same stream) and fill the other
    positions in turn: being a uniform shuffle of those cards, the deal is a
    uniform shuffle given the counts held (the hands are multisets: where
    the named cards sit inside one does not matter).
    """
    n, size = orders.shape
    n_held = counts.shape[1]
    n_codes = counts.shape[2]
    state = np.empty(1, dtype=np.uint64)
    outside = np.empty(size, dtype=np.int64)
    n_outside = 0
    for p in range(size):
        if held[p] < 0:
            outside[n_outside] = p
            n_outside += 1
    spots = np.empty(n_outside, dtype=np.int64)
    rest = np.empty(size, dtype=np.int64)
    out = np.empty(size, dtype=np.int64)
    fill = np.zeros(n_held, dtype=np.int64)
    for i in range(n):
        state[0] = derive_seed(derive_seed(np.uint64(seed), games[i], rnd, STREAM_HELD_DEAL), attempts[i], 0,
                               STREAM_HELD_DEAL)
        u = uniform(state, 0)
        j = 0
        while j < cdf.shape[0] - 1 and cdf[j] <= u:
            j += 1
        # A sorted hand would give its low cards first: its cards in a uniform order, as dealt.
        for h in range(hands.shape[0] - 1):
            lo = hands[h]
            for k in range(hands[h + 1] - lo - 1, 0, -1):
                t = below(state, 0, k + 1)
                tmp = orders[i, lo + k]
                orders[i, lo + k] = orders[i, lo + t]
                orders[i, lo + t] = tmp
        # The cards not named, in their shuffled order.
        n_rest = 0
        for p in range(size):
            c = orders[i, p]
            if not named[c]:
                rest[n_rest] = c
                n_rest += 1
        for p in range(size):
            out[p] = -1
        # Each held hand's named cards: the drawn counts, in its first positions.
        fill[:] = 0
        for p in range(size):
            f = held[p]
            if f >= 0 and fill[f] == 0:
                q = p
                for c in range(n_codes):
                    for _ in range(counts[j, f, c]):
                        out[q] = c
                        q += 1
                fill[f] = 1
        # The named cards left over: uniform positions outside the held hands (a partial Fisher-Yates).
        for k in range(n_outside):
            spots[k] = outside[k]
        k = 0
        for c in range(n_codes):
            if not named[c]:
                continue
            left = copies[c]
            for f in range(n_held):
                left -= counts[j, f, c]
            for _ in range(left):
                t = k + below(state, 0, n_outside - k)
                tmp = spots[k]
                spots[k] = spots[t]
                spots[t] = tmp
                out[spots[k]] = c
                k += 1
        r = 0
        for p in range(size):
            if out[p] < 0:
                out[p] = rest[r]
                r += 1
        for p in range(size):
            orders[i, p] = out[p]


@kernel
def row_hand(hands, i):
    """Row ``i`` of ``hands`` (int64 code rows, -1 pads) as a hand: ``(lo, hi, jk, cards)``."""
    lo = ZERO
    hi = ZERO
    jk = 0
    n_cards = 0
    for j in range(hands.shape[1]):
        c = hands[i, j]
        if c < 0:
            continue
        n_cards += 1
        if c == JOKER:
            jk += 1
        else:
            lo, hi = add_card(lo, hi, c)
    return lo, hi, jk, n_cards


@entry
def contracts_held(hands, sets, runs, whole, min_run, ace_high, out):
    """Whether each hand (int64 code rows, -1 pads) holds the contract ``sets`` sets and ``runs`` runs.

    ``whole``: the contract must hold the whole hand (Rami contrat's deal 7).
    The compiled contract search of the turn, asked of one hand after another:
    ``out[i]`` is 1 when it finds the contract, as :func:`sim.rules.meets_contract`.
    """
    c_mask = np.empty(MAX_CANDIDATES, dtype=np.uint64)
    c_info = np.empty((MAX_CANDIDATES, N_INFO), dtype=np.int32)
    sel = np.empty(64, dtype=np.int64)
    scratch = np.empty(512, dtype=np.uint64)
    ws = workspace()
    for i in range(hands.shape[0]):
        lo, hi, jk, n_cards = row_hand(hands, i)
        if contract_ruled_out(lo, hi, jk, sets, runs, whole, min_run, ace_high, scratch):
            out[i] = 0
            continue
        n = enumerate_melds(lo, jk, min_run, ace_high, c_mask, c_info)
        laid, _ = search_contract(lo, hi, jk, n, c_mask, c_info, sets, runs, whole, -1, n_cards, sel, ws)
        out[i] = 1 if laid >= 0 else 0


@kernel
def best_melds(hands, min_run, ace_high, objective, need_natural, out, c_mask, c_info, sel, ws):
    """The engine's exact meld search asked of one hand (int64 code rows, -1 pads) after another: the best value
    of each under ``objective`` (0 the opening's points, 1 the cards melded), 0 if none, into ``out``."""
    for i in range(hands.shape[0]):
        lo, hi, jk, _ = row_hand(hands, i)
        n = enumerate_melds(lo, jk, min_run, ace_high, c_mask, c_info)
        value, _ = search(lo, hi, jk, n, c_mask, c_info, objective, need_natural, -1, 1000, 0, sel, ws)
        out[i] = max(value, 0)


@entry
def most_melded(hands, min_run, ace_high, out):
    """The most cards of each hand (int64 code rows, -1 pads) that disjoint melds hold, into ``out``:
    :func:`sim.rules.max_melded_cards` for many hands."""
    best_melds(hands, min_run, ace_high, 1, False, out, np.empty(MAX_CANDIDATES, dtype=np.uint64),
               np.empty((MAX_CANDIDATES, N_INFO), dtype=np.int32), np.empty(64, dtype=np.int64), workspace())


@entry
def opening_totals(hands, min_run, ace_high, need_natural, out):
    """The best opening total of each hand (int64 code rows, -1 pads), 0 if none, into ``out``:
    :func:`sim.rules.best_opening` for many hands, as :func:`sim.engine.openings.best_openings` answers it by a
    search of its own."""
    best_melds(hands, min_run, ace_high, 0, need_natural, out, np.empty(MAX_CANDIDATES, dtype=np.uint64),
               np.empty((MAX_CANDIDATES, N_INFO), dtype=np.int32), np.empty(64, dtype=np.int64), workspace())
