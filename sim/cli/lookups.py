"""Commands that look things up without playing: a ruleset's knobs, what a
hand can lay, the strategies."""

from __future__ import annotations

import click

from sim import cards as cardlib
from sim import rules
from sim.cli.common import (
    BadValue,
    ascii_option,
    emit,
    emit_json,
    json_option,
    main,
    parse_overrides,
    ruleset_from,
    ruleset_option,
    set_option,
)


@main.command("rules")
@ruleset_option
@set_option
@json_option
def show_rules(ruleset: str, overrides: tuple[str, ...], as_json: bool) -> None:
    """Print every knob of a ruleset (docs/rulesets.md says what each means)."""
    r = ruleset_from(ruleset, overrides)
    if as_json:
        emit_json({"rules": ruleset, "overrides": parse_overrides(overrides), "knobs": r.to_dict()})
        return
    for knob, value in r.to_dict().items():
        click.echo(f"{knob:28} {value}")


def hand_report(held: list[cardlib.Card], r: rules.Ruleset) -> dict:
    """What ``held`` can lay under ``r``, as plain data (cards in notation)."""
    _, melds = rules.best_collection(
        held, r, lambda reading, codes: reading.points, r.open_needs_natural_run
    )
    opening = rules.best_opening(held, r)
    shown = [rules.classify_meld(m, r) for m in melds] if melds and opening else []
    return {
        "hand": cardlib.format(held),
        "cards": len(held),
        "game": r.game,
        "best_opening": {
            "points": opening,
            "melds": [{"cards": m.text(), "kind": m.kind, "points": m.points} for m in shown],
        },
        "threshold": r.open_threshold if r.game == "rami51" else None,
        "opens": opening >= r.open_threshold if r.game == "rami51" else None,
        "most_cards_melded": rules.max_melded_cards(held, r),
        "penalty": rules.hand_penalty(held, r),
        "contracts_met": [deal for deal in range(1, len(rules.CONTRACTS) + 1) if rules.meets_contract(held, deal, r)]
        if r.game == "contrat" else None,
    }


def check_hand(hand: tuple[str, ...], ruleset: str, overrides: tuple[str, ...]) -> tuple:
    """Every check of ``rami hand``: the ruleset and the cards, each a possible hand of it."""
    r = ruleset_from(ruleset, overrides)
    text = " ".join(hand)
    if not text.strip():
        raise BadValue("no cards given: HAND is cards in notation, e.g. rami hand 7H 8H 9H JK")
    empty = next((i for i, part in enumerate(hand) if not part.strip()), None)
    if empty is not None:
        # An empty argument among the cards is a slip (an unset shell variable, a stray ""), not a card.
        raise BadValue(f"HAND: argument {empty + 1} of {len(hand)} is empty; give cards in notation, "
                       "e.g. rami hand 7H 8H 9H JK")
    try:
        return r, rules.check_cards(text, r)
    except ValueError as exc:
        raise BadValue(f"HAND: {exc}") from None


@main.command("hand")
@click.argument("hand", nargs=-1)
@ruleset_option
@set_option
@ascii_option
@json_option
def analyse_hand(hand: tuple[str, ...], ruleset: str, overrides: tuple[str, ...], use_ascii: bool,
                 as_json: bool) -> None:
    """Show what a HAND can lay: best opening, melds, penalty.

    The cards are one argument or several: rami hand "KC KD KH 9S 10S JS 2D" or
    rami hand KC KD KH 9S 10S JS 2D (suits C D H S or the suit symbols, JK for a joker).
    """
    r, held = check_hand(hand, ruleset, overrides)
    report = hand_report(held, r)
    if as_json:
        emit_json(report, use_ascii)
        return
    opening = report["best_opening"]
    lines = [f"hand              {report['hand']}"]
    if opening["melds"]:
        melds = "  ".join(m["cards"] for m in opening["melds"])
        lines.append(f"best opening      {opening['points']} points: {melds}")
    else:
        lines.append("best opening      none")
    if report["threshold"] is not None:
        verdict = "opens" if report["opens"] else "cannot open yet"
        lines.append(f"threshold         {report['threshold']}: {verdict}")
    if report["contracts_met"] is not None:
        met = ", ".join(str(d) for d in report["contracts_met"])
        lines.append(f"contracts met     {'deals ' + met if met else 'none'}")
    lines.append(f"most cards melded {report['most_cards_melded']} of {report['cards']}")
    lines.append(f"penalty in hand   {report['penalty']}")
    emit("\n".join(lines), use_ascii)


def _strategy_listing() -> dict:
    """Every strategy (name, kind, description, parameter values) and the parameter table, as plain data."""
    import strategies
    from sim.engine.policies import KIND_HEURISTIC, KIND_RANDOM, KIND_SEARCH

    kinds = {KIND_RANDOM: "random", KIND_HEURISTIC: "heuristic", KIND_SEARCH: "search"}

    def entry(s) -> dict:
        return {
            "name": s.name,
            "kind": kinds.get(s.kind, str(s.kind)),
            "description": s.description,
            "params": {k: float(v) for k, v in s.params.items()},
            "per_game": {g: {k: float(v) for k, v in p.items()} for g, p in s.per_game.items()},
            **({"base": s.base.name} if s.base is not None else {}),
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
@json_option
def list_strategies(as_json: bool) -> None:
    """List the strategies, their parameter values, and what each parameter means.

    Change parameters by name, e.g.
    rami simulate --strategies "greedy:jokers=2,open_extra=10,greedy,greedy,greedy"
    (see docs/strategies.md).
    """
    listing = _strategy_listing()
    if as_json:
        emit_json(listing)
        return
    indent = " " * 11
    for s in listing["strategies"] + listing["tuned"]:
        if listing["tuned"] and s is listing["tuned"][0]:
            click.echo("\ntuned strategies (strategies/tuned/, used by name):")
        click.echo(click.wrap_text(s["description"], width=100, initial_indent=f"{s['name']:10} ",
                                   subsequent_indent=indent))
        values = " ".join(f"{k}={v:g}" for k, v in s["params"].items()) or "(no parameters)"
        if "base" in s:
            values += f" base={s['base']}"
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

