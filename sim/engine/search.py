"""A seat that searches: each of its decisions valued by rollouts from what it can see.

A searching seat (policy kind ``KIND_SEARCH``) plays its draws, layings,
discards and, in Rami contrat, its answers to "Puis-je ?" by playing every legal choice out to the round's end over re-deals
of the cards it cannot see (belief mode, :func:`sim.engine.rollout.redeal`),
with its base strategy at every seat of the playouts, and keeps the choice
with the best mean round points, or with its ``horizon`` the best mean value
of the round's outcome for the game (:mod:`sim.engine.game_value`: the
chance of winning the game it leaves, in points). Trial ``t`` of every
choice starts from the same re-deal and the same streams
(:func:`sim.engine.rollout.run_trials`), so choices are compared on common
futures.

Why a round of its own: numba cannot type a recursive call graph, and a
search is a turn that plays turns. So the search is not a policy the turn
asks; a table with a searching seat plays its rounds here
(:func:`search_round`), on the position machine (:mod:`sim.engine.position`),
one decision at a time: a searching seat's decision is valued by rollouts
whose playouts know only the base strategies, every other decision is the
seat's own policy's. The games and batches around the rounds are the engine's
one game loop and batch loop (:mod:`sim.engine.game`), handed
:func:`search_round` as the table's round (entry :func:`search_batch`), and
a traced game records the very events a game of the position machine
records, so results, datasets and replays take both alike.

Budget and stopping. Trials run in looks of ``SEARCH_LOOK``; after look
``k`` a choice whose paired difference from the current best has a normal
interval, at error ``alpha_k = 0.05 * 6 / (pi^2 k^2)`` (:func:`look_alpha`, the
one owner of the rule, which :mod:`sim.rollouts` reads too), wholly on the
worse side of zero is dropped (the ``alpha_k`` sum to 0.05 over all looks),
so the trials go to the choices still close.
The search stops at the seat's ``trials`` per choice, when one choice is
left, or when every remaining difference's interval is narrower than the
seat's ``width`` in points (alike enough not to matter). Ties go to the
base strategy's own choice, listed first.

What the seat is known to hold. The re-deal keeps, for each other seat, the
cards it is publicly known to hold (taken from the pile, "Puis-je ?"
included, or a joker taken back, until it lays or throws a card of that
code): :func:`note_public` keeps that count up to date after every decision
from public facts alone (the pile's takes in ``pub``, the cards that left
the hand to the table or the pile). It is the reference of the rule:
:func:`sim.rollouts.known_cards` reads the same count from a trace's events,
where no engine state is at hand, and the tests check that the two agree at
every decision of many rounds.
"""

from __future__ import annotations

import math

import numpy as np

from sim.cards import N_CODES
from sim.engine.params import GAME_BASIC, TAKE_AFTER_OPENING
from sim.engine import position
from sim.engine.game import play_batch_loop, strategies_at
from sim.engine.game_value import HORIZON_GAME, game_value
from sim.engine.jit import entry, kernel
from sim.engine.layout import PUB_TOOK
from sim.engine.bits import JOKER, bit
from sim.engine.policies import (
    FEED_PARTNERS, KIND_SEARCH, N_PARAMS, P_SEARCH_BASE, P_SEARCH_HORIZON, P_SEARCH_INFER, P_SEARCH_PRUNE,
    P_SEARCH_REJECT, P_SEARCH_SALT, P_SEARCH_SEES, P_SEARCH_TRIALS, P_SEARCH_TURN, P_SEARCH_WIDTH,
)
from sim.engine.rng import STREAM_GAME_FUTURE, STREAM_SEARCH, derive_seed
from sim.engine.rollout import MODE_BELIEF, MODE_CLAIRVOYANT, copy_state, run_trials
from sim.engine.meld_search import workspace
from sim.engine.round import deal_round, round_outcome, round_state
from sim.engine.events import N_EV
from sim.engine.rows import N_R
from sim.engine.state import G_FIRST, G_PILE, G_ROUND, G_STOCK, G_TRACE, G_TURN, MAX_SEATS, S_OPENED
from sim.engine.turn import TURN_NEXT

SEARCH_LOOK = 8
"""Trials per choice between two looks at the differences."""
N_TALLY = 2
TALLY_DECISIONS, TALLY_PLAYOUTS = 0, 1  # searched decisions (two choices or more), playouts played


ALPHA = 0.05
"""The error that all the looks of a search or of a stopped rollout spend together."""


@kernel
def look_alpha(look):
    """The error spent at look ``look`` (from 1): ``alpha_k = 0.05 * 6 / (pi^2 k^2)``.

    The ``alpha_k`` sum to :data:`ALPHA` over all looks (a union bound), so
    intervals looked at after every batch of trials stay valid. The one
    owner of the rule: a searching seat's looks (:func:`look_z`) and a
    stopped rollout's (:func:`sim.rollouts.rollout`) both read it.
    """
    return ALPHA * 6.0 / (math.pi * math.pi * (look * look))


@kernel
def look_z(look):
    """The normal quantile of look ``look`` (from 1): ``P(|Z| > z) =`` :func:`look_alpha` ``(look)``.

    Newton's method on the two-sided tail, which is convex and decreasing:
    from the left of the root every step stays left of it, so it converges.
    """
    a = look_alpha(look)
    z = 0.0
    for _ in range(60):
        tail = math.erfc(z / math.sqrt(2.0))
        slope = 2.0 * math.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)
        step = (tail - a) / slope
        z += step
        if step < 1e-12:
            break
    return z


@kernel
def held(st, seat, code):
    """Copies of ``code`` in ``seat``'s hand."""
    if code == JOKER:
        return st.h_jk[seat]
    b = bit(code)
    return (1 if st.h_lo[seat] & b else 0) + (1 if st.h_hi[seat] & b else 0)


@kernel
def note_public(rules, st, seat, phase, choice, took, before, known):
    """Update ``known`` after ``seat``'s decision in ``phase`` (``choice`` played).

    ``took`` is ``pub``'s pile takes per seat as last noted (updated here);
    ``before`` the seat's copies of each code before the decision. Only public
    facts are read: a card taken from the pile is seen by all (a "Puis-je ?"
    granted at ``PH_MAY_I`` included, where ``seat`` is the asker; its penalty
    card, drawn from the stock, is seen by none); the cards that left the hand
    during a laying are on the table; a joker that came into it during a laying
    was taken back from the table.
    """
    for s in range(rules.players):
        for c in range(N_CODES):
            now = st.pub[PUB_TOOK + s, c]
            known[s, c] += now - took[s, c]
            took[s, c] = now
    if phase == position.PH_LAY:
        for c in range(N_CODES):
            d = held(st, seat, c) - before[c]
            if d < 0:
                known[seat, c] = max(known[seat, c] + d, 0)
            elif d > 0 and c == JOKER:
                known[seat, c] += d
    elif phase == position.PH_DISCARD and known[seat, choice] > 0:
        known[seat, choice] -= 1


EVIDENCE_FADE = 0.9
"""What a seat's past choices say of its hand fades by this factor at each card it draws unseen: the new card
was not in the hand those choices were made from."""


@kernel
def note_evidence(seat, phase, choice, top, could_take, evidence):
    """Add to ``evidence[seat]`` what ``seat``'s choice in ``phase`` says of its hand (public facts only).

    The base strategies keep the cards close to their melds and take the
    pile's top when it completes or builds one, so a card thrown (a
    ``PH_DISCARD`` ``choice``) or a pile top ``top`` left for the stock
    (``PH_DRAW``, ``choice`` 0) makes its partners less likely in the hand:
    one count for each partner (its rank in another suit, its suit within
    two ranks: :data:`sim.engine.policies.FEED_PARTNERS`). ``could_take``
    is whether the rules let that seat take the top at all as far as the
    table can tell (:func:`could_take`); whether its own hand could use the
    card, which a must-use rule asks, is the seat's secret, so a top left
    counts alike either way: both say the card completed nothing. A draw
    from the stock fades the seat's counts (:data:`EVIDENCE_FADE`). The
    searching seat weighs its re-deals by ``exp(-infer * count)``.
    """
    if phase == position.PH_DISCARD and choice < JOKER:
        partners = FEED_PARTNERS[choice]
        for c in range(JOKER):
            if partners & bit(c):
                evidence[seat, c] += 1.0
    elif phase == position.PH_DRAW and choice == 0:
        if could_take and 0 <= top < JOKER:
            partners = FEED_PARTNERS[top]
            for c in range(JOKER):
                if partners & bit(c):
                    evidence[seat, c] += 1.0
        for c in range(JOKER + 1):
            evidence[seat, c] *= EVIDENCE_FADE


@kernel
def could_take(rules, st, g, seat):
    """Whether, as the table sees it, ``seat`` may take the pile's top now: a pile, and its opening made where
    the rules take the pile only after it (the rest of the take check reads the seat's hand)."""
    if g[G_PILE] == 0:
        return False
    return rules.discard_take != TAKE_AFTER_OPENING or st.seats[seat, S_OPENED] == 1


@kernel
def list_choices(g, st, ts, base_choice, choices):
    """The legal choices of the decision ``ts`` stands at, into ``choices``, the base's own first; returns how many."""
    phase = ts[position.TS_PHASE]
    choices[0] = base_choice
    n = 1
    if phase == position.PH_DRAW:
        if ts[position.TS_TAKE_LEGAL] and (g[G_STOCK] > 0 or g[G_PILE] > 0):
            choices[1] = 1 - base_choice
            n = 2
    elif phase == position.PH_MAY_I:
        # Ask or pass: both are always legal (the machine asks only while a pile card and a penalty card remain).
        choices[1] = 1 - base_choice
        n = 2
    elif phase == position.PH_LAY:
        for a in range(ts[position.TS_NACT]):
            if a != base_choice:
                choices[n] = a
                n += 1
    elif phase == position.PH_DISCARD:
        for i in range(ts[position.TS_NDISCARD]):
            if st.d_legal[i] != base_choice:
                choices[n] = st.d_legal[i]
                n += 1
    return n


@entry
def turn_continuations(rules, st, g, ts, kinds, params, choices, n, first, follow):
    """Pair each laying of ``choices[:n]`` with each choice of the seat's next decision of the turn, into
    ``first``/``follow`` (``follow`` -1 where the laying ends the turn); returns how many pairs.

    A laying changes only the seat's own hand and the table, so the decision
    it leads to (another laying or the throw) and that decision's legal
    choices are the same whatever the hidden cards: a searched pair is a
    plan the seat can carry out, and the best pair's laying is valued by its
    best continuation rather than by the base's. (After a draw from the
    stock the next decision depends on the card drawn, which the seat does
    not know yet, so draws are not paired.) Each laying's pairs come in the
    order :func:`list_choices` gives them, the base's continuation first, so
    the base's laying and continuation still win ties.
    """
    probe = round_state(False)
    g_probe = np.zeros_like(g)
    ts_probe = np.zeros_like(ts)
    ws = workspace()
    ev = np.zeros((1, N_EV), dtype=np.int32)
    rng = np.zeros(MAX_SEATS, dtype=np.uint64)
    sub = np.zeros(choices.shape[0], dtype=np.int64)
    m = 0
    for j in range(n):
        copy_state(st, g, ts, probe, g_probe, ts_probe)
        g_probe[G_TRACE] = 0
        position.play_choice(rules, probe, g_probe, ev, ws, kinds, params, rng, choices[j], ts_probe)
        phase = ts_probe[position.TS_PHASE]
        k = 0
        if phase == position.PH_LAY or phase == position.PH_DISCARD:
            k = list_choices(g_probe, probe, ts_probe, position.decide(rules, probe, g_probe, kinds, params, rng,
                                                                       ts_probe), sub)
        if k == 0:
            first[m] = choices[j]
            follow[m] = -1
            m += 1
        for i in range(k):
            first[m] = choices[j]
            follow[m] = sub[i]
            m += 1
    return m


@entry(optimised_callees=True)
def search_decision(rules, st, g, ts, kinds, params, seat, known, lean, attempts, mode, prune, seed, trials, width,
                    choices, follow, n, totals, horizon, library, starts, points_per_game, tally):
    """The best of ``choices[:n]`` for ``seat`` by rollouts (see the module's docstring); ``choices[0]`` wins ties.

    ``follow[j]`` (-1: none) is played after ``choices[j]``: the seat's
    next decision of the turn searched with it (:func:`turn_continuations`).
    ``kinds``/``params`` are the strategies of the playouts. A playout is
    valued by ``seat``'s round points (``horizon`` 0), or by the game's
    value of the round's outcome after the game's ``totals``
    (:func:`sim.engine.game_value.game_value` with ``library``, ``starts``
    and ``points_per_game``). Adds the playouts it played to
    ``tally[TALLY_PLAYOUTS]``.
    """
    outcome = np.zeros((n, trials, MAX_SEATS), dtype=np.int64)
    value = np.zeros((n, trials), dtype=np.float64)
    went_out = np.zeros((n, trials), dtype=np.bool_)
    futures_rng = np.zeros(1, dtype=np.uint64)
    scratch = np.zeros(2 * MAX_SEATS, dtype=np.int64)
    active = np.ones(n, dtype=np.bool_)
    # "Worse" is a positive signed difference: more points, except in basic
    # rummy, where the round's winner scores.
    sign = -1.0 if rules.game == GAME_BASIC else 1.0
    done = 0
    look = 0
    best = 0
    while done < trials:
        t1 = min(done + SEARCH_LOOK, trials)
        for j in range(n):
            if active[j]:
                tally[TALLY_PLAYOUTS] += t1 - done
        run_trials(rules, st, g, ts, kinds, params, seat, known, lean, attempts, mode, seed, choices[:n],
                   follow[:n], active, done, t1, outcome, went_out)
        for t in range(done, t1):
            for j in range(n):
                if not active[j]:
                    continue
                if horizon == HORIZON_GAME:
                    # The same futures for every choice of the trial: common futures, paired differences.
                    futures_rng[0] = derive_seed(np.uint64(seed), t, 0, STREAM_GAME_FUTURE)
                    value[j, t] = game_value(rules, totals, outcome[j, t], g[G_ROUND] + 1, seat, library, starts,
                                             points_per_game, futures_rng, scratch)
                else:
                    value[j, t] = outcome[j, t, seat]
        done = t1
        look += 1
        best = -1
        best_mean = 0.0
        for j in range(n):
            if active[j]:
                m = sign * value[j, :done].sum() / done
                if best < 0 or m < best_mean:
                    best = j
                    best_mean = m
        z = prune if prune > 0 else look_z(look)
        left = 1
        narrow = True
        for j in range(n):
            if not active[j] or j == best:
                continue
            d = sign * (value[j, :done] - value[best, :done])
            m = d.mean()
            half = z * math.sqrt(max(((d - m) ** 2).sum() / (done - 1), 0.0) / done)
            if m - half > 0:
                active[j] = False
            else:
                left += 1
                if 2 * half >= width:
                    narrow = False
        if left == 1 or narrow:
            break
    return choices[best]


@kernel
def decision_key(g, st, ts):
    """A number for the decision ``ts`` stands at, one per decision of a game: its round, turn, phase and the
    hand's size (each laying of a turn lays at least one card), or at a "Puis-je ?" the asker (each seat is asked
    once a turn), from public facts, so a position knows it too."""
    last = ts[position.TS_ASKER] if ts[position.TS_PHASE] == position.PH_MAY_I else st.h_n[ts[position.TS_SEAT]]
    return ((g[G_ROUND] * 65536 + g[G_TURN]) * 8 + ts[position.TS_PHASE]) * 256 + last


@entry(optimised_callees=True)
def searched_choice(rules, st, g, ts, kinds, params, seat, known, evidence, seed, game, trials, base_choice, choices,
                    totals, library, starts, points_per_game, tally):
    """What searching ``seat`` plays at the decision ``ts`` stands at (``base_choice``: its base's choice).

    ``known``: the cards each seat is publicly known to hold (the seat's own
    row is not read); ``evidence``: what each seat's choices said of its
    hand (:func:`note_evidence`), read with the seat's ``infer`` above 0;
    ``totals``: the game's totals before this round;
    ``library``, ``starts``, ``points_per_game``: the seat's library of
    rounds (:mod:`sim.engine.game_value`), read only when its horizon is
    the game. A decision with one legal choice costs nothing. The
    rollout is seeded by ``(seed, game)`` and the decision (:func:`decision_key`),
    the seed shifted by the seat's ``salt`` (0 by default: the seed itself).
    """
    n = list_choices(g, st, ts, base_choice, choices)
    if n < 2:
        return base_choice
    # The playouts: the seat's base at every seat (it knows no other player's strategy).
    play_kinds = np.zeros(MAX_SEATS, dtype=np.int64)
    play_params = np.zeros((MAX_SEATS, N_PARAMS), dtype=np.float64)
    for s in range(rules.players):
        play_kinds[s] = kinds[seat]
        for k in range(N_PARAMS):  # element by element, as in seating (no shape check to compile)
            play_params[s, k] = params[seat, k]
    mine = known.copy()
    mine[seat, :] = 0  # the seat sees its own hand
    infer = params[seat, P_SEARCH_INFER]
    rows = MAX_SEATS if infer > 0 else 0
    lean = np.ones((rows, N_CODES), dtype=np.float64)
    for s in range(rows):
        if s != seat:
            for c in range(N_CODES):
                lean[s, c] = math.exp(-infer * evidence[s, c])
    # The ceiling (sees) keeps the hidden cards as they are: a yardstick, never a player.
    mode = MODE_CLAIRVOYANT if params[seat, P_SEARCH_SEES] > 0 else MODE_BELIEF
    tally[TALLY_DECISIONS] += 1
    if params[seat, P_SEARCH_TURN] > 0 and ts[position.TS_PHASE] == position.PH_LAY:
        first = np.zeros(n * choices.shape[0], dtype=np.int64)
        follow = np.zeros(n * choices.shape[0], dtype=np.int64)
        n = turn_continuations(rules, st, g, ts, play_kinds, play_params, choices, n, first, follow)
    else:
        first = choices
        follow = np.full(n, -1, dtype=np.int64)
    return search_decision(rules, st, g, ts, play_kinds, play_params, seat, mine, lean,
                           np.int64(params[seat, P_SEARCH_REJECT]), mode, params[seat, P_SEARCH_PRUNE],
                           derive_seed(np.uint64(seed) + np.uint64(params[seat, P_SEARCH_SALT]), game,
                                       decision_key(g, st, ts), STREAM_SEARCH), trials,
                           params[seat, P_SEARCH_WIDTH], first, follow, n, totals,
                           np.int64(params[seat, P_SEARCH_HORIZON]), library, starts, points_per_game, tally)


@entry(optimised_callees=True)
def search_round(rules, game, seed, rnd, first, g, ev, st, kinds, params, policy_rng, deck_rng, ws, order, totals,
                 round_args):
    """The round function of a table with a searching seat (:func:`sim.engine.game.play_game`): deal round ``rnd``
    and play it decision by decision, searching where a seat's kind is ``KIND_SEARCH``; ``(winner, blocked,
    rami_sec)``.

    ``kinds``/``params``: the strategies seated in game ``game`` (a
    searching seat's base, ``params[seat, P_SEARCH_BASE]``, plays its
    rollouts and is its choice where it has one); ``totals``: the game's totals
    before the round; ``round_args``: ``(rotate, library, starts,
    points_per_game, tally)``, the batch's seating rule, each strategy's
    library of rounds in the order the strategies were given
    (:func:`sim.engine.game_value.futures`) and the tally of the search's
    work (``TALLY_*``).
    """
    rotate, library, starts, points_per_game, tally = round_args
    base_kinds = np.zeros(kinds.shape[0], dtype=np.int64)
    search = np.zeros(kinds.shape[0], dtype=np.int64)  # a seat's trials per choice, 0 where it does not search
    search_table(kinds, params, base_kinds, search)
    library_at = np.zeros(MAX_SEATS, dtype=np.int64)  # seat s's library is library[library_at[s]]
    strategies_at(rules, game, rotate, library_at)
    deal_round(rules, rnd, first, g, ev, st, deck_rng, order)
    ts = np.zeros(position.N_TS, dtype=np.int64)
    ts[position.TS_PHASE] = position.PH_START
    known = np.zeros((MAX_SEATS, N_CODES), dtype=np.int64)
    took = np.zeros((MAX_SEATS, N_CODES), dtype=np.int64)
    evidence = np.zeros((MAX_SEATS, N_CODES), dtype=np.float64)
    before = np.zeros(N_CODES, dtype=np.int64)
    choices = np.zeros(max(st.act.shape[0], N_CODES), dtype=np.int64)
    while True:
        phase = ts[position.TS_PHASE]
        if phase == position.PH_END:
            if ts[position.TS_STATUS] != TURN_NEXT:
                break
            ts[position.TS_PHASE] = position.PH_START
            continue
        if phase == position.PH_START:
            position.begin_turn(rules, st, g, ev, ws, deck_rng, ts)
            continue
        seat = position.deciding_seat(ts)
        choice = position.decide(rules, st, g, base_kinds, params, policy_rng, ts)
        if search[seat] > 0:
            j = library_at[seat]
            choice = searched_choice(rules, st, g, ts, base_kinds, params, seat, known, evidence, seed, game,
                                     search[seat], choice, choices, totals, library[j], starts[j],
                                     points_per_game[j], tally)
        for c in range(N_CODES):
            before[c] = held(st, seat, c)
        # Read before the choice is played: the top a draw leaves or takes, and whether the table saw it takeable.
        top = st.pile[g[G_PILE] - 1] if g[G_PILE] > 0 else -1
        takeable = could_take(rules, st, g, seat)
        position.play_choice(rules, st, g, ev, ws, base_kinds, params, policy_rng, choice, ts)
        note_public(rules, st, seat, phase, choice, took, before, known)
        note_evidence(seat, phase, choice, top, takeable, evidence)
    seat = (g[G_FIRST] + g[G_TURN]) % rules.players
    return round_outcome(rules, g, ev, st, ts[position.TS_STATUS], seat)


@entry
def search_table(kinds, params, base_kinds, search):
    """A searching seat's base kind into ``base_kinds`` and its trials into ``search`` (0: the seat does not search)."""
    for s in range(kinds.shape[0]):
        base_kinds[s] = kinds[s]
        search[s] = 0
        if kinds[s] == KIND_SEARCH:
            base_kinds[s] = np.int64(params[s, P_SEARCH_BASE])
            search[s] = max(np.int64(params[s, P_SEARCH_TRIALS]), 2)


@entry(optimised_callees=True)
def search_batch(rules, seed, first_game, n_games, kinds, params, max_rounds, res, first_row, rotate, orders,
                 order_round, streams, ev, trace, library, starts, points_per_game, tally):
    """:func:`sim.engine.play.play_batch` for a table with a searching seat: the same batch loop and game loop
    (:func:`sim.engine.game.play_batch_loop`), its rounds played by :func:`search_round`.

    ``library``, ``starts``, ``points_per_game``: each strategy's library of
    rounds, in the order of ``kinds`` (:func:`sim.engine.game_value.futures`);
    ``tally`` counts the search's work (``TALLY_*``). The one entry of the
    searching table compiled for Python: its batches (:func:`search_games`,
    :func:`search_games_dealt`) and its traced game
    (:func:`trace_search_game`) are calls of it, as the plain table's are of
    :func:`sim.engine.play.play_batch`.
    """
    return play_batch_loop(rules, seed, first_game, n_games, kinds, params, max_rounds, res, first_row, rotate,
                           orders, order_round, streams, ev, trace, search_round,
                           (rotate, library, starts, points_per_game, tally))


_NO_STREAMS = np.zeros(0, dtype=np.uint64)


def search_games(rules, seed, first_game, n_games, kinds, params, max_rounds, res, first_row, rotate, library, starts,
                 points_per_game, tally):
    """:func:`sim.engine.play.play_games` for a table with a searching seat (:func:`search_batch`, every deal
    shuffled, untraced); returns ``(games_done, end_row)``."""
    return search_games_dealt(rules, seed, first_game, n_games, kinds, params, max_rounds, res, first_row, rotate,
                              np.zeros((n_games, 0), dtype=np.int64), _NO_STREAMS, library, starts, points_per_game,
                              tally)


def search_games_dealt(rules, seed, first_game, n_games, kinds, params, max_rounds, res, first_row, rotate, orders,
                       streams, library, starts, points_per_game, tally):
    """:func:`search_games` with the first round of game ``first_game + i`` dealt as the deck ``orders[i]``.

    As :func:`sim.engine.play.play_games_dealt`: the deals a condition
    accepted, ``streams[i]`` where that round's deck stream stands after them
    (``orders`` of width 0 and no ``streams``: every deal shuffled).
    """
    # One array layout and type for every caller: an entry compiles once per argument types.
    orders = np.ascontiguousarray(orders, dtype=np.int64)
    streams = np.ascontiguousarray(streams, dtype=np.uint64)
    done, end, _, _ = search_batch(rules, seed, first_game, n_games, kinds, params, max_rounds, res, first_row,
                                   bool(rotate), orders, 0, streams, np.zeros((1, N_EV), dtype=np.int32), False,
                                   library, starts, points_per_game, tally)
    return done, end


def trace_search_game(rules, game, seed, kinds, params, max_rounds, ev, order, order_round, rotate, library, starts,
                      points_per_game):
    """:func:`sim.engine.play.trace_game` for a table with a searching seat (the libraries as :func:`search_games`)."""
    res = np.zeros((N_R, max_rounds * rules.players), dtype=np.int32)  # the rows a game may write
    orders = np.ascontiguousarray(order, dtype=np.int64).reshape(1, -1)
    _, _, events, overflow = search_batch(rules, seed, game, 1, kinds, params, max_rounds, res, 0, bool(rotate),
                                          orders, order_round, _NO_STREAMS, ev, True, library, starts,
                                          points_per_game, np.zeros(N_TALLY, dtype=np.int64))
    return events, overflow
