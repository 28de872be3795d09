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
@click.option("--out", "out", default="results", show_default=True, metavar="FOLDER",
              help="Results dataset folder: one parquet file per batch and table, written as batches finish. "
                   "Running the same command again resumes it (see `rami info FOLDER`).")
@click.option("--per-game-only", is_flag=True,
              help="Keep only the per-game table (one row per game and seat), for the largest runs.")
@click.option("--batch-size", type=int, default=None,
              help="Games per batch file (default: 250 to 2000, by --games and --workers).")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Play on a Dask cluster, e.g. tcp://10.0.0.5:8786 (needs rami-lab[cluster]); "
                   "the dataset is written here.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def simulate_command(ruleset, overrides, seat_names, n_games, seed, workers, out, per_game_only, batch_size,
                     scheduler, quiet) -> None:
    """Play many games, write them to a results dataset and summarise them.

    Stopped by Ctrl-C (or killed), it keeps every finished batch: the same
    command run again plays only the games that are missing.
    """
    import shlex
    import sys

    from tqdm import tqdm

    import sim
    from sim import store
    from sim.distributed import ClusterError

    r = ruleset_from(ruleset, overrides)
    names = seat_strategies(seat_names)
    if n_games < 1:
        raise click.ClickException(f"--games must be at least 1, got {n_games}")
    command = shlex.join(["rami", *sys.argv[1:]])
    bars: list = []

    def progress(games: int) -> None:
        # The bar appears once the output folder has passed its checks, so an
        # error is the only line printed when it does not.
        if not bars:
            bars.append(tqdm(total=n_games, unit="game", disable=quiet, leave=False))
        bars[0].update(games)

    start = time.perf_counter()
    try:
        dataset = sim.simulate(r, names, n_games=n_games, seed=seed, workers=workers, batch_size=batch_size,
                               progress=progress, out=out, per_game_only=per_game_only, scheduler=scheduler,
                               command=command)
    except (ValueError, NotImplementedError, ClusterError) as exc:
        raise click.ClickException(str(exc)) from exc
    except KeyboardInterrupt:
        for bar in bars:
            bar.close()
        kept = store.describe_ranges(store.games_on_disk(out)) if (Path(out) / store.MANIFEST).exists() else "none"
        click.echo(f"\ninterrupted: finished batches kept in {out} (games {kept}); "
                   f"run the same command again to play the rest", err=True)
        sys.stdout.flush()
        sys.stderr.flush()
        # The batches still running in the engine's threads cannot be stopped
        # and their rows would be dropped anyway (only this thread writes, and
        # the manifest is closed): leave now rather than wait for them.
        os._exit(130)
    finally:
        for bar in bars:
            bar.close()
    elapsed = time.perf_counter() - start
    path = dataset.path
    if dataset.games_found:
        click.echo(f"{dataset.games_found:,} of the {n_games:,} games were already in {path}; "
                   f"{dataset.games_played:,} played now")
    if "rounds" in dataset.tables:
        if dataset.games_played:
            rows = _summary_rows(path, 0, n_games)
            if n_games > SUMMARY_GAMES or dataset.games_found:
                click.echo(f"summary of games 0..{rows['game'].max():,} (time and rates prorated from the "
                           f"{dataset.games_played:,} games played now; every game: sim.load({str(path)!r}))")
            for line in _summary(rows, elapsed * rows["game"].n_unique() / max(1, dataset.games_played)):
                click.echo(line)
    elif dataset.games_played:
        click.echo(f"games {dataset.games_played:,}   {elapsed:.1f} s   {dataset.games_played / elapsed:,.0f} games/s")
    click.echo(f"results: {path} (tables {', '.join(dataset.tables)}; `rami info {path}` says what made them)")
