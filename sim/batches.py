"""Games to rows, rows to a frame, a batch to its dataset files.

What one batch of a simulation is, wherever it runs: :class:`Batches` holds
everything a batch needs (sent once to each thread or Dask worker),
:func:`run_batch` has the compiled kernel play its games, :func:`frame`
turns the kernel's rows into the result frame (:data:`RESULT_COLUMNS`) and
:func:`batch_files` encodes a batch's parquet files with their provenance.
:mod:`sim.api` calls these on this machine's threads, :mod:`sim.distributed`
on a Dask cluster: both through this module's public names.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import polars as pl

from sim import store
from sim.engine import play as engine_play
from sim.engine.game_value import futures
from sim.engine.search import N_TALLY, search_games, search_games_dealt
from sim.rules import BLOCKED_REASONS, RULES_VERSION, contract_deal

__all__ = [
    "BLOCKED", "Batches", "GAME_COLUMNS", "GAME_LEVEL", "RESULT_COLUMNS", "ROUND_COLUMNS", "batch_files", "batch_rows",
    "fixed_rows",
    "frame", "game_summary", "run_batch",
]

BLOCKED = BLOCKED_REASONS
"""The categories of ``blocked``, in this fixed order (a ``pl.Enum``)."""

_POINTS = ("points scored this round. Rami 51 and Rami contrat: a penalty (lower is better; the player who went out "
           "scores 0). Basic rummy: a gain (higher is better; the round's winner scores the others' hands, the "
           "others 0)")

RESULT_COLUMNS: dict[str, str] = {
    "game": "game index (its seed stream is derived from the simulation seed and this index)",
    "round": "round (deal) index within the game, from 0",
    "seat": "seat, from 0; play goes up the seat numbers",
    "first": "seat that played first in this round",
    "opened": "the player opened (laid its first melds) in this round",
    "open_turn": "the player's own turn (1 = its first) in which it opened; null if it did not",
    "open_points": "opening value of the opening melds; 0 if it did not open",
    "jokers_laid": "jokers the player laid on the table during the round",
    "jokers_held": "jokers left in the player's hand at the end of the round",
    "cards_left": "cards left in hand at the end of the round",
    "points": _POINTS,
    "went_out": "the player went out (won the round)",
    "rami_sec": "the player went out with a rami sec (basic rummy: a rami)",
    "blocked": "why the round stopped without a winner (pl.Enum of BLOCKED): none, stock, turn_cap, cycle "
               "(deterministic players back at a position seen at an earlier turning of the pile) or table_closed "
               "(contrat: all laid, the table takes no card)",
    "contract": "Rami contrat: the deal's contract number (1 .. 7); null in other games",
    "turns": "turns begun in the round, all seats together",
    "seat_turns": "turns the player began in the round",
    "discard_takes": "cards the player took from the discard in the round",
    "may_i": "Rami contrat: cards the player took by \"Puis-je ?\" (each came with one penalty card)",
    "hand_value": "penalty value of the cards left in hand, before unopened and rami sec rules",
    "total": "the player's running game total after this round",
    "winner": "(game level) seat that won the game; null when the best total is shared or the game was truncated",
    "won": "(game level) the player has the game's best total (shared ties all count): the lowest in Rami 51 and "
           "contrat, the highest in basic rummy",
    "truncated": "(game level) the game hit the round cap before ending",
    "strategy": "name of the strategy playing this seat, with its changed parameters (categorical: names vary "
                "with parameters, so no fixed list)",
    "strategy_index": "position of that strategy in the list given to simulate (with rotate, it moves seat)",
    "ruleset": "the ruleset: a preset's name when the knobs are a preset's (players aside), else the game and a "
               "short hash of every knob, e.g. rami51+1a2b3c4d (categorical)",
    "rules_version": "version of the rules behaviour that produced the row",
}
"""Columns of the frame :func:`simulate` returns: one row per game, round and seat."""

GAME_LEVEL = ("winner", "won", "truncated")
"""Columns of :data:`RESULT_COLUMNS` that are facts of the whole game (same on every round row)."""

ROUND_COLUMNS: dict[str, str] = {k: v for k, v in RESULT_COLUMNS.items() if k not in GAME_LEVEL}
"""Columns of a dataset's ``rounds`` table: the game-level facts live in its ``games`` table only."""

GAME_COLUMNS: dict[str, str] = {
    "game": RESULT_COLUMNS["game"],
    "seat": RESULT_COLUMNS["seat"],
    "strategy": RESULT_COLUMNS["strategy"],
    "strategy_index": RESULT_COLUMNS["strategy_index"],
    "rounds": "rounds played in the game",
    "total": "the player's final game total (sum of its round points)",
    "won": RESULT_COLUMNS["won"].removeprefix("(game level) "),
    "winner": RESULT_COLUMNS["winner"].removeprefix("(game level) "),
    "truncated": RESULT_COLUMNS["truncated"].removeprefix("(game level) "),
    "rounds_won": "rounds the player went out in",
    "ruleset": RESULT_COLUMNS["ruleset"],
    "rules_version": RESULT_COLUMNS["rules_version"],
}
"""Columns of :func:`game_summary` and of a dataset's ``games`` table: one row per game and seat."""

_KERNEL_COLUMNS = {
    "game": engine_play.R_GAME, "round": engine_play.R_ROUND, "seat": engine_play.R_SEAT,
    "first": engine_play.R_FIRST, "opened": engine_play.R_OPENED, "open_turn": engine_play.R_OPEN_TURN,
    "open_points": engine_play.R_OPEN_POINTS, "jokers_laid": engine_play.R_JOKERS_LAID,
    "jokers_held": engine_play.R_JOKERS_HELD, "cards_left": engine_play.R_CARDS_LEFT, "points": engine_play.R_POINTS,
    "went_out": engine_play.R_WENT_OUT, "rami_sec": engine_play.R_RAMI_SEC, "blocked": engine_play.R_BLOCKED,
    "turns": engine_play.R_TURNS, "seat_turns": engine_play.R_SEAT_TURNS, "discard_takes": engine_play.R_TAKES,
    "hand_value": engine_play.R_HAND_VALUE, "total": engine_play.R_TOTAL, "winner": engine_play.R_WINNER,
    "won": engine_play.R_WON, "truncated": engine_play.R_TRUNCATED, "may_i": engine_play.R_MAY_I,
}
_BOOL_COLUMNS = ("opened", "went_out", "rami_sec", "won", "truncated")

def fixed_rows(kr, max_rounds: int) -> int | None:
    """Result rows per game when every game has the same number of rounds
    (basic rummy, contrat), as the kernel counts them
    (:func:`sim.engine.play.game_rows`), else None."""
    return int(engine_play.game_rows(kr, max_rounds)) if kr.game_rounds > 0 else None


def _play(kr, seed, start, count, kinds, params, max_rounds, res, first_row, rotate, orders):
    """The engine's batch of games: the searching table's entry when a seat searches, the plain table's
    otherwise, either with the first rounds' decks given.

    ``orders``: None, or ``(decks, streams)``: each game's first-round deck
    in dealing order and where its deck stream stands once it is dealt.
    """
    if orders is None:
        if engine_play.searching(kinds):
            tally = np.zeros(N_TALLY, dtype=np.int64)
            return search_games(kr, np.uint64(seed), start, count, kinds, params, max_rounds, res, first_row,
                                rotate, *futures(kr, kinds, params), tally)
        return engine_play.play_games(kr, np.uint64(seed), start, count, kinds, params, max_rounds, res, first_row,
                                      rotate)
    decks, streams = orders
    if engine_play.searching(kinds):
        tally = np.zeros(N_TALLY, dtype=np.int64)
        return search_games_dealt(kr, np.uint64(seed), start, count, kinds, params, max_rounds, res, first_row,
                                  rotate, decks, streams, *futures(kr, kinds, params), tally)
    return engine_play.play_games_dealt(kr, np.uint64(seed), start, count, kinds, params, max_rounds, res, first_row,
                                        rotate, decks, streams)


def run_batch(kr, seed: int, start: int, count: int, kinds, params, max_rounds: int,
               rotate: bool, shared: np.ndarray | None = None, first_row: int = 0,
               orders: tuple[np.ndarray, np.ndarray] | None = None) -> list[np.ndarray]:
    """Rows of games ``start .. start + count - 1``, in one or more chunks (a
    chunk per buffer, when the first fills). Each chunk is column-major,
    shape ``(N_R, rows)``, as the kernel writes it. Rows are int32: every
    value fits, and half the bytes to write and copy into columns.

    ``shared``: the whole simulation's rows, sized exactly for games of a
    fixed number of rounds (:func:`fixed_rows`); the batch writes its own
    rows from ``first_row`` and returns them as one view. ``orders``: the
    deck of each game's first round, in dealing order, and where its stream
    stands once dealt (conditioned deals, :func:`accepted_orders`); None:
    every round dealt by its stream.
    """
    if shared is not None:
        games, end = _play(kr, seed, start, count, kinds, params, max_rounds, shared, first_row, rotate, orders)
        if games != count:
            raise RuntimeError(f"games {start} .. {start + count - 1} did not fit their rows (engine bug)")
        return [shared[:, first_row:end]]
    chunks = []
    done = 0
    # Games of a fixed number of rounds fill exactly that many rows per seat;
    # games to a target score average well under 16 rounds.
    rows_per_game = fixed_rows(kr, max_rounds) or 16 * kr.players
    while done < count:
        # A game starts only with room for its longest possible length.
        capacity = (count - done) * rows_per_game + max_rounds * kr.players
        res = np.zeros((engine_play.N_R, capacity), dtype=np.int32)
        games, rows = _play(kr, seed, start + done, count - done, kinds, params, max_rounds, res, 0, rotate,
                            None if orders is None else (orders[0][done:], orders[1][done:]))
        chunks.append(res[:, :rows])
        done += games
    return chunks



class Batches(NamedTuple):
    """Everything a batch needs, sent once to each thread or Dask worker."""

    kr: Any
    seed: int
    kinds: np.ndarray
    params: np.ndarray
    max_rounds: int
    rotate: bool
    names: list[str]
    game: str
    label: str
    tables: list[str]
    provenance: dict[str, Any]
    condition: Any = None
    """A condition on the first round's deal (``sim.conditions.Condition``), or None: every deal played."""
    condition_ruleset: Any = None
    """The ruleset the condition is read under (the :class:`~sim.rules.Ruleset`, with ``condition``)."""



def accepted_orders(ruleset, condition, seed: int, first: int, count: int) -> tuple[tuple, np.ndarray]:
    """The first rounds of games ``first .. first + count - 1`` that ``condition`` accepts (``sim.deals.sample``).

    Returns ``(decks in dealing order, where each stream stands once dealt)``
    for :func:`run_batch`, and how many deals each game's stream dealt, the
    accepted one included.
    """
    from sim import deals

    kept = deals.sample(ruleset, condition, count, seed, first_game=first, stock_cards=deals.stock_size(ruleset),
                        pilot=0)
    return (kept.deals.orders(), kept.deals.streams), kept.deals.attempts + 1


def batch_files(job: Batches, first: int, count: int) -> dict[str, bytes]:
    """Play games ``first .. first + count - 1`` and encode each table's parquet file.

    Runs on a thread or a Dask worker; the files carry the provenance in
    their metadata, so what comes back is ready to be written as is.
    """
    chunks = run_batch(job.kr, job.seed, first, count, job.kinds, job.params, job.max_rounds, job.rotate,
                       orders=None if job.condition is None else
                       accepted_orders(job.condition_ruleset, job.condition, job.seed, first, count)[0])
    rows = frame(chunks, job.names, job.rotate, job.game, job.label)
    frames = {"games": game_summary(rows)}
    if "rounds" in job.tables:
        frames["rounds"] = rows.drop(GAME_LEVEL)
    return {table: store.encode(frames[table], job.provenance, table, first, first + count - 1) for table in job.tables}


def batch_rows(job: Batches, first: int, count: int, per_game_only: bool = False) -> tuple[Any, np.ndarray | None]:
    """Play games ``first .. first + count - 1`` for a simulation kept in memory (on a Dask worker).

    Returns the kernel's row chunks (:func:`run_batch`), or with
    ``per_game_only`` the batch's per-game table (:func:`game_summary`), as
    the local run makes them; and, under a condition, how many deals each
    game's stream dealt for its first round (else None).
    """
    orders, used = (None, None) if job.condition is None else \
        accepted_orders(job.condition_ruleset, job.condition, job.seed, first, count)
    chunks = run_batch(job.kr, job.seed, first, count, job.kinds, job.params, job.max_rounds, job.rotate,
                       orders=orders)
    if per_game_only:
        return game_summary(frame(chunks, job.names, job.rotate, job.game, job.label)), used
    return chunks, used



def _coded(name: str, dtype: pl.DataType, labels: Sequence[str], codes: np.ndarray) -> pl.Series:
    """A categorical or enum column of ``labels[codes]``, built without a Python string per row."""
    # Indexing by the numpy codes takes them as they are; ``gather`` goes
    # through an expression and took five times as long on large frames.
    return pl.Series(name, list(labels), dtype=dtype)[codes]


def _constant(name: str, value: Any, dtype: pl.DataType, rows: int) -> pl.Series:
    """A column of ``rows`` times ``value``, made without an array of that many."""
    return pl.Series(name, [value] if rows else [], dtype=dtype).extend_constant(value, max(rows - 1, 0))


FRAME_CHUNK_ROWS = 1 << 16
"""Rows from which a batch's rows become a polars chunk of their own; smaller batches are joined first."""


def frame(chunks: list[np.ndarray], names: list[str], rotate: bool, game: str, label: str) -> pl.DataFrame:
    """The result frame (:data:`RESULT_COLUMNS`) of the kernel's row chunks, in order.

    The kernel writes its rows column-major, so each column of a chunk is
    one contiguous run that polars takes without copying: a large batch
    becomes a polars chunk as it is (copying every batch into one array cost
    a pass over all rows, page faults included: 3 to 6% of a Rami 51
    simulation's time). Building a frame has a cost of its own per chunk
    (some thirty column operations), so batches smaller than
    :data:`FRAME_CHUNK_ROWS` rows are joined with their neighbours first.
    """
    groups: list[list[np.ndarray]] = [[]]
    rows = 0
    for c in chunks:
        if groups[-1] and (rows >= FRAME_CHUNK_ROWS or c.shape[1] >= FRAME_CHUNK_ROWS):  # a large batch alone
            groups.append([])
            rows = 0
        groups[-1].append(c)
        rows += c.shape[1]
    parts = [_chunk_frame(g[0] if len(g) == 1 else np.concatenate(g, axis=1), names, rotate, game, label)
             for g in groups]
    return parts[0] if len(parts) == 1 else pl.concat(parts, rechunk=False)


def _chunk_frame(columns: np.ndarray, names: list[str], rotate: bool, game: str, label: str) -> pl.DataFrame:
    """The result frame of one chunk of the kernel's rows, shape ``(N_R, rows)``."""
    data: dict[str, Any] = {}
    for name, col in _KERNEL_COLUMNS.items():
        values = columns[col]
        if name in _BOOL_COLUMNS:
            # Cast by polars straight into its bit-packed booleans: a numpy
            # bool array first is one more large temporary per column.
            data[name] = pl.Series(name, values).cast(pl.Boolean)
        elif name == "blocked":
            data[name] = _coded(name, pl.Enum(BLOCKED), BLOCKED, values)
        elif name in ("open_turn", "winner"):
            # The kernel's -1 (never opened, no single winner) becomes null.
            data[name] = pl.Series(name, values).set(pl.Series(values < 0), None)
        else:
            data[name] = values
    rows = len(data["round"])
    data["contract"] = pl.Series("contract", contract_deal(data["round"]).astype(np.int8)) if game == "contrat" else \
        pl.Series("contract", [], dtype=pl.Int8).extend_constant(None, rows)
    index = data["seat"]
    if rotate:
        index = (index - data["game"]) % len(names)
    data["strategy_index"] = index.astype(np.int16)
    data["strategy"] = _coded("strategy", pl.Categorical, names, index)
    data["ruleset"] = _constant("ruleset", label, pl.Categorical, rows)
    data["rules_version"] = _constant("rules_version", RULES_VERSION, pl.Int16, rows)
    return pl.DataFrame(data).select(list(RESULT_COLUMNS))


def game_summary(results: pl.DataFrame) -> pl.DataFrame:
    """One row per game and seat: rounds played, final total, whether it won.

    Parameters
    ----------
    results : polars.DataFrame
        Rows of :func:`simulate` (:data:`RESULT_COLUMNS`), sorted by game,
        round and seat. A dataset's ``rounds`` table lacks the game-level
        columns: read its ``games`` table instead (``sim.load(path, "games")``).

    Returns
    -------
    polars.DataFrame
        Columns :data:`GAME_COLUMNS`, sorted by game and seat; the very
        rows a dataset's ``games`` table holds for the same games.
    """
    return (
        results.group_by("game", "seat", maintain_order=True)
        .agg(
            pl.col("strategy").first(),
            pl.col("strategy_index").first(),
            (pl.col("round").max() + 1).alias("rounds"),
            pl.col("total").last(),
            pl.col("won").first(),
            pl.col("winner").first(),
            pl.col("truncated").first(),
            pl.col("went_out").sum().cast(pl.Int32).alias("rounds_won"),
            pl.col("ruleset").first(),
            pl.col("rules_version").first(),
        )
        .sort("game", "seat")
        .select(list(GAME_COLUMNS))
    )
