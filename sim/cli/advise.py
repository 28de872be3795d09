"""``rami advise``: what a strategy plays at a position of a traced game, and why."""

from __future__ import annotations

import dataclasses

import click

from sim.cli.common import (
    BadValue,
    ascii_option,
    emit,
    emit_json,
    json_option,
    main,
    seat_strategies,
    table_from,
    traced_game_options,
)


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


@main.command("advise")
@traced_game_options
@click.option("--event", "index", type=click.IntRange(min=0), default=None,
              help="Index of an event in the game's whole trace, as the listing without --event "
                   "numbers them (event 0 is the game_start header); without it, list the events.")
@click.option("--strategy", default="expert", show_default=True,
              help="The strategy advised to the seat to move, e.g. expert or greedy:open_extra=20.")
@click.option("--max-rounds", type=click.IntRange(min=1), default=None,
              help="Trace at most this many rounds.")
@click.option("--rollouts", type=click.IntRange(min=0), default=0, show_default=True,
              help="With --event: roll every legal discard of that turn out this many times, in belief and in "
                   "clairvoyant mode.")
@click.option("--rollout-seed", type=click.IntRange(min=0, max=2**63 - 1), default=0, show_default=True,
              help="Seed of the rollouts.")
@ascii_option
@json_option
def advise_command(ruleset, overrides, seat_names, seed, game, index, strategy, max_rounds, rollouts, rollout_seed,
                   use_ascii, as_json) -> None:
    """Trace one game and show what --strategy plays at the turn of event --event, and why.

    Example: rami advise --strategies greedy,expert,random --seed 3 --event 30 --strategy expert

    With --rollouts N, every legal discard of that turn is also played out N
    times to the end of the round (see `rami rollout`).
    """
    import sim
    from sim import advice

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
