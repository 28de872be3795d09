"""``rami ladder``: rate players against one reference on the same deals (:mod:`experiments.ladder`).

Every value is checked before a folder is made or a game is played: ranges on the options
themselves (click reports them naming the option as typed), the players, the reference and
their agreement here, as a :class:`~sim.cli.common.BadValue` naming its argument or option (exit 2).
The ladder is the one command that seats the ceiling (a strategy that sees the hidden cards).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import click

from sim.cli.common import (
    BadValue, check_out_path, check_output_folder, emit_json, in_option_words, json_option, made_folder, main,
    ruleset_from, ruleset_option, seat_strategies, seed_option, set_option,
)
from sim.cli.cluster import on_cluster
from sim.cli.tournament import workers_option

OPTIONS = {"games": "--games", "resamples": "--resamples", "timing_games": "--timing-games",
           "reference": "--reference"}
"""The library's argument names and the options that set them, for its messages."""


def _parsed(text: str, what: str) -> list[str]:
    """``seat_strategies`` (the ceiling allowed) with the error naming ``what`` instead of --strategies."""
    try:
        return seat_strategies(text, allow_clairvoyant=True)
    except click.ClickException as exc:
        raise BadValue(exc.format_message().replace("--strategies", what, 1)) from None


def check_ladder(player_list: str | None, ruleset: str, overrides: tuple[str, ...], games: int, reference: str,
                 resamples: int, timing_games: int, out: str | None):
    """Every check of ``rami ladder`` made before anything is created or played.

    Returns the ruleset, the players, the reference and the output folder
    (or None). A bad value is a :class:`BadValue` (exit 2); a folder that
    cannot be a ladder's, a ``click.ClickException`` (exit 1).
    """
    from experiments import ladder as ladder_lib

    r = ruleset_from(ruleset, overrides)
    players = list(ladder_lib.DEFAULT_PLAYERS) if player_list is None else _parsed(player_list, "PLAYERS")
    refs = _parsed(reference, "--reference")
    if len(refs) != 1:
        raise BadValue(f"--reference {reference!r}: give one strategy, the one of every other seat")
    ref = refs[0]
    try:
        ladder_lib.check(players, r, games, ref, resamples, timing_games)
    except (ValueError, TypeError) as exc:
        message = in_option_words(str(exc), OPTIONS)
        if message.startswith("reference "):
            raise BadValue("--" + message) from None
        if message.startswith("--"):
            raise BadValue(message) from None
        raise BadValue(f"PLAYERS {','.join(players)!r}: {message}") from None
    folder = None
    if out is not None:
        folder = check_out_path(out)
        check_output_folder(folder, lambda f: (f / ladder_lib.SETTINGS_FILE).is_file(), "a ladder's")
    return r, players, ref, folder


@main.command("ladder")
@click.argument("player_list", metavar="[PLAYERS]", required=False, default=None)
@ruleset_option
@set_option
@click.option("--games", type=click.IntRange(min=2), default=100, show_default=True,
              help="Deals, at least 2; each is played once per seat at every player's table.")
@seed_option
@click.option("--reference", default="expert", show_default=True,
              help="The strategy of every other seat, which every player is measured against.")
@click.option("--resamples", type=click.IntRange(min=50), default=300, show_default=True,
              help="Bootstrap resamples per interval.")
@click.option("--timing-games", type=click.IntRange(min=0), default=2, show_default=True,
              help="Games per searching player of the CPU timing pass (0: no timing).")
@click.option("--out", default=None, metavar="FOLDER",
              help="Write the games (results datasets), ladder.csv, timing.csv, result.json and the report page "
                   "here; running the same command again resumes it.")
@workers_option
@click.option("--quiet", is_flag=True, help="No progress bar.")
@json_option
@on_cluster
def ladder_command(player_list, ruleset, overrides, games, seed, reference, resamples, timing_games, out, workers,
                   quiet, as_json) -> None:
    """Rate PLAYERS (comma separated) against --reference on the same deals, with 95% intervals.

    Each player sits at one seat against copies of the reference, in every seat in turn;
    without PLAYERS: random, greedy, cautious, expert, the search at three budgets and the
    ceiling (the search that sees the hidden cards: what knowing them is worth, not a player).

    Example: rami ladder random,greedy,expert,search:trials=8 --rules basic --games 200
    """
    from experiments import ladder as ladder_lib

    r, players, ref, folder = check_ladder(player_list, ruleset, overrides, games, reference, resamples,
                                           timing_games, out)
    bars: list = []

    def update(done: int, total: int) -> None:
        # The bar starts with the first game, once the output folder has passed its checks.
        if not bars:
            from tqdm import tqdm

            bars.append(tqdm(total=total, unit="game", disable=quiet, leave=False, dynamic_ncols=True))
        bars[0].update(done - bars[0].n)

    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a fit's convergence notes are not for the user
            return ladder_lib.ladder(players, r, games, seed, workers=workers, out=folder, reference=ref,
                                     resamples=resamples, timing_games=timing_games, progress=update)

    try:
        if folder is None:
            result = run()
        else:
            kept = lambda: f"the finished batches are kept in {folder}; the same command plays only the rest"  # noqa: E731
            with made_folder(folder, kept):
                result = run()
    except ValueError as exc:  # an output folder holding another ladder: found before any game
        raise click.ClickException(str(exc)) from None
    finally:
        for bar in bars:
            bar.close()
    result.command = " ".join(["rami", "ladder", ",".join(players), "--rules", ruleset,
                               *[f"--set {o}" for o in overrides], "--reference", ref, "--games", str(games),
                               "--seed", str(seed)])
    page = result.write(folder) if folder is not None else None
    if as_json:
        emit_json({**result.to_dict(), "out": str(folder) if folder is not None else None})
        return
    click.echo(str(result))
    if page is not None:
        click.echo(f"report: {Path(page).resolve()}")
