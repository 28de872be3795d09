"""``rami advise``: what a strategy plays at a position of a traced game, and why."""

from __future__ import annotations

import click

from sim.cli.common import main, ruleset_from, ruleset_option, seat_strategies, set_option


@main.command("advise")
@ruleset_option
@set_option
@click.option("--strategies", "seat_names", default="greedy,greedy,greedy,greedy", show_default=True,
              help="One strategy per seat, comma separated, as in `rami simulate`.")
@click.option("--seed", type=int, default=1, show_default=True, help="Simulation seed.")
@click.option("--game", type=int, default=0, show_default=True, help="Game index within the simulation.")
@click.option("--event", "index", type=int, default=None,
              help="Index of an event inside a round (the trace's game_start is event 0); "
                   "without it, list the events with their indices.")
@click.option("--strategy", default="expert", show_default=True,
              help="The strategy advised to the seat to move, e.g. expert or greedy:open_extra=20.")
@click.option("--max-rounds", type=int, default=None, help="Trace at most this many rounds.")
def advise_command(ruleset, overrides, seat_names, seed, game, index, strategy, max_rounds) -> None:
    """Trace one game and show what --strategy plays at the turn of event --event, and why.

    Example: rami advise --strategies greedy,expert,random --seed 3 --event 30 --strategy expert
    """
    import sim
    from sim import advice

    r = ruleset_from(ruleset, overrides)
    names = seat_strategies(seat_names)
    extra = {} if max_rounds is None else {"max_rounds": max_rounds}
    try:
        events = sim.play_traced(r, names, seed=seed, game=game, **extra)
        if index is None:
            for i, event in enumerate(events):
                click.echo(f"{i:6}  {event['type']:10} {advice.describe(event)}")
            return
        click.echo(str(sim.advise(events, index, strategy)))
    except (ValueError, TypeError) as exc:
        raise click.ClickException(str(exc)) from exc
