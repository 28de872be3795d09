"""``rami simulate``: play many games, summarise them, write the results."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import click

from sim.cli.common import (
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


@main.command("simulate")
@ruleset_option
@set_option
@strategies_option("One strategy per seat, comma separated; parameters by name as in "
                   "greedy:jokers=2,open_extra=10 (see `rami strategies`); a strategy written in Python "
                   "by module path, e.g. mypkg.mybot:Hoarder (docs/cli.md).")
@click.option("--games", "n_games", type=click.IntRange(min=1), default=10_000, show_default=True,
              help="Games to play.")
@seed_option
@click.option("--workers", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default="all cores",
              help="Threads running the engine (results do not depend on it).")
@click.option("--rotate", is_flag=True,
              help="Move the strategies one seat on from game to game, so seat order favours none.")
@click.option("--max-rounds", type=click.IntRange(min=1), default=None,
              help="Round cap per game; a game reaching it is marked truncated (default: the engine's cap).")
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path), default=Path("results.parquet"),
              show_default=True, help="Parquet file for the full results (one row per game, round, seat).")
@click.option("--quiet", is_flag=True, help="No progress.")
@json_option
def simulate_command(ruleset, overrides, seat_names, n_games, seed, workers, rotate, max_rounds, out, quiet,
                     as_json) -> None:
    """Play many games, print a summary and write every round's result as parquet."""
    from tqdm import tqdm

    import sim
    from sim.summary import summarise

    r, names = table_from(ruleset, overrides, seat_names)
    # Check the output place before playing, so no computed result is lost.
    if not out.parent.exists() or not os.access(out.parent, os.W_OK):
        raise click.ClickException(f"cannot write {out}: folder {out.parent} is missing or not writable")
    extra = {} if max_rounds is None else {"max_rounds": max_rounds}
    if quiet:
        bar = None
    elif sys.stderr.isatty():
        bar = tqdm(total=n_games, unit="game", leave=False)
    else:
        bar = _LineProgress(n_games)
    start = time.perf_counter()
    try:
        df = sim.simulate(r, names, n_games=n_games, seed=seed, workers=workers, rotate=rotate,
                          progress=None if bar is None else bar.update, **extra)
    except (ValueError, NotImplementedError) as exc:  # e.g. a Python strategy that raised
        raise click.ClickException(str(exc)) from exc
    finally:
        if isinstance(bar, tqdm):
            bar.close()
    elapsed = time.perf_counter() - start
    df.write_parquet(out)
    summary = summarise(df, ruleset, overrides=parse_overrides(overrides), seed=seed, elapsed=elapsed)
    if as_json:
        emit_json(summary.to_dict() | {"results": str(out), "rows": df.height})
        return
    emit(str(summary))
    click.echo(f"results: {out} ({df.height:,} rows)")
