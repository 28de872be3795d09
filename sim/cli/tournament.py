"""``rami tournament``, ``rami compare`` and ``rami tune``: rank strategies, test one against
another sequentially, and tune a strategy's parameters under a confirmation guard."""

from __future__ import annotations

from pathlib import Path

import click

from sim.cli.common import check_folder, main, ruleset_from, ruleset_option, seat_strategies, set_option


def _bar(quiet: bool, unit: str = "game"):
    from tqdm import tqdm

    return tqdm(total=1, unit=unit, disable=quiet, leave=False, dynamic_ncols=True)


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

    import strategies

    r = ruleset_from(ruleset, overrides)
    try:
        chosen = [strategies.get(s) for s in seat_strategies(strategy_list)]
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    if out is not None:
        check_folder(out)
    bar = _bar(quiet)

    def update(done: int, total: int) -> None:
        if bar.total != total:
            bar.reset(total=total)
        bar.update(done - bar.n)

    try:
        with bar:
            result = tournament(chosen, r, players, games, seed, resamples=resamples, progress=update)
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


@main.command("tune")
@click.argument("start")
@click.option("--param", "params", multiple=True, required=True, metavar="NAME=LOW:HIGH",
              help="A parameter range to search, e.g. --param near_weight=0:10 (repeatable; whole numbers for "
                   "choice parameters).")
@click.option("--rules", "ruleset", default="rami51", show_default=True, help="Preset or ruleset TOML file.")
@click.option("--field", default="greedy,greedy,greedy", show_default=True,
              help="The other seats of the table, comma separated.")
@click.option("--objective", type=click.Choice(["points", "wins"]), default="points", show_default=True,
              help="Points per round, or share of games won, against the field.")
@click.option("--trials", type=int, default=30, show_default=True, help="The search's budget of evaluations.")
@click.option("--games", type=int, default=300, show_default=True, help="Games per evaluation.")
@click.option("--top", type=int, default=3, show_default=True, help="Best candidates re-evaluated on fresh deals.")
@click.option("--confirm-games", type=int, default=600, show_default=True, help="Games of each re-evaluation.")
@click.option("--improvement", type=float, default=1.0, show_default=True,
              help="The confirmation's improvement bound, in points per round.")
@click.option("--max-games", type=int, default=8000, show_default=True,
              help="The confirmation stops undecided here.")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--name", default="tuned", show_default=True, help="Name of the tuned strategy (and its file).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder of the report and the strategy file  [default: results/tune/NAME]")
@click.option("--study", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="SQLite file of the search; an interrupted tune resumes from it  [default: OUT/study.db]")
@click.option("--quiet", is_flag=True, help="No progress lines.")
def tune_command(start, params, ruleset, field, objective, trials, games, top, confirm_games, improvement, max_games,
                 seed, name, out, study, quiet) -> None:
    """Tune parameters of strategy START against a field; the winner must pass a sequential test.

    Example: rami tune expert --rules basic --param near_weight=0:8 --param feed_weight=0:8 --trials 20
    """
    from experiments.tuning import TuneConfig, parse_space, tune

    out = out or Path("results") / "tune" / name
    check_folder(out)
    try:
        config = TuneConfig(start=start, space=parse_space(params), ruleset=ruleset,
                            field=tuple(seat_strategies(field)), objective=objective, trials=trials, games=games,
                            top=top, confirm_games=confirm_games, improvement=improvement, max_games=max_games,
                            seed=seed, name=name)
        result = tune(config, study or out / "study.db", out,
                      progress=None if quiet else lambda line: click.echo(line, err=True))
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(str(result))
    click.echo(f"report: {(out / 'index.html').resolve()}")
