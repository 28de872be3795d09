"""``rami simulate``: play many games, summarise them, write the results."""

from __future__ import annotations

import os
import time
from pathlib import Path

import click

from sim.cli.common import main, ruleset_from, ruleset_option, seat_strategies, set_option


def _summary(df, elapsed: float) -> list[str]:
    """Short plain-text summary of a simulation frame."""
    import polars as pl

    from sim import api as sim_api

    rounds = df.select("game", "round").unique().height
    games = df["game"].n_unique()
    lines = [
        f"games {games:,}   rounds {rounds:,}   {elapsed:.1f} s   "
        f"{rounds / elapsed:,.0f} rounds/s   {games / elapsed:,.0f} games/s",
    ]
    blocked = df.filter(pl.col("seat") == 0)["blocked"]
    lines.append(
        f"blocked rounds {int((blocked != 'none').sum()):,} "
        f"({(blocked != 'none').mean():.1%}; stock {int((blocked == 'stock').sum())}, "
        f"turn cap {int((blocked == 'turn_cap').sum())})   "
        f"truncated games {df.filter(pl.col('truncated'))['game'].n_unique()}"
    )
    per_seat = (
        df.group_by("seat", "strategy")
        .agg(
            pl.col("points").mean().alias("points/round"),
            pl.col("opened").mean().alias("opened"),
            pl.col("open_turn").filter(pl.col("opened")).mean().alias("open turn"),
            pl.col("went_out").mean().alias("went out"),
        )
        .join(
            sim_api.game_summary(df).group_by("seat").agg(pl.col("won").mean().alias("games won")),
            on="seat",
        )
        .sort("seat")
    )
    lines.append(f"{'seat':>4} {'strategy':>10} {'points/round':>13} {'opened':>7} {'open turn':>10} {'went out':>9} {'games won':>10}")
    for row in per_seat.iter_rows(named=True):
        lines.append(
            f"{row['seat']:>4} {row['strategy']:>10} {row['points/round']:>13.2f} {row['opened']:>7.1%} "
            f"{row['open turn'] or float('nan'):>10.2f} {row['went out']:>9.1%} {row['games won']:>10.1%}"
        )
    return lines



@main.command("simulate")
@ruleset_option
@set_option
@click.option("--strategies", "seat_names", default="greedy,greedy,greedy,greedy", show_default=True,
              help="One strategy per seat, comma separated; parameters by name as in "
                   "greedy:jokers=2,open_extra=10 (see `rami strategies`).")
@click.option("--games", "n_games", type=int, default=10_000, show_default=True, help="Games to play.")
@click.option("--seed", type=int, default=1, show_default=True, help="Simulation seed.")
@click.option("--workers", type=int, default=os.cpu_count() or 1, show_default="all cores",
              help="Threads running the engine (results do not depend on it).")
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path), default=Path("results.parquet"),
              show_default=True, help="Parquet file for the full results (one row per game, round, seat).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def simulate_command(ruleset, overrides, seat_names, n_games, seed, workers, out, quiet) -> None:
    """Play many games and write every round's result as parquet."""
    from tqdm import tqdm

    import sim

    r = ruleset_from(ruleset, overrides)
    names = seat_strategies(seat_names)
    # Check the output place before playing, so no computed result is lost.
    if not out.parent.exists() or not os.access(out.parent, os.W_OK):
        raise click.ClickException(f"cannot write {out}: folder {out.parent} is missing or not writable")
    if n_games < 1:
        raise click.ClickException(f"--games must be at least 1, got {n_games}")
    from sim.engine.warm import ensure_compiled

    # Compiled (first run only) or loaded before the clock and the bar start.
    ensure_compiled(r, lambda: click.echo("compiling the engine (first run only)...", err=True))
    try:
        with tqdm(total=n_games, unit="game", disable=quiet, leave=False) as bar:
            start = time.perf_counter()
            df = sim.simulate(r, names, n_games=n_games, seed=seed, workers=workers, progress=bar.update)
            elapsed = time.perf_counter() - start
    except (ValueError, NotImplementedError) as exc:
        raise click.ClickException(str(exc)) from exc
    df.write_parquet(out)
    for line in _summary(df, elapsed):
        click.echo(line)
    click.echo(f"results: {out} ({df.height:,} rows)")

