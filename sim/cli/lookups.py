"""Commands that look things up without playing: a ruleset's knobs, what a
hand can lay, the strategies."""

from __future__ import annotations

import click

from sim import cards as cardlib
from sim import rules
from sim.cli.common import main, ruleset_from, ruleset_option, set_option


@main.command("rules")
@ruleset_option
@set_option
def show_rules(ruleset: str, overrides: tuple[str, ...]) -> None:
    """Print every knob of a ruleset."""
    r = ruleset_from(ruleset, overrides)
    for knob, value in r.to_dict().items():
        click.echo(f"{knob:28} {value}")


@main.command("hand")
@click.argument("hand")
@ruleset_option
@set_option
@click.option("--ascii", "use_ascii", is_flag=True, help="Write suits as C D H S.")
def analyse_hand(hand: str, ruleset: str, overrides: tuple[str, ...], use_ascii: bool) -> None:
    """Show what a HAND can lay: best opening, melds, penalty.

    Example: rami hand "K♣ K♦ K♥ 9♠ 10♠ J♠ 2♦"
    """
    r = ruleset_from(ruleset, overrides)
    try:
        held = cardlib.parse(hand)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    total, melds = rules.best_collection(
        held, r, lambda reading, codes: reading.points, r.open_needs_natural_run
    )
    opening = rules.best_opening(held, r)
    click.echo(f"hand              {cardlib.format(held, ascii=use_ascii)}")
    if melds and opening:
        shown = "  ".join(
            rules.classify_meld(m, r).text(ascii=use_ascii) for m in melds
        )
        click.echo(f"best opening      {opening} points: {shown}")
    else:
        click.echo("best opening      none")
    if r.game == "rami51":
        verdict = "opens" if opening >= r.open_threshold else "cannot open yet"
        click.echo(f"threshold         {r.open_threshold}: {verdict}")
    click.echo(f"most cards melded {rules.max_melded_cards(held, r)} of {len(held)}")
    click.echo(f"penalty in hand   {rules.hand_penalty(held, r)}")



def _strategy_listing() -> dict:
    """Every strategy (name, kind, description, parameter values) and the parameter table, as plain data."""
    import strategies
    from strategies.policies import KIND_HEURISTIC, KIND_RANDOM

    kinds = {KIND_RANDOM: "random", KIND_HEURISTIC: "heuristic"}

    def entry(s) -> dict:
        return {
            "name": s.name,
            "kind": kinds.get(s.kind, str(s.kind)),
            "description": s.description,
            "params": {k: float(v) for k, v in s.params.items()},
            "per_game": {g: {k: float(v) for k, v in p.items()} for g, p in s.per_game.items()},
        }

    return {
        "strategies": [entry(s) for s in strategies.STRATEGIES.values()],
        "tuned": [entry(strategies.get(name)) for name in strategies.files.registered()],
        "parameters": [
            {"name": name, "index": index, "low": low, "high": high, "meaning": meaning}
            for name, (index, low, high, meaning) in strategies.PARAMETERS.items()
        ],
    }


@main.command("strategies")
@click.option("--json", "as_json", is_flag=True, help="Print the same as JSON, for tools.")
def list_strategies(as_json: bool) -> None:
    """List the strategies, their parameter values, and what each parameter means.

    Change parameters by name, e.g.
    rami simulate --strategies "greedy:jokers=2,open_extra=10,greedy,greedy,greedy"
    (see docs/strategies.md).
    """
    import json

    listing = _strategy_listing()
    if as_json:
        click.echo(json.dumps(listing, indent=2))
        return
    indent = " " * 11
    for s in listing["strategies"] + listing["tuned"]:
        if listing["tuned"] and s is listing["tuned"][0]:
            click.echo("\ntuned strategies (strategies/tuned/, used by name):")
        click.echo(click.wrap_text(s["description"], width=100, initial_indent=f"{s['name']:10} ",
                                   subsequent_indent=indent))
        values = " ".join(f"{k}={v:g}" for k, v in s["params"].items()) or "(no parameters)"
        click.echo(click.wrap_text(values, width=100, initial_indent=indent, subsequent_indent=indent))
        for game, changed in s["per_game"].items():
            text = f"in {game}: " + " ".join(f"{k}={v:g}" for k, v in changed.items() if s["params"].get(k) != v)
            click.echo(click.wrap_text(text, width=100, initial_indent=indent, subsequent_indent=indent + "  "))
    click.echo("")
    click.echo(f"{'parameter':12} {'range':7} meaning")
    for p in listing["parameters"]:
        click.echo(f"{p['name']:12} {str(p['low']) + '-' + str(p['high']):7} {p['meaning']}")
    click.echo("")
    click.echo('Change parameters by name: --strategies "greedy:jokers=2,open_extra=10,greedy" (docs/strategies.md).')

