"""A turn played one decision at a time, for positions and rollouts.

:func:`sim.engine.play.play_turn` plays a whole turn in one call, asking
the strategies at each decision. A position (:class:`sim.position.Position`)
must stop at a decision, list its legal choices and play one of them, so the
turn is replayed here as a small state machine over the same engine steps
(the take check, the laying actions, the legal discards, applying them),
in the same order. The tests check that a round stepped through here
records exactly the events :func:`sim.engine.play.play_round` records.

The machine's own state is the ``int64`` array ``ts`` (``TS_*`` columns):
the phase (``PH_*``), the seat to move, and the turn's facts that
``play_turn`` keeps in local variables (the card taken, the card drawn, the
cached enumeration, the card still to lay, the opening hint).

Phases: ``PH_START`` (the turn has not begun), ``PH_DRAW`` (take the pile's
top or draw from the stock; ``TS_TAKE_LEGAL`` says whether taking is
allowed), ``PH_LAY`` (``act[:TS_NACT]`` are the legal laying actions, stop
among them when allowed), ``PH_DISCARD`` (``d_legal[:TS_NDISCARD]`` the
legal discards), ``PH_END`` (the turn is over, ``TS_STATUS`` its
``TURN_*``; the round goes on only after ``TURN_NEXT``).
"""

from __future__ import annotations

import numpy as np

from sim.engine import params as P
from sim.engine import actions as A
from sim.engine import events as EVT
from sim.engine import hand as H
from sim.engine import round as R
from sim.engine import state as S
from sim.engine import table as TB
from sim.engine import turn as T
from sim.engine.jit import entry, kernel
from sim.engine.layout import A_P1, A_TYPE, ACT_OPEN, ACT_STOP, PUB_PILE, PUB_TOOK, fill_view
from sim.engine.melds import JOKER, ZERO, bit, card_in_meld, joker_in_meld
from sim.engine.state import (
    G_DETERMINISTIC,
    G_FIRST,
    G_NEV,
    G_NFLIPS,
    G_PILE,
    G_ROUND,
    G_STOCK,
    G_TRACE,
    G_TURN,
    S_FIRST_LAY,
    S_NO_OPEN,
    S_OPENED,
    S_TAKES,
    S_TURNS,
)
from sim.engine.policies import choose_action, choose_discard, choose_take

TS_PHASE, TS_SEAT, TS_TAKEN, TS_DRAWN, TS_CACHED, TS_PENDING, TS_HINT, TS_REUSE = range(8)
TS_STATUS, TS_TAKE_LEGAL, TS_NACT, TS_NDISCARD = 8, 9, 10, 11
N_TS = 12
PH_START, PH_DRAW, PH_LAY, PH_DISCARD, PH_END = 0, 1, 2, 3, 4
EVENT_ROOM = 2048  # event rows one turn may need at most (a restock writes a deck's worth)


@kernel
def _end(ts, status):
    ts[TS_PHASE] = PH_END
    ts[TS_STATUS] = status


@kernel
def _enter_lay(rules, st, g, ws, ts):
    """List the laying actions of the seat to move (``PH_LAY``), or go on to the discard."""
    seat = ts[TS_SEAT]
    seats = st.seats
    opened = seats[seat, S_OPENED] == 1
    if ts[TS_REUSE]:
        n_act = ts[TS_CACHED]
        ts[TS_REUSE] = 0
    else:
        n_act = A.enumerate_actions(
            rules, g, seat, st.h_lo[seat], st.h_hi[seat], st.h_jk[seat], st.h_n[seat], opened, ts[TS_TAKEN],
            ts[TS_PENDING], ts[TS_HINT], st.table, st.c_mask, st.c_info, st.s_mask, st.s_info, st.open_sel,
            st.open_n, st.act, st.facts, st.r_mask, st.r_info, ws,
        )
    if n_act == 0:
        _enter_discard(rules, st, g, ts)
        return
    if not opened:
        can_open = False
        for j in range(n_act):
            if st.act[j, A_TYPE] == ACT_OPEN:
                can_open = True
        seats[seat, S_NO_OPEN] = 0 if can_open else 1
    ts[TS_NACT] = n_act
    ts[TS_PHASE] = PH_LAY


@kernel
def _enter_discard(rules, st, g, ts):
    seat = ts[TS_SEAT]
    ts[TS_NDISCARD] = T.legal_discards(
        rules, g, st.h_lo[seat], st.h_hi[seat], st.h_jk[seat], ts[TS_TAKEN], st.seats[seat, S_OPENED] == 1,
        st.c_mask, st.c_info, st.d_legal, st.d_penalty, st.d_fits,
    )
    ts[TS_PHASE] = PH_DISCARD


@kernel
def begin_turn(rules, st, g, ev, ws, deck_rng, ts):
    """Start the next turn (``PH_START``): the caps, the restock, the take check."""
    turn = g[G_TURN]
    if turn >= rules.turn_cap:
        _end(ts, T.TURN_CAP)
        return
    if rules.game == P.GAME_CONTRAT and TB.table_closed(rules, g, st.seats):
        _end(ts, T.TURN_CLOSED)
        return
    seat = (g[G_FIRST] + turn) % rules.players
    ts[TS_SEAT] = seat
    st.seats[seat, S_TURNS] += 1
    ts[TS_TAKEN] = -1
    ts[TS_DRAWN] = -1
    ts[TS_CACHED] = -1
    ts[TS_TAKE_LEGAL] = 0
    if turn == 0 and rules.first_player_extra_card:
        _start_laying(rules, st, g, ws, ts)
        return
    if g[G_STOCK] == 0 and rules.stock_exhausted != P.STOCK_FLIP:
        if not T.restock(rules, g, ev, st.stock, st.pile, deck_rng, st.pub):
            _end(ts, T.TURN_BLOCKED)
            return
    if g[G_PILE] > 0:
        top = st.pile[g[G_PILE] - 1]
        legal, _, cached = T.take_status(
            rules, g, seat, top, st.seats[seat, S_OPENED] == 1, st.h_lo[seat], st.h_hi[seat], st.h_jk[seat],
            st.h_n[seat], st.table, st.c_mask, st.c_info, st.s_mask, st.s_info, st.open_sel, st.open_n,
            st.act, st.facts, st.r_mask, st.r_info, ws,
        )
        ts[TS_TAKE_LEGAL] = 1 if legal else 0
        ts[TS_CACHED] = cached
    ts[TS_PHASE] = PH_DRAW


@kernel
def _start_laying(rules, st, g, ws, ts):
    seat = ts[TS_SEAT]
    taken = ts[TS_TAKEN]
    drawn = ts[TS_DRAWN]
    ts[TS_PENDING] = taken if (taken >= 0 and rules.discard_take == P.TAKE_MUST_USE) else -1
    ts[TS_HINT] = drawn if (st.seats[seat, S_NO_OPEN] and drawn >= 0) else -1
    ts[TS_REUSE] = 1 if (taken >= 0 and ts[TS_CACHED] >= 0) else 0
    _enter_lay(rules, st, g, ws, ts)


@entry
def draw(rules, st, g, ev, ws, kinds, params, policy_rng, take, ts):
    """Play the draw (``PH_DRAW``): the pile's top when ``take`` (it must be legal), else the stock."""
    seat = ts[TS_SEAT]
    rnd = g[G_ROUND]
    if take:
        taken = st.pile[g[G_PILE] - 1]
        ts[TS_TAKEN] = taken
        ts[TS_DRAWN] = taken
        g[G_PILE] -= 1
        st.pub[PUB_PILE, taken] -= 1
        st.pub[PUB_TOOK + seat, taken] += 1
        H.take_card(st.h_lo, st.h_hi, st.h_jk, st.h_n, seat, taken)
        st.seats[seat, S_TAKES] += 1
        EVT.record_event(ev, g, EVT.EV_DRAW, rnd, seat, 1, taken, 0, 0, 0, 0, 0, 0, 0)
    else:
        if g[G_STOCK] == 0:
            if g[G_PILE] == 0:
                _end(ts, T.TURN_BLOCKED)
                return
            T.flip_pile(g, ev, st.stock, st.pile, st.pub)
            if g[G_DETERMINISTIC]:
                h = T.position_hash(rules, g, st.h_lo, st.h_hi, st.h_jk, st.seats, st.table, st.stock, st.pile)
                for i in range(min(g[G_NFLIPS], S.MAX_FLIPS)):
                    if st.flips[i] == h:
                        _end(ts, T.TURN_CYCLE)
                        return
                if g[G_NFLIPS] < S.MAX_FLIPS:
                    st.flips[g[G_NFLIPS]] = h
                g[G_NFLIPS] += 1
        g[G_STOCK] -= 1
        code = st.stock[g[G_STOCK]]
        ts[TS_DRAWN] = code
        H.take_card(st.h_lo, st.h_hi, st.h_jk, st.h_n, seat, code)
        EVT.record_event(ev, g, EVT.EV_DRAW, rnd, seat, 0, code, 0, 0, 0, 0, 0, 0, 0)
        if rules.may_i:
            T.may_i(rules, g, ev, seat, kinds, params, policy_rng, st.h_lo, st.h_hi, st.h_jk, st.h_n, st.seats,
                     st.stock, st.pile, st.pub, st.obs)
    _start_laying(rules, st, g, ws, ts)


@entry
def lay(rules, st, g, ev, ws, a, ts):
    """Play laying action ``a`` of ``act[:TS_NACT]`` (``PH_LAY``)."""
    seat = ts[TS_SEAT]
    if st.act[a, A_TYPE] == ACT_STOP:
        _enter_discard(rules, st, g, ts)
        return
    laid_mask, laid_joker = A.apply_action(
        rules, g, ev, seat, a, st.act, st.facts, st.h_lo, st.h_hi, st.h_jk, st.h_n, st.seats, st.table, st.owner,
        st.c_mask, st.c_info, st.open_sel, st.open_n, st.r_mask, st.r_info, st.pub,
    )
    pending = ts[TS_PENDING]
    if pending >= 0:
        if (pending == JOKER and laid_joker) or (pending < JOKER and (laid_mask & bit(pending))):
            ts[TS_PENDING] = -1
    if st.h_n[seat] == 0:
        EVT.record_event(ev, g, EVT.EV_OUT, g[G_ROUND], seat, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        _end(ts, T.TURN_OUT)
        return
    if st.act[a, A_TYPE] == ACT_OPEN and st.act[a, A_P1] == 1:
        _enter_discard(rules, st, g, ts)
        return
    _enter_lay(rules, st, g, ws, ts)


@kernel
def throw(rules, st, g, ev, code, ts):
    """Throw ``code`` (``PH_DISCARD``; it must be among the legal discards)."""
    seat = ts[TS_SEAT]
    H.drop_card(st.h_lo, st.h_hi, st.h_jk, st.h_n, seat, code)
    st.pile[g[G_PILE]] = code
    g[G_PILE] += 1
    st.pub[PUB_PILE, code] += 1
    EVT.record_event(ev, g, EVT.EV_DISCARD, g[G_ROUND], seat, code, 0, 0, 0, 0, 0, 0, 0, 0)
    if st.h_n[seat] == 0:
        EVT.record_event(ev, g, EVT.EV_OUT, g[G_ROUND], seat, 1, 0, 0, 0, 0, 0, 0, 0, 0)
        _end(ts, T.TURN_OUT)
        return
    g[G_TURN] += 1
    _end(ts, T.TURN_NEXT)


@entry
def decide(rules, st, g, kinds, params, policy_rng, ts):
    """What the seat's own strategy chooses at the decision ``ts`` stands at.

    ``PH_DRAW``: 1 to take the pile's top, 0 to draw from the stock;
    ``PH_LAY``: the index of a laying action; ``PH_DISCARD``: a card code.
    """
    seat = ts[TS_SEAT]
    kind = kinds[seat]
    par = params[seat]
    lo, hi, jk = st.h_lo[seat], st.h_hi[seat], st.h_jk[seat]
    opened = st.seats[seat, S_OPENED] == 1
    phase = ts[TS_PHASE]
    if phase == PH_DRAW:
        if g[G_PILE] == 0 or not ts[TS_TAKE_LEGAL]:
            return 0
        top = st.pile[g[G_PILE] - 1]
        if top == JOKER:
            completes = joker_in_meld(lo, rules.min_run, rules.ace_high)
        else:
            completes = card_in_meld(lo, jk, top, rules.min_run, rules.ace_high)
        table_mask, joker_fits = TB.table_accepts(g)
        on_table = joker_fits if top == JOKER else (table_mask & bit(top)) != ZERO
        can_add = opened or rules.add_before_opening
        fill_view(rules, g, st.seats, st.h_n, st.h_jk, seat, st.obs)
        take = choose_take(kind, par, policy_rng, seat, top, completes, can_add and on_table, lo, hi, st.pub,
                           st.obs)
        return 1 if take else 0
    fill_view(rules, g, st.seats, st.h_n, st.h_jk, seat, st.obs)
    if phase == PH_LAY:
        return choose_action(kind, par, policy_rng, seat, st.act, st.facts, ts[TS_NACT], st.obs, lo, hi, jk,
                             st.pub)
    table_mask, joker_fits = TB.table_accepts(g)
    return choose_discard(kind, par, policy_rng, seat, st.d_legal, ts[TS_NDISCARD], st.d_penalty, st.d_fits,
                          st.obs, lo, hi, st.pub, table_mask, joker_fits)


@entry
def play_choice(rules, st, g, ev, ws, kinds, params, policy_rng, choice, ts):
    """Play ``choice`` at the decision ``ts`` stands at (as :func:`decide` returns them)."""
    phase = ts[TS_PHASE]
    if phase == PH_DRAW:
        draw(rules, st, g, ev, ws, kinds, params, policy_rng, choice == 1, ts)
    elif phase == PH_LAY:
        lay(rules, st, g, ev, ws, choice, ts)
    elif phase == PH_DISCARD:
        throw(rules, st, g, ev, choice, ts)


@entry
def advance(rules, st, g, ev, ws, kinds, params, policy_rng, deck_rng, ts, stop_seat):
    """Let the strategies play until a decision of ``stop_seat`` or the round's end.

    ``stop_seat`` -1 stops at no decision, -2 at the next decision of any seat.
    When tracing, it also stops at the start of a turn (``PH_START``) once
    fewer than ``EVENT_ROOM`` event rows are free.

    A turn that ends with ``TURN_NEXT`` is followed by the next one; the
    machine stops in ``PH_END`` only when the round is over.
    """
    while True:
        phase = ts[TS_PHASE]
        if phase == PH_END:
            if ts[TS_STATUS] != T.TURN_NEXT:
                return
            ts[TS_PHASE] = PH_START
            phase = PH_START
        if phase == PH_START:
            if g[G_TRACE] and ev.shape[0] - g[G_NEV] < EVENT_ROOM:
                return  # the caller makes room for the events and calls again
            begin_turn(rules, st, g, ev, ws, deck_rng, ts)
            continue
        if stop_seat == -2 or ts[TS_SEAT] == stop_seat:
            return
        choice = decide(rules, st, g, kinds, params, policy_rng, ts)
        play_choice(rules, st, g, ev, ws, kinds, params, policy_rng, choice, ts)


@entry
def round_result(rules, st, g, ev, ts):
    """``(winner, blocked, rami_sec, points)`` of a round the machine has played to its end.

    The reasons and the sec bonus as :func:`sim.engine.play.play_round`
    decides them; ``points`` per seat as :func:`sim.engine.play.play_game`
    scores them (records the ``blocked`` event of a blocked round).
    """
    status = ts[TS_STATUS]
    n_players = rules.players
    winner = -1
    blocked = R.BLOCK_NONE
    if status == T.TURN_OUT:
        winner = (g[G_FIRST] + g[G_TURN]) % n_players
    elif status == T.TURN_BLOCKED:
        blocked = R.BLOCK_STOCK
    elif status == T.TURN_CYCLE:
        blocked = R.BLOCK_CYCLE
    elif status == T.TURN_CLOSED:
        blocked = R.BLOCK_TABLE_CLOSED
    else:
        blocked = R.BLOCK_TURN_CAP
    rami_sec = False
    if winner >= 0:
        if st.seats[winner, S_FIRST_LAY] == g[G_TURN]:
            if rules.rami_sec == P.SEC_DOUBLE:
                rami_sec = True
            elif rules.rami_sec == P.SEC_FLAT_200:
                rami_sec = True
                for s in range(n_players):
                    if s != winner and st.seats[s, S_OPENED]:
                        rami_sec = False
    else:
        EVT.record_event(ev, g, EVT.EV_BLOCKED, g[G_ROUND], blocked, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    points = R.round_points(rules, winner, rami_sec, st.h_lo, st.h_hi, st.h_jk, st.seats)
    return winner, blocked, rami_sec, points


@entry
def observe(rules, st, g, seat, view):
    """Fill ``view`` with what ``seat`` sees now, as the strategies see it."""
    fill_view(rules, g, st.seats, st.h_n, st.h_jk, seat, view)


def new_turn_state() -> np.ndarray:
    """A machine state at the start of a turn: ``int64`` array of ``N_TS``."""
    ts = np.zeros(N_TS, dtype=np.int64)
    ts[TS_PHASE] = PH_START
    return ts
