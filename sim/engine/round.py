"""The round: the buffers it is played on, the deal, the turns until one ends it, and its points."""

from __future__ import annotations

import numpy as np

from sim.cards import N_CODES, N_NATURAL
from sim.engine.params import (
    BLOCKED_HANDS, CONTRACT_DEALS, CONTRACT_DEALT, GAME_BASIC, GAME_CONTRAT, SEC_DOUBLE, SEC_FLAT_200,
    UNOPENED_COUNT_CARDS,
)
from sim.engine.events import EV_BLOCKED, EV_DEAL, record_event, trace_hand, trace_places
from sim.engine.hand import hand_value, take_card
from sim.engine.jit import entry, kernel
from sim.engine.layout import N_FACTS, N_PUB, N_VIEW, PUB_PILE
from sim.engine.bits import JOKER, ZERO
from sim.engine.hand_melds import MAX_CANDIDATES, N_INFO
from sim.engine.rng import shuffle
from sim.engine.state import (
    G_ACCEPT,
    G_ACCEPT_JOKER,
    G_FIRST,
    G_LAST_OPEN,
    G_MELDS,
    G_NFLIPS,
    G_PILE,
    G_RECOVERING,
    G_RESTOCKS,
    G_ROUND,
    G_STOCK,
    G_TRACE,
    G_TURN,
    MAX_ACTIONS,
    MAX_CARDS,
    MAX_FLIPS,
    MAX_MELDS,
    MAX_SEATS,
    N_S,
    S_FIRST_LAY,
    S_OPEN_TURN,
    S_OPENED,
    RoundState,
)
from sim.engine.turn import (
    TURN_BLOCKED,
    TURN_CLOSED,
    TURN_CYCLE,
    TURN_NEXT,
    TURN_OUT,
    play_turn,
)

# Why a round ended without a winner.
BLOCK_NONE, BLOCK_STOCK, BLOCK_TURN_CAP, BLOCK_CYCLE, BLOCK_TABLE_CLOSED = 0, 1, 2, 3, 4


@entry
def make_buffers():
    """Every array a round is played on (a :class:`RoundState`), allocated once per batch of games."""
    return round_state(True)


@entry
def round_state(clear_scratch):
    """A :class:`RoundState`; with ``clear_scratch`` false, the large scratch arrays (candidate melds,
    recoveries, laying actions: some 1.3 MB) are left unset.

    Rollouts (:func:`sim.engine.rollout.run_trials`) take them unset: a searching seat makes a rollout
    every few trials, and clearing them each time cost as much as several playouts, while a trial never
    reads them before its turn writes them.
    """
    c_mask = np.empty(MAX_CANDIDATES, dtype=np.uint64)
    c_info = np.empty((MAX_CANDIDATES, N_INFO), dtype=np.int32)
    s_mask = np.empty(MAX_CANDIDATES, dtype=np.uint64)
    s_info = np.empty((MAX_CANDIDATES, N_INFO), dtype=np.int32)
    act = np.empty((MAX_ACTIONS, 6), dtype=np.int64)
    facts = np.empty((MAX_ACTIONS, N_FACTS), dtype=np.int64)
    r_mask = np.empty(MAX_ACTIONS, dtype=np.uint64)
    r_info = np.empty((MAX_ACTIONS, N_INFO), dtype=np.int32)
    if clear_scratch:
        c_mask[:] = 0
        c_info[:] = 0
        s_mask[:] = 0
        s_info[:] = 0
        act[:] = 0
        facts[:] = 0
        r_mask[:] = 0
        r_info[:] = 0
    return RoundState(
        np.zeros(MAX_SEATS, dtype=np.uint64),  # h_lo
        np.zeros(MAX_SEATS, dtype=np.uint64),  # h_hi
        np.zeros(MAX_SEATS, dtype=np.int64),  # h_jk
        np.zeros(MAX_SEATS, dtype=np.int64),  # h_n
        np.zeros((MAX_SEATS, N_S), dtype=np.int64),  # seats
        np.zeros((MAX_MELDS, N_INFO), dtype=np.int32),  # table
        np.zeros(MAX_MELDS, dtype=np.int32),  # owner
        np.zeros(MAX_CARDS, dtype=np.int64),  # stock
        np.zeros(MAX_CARDS, dtype=np.int64),  # pile
        c_mask,
        c_info,
        s_mask,
        s_info,
        act,
        facts,
        r_mask,
        r_info,
        np.zeros((3, 64), dtype=np.int64),  # open_sel: best, whole hand, without joker
        np.zeros(3, dtype=np.int64),  # open_n
        np.zeros(MAX_FLIPS, dtype=np.uint64),  # flips: position fingerprints at turnings
        np.zeros((N_PUB, N_CODES), dtype=np.int64),  # pub: public card counts (sim.engine.layout)
        np.zeros(N_VIEW, dtype=np.int64),  # view: the scalars of a seat's observation
        np.zeros(N_CODES, dtype=np.int64),  # d_legal: the cards a seat may discard
        np.zeros(N_CODES, dtype=np.float64),  # d_penalty: what each costs left in hand
        np.zeros(N_CODES, dtype=np.bool_),  # d_fits: whether each fits a meld
        np.zeros((MAX_MELDS, 2), dtype=np.uint64),  # takes: what each table meld takes (table_changed)
    )


@kernel
def deal_round(rules, rnd, first, g, ev, st, deck_rng, order):
    """Shuffle with the round's stream and deal: hands, the first discard, the stock.

    ``order``, when not empty, is the deck to deal instead (a scripted deal):
    the first player's cards first, then each seat in turn order, the first
    discard, then the stock from its top down.
    """
    h_lo, h_hi, h_jk, h_n, seats = st.h_lo, st.h_hi, st.h_jk, st.h_n, st.seats
    stock, pile, pub = st.stock, st.pile, st.pub
    n_players = rules.players
    n_cards = N_NATURAL * rules.decks + rules.jokers
    # The deck is laid out in the stock's own slots, dealt from the front;
    # what is left becomes the stock at the end.
    deck = stock
    if order.shape[0] > 0:
        for i in range(n_cards):
            deck[i] = order[i]
    else:
        # The deck, shuffled by the round's own stream: each code once a deck,
        # copies side by side. The ruleset allows one or two decks, so slot i
        # holds code i >> (decks - 1): one loop without a branch, which the
        # compiler vectorises (a loop over the decks within each code cost
        # basic rummy 1.5% of a round's instructions).
        n_natural = N_NATURAL * rules.decks
        per_code = np.int64(rules.decks - 1)
        for i in range(n_natural):
            deck[i] = i >> per_code
        i = n_natural
        for _ in range(rules.jokers):
            deck[i] = JOKER
            i += 1
        shuffle(deck, n_cards, deck_rng, 0)

    g[G_ROUND] = rnd
    g[G_FIRST] = first
    g[G_ACCEPT] = 0
    g[G_ACCEPT_JOKER] = 0
    g[G_RECOVERING] = 0
    g[G_NFLIPS] = 0
    g[G_MELDS] = 0
    g[G_TURN] = 0
    g[G_RESTOCKS] = 0
    g[G_LAST_OPEN] = 0
    for s in range(n_players):
        h_lo[s] = ZERO
        h_hi[s] = ZERO
        h_jk[s] = 0
        h_n[s] = 0
        for col in range(N_S):
            seats[s, col] = 0
        seats[s, S_OPEN_TURN] = -1
        seats[s, S_FIRST_LAY] = -1
    # The ruleset resolved the deal (basic rummy's "auto" included) into
    # rules.hand_size; contrat deals follow the contract table.
    hand_size = rules.hand_size
    if rules.game == GAME_CONTRAT:
        hand_size = CONTRACT_DEALT[rnd % CONTRACT_DEALS]
    i = 0
    for s in range(n_players):
        seat = (first + s) % n_players
        extra = 1 if (s == 0 and rules.first_player_extra_card) else 0
        for _ in range(hand_size + extra):
            take_card(h_lo, h_hi, h_jk, h_n, seat, deck[i])
            i += 1
    pile[0] = deck[i]
    i += 1
    g[G_PILE] = 1
    pub[:, :] = 0
    pub[PUB_PILE, deck[i - 1]] = 1
    n_stock = n_cards - i
    # The stock's top is its last slot: the next card of the deck. The
    # undealt cards go down to slot 0 in reverse order.
    if n_stock <= i:
        # Every slot written was dealt already: one pass, no card overwritten before it is read.
        for j in range(n_stock):
            stock[j] = deck[n_cards - 1 - j]
    else:
        # More undealt cards than dealt ones (few players, small hands): reverse them in place, then move them.
        a, b = i, n_cards - 1
        while a < b:
            deck[a], deck[b] = deck[b], deck[a]
            a += 1
            b -= 1
        for j in range(n_stock):
            stock[j] = deck[i + j]
    g[G_STOCK] = n_stock
    if g[G_TRACE]:
        record_event(ev, g, EV_DEAL, rnd, first, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        for s in range(n_players):
            trace_hand(ev, g, s, h_lo[s], h_hi[s], h_jk[s])
        trace_places(ev, g, stock, pile)


@kernel
def play_round(rules, game, seed, rnd, first, g, ev, st, kinds, params, policy_rng, deck_rng, ws, order, totals,
               round_args):
    """Deal round ``rnd`` on the round state ``st`` and play its turns; returns ``(winner, blocked, rami_sec)``.

    ``winner`` is -1 when the round is blocked (``blocked`` says why). A
    plain table's round function (:func:`sim.engine.game.play_game`): every
    seat's policy decides, so the game, its seed, its totals and
    ``round_args`` (empty), which a searching table's round reads, are not
    read here (nor passed: the engine's linking drops the arguments a
    kernel never reads).
    """
    deal_round(rules, rnd, first, g, ev, st, deck_rng, order)
    status, seat = play_turns(rules, g, ev, st, first, kinds, params, policy_rng, deck_rng, ws)  # turn 0: first
    return round_outcome(rules, g, ev, st, status, seat)


@kernel(forceinline=True)
def play_turns(rules, g, ev, st, seat, kinds, params, policy_rng, deck_rng, ws):
    """Play whole turns from ``seat``'s until one does not hand over; returns ``(status, seat)`` of that turn.

    The round loop of :func:`play_round`, and of a rollout's branch once its
    turn under way is over (:func:`sim.engine.position.finish_round`).
    """
    while True:
        status = play_turn(rules, g, ev, st, seat, kinds, params, policy_rng, deck_rng, ws)
        if status != TURN_NEXT:
            return status, seat
        seat = seat + 1 if seat + 1 < rules.players else 0


@kernel(forceinline=True)
def round_outcome(rules, g, ev, st, status, seat):
    """``(winner, blocked, rami_sec)`` of a round whose last turn, ``seat``'s, ended with ``status``.

    Records the ``blocked`` event of a blocked round.
    """
    winner = -1
    blocked = BLOCK_NONE
    if status == TURN_OUT:
        winner = seat
    elif status == TURN_BLOCKED:
        blocked = BLOCK_STOCK
    elif status == TURN_CYCLE:
        blocked = BLOCK_CYCLE
    elif status == TURN_CLOSED:
        blocked = BLOCK_TABLE_CLOSED
    else:
        blocked = BLOCK_TURN_CAP
    rami_sec = False
    if winner >= 0:
        # The winner laid its first cards in the very turn it went out.
        if st.seats[winner, S_FIRST_LAY] == g[G_TURN]:
            if rules.rami_sec == SEC_DOUBLE:
                rami_sec = True
            elif rules.rami_sec == SEC_FLAT_200:
                rami_sec = True
                for s in range(rules.players):
                    if s != winner and st.seats[s, S_OPENED]:
                        rami_sec = False
    else:
        record_event(ev, g, EV_BLOCKED, g[G_ROUND], blocked, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    return winner, blocked, rami_sec


@entry
def round_points(rules, winner, rami_sec, st):
    """Each seat's points of the round (:func:`score_round`), in a new array of ``MAX_SEATS``."""
    points = np.zeros(MAX_SEATS, dtype=np.int64)
    score_round(rules, winner, rami_sec, st, points)
    return points


@kernel
def score_round(rules, winner, rami_sec, st, points):
    """Each seat's points of the round into ``points`` (zeros beyond the seats)."""
    h_lo, h_hi, h_jk, seats = st.h_lo, st.h_hi, st.h_jk, st.seats
    n_players = rules.players
    for s in range(MAX_SEATS):
        points[s] = 0
    if winner < 0:
        if rules.blocked_scoring == BLOCKED_HANDS:
            for s in range(n_players):
                points[s] = hand_value(h_lo[s], h_hi[s], h_jk[s], rules)
        return
    if rules.game == GAME_BASIC:
        gain = 0
        for s in range(n_players):
            if s != winner:
                gain += hand_value(h_lo[s], h_hi[s], h_jk[s], rules)
        if rami_sec and rules.rami_sec == SEC_DOUBLE:
            gain *= 2
        points[winner] = gain
        return
    for s in range(n_players):
        if s == winner:
            continue
        if not seats[s, S_OPENED] and rules.unopened_penalty != UNOPENED_COUNT_CARDS:
            v = rules.unopened_penalty
        else:
            v = hand_value(h_lo[s], h_hi[s], h_jk[s], rules)
        if rami_sec and rules.rami_sec == SEC_DOUBLE:
            v *= 2
        elif rami_sec and rules.rami_sec == SEC_FLAT_200:
            v = 200
        points[s] = v
