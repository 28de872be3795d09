"""``rami agree``: how often a strategy chooses what the searching player (or another yardstick) would."""

from __future__ import annotations

import time

import click

from sim.cli.analyse import parse_seats
from sim.cli.cluster import on_cluster
from sim.cli.common import (
    BadValue,
    ascii_option,
    emit,
    emit_json,
    json_option,
    main,
    ruleset_from,
    ruleset_option,
    seat_strategies,
    seed_option,
    set_option,
)

DEFAULT_GAMES = 20


def _one(text: str, what: str, example: str) -> str:
    """A single strategy named by ``what`` (the argument or option), checked; the error names ``what``."""
    try:
        items = seat_strategies(text)
    except BadValue as exc:
        raise BadValue(exc.format_message().replace("--strategies", what, 1)) from None
    if len(items) != 1:
        raise BadValue(f"{what} {text!r}: give one strategy, e.g. {example}")
    return items[0]


def check_agree(strategy: str, yardstick: str, ruleset: str, overrides: tuple[str, ...], field: str | None,
                seat_text: str) -> tuple:
    """Every check of ``rami agree`` made before a game is played: the ruleset, the strategy, the yardstick, the
    field and the seats against the table they make. Returns the ruleset, the strategy, the yardstick, the field
    (``None``: the strategy everywhere; one name: every other seat; a list: one per other seat) and the seats."""
    r = ruleset_from(ruleset, overrides)
    measured = _one(strategy, "STRATEGY", "expert or expert:jokers=2")
    judge = _one(yardstick, "--yardstick", "search:trials=32 or expert")
    others: str | list[str] | None = None
    if field is not None:
        try:
            items = seat_strategies(field)
        except BadValue as exc:
            raise BadValue(exc.format_message().replace("--strategies", "--field", 1)) from None
        others = items[0] if len(items) == 1 else items
    seats = parse_seats(seat_text) or []
    seats = sorted(set(seats))
    players = r.players if not isinstance(others, list) else len(others) + len(seats)
    if isinstance(others, list):
        try:
            r = r.replace(players=players)
        except ValueError as exc:
            raise BadValue(f"--field names {len(others)} other seats beside --seats {seat_text!r}: {exc}") from None
    out = [s for s in seats if s >= players]
    if out:
        raise BadValue(f"--seats {seat_text!r}: seat {out[0]} is out of range: the game has seats 0 to {players - 1}")
    if len(seats) >= players:
        raise BadValue(f"--seats {seat_text!r}: every seat of the {players}-player game; leave one to the field")
    return r, measured, judge, others, seats


@main.command("agree")
@click.argument("strategy")
@click.option("--yardstick", default="search", show_default=True,
              help="The player the strategy is measured against, deciding at the same positions from what the seat "
                   "can see: search (search:trials=8 for a quicker run) or any strategy.")
@ruleset_option
@set_option
@click.option("--field", default=None, metavar="SPEC[,SPEC,...]", show_default="STRATEGY at every seat",
              help="The other seats: one strategy for all of them, or one per other seat in seat order (their number "
                   "then sets the players).")
@click.option("--games", type=click.IntRange(min=1), default=DEFAULT_GAMES, show_default=True,
              help="Games played (games 0 .. N-1 of the simulation seeded --seed).")
@click.option("--seats", "seat_text", default="0", show_default=True, metavar="SEAT,SEAT,...",
              help="The seats where STRATEGY plays and whose decisions are compared, numbered from 0.")
@seed_option
@click.option("--workers", type=click.IntRange(min=1), default=2, show_default=True,
              help="Threads playing games side by side (the figures do not depend on it).")
@click.option("--max-rounds", type=click.IntRange(min=1), default=None,
              help="Play at most this many rounds of each game.")
@click.option("--examples", type=click.IntRange(min=0), default=3, show_default=True,
              help="Disagreements shown per kind of decision (each with the position the seat saw).")
@ascii_option
@json_option
@on_cluster
def agree_command(strategy, yardstick, ruleset, overrides, field, games, seat_text, seed, workers, max_rounds,
                  examples, use_ascii, as_json) -> None:
    """How often STRATEGY chooses what --yardstick would at the same positions of real games: the share of
    agreements per kind of decision (draw, lay, discard) and over all, with 95% intervals whose unit is the
    game, and examples of disagreements to look at.

    Example: rami agree expert --yardstick search:trials=32 --games 100
    """
    r, measured, judge, others, seats = check_agree(strategy, yardstick, ruleset, overrides, field, seat_text)
    from sim.agreements import agreement

    start = time.perf_counter()
    result = agreement(measured, judge, rules=r, field=others, games=games, seats=seats, seed=seed, workers=workers,
                       max_rounds=max_rounds)
    seconds = time.perf_counter() - start
    if as_json:
        emit_json(result.to_dict(examples), use_ascii)
        return
    emit(result.text(examples), use_ascii)
    click.echo(f"({seconds:.0f} s)", err=True)
