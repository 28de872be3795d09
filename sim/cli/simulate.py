"""``rami simulate``: play many games, summarise them, write the results."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import click

from sim.cli.cluster import check_scheduler
from sim.cli.common import (
    GAME_MAX,
    BadValue,
    check_out_path,
    emit,
    emit_json,
    json_option,
    main,
    parse_overrides,
    ruleset_option,
    seed_option,
    set_option,
    strategies_option,
    table_from,
)


class _LineProgress:
    """Progress for a stderr that is not a terminal (a log, a pipe): a plain line
    when a batch ends, at most every ``every`` seconds, and one for the last batch."""

    def __init__(self, total: int, every: float = 10.0) -> None:
        self.total, self.every, self.done = total, every, 0
        self.last = time.monotonic()

    def update(self, games: int) -> None:
        self.done += games
        now = time.monotonic()
        if self.done >= self.total or now - self.last >= self.every:
            self.last = now
            click.echo(f"played {self.done:,} of {self.total:,} games ({self.done / self.total:.0%})", err=True)


SUMMARY_GAMES = 20_000
"""The summary reads at most this many games of a dataset (the first ones): the
summary holds their round rows in memory (about 10 KB a game at its peak), and the
command's memory must stay bounded whatever --games. The whole dataset is for
``sim.load``."""


def _summary_rows(path: Path, first: int, n_games: int):
    """Round rows of games ``first ..`` (at most :data:`SUMMARY_GAMES`) of a dataset, with the game-level columns."""
    import polars as pl

    import sim

    last = first + min(n_games, SUMMARY_GAMES) - 1
    rows = sim.load(path, "rounds").filter(pl.col("game").is_between(first, last))
    games = sim.load(path, "games").filter(pl.col("game").is_between(first, last))
    return rows.join(games.select("game", "seat", "winner", "won", "truncated"), on=["game", "seat"],
                     maintain_order="left").select(list(sim.RESULT_COLUMNS)).collect()


def check_simulate(ruleset: str, overrides: tuple[str, ...], seat_names: str | None, out: str,
                   condition: str | None = None, seed: int = 1) -> tuple:
    """The checks of ``rami simulate`` made here before :func:`sim.simulate` checks the rest: the table,
    a name no file can have, and the condition (read, fitting the table, not too rare on its pilot).
    The dataset folder (an empty path, a file in the way, another command's dataset) is the store's
    to refuse, exit 1. Returns the ruleset, the strategies and the path."""
    r, names = table_from(ruleset, overrides, seat_names)
    path = str(check_out_path(out))
    if condition is not None:
        from sim import conditions, deals

        try:
            cond = conditions.Condition(condition)
            cond.check(r)
            deals.pilot_rate(r, cond, seed)
        except ValueError as exc:
            raise BadValue(f"--condition: {exc}") from None
    return r, names, path


@main.command("simulate")
@ruleset_option
@set_option
@strategies_option("One strategy per seat, comma separated; parameters by name as in "
                   "greedy:jokers=2,open_extra=10 (see `rami strategies`); a strategy written in Python "
                   "by module path, e.g. mypkg.mybot:Hoarder (docs/cli.md).")
@click.option("--games", "n_games", type=click.IntRange(1, GAME_MAX + 1), default=10_000, show_default=True,
              help="Games to play, 1 to 2**31 - 1.")
@seed_option
@click.option("--workers", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default="all cores",
              help="Threads running the engine (results do not depend on it).")
@click.option("--rotate", is_flag=True,
              help="Move the strategies one seat on from game to game, so seat order favours none.")
@click.option("--max-rounds", type=click.IntRange(min=1), default=None,
              help="Round cap per game; a game reaching it is marked truncated (default: the engine's cap).")
@click.option("--out", "out", default="results", show_default=True, metavar="FOLDER",
              help="Results dataset folder: one parquet file per batch and table, written as batches finish. "
                   "Running the same command again resumes it (see `rami info FOLDER`).")
@click.option("--per-game-only", is_flag=True,
              help="Keep only the per-game table (one row per game and seat), for the largest runs.")
@click.option("--batch-size", type=click.IntRange(min=1), default=None,
              help="Games per batch file (default: 250 to 2000, by --games and --workers).")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Play on a Dask cluster, e.g. tcp://10.0.0.5:8786 (needs rami-lab[cluster]); "
                   "the dataset is written here.")
@click.option("--condition", default=None, metavar="TEXT",
              help="Play only first rounds whose deal satisfies TEXT, e.g. \"jokers(0) >= 1 and opening(0) >= 51\" "
                   "(docs/deals.md); each game's deal is dealt again from its stream until accepted.")
@click.option("--quiet", is_flag=True, help="No progress.")
@json_option
def simulate_command(ruleset, overrides, seat_names, n_games, seed, workers, rotate, max_rounds, out, per_game_only,
                     batch_size, scheduler, condition, quiet, as_json) -> None:
    """Play many games, write them to a results dataset and summarise them.

    Stopped by Ctrl-C (or killed), it keeps every finished batch: the same
    command run again plays only the games that are missing.
    """
    import shlex

    from tqdm import tqdm

    import sim
    from sim import store
    from sim.distributed import ClusterError
    from sim.summary import summarise

    r, names, out = check_simulate(ruleset, overrides, seat_names, out, condition, seed)
    scheduler = check_scheduler(scheduler)
    extra = {} if max_rounds is None else {"max_rounds": max_rounds}
    if condition is not None:
        extra["condition"] = condition
    command = shlex.join(["rami", *sys.argv[1:]])
    bars: list = []
    ready: list[float] = []

    def progress(games: int) -> None:
        # First called once the output folder has passed its checks (so an
        # error is the only line printed when it does not) and the engine is
        # compiled (saying so, first run only) or loaded: the clock and the
        # progress start here, so that the rate excludes compilation.
        if not ready:
            ready.append(time.perf_counter())
            if not quiet:
                bars.append(tqdm(total=n_games, unit="game", leave=False) if sys.stderr.isatty()
                            else _LineProgress(n_games))
        for bar in bars:
            bar.update(games)

    def close_bars() -> None:
        for bar in bars:
            if isinstance(bar, tqdm):
                bar.close()

    try:
        dataset = sim.simulate(r, names, n_games=n_games, seed=seed, workers=workers, batch_size=batch_size,
                               rotate=rotate, progress=progress, out=out, per_game_only=per_game_only,
                               scheduler=scheduler, command=command, **extra)
    except (ValueError, NotImplementedError, ClusterError) as exc:
        raise click.ClickException(str(exc)) from exc
    except KeyboardInterrupt:
        close_bars()
        kept = store.describe_ranges(store.games_on_disk(out)) if (Path(out) / store.MANIFEST).exists() else "none"
        # On a terminal, after the ^C the terminal echoed; in a log, the one line of the contract.
        click.echo(f"{chr(10) if sys.stderr.isatty() else ''}Error: interrupted: finished batches kept in {out} "
                   f"(games {kept}); run the same command again to play the rest", err=True)
        sys.stdout.flush()
        sys.stderr.flush()
        # The batches still running in the engine's threads cannot be stopped
        # and their rows would be dropped anyway (only this thread writes, and
        # the manifest is closed): leave now rather than wait for them.
        os._exit(130)
    finally:
        close_bars()
    # From the moment the engine was ready (the first progress call).
    elapsed = time.perf_counter() - (ready[0] if ready else time.perf_counter())
    path = dataset.path
    report: dict = {"results": str(path), "tables": list(dataset.tables),
                    "games_found": dataset.games_found, "games_played": dataset.games_played}
    lines: list[str] = []
    if dataset.games_found:
        lines.append(f"{dataset.games_found:,} of the {n_games:,} games were already in {path}; "
                     f"{dataset.games_played:,} played now")
    if "rounds" in dataset.tables and dataset.games_played:
        rows = _summary_rows(path, 0, n_games)
        summarised = rows["game"].n_unique()
        if n_games > SUMMARY_GAMES or dataset.games_found:
            lines.append(f"summary of games 0..{rows['game'].max():,} (time and rates prorated from the "
                         f"{dataset.games_played:,} games played now; every game: sim.load({str(path)!r}))")
        summary = summarise(rows, ruleset, overrides=parse_overrides(overrides), seed=seed,
                            elapsed=elapsed * summarised / max(1, dataset.games_played))
        report = summary.to_dict() | report
        lines.append(str(summary))
    elif dataset.games_played:
        lines.append(f"games {dataset.games_played:,}   {elapsed:.1f} s   "
                     f"{dataset.games_played / elapsed:,.0f} games/s")
    if condition is not None:
        # The same deals again, counted: each game's stream up to its accepted deal.
        from sim import deals

        kept = deals.sample(r, condition, n_games, seed, pilot=0)
        rate = kept.rate_interval()
        report["condition"] = {"text": condition, "accepted": kept.accepted, "dealt": kept.dealt,
                               "rate": rate.mean, "low": rate.low, "high": rate.high}
        if kept.held_text is None:
            lines.append(f"condition {condition!r}: {kept.accepted:,} of {kept.dealt:,} first deals accepted "
                         f"({rate.mean:.2%}, 95% interval {rate.low:.2%} to {rate.high:.2%})")
        else:
            # The held cards are dealt exactly: their chance is computed, only the rest is measured.
            rest = kept.rest_rate_interval()
            report["condition"] |= {"held": kept.held_text, "held_chance": kept.held, "rest_rate": rest.mean,
                                    "rest_low": rest.low, "rest_high": rest.high}
            lines.append(f"condition {condition!r}: {kept.held_text} dealt exactly (chance {kept.held:.4g}); the "
                         f"rest accepted {kept.accepted:,} of {kept.dealt:,} first deals ({rest.mean:.2%}, 95% "
                         f"interval {rest.low:.2%} to {rest.high:.2%}); the whole condition's rate "
                         f"{rate.mean:.4g} (95% interval {rate.low:.4g} to {rate.high:.4g})")
    if as_json:
        emit_json(report)
        return
    for line in lines:
        emit(line)
    click.echo(f"results: {path} (tables {', '.join(dataset.tables)}; `rami info {path}` says what made them)")
