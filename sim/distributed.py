"""Batches of a simulation played on a Dask cluster.

:func:`sim.simulate` with ``scheduler=`` (a scheduler address or a connected
``distributed.Client``) sends each batch to the cluster as one task: the
worker plays the games with the compiled engine, encodes the batch's parquet
files (provenance included) and sends them back; the driver writes them into
the dataset. The seed of game ``i`` never depends on who plays it, so the
dataset is identical to a local run.

Each worker process compiles the kernels once, on its first batch (or loads
them from numba's cache in the installed package's ``__pycache__``), then
keeps them for every later batch: tasks call the module's functions by
reference, they never ship or rebuild them.

Dask is optional: ``pip install "rami-lab[cluster]"`` on the driver and on
every worker.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["ClusterError", "connect", "worker_state"]


class ClusterError(RuntimeError):
    """The cluster cannot run this simulation: the message says why, in one line."""


def worker_state() -> dict[str, Any]:
    """What one worker process holds: its pid, the package it imports and the engine's compilations.

    Run on workers with ``client.run(worker_state)``. ``compiled`` counts the
    compiled versions of the game loop kernel in this process (1 after any
    batch, whatever the number of batches), ``cache_misses`` the times it was
    compiled instead of loaded from numba's cache.
    """
    import sim
    from sim.engine import play as E
    from sim.provenance import package_version
    from sim.rules import RULES_VERSION

    stats = E.play_batch.stats
    return {
        "pid": os.getpid(),
        "package_version": package_version(),
        "rules_version": RULES_VERSION,
        "sim": os.path.dirname(os.path.abspath(sim.__file__)),
        "compiled": len(E.play_batch.overloads),
        "cache_hits": sum(stats.cache_hits.values()),
        "cache_misses": sum(stats.cache_misses.values()),
    }


class _Cluster:
    """A connected client and how the driver submits, waits for and cancels batches."""

    def __init__(self, client: Any, owned: bool) -> None:
        self.client = client
        self.owned = owned
        self.address = client.scheduler.address
        self._job = None

    def threads(self) -> int:
        """Worker threads of the cluster (at least 1)."""
        return max(1, sum(self.client.nthreads().values()))

    def check_workers(self, package_version: str, rules_version: int) -> None:
        """Refuse workers that cannot play this run exactly as this machine would."""
        try:
            states = self.client.run(worker_state)
        except ImportError as exc:
            raise ClusterError(f"the workers of {self.address} cannot import the simulator ({exc}); install "
                               f"rami-lab {package_version} on every worker") from None
        for worker, state in sorted(states.items()):
            if (state["package_version"], state["rules_version"]) != (package_version, rules_version):
                raise ClusterError(
                    f"worker {worker} runs rami-lab {state['package_version']} (rules version "
                    f"{state['rules_version']}); this run needs {package_version} (rules version {rules_version}): "
                    f"install the same version on every worker")

    def submitter(self, job: Any) -> Any:
        """A function ``(first, count) -> future`` of one batch; ``job`` goes to the workers once."""
        from sim.batches import batch_files

        [shared] = self.client.scatter([job], broadcast=True, hash=False)

        def submit(first: int, count: int) -> Any:
            return self.client.submit(batch_files, shared, first, count, pure=False, retries=1)

        return submit

    def wait(self, pending: set[Any]) -> tuple[set[Any], set[Any]]:
        from distributed import wait

        # Wake up often, so that Ctrl-C is noticed at once (as a local run does).
        while True:
            try:
                with self.client.as_current():
                    done, not_done = wait(list(pending), timeout=0.2, return_when="FIRST_COMPLETED")
                return set(done), set(not_done)
            except TimeoutError:
                continue

    def cancel(self, pending: set[Any]) -> None:
        if pending:
            self.client.cancel(list(pending))

    def close(self) -> None:
        if self.owned:
            self.client.close()


def connect(scheduler: Any, timeout: float = 30.0) -> _Cluster:
    """Connect to ``scheduler`` (an address such as ``"tcp://host:8786"``, or a ``distributed.Client``).

    Raises
    ------
    ClusterError
        Dask is not installed, the scheduler cannot be reached, or no worker
        joined it within ``timeout`` seconds.
    """
    try:
        import distributed
    except ImportError:
        raise ClusterError('scheduler= needs Dask: pip install "rami-lab[cluster]"') from None
    if isinstance(scheduler, distributed.Client):
        client, owned = scheduler, False
    elif isinstance(scheduler, str) and scheduler.strip():
        try:
            client = distributed.Client(scheduler, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise ClusterError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
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
    return _Cluster(client, owned)
