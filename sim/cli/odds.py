"""``rami odds``: the odds of the first hands, from the engine's deals alone (docs/odds.md)."""

from __future__ import annotations

import click

from sim import rules
from sim.cli.cluster import on_cluster, workers_option
from sim.cli.common import (
    BadValue,
    Number,
    emit,
    emit_json,
    json_option,
    main,
    parse_overrides,
    ruleset_from,
    ruleset_option,
    seed_option_for,
    set_option,
)

_TITLES = {
    "first_turn": "can open on the first turn (hand dealt and first draw), by threshold",
    "dealt": "can open with the hand dealt alone, by threshold",
    "points": "best opening of the first turn's cards, by 10 points (0: no meld; 1: 1 to 9)",
    "jokers": "jokers in the hand dealt",
    "rami_sec": "can go out on the first turn (rami sec)",
    "contract_dealt": "holds the deal's contract in the hand dealt, by deal",
    "contract_drawn": "holds the deal's contract with the first draw, by deal",
}


def check_odds(ruleset: str, overrides: tuple[str, ...], players: int | None, hand_size: int | None,
               thresholds: str) -> tuple[rules.Ruleset, list[int]]:
    """Every check of ``rami odds``: the ruleset with ``--players`` and ``--hand-size``, and the thresholds."""
    parsed = parse_overrides(overrides)
    for option, knob, value in (("--players", "players", players), ("--hand-size", "deal", hand_size)):
        if value is None:
            continue
        if knob in parsed and parsed[knob] != value:
            raise BadValue(f"{option} {value} but --set {knob}={parsed[knob]}; give one of them")
        parsed[knob] = value
    base = ruleset_from(ruleset, {})
    if hand_size is not None and base.game == "contrat":
        raise BadValue(f"--hand-size {hand_size}: Rami contrat deals by its contract table; leave it unset")
    r = ruleset_from(ruleset, parsed)
    items = [t.strip() for t in thresholds.split(",")]
    values = []
    for item in items:
        if not item.isdigit() or not 1 <= int(item) <= 200:
            raise BadValue(f"--thresholds {thresholds!r}: {item!r} is not a whole number from 1 to 200; "
                           "give opening totals, e.g. --thresholds 30,40,51")
        values.append(int(item))
    return r, values


@main.command("odds")
@ruleset_option
@set_option
@click.option("--players", type=click.IntRange(rules.MIN_PLAYERS, rules.MAX_PLAYERS), default=None,
              help="Players at the table (--set players=N).")
@click.option("--hand-size", type=click.IntRange(1, 20), default=None,
              help="Cards dealt to each player (--set deal=N); not in Rami contrat.")
@click.option("--thresholds", default="30,40,51,61,71", show_default=True,
              help="Opening totals of the opening tables, comma separated.")
@click.option("--precision", type=Number(0.0001, 0.5), default=0.002, show_default=True,
              help="Deal until every share's 95% interval is at most this wide on each side (0.0001 to 0.5).")
@click.option("--max-hands", type=click.IntRange(1000, 10**9), default=2_000_000, show_default=True,
              help="Most hands dealt (per deal in Rami contrat).")
@seed_option_for("Seed of the games whose first rounds are dealt, 0 to 2**64 - 1 (as rami simulate).")
@workers_option
@json_option
@on_cluster
def odds_command(ruleset: str, overrides: tuple[str, ...], players: int | None, hand_size: int | None,
                 thresholds: str, precision: float, max_hands: int, seed: int, workers: int | None,
                 as_json: bool) -> None:
    """Print the odds of the first hands: opening on the first turn, best opening, jokers, rami sec, contracts.

    Counted on the very deals games get (no play), until each share is known
    to --precision; every share with its count and 95% Wilson interval.
    """
    from sim.odds_tables import ODDS_COLUMNS, odds

    r, values = check_odds(ruleset, overrides, players, hand_size, thresholds)
    result = odds(r, thresholds=values, precision=precision, max_hands=max_hands, seed=seed, tables=True,
                  workers=workers or 1)
    if as_json:
        emit_json({"rules": ruleset, "overrides": parse_overrides(overrides), "players": r.players,
                   "hand_size": None if r.game == "contrat" else r.hand_size(0), "seed": seed,
                   "precision": precision, "precision_reached": result.reached, "hands": result.hands,
                   "seconds": round(result.seconds, 3), "columns": ODDS_COLUMNS, "rows": result.rows})
        return
    hand = "contract table" if r.game == "contrat" else f"{r.hand_size(0)} cards"
    lines = [f"{ruleset}: {r.players} players, {hand}, {r.deck_size}-card deck; {result.hands:,} deals of seed "
             f"{seed} ({'precision reached' if result.reached else 'precision NOT reached: --max-hands'}, "
             f"{result.seconds:.1f} s)"]
    shown = None
    for row in result.rows:
        if row["table"] != shown:
            shown = row["table"]
            lines.append("")
            lines.append(_TITLES[shown])
            lines.append(f"  {'value':>6} {'share':>9}   {'95% interval':<19} {'hits':>9} {'hands':>10}")
        lines.append(f"  {row['value']:>6} {row['share']:>9.4%}   {row['low']:.4%} - {row['high']:.4%}"
                     f"{'':<1} {row['hits']:>9,} {row['hands']:>10,}")
    emit("\n".join(lines))
