"""Experiment designs: typed configs, arms on common deals, duplicate deals,
the sequential mode, findings, and what an experiment writes.

An experiment module (one per question, see :mod:`experiments`) declares

* ``TITLE``: its question; ``Config``: a subclass of :class:`Config`;
  ``QUICK``: the config changes of the quick edition;
* ``arms(config) -> list[Arm]``: what is played;
* ``analyse(frame, config) -> list[Finding]``: the estimates, from the
  frame of every arm's rows (:func:`play_arm` adds ``arm`` and ``rotation``);
* ``conclusions(findings, config) -> list[str]``: plain sentences;
* ``figures(frame, findings, config) -> dict[str, Figure]``;

and :func:`run_experiment` does the rest: plays, grows the study in the
sequential mode, writes the dataset and ``summary.json``.

Common random numbers
---------------------
Every arm of an experiment is played with the same seed over the same game
indices. The deck of round ``r`` of game ``g`` is shuffled by a stream of
``(seed, g, r)`` alone and the first player of round ``r`` is seat
``r mod players``, so two arms deal exactly the same hands, first discard and
stock order in every round both play. What the play changes is what follows:
which stock card each seat draws once someone takes from the pile, the
reshuffled stock, and in games played to a target score how many rounds a
game lasts (an arm whose game ends sooner plays fewer of the shared deals).
Per-seat policy randomness (the ``random`` strategy) has its own stream per
round and seat, so it too is shared by seat.

Duplicate deals
---------------
An arm that compares strategies at one table (``duplicate=True``) plays every
game once per rotation of its strategy list through the seats: in rotation
``k`` seat ``s`` plays strategy ``(s - k) mod players``. Each strategy thus
plays every seat's cards of every deal, and a game with all its rotations is
one unit of resampling: the luck of the cards cancels inside it.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import time
import tomllib
import types
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

import sim
from experiments.stats import Estimate
from sim import provenance as provenance_lib
from sim import rules

__all__ = [
    "Arm",
    "Config",
    "Finding",
    "Results",
    "load_dataset",
    "play_arm",
    "play_arms",
    "provenance",
    "reanalyse",
    "run_experiment",
    "save_dataset",
]

log = logging.getLogger(__name__)

DATASET = "rounds.parquet"
SUMMARY = "summary.json"


# ------------------------------------------------------------------ config


@dataclass(frozen=True)
class Config:
    """What every experiment's config holds; subclasses add their own fields.

    Attributes
    ----------
    games : int
        Games per arm (a duplicate arm plays each of them once per rotation);
        in the sequential mode, the games of the first step.
    seed : int
        The simulation seed shared by every arm (common random numbers).
    precision : float or None
        Sequential mode: add games until every headline interval is narrower
        than this, in the finding's own unit (points per round; shares as
        fractions, so 0.02 is two percentage points).
    max_games : int
        The sequential mode stops here even when an interval is still wider.
    resamples : int
        Bootstrap resamples per interval.
    workers : int or None
        Engine threads (default every core); results do not depend on it.
    """

    games: int = 2000
    seed: int = 1
    precision: float | None = None
    max_games: int = 200_000
    resamples: int = 1000
    workers: int | None = None

    def __post_init__(self) -> None:
        checks = [
            ("games", self.games >= 2, "at least 2 (an interval needs two games)"),
            ("seed", 0 <= self.seed < 2**64, "from 0 to 2**64 - 1"),
            ("precision", self.precision is None or self.precision > 0, "a positive width"),
            ("max_games", self.max_games >= 2, "at least 2"),
            ("resamples", self.resamples >= 50, "at least 50"),
            ("workers", self.workers is None or self.workers >= 1, "at least 1"),
        ]
        for key, ok, allowed in checks:
            if not ok:
                raise ValueError(f"config key {key!r} must be {allowed}, got {getattr(self, key)!r}")

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> Config:
        """A config from a mapping; an unknown key or a value of the wrong type raises ``ValueError``."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(
                f"unknown config key {unknown[0]!r} for {cls.__module__.rsplit('.', 1)[-1]}; "
                f"the keys are: {', '.join(sorted(known))}"
            )
        hints = typing.get_type_hints(cls)
        return cls(**{k: _coerce(k, v, hints[k]) for k, v in values.items()})

    def replace(self, **changes: Any) -> Config:
        """A copy with some keys changed (checked as in :meth:`from_dict`)."""
        return type(self).from_dict({**self.to_dict(), **changes})

    def with_settings(self, items: Sequence[str]) -> Config:
        """A copy with ``key=value`` strings applied (values read as TOML; lists as ``2,3,4``)."""
        changes: dict[str, Any] = {}
        for item in items:
            if "=" not in item:
                raise ValueError(f"{item!r}: expected key=value")
            key, text = (part.strip() for part in item.split("=", 1))
            changes[key] = _read_value(text)
        return self.replace(**changes)

    def to_dict(self) -> dict[str, Any]:
        """Plain values (tuples as lists), as stored in ``summary.json``."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(self).items()}


def _read_value(text: str) -> Any:
    if "," in text and not text.startswith("["):
        return [_read_value(part.strip()) for part in text.split(",")]
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text  # a bare word


def _coerce(key: str, value: Any, hint: Any) -> Any:
    """``value`` as the field's type, or a ``ValueError`` naming the key and the type."""
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        hint = next(a for a in args if a is not type(None))
        args = typing.get_args(hint)
    if typing.get_origin(hint) is tuple:
        items = value if isinstance(value, (list, tuple)) else [value]
        return tuple(_coerce(key, item, args[0]) for item in items)
    if hint is float and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if hint is int and isinstance(value, float) and value == int(value):
        return int(value)
    if not isinstance(value, hint) or (hint is int and isinstance(value, bool)):
        kinds = {int: "a whole number", float: "a number", str: "a word", bool: "true or false"}
        raise ValueError(f"config key {key!r} takes {kinds.get(hint, hint)}, got {value!r}")
    return value


# -------------------------------------------------------------------- arms


@dataclass(frozen=True)
class Arm:
    """One way of playing the experiment's games.

    Attributes
    ----------
    name : str
        The arm's label in findings and reports.
    ruleset : Ruleset or str
        The rules; ``players`` follows the number of strategies.
    strategies : tuple of str
        One strategy per seat (rotation 0).
    duplicate : bool
        Play each game once per rotation of the strategies through the seats.
    """

    name: str
    ruleset: rules.Ruleset | str
    strategies: tuple[str, ...]
    duplicate: bool = False

    @property
    def rotations(self) -> int:
        return len(self.strategies) if self.duplicate else 1


def play_arm(
    arm: Arm,
    seed: int,
    first_game: int,
    n_games: int,
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> pl.DataFrame:
    """Rows of games ``first_game .. first_game + n_games - 1`` of ``arm``.

    Returns
    -------
    polars.DataFrame
        :data:`sim.RESULT_COLUMNS` plus ``arm`` (str) and ``rotation``
        (int8); ``strategy_index`` is the position in ``arm.strategies``
        whatever the rotation, ``game`` the shared game index. A progress
        callback receives finished games of each rotation.
    """
    n = len(arm.strategies)
    frames = []
    alike = len(set(arm.strategies)) == 1
    for k in range(arm.rotations):
        seated = [arm.strategies[(s - k) % n] for s in range(n)]
        if alike and frames:
            # Every rotation of one strategy plays the same game: relabel it.
            df = frames[0].drop("arm", "rotation")
            if progress:
                progress(n_games)
        else:
            df = sim.simulate(arm.ruleset, seated, n_games=n_games, seed=seed, workers=workers, progress=progress,
                              first_game=first_game)
        frames.append(df.with_columns(
            ((pl.col("seat") - k) % n).cast(pl.Int16).alias("strategy_index"),
            pl.lit(arm.name).alias("arm"),
            pl.lit(k, dtype=pl.Int8).alias("rotation"),
        ))
    # Category lists differ between rotations' frames; strings stack.
    return pl.concat([f.with_columns(pl.col(pl.Categorical).cast(pl.String)) for f in frames])


def play_arms(
    arms: Sequence[Arm],
    seed: int,
    first_game: int,
    n_games: int,
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> pl.DataFrame:
    """Every arm over the same game range (common random numbers), stacked."""
    names = [a.name for a in arms]
    if len(set(names)) != len(names):
        raise ValueError(f"arm names must differ, got {names}")
    return pl.concat([play_arm(a, seed, first_game, n_games, workers, progress) for a in arms])


def games_to_play(arms: Sequence[Arm], n_games: int) -> int:
    """Games the engine plays for ``n_games`` per arm (rotations included), for progress bars."""
    return n_games * sum(a.rotations for a in arms)


# ---------------------------------------------------------------- findings


@dataclass(frozen=True)
class Finding:
    """One estimate of an experiment, as ``summary.json`` lists it.

    Attributes
    ----------
    metric : str
        What is measured, in words ("points per round").
    arms : tuple of str
        One arm (a level) or two (the difference first minus second).
    estimate : Estimate
        The estimate and its 95% intervals, with the resampling unit.
    games, rounds : int
        Games (clusters) and rounds (deals, over every arm and rotation
        involved) behind it.
    group : str
        The slice it belongs to ("4 players"), or "".
    headline : bool
        The sequential mode waits for this interval to reach the precision.
    better : str
        "lower", "higher" or "" when neither way is better, for the wording.
    """

    metric: str
    arms: tuple[str, ...]
    estimate: Estimate
    games: int
    rounds: int
    group: str = ""
    headline: bool = False
    better: str = ""

    def to_dict(self) -> dict[str, Any]:
        e = self.estimate
        return {
            "metric": self.metric, "arms": list(self.arms), "group": self.group,
            "estimate": e.estimate, "low": e.low, "high": e.high,
            "normal_low": e.normal_low, "normal_high": e.normal_high,
            "unit": e.unit, "clusters": e.clusters, "games": self.games, "rounds": self.rounds,
            "variance_ratio": None if math.isnan(e.variance_ratio) else e.variance_ratio,
            "headline": self.headline, "better": self.better,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Finding:
        vr = d.get("variance_ratio")
        e = Estimate(d["estimate"], d["low"], d["high"], d["normal_low"], d["normal_high"], d["clusters"],
                     d["unit"], math.nan if vr is None else vr)
        return cls(d["metric"], tuple(d["arms"]), e, d["games"], d["rounds"], d["group"], d["headline"],
                   d["better"])


@dataclass
class Results:
    """What :func:`run_experiment` returns and writes.

    ``frame`` holds every row played (``arm``, ``rotation`` and the result
    columns); ``provenance`` the versions, sizes and wall time.
    """

    name: str
    title: str
    config: Config
    findings: list[Finding]
    conclusions: list[str]
    frame: pl.DataFrame
    provenance: dict[str, Any] = field(default_factory=dict)
    out: Path | None = None

    def summary(self) -> dict[str, Any]:
        return {
            "experiment": self.name, "question": self.title, "config": self.config.to_dict(),
            "conclusions": self.conclusions, "findings": [f.to_dict() for f in self.findings],
            "provenance": self.provenance,
        }


def rounds_of(frame: pl.DataFrame) -> int:
    """Rounds (deals) in ``frame``, counting each arm and rotation."""
    return frame.select("arm", "rotation", "game", "round").unique().height


# ---------------------------------------------------------------- storage


def save_dataset(frame: pl.DataFrame, folder: Path) -> Path:
    """Write an experiment's rows under ``folder`` and return the path.

    The one place an experiment's data reaches the disk, so a change of
    storage (a partitioned dataset with provenance) is one edit here and in
    :func:`load_dataset`.
    """
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / DATASET
    tmp = path.with_suffix(".tmp")
    frame.write_parquet(tmp)
    tmp.replace(path)
    return path


def load_dataset(folder: Path | str) -> pl.LazyFrame:
    """The rows :func:`save_dataset` wrote in ``folder``, as a lazy frame."""
    return pl.scan_parquet(Path(folder) / DATASET)


def _provenance(config: Config, wall: float, frame: pl.DataFrame) -> dict[str, Any]:
    return provenance(config, wall, int(frame["game"].n_unique()), rounds_of(frame), frame.height)


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


# ------------------------------------------------------------------ running


def run_experiment(
    module: types.ModuleType,
    config: Config,
    out: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Results:
    """Play ``module``'s arms under ``config``, analyse, write, return.

    Parameters
    ----------
    module : module
        An experiment module (see this module's docstring).
    config : Config
        Its config. With ``precision`` set, the sequential mode plays
        ``games`` first, then adds the next game indices (never replaying
        earlier ones) until every headline finding's interval is narrower
        than ``precision`` or ``max_games`` is reached.
    out : Path, optional
        Folder for the dataset and ``summary.json``; nothing is written without it.
    progress : callable, optional
        ``progress(done, total)`` in engine games, after each batch.
    """
    if not isinstance(config, module.Config):
        raise TypeError(f"{module.__name__} takes a {module.Config.__name__}, got {type(config).__name__}")
    arms = module.arms(config)
    start = time.perf_counter()
    frames: list[pl.DataFrame] = []
    played, target = 0, config.games
    done = 0
    while True:
        total = done + games_to_play(arms, target - played)

        def tick(k: int) -> None:
            nonlocal done
            done += k
            if progress:
                progress(done, total)

        frames.append(play_arms(arms, config.seed, played, target - played, config.workers, tick))
        played = target
        frame = pl.concat(frames) if len(frames) > 1 else frames[0]
        findings = module.analyse(frame, config)
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
    frame = frame.sort("arm", "rotation", "game", "round", "seat", maintain_order=True)
    results = Results(module.__name__.rsplit(".", 1)[-1], module.TITLE, config, findings,
                      module.conclusions(findings, config), frame, _provenance(config, wall, frame), out)
    if out is not None:
        save_dataset(frame, Path(out) / "data")
        write_summary(results, Path(out))
    return results


def reanalyse(module: types.ModuleType, folder: Path | str) -> Results:
    """The results of an earlier run, analysed again from its stored rows and config.

    For a change of analysis or wording: the rows of ``folder`` (written by
    :func:`run_experiment`) are read back, ``analyse`` and ``conclusions``
    run anew, and ``summary.json`` is rewritten; the provenance of the run
    that played the games is kept.
    """
    folder = Path(folder)
    summary = read_summary(folder)
    config = module.Config.from_dict(summary["config"])
    frame = load_dataset(folder / "data").collect()
    findings = module.analyse(frame, config)
    results = Results(module.__name__.rsplit(".", 1)[-1], module.TITLE, config, findings,
                      module.conclusions(findings, config), frame, summary["provenance"], folder)
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


def rng_for(config: Config, salt: int) -> np.random.Generator:
    """The bootstrap's random state for one finding: explicit, and the same on every run of ``config``."""
    return np.random.default_rng([config.seed, salt])
