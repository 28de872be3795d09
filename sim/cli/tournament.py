"""``rami tournament``, ``rami compare`` and ``rami tune``: rank strategies, test one against
another sequentially, and tune a strategy's parameters under a confirmation guard.

Every value is checked before a folder is made or a game is played: ranges on the options
themselves (click reports them naming the option as typed), the rest here as a
:class:`~sim.cli.common.BadValue` naming its option (exit 2).
"""

from __future__ import annotations

import json
import math
import os
import re
import signal
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from sim import rules
from sim.cli.cluster import on_cluster
from sim.cli.common import (
    BadValue, emit_json, json_option, main, ruleset_from, ruleset_option, seat_strategies, seed_option, set_option,
)

MIN_FIRST_LOOK = 100
"""The sequential test's first look (experiments.sequential.MIN_FIRST_LOOK, checked equal in the tests):
--max-games below it could never decide."""

workers_option = click.option("--workers", type=click.IntRange(min=1), default=os.cpu_count() or 1,
                              show_default="all cores",
                              help="Threads running the engine (results do not depend on it).")


def _finite(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    if value is not None and not math.isfinite(value):
        raise click.BadParameter(f"{value} is not a finite number", ctx=ctx, param=param)
    return value


def _folder(value: str | None, option: str) -> Path | None:
    if value is None:
        return None
    if not value.strip():
        raise BadValue(f"{option} is empty: give a folder name")
    return Path(value)


def _strategies(text: str, what: str) -> list[str]:
    """``seat_strategies`` with the error naming ``what`` (an argument or option) instead of --strategies."""
    try:
        return seat_strategies(text)
    except click.ClickException as exc:
        raise BadValue(exc.format_message().replace("--strategies", what, 1)) from None


@contextmanager
def _quiet_libraries() -> Iterator[None]:
    """Library warnings (an optimizer's experimental notes, a fit's convergence notes) are not for the user."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _bar(quiet: bool, unit: str = "game"):
    from tqdm import tqdm

    return tqdm(total=1, unit=unit, disable=quiet, leave=False, dynamic_ncols=True)


# ------------------------------------------------------------------ tournament
@main.command("tournament")
@click.argument("strategy_list", metavar="STRATEGIES")
@ruleset_option
@set_option
@click.option("--players", type=click.IntRange(rules.MIN_PLAYERS, rules.MAX_PLAYERS), default=None,
              help="Seats per table (default: all strategies, at most 4).")
@click.option("--games", type=click.IntRange(min=2), default=1000, show_default=True,
              help="Games in all, shared among the tables; each is played once per rotation.")
@seed_option
@click.option("--resamples", type=click.IntRange(min=50), default=300, show_default=True,
              help="Bootstrap resamples per interval.")
@click.option("--out", default=None, metavar="FOLDER",
              help="Write the games (results datasets, one per table and rotation), the report page (index.html, "
                   "index.md, heat map) and ranking.csv here; running the same command again resumes it.")
@workers_option
@click.option("--quiet", is_flag=True, help="No progress bar.")
@json_option
@on_cluster
def tournament_command(strategy_list, ruleset, overrides, players, games, seed, resamples, out, workers, quiet,
                       as_json) -> None:
    """Rank STRATEGIES (comma separated) on duplicate deals, with 95% intervals and ratings.

    Example: rami tournament random,greedy,cautious,expert --rules contrat
    """
    from experiments import tournament as tournament_lib

    import strategies

    r = ruleset_from(ruleset, overrides)
    chosen = [strategies.get(s) for s in _strategies(strategy_list, "STRATEGIES")]
    folder = _folder(out, "--out")
    try:
        tournament_lib.check(chosen, r, players, games, resamples)
    except ValueError as exc:
        message = _option_words(str(exc))
        raise BadValue(message if message.startswith("--") else f"STRATEGIES {strategy_list!r}: {message}") from None
    bars: list = []

    def update(done: int, total: int) -> None:
        # The bar starts with the first game, once the output folder has passed its checks.
        if not bars:
            bars.append(_bar(quiet))
        bar = bars[0]
        if bar.total != total:
            bar.reset(total=total)
        bar.update(done - bar.n)

    try:
        with _quiet_libraries():
            result = tournament_lib.tournament(chosen, r, players, games, seed, workers=workers, resamples=resamples,
                                               progress=update, out=folder)
    except ValueError as exc:  # an output folder that cannot be used: found before any game
        raise click.ClickException(str(exc)) from None
    finally:
        for bar in bars:
            bar.close()
    result.command = " ".join(["rami", "tournament", strategy_list, "--rules", ruleset,
                               *[f"--set {o}" for o in overrides], "--players", str(result.ruleset.players),
                               "--games", str(games), "--seed", str(seed)])
    if folder is not None:
        with _quiet_libraries():
            page = result.write_report(folder)
        result.table().write_csv(folder / "ranking.csv")
    if as_json:
        emit_json({"ruleset": result.ruleset.to_dict(), "games": result.games, "seed": seed,
                   "tables": [list(t) for t in result.tables], "better": result.better,
                   "interval": "95% percentile bootstrap; the game (with all its rotations) is the resampling unit",
                   "standings": result.table().to_dicts(),
                   "pairwise": [{"a": a, "b": b, "difference": e.estimate, "low": e.low, "high": e.high,
                                 "games": e.clusters} for (a, b), e in result.pairwise.items()],
                   "out": str(folder) if folder is not None else None})
        return
    click.echo(str(result))
    if folder is not None:
        click.echo(f"report: {page.resolve()}")


def _option_words(message: str) -> str:
    """A library message in the shell's words: Python argument names become the options."""
    for word, option in (("max_games", "--max-games"), ("confirm_games", "--confirm-games"), ("players", "--players"),
                         ("games", "--games"), ("resamples", "--resamples"), ("batch", "--batch"),
                         ("alpha", "--alpha"), ("beta", "--beta"), ("trials", "--trials"), ("top", "--top"),
                         ("improvement", "--improvement"), ("indifference", "--indifference")):
        message = re.sub(rf"(?<![\w-]){word}(?= must)", option, message)
    message = message.replace("with objective wins", "with --objective wins")
    message = message.replace("give players=", "give --players ")
    return message.replace(" (dataclasses.replace(strategy, name=...))", "")


# --------------------------------------------------------------------- compare
@main.command("compare")
@click.argument("a")
@click.argument("b")
@ruleset_option
@set_option
@click.option("--field", default="greedy,greedy,greedy", show_default=True,
              help="The other seats of the table, comma separated.")
@click.option("--objective", type=click.Choice(["points", "wins"]), default="points", show_default=True,
              help="Gain in points per round, or in share of games won.")
@click.option("--indifference", type=float, default=0.0, show_default=True, callback=_finite,
              help="H0: the gain of A over B is at most this (points per round, or a share with --objective wins).")
@click.option("--improvement", type=float, default=None, callback=_finite,
              help="H1: the gain is at least this  [default: 1 point per round, or 0.02 with --objective wins]")
@click.option("--alpha", type=click.FloatRange(0, 0.5, min_open=True, max_open=True), default=0.05,
              show_default=True, callback=_finite, help="Chance of calling A better under H0.")
@click.option("--beta", type=click.FloatRange(0, 0.5, min_open=True, max_open=True), default=0.05,
              show_default=True, callback=_finite, help="Chance of missing a gain of --improvement.")
@click.option("--batch", type=click.IntRange(min=1), default=200, show_default=True,
              help="Games between two looks (the first look waits for 100 games).")
@click.option("--max-games", type=click.IntRange(min=MIN_FIRST_LOOK), default=20_000, show_default=True,
              help="Stop undecided here.")
@seed_option
@click.option("--out", default=None, metavar="FOLDER",
              help="Write each arm's games (results datasets a/ and b/) as they are played, then the looks "
                   "(looks.csv), each game's gain (gains.csv) and the result (comparison.json), in this new or empty "
                   "folder; the same comparison run again into it plays only the games not there yet (a killed run "
                   "resumes, a larger --max-games plays on).")
@workers_option
@click.option("--quiet", is_flag=True, help="No progress line.")
@json_option
@on_cluster
def compare_command(a, b, ruleset, overrides, field, objective, indifference, improvement, alpha, beta, batch,
                    max_games, seed, out, workers, quiet, as_json) -> None:
    """Sequential test: does strategy A score better than B against the same field on the same deals?

    Example: rami compare expert greedy --rules contrat --improvement 2
    """
    from experiments import sequential
    from experiments.tournament import identity

    import strategies

    r = ruleset_from(ruleset, overrides)
    sa, sb = (strategies.get(s) for s in (_strategies(a, "A")[0], _strategies(b, "B")[0]))
    others = _strategies(field, "--field")
    if improvement is None:
        improvement = 1.0 if objective == "points" else 0.02
    if improvement <= indifference:
        raise BadValue(f"--improvement {improvement:g} must exceed --indifference {indifference:g}")
    if objective == "wins" and improvement >= 1:
        raise BadValue(f"--improvement {improvement:g} must be below 1 with --objective wins (a share of games won)")
    try:
        table = r if r.players == len(others) + 1 else r.replace(players=len(others) + 1)
    except ValueError as exc:
        raise BadValue(f"--field names {len(others)} other seats: {exc}") from None
    if identity(sa, table.game) == identity(sb, table.game):
        raise BadValue(f"A and B ({a!r}, {b!r}) play exactly alike in {table.game}: compare two strategies that differ")
    folder = _folder(out, "--out")

    def update(games: int, llr: float) -> None:
        if not quiet:
            click.echo(f"  {games:>7,} games: log likelihood ratio {llr:+.2f}", err=True)

    with _quiet_libraries():
        try:
            result = sequential.compare(sa, sb, table, others, indifference, improvement, alpha, beta, batch,
                                        max_games, seed, workers=workers, progress=update, objective=objective,
                                        out=folder)
        except ValueError as exc:  # an output folder that cannot be used: found before any game
            raise click.ClickException(str(exc)) from None
    if folder is not None:
        result.write(folder)
    if as_json:
        emit_json({**result.to_dict(), "out": str(folder) if folder is not None else None})
    else:
        click.echo(str(result))


# ------------------------------------------------------------------------ tune
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def _strategy_name(ctx: click.Context, param: click.Parameter, value: str) -> str:
    if not _NAME.fullmatch(value) or ".." in value:
        raise click.BadParameter(f"{value!r}: a name is letters, digits, '.', '_' and '-', starting with a letter "
                                 "or digit (it names the strategy and its file)", ctx=ctx, param=param)
    return value


@main.command("tune")
@click.argument("start")
@click.option("--param", "params", multiple=True, required=True, metavar="NAME=LOW:HIGH",
              help="A parameter range to search, e.g. --param near_weight=0:10 (repeatable, once per parameter; "
                   "whole-number bounds for choice parameters).")
@click.option("--rules", "ruleset", default="rami51", show_default=True, help="Preset or ruleset TOML file.")
@click.option("--field", default="greedy,greedy,greedy", show_default=True,
              help="The other seats of the table, comma separated.")
@click.option("--objective", type=click.Choice(["points", "wins"]), default="points", show_default=True,
              help="Points per round, or share of games won, against the field.")
@click.option("--trials", type=click.IntRange(min=1), default=30, show_default=True,
              help="The search's budget of evaluations.")
@click.option("--games", type=click.IntRange(min=2), default=300, show_default=True, help="Games per evaluation.")
@click.option("--top", type=click.IntRange(min=1), default=3, show_default=True,
              help="Best candidates re-evaluated on fresh deals.")
@click.option("--confirm-games", type=click.IntRange(min=2), default=600, show_default=True,
              help="Games of each re-evaluation.")
@click.option("--improvement", type=float, default=None, callback=_finite,
              help="The confirmation's improvement bound  [default: 1 point per round, or 0.02 with --objective "
                   "wins]")
@click.option("--max-games", type=click.IntRange(min=MIN_FIRST_LOOK), default=8000, show_default=True,
              help="The confirmation stops undecided here.")
@seed_option
@click.option("--name", default="tuned", show_default=True, callback=_strategy_name,
              help="Name of the tuned strategy (and its file).")
@click.option("--out", default=None, metavar="FOLDER",
              help="Folder of the report, trials.csv and the strategy file  [default: results/tune/NAME]")
@click.option("--study", default=None, metavar="FILE",
              help="SQLite file of the search; an interrupted tune resumes from it  [default: OUT/study.db]")
@workers_option
@click.option("--quiet", is_flag=True, help="No progress lines.")
@json_option
@on_cluster
def tune_command(start, params, ruleset, field, objective, trials, games, top, confirm_games, improvement, max_games,
                 seed, name, out, study, workers, quiet, as_json) -> None:
    """Tune parameters of strategy START against a field; the winner must pass a sequential test.

    Example: rami tune expert --rules basic --param near_weight=0:8 --param feed_weight=0:8 --trials 20
    """
    from experiments import tuning

    ruleset_from(ruleset, ())
    _strategies(start, "START")
    others = tuple(_strategies(field, "--field"))
    try:
        space = tuning.parse_space(params)
    except ValueError as exc:
        raise BadValue(f"--param: {exc}") from None
    folder = _folder(out, "--out") or Path("results") / "tune" / name
    study_file = _folder(study, "--study") or folder / tuning.STUDY_FILE
    try:
        config = tuning.TuneConfig(start=start, space=space, ruleset=ruleset, field=others, objective=objective,
                                   trials=trials, games=games, top=top, confirm_games=confirm_games,
                                   improvement=improvement, max_games=max_games, seed=seed, name=name)
    except ValueError as exc:
        raise BadValue(_option_words(str(exc))) from None
    try:
        tuning.check_start(config)
    except ValueError as exc:
        raise BadValue(f"START {start!r} with --param: {exc}") from None
    try:
        tuning.check_study(study_file, config.name, config.key())
    except ValueError as exc:
        raise BadValue(f"--study: {exc}") from None
    _claim_tune_folder(folder, config.key())
    stop: list[bool] = []

    def say(line: str) -> None:
        # A Ctrl-C that landed in a library's clean-up (which swallows it) still stops the tune here.
        if stop:
            raise KeyboardInterrupt
        if not quiet:
            click.echo(line, err=True)

    def interrupt(signum, frame) -> None:
        stop.append(True)
        raise KeyboardInterrupt

    def unraisable(info) -> None:
        if not isinstance(info.exc_value, KeyboardInterrupt):
            hook(info)

    previous, hook = signal.signal(signal.SIGINT, interrupt), sys.unraisablehook
    sys.unraisablehook = unraisable
    try:
        with _quiet_libraries():
            result = tuning.tune(config, study_file, folder, workers=workers, progress=say)
    finally:
        signal.signal(signal.SIGINT, previous)
        sys.unraisablehook = hook
    if as_json:
        conf = result.confirmation
        emit_json({"config": json.loads(config.key()), "name": name, "trials": result.trials_table.to_dicts(),
                   "candidates": [{"params": c.params, "believed": c.believed,
                                   "reevaluated": {"estimate": c.reevaluated.estimate, "low": c.reevaluated.low,
                                                   "high": c.reevaluated.high, "unit": result.unit(),
                                                   "resampling_unit": "game"}}
                                  for c in result.candidates],
                   "confirmation": conf.to_dict() if conf is not None else None, "confirmed": result.confirmed,
                   "file": str(result.file) if result.file else None, "out": str(folder)})
        return
    click.echo(str(result))
    click.echo(f"report: {(folder / 'index.html').resolve()}")


def _claim_tune_folder(folder: Path, key: str) -> None:
    """A tune writes into a new or empty folder, or one a tune of the same search began (to resume)."""
    marker = folder / "tune.json"
    if folder.exists() and not folder.is_dir():
        raise click.ClickException(f"{folder} is a file; --out is a folder")
    if marker.is_file():
        try:
            there = json.loads(marker.read_text("utf-8")).get("search")
        except (ValueError, AttributeError):
            there = None
        if there != key:
            raise click.ClickException(f"{folder} holds a tune with other search settings; give another --out")
        return
    if folder.is_dir() and any(folder.iterdir()):
        raise click.ClickException(f"{folder} is not empty and holds no tune; give a new or empty --out")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        marker.write_text(json.dumps({"search": key}), "utf-8")
    except OSError as exc:
        raise click.ClickException(f"cannot write to {folder}: {exc.strerror or exc}") from None
