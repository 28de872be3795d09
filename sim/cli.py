"""The ``rami`` command line."""

from __future__ import annotations

import os
import time
from pathlib import Path

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


def _summary(df, elapsed: float) -> list[str]:
    """Short plain-text summary of a simulation frame."""
    import polars as pl

    from sim import api as sim_api

    rounds = df.select("game", "round").unique().height
    games = df["game"].n_unique()
    lines = [
        f"games {games:,}   rounds {rounds:,}   {elapsed:.1f} s   "
        f"{rounds / elapsed:,.0f} rounds/s   {games / elapsed:,.0f} games/s",
    ]
    blocked = df.filter(pl.col("seat") == 0)["blocked"]
    lines.append(
        f"blocked rounds {int((blocked != 'none').sum()):,} "
        f"({(blocked != 'none').mean():.1%}; stock {int((blocked == 'stock').sum())}, "
        f"turn cap {int((blocked == 'turn_cap').sum())})   "
        f"truncated games {df.filter(pl.col('truncated'))['game'].n_unique()}"
    )
    per_seat = (
        df.group_by("seat", "strategy")
        .agg(
            pl.col("points").mean().alias("points/round"),
            pl.col("opened").mean().alias("opened"),
            pl.col("open_turn").filter(pl.col("opened")).mean().alias("open turn"),
            pl.col("went_out").mean().alias("went out"),
        )
        .join(
            sim_api.game_summary(df).group_by("seat").agg(pl.col("won").mean().alias("games won")),
            on="seat",
        )
        .sort("seat")
    )
    lines.append(f"{'seat':>4} {'strategy':>10} {'points/round':>13} {'opened':>7} {'open turn':>10} {'went out':>9} {'games won':>10}")
    for row in per_seat.iter_rows(named=True):
        lines.append(
            f"{row['seat']:>4} {row['strategy']:>10} {row['points/round']:>13.2f} {row['opened']:>7.1%} "
            f"{row['open turn'] or float('nan'):>10.2f} {row['went out']:>9.1%} {row['games won']:>10.1%}"
        )
    return lines


def _seat_strategies(text: str) -> list[str]:
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


@main.command("simulate")
@_ruleset_option
@_set_option
@click.option("--strategies", "seat_names", default="greedy,greedy,greedy,greedy", show_default=True,
              help="One strategy per seat, comma separated; parameters by name as in "
                   "greedy:jokers=2,open_extra=10 (see `rami strategies`).")
@click.option("--games", "n_games", type=int, default=10_000, show_default=True, help="Games to play.")
@click.option("--seed", type=int, default=1, show_default=True, help="Simulation seed.")
@click.option("--workers", type=int, default=os.cpu_count() or 1, show_default="all cores",
              help="Threads running the engine (results do not depend on it).")
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path), default=Path("results.parquet"),
              show_default=True, help="Parquet file for the full results (one row per game, round, seat).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def simulate_command(ruleset, overrides, seat_names, n_games, seed, workers, out, quiet) -> None:
    """Play many games and write every round's result as parquet."""
    from tqdm import tqdm

    import sim

    r = _ruleset(ruleset, overrides)
    names = _seat_strategies(seat_names)
    # Check the output place before playing, so no computed result is lost.
    if not out.parent.exists() or not os.access(out.parent, os.W_OK):
        raise click.ClickException(f"cannot write {out}: folder {out.parent} is missing or not writable")
    if n_games < 1:
        raise click.ClickException(f"--games must be at least 1, got {n_games}")
    try:
        with tqdm(total=n_games, unit="game", disable=quiet, leave=False) as bar:
            start = time.perf_counter()
            df = sim.simulate(r, names, n_games=n_games, seed=seed, workers=workers, progress=bar.update)
            elapsed = time.perf_counter() - start
    except (ValueError, NotImplementedError) as exc:
        raise click.ClickException(str(exc)) from exc
    df.write_parquet(out)
    for line in _summary(df, elapsed):
        click.echo(line)
    click.echo(f"results: {out} ({df.height:,} rows)")


def _strategy_listing() -> dict:
    """Every strategy (name, kind, description, parameter values) and the parameter table, as plain data."""
    import strategies
    from strategies.policies import KIND_HEURISTIC, KIND_RANDOM

    kinds = {KIND_RANDOM: "random", KIND_HEURISTIC: "heuristic"}
    return {
        "strategies": [
            {
                "name": s.name,
                "kind": kinds.get(s.kind, str(s.kind)),
                "description": s.description,
                "params": {k: float(v) for k, v in s.params.items()},
            }
            for s in strategies.STRATEGIES.values()
        ],
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
    for s in listing["strategies"]:
        click.echo(click.wrap_text(s["description"], width=100, initial_indent=f"{s['name']:10} ",
                                   subsequent_indent=indent))
        values = " ".join(f"{k}={v:g}" for k, v in s["params"].items()) or "(no parameters)"
        click.echo(click.wrap_text(values, width=100, initial_indent=indent, subsequent_indent=indent))
    click.echo("")
    click.echo(f"{'parameter':12} {'range':7} meaning")
    for p in listing["parameters"]:
        click.echo(f"{p['name']:12} {str(p['low']) + '-' + str(p['high']):7} {p['meaning']}")
    click.echo("")
    click.echo('Change parameters by name: --strategies "greedy:jokers=2,open_extra=10,greedy" (docs/strategies.md).')


@main.command("advise")
@_ruleset_option
@_set_option
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

    r = _ruleset(ruleset, overrides)
    names = _seat_strategies(seat_names)
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
