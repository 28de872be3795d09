"""``rami advise``: what a strategy plays at a position of a traced game, and why."""

from __future__ import annotations

import dataclasses

import click

from sim.cli.common import (
    BadValue,
    Number,
    ascii_option,
    emit,
    emit_json,
    json_option,
    main,
    position_text,
    seat_strategies,
    table_from,
    traced_game_options,
)
from sim.checks import ROLLOUT_SEED_MAX
from sim.modes import BELIEF, CLAIRVOYANT, MODES


def check_advise(ruleset: str, overrides: tuple[str, ...], seat_names: str | None, index: int | None,
                 strategy: str, rollouts: int) -> tuple:
    """Every check of ``rami advise`` made before the game is traced: the table, the advised strategy, the
    options that go together. Returns the ruleset, the seats' strategies and the advised one."""
    if rollouts and index is None:
        raise BadValue(f"--rollouts {rollouts} needs --event: the rollouts play out the discards of one turn "
                       "(run without --event to list the events)")
    r, names = table_from(ruleset, overrides, seat_names)
    try:
        (advised,) = seat_strategies(strategy)
    except ValueError:
        raise BadValue(f"--strategy {strategy!r}: give one strategy, e.g. expert or greedy:open_extra=20") from None
    except BadValue as exc:
        raise BadValue(exc.format_message().replace("--strategies", "--strategy")) from None
    return r, names, advised


def check_position_advice(given: list[str], rollouts: int, mode: str) -> None:
    """The checks of ``rami advise --position`` made before the view is read: no option that names a traced
    game (``given`` lists those typed) and belief mode only."""
    if given:
        raise BadValue(f"--position is the position advised: {', '.join(given)} cannot go with it")
    if mode == CLAIRVOYANT:
        raise BadValue("--mode clairvoyant: a typed position knows no hidden card; only belief rollouts read it")
    if rollouts == 0:
        raise BadValue("--rollouts 0: a typed position is advised by its rollouts; give at least 1 trial")


def advise_position(value: str, strategy: str, rollouts: int | None, rollout_seed: int, width: float | None,
                    use_ascii: bool, as_json: bool) -> None:
    """``rami advise --position``: every legal choice of a typed position ranked by belief rollouts."""
    import sim
    from sim.seat_view import ViewError

    text = position_text(value)
    try:
        advised = sim.advise(text, strategy=strategy, rollouts=rollouts, rollout_seed=rollout_seed, width=width)
    except ViewError as exc:
        raise BadValue(f"--position: {exc}") from None
    if as_json:
        emit_json(advised.to_dict(), use_ascii)
        return
    emit(str(advised), use_ascii)


@main.command("advise")
@traced_game_options
@click.option("--position", "position_value", default=None, metavar="TEXT-or-FILE",
              help="Advise a position typed in the seat view notation (docs/positions.md), or a file holding one, "
                   "instead of a traced game's turn: every legal choice ranked by belief rollouts.")
@click.option("--event", "index", type=click.IntRange(min=0), default=None,
              help="Index of an event in the game's whole trace, as the listing without --event "
                   "numbers them (event 0 is the game_start header); without it, list the events.")
@click.option("--strategy", default="expert", show_default=True,
              help="The strategy advised to the seat to move, e.g. expert or greedy:open_extra=20.")
@click.option("--max-rounds", type=click.IntRange(min=1), default=None,
              help="Trace at most this many rounds.")
@click.option("--rollouts", type=click.IntRange(min=0), default=None, show_default="0; 1000 with --position",
              help="With --event: roll every legal discard of that turn out this many times, in belief and in "
                   "clairvoyant mode. With --position: the trials per choice.")
@click.option("--rollout-seed", type=click.IntRange(min=0, max=ROLLOUT_SEED_MAX), default=0, show_default=True,
              help="Seed of the rollouts.")
@click.option("--mode", type=click.Choice(list(MODES)), default=BELIEF, show_default=True,
              help="With --position: belief only (a typed position knows no hidden card; clairvoyant is refused).")
@click.option("--width", type=Number(min=0, min_open=True), default=None,
              help="With --position: stop once every difference's 95% interval is narrower than this many points.")
@ascii_option
@json_option
@click.pass_context
def advise_command(ctx, ruleset, overrides, seat_names, seed, game, position_value, index, strategy, max_rounds,
                   rollouts, rollout_seed, mode, width, use_ascii, as_json) -> None:
    """Trace one game and show what --strategy plays at the turn of event --event, and why; or rank every legal
    choice of a position typed in the seat view notation (--position) by belief rollouts.

    Example: rami advise --strategies greedy,expert,random --seed 3 --event 30 --strategy expert

    With --rollouts N, every legal discard of that turn is also played out N
    times to the end of the round (see `rami rollout`).

    Example: rami advise --position position.txt --rollouts 1000 (the expert plays every seat's future, as in
    the playouts of the lab's strongest player, search; --strategy changes it)
    """
    import sim
    from sim import advice

    if position_value is not None:
        given = [f"--{name}" for name, key in (("rules", "ruleset"), ("set", "overrides"),
                                               ("strategies", "seat_names"), ("seed", "seed"), ("game", "game"),
                                               ("event", "index"), ("max-rounds", "max_rounds"))
                 if ctx.get_parameter_source(key) == click.core.ParameterSource.COMMANDLINE]
        check_position_advice(given, rollouts, mode)
        try:
            (advised_strategy,) = seat_strategies(strategy)
        except ValueError:
            raise BadValue(f"--strategy {strategy!r}: give one strategy, e.g. expert") from None
        except BadValue as exc:
            raise BadValue(exc.format_message().replace("--strategies", "--strategy")) from None
        advise_position(position_value, advised_strategy, rollouts, rollout_seed, width, use_ascii, as_json)
        return
    if mode != BELIEF or width is not None:
        raise BadValue("--mode and --width go with --position; a traced turn is rolled out with --event and "
                       "--rollouts")
    rollouts = rollouts or 0
    r, names, strategy = check_advise(ruleset, overrides, seat_names, index, strategy, rollouts)
    extra = {} if max_rounds is None else {"max_rounds": max_rounds}
    events = sim.play_traced(r, names, seed=seed, game=game, **extra)
    if index is None:
        if as_json:
            emit_json([{"index": i, **event} for i, event in enumerate(events)], use_ascii)
            return
        emit("\n".join(f"{i:6}  {event['type']:10} {advice.describe(event)}" for i, event in enumerate(events)),
             use_ascii)
        return
    if index >= len(events):
        raise BadValue(f"--event {index}: the trace has events 0 to {len(events) - 1}")
    try:
        advised = sim.advise(events, index, strategy, rollouts=rollouts, rollout_seed=rollout_seed)
    except ValueError as exc:
        raise BadValue(f"--event {index}: {exc}") from None
    if as_json:
        found = dataclasses.asdict(dataclasses.replace(advised, rollouts=()))
        found["rollouts"] = [r.to_dict() for r in advised.rollouts]
        emit_json(found, use_ascii)
        return
    emit(str(advised), use_ascii)
