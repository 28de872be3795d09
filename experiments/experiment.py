"""The typed :class:`Experiment` each experiment module declares, and the checks of a config against it.

An experiment module (one per question, see :mod:`experiments`) declares
its question, its :class:`~experiments.configs.Config` subclass and the
config changes of its quick edition (``QUICK``), and the functions of its
analysis: ``analyse(frame, config) -> list[Finding]``,
``conclusions(findings, config) -> list[str]``,
``figures(frame, findings, config) -> dict[str, Figure]``. It gathers them
in one typed object, its ``EXPERIMENT`` (an :class:`Experiment`, usually made
by :func:`experiment_from`), with what it plays: its *parts*, each a results
dataset (:func:`experiments.parts.arm_parts` for arms on common deals). The
runner (:mod:`experiments.runner`) does the rest.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from experiments.configs import Config
from experiments.findings import Finding, Results
from experiments.parts import ArmPart, Part
from experiments.runner import run_experiment
from sim.checks import is_whole

__all__ = ["Block", "Experiment", "experiment_from"]


Block = tuple
"""One block of a report page: ``("h1", text)``, ``("h2", text)``, ``("p", text)``, ``("ul", [text])``,
``("table", header, rows)``, ``("fig", name, caption)`` or ``("pre", text)`` (see :mod:`experiments.report`)."""


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
        (:func:`experiments.parts.arm_parts` for arms on common deals; the
        fork experiments' positions, :mod:`experiments.forks`).
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

    def check_config(self, config: Config) -> None:
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

        if config.precision is not None and not self.sequential:
            raise ValueError(f"{self.name} has no sequential mode: leave precision unset")
        for part in self.parts(config):
            for ruleset, seats, condition in _tables(part, config):
                r, chosen = resolve(ruleset, seats)
                check_information(chosen)
                if condition is not None:
                    conditions.Condition(condition).check(r)
            own_checks = getattr(part, "check", None)  # a part with checks of its own (a strength ladder's players)
            if own_checks is not None:
                own_checks()


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
