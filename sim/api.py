"""The Python API: simulate many games, or trace one.

The wrappers validate, derive seeds, split the games into batches and
collect frames; the compiled kernels (:mod:`sim.engine.play`) only loop.
Game ``i`` of a simulation seeded ``seed`` depends on ``(seed, i)`` alone, so
results are identical for any number of workers or batch size, and any game
can be replayed by itself.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import polars as pl

import strategies as strategy_lib
from sim.engine import play as E
from sim.engine.params import kernel_rules
from sim.rules import RULES_VERSION, Ruleset, as_ruleset
from sim.trace import events_to_dicts

__all__ = ["RESULT_COLUMNS", "game_summary", "play_traced", "resolve", "simulate"]

RESULT_COLUMNS: dict[str, str] = {
    "game": "game index (its seed stream is derived from the simulation seed and this index)",
    "round": "round (deal) index within the game, from 0",
    "seat": "seat, from 0; play goes up the seat numbers",
    "first": "seat that played first in this round",
    "opened": "the player opened (laid its first melds) in this round",
    "open_turn": "the player's own turn (1 = its first) in which it opened; -1 if it did not",
    "open_points": "opening value of the opening melds; 0 if it did not open",
    "jokers_laid": "jokers the player laid on the table during the round",
    "jokers_held": "jokers left in the player's hand at the end of the round",
    "cards_left": "cards left in hand at the end of the round",
    "points": "points scored this round (penalty; in basic rummy the winner's gain)",
    "went_out": "the player went out (won the round)",
    "rami_sec": "the player went out with a rami sec (basic rummy: a rami)",
    "blocked": "why the round stopped without a winner: none, stock, turn_cap, cycle (deterministic players back at a position seen at an earlier turning of the pile) or table_closed (contrat: all laid, the table takes no card)",
    "contract": "Rami contrat: the deal's contract number (1 .. 7); 0 in other games",
    "turns": "turns begun in the round, all seats together",
    "seat_turns": "turns the player began in the round",
    "discard_takes": "cards the player took from the discard in the round",
    "may_i": "Rami contrat: cards the player took by \"Puis-je ?\" (each came with one penalty card)",
    "hand_value": "penalty value of the cards left in hand, before unopened and rami sec rules",
    "total": "the player's running game total after this round",
    "winner": "seat that won the game; -1 when the best total is shared",
    "won": "the player has the game's best total (shared ties all count)",
    "truncated": "the game hit the engine's round cap before ending",
    "strategy": "name of the strategy playing this seat",
    "strategy_index": "position of that strategy in the list given to simulate (with rotate, it moves seat)",
    "rules_version": "version of the rules behaviour that produced the row",
}

_KERNEL_COLUMNS = {
    "game": E.R_GAME, "round": E.R_ROUND, "seat": E.R_SEAT, "first": E.R_FIRST,
    "opened": E.R_OPENED, "open_turn": E.R_OPEN_TURN, "open_points": E.R_OPEN_POINTS,
    "jokers_laid": E.R_JOKERS_LAID, "jokers_held": E.R_JOKERS_HELD, "cards_left": E.R_CARDS_LEFT,
    "points": E.R_POINTS, "went_out": E.R_WENT_OUT, "rami_sec": E.R_RAMI_SEC, "blocked": E.R_BLOCKED,
    "turns": E.R_TURNS, "seat_turns": E.R_SEAT_TURNS, "discard_takes": E.R_TAKES,
    "hand_value": E.R_HAND_VALUE, "total": E.R_TOTAL, "winner": E.R_WINNER, "won": E.R_WON,
    "truncated": E.R_TRUNCATED, "may_i": E.R_MAY_I,
}
_BOOL_COLUMNS = ("opened", "went_out", "rami_sec", "won", "truncated")
_BLOCKED_NAMES = ["none", "stock", "turn_cap", "cycle", "table_closed"]


def resolve(
    ruleset: Ruleset | str, strategies: Sequence[str | strategy_lib.Strategy]
) -> tuple[Ruleset, list[strategy_lib.Strategy]]:
    """The ruleset with ``players`` set to the number of strategies, and the strategies."""
    if isinstance(strategies, str):
        raise TypeError("strategies must be a list of names, one per seat, e.g. ['greedy'] * 4")
    r = as_ruleset(ruleset)
    # A strategy with per-game parameters (expert) plays its game's point.
    chosen = [strategy_lib.get(s).for_game(r.game) for s in strategies]
    if r.players != len(chosen):
        r = r.replace(players=len(chosen))
    return r, chosen


def _check_count(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be a whole number of at least {minimum}, got {value!r}")
    return int(value)


def _run_batch(kr, seed: int, start: int, count: int, kinds, params, max_rounds: int,
               rotate: bool) -> list[np.ndarray]:
    """Rows of games ``start .. start + count - 1``, in one or more chunks (a
    chunk per buffer, when the first fills). Rows are int32: every value fits,
    and half the bytes to write, gather and turn into columns."""
    chunks = []
    done = 0
    # Games of a fixed number of rounds fill exactly that many rows per seat;
    # games to a target score average well under 16 rounds.
    rows_per_game = (kr.game_rounds if kr.game_rounds > 0 else 16) * kr.players
    while done < count:
        # A game starts only with room for its longest possible length.
        capacity = (count - done) * rows_per_game + max_rounds * kr.players
        res = np.zeros((capacity, E.N_R), dtype=np.int32)
        games, rows = E.play_games(kr, np.uint64(seed), start + done, count - done, kinds, params, max_rounds, res,
                                   rotate)
        chunks.append(res[:rows])
        done += games
    return chunks


def simulate(
    ruleset: Ruleset | str,
    strategies: Sequence[str | strategy_lib.Strategy],
    n_games: int = 1000,
    seed: int = 0,
    workers: int | None = None,
    batch_size: int | None = None,
    max_rounds: int = E.MAX_ROUNDS,
    progress: Callable[[int], None] | None = None,
    rotate: bool = False,
    first_game: int = 0,
) -> pl.DataFrame:
    """Play ``n_games`` games and return one row per game, round and seat.

    Parameters
    ----------
    ruleset : Ruleset or str
        A ruleset, a preset name, or a TOML file; ``players`` is set to the
        number of strategies.
    strategies : sequence of str or Strategy
        One per seat, e.g. ``["greedy"] * 4``.
    n_games : int
        Games to play (at least 1).
    seed : int
        The simulation seed (0 .. 2**64 - 1).
    workers : int, optional
        Threads running the compiled kernel (default: every core); results do
        not depend on it.
    batch_size : int, optional
        Games per batch (default: about 50 batches per worker, at most 2000 games).
    max_rounds : int
        Round cap per game; a game reaching it is marked ``truncated``.
    progress : callable, optional
        Called with the number of games finished after each batch.
    rotate : bool
        Move the strategies one seat on from game to game (strategy ``j``
        plays seat ``(j + game) mod players``), so that seat order favours
        no strategy in a comparison.
    first_game : int
        Index of the first game: games ``first_game .. first_game + n_games - 1``
        are played, each exactly as in any other range that holds it, so a
        longer study adds games without replaying earlier ones.

    Returns
    -------
    polars.DataFrame
        Columns :data:`RESULT_COLUMNS`, sorted by game, round and seat.
    """
    r, chosen = resolve(ruleset, strategies)
    n_games = _check_count("n_games", n_games, 1)
    first_game = _check_count("first_game", first_game, 0)
    if workers is None:
        workers = os.cpu_count() or 1
    workers = _check_count("workers", workers, 1)
    max_rounds = _check_count("max_rounds", max_rounds, 1)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
        raise ValueError(f"seed must be a whole number from 0 to 2**64 - 1, got {seed!r}")
    if batch_size is None:
        batch_size = max(1, min(2000, math.ceil(n_games / (50 * workers))))
    batch_size = _check_count("batch_size", batch_size, 1)
    kr = kernel_rules(r)
    kinds, params = strategy_lib.parameter_arrays(chosen, E.MAX_SEATS)
    starts = list(range(0, n_games, batch_size))

    def job(start: int) -> list[np.ndarray]:
        return _run_batch(kr, int(seed), first_game + start, min(batch_size, n_games - start), kinds, params,
                          max_rounds, bool(rotate))

    results: list[np.ndarray] = []
    if workers == 1:
        for start in starts:
            results.extend(job(start))
            if progress:
                progress(min(batch_size, n_games - start))
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            # map keeps batch order, so the frame is the same for any worker count.
            for start, chunks in zip(starts, pool.map(job, starts)):
                results.extend(chunks)
                if progress:
                    progress(min(batch_size, n_games - start))
    _raise_policy_errors(chosen)
    return _frame(results, chosen, bool(rotate), r.game)


def _raise_policy_errors(chosen: list[strategy_lib.Strategy]) -> None:
    """Raise what a Python policy raised during the run (see strategies.user)."""
    if any(s.kind == strategy_lib.policies.KIND_PYTHON for s in chosen):
        from strategies import user

        user.raise_pending()


def _categorical(name: str, labels: Sequence[str], codes: np.ndarray) -> pl.Series:
    """A categorical column of ``labels[codes]``, built without a Python string per row."""
    return pl.Series(name, list(labels), dtype=pl.Categorical).gather(codes)


def _frame(chunks: list[np.ndarray], chosen: list[strategy_lib.Strategy], rotate: bool, game: str) -> pl.DataFrame:
    """The result frame of the kernel's row chunks, in order."""

    def column(col: int) -> np.ndarray:
        # Each column gathered straight from the chunks: no row-major copy of
        # the whole result is ever made.
        return np.concatenate([c[:, col] for c in chunks])

    data: dict[str, Any] = {}
    for name, col in _KERNEL_COLUMNS.items():
        values = column(col)
        if name in _BOOL_COLUMNS:
            data[name] = values.astype(bool)
        elif name == "blocked":
            data[name] = _categorical(name, _BLOCKED_NAMES, values)
        else:
            data[name] = values
    data["contract"] = (
        (data["round"] % 7 + 1).astype(np.int8) if game == "contrat" else np.zeros(len(data["round"]), dtype=np.int8)
    )
    names = [s.name for s in chosen]
    index = data["seat"]
    if rotate:
        index = (index - data["game"]) % len(chosen)
    data["strategy_index"] = index.astype(np.int16)
    data["strategy"] = _categorical("strategy", names, index)
    data["rules_version"] = np.full(len(index), RULES_VERSION, dtype=np.int16)
    return pl.DataFrame(data).select(list(RESULT_COLUMNS))


def game_summary(results: pl.DataFrame) -> pl.DataFrame:
    """One row per game and seat: rounds played, final total, whether it won."""
    return (
        results.group_by("game", "seat", maintain_order=True)
        .agg(
            pl.col("strategy").first(),
            pl.col("round").max().alias("rounds") + 1,
            pl.col("total").last(),
            pl.col("won").first(),
            pl.col("winner").first(),
            pl.col("truncated").first(),
            pl.col("went_out").sum().alias("rounds_won"),
        )
        .sort("game", "seat")
    )


def scripted_deal(
    ruleset: Ruleset, hands: Sequence[str], pile: str, stock: str = "", seed: int = 0, round_index: int = 0
) -> np.ndarray:
    """The deck order that deals ``hands`` (seat 0 first), ``pile`` and then ``stock``.

    ``stock`` lists the stock's top cards, top first; the cards of the deck
    not named anywhere go under them, shuffled by ``seed``. Raises
    ``ValueError`` when the cards do not fit the deck or the hands the deal.
    """
    from collections import Counter

    from sim import cards as cardlib

    if len(hands) != ruleset.players:
        raise ValueError(f"{len(hands)} hands for {ruleset.players} players")
    dealt = [cardlib.parse(h) for h in hands]
    first = round_index % ruleset.players
    for seat, hand in enumerate(dealt):
        expected = ruleset.hand_size(round_index) + (1 if seat == first and ruleset.first_player_extra_card else 0)
        if len(hand) != expected:
            raise ValueError(f"seat {seat} holds {len(hand)} cards; the deal gives {expected}")
    top = cardlib.parse(pile)
    if len(top) != 1:
        raise ValueError(f"the pile starts with exactly one card, got {pile!r}")
    named = [c for hand in dealt for c in hand] + top + cardlib.parse(stock)
    left = Counter(cardlib.deck(ruleset.decks, ruleset.n_jokers))
    left.subtract(Counter(named))
    extra = [c for c, n in left.items() if n < 0]
    if extra:
        raise ValueError(f"more copies than the deck holds of: {cardlib.format(extra)}")
    rest = np.array([int(c) for c, n in sorted(left.items()) for _ in range(n)], dtype=np.int64)
    np.random.default_rng(seed).shuffle(rest)
    # The engine deals from the round's first player round the table.
    in_turn_order = [c for k in range(ruleset.players) for c in dealt[(first + k) % ruleset.players]]
    return np.array([int(c) for c in in_turn_order + top + cardlib.parse(stock)] + list(rest), dtype=np.int64)


def play_traced(
    ruleset: Ruleset | str,
    strategies: Sequence[str | strategy_lib.Strategy],
    seed: int = 0,
    game: int = 0,
    max_rounds: int = E.MAX_ROUNDS,
    max_events: int = 2_000_000,
    deal: dict[str, Any] | None = None,
    rotate: bool = False,
) -> list[dict[str, Any]]:
    """Every event of game ``game`` of the simulation seeded ``seed`` (``docs/trace.md``).

    The game is the very one :func:`simulate` plays under the same seed.
    ``deal`` scripts one round instead: ``{"hands": [...], "pile": "9♠",
    "stock": "6♥ ...", "round": 0}`` in card notation, hands listed by seat
    (the round's first player is seat ``round mod players``; see
    :func:`scripted_deal`); the rounds before it are played as usual.
    """
    r, chosen = resolve(ruleset, strategies)
    max_rounds = _check_count("max_rounds", max_rounds, 1)
    game = _check_count("game", game, 0)
    kr = kernel_rules(r)
    kinds, params = strategy_lib.parameter_arrays(chosen, E.MAX_SEATS)
    ev = np.zeros((max_events, E.N_EV), dtype=np.int32)
    order = np.zeros(0, dtype=np.int64)
    order_round = 0
    if deal is not None:
        order_round = _check_count("deal round", deal.get("round", 0), 0)
        order = scripted_deal(r, deal["hands"], deal["pile"], deal.get("stock", ""), seed, order_round)
    n_ev, overflow = E.trace_game(kr, game, np.uint64(seed), kinds, params, max_rounds, ev, order, order_round,
                                  bool(rotate))
    _raise_policy_errors(chosen)
    if overflow:
        raise RuntimeError(f"the trace needs more than max_events={max_events} events; raise it")
    head = {
        "type": "game_start",
        "players": r.players,
        "ruleset": r.to_dict(),
        "strategies": [chosen[(seat - game) % len(chosen) if rotate else seat].name for seat in range(len(chosen))],
        "max_rounds": max_rounds,
        "deterministic": bool(E._deterministic(kr, kinds, params)),
        "seed": int(seed),
        "game": game,
    }
    return [head, *events_to_dicts(ev[:n_ev], r.players)]
