"""Every long job on a Dask cluster: one connection, one way to send work, the very results of a local run.

A job that plays many games (a simulation, a study, a tournament, a
comparison, a tuning, a ladder, the report, an analysis, an agreement
count, the odds) splits its work into pieces that depend on their own
inputs alone (a batch of game indices, a batch of positions, a group of
decisions), and runs them either on this machine's threads or, inside a
:func:`session`, on the cluster's workers. Whoever plays a piece, it gives
the same result, and the driver puts the pieces back in their order, so
every dataset, finding, page and JSON is the same as a local run's.

How a job uses it
-----------------
The public functions take ``scheduler=`` (an address such as
``"tcp://10.0.0.5:8786"``, a connected ``distributed.Client`` or a
:class:`Cluster`) and open a :func:`session` with it. The session connects
once, checks that every worker imports this package at this version before
anything is played (:meth:`Cluster.check_workers`), and stays open for the
whole job; the places that run pieces (:func:`sim.simulate`,
:func:`sim.store.fill`, :func:`run_pieces`) ask :func:`current` for it,
so a study's arms, a tournament's tables and a comparison's looks all go
to the same workers without a line of cluster code of their own.

Compiling once per worker
-------------------------
Before the first piece of a kind, :meth:`Cluster.warm` runs a warm-up task
on every worker: it compiles the engine's entries the pieces need, or loads
them from numba's cache (the installed package's ``__pycache__``), and the
worker keeps them for every later piece. The job's clock and its progress
start after the warm-up, so the first batch's time is its play alone.

Faults
------
A worker lost in the middle of a run (killed, its machine gone) loses only
the pieces it held: the scheduler gives them to the other workers, and a
piece played twice gives the same result, so the run ends as it would have.
A worker that joins later (a nanny's restart) compiles or loads the entries
on its first piece.

Dask is optional: ``pip install "rami-lab[cluster]"`` on the driver and on
every worker.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
import os
import re
import socket
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

__all__ = [
    "Cluster", "ClusterError", "check_address", "connect", "current", "on_cluster", "run_pieces", "session",
    "warmed",
    "worker_state",
]


class ClusterError(RuntimeError):
    """The cluster cannot run this job: the message says why, in one line, naming the scheduler's address."""


ADDRESS = re.compile(r"(?:(?:tcp|tls|ucx|ws|wss)://)?(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):\d{1,5}")
"""What a scheduler address looks like: ``tcp://host:port`` (``tcp://`` may be left out), or another Dask
protocol's ``tls://``, ``ucx://``, ``ws://``, ``wss://``; an IPv6 host in brackets."""

CONNECT_TIMEOUT = 30.0
"""Seconds to reach a scheduler and to wait for a first worker; ``RAMI_DASK_TIMEOUT`` changes it."""


def check_address(address: str) -> str:
    """``address`` stripped, or ``ValueError`` when it cannot be a scheduler's address (a bad value, before
    any connection is tried)."""
    text = address.strip() if isinstance(address, str) else address
    if not isinstance(text, str) or not ADDRESS.fullmatch(text):
        raise ValueError(f"{address!r} is not a Dask scheduler address: give tcp://HOST:PORT, e.g. "
                         "tcp://10.0.0.5:8786")
    return text


def worker_state() -> dict[str, Any]:
    """What one worker process holds: its pid, the package it imports and the engine's compilations.

    Run on workers with ``client.run(worker_state)``. ``compiled`` counts the
    compiled versions of the game loop kernel in this process (1 after any
    batch, whatever the number of batches), ``cache_misses`` the times it was
    compiled instead of loaded from numba's cache.
    """
    from sim.engine import play as engine_play
    from sim.provenance import package_version
    from sim.rules import RULES_VERSION

    stats = engine_play.play_batch.stats
    return {
        "pid": os.getpid(),
        "package_version": package_version(),
        "rules_version": RULES_VERSION,
        "sim": os.path.dirname(os.path.abspath(__file__)),  # this module's folder: the package's
        "compiled": len(engine_play.play_batch.overloads),
        "cache_hits": sum(stats.cache_hits.values()),
        "cache_misses": sum(stats.cache_misses.values()),
    }


_WARMED: set[Any] = set()
"""The warm-ups this process has run (a worker's memory: a second job on the same worker costs nothing)."""


def warmed() -> list[Any]:
    """The warm-ups this process has run (on a worker: ``client.run(warmed)``), as their keys."""
    return sorted(_WARMED, key=repr)


def _warm_up(key: Any, work: Callable[[], Any]) -> int:
    """Run ``work`` once per process for ``key`` (on a worker); the process id."""
    if key not in _WARMED:
        work()
        _WARMED.add(key)
    return os.getpid()



class Cluster:
    """A connected client: how a job warms the workers up, sends its pieces and gets them back.

    Made by :func:`connect` (or :func:`session`); :meth:`close` disconnects
    a client it made, never one it was given.
    """

    def __init__(self, client: Any, owned: bool) -> None:
        self.client = client
        self.owned = owned
        self.address = client.scheduler.address
        self.checked = False
        self._warmed: set[tuple[str, Any]] = set()

    def threads(self) -> int:
        """Worker threads of the cluster (at least 1)."""
        return max(1, sum(self.client.nthreads().values()))

    def check_workers(self, package_version: str, rules_version: int) -> None:
        """Refuse workers that cannot play this job exactly as this machine would, naming the scheduler."""
        try:
            states = self.client.run(worker_state, on_error="return")
        except ImportError as exc:  # the driver's side of a worker that cannot unpickle the call
            raise ClusterError(f"the workers of {self.address} cannot import the simulator ({exc}); install "
                               f"rami-lab {package_version} on every worker") from None
        for worker, state in sorted(states.items()):
            if isinstance(state, BaseException):
                # Dask hands a worker's failure back as an exception whose text is the worker's error.
                raise ClusterError(f"worker {worker} of {self.address} cannot import the simulator ({state}); "
                                   f"install rami-lab {package_version} on every worker")
            if (state["package_version"], state["rules_version"]) != (package_version, rules_version):
                raise ClusterError(
                    f"worker {worker} of {self.address} runs rami-lab {state['package_version']} (rules version "
                    f"{state['rules_version']}); this job needs {package_version} (rules version {rules_version}): "
                    f"install the same version on every worker")
        self.checked = True

    def warm(self, key: Any, work: Callable[[], Any]) -> None:
        """Run the warm-up ``work`` (a picklable call that compiles or loads entries) on every worker, once per
        worker and ``key``, and wait for them all: the pieces that follow find their entries ready."""
        workers = sorted(self.client.scheduler_info(n_workers=-1)["workers"])
        todo = [w for w in workers if (w, key) not in self._warmed]
        # Pinned loosely: a worker lost meanwhile leaves its warm-up to another, never a wait without end.
        futures = [self.client.submit(_warm_up, key, work, workers=[w], allow_other_workers=True, pure=False)
                   for w in todo]
        try:
            pending = set(futures)
            while pending:
                done = self._wait_some(pending)
                pending -= done
                for future in done:
                    future.result()
        except BaseException:
            self.client.cancel(futures)
            raise
        self._warmed.update((w, key) for w in todo)

    def each_done(self, func: Callable[..., Any], pieces: Iterable[tuple[Any, ...]],
                  window: int | None = None) -> Iterator[tuple[int, Any]]:
        """``func(*piece)`` of every piece, on the workers, as ``(index, result)`` in the order they finish.

        At most ``window`` pieces are in flight (default twice the cluster's
        threads), so results waiting for the driver stay few. A piece whose
        worker is lost is played again elsewhere by the scheduler; a piece
        that raises is tried once more, then its error is raised here. The
        pieces still out are cancelled when the caller stops early.
        """
        window = window or 2 * self.threads()
        queue = iter(enumerate(pieces))
        pending: dict[Any, int] = {}

        def fill() -> None:
            for i, piece in queue:
                pending[self.client.submit(func, *piece, pure=False, retries=1)] = i
                if len(pending) >= window:
                    return

        try:
            fill()
            while pending:
                done = self._wait_some(set(pending))
                for future in sorted(done, key=pending.__getitem__):
                    yield pending.pop(future), future.result()
                fill()
        finally:
            if pending:
                self.client.cancel(list(pending))

    def map(self, func: Callable[..., Any], pieces: Sequence[tuple[Any, ...]],
            done: Callable[[int, Any], None] | None = None) -> list[Any]:
        """``func(*piece)`` of every piece on the workers, in the pieces' order; ``done(index, result)`` as each
        finishes."""
        results: list[Any] = [None] * len(pieces)
        for i, result in self.each_done(func, pieces):
            results[i] = result
            if done:
                done(i, result)
        return results

    def _wait_some(self, pending: set[Any]) -> set[Any]:
        from distributed import wait

        # Wake up often, so that Ctrl-C is noticed at once (as a local run does).
        while True:
            try:
                with self.client.as_current():
                    done, _ = wait(list(pending), timeout=0.2, return_when="FIRST_COMPLETED")
                return set(done)
            except TimeoutError:
                continue

    def close(self) -> None:
        if self.owned:
            self.client.close()


def _reachable(address: str, timeout: float) -> None:
    """Refuse at once an address where nothing listens (Dask's client would retry until its timeout)."""
    scheme, _, rest = address.rpartition("://")
    if scheme not in ("", "tcp", "tls"):
        return
    host, _, port = rest.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=min(timeout, 10.0)):
            pass
    except OSError as exc:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {exc.strerror or exc}") from None


def _client(distributed: Any, address: str, timeout: float) -> Any:
    """A client of the scheduler at ``address``, or :class:`ClusterError` within about ``timeout`` seconds.

    Dask's client waits without end for a server that listens but never
    answers its handshake (a web server, say): it is made in a thread of
    its own, and given up when the time is over.
    """
    made: dict[str, Any] = {}

    def make() -> None:
        try:
            made["client"] = distributed.Client(address, timeout=timeout, set_as_default=False)
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            made["error"] = exc

    thread = threading.Thread(target=make, name="rami-dask-connect", daemon=True)
    thread.start()
    thread.join(timeout + 5.0)
    if thread.is_alive():
        raise ClusterError(f"{address} does not answer as a Dask scheduler (nothing within {timeout:g} s)")
    if "error" in made:
        exc = made["error"]
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ClusterError(f"{address} does not answer as a Dask scheduler: {detail}") from None
    return made["client"]


def connect(scheduler: Any, timeout: float | None = None) -> Cluster:
    """Connect to ``scheduler`` (an address such as ``"tcp://host:8786"``, or a ``distributed.Client``).

    Raises
    ------
    ClusterError
        Dask is not installed, the scheduler cannot be reached or does not
        answer as a Dask scheduler, or no worker joined it within
        ``timeout`` seconds (default :data:`CONNECT_TIMEOUT`).
    """
    if timeout is None:
        timeout = float(os.environ.get("RAMI_DASK_TIMEOUT", CONNECT_TIMEOUT))
    if isinstance(scheduler, Cluster):
        return scheduler
    try:
        import distributed
    except ImportError:
        raise ClusterError('scheduler= needs Dask: pip install "rami-lab[cluster]"') from None
    if isinstance(scheduler, distributed.Client):
        client, owned = scheduler, False
    elif isinstance(scheduler, str) and scheduler.strip():
        address = scheduler.strip()
        _reachable(address, timeout)
        client = _client(distributed, address, timeout)
        owned = True
    else:
        raise ClusterError(f"scheduler must be an address such as tcp://host:8786 or a distributed.Client, "
                           f"got {scheduler!r}")
    try:
        client.wait_for_workers(1, timeout=timeout)
    except TimeoutError:
        if owned:
            client.close()
        raise ClusterError(f"no worker joined the Dask scheduler at {client.scheduler.address} "
                           f"within {timeout:g} s") from None
    return Cluster(client, owned)


_CURRENT: contextvars.ContextVar[Cluster | None] = contextvars.ContextVar("rami_cluster", default=None)


def current() -> Cluster | None:
    """The cluster of the job running in this thread (inside a :func:`session`), or None: play locally."""
    return _CURRENT.get()


@contextlib.contextmanager
def session(scheduler: Any = None) -> Iterator[Cluster | None]:
    """The job's cluster for the block: connected and checked once, used by every piece the block runs.

    ``scheduler`` None keeps what is there (the enclosing session's cluster,
    or none: a local run), so a function that opens a session may be called
    inside another one. Otherwise it connects (:func:`connect`), refuses
    workers that lack this package or run another version of it
    (:class:`ClusterError`, before anything is played), and disconnects at
    the end of the block if it made the connection.
    """
    if scheduler is None or scheduler is _CURRENT.get():
        yield _CURRENT.get()
        return
    from sim.provenance import package_version
    from sim.rules import RULES_VERSION

    cluster = connect(scheduler)
    try:
        if not cluster.checked:
            cluster.check_workers(package_version(), RULES_VERSION)
        token = _CURRENT.set(cluster)
        try:
            yield cluster
        finally:
            _CURRENT.reset(token)
    finally:
        if cluster is not scheduler:
            cluster.close()


def on_cluster(func: Callable[..., Any]) -> Callable[..., Any]:
    """Run ``func`` inside a :func:`session` of its own ``scheduler`` argument (a keyword of its signature).

    For the public functions of long jobs: the body finds the cluster with
    :func:`current` wherever it runs pieces, and needs no cluster code.
    """
    signature = inspect.signature(func)
    if "scheduler" not in signature.parameters:
        raise TypeError(f"{func.__qualname__} takes no scheduler argument")

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        scheduler = signature.bind_partial(*args, **kwargs).arguments.get("scheduler")
        with session(scheduler):
            return func(*args, **kwargs)

    return wrapper


def run_pieces(func: Callable[..., Any], pieces: Sequence[tuple[Any, ...]], workers: int = 1,
               warm: tuple[Any, Callable[[], Any]] | None = None,
               done: Callable[[int, Any], None] | None = None) -> list[Any]:
    """``func(*piece)`` of every piece, in the pieces' order: on the session's cluster, else on ``workers`` threads.

    The one way a job that is not a simulation runs its pieces (an
    analysis's decisions, an agreement's games, the odds' deals). ``warm``
    is ``(key, work)``: on a cluster, ``work`` is run once per worker before
    the first piece (:meth:`Cluster.warm`); locally the first piece compiles
    what it needs, as it always has. ``done(index, result)`` is called as
    each piece finishes.
    """
    cluster = current()
    if cluster is not None:
        if warm is not None:
            cluster.warm(*warm)
        return cluster.map(func, pieces, done)
    if workers <= 1 or len(pieces) <= 1:
        results = []
        for i, piece in enumerate(pieces):
            results.append(func(*piece))
            if done:
                done(i, results[-1])
        return results
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = []
        for i, result in enumerate(pool.map(lambda piece: func(*piece), pieces)):
            results.append(result)
            if done:
                done(i, result)
        return results
