"""The engine's entry points: a batch of games, a traced game, a round studied turn by turn.

Everything here runs in numba over plain arrays; the Python API
(:mod:`sim.api`) validates, seeds, allocates and collects. The engine's
rooms: :mod:`sim.engine.state` (the round state), :mod:`sim.engine.events`
(the trace), :mod:`sim.engine.hand`, :mod:`sim.engine.table`,
:mod:`sim.engine.actions` (the laying actions), :mod:`sim.engine.turn`,
:mod:`sim.engine.round`, :mod:`sim.engine.game` and
:mod:`sim.engine.rows` (the result rows). The names the API and the trace
read are re-exported here.
"""

from __future__ import annotations

import numpy as np

from sim.engine.events import (  # noqa: F401 (the trace's event types, read as play.EV_*)
    EV_ADD,
    EV_BLOCKED,
    EV_CARD,
    EV_DEAL,
    EV_DISCARD,
    EV_DRAW,
    EV_GAME_END,
    EV_MAY_I,
    EV_MELD,
    EV_OPEN,
    EV_OUT,
    EV_RECOVER,
    EV_RESTOCK,
    EV_ROUND_END,
    EV_SEAT,
    N_EV,
    WHERE_PILE,
    WHERE_STOCK,
)
from sim.engine.game import deterministic  # noqa: F401 (read as play.deterministic)
from sim.engine.game import play_batch_loop, seed_round
from sim.engine.jit import entry
from sim.engine.round import make_buffers  # noqa: F401 (read as play.make_buffers)
from sim.engine.round import deal_round, play_round
from sim.engine.rows import (  # noqa: F401 (the result columns, read as play.R_*)
    MAX_ROUNDS,
    N_R,
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
from sim.engine.state import G_DETERMINISTIC, G_FIRST, G_TURN, MAX_SEATS
from sim.engine.policies import KIND_SEARCH
from sim.engine.turn import play_turn


def searching(kinds: np.ndarray) -> bool:
    """Whether a seat of the table searches: its games are played by :func:`search_games`
    (:func:`trace_search_game`), not :func:`play_games` (:func:`trace_game`)."""
    return bool((np.asarray(kinds) == KIND_SEARCH).any())

@entry(optimised_callees=True)
def play_batch(rules, seed, first_game, n_games, kinds, params, max_rounds, res, first_row, rotate, orders,
               order_round, streams, ev, trace):
    """Play games ``first_game .. first_game + n_games - 1`` of a plain table into ``res``, from ``first_row``.

    The engine's one game loop compiled for Python, for a table whose seats
    all play their policies (:func:`sim.engine.game.play_batch_loop` with
    :func:`sim.engine.round.play_round`: its arguments and its result
    ``(games_done, end_row, events, overflow)``): a batch of a simulation
    (:func:`play_games`, :func:`play_games_dealt`) and a traced game
    (:func:`trace_game`) are calls of it, so that a run compiles the round's
    machine code once for all three (each entry generates the whole round's
    code again: some three seconds of a first compile apiece). A table with
    a searching seat has its own entry on the same loop
    (:func:`sim.engine.search.search_batch`).
    """
    return play_batch_loop(rules, seed, first_game, n_games, kinds, params, max_rounds, res, first_row, rotate,
                           orders, order_round, streams, ev, trace, play_round, ())


_NO_STREAMS = np.zeros(0, dtype=np.uint64)


def play_games(rules, seed, first_game, n_games, kinds, params, max_rounds, res, first_row, rotate):
    """:func:`play_batch` of shuffled deals, untraced; returns ``(games_done, end_row)``."""
    return play_games_dealt(rules, seed, first_game, n_games, kinds, params, max_rounds, res, first_row, rotate,
                            np.zeros((n_games, 0), dtype=np.int64), _NO_STREAMS)


def play_games_dealt(rules, seed, first_game, n_games, kinds, params, max_rounds, res, first_row, rotate, orders,
                     streams):
    """:func:`play_games`, with the first round of game ``first_game + i`` dealt as the deck ``orders[i]``.

    Each row of ``orders`` is a whole deck in dealing order (see
    :func:`deal_round`): the deals a condition accepted (``sim.deals.sample``);
    ``streams[i]`` is where that round's deck stream stands after dealing it,
    so that its restocks shuffle as they would have. The other rounds are
    dealt by their own streams, as in :func:`play_games` (``orders`` of
    width 0 and no ``streams``: every deal shuffled).
    """
    # One array layout and type for every caller: an entry compiles once per argument types.
    orders = np.ascontiguousarray(orders, dtype=np.int64)
    streams = np.ascontiguousarray(streams, dtype=np.uint64)
    done, end, _, _ = play_batch(rules, seed, first_game, n_games, kinds, params, max_rounds, res, first_row,
                                 bool(rotate), orders, 0, streams, np.zeros((1, N_EV), dtype=np.int32), False)
    return done, end


def trace_game(rules, game, seed, kinds, params, max_rounds, ev, order, order_round, rotate):
    """Play one game recording every event into ``ev``; returns ``(events, overflow)``.

    ``order`` scripts the deal of round ``order_round``; empty for shuffled deals.
    """
    res = np.zeros((N_R, max_rounds * rules.players), dtype=np.int32)  # the rows a game may write
    orders = np.ascontiguousarray(order, dtype=np.int64).reshape(1, -1)
    _, _, events, overflow = play_batch(rules, seed, game, 1, kinds, params, max_rounds, res, 0, bool(rotate),
                                        orders, order_round, _NO_STREAMS, ev, True)
    return events, overflow


@entry
def start_round(rules, game, seed, rnd, buffers, g, ev, policy_rng, deck_rng, order):
    """Seed the streams of ``(seed, game)`` and deal round ``rnd``, as :func:`sim.engine.game.play_game` does.

    Leaves the very position the game loop starts that round from, to
    study turn by turn with :func:`step_turn` (tests of the information rule,
    advice). ``order`` scripts the deal (see :func:`deal_round`); empty: shuffled.
    """
    seed_round(seed, game, rnd, policy_rng, deck_rng)
    g[G_DETERMINISTIC] = 0  # studied positions are edited by hand: no cycle claims
    deal_round(rules, rnd, rnd % rules.players, g, ev, buffers, deck_rng, order)


@entry
def step_turn(rules, kinds, params, buffers, ws, g, ev, policy_rng, deck_rng):
    """Play the next turn of a position from :func:`start_round`; returns the ``TURN_*`` status."""
    seat = (g[G_FIRST] + g[G_TURN]) % rules.players
    return play_turn(rules, g, ev, buffers, seat, kinds, params, policy_rng, deck_rng, ws)
