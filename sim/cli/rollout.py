"""``rami rollout``: what each choice of a traced position is worth, played out on the same futures."""

from __future__ import annotations

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
    table_from,
    traced_game_options,
)
from sim.checks import ROLLOUT_SEED_MAX
from sim.modes import BELIEF, CLAIRVOYANT, MODES


def read_position(value: str, mode: str) -> tuple[object, str]:
    """``--position TEXT-or-FILE``: a seat's view (docs/positions.md) typed or in a file, as an engine position,
    and the modes it is rolled out in (belief only: nothing hidden is known); a bad view is a bad value."""
    from sim.advice import position_of
    from sim.seat_view import ViewError

    if mode == CLAIRVOYANT:
        raise BadValue("--mode clairvoyant: a typed position knows no hidden card; only belief rollouts read it")
    try:
        return position_of(position_text(value)), BELIEF
    except ViewError as exc:
        raise BadValue(f"--position: {exc}") from None


@main.command("rollout")
@traced_game_options
@click.option("--position", "position_text", default=None, metavar="TEXT-or-FILE",
              help="Roll out a position typed in the seat view notation (docs/positions.md), or a file holding "
                   "one, instead of a traced game's event (belief mode only).")
@click.option("--event", "index", type=click.IntRange(min=1), default=None,
              help="Index of a decision's first event in the game's trace (a deal, draw, laying or discard; "
                   "`rami advise` without --event lists them).")
@click.option("--trials", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Trials per choice (the most, with --width).")
@click.option("--mode", type=click.Choice([*MODES, "both"]), default="both", show_default=True,
              help="belief: re-deal what the seat cannot see; clairvoyant: keep the true hidden cards.")
@click.option("--width", type=Number(min=0, min_open=True), default=None,
              help="Stop once every difference's 95% interval is narrower than this many points.")
@click.option("--rollout-seed", type=click.IntRange(min=0, max=ROLLOUT_SEED_MAX), default=0, show_default=True,
              help="Seed of the rollout's re-deals and futures.")
@click.option("--max-rounds", type=click.IntRange(min=1), default=None,
              help="Trace at most this many rounds.")
@ascii_option
@json_option
def rollout_command(ruleset, overrides, seat_names, seed, game, position_text, index, trials, mode, width,
                    rollout_seed, max_rounds, use_ascii, as_json) -> None:
    """Trace one game and roll every legal choice of the decision at --event out to the end of the round.

    Example: rami rollout --strategies expert,expert,expert,expert --seed 3 --event 40 --trials 1000
    """
    import sim
    from sim.position import Position
    from sim.rollouts import rollout

    if position_text is not None:
        if index is not None:
            raise BadValue("--position and --event name two positions: give one")
        position, _ = read_position(position_text, mode)
        try:
            results = [rollout(position, n=trials, mode=BELIEF, seed=rollout_seed, width=width)]
        except ValueError as exc:
            raise BadValue(f"--position: {exc}") from None
        return _show(position, results, use_ascii, as_json)
    if index is None:
        raise BadValue("Missing option '--event' (or --position): the decision to roll out")
    r, names = table_from(ruleset, overrides, seat_names)
    extra = {} if max_rounds is None else {"max_rounds": max_rounds}
    events = sim.play_traced(r, names, seed=seed, game=game, **extra)
    if index >= len(events):
        raise BadValue(f"--event {index}: the trace has events 0 to {len(events) - 1}")
    try:
        position = Position.from_trace(events, index)
        modes = MODES if mode == "both" else (mode,)
        results = [rollout(position, n=trials, mode=m, seed=rollout_seed, width=width) for m in modes]
    except ValueError as exc:
        raise BadValue(f"--event {index}: {exc}") from None
    _show(position, results, use_ascii, as_json)


def _show(position, results, use_ascii: bool, as_json: bool) -> None:
    if as_json:
        emit_json([res.to_dict() for res in results], use_ascii)
        return
    head = (f"Seat {position.seat}, round {position.round}, turn {position.turn}: {position.decision}, "
            f"hand {position.hand(position.seat)}")
    emit("\n".join([head, *(str(res) for res in results)]), use_ascii)
