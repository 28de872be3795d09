"""Experiment designs: typed configs, arms on common deals, duplicate deals,
the sequential mode, findings, and the runner that plays and writes them.

An experiment module (one per question, see :mod:`experiments`) declares
its question, its :class:`Config` subclass and the config changes of its
quick edition (``QUICK``), and the functions of its analysis: ``analyse(frame,
config) -> list[Finding]``, ``conclusions(findings, config) -> list[str]``,
``figures(frame, findings, config) -> dict[str, Figure]``. It gathers them
in one typed object, its ``EXPERIMENT`` (an :class:`Experiment`, usually made
by :func:`experiment_from`), with what it plays: its *parts*, each a results
dataset (:func:`arm_parts` for arms on common deals). The runner
(:func:`run_experiment`) does the rest: plays every part into the run's
folder through the results store (:mod:`sim.store`: batch by batch, so a run
stopped at any moment resumes where it was), grows the study in the
sequential mode, analyses, and writes ``summary.json``.

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

import contextlib
import dataclasses
import json
import logging
import math
import os
import tempfile
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
from sim import api, distributed
from sim import provenance as provenance_lib
from sim import rules
from sim.checks import SEED_MAX, is_whole, is_whole_valued

__all__ = [
    "ANALYSIS_KEYS",
    "Arm",
    "ArmPart",
    "Config",
    "Experiment",
    "Finding",
    "Part",
    "Results",
    "arm_parts",
    "claim_data",
    "data_fits",
    "experiment_from",
    "load_dataset",
    "play_arm",
    "play_arms",
    "provenance",
    "reanalyse",
    "rotated_seats",
    "rotation_columns",
    "row_config",
    "run_experiment",
]

log = logging.getLogger(__name__)

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
            ("seed", 0 <= self.seed <= SEED_MAX, "from 0 to 2**64 - 1"),
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
    if hint is int and isinstance(value, float) and is_whole_valued(value):
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
    condition : str, optional
        Deal each game's first round until this condition on the hands
        holds (``docs/deals.md``): every arm with the same seed and condition
        plays the same accepted deals.
    """

    name: str
    ruleset: rules.Ruleset | str
    strategies: tuple[str, ...]
    duplicate: bool = False
    condition: str | None = None

    @property
    def rotations(self) -> int:
        return len(self.strategies) if self.duplicate else 1


def rotated_seats(strategies: Sequence[Any], rotation: int) -> list[Any]:
    """Who sits where in rotation ``rotation``: seat ``s`` plays ``strategies[(s - rotation) mod players]``, so
    rotation 0 seats them in order and each later one moves every strategy one seat on. Every room that
    rotates a table (the arms, the tournament, the ladder) seats it here, and labels its rows with
    :func:`rotation_columns`."""
    n = len(strategies)
    return [strategies[(s - rotation) % n] for s in range(n)]


def rotation_columns(rotation: int, players: int, arm: str) -> list[pl.Expr]:
    """The columns that label the rows of rotation ``rotation`` (:func:`rotated_seats`): ``strategy_index``,
    the position of the row's strategy in the arm's list whatever the rotation, then ``arm`` and ``rotation``."""
    return [((pl.col("seat") - rotation) % players).cast(pl.Int16).alias("strategy_index"),
            pl.lit(arm).alias("arm"), pl.lit(rotation, dtype=pl.Int8).alias("rotation")]


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
        seated = rotated_seats(arm.strategies, k)
        if alike and frames:
            # Every rotation of one strategy plays the same game: relabel it.
            df = frames[0].drop("arm", "rotation")
            if progress:
                progress(n_games)
        else:
            df = sim.simulate(arm.ruleset, seated, n_games=n_games, seed=seed, workers=workers, progress=progress,
                              first_game=first_game)
        frames.append(df.with_columns(*rotation_columns(k, n, arm.name)))
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


def rounds_by_arm(frame: pl.DataFrame) -> dict[str, int]:
    """:func:`rounds_of` each arm's rows, for every arm of ``frame`` at once (the rounds of several arms add
    up: no round belongs to two)."""
    counts = frame.select("arm", "rotation", "game", "round").unique().group_by("arm").len()
    return dict(zip(counts["arm"].to_list(), counts["len"].to_list()))


# ------------------------------------------------------------ what is played


class Part(typing.Protocol):
    """One results dataset of an experiment's run: the folder ``data/<name>`` of its output.

    The runner asks each part to play a range of games into its folder
    (through the results store, :mod:`sim.store`, so a run stopped at any
    moment keeps its finished batches and the same run plays only the
    rest), then reads every part's rows back for the analysis.
    """

    name: str

    def play(self, folder: Path, first_game: int, n_games: int, workers: int | None,
             progress: Callable[[int], None] | None) -> None:
        """Make games ``first_game .. first_game + n_games - 1`` of this part present in ``folder``."""
        ...

    def rows(self, folder: Path, n_games: int) -> pl.LazyFrame:
        """The part's rows of games ``0 .. n_games - 1``, labelled for the analysis."""
        ...


def _slug(name: str) -> str:
    """A folder name for an arm's name: ``"4 players: waits"`` is ``4-players-waits``."""
    return "-".join("".join(c if c.isalnum() else " " for c in name.lower()).split()) or "arm"


@dataclass(frozen=True)
class ArmPart:
    """One arm's games in one rotation of its strategies through the seats: a simulation's dataset.

    An arm whose seats all play one strategy plays each game once: its
    rotations would deal the very same game, so its rows are labelled once
    per rotation (``copies``) instead of played again.
    """

    arm: Arm
    rotation: int
    seed: int
    copies: int = 1

    @property
    def name(self) -> str:
        return f"{_slug(self.arm.name)}/rotation-{self.rotation}"

    @property
    def seats(self) -> list[str]:
        """The strategy of each seat in this rotation: seat ``s`` plays strategy ``(s - rotation) mod players``."""
        return rotated_seats(self.arm.strategies, self.rotation)

    def play(self, folder: Path, first_game: int, n_games: int, workers: int | None,
             progress: Callable[[int], None] | None) -> None:
        cluster = distributed.current()
        threads = cluster.threads() if cluster is not None else workers or os.cpu_count() or 1
        # Four batches a thread at least, so that a small arm keeps every thread busy; 50 games at least, so
        # that a batch file's footer and provenance stay a small part of it.
        batch = max(50, min(2000, math.ceil(n_games / (4 * threads))))
        conditioned = {} if self.arm.condition is None else {"condition": self.arm.condition}
        sim.simulate(self.arm.ruleset, self.seats, n_games=n_games, seed=self.seed, workers=threads,
                     batch_size=batch, progress=progress, first_game=first_game, out=folder,
                     command=f"experiment arm {self.arm.name!r}, rotation {self.rotation}", **conditioned)

    def rows(self, folder: Path, n_games: int) -> pl.LazyFrame:
        rounds = sim.load(folder, "rounds").filter(pl.col("game") < n_games)
        games = sim.load(folder, "games").select("game", "seat", *api.GAME_LEVEL)
        # The game-level columns live in the games table: joined back, the rows are the engine's frame.
        rows = (rounds.join(games, on=["game", "seat"], how="left", maintain_order="left")
                .select(list(sim.RESULT_COLUMNS))
                .with_columns(pl.col(pl.Categorical).cast(pl.String)))
        n = len(self.arm.strategies)
        return pl.concat([rows.with_columns(*rotation_columns(k, n, self.arm.name))
                          for k in range(self.rotation, self.rotation + self.copies)])


def arm_parts(arms: Sequence[Arm], seed: int) -> list[ArmPart]:
    """The datasets that play ``arms`` under one seed: one per arm and rotation (once for an arm of one strategy)."""
    names = [a.name for a in arms]
    if len(set(names)) != len(names):
        raise ValueError(f"arm names must differ, got {names}")
    slugs = [_slug(n) for n in names]
    if len(set(slugs)) != len(slugs):
        raise ValueError(f"arm names must differ in their letters and digits (they name folders), got {names}")
    parts = []
    for arm in arms:
        if len(set(arm.strategies)) == 1:
            parts.append(ArmPart(arm, 0, seed, copies=arm.rotations))
        else:
            parts += [ArmPart(arm, k, seed) for k in range(arm.rotations)]
    return parts


# -------------------------------------------------------------- experiment


Block = tuple
"""One block of a report page: ``("h2", text)``, ``("p", text)``, ``("table", header, rows)``... (see
:mod:`experiments.report`)."""


@dataclass(frozen=True)
class Experiment:
    """An experiment as its module declares it (its ``EXPERIMENT``): everything the runner, the report and the
    command line use, typed, in one object.

    Attributes
    ----------
    name : str
        The module's name: ``rami experiment run NAME``, the report's folder.
    title : str
        The question it answers.
    config_type : type
        Its :class:`Config` subclass.
    quick : dict
        The config changes of the quick edition.
    parts : callable
        ``parts(config) -> list[Part]``: the datasets a run plays
        (:func:`arm_parts` for arms on common deals; the fork experiments'
        positions, :mod:`experiments.forks`).
    analyse : callable
        ``analyse(frame, config) -> list[Finding]``, from every part's rows.
    conclusions : callable
        ``conclusions(findings, config) -> list[str]``: plain sentences.
    figures : callable
        ``figures(frame, findings, config) -> dict[str, Figure]``.
    about : str
        How it was measured (the module's docstring): the page's section.
    sequential : bool
        Whether ``precision`` may grow the study (arms on common deals).
    order : tuple of str
        Columns the rows are sorted by before the analysis (empty: as played).
    page_blocks : callable, optional
        ``page_blocks(runs) -> list[Block]``: the page's tables, one per question.
    claims : callable, optional
        ``claims(findings, config) -> dict[str, str]``: what the page
        concludes, in words; by default each comparison's verdict.
    edition_note : callable, optional
        ``edition_note(results, quick) -> str``: the page's opening note,
        for an experiment that is not played as arms.
    estimand : str, optional
        What a figure estimates, when not the report's default.
    notes : tuple of str
        Remarks listed under "How it was measured".
    row_facts : callable, optional
        ``row_facts(frame) -> dict``: more sizes for the provenance.
    command : callable, optional
        ``command(config) -> str``: the command that reproduces a run, for
        the page; by default ``rami experiment run NAME`` with the config's keys.
    measure : callable, optional
        ``measure(config) -> dict``: a measure of this machine taken after
        the games (the CPU time of a search), kept in the provenance under
        ``"measured"`` and never among the findings, which two seeds and the
        result hashes compare. Its figures then take it: ``figures(frame,
        findings, config, measured=...)``.
    cites : tuple of str
        Experiments whose ``summary.json`` its page reads (of the same
        edition): the report writes the page once those have run.
    compiles : tuple of str
        Groups of compiled entries its games use beyond the plain game loop
        (names of :data:`sim.ahead.WARM_UPS`: ``"searching"``,
        ``"positions"``): the report has a second process compile them while
        the experiments that need none play, and runs this one after those.
    """

    name: str
    title: str
    config_type: type[Config]
    quick: typing.Mapping[str, Any]
    parts: Callable[[Any], Sequence[Part]]
    analyse: Callable[[pl.DataFrame, Any], list[Finding]]
    conclusions: Callable[[list[Finding], Any], list[str]]
    figures: Callable[[pl.DataFrame, list[Finding], Any], dict[str, Any]]
    about: str = ""
    sequential: bool = True
    order: tuple[str, ...] = ("arm", "rotation", "game", "round", "seat")
    page_blocks: Callable[[list[Results]], list[Block]] | None = None
    claims: Callable[[list[Finding], Any], dict[str, str]] | None = None
    edition_note: Callable[[Results, bool], str] | None = None
    estimand: str | None = None
    notes: tuple[str, ...] = ()
    row_facts: Callable[[pl.DataFrame], dict[str, Any]] | None = None
    command: Callable[[Any], str] | None = None
    measure: Callable[[Any], dict[str, Any]] | None = None
    cites: tuple[str, ...] = ()
    compiles: tuple[str, ...] = ()

    def draw(self, results: Results) -> dict[str, Any]:
        """The figures of ``results`` (with the provenance's ``measured`` for an experiment that measures)."""
        if self.measure is None:
            return self.figures(results.frame, results.findings, results.config)
        return self.figures(results.frame, results.findings, results.config,  # type: ignore[call-arg]
                            measured=results.provenance.get("measured", {}))

    def config(self, quick: bool = False, **changes: Any) -> Config:
        """The default config (the quick edition's with ``quick``), with ``changes``."""
        return self.config_type().replace(**{**(dict(self.quick) if quick else {}), **changes})

    def run(self, config: Config, out: Path | str | None = None,
            progress: Callable[[int, int], None] | None = None, *, workers: int | None = None,
            scheduler: Any = None) -> Results:
        """Play, analyse, write (see :func:`run_experiment`)."""
        return run_experiment(self, config, out, progress, workers=workers, scheduler=scheduler)


def experiment_from(module: types.ModuleType, **declared: Any) -> Experiment:
    """``module``'s :class:`Experiment` from its usual names: ``TITLE``, ``Config``, ``QUICK``, ``analyse``,
    ``conclusions``, ``figures``, its docstring, and what ``declared`` adds (``parts``, ``page_blocks``...)."""
    return Experiment(name=module.__name__.rsplit(".", 1)[-1], title=module.TITLE, config_type=module.Config,
                      quick=types.MappingProxyType(dict(module.QUICK)), analyse=module.analyse,
                      conclusions=module.conclusions, figures=module.figures, about=module.__doc__ or "", **declared)


def _tables(part: Any, config: Config) -> list[tuple[Any, list[str], str | None]]:
    """``(ruleset, one strategy per seat, condition)`` of every table ``part`` would seat."""
    if isinstance(part, ArmPart):
        return [(part.arm.ruleset, part.seats, part.arm.condition)]
    inner = getattr(part, "part", None)  # a part that plays another part's games (the first ones only)
    if inner is not None:
        return _tables(inner, config)
    ruleset, players = getattr(config, "ruleset", None), getattr(config, "players", None)
    if ruleset is None or not is_whole(players):
        return []
    # A part that traces or forks games of its own: one table per strategy of its config, every seat alike.
    named = getattr(config, "strategies", None) or (getattr(config, "strategy", "greedy"),)
    return [(ruleset, [s] * players, None) for s in named]


def check_config(experiment: Experiment, config: Config) -> None:
    """Refuse, before anything is made or played, a config whose tables the chosen game refuses.

    Each key is checked alone when the config is made; this checks them
    together, as the run would meet them: every table of every part (a
    ruleset with its number of seats, each seat's strategy, a condition's
    seats) against its game, and the checks of a part that has its own
    (its ``check()``, such as a ladder's players: the framework calls the
    part, never the experiment's module). A ``ValueError`` (or
    ``TypeError``) names the knob or the strategy.
    """
    from sim import conditions
    from sim.api import check_information, resolve

    if config.precision is not None and not experiment.sequential:
        raise ValueError(f"{experiment.name} has no sequential mode: leave precision unset")
    for part in experiment.parts(config):
        for ruleset, seats, condition in _tables(part, config):
            r, chosen = resolve(ruleset, seats)
            check_information(chosen)
            if condition is not None:
                conditions.Condition(condition).check(r)
        own_checks = getattr(part, "check", None)  # a part with checks of its own (a strength ladder's players)
        if own_checks is not None:
            own_checks()


# ---------------------------------------------------------------- storage

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
    resumed; anything else is refused with what differs.
    """
    identity = _identity(experiment, config)
    file = folder / RUN
    if file.exists():
        try:
            there = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ValueError(f"{file}: damaged ({exc}); remove the folder {folder.parent} to start again") from None
        if there != json.loads(json.dumps(identity)):
            theirs, ours = {**there, **there.get("config", {})}, {**identity, **identity["config"]}
            reasons = [f"{k} {json.dumps(theirs.get(k))} there, {json.dumps(ours.get(k))} here"
                       for k in sorted(set(theirs) | set(ours)) if k != "config" and theirs.get(k) != ours.get(k)]
            raise ValueError(f"{folder.parent} holds the data of another run ({'; '.join(reasons[:4])}); choose "
                             "another output folder, or remove this one to start again")
        return
    if folder.exists() and any(folder.iterdir()):
        raise ValueError(f"{folder}: data without {RUN}, not made by this version; choose another output folder")
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{RUN}.tmp"
    tmp.write_text(json.dumps(identity, indent=2) + "\n", encoding="utf-8")
    tmp.replace(file)


def data_fits(folder: Path, experiment: Experiment, config: Config) -> bool:
    """Whether a run of ``config`` may use ``folder`` (an experiment's ``data``): new, empty, or made by the same
    identity (see :func:`claim_data`)."""
    try:
        return json.loads((folder / RUN).read_text(encoding="utf-8")) == json.loads(
            json.dumps(_identity(experiment, config)))
    except FileNotFoundError:
        return not (folder.exists() and any(folder.iterdir()))
    except (OSError, ValueError):
        return False


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


def _deals(frame: pl.DataFrame) -> int:
    """Rounds (deals) in ``frame``, counting each arm and rotation where there are several."""
    return frame.select([c for c in ("arm", "rotation", "game", "round") if c in frame.columns]).unique().height


# ------------------------------------------------------------------ running


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
    check_config(experiment, config)
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
    record = provenance(config, wall, played, _deals(frame), frame.height)
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


def rng_for(config: Config, salt: int) -> np.random.Generator:
    """The bootstrap's random state for one finding: explicit, and the same on every run of ``config``."""
    return np.random.default_rng([config.seed, salt])
