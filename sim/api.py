"""The Python API: simulate many games, or trace one.

The wrappers validate, derive seeds, split the games into batches and
collect frames (a batch's own work is :mod:`sim.batches`); the compiled
kernels (:mod:`sim.engine.play`) only loop.
Game ``i`` of a simulation seeded ``seed`` depends on ``(seed, i)`` alone, so
results are identical for any number of workers, batch size, machine or
resume, and any game can be replayed by itself.

A simulation either returns a frame (small runs, notebooks) or streams its
batches to a results dataset on disk (``out=``, :mod:`sim.store`), on this
machine's threads or on a Dask cluster (``scheduler=``, :mod:`sim.distributed`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

import strategies as strategy_lib
from sim import batches, store
# The result columns and the batch job are the batch module's; the API offers them as its own.
from sim.checks import check_seed, check_whole
from sim.batches import BLOCKED, GAME_COLUMNS, GAME_LEVEL, RESULT_COLUMNS, ROUND_COLUMNS, game_summary
from sim.engine import play as engine_play
from sim.engine import warm
from sim.engine.game_value import futures
from sim.engine.params import kernel_rules
from sim.engine.search import N_TALLY, TALLY_DECISIONS, TALLY_PLAYOUTS, search_games, trace_search_game
from sim.engine.policies import KIND_HEURISTIC, KIND_PYTHON, KIND_RANDOM
from sim.engine.warm import ensure_compiled
from sim.provenance import dataset_identity, run_record
from sim.rules import PRESETS, Ruleset, as_ruleset, first_player, preset
from sim.trace import events_to_dicts

__all__ = [
    "BLOCKED", "GAME_COLUMNS", "GAME_LEVEL", "RESULT_COLUMNS", "ROUND_COLUMNS", "game_summary", "load", "play_traced",
    "resolve", "ruleset_label", "search_effort", "simulate",
]

load = store.load

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


def check_information(chosen: Sequence[str | strategy_lib.Strategy]) -> None:
    """Refuse a strategy that sees cards a player cannot see (the ladder's ceiling), naming it."""
    for s in chosen:
        if strategy_lib.clairvoyant(s):
            name = strategy_lib.get(s).name
            raise ValueError(f"{name!r} sees every hidden card: it is the strength ladder's ceiling, seated only "
                             "by rami ladder (experiments.ladder), never as a player")


LAST_GAME = 2**31 - 2
"""The last game index the engine numbers (its game index is a 32-bit integer)."""


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


def _check_seed(seed: Any) -> int:
    return check_seed(seed)


READY_ENTRIES: set[bool] = set()
"""The entries this process has compiled or loaded, by whether a seat searches: the searching table's
(:func:`sim.engine.search.search_batch`) or the plain table's (:func:`sim.engine.play.play_batch`), each of which
plays shuffled and given first deals alike."""

COMPILE_NOTICE = "compiling the engine (first run only)..."
"""Written to standard error when a first simulation compiles the engine (about a minute, once per machine)."""


def say_compiling() -> None:
    """Write :data:`COMPILE_NOTICE` to standard error: a run waits for the engine to be compiled."""
    print(COMPILE_NOTICE, file=sys.stderr, flush=True)


def _compile_once(ruleset: Ruleset, kinds: np.ndarray | None = None, params: np.ndarray | None = None) -> None:
    """Have the entry a run plays compiled or loaded, once per process (see :func:`sim.engine.warm.ensure_compiled`).

    On an empty numba cache that takes about a minute: :data:`COMPILE_NOTICE`
    goes to standard error then, so that neither ``rami simulate`` nor a
    notebook cell sits silent meanwhile. Loading from the cache says nothing.
    Tables where a seat searches are played by an entry of their own
    (:func:`sim.engine.search.search_batch`, shuffled and given first decks
    alike): a run that uses it compiles it here, with the same notice, by
    playing one short game of its own table; a run that does not never
    compiles it. The plain table's entry plays conditioned deals too.
    """
    searching = kinds is not None and bool(engine_play.searching(kinds))
    if searching in READY_ENTRIES:
        return

    if not searching:
        ensure_compiled(ruleset, say_compiling, notice_after=warm.NOTICE_AFTER)
    else:
        kr = kernel_rules(ruleset)
        # One round of one game: the types are the run's, the play is short.
        warm.compile_with_notice(lambda: batches.run_batch(kr, 0, 0, 1, kinds, params, 1, False),
                                 say_compiling, warm.NOTICE_AFTER)
    READY_ENTRIES.add(searching)


_CHUNK_GAMES = batches.FRAME_CHUNK_ROWS // 36
"""Games of Rami 51 whose rows make a polars chunk alone (:data:`sim.batches.FRAME_CHUNK_ROWS`), 1,820: a
game leaves some 45 rows (11 rounds of four players, 27 of two), and 36 covers shorter games.

Rows held in memory from games of any number of rounds come in one array per batch; batches smaller than a
chunk are copied together into new memory before they join the frame, and each batch's array is new memory
too, whose first writes fault its pages in (in batches of 400 games, some 33,000 page faults and a tenth of
a Rami 51 simulation's CPU time; in one batch, 4,000). A default batch is therefore of this size, as long
as every worker still gets four batches.
"""


def simulate(
    ruleset: Ruleset | str,
    strategies: Sequence[str | strategy_lib.Strategy],
    n_games: int = 1000,
    seed: int = 1,
    workers: int | None = None,
    batch_size: int | None = None,
    max_rounds: int = engine_play.MAX_ROUNDS,
    progress: Callable[[int], None] | None = None,
    rotate: bool = False,
    *,
    first_game: int = 0,
    out: str | os.PathLike[str] | None = None,
    per_game_only: bool = False,
    scheduler: Any = None,
    command: str | None = None,
    condition: Any = None,
    allow_clairvoyant: bool = False,
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
        core); results do not depend on it. Ignored on a cluster, whose
        threads size the default batches instead.
    batch_size : int, optional
        Games per batch (default: about 50 batches per worker, at most 2000
        games; with ``out``, at least 250, or for a table with a searching
        seat, whose games cost up to seconds, 16 batches per worker of at
        most 250 games; in memory, for games of any number of rounds, up to
        1,820 while each worker gets four batches); with ``out``, one file
        per table and batch. Results do not depend on it.
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
        ``"tcp://10.0.0.5:8786"``, a connected ``Client`` or a
        :class:`sim.distributed.Cluster`; by default the cluster of the
        enclosing job (:func:`sim.distributed.session`), if any. The workers
        need the same version of this package; they send each batch back,
        as rows or, with ``out``, as its files, which land in ``out`` on this
        machine. Results are identical to a local run, and a worker lost
        meanwhile costs only the batches it held (docs/cluster.md).
    command : str, optional
        The command line or call recorded in the dataset's provenance
        (default: this call, written as Python).
    condition : str or callable, optional
        Play only first rounds whose deal satisfies it (``sim.deals``,
        docs/deals.md): each game's first round is dealt from its deck stream
        until a deal is accepted, so every strategy plays the same accepted
        deals; later rounds are dealt as usual. The frame then has a column
        ``deals``: the deals dealt for that game's first round, the accepted
        one included (the acceptance rate is games / their sum). A
        ``holds()`` term of the condition's top-level ``and`` is dealt
        exactly, the rest of the deck shuffled: ``deals`` then counts the
        deals its other terms were tested on, and the condition's rate is
        the held terms' exact chance (``sim.conditions.Condition.held``) times
        games / their sum. A condition accepted by under 1 deal in 10,000 of
        a pilot (its terms not dealt exactly) is refused with its rate. With
        ``out``, the condition (a text) joins the dataset's identity and the
        dataset has no ``deals`` column. On a cluster, written in the
        condition language (not a Python predicate).
    allow_clairvoyant : bool
        Seat the ladder's ceiling (``ceiling``: a search that sees every
        hidden card, :func:`strategies.ceiling`). Refused otherwise, so no
        study, comparison or tuning seats it without saying so.

    Returns
    -------
    polars.DataFrame or sim.store.Dataset
        Without ``out``: columns :data:`RESULT_COLUMNS` sorted by game, round
        and seat (or :data:`GAME_COLUMNS` with ``per_game_only``). With
        ``out``: the :class:`~sim.store.Dataset`; read its tables with
        :func:`load` (``sim.load``).
    """
    from sim import distributed

    # One connection for the whole run (or the enclosing job's), checked before anything is made.
    with distributed.session(scheduler) as cluster:
        run = _checked_run(ruleset, strategies, n_games, seed, workers, batch_size, max_rounds, progress, rotate,
                           first_game=first_game, out=out, per_game_only=per_game_only, command=command,
                           condition=condition, allow_clairvoyant=allow_clairvoyant, cluster=cluster)
        return _simulate(run)


@dataclass(frozen=True)
class _Run:
    """A call of :func:`simulate` with every argument checked and what follows from them worked out once: the
    one thing each step of the run reads, so that no step takes the arguments one by one."""

    ruleset: Ruleset
    chosen: list[strategy_lib.Strategy]
    n_games: int
    first_game: int
    seed: int
    workers: int
    """This machine's threads, or the cluster's (which size the default batches)."""
    max_rounds: int
    rotate: bool
    per_game_only: bool
    batch_size: int
    kr: Any
    """The ruleset as the kernels read it (:func:`sim.engine.params.kernel_rules`)."""
    kinds: np.ndarray
    params: np.ndarray
    names: list[str]
    label: str
    fixed: int | None
    """Result rows per game when every game has as many rounds (basic rummy, contrat), else None."""
    cond: Any
    """The condition on the first deals, read and checked (its pilot dealt), or None."""
    out: str | os.PathLike[str] | None
    command: str | None
    progress: Callable[[int], None] | None
    cluster: Any
    """The job's :class:`sim.distributed.Cluster`, or None on this machine."""

    @property
    def end(self) -> int:
        """One past the last game played."""
        return self.first_game + self.n_games

    @property
    def starts(self) -> list[int]:
        """The first game of each batch."""
        return list(range(self.first_game, self.end, self.batch_size))

    def count(self, start: int) -> int:
        """Games of the batch that starts at game ``start``."""
        return min(self.batch_size, self.end - start)

    def tick(self, games: int) -> None:
        """Tell the caller's ``progress`` of ``games`` more games, if it asked."""
        if self.progress:
            self.progress(games)


def _checked_run(ruleset: Ruleset | str, strategies: Sequence[str | strategy_lib.Strategy], n_games: int, seed: int,
                 workers: int | None, batch_size: int | None, max_rounds: int,
                 progress: Callable[[int], None] | None, rotate: bool, *, first_game: int,
                 out: str | os.PathLike[str] | None, per_game_only: bool, command: str | None, condition: Any,
                 allow_clairvoyant: bool, cluster: Any) -> _Run:
    """:func:`simulate`'s arguments checked, in the order its errors are met: the table, seats and counts, then
    the batches, then the condition (whose pilot deals)."""
    r, chosen = resolve(ruleset, strategies)
    if not allow_clairvoyant:
        check_information(chosen)
    n_games = check_whole("n_games", n_games, 1)
    first_game = check_whole("first_game", first_game, 0)
    if cluster is not None:
        # The cluster's threads size the default batches, as a machine's cores do.
        workers = cluster.threads()
    if workers is None:
        workers = os.cpu_count() or 1
    workers = check_whole("workers", workers, 1)
    max_rounds = check_whole("max_rounds", max_rounds, 1)
    seed = _check_seed(seed)
    if first_game + n_games > LAST_GAME + 1:
        raise ValueError(f"game indices go up to {LAST_GAME:,}; first_game + n_games is {first_game + n_games:,}")
    kr = kernel_rules(r)
    fixed = None if per_game_only else batches.fixed_rows(kr, max_rounds)
    kinds, params = strategy_lib.parameter_arrays(chosen, engine_play.MAX_SEATS)
    batch_size = _batch_size(batch_size, n_games, workers, out, per_game_only, fixed, engine_play.searching(kinds))
    cond = _checked_condition(condition, r, seed, first_game, cluster, out)
    return _Run(ruleset=r, chosen=chosen, n_games=n_games, first_game=first_game, seed=seed, workers=workers,
                max_rounds=max_rounds, rotate=bool(rotate), per_game_only=per_game_only, batch_size=batch_size,
                kr=kr, kinds=kinds, params=params, names=[s.name for s in chosen], label=ruleset_label(r),
                fixed=fixed, cond=cond, out=out, command=command, progress=progress, cluster=cluster)


def _simulate(run: _Run) -> pl.DataFrame | store.Dataset:
    """:func:`simulate` once its arguments are checked, on ``run.cluster`` or, without one, on this machine:
    either write a dataset, or play the batches here or on the cluster and return the frame."""
    if run.out is not None:
        return _simulate_out(run)
    if run.cluster is not None:
        _refuse_python(run.chosen)

    # Games of a fixed number of rounds write into one array, each batch its
    # own rows: the frame then takes its columns as they are, without
    # gathering every batch's rows into new memory.
    shared = None if run.fixed is None else np.zeros((engine_play.N_R, run.n_games * run.fixed), dtype=np.int32)

    dealt = np.ones(run.n_games, dtype=np.int64)
    if run.cluster is not None:
        results = _play_on_cluster(run, shared, dealt)
    else:
        results = _play_here(run, shared, dealt)
    _raise_policy_errors(run.chosen)
    return _frame_of(run, results, shared, dealt)


def _batch_size(batch_size: int | None, n_games: int, workers: int, out: Any, per_game_only: bool,
                fixed: int | None, searching: bool = False) -> int:
    """Games per batch: the one given, checked, or about 50 batches per worker (:func:`simulate` says the bounds)."""
    if batch_size is None:
        batch_size = max(1, min(2000, math.ceil(n_games / (50 * workers))))
        if out is not None and searching:
            # A searching game costs up to seconds: a batch of 250 would leave the other workers idle below a
            # few hundred games, and a run stopped midway would lose minutes of each worker's batch. Sixteen
            # batches a worker, at most 250 games: a file's 12 KB is nothing beside the CPU it holds.
            batch_size = max(1, min(250, math.ceil(n_games / (16 * workers))))
        elif out is not None:
            # Each file costs about 12 KB of footer and provenance: no batch file under 250 games.
            batch_size = min(2000, max(batch_size, 250))
        elif not per_game_only and fixed is None:
            batch_size = max(batch_size, min(_CHUNK_GAMES, math.ceil(n_games / (4 * workers))))
    return check_whole("batch_size", batch_size, 1)


def _checked_condition(condition: Any, r: Ruleset, seed: int, first_game: int, cluster: Any, out: Any) -> Any:
    """The condition on the first deals read and checked against the table, its pilot dealt; None without one."""
    cond = None
    if condition is not None:
        from sim import conditions, deals

        if cluster is not None and not isinstance(condition, (str, conditions.Condition)):
            raise ValueError("a Python predicate as condition= plays on this machine only: write the condition in "
                             "the condition language (docs/deals.md) to play it on a cluster")
        if out is not None and not isinstance(condition, (str, conditions.Condition)):
            raise ValueError("a Python predicate as condition= plays in memory only: write the condition in the "
                             "condition language (docs/deals.md) to keep a dataset")
        cond = conditions.Condition(condition)
        cond.check(r)
        deals.pilot_rate(r, cond, seed, first_game=first_game)
    return cond


def _job(run: _Run, tables: list[str], provenance: dict[str, Any]) -> batches.Batches:
    """What every batch of ``run`` needs, sent once to each thread or worker."""
    return batches.Batches(run.kr, run.seed, run.kinds, run.params, run.max_rounds, run.rotate, run.names,
                           run.ruleset.game, run.label, tables, provenance, run.cond,
                           run.ruleset if run.cond is not None else None)


def _simulate_out(run: _Run) -> store.Dataset:
    """The dataset's identity, the command recorded and the job, then the batches written
    (:func:`_simulate_to_dataset`)."""
    r, cond = run.ruleset, run.cond
    tables = ["games"] if run.per_game_only else list(store.TABLES)
    identity = dataset_identity({
        "ruleset": r.to_dict(),
        "ruleset_label": run.label,
        "strategies": [{"name": s.name, "kind": _KIND_NAMES.get(s.kind, str(s.kind)), "params": s.params}
                       for s in run.chosen],
        "seed": run.seed, "rotate": run.rotate, "max_rounds": run.max_rounds, "tables": tables,
    })
    if cond is not None:
        # Only then: the identity of every unconditioned dataset stays as it was.
        identity["condition"] = cond.text
    command = run.command
    if command is None:
        command = (f"sim.simulate({run.label!r}, {run.names!r}, n_games={run.n_games}, seed={run.seed}, "
                   f"first_game={run.first_game}, rotate={run.rotate}, max_rounds={run.max_rounds}, "
                   f"per_game_only={run.per_game_only}, out={str(run.out)!r}"
                   + (f", condition={cond.text!r})" if cond is not None else ")"))
    return _simulate_to_dataset(run, _job(run, tables, {}), identity, command)


def _play_on_cluster(run: _Run, shared: np.ndarray | None, dealt: np.ndarray) -> list[Any]:
    """The batches played on the cluster, in order; their rows into ``shared`` when the games' rows are fixed."""
    results: list[Any] = []
    # Each worker compiles or loads the entries before the first batch; the clock starts after.
    warm_cluster(run.cluster, run.ruleset, run.kinds, run.params)
    run.tick(0)
    shipped = _job(run, [], {})
    starts = run.starts
    pieces = [(shipped, start, run.count(start), run.per_game_only) for start in starts]
    for i, (result, used) in run.cluster.each_done(batches.batch_rows, pieces):
        start = starts[i]
        count = run.count(start)
        if used is not None:
            dealt[start - run.first_game:start - run.first_game + count] = used
        if shared is not None:
            # Into the rows the local run writes, so that the frame is built the same way.
            rows = result[0] if len(result) == 1 else np.concatenate(result, axis=1)
            row = (start - run.first_game) * run.fixed
            shared[:, row:row + rows.shape[1]] = rows
        results.append((i, result))
        run.tick(count)
    return [result for _, result in sorted(results, key=lambda item: item[0])]


def _play_here(run: _Run, shared: np.ndarray | None, dealt: np.ndarray) -> list[Any]:
    """The batches played on this machine's threads, in order; their rows into ``shared`` when the games' rows are
    fixed."""
    r, kr, seed, cond = run.ruleset, run.kr, run.seed, run.cond

    def job(start: int) -> Any:
        count = run.count(start)
        orders = None
        if cond is not None:
            # The batch's accepted first deals, whole decks in dealing order.
            orders, used = batches.accepted_orders(r, cond, seed, start, count)
            dealt[start - run.first_game:start - run.first_game + count] = used
        if shared is not None:
            return batches.run_batch(kr, seed, start, count, run.kinds, run.params, run.max_rounds, run.rotate,
                                     shared, (start - run.first_game) * run.fixed, orders)
        chunks = batches.run_batch(kr, seed, start, count, run.kinds, run.params, run.max_rounds, run.rotate,
                                   orders=orders)
        # Per-game tables are built batch by batch so the rounds are never all held.
        if run.per_game_only:
            return game_summary(batches.frame(chunks, run.names, run.rotate, r.game, run.label))
        return chunks

    results: list[Any] = []
    # Compiled (or loaded) before the first batch, in the thread that
    # compiles without paging its frames in and out: a third less time on a
    # fresh cache. Once a process has the kernels this costs nothing.
    _compile_once(r, run.kinds, run.params)
    run.tick(0)
    starts = run.starts
    if run.workers == 1:
        for start in starts:
            results.append(job(start))
            run.tick(run.count(start))
    else:
        with ThreadPoolExecutor(max_workers=run.workers) as pool:
            # map keeps batch order, so the frame is the same for any worker count.
            for start, result in zip(starts, pool.map(job, starts)):
                results.append(result)
                run.tick(run.count(start))
    return results


def _frame_of(run: _Run, results: list[Any], shared: np.ndarray | None, dealt: np.ndarray) -> pl.DataFrame:
    """The batches' rows as one frame, with the deals dealt per game under a condition."""
    game = run.ruleset.game
    if run.per_game_only:
        frame = pl.concat(results)
    elif shared is not None:
        frame = batches.frame([shared], run.names, run.rotate, game, run.label)
    else:
        frame = batches.frame([c for chunks in results for c in chunks], run.names, run.rotate, game, run.label)
    if run.cond is None:
        return frame
    deals_column = pl.DataFrame({"game": np.arange(run.first_game, run.end, dtype=np.int64), "deals": dealt})
    return frame.join(deals_column.cast({"game": frame.schema["game"]}), on="game", how="left",
                      maintain_order="left")


def _refuse_python(chosen: list[strategy_lib.Strategy]) -> None:
    """Refuse a strategy written in Python on a cluster: it runs only in this process."""
    if any(s.kind == KIND_PYTHON for s in chosen):
        raise ValueError("strategies written in Python run only in this process; scheduler= needs compiled "
                         "strategies")


def compile_entries(ruleset: Ruleset, kinds: np.ndarray, params: np.ndarray) -> None:
    """Compile or load the entries a simulation of these seats plays, once per process (a worker's warm-up)."""
    _compile_once(ruleset, kinds, params)


def warm_cluster(cluster: Any, ruleset: Ruleset, kinds: np.ndarray, params: np.ndarray) -> None:
    """Have every worker of ``cluster`` compile or load the entries these seats play, before the first batch."""
    key = ("simulate", bool(engine_play.searching(kinds)))
    cluster.warm(key, functools.partial(compile_entries, ruleset, kinds, params))


def _simulate_to_dataset(run: _Run, job: batches.Batches, identity: dict[str, Any], command: str) -> store.Dataset:
    """The ``out=`` branch of :func:`simulate`: every check first, then batches written as they finish."""
    cluster, workers, first_game, n_games = run.cluster, run.workers, run.first_game, run.n_games
    if cluster is not None:
        _refuse_python(run.chosen)
    where = f"dask {cluster.address}" if cluster else f"{workers} threads"
    record = run_record(command, store.now(), first_game, n_games, run.batch_size, where)
    writer = store.open_dataset(run.out, identity, record, players=len(job.names))
    with writer.recording():  # from here on the dataset is locked: the run is closed whatever happens
        job = job._replace(provenance={"format": store.FORMAT, "identity": writer.manifest["identity"],
                                       "run": record})
        todo = writer.missing(first_game, n_games, run.batch_size)
        found = n_games - sum(count for _, count in todo)
        entries = job.condition_ruleset if job.condition is not None else run.ruleset
        # After every check: a refused folder costs no compilation.
        if cluster and todo:
            warm_cluster(cluster, entries, job.kinds, job.params)
        elif todo:
            _compile_once(entries, job.kinds, job.params)
        run.tick(found)
        if cluster:
            for i, files in cluster.each_done(batches.batch_files, [(job, first, count) for first, count in todo]):
                writer.write(*todo[i], files)
                run.tick(todo[i][1])
        else:
            pool = ThreadPoolExecutor(max_workers=workers)
            try:
                _drive(lambda first, count: pool.submit(batches.batch_files, job, first, count), _wait_local,
                       _cancel_local, 2 * workers, todo, writer, run.progress)
            except BaseException:
                # Leave at once (no waiting as a `with` block would): the
                # batches running now finish on their own and are dropped.
                pool.shutdown(wait=False, cancel_futures=True)
                raise
            pool.shutdown()
        _raise_policy_errors(run.chosen)
    return store.Dataset(Path(run.out), writer.manifest, games_played=writer.written, games_found=found)


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
    first = first_player(round_index, ruleset.players)
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


def search_effort(
    ruleset: Ruleset | str,
    strategies: Sequence[str | strategy_lib.Strategy],
    n_games: int = 4,
    seed: int = 1,
    first_game: int = 0,
    allow_clairvoyant: bool = False,
) -> pl.DataFrame:
    """The work of a table's searching seats, game by game: what a search costs on this machine.

    Plays games ``first_game .. first_game + n_games - 1`` of the simulation
    seeded ``seed`` (the very games :func:`simulate` plays), one at a time on
    the calling thread, and counts the searched decisions (two legal choices
    or more) and the playouts they played, with the thread's CPU time of the
    whole game. The counts are deterministic; the CPU time is not (it
    depends on the machine and on what else runs on it), so it belongs in
    no result that is hashed or compared between runs. ``allow_clairvoyant``
    times the ladder's ceiling, as :func:`simulate` seats it.

    Returns
    -------
    polars.DataFrame
        Columns ``game``, ``cpu_seconds`` (float64), ``decisions`` and
        ``playouts`` (int64), one row per game.
    """
    r, chosen = resolve(ruleset, strategies)
    if not allow_clairvoyant:
        check_information(chosen)
    n_games = check_whole("n_games", n_games, 1)
    first_game = check_whole("first_game", first_game, 0)
    seed = _check_seed(seed)
    kr = kernel_rules(r)
    kinds, params = strategy_lib.parameter_arrays(chosen, engine_play.MAX_SEATS)
    if not engine_play.searching(kinds):
        raise ValueError("search_effort measures a searching seat: seat a search strategy")
    _compile_once(r, kinds, params)
    res = np.zeros((engine_play.N_R, engine_play.MAX_ROUNDS * r.players), dtype=np.int32)
    rows: dict[str, list[Any]] = {"game": [], "cpu_seconds": [], "decisions": [], "playouts": []}
    library = futures(kr, kinds, params)
    for game in range(first_game, first_game + n_games):
        tally = np.zeros(N_TALLY, dtype=np.int64)
        start = time.thread_time()
        search_games(kr, np.uint64(seed), game, 1, kinds, params, engine_play.MAX_ROUNDS, res, 0, False, *library,
                     tally)
        rows["cpu_seconds"].append(time.thread_time() - start)
        rows["game"].append(game)
        rows["decisions"].append(int(tally[TALLY_DECISIONS]))
        rows["playouts"].append(int(tally[TALLY_PLAYOUTS]))
    _raise_policy_errors(chosen)
    return pl.DataFrame(rows, schema={"game": pl.Int64, "cpu_seconds": pl.Float64, "decisions": pl.Int64,
                                      "playouts": pl.Int64})


def play_traced(
    ruleset: Ruleset | str,
    strategies: Sequence[str | strategy_lib.Strategy],
    seed: int = 1,
    game: int = 0,
    max_rounds: int = engine_play.MAX_ROUNDS,
    max_events: int = 2_000_000,
    deal: dict[str, Any] | None = None,
    rotate: bool = False,
    allow_clairvoyant: bool = False,
) -> list[dict[str, Any]]:
    """Every event of game ``game`` of the simulation seeded ``seed`` (``docs/trace.md``).

    The game is the very one :func:`simulate` plays under the same seed
    (both default to seed 1).
    ``deal`` scripts one round instead: ``{"hands": [...], "pile": "9♠",
    "stock": "6♥ ...", "round": 0}`` in card notation, hands listed by seat
    (the round's first player is seat ``round mod players``; see
    :func:`scripted_deal`); the rounds before it are played as usual.
    The ladder's ceiling is refused unless ``allow_clairvoyant`` (as
    :func:`simulate`).
    """
    r, chosen = resolve(ruleset, strategies)
    if not allow_clairvoyant:
        check_information(chosen)
    max_rounds = check_whole("max_rounds", max_rounds, 1)
    game = check_whole("game", game, 0)
    if game > LAST_GAME:
        raise ValueError(f"game must be at most {LAST_GAME:,} (the last game simulate plays), got {game:,}")
    seed = check_seed(seed)
    kr = kernel_rules(r)
    kinds, params = strategy_lib.parameter_arrays(chosen, engine_play.MAX_SEATS)
    ev = np.zeros((max_events, engine_play.N_EV), dtype=np.int32)
    order = np.zeros(0, dtype=np.int64)
    order_round = 0
    if deal is not None:
        order_round = check_whole("deal round", deal.get("round", 0), 0)
        order = scripted_deal(r, deal["hands"], deal["pile"], deal.get("stock", ""), seed, order_round)
    if engine_play.searching(kinds):
        n_ev, overflow = trace_search_game(kr, game, np.uint64(seed), kinds, params, max_rounds, ev, order,
                                             order_round, bool(rotate), *futures(kr, kinds, params))
    else:
        n_ev, overflow = engine_play.trace_game(kr, game, np.uint64(seed), kinds, params, max_rounds, ev, order,
                                                order_round, bool(rotate))
    _raise_policy_errors(chosen)
    if overflow:
        raise RuntimeError(f"the trace needs more than max_events={max_events} events; raise it")
    head = {
        "type": "game_start",
        "players": r.players,
        "ruleset": r.to_dict(),
        "strategies": [chosen[(seat - game) % len(chosen) if rotate else seat].name for seat in range(len(chosen))],
        "max_rounds": max_rounds,
        "deterministic": bool(engine_play.deterministic(kr, kinds, params)),
        "seed": int(seed),
        "game": game,
    }
    return [head, *events_to_dicts(ev[:n_ev], r.players)]
