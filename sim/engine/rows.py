"""The result rows: one per game, round and seat, ``R_*`` columns (documented in :mod:`sim.api`)."""

from __future__ import annotations

from sim.engine.jit import kernel

MAX_ROUNDS = 200  # the most rounds a game is played before it is cut short
R_GAME, R_ROUND, R_SEAT, R_FIRST, R_OPENED, R_OPEN_TURN, R_OPEN_POINTS = 0, 1, 2, 3, 4, 5, 6
R_JOKERS_LAID, R_JOKERS_HELD, R_CARDS_LEFT, R_POINTS, R_WENT_OUT, R_RAMI_SEC = 7, 8, 9, 10, 11, 12
R_BLOCKED, R_TURNS, R_TOTAL, R_TAKES, R_WINNER, R_WON, R_TRUNCATED, R_HAND_VALUE = 13, 14, 15, 16, 17, 18, 19, 20
R_SEAT_TURNS, R_MAY_I = 21, 22
N_R = 23


@kernel
def game_rows(rules, max_rounds):
    """The most result rows one game writes: a row per round and seat, for
    ``max_rounds`` rounds, or exactly the game's rounds when it has a fixed
    number (basic rummy's three, contrat's seven) and the cap is not lower."""
    rounds = max_rounds
    if 0 < rules.game_rounds < max_rounds:
        rounds = rules.game_rounds
    return rounds * rules.players
