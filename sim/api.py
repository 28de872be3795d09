"""The Python API: simulate many games, or trace one.

The wrappers validate, derive seeds, split the games into batches and
collect frames; the compiled kernels (:mod:`sim.engine.play`) only loop.
Game ``i`` of a simulation seeded ``seed`` depends on ``(seed, i)`` alone, so
results are identical for any number of workers, batch size, machine or
resume, and any game can be replayed by itself.

A simulation either returns a frame (small runs, notebooks) or streams its
batches to a results dataset on disk (``out=``, :mod:`sim.store`), on this
machine's threads or on a Dask cluster (``scheduler=``, :mod:`sim.distributed`).
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import platform
import subprocess
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import polars as pl

import strategies as strategy_lib
from sim import store
from sim.engine import play as E
from sim.engine import warm
from sim.engine.params import kernel_rules
from sim.engine.policies import KIND_HEURISTIC, KIND_PYTHON, KIND_RANDOM
from sim.engine.warm import ensure_compiled
from sim.rules import PRESETS, RULES_VERSION, Ruleset, as_ruleset, preset
from sim.trace import events_to_dicts

__all__ = [
    "BLOCKED", "GAME_COLUMNS", "RESULT_COLUMNS", "ROUND_COLUMNS", "game_summary", "load", "play_traced", "resolve",
    "ruleset_label", "simulate",
]

load = store.load

BLOCKED = ("none", "stock", "turn_cap", "cycle", "table_closed")
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
    "game": E.R_GAME, "round": E.R_ROUND, "seat": E.R_SEAT, "first": E.R_FIRST,
    "opened": E.R_OPENED, "open_turn": E.R_OPEN_TURN, "open_points": E.R_OPEN_POINTS,
    "jokers_laid": E.R_JOKERS_LAID, "jokers_held": E.R_JOKERS_HELD, "cards_left": E.R_CARDS_LEFT,
    "points": E.R_POINTS, "went_out": E.R_WENT_OUT, "rami_sec": E.R_RAMI_SEC, "blocked": E.R_BLOCKED,
    "turns": E.R_TURNS, "seat_turns": E.R_SEAT_TURNS, "discard_takes": E.R_TAKES,
    "hand_value": E.R_HAND_VALUE, "total": E.R_TOTAL, "winner": E.R_WINNER, "won": E.R_WON,
    "truncated": E.R_TRUNCATED, "may_i": E.R_MAY_I,
}
_BOOL_COLUMNS = ("opened", "went_out", "rami_sec", "won", "truncated")
_KIND_NAMES = {KIND_RANDOM: "random", KIND_HEURISTIC: "heuristic", KIND_PYTHON: "python"}


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


LAST_GAME = 2**31 - 2
"""The last game index the engine numbers (its game index is a 32-bit integer)."""


def _check_count(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be a whole number of at least {minimum}, got {value!r}")
    return int(value)


def _fixed_rows(kr, max_rounds: int) -> int | None:
    """Result rows per game when every game has the same number of rounds
    (basic rummy, contrat), as the kernel counts them
    (:func:`sim.engine.play.game_rows`), else None."""
    return int(E.game_rows(kr, max_rounds)) if kr.game_rounds > 0 else None


def _run_batch(kr, seed: int, start: int, count: int, kinds, params, max_rounds: int,
               rotate: bool, shared: np.ndarray | None = None, first_row: int = 0) -> list[np.ndarray]:
    """Rows of games ``start .. start + count - 1``, in one or more chunks (a
    chunk per buffer, when the first fills). Each chunk is column-major,
    shape ``(N_R, rows)``, as the kernel writes it. Rows are int32: every
    value fits, and half the bytes to write and copy into columns.

    ``shared``: the whole simulation's rows, sized exactly for games of a
    fixed number of rounds (:func:`_fixed_rows`); the batch writes its own
    rows from ``first_row`` and returns them as one view.
    """
    if shared is not None:
        games, end = E.play_games(kr, np.uint64(seed), start, count, kinds, params, max_rounds, shared, first_row,
                                  rotate)
        if games != count:
            raise RuntimeError(f"games {start} .. {start + count - 1} did not fit their rows (engine bug)")
        return [shared[:, first_row:end]]
    chunks = []
    done = 0
    # Games of a fixed number of rounds fill exactly that many rows per seat;
    # games to a target score average well under 16 rounds.
    rows_per_game = _fixed_rows(kr, max_rounds) or 16 * kr.players
    while done < count:
        # A game starts only with room for its longest possible length.
        capacity = (count - done) * rows_per_game + max_rounds * kr.players
        res = np.zeros((E.N_R, capacity), dtype=np.int32)
        games, rows = E.play_games(kr, np.uint64(seed), start + done, count - done, kinds, params, max_rounds, res,
                                   0, rotate)
        chunks.append(res[:, :rows])
        done += games
    return chunks


def ruleset_label(r: Ruleset) -> str:
    """The ``ruleset`` column's value: a preset's name when ``r`` is that preset
    (whatever ``players``), else ``GAME+HASH``, the first 8 hex digits of the
    SHA-256 of every other knob (sorted JSON)."""
    knobs = r.to_dict()
    knobs.pop("players")
    for name in PRESETS:
        other = preset(name).to_dict()
        other.pop("players")
        if other == knobs:
            return name
    digest = hashlib.sha256(json.dumps(knobs, sort_keys=True).encode()).hexdigest()[:8]
    return f"{r.game}+{digest}"


class _Batches(NamedTuple):
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


def _check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
        raise ValueError(f"seed must be a whole number from 0 to 2**64 - 1, got {seed!r}")
    return int(seed)


_COMPILED = False

COMPILE_NOTICE = "compiling the engine (first run only)..."
"""Written to standard error when a first simulation compiles the engine (about a minute, once per machine)."""


def _compile_once(ruleset: Ruleset) -> None:
    """Have the round kernels compiled or loaded, once per process (see :func:`sim.engine.warm.ensure_compiled`).

    On an empty numba cache that takes about a minute: :data:`COMPILE_NOTICE`
    goes to standard error then, so that neither ``rami simulate`` nor a
    notebook cell sits silent meanwhile. Loading from the cache says nothing.
    """
    global _COMPILED
    if not _COMPILED:
        ensure_compiled(ruleset, lambda: print(COMPILE_NOTICE, file=sys.stderr, flush=True),
                        notice_after=warm.NOTICE_AFTER)
        _COMPILED = True


def simulate(
    ruleset: Ruleset | str,
    strategies: Sequence[str | strategy_lib.Strategy],
    n_games: int = 1000,
    seed: int = 1,
    workers: int | None = None,
    batch_size: int | None = None,
    max_rounds: int = E.MAX_ROUNDS,
    progress: Callable[[int], None] | None = None,
    rotate: bool = False,
    *,
    first_game: int = 0,
    out: str | os.PathLike[str] | None = None,
    per_game_only: bool = False,
    scheduler: Any = None,
    command: str | None = None,
) -> pl.DataFrame | store.Dataset:
    """Play ``n_games`` games; return their rows, or write them to a results dataset.

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
        The simulation seed (0 .. 2**64 - 1); 1 by default, as ``rami simulate``.
    workers : int, optional
        Threads running the compiled kernel on this machine (default: every
        core); results do not depend on it. Ignored with ``scheduler``.
    batch_size : int, optional
        Games per batch (default: about 50 batches per worker, at most 2000
        games; with ``out``, at least 250); with ``out``, one file per table
        and batch.
    max_rounds : int
        Round cap per game; a game reaching it is marked ``truncated``.
    progress : callable, optional
        Called with a number of games: once when every check has passed and
        the engine is ready, before the first game (with the games of the
        range already on disk: 0 without ``out``), then after each finished
        batch. A first run on a machine compiles the engine before that
        call (about a minute, once) and says so on standard error.
    rotate : bool
        Move the strategies one seat on from game to game (strategy ``j``
        plays seat ``(j + game) mod players``), so that seat order favours
        no strategy in a comparison.
    first_game : int
        Index of the first game: the games played are ``first_game ..
        first_game + n_games - 1``, so a study can grow without replaying
        the games it has.
    out : str or path-like, optional
        A dataset folder (:mod:`sim.store`, ``docs/results.md``): each batch is
        written there as it finishes, so memory stays bounded whatever
        ``n_games``. Games already in the folder (an interrupted run, or a
        smaller range) are not played again; a folder made with other rules,
        strategies, seed, rotation, round cap or tables is refused
        (:class:`sim.store.DatasetError`) before any game is played.
    per_game_only : bool
        Keep only the per-game table (:data:`GAME_COLUMNS`), for the largest
        runs; without ``out`` the returned frame is that table.
    scheduler : str or distributed.Client, optional
        Play the batches on a Dask cluster: a scheduler address such as
        ``"tcp://10.0.0.5:8786"`` or a connected ``Client``. Needs ``out``
        (the workers send each batch's files back; they land in ``out`` on
        this machine) and the same version of this package on every worker.
        Results are identical to a local run.
    command : str, optional
        The command line or call recorded in the dataset's provenance
        (default: this call, written as Python).

    Returns
    -------
    polars.DataFrame or sim.store.Dataset
        Without ``out``: columns :data:`RESULT_COLUMNS` sorted by game, round
        and seat (or :data:`GAME_COLUMNS` with ``per_game_only``). With
        ``out``: the :class:`~sim.store.Dataset`; read its tables with
        :func:`load` (``sim.load``).
    """
    r, chosen = resolve(ruleset, strategies)
    n_games = _check_count("n_games", n_games, 1)
    first_game = _check_count("first_game", first_game, 0)
    if workers is None:
        workers = os.cpu_count() or 1
    workers = _check_count("workers", workers, 1)
    max_rounds = _check_count("max_rounds", max_rounds, 1)
    seed = _check_seed(seed)
    if first_game + n_games > LAST_GAME + 1:
        raise ValueError(f"game indices go up to {LAST_GAME:,}; first_game + n_games is {first_game + n_games:,}")
    if batch_size is None:
        batch_size = max(1, min(2000, math.ceil(n_games / (50 * workers))))
        if out is not None:
            # Each file costs about 12 KB of footer and provenance: no batch file under 250 games.
            batch_size = min(2000, max(batch_size, 250))
    batch_size = _check_count("batch_size", batch_size, 1)
    kr = kernel_rules(r)
    kinds, params = strategy_lib.parameter_arrays(chosen, E.MAX_SEATS)
    names = [s.name for s in chosen]
    label = ruleset_label(r)
    if out is not None:
        tables = ["games"] if per_game_only else list(store.TABLES)
        identity = {
            "package_version": _package_version(), "rules_version": RULES_VERSION, "ruleset": r.to_dict(),
            "ruleset_label": label,
            "strategies": [{"name": s.name, "kind": _KIND_NAMES.get(s.kind, str(s.kind)), "params": s.params}
                           for s in chosen],
            "seed": seed, "rotate": bool(rotate), "max_rounds": max_rounds, "tables": tables,
        }
        if command is None:
            command = (f"sim.simulate({label!r}, {names!r}, n_games={n_games}, seed={seed}, first_game={first_game}, "
                       f"rotate={bool(rotate)}, max_rounds={max_rounds}, per_game_only={per_game_only}, "
                       f"out={str(out)!r})")
        job = _Batches(kr, seed, kinds, params, max_rounds, bool(rotate), names, r.game, label, tables, {})
        return _simulate_to_dataset(job, identity, out, first_game, n_games, batch_size, workers, scheduler,
                                    command, progress, chosen, r)
    if scheduler is not None:
        raise ValueError("scheduler= needs out=: the cluster's batches are written to a dataset")
    starts = list(range(first_game, first_game + n_games, batch_size))
    end = first_game + n_games

    # Games of a fixed number of rounds write into one array, each batch its
    # own rows: the frame then takes its columns as they are, without
    # gathering every batch's rows into new memory.
    fixed = None if per_game_only else _fixed_rows(kr, max_rounds)
    shared = None if fixed is None else np.zeros((E.N_R, n_games * fixed), dtype=np.int32)

    def job(start: int) -> Any:
        count = min(batch_size, end - start)
        if shared is not None:
            return _run_batch(kr, seed, start, count, kinds, params, max_rounds, bool(rotate), shared,
                              (start - first_game) * fixed)
        chunks = _run_batch(kr, seed, start, count, kinds, params, max_rounds, bool(rotate))
        # Per-game tables are built batch by batch so the rounds are never all held.
        return game_summary(_frame(chunks, names, bool(rotate), r.game, label)) if per_game_only else chunks

    results: list[Any] = []
    # Compiled (or loaded) before the first batch, in the thread that
    # compiles without paging its frames in and out: a third less time on a
    # fresh cache. Once a process has the kernels this costs nothing.
    _compile_once(r)
    if progress:
        progress(0)
    if workers == 1:
        for start in starts:
            results.append(job(start))
            if progress:
                progress(min(batch_size, end - start))
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            # map keeps batch order, so the frame is the same for any worker count.
            for start, result in zip(starts, pool.map(job, starts)):
                results.append(result)
                if progress:
                    progress(min(batch_size, end - start))
    _raise_policy_errors(chosen)
    if per_game_only:
        return pl.concat(results)
    if shared is not None:
        return _frame([shared], names, bool(rotate), r.game, label)
    return _frame([c for chunks in results for c in chunks], names, bool(rotate), r.game, label)


def _package_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("rami-lab")
    except metadata.PackageNotFoundError:
        return "unknown"


def _git_commit() -> tuple[str | None, bool | None]:
    """The source checkout's commit and whether it has uncommitted changes (None outside git)."""
    here = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=5)
        if head.returncode != 0:
            return None, None
        dirty = subprocess.run(["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=5)
        return head.stdout.strip(), bool(dirty.stdout.strip())
    except (OSError, subprocess.SubprocessError):
        return None, None


def _run_record(command: str, first_game: int, n_games: int, batch_size: int, where: str) -> dict[str, Any]:
    """Provenance of one run: what ran, with which versions, when, on what."""
    import numba
    import pyarrow

    commit, dirty = _git_commit()
    return {
        "command": command, "started": store.now(), "first_game": first_game, "n_games": n_games,
        "batch_size": batch_size, "where": where, "package_version": _package_version(),
        "rules_version": RULES_VERSION, "python": platform.python_version(), "numba": numba.__version__,
        "numpy": np.__version__, "polars": pl.__version__, "pyarrow": pyarrow.__version__,
        "git_commit": commit, "git_dirty": dirty,
    }


def _batch_files(job: _Batches, first: int, count: int) -> dict[str, bytes]:
    """Play games ``first .. first + count - 1`` and encode each table's parquet file.

    Runs on a thread or a Dask worker; the files carry the provenance in
    their metadata, so what comes back is ready to be written as is.
    """
    chunks = _run_batch(job.kr, job.seed, first, count, job.kinds, job.params, job.max_rounds, job.rotate)
    rows = _frame(chunks, job.names, job.rotate, job.game, job.label)
    frames = {"games": game_summary(rows)}
    if "rounds" in job.tables:
        frames["rounds"] = rows.drop(GAME_LEVEL)
    out = {}
    for table in job.tables:
        meta = {**job.provenance, "table": table, "first_game": first, "last_game": first + count - 1}
        buffer = io.BytesIO()
        frames[table].write_parquet(buffer, compression="zstd", metadata={store.METADATA_KEY: json.dumps(meta)})
        out[table] = buffer.getvalue()
    return out


def _simulate_to_dataset(job: _Batches, identity: dict[str, Any], out: Any, first_game: int, n_games: int,
                         batch_size: int, workers: int, scheduler: Any, command: str,
                         progress: Callable[[int], None] | None, chosen: list[strategy_lib.Strategy],
                         ruleset: Ruleset) -> store.Dataset:
    """The ``out=`` branch of :func:`simulate`: every check first, then batches written as they finish."""
    cluster = None
    if scheduler is not None:
        from sim import distributed

        if any(s.kind == KIND_PYTHON for s in chosen):
            raise ValueError("strategies written in Python run only in this process; scheduler= needs compiled "
                             "strategies")
        cluster = distributed.connect(scheduler)
    try:
        where = f"dask {cluster.address}" if cluster else f"{workers} threads"
        run = _run_record(command, first_game, n_games, batch_size, where)
        if cluster:
            cluster.check_workers(identity["package_version"], RULES_VERSION)
        writer = store.open_dataset(out, identity, run, players=len(job.names))
        status = "failed"
        try:  # from here on the dataset is locked: close() releases it, whatever happens
            job = job._replace(provenance={"format": store.FORMAT, "identity": writer.manifest["identity"], "run": run})
            todo = writer.missing(first_game, n_games, batch_size)
            found = n_games - sum(count for _, count in todo)
            if not cluster and todo:
                _compile_once(ruleset)  # after every check: a refused folder costs no compilation
            if progress:
                progress(found)
            if cluster:
                _drive(cluster.submitter(job), cluster.wait, cluster.cancel, 2 * cluster.threads(), todo, writer,
                       progress)
            else:
                pool = ThreadPoolExecutor(max_workers=workers)
                try:
                    _drive(lambda first, count: pool.submit(_batch_files, job, first, count), _wait_local,
                           _cancel_local, 2 * workers, todo, writer, progress)
                except BaseException:
                    # Leave at once (no waiting as a `with` block would): the
                    # batches running now finish on their own and are dropped.
                    pool.shutdown(wait=False, cancel_futures=True)
                    raise
                pool.shutdown()
            _raise_policy_errors(chosen)
            status = "complete"
        except KeyboardInterrupt:
            status = "interrupted"
            raise
        finally:
            manifest = writer.close(status, writer.written)
    finally:
        if cluster:
            cluster.close()
    return store.Dataset(Path(out), manifest, games_played=writer.written, games_found=found)


def _wait_local(pending: set[Any]) -> tuple[set[Any], set[Any]]:
    # Wake up often: Ctrl-C may be delivered to an engine thread, and the main
    # thread only notices it when it wakes (a batch can take seconds).
    while True:
        done, not_done = wait(pending, timeout=0.1, return_when=FIRST_COMPLETED)
        if done:
            return set(done), set(not_done)


def _cancel_local(pending: set[Any]) -> None:
    for future in pending:
        future.cancel()


def _drive(submit: Callable[[int, int], Any], wait_some: Callable[[set[Any]], tuple[set[Any], set[Any]]],
           cancel: Callable[[set[Any]], None], window: int, todo: list[tuple[int, int]], writer: store.Writer,
           progress: Callable[[int], None] | None) -> None:
    """Run the batches ``todo`` with at most ``window`` in flight, writing each as it finishes.

    Bounding the batches in flight bounds memory: finished files wait for
    the driver in memory, never more than ``window`` batches of them.
    """
    queue = iter(todo)
    pending: dict[Any, tuple[int, int]] = {}

    def fill() -> None:
        for first, count in queue:
            pending[submit(first, count)] = (first, count)
            if len(pending) >= window:
                return

    try:
        fill()
        while pending:
            done, _ = wait_some(set(pending))
            for future in sorted(done, key=lambda f: pending[f][0]):
                first, count = pending.pop(future)
                writer.write(first, count, future.result())
                if progress:
                    progress(count)
            fill()
    except BaseException:
        cancel(set(pending))
        raise


def _raise_policy_errors(chosen: list[strategy_lib.Strategy]) -> None:
    """Raise what a Python policy raised during the run (see strategies.user)."""
    if any(s.kind == KIND_PYTHON for s in chosen):
        from strategies import user

        user.raise_pending()


def _coded(name: str, dtype: pl.DataType, labels: Sequence[str], codes: np.ndarray) -> pl.Series:
    """A categorical or enum column of ``labels[codes]``, built without a Python string per row."""
    # Indexing by the numpy codes takes them as they are; ``gather`` goes
    # through an expression and took five times as long on large frames.
    return pl.Series(name, list(labels), dtype=dtype)[codes]


def _constant(name: str, value: Any, dtype: pl.DataType, rows: int) -> pl.Series:
    """A column of ``rows`` times ``value``, made without an array of that many."""
    return pl.Series(name, [value] if rows else [], dtype=dtype).extend_constant(value, max(rows - 1, 0))


def _frame(chunks: list[np.ndarray], names: list[str], rotate: bool, game: str, label: str) -> pl.DataFrame:
    """The result frame (:data:`RESULT_COLUMNS`) of the kernel's row chunks, in order."""

    # The kernel writes its rows column-major, so each chunk's columns are
    # contiguous runs, copied one after another (a single chunk is used as is).
    if len(chunks) == 1:
        columns = chunks[0]
    else:
        columns = np.empty((E.N_R, sum(c.shape[1] for c in chunks)), dtype=np.result_type(*chunks))
        at = 0
        for c in chunks:
            columns[:, at:at + c.shape[1]] = c
            at += c.shape[1]
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
    data["contract"] = pl.Series("contract", (data["round"] % 7 + 1).astype(np.int8)) if game == "contrat" else \
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
    seed: int = 1,
    game: int = 0,
    max_rounds: int = E.MAX_ROUNDS,
    max_events: int = 2_000_000,
    deal: dict[str, Any] | None = None,
    rotate: bool = False,
) -> list[dict[str, Any]]:
    """Every event of game ``game`` of the simulation seeded ``seed`` (``docs/trace.md``).

    The game is the very one :func:`simulate` plays under the same seed
    (both default to seed 1).
    ``deal`` scripts one round instead: ``{"hands": [...], "pile": "9♠",
    "stock": "6♥ ...", "round": 0}`` in card notation, hands listed by seat
    (the round's first player is seat ``round mod players``; see
    :func:`scripted_deal`); the rounds before it are played as usual.
    """
    r, chosen = resolve(ruleset, strategies)
    max_rounds = _check_count("max_rounds", max_rounds, 1)
    game = _check_count("game", game, 0)
    if game > LAST_GAME:
        raise ValueError(f"game must be at most {LAST_GAME:,} (the last game simulate plays), got {game:,}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
        raise ValueError(f"seed must be a whole number from 0 to 2**64 - 1, got {seed!r}")
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
