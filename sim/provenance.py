"""Who ran what: the package version, the source commit and the record of a run.

The one place these are looked up: a dataset's identity and run record
(:mod:`sim.api`), the check that Dask workers run the same package
(:mod:`sim.distributed`), an experiment's ``summary.json``
(:func:`experiments.runner.provenance`) and ``sim.__version__`` all read them
here. The module imports nothing heavy at load time, so ``rami --version``
stays quick.
"""

from __future__ import annotations

import platform
import subprocess
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["UNKNOWN", "dataset_identity", "git_commit", "package_version", "run_record", "versions"]

UNKNOWN = "unknown"
"""The package version recorded by a source tree that was never installed."""


@cache
def package_version() -> str:
    """The installed ``rami-lab`` version, or :data:`UNKNOWN` for a source tree that was never installed."""
    try:
        return metadata.version("rami-lab")
    except metadata.PackageNotFoundError:
        return UNKNOWN


@cache
def git_commit() -> tuple[str | None, bool | None]:
    """The source checkout's commit and whether it has uncommitted changes (None, None outside git).

    Asked of git once per process: the code a process runs is the code it
    imported, whatever is committed meanwhile, and a report records every
    dataset it writes (two git commands apiece, some 280 datasets in the
    quick edition: over a second).
    """
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


def versions() -> dict[str, Any]:
    """The package, rules and library versions a result depends on."""
    import numba
    import numpy as np
    import polars as pl
    import pyarrow

    from sim.rules import RULES_VERSION

    return {
        "package_version": package_version(), "rules_version": RULES_VERSION,
        "python": platform.python_version(), "numba": numba.__version__, "numpy": np.__version__,
        "polars": pl.__version__, "pyarrow": pyarrow.__version__,
    }


def dataset_identity(fields: dict[str, Any]) -> dict[str, Any]:
    """A dataset's identity: the package and rules versions its rows depend on, then ``fields``, what else
    names it (a simulation's ruleset, strategies, seed and round cap; an experiment's name and the config keys
    that decide its rows; a fork's positions). A later run on the same folder must give the same identity
    (:func:`sim.store.open_dataset`); the library versions, which leave the rows alone, are the run's record."""
    from sim.rules import RULES_VERSION

    return {"package_version": package_version(), "rules_version": RULES_VERSION, **fields}


def run_record(command: str, started: str, first_game: int, n_games: int, batch_size: int,
               where: str) -> dict[str, Any]:
    """Provenance of one simulation run: what ran, with which versions, when, on what."""
    commit, dirty = git_commit()
    v = versions()
    return {
        "command": command, "started": started, "first_game": first_game, "n_games": n_games,
        "batch_size": batch_size, "where": where, "package_version": v["package_version"],
        "rules_version": v["rules_version"], "python": v["python"], "numba": v["numba"],
        "numpy": v["numpy"], "polars": v["polars"], "pyarrow": v["pyarrow"],
        "git_commit": commit, "git_dirty": dirty,
    }
