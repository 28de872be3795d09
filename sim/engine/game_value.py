"""The value of a round's outcome for the game: the chance it leaves of winning the game, in points.

A searching seat with ``horizon=1`` (:mod:`sim.engine.search`) does not
count a playout's round points alone: it asks how likely the totals that
round leaves are to win the game. Its playouts end with the round (playing
each later round card by card would cost many times as much); the rounds
after it are drawn from a **library of rounds**: the rounds of
:data:`LIBRARY_GAMES` whole games played by the base strategy at every seat,
each kept as the points of every seat counted from the round's first player.
From the totals a playout leaves, :data:`GAME_FUTURES` futures of the game
are drawn: each adds library rounds, one after another and with the first
player moving on as in the game (in Rami contrat and basic rummy, round
``r`` is drawn from the library's rounds ``r``: each deal has its own
contract), until the game ends by its own rule
(:func:`sim.engine.game.game_over`: a total over the target with a single
lowest, or the last deal). The value is the seat's share of the games won
over those futures (a win shared by ``k`` seats counts ``1/k``).

Why the futures draw whole rounds of the library rather than each seat's
points apart: one seat's going out is the others' penalty, so a round's
points are drawn together.

In points, so that the search's stopping width keeps its meaning: the
chance is divided by the chance of winning the game one point of the first
round costs on average (the least-squares slope of "won the game" on the
first round's points over the library's games: about 0.18% of a game per
point in Rami 51, 0.27% in Rami contrat, 0.7% in basic rummy). At a game's
start a point of the round is then worth about a point; near its end a
point that carries a total over the target, or a rival's past it, is worth
far more, and a point that changes no ranking nothing.

Trial ``t`` of every choice draws its futures from the same stream
(``derive_seed(seed, t, 0, STREAM_GAME_FUTURE)``), so that choices stay
compared on common futures.
"""

from __future__ import annotations

import functools

import numpy as np

from sim.engine.game import best_total, game_over
from sim.engine.jit import kernel
from sim.engine.params import GAME_BASIC
from sim.engine.rng import STREAM_GAME_FUTURE, below, derive_seed
from sim.engine.rows import MAX_ROUNDS, N_R, R_FIRST, R_GAME, R_POINTS, R_ROUND, R_SEAT, R_WON, game_rows
from sim.engine.state import MAX_SEATS

HORIZON_ROUND, HORIZON_GAME = 0, 1
"""A searching seat's ``horizon``: value a playout by its round points, or by the game's value (this module)."""

GAME_FUTURES = 64
"""Futures of the game drawn from each playout's end (the library's rounds)."""

LIBRARY_GAMES = 1000
"""Games of the base strategy whose rounds make the library."""

LIBRARY_SEED = 51
"""The seed of the library's games: a fixed number, so a position's value does not depend on the run."""

MAX_DEALS = 8
"""Room for a library's deal boundaries: up to 7 deals (Rami contrat) and the end."""


@kernel
def win_share(rules, totals, seat):
    """``seat``'s share of the game's win at these final totals: 1 alone at the best total, ``1/k`` among ``k``."""
    best = best_total(rules, totals)
    if totals[seat] != best:
        return 0.0
    k = 0
    for s in range(rules.players):
        if totals[s] == best:
            k += 1
    return 1.0 / k


@kernel
def game_share(rules, totals, rounds_played, seat, library, starts, rng, future):
    """``seat``'s mean share of the game's win over :data:`GAME_FUTURES` futures from ``totals``.

    ``totals``: every seat's total after ``rounds_played`` rounds;
    ``library[i, k]``: round ``i``'s points of the ``k``-th seat from its
    first player; round ``r`` of the game is drawn from rows
    ``starts[r] .. starts[r + 1] - 1`` (one range when the game plays to a
    target: ``starts[0] .. starts[1] - 1``); ``rng``: the futures' stream
    (future ``k`` draws from its own stream, seeded by ``rng`` and ``k``, so
    that it adds the same library rounds whatever ``totals`` are, even when
    another future ended sooner);
    ``future``: scratch room for ``MAX_SEATS`` totals. A game already over is
    valued without drawing.
    """
    n = rules.players
    done, _ = game_over(rules, rounds_played, totals)
    if done:
        return win_share(rules, totals, seat)
    fixed = rules.game_rounds > 0
    share = 0.0
    base = rng[0]
    for k in range(GAME_FUTURES):
        rng[0] = derive_seed(base, k, 0, STREAM_GAME_FUTURE)
        for s in range(n):
            future[s] = totals[s]
        r = rounds_played
        while True:
            d = r if fixed else 0
            lo = starts[d]
            i = lo + below(rng, 0, starts[d + 1] - lo)
            first = r % n
            for m in range(n):
                future[(first + m) % n] += library[i, m]
            r += 1
            done, _ = game_over(rules, r, future)
            if done or r >= MAX_ROUNDS:
                break
        share += win_share(rules, future, seat)
    return share / GAME_FUTURES


@kernel
def game_value(rules, totals, round_points, rounds_played, seat, library, starts, points_per_game, rng, scratch):
    """The game's value, in points, of a round that scored ``round_points`` after totals ``totals``.

    Oriented as round points are (lower is better, but in basic rummy
    higher): minus the win's share times ``points_per_game`` (the points a
    whole game's win is worth at its start), or plus it in basic rummy.
    ``scratch``: room for ``2 * MAX_SEATS`` totals (a kernel owns no array).
    """
    after = scratch[:MAX_SEATS]
    for s in range(MAX_SEATS):
        after[s] = totals[s] + round_points[s]
    share = game_share(rules, after, rounds_played, seat, library, starts, rng, scratch[MAX_SEATS:])
    return share * points_per_game if rules.game == GAME_BASIC else -share * points_per_game


@functools.lru_cache(maxsize=32)
def library(kr, base_kind: int, base_params: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray, float]:
    """The library of rounds of the base strategy ``(base_kind, base_params)`` at every seat of ``kr``'s game.

    Returns ``(rounds, starts, points_per_game)``: ``rounds`` int32
    ``(rows, MAX_SEATS)``, each round's points from its first player on;
    ``starts`` (:data:`MAX_DEALS` + 1 entries) where each deal's rounds begin
    (a game to a target has one range, ``starts[0:2]``); the points a game's
    win is worth at its start (1 / the slope of the win on the first round's
    points, see the module's docstring). Played once per process and base
    (about a second), with :data:`LIBRARY_SEED`: the same library everywhere.
    """
    from sim.engine.play import play_games  # the game loop's entries: the library is a run of them

    n = kr.players
    kinds = np.full(MAX_SEATS, base_kind, dtype=np.int64)
    params = np.tile(np.asarray(base_params, dtype=np.float64), (MAX_SEATS, 1))
    # Room for a quarter of the longest possible games' rows (far more than games use) and one longest game:
    # play_games stops where the next game might not fit, and the loop below goes on from there.
    res = np.zeros((N_R, LIBRARY_GAMES * game_rows(kr, MAX_ROUNDS) // 4 + MAX_ROUNDS * n), dtype=np.int32)
    rows = []
    game = 0
    while game < LIBRARY_GAMES:
        played, n_res = play_games(kr, np.uint64(LIBRARY_SEED), game, LIBRARY_GAMES - game, kinds, params,
                                   MAX_ROUNDS, res, 0, False)
        rows.append(res[:, :n_res].copy())
        game += int(played)
        if played == 0:
            res = np.zeros((res.shape[0], res.shape[1] * 2), dtype=np.int32)
    table = np.concatenate(rows, axis=1)
    rnd, seat, first = table[R_ROUND], table[R_SEAT], table[R_FIRST]
    # One row per round: the points of each seat counted from the first player.
    key = table[R_GAME].astype(np.int64) * (MAX_ROUNDS + 1) + rnd
    order = np.lexsort(((seat - first) % n, key))
    points = table[R_POINTS][order].reshape(-1, n)
    round_of = rnd[order][::n]
    fixed = kr.game_rounds > 0
    deal = round_of if fixed else np.zeros_like(round_of)
    by_deal = np.argsort(deal, kind="stable")
    rounds = np.zeros((len(by_deal), MAX_SEATS), dtype=np.int32)
    rounds[:, :n] = points[by_deal]
    starts = np.zeros(MAX_DEALS + 1, dtype=np.int64)
    counts = np.bincount(deal, minlength=MAX_DEALS)[:MAX_DEALS]
    starts[1:] = np.cumsum(counts)
    first_round = table[:, rnd == 0]
    x = first_round[R_POINTS].astype(np.float64)
    won = first_round[R_WON].astype(np.float64)
    slope = float(np.cov(x, won)[0, 1] / x.var()) if x.var() > 0 else 0.0
    points_per_game = 1.0 / abs(slope) if slope != 0 else 100.0
    return rounds, starts, points_per_game


def futures(kr, kinds: np.ndarray, params: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The libraries of a table's strategies (row ``j``: strategy ``j``), for the searching round.

    A strategy that searches with ``horizon=1`` gets its base's
    :func:`library`; any other an empty one (it is never read). Returns
    ``(rounds, starts, points_per_game)`` stacked by strategy: int32
    ``(MAX_SEATS, rows, MAX_SEATS)``, int64 ``(MAX_SEATS, MAX_DEALS + 1)``
    and float64 ``(MAX_SEATS,)``.
    """
    from sim.engine.policies import KIND_SEARCH, P_SEARCH_BASE, P_SEARCH_HORIZON, SEARCH_ONLY_SLOTS

    found: dict[int, tuple[np.ndarray, np.ndarray, float]] = {}
    for j in range(kinds.shape[0]):
        if kinds[j] == KIND_SEARCH and params[j, P_SEARCH_HORIZON] == HORIZON_GAME:
            base = params[j].copy()
            base[list(SEARCH_ONLY_SLOTS)] = 0.0  # the search's own slots: the base's play never reads them
            found[j] = library(kr, int(params[j, P_SEARCH_BASE]), tuple(float(v) for v in base))
    size = max([len(rounds) for rounds, _, _ in found.values()] + [1])
    rounds = np.zeros((MAX_SEATS, size, MAX_SEATS), dtype=np.int32)
    starts = np.zeros((MAX_SEATS, MAX_DEALS + 1), dtype=np.int64)
    points_per_game = np.zeros(MAX_SEATS, dtype=np.float64)
    for j, (r, s, p) in found.items():
        rounds[j, :len(r)] = r
        starts[j] = s
        points_per_game[j] = p
    return rounds, starts, points_per_game
