"""A turn played one decision at a time, for positions and rollouts.

:func:`sim.engine.turn.play_turn` plays a whole turn in one call, asking
the seat's policy at each decision. A position
(:class:`sim.position.Position`) must stop at a decision, list its legal
choices and play one of them, so here the same steps of
:mod:`sim.engine.turn` (begin, take check, take or draw, "Puis-je ?" one asker
at a time, list the layings, lay, list the discards, throw) are called one decision at a time, with the
turn's local facts kept in a small array between calls. The tests check
that a round stepped through here records exactly the events
:func:`sim.engine.round.play_round` records.

The machine's own state is the ``int64`` array ``ts`` (``TS_*`` columns):
the phase (``PH_*``), the seat to move, and the turn's facts that
``play_turn`` keeps in local variables (the card taken, the card drawn, the
cached enumeration, the card still to lay, the opening hint, what the take
check found).

Phases: ``PH_START`` (the turn has not begun), ``PH_DRAW`` (take the pile's
top or draw from the stock; ``TS_TAKE_LEGAL`` says whether taking is
allowed), ``PH_LAY`` (``act[:TS_NACT]`` are the legal laying actions, stop
among them when allowed), ``PH_DISCARD`` (``d_legal[:TS_NDISCARD]`` the
legal discards), ``PH_END`` (the turn is over, ``TS_STATUS`` its
``TURN_*``; the round goes on only after ``TURN_NEXT``), ``PH_MAY_I``
(Rami contrat, after a draw from the stock: seat ``TS_ASKER``, not the
seat to move, says "Puis-je ?" for the pile's top or passes;
``TS_GRANTED`` grants so far in this draw). The seats are asked in the
order and with the stop conditions of :func:`sim.engine.turn.may_i`, whose
steps are called here one asker at a time; the seat that decides is
:func:`deciding_seat`, the asker at ``PH_MAY_I`` and the seat to move
elsewhere.
"""

from __future__ import annotations

import numpy as np

from sim.engine import turn
from sim.engine.jit import entry, kernel
from sim.engine.layout import fill_view
from sim.engine.round import play_turns, round_outcome, round_points
from sim.engine.state import G_FIRST, G_NEV, G_TRACE, G_TURN

TS_PHASE, TS_SEAT, TS_TAKEN, TS_DRAWN, TS_CACHED, TS_PENDING, TS_HINT, TS_REUSE = range(8)
TS_STATUS, TS_TAKE_LEGAL, TS_NACT, TS_NDISCARD, TS_KNOWN, TS_ASKER, TS_GRANTED = 8, 9, 10, 11, 12, 13, 14
N_TS = 15
PH_START, PH_DRAW, PH_LAY, PH_DISCARD, PH_END, PH_MAY_I = 0, 1, 2, 3, 4, 5
EVENT_ROOM = 2048  # event rows one turn may need at most (a restock writes a deck's worth)

# The steps that call other steps are ``optimised_apart`` (see sim.engine.jit): each would otherwise optimise
# again, in its own library, the code of every step it calls (the listing of the layings above all).


@kernel(forceinline=True)
def _end(ts, status):
    ts[TS_PHASE] = PH_END
    ts[TS_STATUS] = status


@kernel
def _enter_lay(rules, st, g, ws, ts):
    """List the laying actions of the seat to move (``PH_LAY``), or go on to the discard."""
    cached = ts[TS_CACHED] if ts[TS_REUSE] else -1
    ts[TS_REUSE] = 0
    # A position lists every legal choice, whatever its seat's policy plays.
    n_act = turn.list_layings(rules, g, st, ws, ts[TS_SEAT], ts[TS_TAKEN], ts[TS_PENDING], ts[TS_HINT], cached, True)
    if n_act == 0:
        _enter_discard(rules, st, g, ts)
        return
    ts[TS_NACT] = n_act
    ts[TS_PHASE] = PH_LAY


@kernel
def _enter_discard(rules, st, g, ts):
    ts[TS_NDISCARD] = turn.list_discards(rules, g, st, ts[TS_SEAT], ts[TS_TAKEN])
    ts[TS_PHASE] = PH_DISCARD


@kernel(optimised_apart=True)
def begin_turn(rules, st, g, ev, ws, deck_rng, ts):
    """Start the next turn (``PH_START``): the caps, the restock, the take check."""
    seat = (g[G_FIRST] + g[G_TURN]) % rules.players
    status = turn.begin_turn(rules, g, st, seat)
    if status != turn.TURN_NEXT:
        _end(ts, status)
        return
    ts[TS_SEAT] = seat
    ts[TS_TAKEN] = -1
    ts[TS_DRAWN] = -1
    ts[TS_CACHED] = -1
    ts[TS_KNOWN] = -1
    ts[TS_TAKE_LEGAL] = 0
    if not turn.draws(rules, g):
        _start_laying(rules, st, g, ws, ts)
        return
    status, legal, known, cached = turn.take_check(rules, g, ev, st, seat, deck_rng, ws, True)
    if status != turn.TURN_NEXT:
        _end(ts, status)
        return
    ts[TS_TAKE_LEGAL] = 1 if legal else 0
    ts[TS_KNOWN] = known
    ts[TS_CACHED] = cached
    ts[TS_PHASE] = PH_DRAW


@kernel(optimised_apart=True)
def _start_laying(rules, st, g, ws, ts):
    taken = ts[TS_TAKEN]
    ts[TS_PENDING], ts[TS_HINT] = turn.laying_starts(rules, st, ts[TS_SEAT], taken, ts[TS_DRAWN])
    ts[TS_REUSE] = 1 if (taken >= 0 and ts[TS_CACHED] >= 0) else 0
    _enter_lay(rules, st, g, ws, ts)


@kernel
def deciding_seat(ts):
    """The seat whose decision ``ts`` stands at: the asker at ``PH_MAY_I``, else the seat to move."""
    return ts[TS_ASKER] if ts[TS_PHASE] == PH_MAY_I else ts[TS_SEAT]


@kernel(optimised_apart=True)
def draw(rules, st, g, ev, ws, kinds, params, policy_rng, take, ts):
    """Play the draw (``PH_DRAW``): the pile's top when ``take`` (it must be legal), else the stock.

    After a draw from the stock the other seats may say "Puis-je ?" (``PH_MAY_I``) before the laying.
    """
    seat = ts[TS_SEAT]
    if take:
        taken = turn.take_top(g, ev, st, seat)
        ts[TS_TAKEN] = taken
        ts[TS_DRAWN] = taken
    else:
        status, code = turn.draw_stock(rules, g, ev, st, seat)
        if status != turn.TURN_NEXT:
            _end(ts, status)
            return
        ts[TS_DRAWN] = code
        if rules.may_i:
            ts[TS_ASKER] = seat
            ts[TS_GRANTED] = 0
            _next_may_i(rules, st, g, ws, ts)
            return
    _start_laying(rules, st, g, ws, ts)


@kernel(optimised_apart=True)
def _next_may_i(rules, st, g, ws, ts):
    """Ask the next seat "Puis-je ?" (``PH_MAY_I``, the asker's own view filled), or, once every other seat
    was asked or asking stops (:func:`sim.engine.turn.may_i_goes_on`), go on to the drawer's laying (whose
    decisions fill the drawer's view again)."""
    seat = ts[TS_SEAT]
    asker = turn.next_asker(rules, ts[TS_ASKER])
    if asker == seat or not turn.may_i_goes_on(rules, g, ts[TS_GRANTED]):
        _start_laying(rules, st, g, ws, ts)
        return
    ts[TS_ASKER] = asker
    ts[TS_PHASE] = PH_MAY_I
    fill_view(rules, g, st.seats, st.h_n, st.h_jk, asker, st.obs)


@kernel(optimised_apart=True)
def answer_may_i(rules, st, g, ev, ws, ask, ts):
    """Play the asker's answer (``PH_MAY_I``): "Puis-je ?" when ``ask`` (granted at once), else pass."""
    if ask:
        turn.grant_may_i(g, ev, st, ts[TS_ASKER])
        ts[TS_GRANTED] += 1
    _next_may_i(rules, st, g, ws, ts)


@kernel(optimised_apart=True)
def lay(rules, st, g, ev, ws, a, ts):
    """Play laying action ``a`` of ``act[:TS_NACT]`` (``PH_LAY``)."""
    pending, after = turn.lay(rules, g, ev, st, ts[TS_SEAT], a, ts[TS_PENDING])
    ts[TS_PENDING] = pending
    if after == turn.LAY_OUT:
        _end(ts, turn.TURN_OUT)
    elif after == turn.LAY_DISCARD:
        _enter_discard(rules, st, g, ts)
    else:
        _enter_lay(rules, st, g, ws, ts)


@kernel
def throw(rules, st, g, ev, code, ts):
    """Throw ``code`` (``PH_DISCARD``; it must be among the legal discards)."""
    _end(ts, turn.throw(g, ev, st, ts[TS_SEAT], code))


@kernel
def decide(rules, st, g, kinds, params, policy_rng, ts):
    """What the seat's own strategy chooses at the decision ``ts`` stands at.

    ``PH_DRAW``: 1 to take the pile's top, 0 to draw from the stock;
    ``PH_LAY``: the index of a laying action; ``PH_DISCARD``: a card code;
    ``PH_MAY_I``: 1 to say "Puis-je ?", 0 to pass (the asker's strategy).
    """
    seat = ts[TS_SEAT]
    phase = ts[TS_PHASE]
    if phase == PH_MAY_I:
        return 1 if turn.decide_may_i(rules, g, st, ts[TS_ASKER], kinds, params, policy_rng) else 0
    if phase == PH_DRAW:
        if not ts[TS_TAKE_LEGAL]:
            return 0
        return 1 if turn.decide_take(rules, g, st, seat, kinds, params, policy_rng, ts[TS_KNOWN]) else 0
    if phase == PH_LAY:
        return turn.decide_action(rules, g, st, seat, kinds, params, policy_rng, ts[TS_NACT])
    return turn.decide_discard(rules, g, st, seat, kinds, params, policy_rng, ts[TS_NDISCARD])


@kernel(optimised_apart=True)
def play_choice(rules, st, g, ev, ws, kinds, params, policy_rng, choice, ts):
    """Play ``choice`` at the decision ``ts`` stands at (as :func:`decide` returns them)."""
    phase = ts[TS_PHASE]
    if phase == PH_DRAW:
        draw(rules, st, g, ev, ws, kinds, params, policy_rng, choice == 1, ts)
    elif phase == PH_LAY:
        lay(rules, st, g, ev, ws, choice, ts)
    elif phase == PH_DISCARD:
        throw(rules, st, g, ev, choice, ts)
    elif phase == PH_MAY_I:
        answer_may_i(rules, st, g, ev, ws, choice == 1, ts)


@kernel(optimised_callees=True)
def advance(rules, st, g, ev, ws, kinds, params, policy_rng, deck_rng, ts, stop_seat):
    """Let the strategies play until a decision of ``stop_seat`` or the round's end.

    ``stop_seat`` -1 stops at no decision, -2 at the next decision of any seat
    (a "Puis-je ?" is the asker's decision: :func:`deciding_seat`).
    When tracing, it also stops at the start of a turn (``PH_START``) once
    fewer than ``EVENT_ROOM`` event rows are free.

    A turn that ends with ``TURN_NEXT`` is followed by the next one; the
    machine stops in ``PH_END`` only when the round is over.
    """
    while True:
        phase = ts[TS_PHASE]
        if phase == PH_END:
            if ts[TS_STATUS] != turn.TURN_NEXT:
                return
            ts[TS_PHASE] = PH_START
            phase = PH_START
        if phase == PH_START:
            if g[G_TRACE] and ev.shape[0] - g[G_NEV] < EVENT_ROOM:
                return  # the caller makes room for the events and calls again
            begin_turn(rules, st, g, ev, ws, deck_rng, ts)
            continue
        if stop_seat == -2 or deciding_seat(ts) == stop_seat:
            return
        choice = decide(rules, st, g, kinds, params, policy_rng, ts)
        play_choice(rules, st, g, ev, ws, kinds, params, policy_rng, choice, ts)


@kernel(optimised_apart=True)
def finish_round(rules, st, g, ev, ws, kinds, params, policy_rng, deck_rng, ts):
    """Play on to the round's end untraced, as ``advance(..., -1)`` does, in less time.

    The turn under way is finished one decision at a time; the turns after
    it are played whole by :func:`sim.engine.round.play_turns`, the loop of
    :func:`sim.engine.round.play_round`: the same steps and the
    same draws from the same streams (the tests hold the two ways to the
    same events), without writing each decision into ``ts`` and reading it
    back. A rollout spends most of its time here. Ends in ``PH_END`` with
    the round's last ``TS_STATUS``, so :func:`round_result` reads it as
    after :func:`advance`.

    A kernel, as are the machine's other steps, since none allocates: the
    turns inlined here were compiled with numba's reference counting when
    this was an entry, and a rollout's turns took twice as long as the
    same turns of :func:`sim.engine.round.play_round` (see :mod:`sim.engine.jit`).
    """
    while True:
        phase = ts[TS_PHASE]
        if phase == PH_END:
            if ts[TS_STATUS] != turn.TURN_NEXT:
                return
            break
        if phase == PH_START:
            break
        choice = decide(rules, st, g, kinds, params, policy_rng, ts)
        play_choice(rules, st, g, ev, ws, kinds, params, policy_rng, choice, ts)
    status, _ = play_turns(rules, g, ev, st, (g[G_FIRST] + g[G_TURN]) % rules.players, kinds, params, policy_rng,
                           deck_rng, ws)
    _end(ts, status)


@entry
def round_result(rules, st, g, ev, ts):
    """``(winner, blocked, rami_sec, points)`` of a round the machine has played to its end.

    The outcome as :func:`sim.engine.round.play_round` decides it
    (:func:`sim.engine.round.round_outcome`, which records the ``blocked``
    event of a blocked round); ``points`` per seat as the game scores them.
    """
    seat = (g[G_FIRST] + g[G_TURN]) % rules.players
    winner, blocked, rami_sec = round_outcome(rules, g, ev, st, ts[TS_STATUS], seat)
    points = round_points(rules, winner, rami_sec, st)
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


# Python's doors to the kernels that compiled code calls too. The searching
# game and the rollouts link ``decide`` and ``play_choice`` in; a kernel that
# Python called directly would be typed, lowered and optimised a second time
# for Python in a process that has already linked it (the searching game
# after a rollout, or the other way round). These entries only relink what
# was compiled for linking, and generate its machine code.


@entry(optimised_callees=True)
def decide_for_python(rules, st, g, kinds, params, policy_rng, ts):
    """:func:`decide`, called from Python."""
    return decide(rules, st, g, kinds, params, policy_rng, ts)


@entry(optimised_callees=True)
def play_choice_for_python(rules, st, g, ev, ws, kinds, params, policy_rng, choice, ts):
    """:func:`play_choice`, called from Python."""
    play_choice(rules, st, g, ev, ws, kinds, params, policy_rng, choice, ts)
