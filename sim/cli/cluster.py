"""``--scheduler``: the long commands on a Dask cluster, checked and connected before anything is made.

Every command that plays many games takes ``--scheduler ADDRESS`` and opens
one session (:func:`sim.distributed.session`) for its whole job with
:func:`cluster_session`, after its own checks and before its first folder:

- ``--scheduler`` with an explicit ``--workers``, or an address that cannot
  be one, is a bad value (exit 2);
- a scheduler that cannot be reached or does not answer as one, no worker,
  workers that cannot import the package or run another version of it: the
  cluster failed (exit 1).

Either way one line names the address, and nothing is created or played.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click

from sim.cli.common import BadValue

__all__ = ["check_scheduler", "cluster_session", "on_cluster", "scheduler_option", "workers_option"]

scheduler_option = click.option(
    "--scheduler", default=None, metavar="ADDRESS",
    help="Play on a Dask cluster, e.g. tcp://10.0.0.5:8786 (rami-lab[cluster] on every machine; docs/cluster.md): "
         "the same results as a local run, written here. Not with --workers.")


workers_option = click.option("--workers", type=click.IntRange(min=1), default=None, show_default="all cores",
                              help="Threads running the engine (results do not depend on it).")
"""``--workers`` for the commands that had none: threads of this machine, never with ``--scheduler``."""


def on_cluster(command: Callable[..., Any]) -> Callable[..., Any]:
    """Give a command ``--scheduler`` and run its whole body inside :func:`cluster_session`.

    Put it right above the command's function (below its other options): the
    function keeps its own parameters, and every long job it calls finds the
    cluster by itself (:func:`sim.distributed.current`).
    """

    @functools.wraps(command)
    def run(*args: Any, scheduler: str | None = None, **kwargs: Any) -> Any:
        with cluster_session(scheduler):
            return command(*args, **kwargs)

    return scheduler_option(run)


def _workers_given(ctx: click.Context) -> bool:
    """Whether ``--workers`` was typed (its default does not count)."""
    if "workers" not in ctx.params:
        return False
    return ctx.get_parameter_source("workers") not in (click.core.ParameterSource.DEFAULT,
                                                         click.core.ParameterSource.DEFAULT_MAP)


def check_scheduler(scheduler: str | None) -> str | None:
    """The address of ``--scheduler`` checked against the command's other options (exit 2), or None."""
    if scheduler is None:
        return None
    ctx = click.get_current_context()
    if _workers_given(ctx):
        raise BadValue(f"--scheduler {scheduler} with --workers {ctx.params['workers']}: the cluster's workers "
                       "play the games; give one or the other")
    from sim import distributed

    try:
        return distributed.check_address(scheduler)
    except ValueError as exc:
        raise BadValue(f"--scheduler {exc}") from None


@contextmanager
def cluster_session(scheduler: str | None) -> Iterator[Any]:
    """The command's cluster for the block (None without ``--scheduler``): checked, connected and its workers
    checked before the block makes anything; a cluster that fails is one line naming it, exit 1."""
    address = check_scheduler(scheduler)
    if address is None:
        yield None
        return
    from sim import distributed
    from sim.provenance import package_version
    from sim.rules import RULES_VERSION

    try:
        cluster = distributed.connect(address)
    except distributed.ClusterError as exc:
        raise click.ClickException(str(exc)) from None
    try:
        try:
            cluster.check_workers(package_version(), RULES_VERSION)
        except distributed.ClusterError as exc:
            raise click.ClickException(str(exc)) from None
        with distributed.session(cluster):
            yield cluster
    finally:
        cluster.close()
