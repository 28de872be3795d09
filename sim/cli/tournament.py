"""``rami tournament``, ``rami compare`` and ``rami tune``: rank strategies, test one against
another sequentially, and tune a strategy's parameters under a confirmation guard."""

from __future__ import annotations

from pathlib import Path

import click

from sim.cli.common import main, ruleset_from, ruleset_option, seat_strategies, set_option


def _bar(quiet: bool, unit: str = "game"):
    from tqdm import tqdm

    return tqdm(total=1, unit=unit, disable=quiet, leave=False, dynamic_ncols=True)


def _check_folder(folder: Path) -> None:
    """Make ``folder`` or fail now, before any game is played."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".write-check"
        probe.touch()
        probe.unlink()
    except OSError as exc:
        raise click.ClickException(f"cannot write to {folder}: {exc.strerror or exc}") from exc


@main.command("tournament")
@click.argument("strategy_list", metavar="STRATEGIES")
@ruleset_option
@set_option
@click.option("--players", type=int, default=None, help="Seats per table (default: all strategies, at most 4).")
@click.option("--games", type=int, default=1000, show_default=True,
              help="Games in all, shared among the tables; each is played once per rotation.")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--resamples", type=int, default=300, show_default=True, help="Bootstrap resamples per interval.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write the report page (index.html, index.md, heat map) and ranking.csv here.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def tournament_command(strategy_list, ruleset, overrides, players, games, seed, resamples, out, quiet) -> None:
    """Rank STRATEGIES (comma separated) on duplicate deals, with 95% intervals and ratings.

    Example: rami tournament random,greedy,cautious,expert --rules contrat
    """
    from experiments.tournament import tournament

    r = ruleset_from(ruleset, overrides)
    if out is not None:
        _check_folder(out)
    bar = _bar(quiet)

    def update(done: int, total: int) -> None:
        if bar.total != total:
            bar.reset(total=total)
        bar.update(done - bar.n)

    try:
        with bar:
            result = tournament(seat_strategies(strategy_list), r, players, games, seed, resamples=resamples,
                                progress=update)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(str(result))
    if out is not None:
        result.command = " ".join(["rami", "tournament", strategy_list, "--rules", ruleset,
                                   *[f"--set {o}" for o in overrides], "--players", str(result.ruleset.players),
                                   "--games", str(games), "--seed", str(seed)])
        page = result.write_report(out)
        result.table().write_csv(out / "ranking.csv")
        click.echo(f"report: {page.resolve()}")


@main.command("compare")
@click.argument("a")
@click.argument("b")
@ruleset_option
@set_option
@click.option("--field", default="greedy,greedy,greedy", show_default=True,
              help="The other seats of the table, comma separated.")
@click.option("--indifference", type=float, default=0.0, show_default=True,
              help="H0: the gain of A over B, in points per round, is at most this.")
@click.option("--improvement", type=float, default=1.0, show_default=True,
              help="H1: the gain is at least this.")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="Chance of calling A better under H0.")
@click.option("--beta", type=float, default=0.05, show_default=True, help="Chance of missing a gain of --improvement.")
@click.option("--batch", type=int, default=200, show_default=True, help="Games between two looks.")
@click.option("--max-games", type=int, default=20_000, show_default=True, help="Stop undecided here.")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--quiet", is_flag=True, help="No progress line.")
def compare_command(a, b, ruleset, overrides, field, indifference, improvement, alpha, beta, batch, max_games, seed,
                    quiet) -> None:
    """Sequential test: does strategy A score better than B against the same field on the same deals?

    Example: rami compare expert greedy --rules contrat --improvement 2
    """
    from experiments.sequential import compare

    r = ruleset_from(ruleset, overrides)

    def update(games: int, llr: float) -> None:
        if not quiet:
            click.echo(f"  {games:>7,} games: log likelihood ratio {llr:+.2f}", err=True)

    try:
        result = compare(a, b, r, seat_strategies(field), indifference, improvement, alpha, beta, batch, max_games,
                         seed, progress=update)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(str(result))
