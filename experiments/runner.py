"""The one runner of every experiment, and the folder it keeps.

:func:`run_experiment` plays every part of an experiment into the run's
folder through the results store (:mod:`sim.store`: batch by batch, so a
run stopped at any moment resumes where it was), grows the study in the
sequential mode, analyses, and writes ``summary.json``; :func:`reanalyse`
analyses a run again from its rows. The folder holds :data:`DATA` (one
results dataset per part, and :data:`RUN`, what made them) and
:data:`SUMMARY`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from experiments.configs import Config
from experiments.findings import Results, rounds_of
from sim import api, distributed, store
from sim import provenance as provenance_lib

if TYPE_CHECKING:
    from experiments.experiment import Experiment

__all__ = [
    "ANALYSIS_KEYS",
    "DATA",
    "RUN",
    "SUMMARY",
    "claim_data",
    "data_fits",
    "load_dataset",
    "provenance",
    "read_summary",
    "reanalyse",
    "row_config",
    "run_experiment",
    "write_summary",
]

log = logging.getLogger(__name__)

SUMMARY = "summary.json"
"""An experiment folder's findings, config and provenance, written at the end of a run."""
DATA = "data"
"""An experiment folder's data: one results dataset per part, and :data:`RUN`."""
RUN = "experiment.json"
"""What made the data of an experiment folder: the experiment and the config keys that decide its rows."""
ANALYSIS_KEYS = frozenset({"games", "precision", "max_games", "resamples", "workers"})
"""Config keys that do not change a game's rows: how many games, how they are analysed, on how many threads.
A run may resume or grow data made under other values of these; any other key must be the same."""


def row_config(config: Config) -> dict[str, Any]:
    """The config keys that decide a game's rows: every key but :data:`ANALYSIS_KEYS`."""
    return {k: v for k, v in config.to_dict().items() if k not in ANALYSIS_KEYS}


def _identity(experiment: Experiment, config: Config) -> dict[str, Any]:
    """What the rows of a run depend on: the experiment, the config keys that decide rows, the versions."""
    return provenance_lib.dataset_identity({"experiment": experiment.name, "config": row_config(config)})


def claim_data(folder: Path, experiment: Experiment, config: Config) -> None:
    """Make ``folder`` (an experiment's ``data``) hold this run's rows, or refuse before anything is played.

    A new folder gets :data:`RUN`; a folder made by a run with the same
    identity (config keys outside :data:`ANALYSIS_KEYS` included) is
    resumed; anything else is refused with what differs
    (:func:`sim.store.claim_folder`).
    """
    store.claim_folder(folder, RUN, _identity(experiment, config), f"the data of a run of {experiment.name}")


def data_fits(folder: Path, experiment: Experiment, config: Config) -> bool:
    """Whether a run of ``config`` may use ``folder`` (an experiment's ``data``): new, empty, or made by the same
    identity (see :func:`claim_data`)."""
    return store.folder_fits(folder, RUN, _identity(experiment, config))


def load_dataset(folder: Path | str, experiment: Experiment | None = None) -> pl.LazyFrame:
    """Every row stored under an experiment folder's ``data`` (``folder``), as a lazy frame.

    The config is read from :data:`RUN` beside the data and the games are the
    ones of ``summary.json`` (every game on disk when there is none yet).
    """
    import experiments

    folder = Path(folder)
    try:
        identity = json.loads((folder / RUN).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{folder}: no readable {RUN}, so not an experiment's data ({exc})") from None
    experiment = experiment or experiments.load(identity["experiment"])
    try:
        summary = read_summary(folder.parent)
        config = experiment.config_type.from_dict(summary["config"])
        games = int(summary["provenance"]["games"])
    except (OSError, ValueError, KeyError):
        config = experiment.config_type.from_dict(identity["config"])
        games = api.LAST_GAME + 1
    return _rows(experiment, config, folder, games)


def _rows(experiment: Experiment, config: Config, data: Path, games: int) -> pl.LazyFrame:
    return pl.concat([part.rows(data / part.name, games) for part in experiment.parts(config)], how="vertical")


def provenance(config: Config, wall: float, games: int, rounds: int, rows: int) -> dict[str, Any]:
    """Versions, sizes and wall time of a run, as ``summary.json`` and the report pages give them.

    The versions and the commit are the ones a simulation's dataset records
    (:mod:`sim.provenance`).
    """
    v = provenance_lib.versions()
    commit, _ = provenance_lib.git_commit()
    return {
        "package_version": v["package_version"], "rules_version": v["rules_version"], "git_commit": commit,
        "python": v["python"], "numba": v["numba"], "polars": v["polars"],
        "seed": config.seed, "games": games, "rounds": rounds, "rows": rows, "wall_seconds": round(wall, 2),
        "finished": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
    }


def run_experiment(
    experiment: Experiment,
    config: Config,
    out: Path | str | None = None,
    progress: Callable[[int, int], None] | None = None,
    *,
    workers: int | None = None,
    scheduler: Any = None,
) -> Results:
    """Play ``experiment`` under ``config`` through the results store, analyse, write, return.

    Parameters
    ----------
    experiment : Experiment
        What to run (an experiment module's ``EXPERIMENT``).
    config : Config
        Its config. With ``precision`` set, the sequential mode plays
        ``games`` first, then adds the next game indices (never replaying
        earlier ones) until every headline finding's interval is narrower
        than ``precision`` or ``max_games`` is reached.
    out : Path, optional
        The run's folder: ``data/`` (one results dataset per part, written
        batch by batch) and ``summary.json`` at the end. A folder holding an
        unfinished or smaller run of the same config is resumed: only the
        games not on disk are played. Without it the data goes to a
        temporary folder, removed at the end.
    progress : callable, optional
        ``progress(done, total)`` in engine games, after each batch.
    workers : int, optional
        Engine threads, in place of the config's ``workers`` (kept out of
        the config, so that ``summary.json`` is the same on any number).
    scheduler : str or distributed.Client, optional
        Play every part on this Dask cluster (:mod:`sim.distributed`): the
        same rows, findings and ``summary.json`` as a local run, the
        provenance aside.
    """
    with distributed.session(scheduler):
        return _run_experiment(experiment, config, out, progress, workers)


def _run_experiment(experiment: Experiment, config: Config, out: Path | str | None,
                    progress: Callable[[int, int], None] | None, workers: int | None) -> Results:
    """:func:`run_experiment` inside the job's cluster session (if any)."""
    if not isinstance(config, experiment.config_type):
        raise TypeError(f"{experiment.name} takes a {experiment.config_type.__name__}, got {type(config).__name__}")
    experiment.check_config(config)
    parts = experiment.parts(config)
    start = time.perf_counter()
    with contextlib.ExitStack() as stack:
        folder = Path(out) if out is not None else Path(stack.enter_context(
            tempfile.TemporaryDirectory(prefix="rami-experiment-")))
        data = folder / DATA
        claim_data(data, experiment, config)
        played, target, done = 0, config.games, 0
        while True:
            total = done + (target - played) * len(parts)

            def tick(k: int) -> None:
                nonlocal done
                done += k
                if progress:
                    progress(done, total)

            for part in parts:
                part.play(data / part.name, played, target - played, workers or config.workers, tick)
            played = target
            # One chunk, as a frame built in memory has: sums then add in the same order, to the last bit.
            frame = _rows(experiment, config, data, played).collect().rechunk()
            if experiment.order:
                frame = frame.sort(*experiment.order, maintain_order=True)
            if frame.height == 0:
                raise ValueError(f"{experiment.name}: no row in {played:,} games: raise games")
            findings = experiment.analyse(frame, config)
            if config.precision is None:
                break
            widths = [f.estimate.width for f in findings if f.headline]
            widest = max(widths, default=0.0)
            if widest <= config.precision or played >= config.max_games:
                if widest > config.precision:
                    log.warning("stopped at max_games=%d with an interval %.3g wide (asked %.3g)",
                                config.max_games, widest, config.precision)
                break
            # Width shrinks as 1/sqrt(games): aim a little past the estimate.
            need = math.ceil(played * (widest / config.precision) ** 2 * 1.1)
            target = min(config.max_games, max(need, played + 1))
            log.info("interval %.3g wide after %d games: playing up to game %d", widest, played, target)
    wall = time.perf_counter() - start
    record = provenance(config, wall, played, rounds_of(frame), frame.height)
    if experiment.row_facts is not None:
        record.update(experiment.row_facts(frame))
    if experiment.measure is not None:
        record["measured"] = experiment.measure(config)
    results = Results(experiment.name, experiment.title, config, findings, experiment.conclusions(findings, config),
                      frame, record, None if out is None else Path(out))
    if out is not None:
        write_summary(results, Path(out))
    return results


def reanalyse(experiment: Experiment, folder: Path | str) -> Results:
    """The results of an earlier run, analysed again from its stored rows and config.

    For a change of analysis or wording: the rows of ``folder`` (written by
    :func:`run_experiment`) are read back, ``analyse`` and ``conclusions``
    run anew, and ``summary.json`` is rewritten; the provenance of the run
    that played the games is kept.
    """
    folder = Path(folder)
    summary = read_summary(folder)
    config = experiment.config_type.from_dict(summary["config"])
    frame = _rows(experiment, config, folder / DATA, int(summary["provenance"]["games"])).collect().rechunk()
    if experiment.order:
        frame = frame.sort(*experiment.order, maintain_order=True)
    findings = experiment.analyse(frame, config)
    results = Results(experiment.name, experiment.title, config, findings,
                      experiment.conclusions(findings, config), frame, summary["provenance"], folder)
    write_summary(results, folder)
    return results


def write_summary(results: Results, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / SUMMARY
    path.write_text(json.dumps(results.summary(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def read_summary(folder: Path | str) -> dict[str, Any]:
    """``summary.json`` of an experiment folder."""
    return json.loads((Path(folder) / SUMMARY).read_text(encoding="utf-8"))
