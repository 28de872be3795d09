"""What every ``rami`` command shares: the command group, the ruleset and
strategy options, and how their values are read."""

from __future__ import annotations

import click

from sim import rules


def ruleset_from(name: str, overrides: tuple[str, ...]) -> rules.Ruleset:
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


ruleset_option = click.option(
    "--rules", "ruleset", default="rami51", show_default=True,
    help=f"Preset ({', '.join(rules.PRESETS)}) or a ruleset TOML file.",
)
set_option = click.option(
    "--set", "overrides", multiple=True, metavar="KNOB=VALUE",
    help="Override one knob, e.g. --set open_threshold=30 (repeatable).",
)


@click.group()
def main() -> None:
    """Monte-Carlo lab for French rummy: Rami 51, Rami contrat and basic rummy."""


def seat_strategies(text: str) -> list[str]:
    """One strategy per seat from ``--strategies``.

    Items are comma separated; an item ``name=value`` (no strategy name has
    ``=``) continues the parameters of the strategy before it, so
    ``"greedy:jokers=2,open_extra=10,random"`` is two seats.
    """
    seats: list[str] = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        if "=" in item and ":" not in item:
            if not seats or ":" not in seats[-1]:
                raise click.BadParameter(
                    f"{item!r} follows no strategy with parameters; write e.g. greedy:{item}",
                    param_hint="--strategies",
                )
            seats[-1] += "," + item
        else:
            seats.append(item)
    return seats

