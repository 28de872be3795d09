"""The game: rounds until the game's end, their result rows and, when tracing, their events; a batch of games.

The one game loop (:func:`play_game`) and the one batch loop
(:func:`play_batch_loop`), for every table: a table is the round function
its games are played by, handed to them as an argument (numba compiles the
loops once per function so handed). A plain table's round is
:func:`sim.engine.round.play_round` (every seat's policy decides); a table
with a searching seat's is :func:`sim.engine.search.search_round`,
whose own arguments ride in the tuple ``round_args`` that the plain round
does not read. So the entry of a plain table (:func:`sim.engine.play.play_batch`)
compiles no search code, and both tables deal, seed, score, write their rows
and end their games by the very same lines. Both loops are inlined by numba
into the entry points that call them (see :mod:`sim.engine.jit`).
"""

from __future__ import annotations

import numpy as np

from sim.engine.params import GAME_BASIC
from sim.engine.events import EV_GAME_END, EV_ROUND_END, EV_SEAT, record_event, trace_hand
from sim.engine.hand import hand_value
from sim.engine.meld_search import workspace
from sim.engine.jit import entry, kernel
from sim.engine.policies import policy_is_deterministic
from sim.engine.rng import STREAM_DECK, STREAM_SEAT_POLICY, derive_seed
from sim.engine.round import BLOCK_TABLE_CLOSED, BLOCK_TURN_CAP, make_buffers, score_round
from sim.engine.rows import (
    R_BLOCKED,
    R_CARDS_LEFT,
    R_FIRST,
    R_GAME,
    R_HAND_VALUE,
    R_JOKERS_HELD,
    R_JOKERS_LAID,
    R_MAY_I,
    R_OPEN_POINTS,
    R_OPEN_TURN,
    R_OPENED,
    R_POINTS,
    R_RAMI_SEC,
    R_ROUND,
    R_SEAT,
    R_SEAT_TURNS,
    R_TAKES,
    R_TOTAL,
    R_TRUNCATED,
    R_TURNS,
    R_WENT_OUT,
    R_WINNER,
    R_WON,
    game_rows,
)
from sim.engine.state import (
    G_DETERMINISTIC,
    G_NEV,
    G_OVERFLOW,
    G_TRACE,
    G_TURN,
    MAX_SEATS,
    N_G,
    S_JOKERS_LAID,
    S_MAY_I,
    S_OPEN_POINTS,
    S_OPEN_TURN,
    S_OPENED,
    S_TAKES,
    S_TURNS,
)


@kernel
def deterministic(rules, kinds, params):
    """1 when every seat decides without randomness (so positions can cycle)."""
    for s in range(rules.players):
        if not policy_is_deterministic(kinds[s], params[s]):
            return 0
    return 1


@kernel
def seed_round(seed, game, rnd, policy_rng, deck_rng):
    # Every round has its own deck stream and one stream per seat, so any
    # round replays alone and the deck does not depend on the players' choices.
    for s in range(MAX_SEATS):
        policy_rng[s] = derive_seed(np.uint64(seed), game, rnd * MAX_SEATS + s, STREAM_SEAT_POLICY)
    deck_rng[0] = derive_seed(np.uint64(seed), game, rnd, STREAM_DECK)


@entry(inline="always")
def play_batch_loop(rules, seed, first_game, n_games, kinds, params, max_rounds, res, first_row, rotate, orders,
                    order_round, streams, ev, trace, round_fn, round_args):
    """Play games ``first_game .. first_game + n_games - 1`` into ``res``, shape ``(N_R, rows)``, from ``first_row``,
    their rounds played by ``round_fn`` with ``round_args`` (:func:`play_game`).

    The batch loop of every table's entry (:func:`sim.engine.play.play_batch`,
    :func:`sim.engine.search.search_batch`), inlined into each. Returns
    ``(games_done, end_row, events, overflow)``: fewer games than asked when
    ``res`` filled; the games' rows are ``res[:, first_row:end_row]``.
    ``rotate`` moves the strategies one seat on from game to game (see
    :func:`seating`). ``orders[i]`` scripts the deal of round ``order_round``
    of game ``first_game + i`` (see :func:`sim.engine.round.deal_round`;
    width 0: shuffled), and ``streams[i]``, when given, is where that round's
    deck stream stands after dealing it. With ``trace`` the events are
    recorded into ``ev``: ``events`` rows, ``overflow`` 1 when ``ev`` had no
    room for them all.
    """
    g = np.zeros(N_G, dtype=np.int64)
    g[G_TRACE] = 1 if trace else 0
    buffers = make_buffers()
    ws = workspace()
    game_kinds = kinds.copy()
    game_params = params.copy()
    n_res = first_row
    for i in range(n_games):
        seating(rules, first_game + i, kinds, params, rotate, game_kinds, game_params)
        rows = play_game(rules, first_game + i, seed, game_kinds, game_params, max_rounds, res, n_res, ev, g,
                         buffers, ws, orders[i], order_round, streams[i:i + 1], round_fn, round_args)
        if rows < 0:
            return i, n_res, g[G_NEV], g[G_OVERFLOW]
        n_res = rows
    return n_games, n_res, g[G_NEV], g[G_OVERFLOW]


@entry(inline="always")
def play_game(rules, game, seed, kinds, params, max_rounds, res, n_res, ev, g, buffers, ws, order, order_round,
              order_stream, round_fn, round_args):
    """Play game ``game`` of the simulation seeded ``seed``, each round by ``round_fn``.

    Writes one row per round and seat into ``res`` from row ``n_res``:
    ``res`` is column-major, ``res[R_..., row]``, so that the result frame
    takes each column as one contiguous run; returns the new row count, or
    -1 when ``res`` has no room left for the longest such game
    (:func:`game_rows`; the caller then grows it and plays the game again).
    ``buffers`` (from :func:`make_buffers`) and ``ws`` (from
    :func:`sim.engine.meld_search.workspace`) are scratch space. ``order``, when
    not empty, scripts the deal of round ``order_round`` (see :func:`deal_round`);
    ``order_stream``, when not empty, is where that round's deck stream
    stands after the deal (a deal accepted after others from the same
    stream: its restocks go on from there); empty, from the stream's start.

    ``round_fn`` is the table's round (:func:`sim.engine.round.play_round`, or
    the searching table's :func:`sim.engine.search.search_round`), called as
    ``round_fn(rules, game, seed, rnd, first, g, ev, buffers, kinds, params,
    policy_rng, deck_rng, ws, order, totals, round_args)``: it deals round
    ``rnd`` and plays it, and returns ``(winner, blocked, rami_sec)``;
    ``totals`` are the game's totals before the round.
    """
    n_players = rules.players
    if n_res + game_rows(rules, max_rounds) > res.shape[1]:
        return -1
    policy_rng = np.empty(MAX_SEATS, dtype=np.uint64)
    deck_rng = np.empty(1, dtype=np.uint64)
    # A searching seat is no deterministic policy: its choices hang on its
    # rollouts' seeds, not on the position alone, so a repeated position
    # proves no cycle.
    g[G_DETERMINISTIC] = deterministic(rules, kinds, params)
    totals = np.zeros(MAX_SEATS, dtype=np.int64)
    points = np.zeros(MAX_SEATS, dtype=np.int64)
    start_row = n_res
    rnd = 0
    truncated = False
    winner_game = -1
    while True:
        if rnd >= max_rounds:
            truncated = True
            break
        first = rnd % n_players
        seed_round(seed, game, rnd, policy_rng, deck_rng)
        if rnd == order_round and order_stream.shape[0] > 0:
            deck_rng[0] = order_stream[0]
        winner, blocked, rami_sec = round_fn(rules, game, seed, rnd, first, g, ev, buffers, kinds, params, policy_rng,
                                             deck_rng, ws, order if rnd == order_round else order[:0], totals,
                                             round_args)
        n_res = record_round(rules, game, rnd, first, winner, blocked, rami_sec, g, ev, buffers, points, totals, res, n_res)
        rnd += 1
        done, winner_game = game_over(rules, rnd, totals)
        if done:
            break
    close_game(rules, rnd, truncated, winner_game, totals, res, start_row, n_res, g, ev)
    return n_res


@kernel
def record_round(rules, game, rnd, first, winner, blocked, rami_sec, g, ev, buffers, points, totals, res, n_res):
    """Score round ``rnd`` of game ``game`` just played, add it to ``totals`` and write its rows (and, tracing, its end events).

    Returns the new row count.
    """
    n_players = rules.players
    h_lo, h_hi, h_jk, h_n, seats = buffers.h_lo, buffers.h_hi, buffers.h_jk, buffers.h_n, buffers.seats
    score_round(rules, winner, rami_sec, buffers, points)
    for s in range(n_players):
        totals[s] += points[s]
    if g[G_TRACE]:
        record_event(ev, g, EV_ROUND_END, rnd, winner, 1 if rami_sec else 0, blocked, 0, 0, 0, 0, 0, 0, 0)
        for s in range(n_players):
            record_event(ev, g, EV_SEAT, rnd, s, points[s], totals[s], seats[s, S_OPENED], 0, 0, 0, 0, 0, 0)
            trace_hand(ev, g, s, h_lo[s], h_hi[s], h_jk[s])
    for s in range(n_players):
        res[R_GAME, n_res] = game
        res[R_ROUND, n_res] = rnd
        res[R_SEAT, n_res] = s
        res[R_FIRST, n_res] = first
        res[R_OPENED, n_res] = seats[s, S_OPENED]
        res[R_OPEN_TURN, n_res] = seats[s, S_OPEN_TURN]
        res[R_OPEN_POINTS, n_res] = seats[s, S_OPEN_POINTS]
        res[R_JOKERS_LAID, n_res] = seats[s, S_JOKERS_LAID]
        res[R_JOKERS_HELD, n_res] = h_jk[s]
        res[R_CARDS_LEFT, n_res] = h_n[s]
        res[R_POINTS, n_res] = points[s]
        res[R_WENT_OUT, n_res] = 1 if s == winner else 0
        res[R_RAMI_SEC, n_res] = 1 if (rami_sec and s == winner) else 0
        res[R_BLOCKED, n_res] = blocked
        # A round stopped by the turn cap or a closed table stops before
        # the next turn begins; any other ends in a turn begun.
        stopped_before_turn = blocked == BLOCK_TURN_CAP or blocked == BLOCK_TABLE_CLOSED
        res[R_TURNS, n_res] = g[G_TURN] if stopped_before_turn else g[G_TURN] + 1
        res[R_TOTAL, n_res] = totals[s]
        res[R_TAKES, n_res] = seats[s, S_TAKES]
        res[R_HAND_VALUE, n_res] = hand_value(h_lo[s], h_hi[s], h_jk[s], rules)
        res[R_SEAT_TURNS, n_res] = seats[s, S_TURNS]
        res[R_MAY_I, n_res] = seats[s, S_MAY_I]
        n_res += 1
    return n_res


@kernel
def close_game(rules, rnd, truncated, winner_game, totals, res, start_row, n_res, g, ev):
    """Mark the game's rows ``start_row .. n_res - 1`` with its winner and, tracing, record its end."""
    n_players = rules.players
    for r in range(start_row, n_res):
        res[R_WINNER, r] = winner_game
        res[R_TRUNCATED, r] = 1 if truncated else 0
        res[R_WON, r] = 0
    # Every seat sharing the best total is marked as a winner.
    best = best_total(rules, totals)
    if not truncated:
        for r in range(start_row, n_res):
            if totals[res[R_SEAT, r]] == best:
                res[R_WON, r] = 1
    if g[G_TRACE]:
        record_event(ev, g, EV_GAME_END, rnd, winner_game, 1 if truncated else 0, 0, 0, 0, 0, 0, 0, 0, 0)
        for s in range(n_players):
            record_event(ev, g, EV_SEAT, rnd, s, 0, totals[s], 0, 0, 0, 0, 0, 0, 0)


@kernel
def best_total(rules, totals):
    """The game's best total: the lowest, but in basic rummy (where the round's winner scores) the highest."""
    best = totals[0]
    for s in range(1, rules.players):
        if (rules.game == GAME_BASIC and totals[s] > best) or (rules.game != GAME_BASIC and totals[s] < best):
            best = totals[s]
    return best


@kernel
def game_over(rules, rounds_played, totals):
    """``(done, winner)``: winner is the seat with the best total, -1 if shared."""
    n_players = rules.players
    if rules.game_rounds > 0:
        if rounds_played < rules.game_rounds:
            return False, -1
        best = 0
        for s in range(1, n_players):
            if (rules.game == GAME_BASIC and totals[s] > totals[best]) or (
                rules.game != GAME_BASIC and totals[s] < totals[best]
            ):
                best = s
        for s in range(n_players):
            if s != best and totals[s] == totals[best]:
                return True, -1
        return True, best
    reached = False
    for s in range(n_players):
        if totals[s] >= rules.game_target:
            reached = True
    if not reached:
        return False, -1
    best = 0
    for s in range(1, n_players):
        if totals[s] < totals[best]:
            best = s
    for s in range(n_players):
        if s != best and totals[s] == totals[best]:
            return False, -1  # a tie for the lowest plays one more round
    return True, best


@entry
def seating(rules, game, kinds, params, rotate, kinds_out, params_out):
    """The strategies at the seats of game ``game``.

    With ``rotate``, strategy ``j`` plays seat ``(j + game) mod players``, so
    over consecutive games every strategy sits everywhere equally often.
    """
    for s in range(rules.players):
        j = strategy_at(rules, game, s, rotate)
        kinds_out[s] = kinds[j]
        # Element by element: a row assigned whole is checked for its shape,
        # and numba compiles the error's message formatting (strings, reprs)
        # into every entry that seats a game, some 2 s of a first compile.
        for k in range(params.shape[1]):
            params_out[s, k] = params[j, k]


@kernel
def strategy_at(rules, game, seat, rotate):
    """The strategy (its index in the table's list) at ``seat`` in game ``game`` (see :func:`seating`)."""
    return (seat - game) % rules.players if rotate else seat


@kernel
def strategies_at(rules, game, rotate, at):
    """Into ``at[seat]``: the strategy (its index in the table's list) at each seat of game ``game``."""
    for s in range(rules.players):
        at[s] = strategy_at(rules, game, s, rotate)
