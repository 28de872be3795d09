"""``rami play``: a game against the lab in the browser, served from this machine (docs/play.md)."""

from __future__ import annotations

import errno
import secrets
from pathlib import Path

import click

from sim.cli.common import (
    BadValue,
    check_folder,
    check_out_path,
    main,
    parse_overrides,
    ruleset_from,
    ruleset_option,
    seat_strategies,
    set_option,
)
from sim.checks import SEED_MAX

DEFAULT_PORT = 8051
DEFAULT_OPPONENT = "search"


def check_table(ruleset: str, overrides: tuple[str, ...], opponents_text: str | None, seat: int) -> tuple:
    """Every check of ``rami play`` made before anything starts: the rules, the other seats' strategies (one for
    all of them, or one per other seat, which then sets the players), the person's seat. Returns the ruleset and
    the opponents in seat order."""
    parsed = parse_overrides(overrides)
    r = ruleset_from(ruleset, parsed)
    names = seat_strategies(opponents_text) if opponents_text is not None else [DEFAULT_OPPONENT]
    if len(names) > 1:
        if "players" in parsed and parsed["players"] != len(names) + 1:
            raise BadValue(f"--set players={parsed['players']} but --strategies names {len(names)} other seats; "
                           "give one strategy for every other seat, or one for all of them")
        try:
            r = r.replace(players=len(names) + 1)
        except Exception as exc:  # noqa: BLE001 - the ruleset's own refusal, in its words
            raise BadValue(f"--strategies names {len(names)} other seats: {exc}") from None
        opponents = names
    else:
        opponents = names * (r.players - 1)
    if not 0 <= seat < r.players:
        raise BadValue(f"--seat {seat}: allowed: 0 to {r.players - 1} (the table has {r.players} seats)")
    import strategies

    for name in dict.fromkeys(opponents):
        try:
            strategies.get(name).for_game(r.game)
        except ValueError as exc:
            raise BadValue(f"--strategies {name!r}: {exc}") from None
    return r, opponents


def open_port(port: int) -> list:
    """The listening sockets on 127.0.0.1, before anything else is made; a port in use is a bad value."""
    from sim.play.server import bind

    try:
        return bind(port)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise BadValue(f"--port {port}: the port is in use on 127.0.0.1; choose another, or --port 0 for any "
                           "free one") from None
        if exc.errno in (errno.EACCES, errno.EPERM):
            raise BadValue(f"--port {port}: this user may not listen on it (ports below 1024 need rights); "
                           "choose one from 1024 to 65535") from None
        raise BadValue(f"--port {port}: cannot listen on 127.0.0.1 ({exc.strerror or exc})") from None


@main.command("play")
@ruleset_option
@set_option
@click.option("--strategies", "opponents_text", default=None, metavar="SPEC[,SPEC,...]",
              show_default=f"{DEFAULT_OPPONENT} at every other seat",
              help="The other seats' strategies: one for all of them, or one per other seat in seat order (which "
                   "sets the players).")
@click.option("--seat", type=click.IntRange(min=0), default=0, show_default=True, help="Your seat (0 plays first).")
@click.option("--seed", type=click.IntRange(0, SEED_MAX), default=None, show_default="a new one each time",
              help="Deal the games of this seed (0 to 2**64 - 1), to play the same deals again.")
@click.option("--port", type=click.IntRange(0, 65535), default=DEFAULT_PORT, show_default=True,
              help="The port on 127.0.0.1 (0: any free port).")
@click.option("--no-browser", is_flag=True, help="Do not open the browser; print the address only.")
@click.option("--records", "records", default=None, metavar="FOLDER",
              help="Also save each finished game's record here (the text `rami review` reads).")
def play_command(ruleset, overrides, opponents_text, seat, seed, port, no_browser, records) -> None:
    """Play a game against the lab in your browser: a local server on 127.0.0.1 deals the game, the other seats
    play their strategies, a hint ranks your choices by rollouts, and the game ends with the review of your
    decisions and the game's record (docs/play.md). Ctrl-C stops the server.

    Example: rami play --rules contrat --strategies expert --seat 1
    """
    r, opponents = check_table(ruleset, overrides, opponents_text, seat)
    folder = check_out_path(records, "--records") if records is not None else None
    sockets = open_port(port)
    try:
        if folder is not None:
            check_folder(folder)
        serve(r, opponents, seat, secrets.randbelow(SEED_MAX + 1) if seed is None else seed, sockets, folder,
              not no_browser)
    finally:
        for s in sockets:
            s.close()


def serve(r, opponents: list[str], seat: int, seed: int, sockets: list, records: Path | None,
          browser: bool) -> None:
    """Deal the first game, listen, open the browser, and answer until Ctrl-C."""
    import asyncio
    import webbrowser

    import tornado.httpserver

    from sim.api import say_compiling
    from sim.engine.warm import NOTICE_AFTER, compile_with_notice
    from sim.play.game import TableGame
    from sim.play.server import PlayServer, make_app

    made: list[PlayServer] = []
    # The first deal loads the engine (compiles it on a machine's first run, which the notice says).
    compile_with_notice(lambda: made.append(PlayServer(
        lambda game: TableGame(r, opponents, seat=seat, seed=seed, game=game, records=records))),
        say_compiling, NOTICE_AFTER)
    server = made[0]
    address = f"http://127.0.0.1:{sockets[0].getsockname()[1]}/"

    async def run() -> None:
        http = tornado.httpserver.HTTPServer(make_app(server))
        http.add_sockets(sockets)
        click.echo(f"rami play: {address} ({r.game} for {r.players}, you are seat {seat}; Ctrl-C stops the server)")
        if browser and not webbrowser.open(address):
            click.echo("rami play: no browser could be opened; open the address above", err=True)
        await asyncio.Event().wait()

    try:
        asyncio.run(run())
    except KeyboardInterrupt:
        # Ctrl-C is how a server is left: the games are over or abandoned, nothing is half written.
        click.echo("rami play: stopped" + (f"; records in {records}" if records is not None else ""))
