"""The ``rami`` command line."""

from __future__ import annotations

import click

from sim import cards as cardlib
from sim import rules


def _ruleset(name: str, overrides: tuple[str, ...]) -> rules.Ruleset:
    """A preset or TOML file with ``knob=value`` overrides (values read as TOML)."""
    import tomllib

    parsed = {}
    for item in overrides:
        if "=" not in item:
            raise click.BadParameter(f"{item!r}: expected knob=value", param_hint="--set")
        knob, value = item.split("=", 1)
        try:
            parsed[knob.strip()] = tomllib.loads(f"v = {value.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            parsed[knob.strip()] = value.strip()  # a bare word: a choice such as free
    try:
        return rules.as_ruleset(name).replace(**parsed)
    except rules.RulesetError as exc:
        raise click.ClickException(str(exc)) from exc


_ruleset_option = click.option(
    "--rules", "ruleset", default="rami51", show_default=True,
    help=f"Preset ({', '.join(rules.PRESETS)}) or a ruleset TOML file.",
)
_set_option = click.option(
    "--set", "overrides", multiple=True, metavar="KNOB=VALUE",
    help="Override one knob, e.g. --set open_threshold=30 (repeatable).",
)


@click.group()
def main() -> None:
    """Monte-Carlo lab for French rummy: Rami 51, Rami contrat and basic rummy."""


@main.command("rules")
@_ruleset_option
@_set_option
def show_rules(ruleset: str, overrides: tuple[str, ...]) -> None:
    """Print every knob of a ruleset."""
    r = _ruleset(ruleset, overrides)
    for knob, value in r.to_dict().items():
        click.echo(f"{knob:28} {value}")


@main.command("hand")
@click.argument("hand")
@_ruleset_option
@_set_option
@click.option("--ascii", "use_ascii", is_flag=True, help="Write suits as C D H S.")
def analyse_hand(hand: str, ruleset: str, overrides: tuple[str, ...], use_ascii: bool) -> None:
    """Show what a HAND can lay: best opening, melds, penalty.

    Example: rami hand "K♣ K♦ K♥ 9♠ 10♠ J♠ 2♦"
    """
    r = _ruleset(ruleset, overrides)
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
