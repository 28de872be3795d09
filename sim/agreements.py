"""Agreement rate: how often a strategy chooses what a yardstick (by default the searching player) would.

:func:`agreement` plays ``games`` traced games (:func:`sim.play_traced`)
with the strategy at the chosen seats and a field elsewhere, and walks every
decision of those seats (:func:`sim.analysis.analyse.walk`). At each one
with two legal choices or more it sets the strategy's own choice (the one the
game played) beside the yardstick's choice at the same position: the
position with the yardstick in the seat (:meth:`sim.Position.with_strategies`)
and one step of it (:meth:`sim.Position.step`).

What the yardstick sees. For ``search`` that step is the searching player's
own decision: its base strategy's choice, then rollouts from the cards the
seat can see, the others' hands and the stock dealt anew at every trial from
the unseen cards, keeping the cards each seat is publicly known to hold,
which :func:`sim.rollouts.known_cards` counts again from the round's public
events up to the position (the pile's takes, "Puis-je ?", jokers taken back,
the cards laid and thrown). Its rollouts are seeded by the game's seed, the
game and the decision, as in a game the searching player plays itself, so a
run is deterministic for a seed whatever the number of workers. Any other
strategy may be the yardstick: its own decision at the position (a strategy
against itself agrees at every decision).

The share and its interval. The share of decisions where the two agree, per
kind of decision (``draw``, ``lay``, ``discard``, and any other kind the
walk meets) and over all of them. Decisions of one game are not independent
(one hand, one table), so the 95% interval treats the game as the unit: the
ratio of the games' agreements to their decisions with the cluster-robust
interval of :func:`sim.intervals.ratio_interval` (kept within 0 and 1).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import polars as pl

import strategies as strategy_lib
from sim import ahead, distributed
from sim import rules as rules_lib
from sim.analysis.analyse import KINDS, walk
from sim.checks import check_seed, check_whole, is_whole
from sim.api import play_traced, resolve, ruleset_label
from sim.intervals import ratio_interval
from sim.position import Position

__all__ = ["Agreement", "Disagreement", "agreement", "agreement_table", "position_text", "yardstick_choice"]

TABLE_SCHEMA = {"kind": pl.String, "decisions": pl.Int64, "agreements": pl.Int64, "share": pl.Float64,
                "low": pl.Float64, "high": pl.Float64}
DECISION_SCHEMA = {"game": pl.Int64, "event": pl.Int64, "round": pl.Int64, "turn": pl.Int64, "seat": pl.Int64,
                   "kind": pl.String, "choices": pl.Int64, "agreed": pl.Boolean}


@dataclass(frozen=True)
class Disagreement:
    """One decision where the strategy and the yardstick chose differently.

    ``game`` and ``event`` locate it (``Position.from_trace(sim.play_traced(..., game=game), event)`` stands
    there, see :mod:`sim.analysis.analyse` for the one exception, a laying ended by ``stop``); ``position`` is
    what the seat saw, in words; ``chosen`` the strategy's choice, ``yardstick`` the yardstick's, both in the
    notation of :meth:`sim.Position.legal_choices`.
    """

    game: int
    event: int
    round: int
    turn: int
    seat: int
    kind: str
    position: str
    chosen: str
    yardstick: str


@dataclass(frozen=True)
class Agreement:
    """The result of :func:`agreement`.

    ``table``: one row per kind of decision, in a turn's order, then ``"all"``: ``decisions`` compared,
    ``agreements``, their ``share`` and its 95% interval ``low`` .. ``high`` (games as the unit; NaN with
    fewer than two games). ``decisions``: every decision compared, one row each (``game``, ``event``,
    ``round``, ``turn``, ``seat``, ``kind``, ``choices``: how many were legal, ``agreed``), for other cuts.
    ``disagreements``: every decision where the two differ, in the games' order.
    """

    strategy: str
    yardstick: str
    ruleset: str
    table_strategies: tuple[str, ...]
    seats: tuple[int, ...]
    games: int
    seed: int
    table: pl.DataFrame
    decisions: pl.DataFrame
    disagreements: tuple[Disagreement, ...]

    def kinds(self) -> list[str]:
        """The kinds of decision met, in the table's order (``"all"`` not included)."""
        return [k for k in self.table["kind"].to_list() if k != "all"]

    def row(self, kind: str = "all") -> dict[str, Any]:
        """The table's row of ``kind`` as a dict (``ValueError`` for a kind never met)."""
        rows = self.table.filter(pl.col("kind") == kind).to_dicts()
        if not rows:
            raise ValueError(f"no {kind!r} decision was compared; the kinds met: {', '.join(self.kinds()) or 'none'}")
        return rows[0]

    def examples(self, k: int) -> list[Disagreement]:
        """Up to ``k`` disagreements of each kind, the first ones met."""
        out: list[Disagreement] = []
        for kind in self.kinds():
            out += [d for d in self.disagreements if d.kind == kind][:k]
        return out

    def text(self, examples: int = 3) -> str:
        """The table, and up to ``examples`` disagreements of each kind."""
        seats = ", ".join(str(s) for s in self.seats)
        lines = [f"Agreement of {self.strategy} with {self.yardstick} ({self.ruleset}, seats "
                 f"{', '.join(self.table_strategies)}; {self.strategy} at seat{'s' if len(self.seats) > 1 else ''} "
                 f"{seats}; {self.games} games, seed {self.seed})",
                 "decisions with two legal choices or more; 95% intervals with the game as the unit",
                 f"  {'kind':<9} {'decisions':>9} {'agreements':>10} {'share':>7}  95% interval"]
        for r in self.table.iter_rows(named=True):
            interval = "-" if math.isnan(r["low"]) else f"[{r['low']:.1%}, {r['high']:.1%}]"
            share = "-" if math.isnan(r["share"]) else f"{r['share']:.1%}"
            lines.append(f"  {r['kind']:<9} {r['decisions']:>9} {r['agreements']:>10} {share:>7}  {interval}")
        shown = self.examples(examples) if examples > 0 else []
        if shown:
            lines.append(f"disagreements (the first {examples} of each kind; {len(self.disagreements)} in all):")
            for d in shown:
                lines.append(f"  game {d.game}, event {d.event}, {d.kind}: {self.strategy} {d.chosen!r}, "
                             f"{self.yardstick} {d.yardstick!r}")
                lines.append(f"    {d.position}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text()

    def to_dict(self, examples: int | None = None) -> dict[str, Any]:
        """The result for JSON: the table's rows and the disagreements (``examples``: only that many of each
        kind; ``None``: all of them)."""
        shown = self.disagreements if examples is None else self.examples(examples)
        table = [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
                 for r in self.table.to_dicts()]
        return {"strategy": self.strategy, "yardstick": self.yardstick, "ruleset": self.ruleset,
                "strategies": list(self.table_strategies), "seats": list(self.seats), "games": self.games,
                "seed": self.seed, "table": table, "disagreements_total": len(self.disagreements),
                "disagreements": [asdict(d) for d in shown]}


def yardstick_choice(position: Position, yardstick: str | strategy_lib.Strategy) -> str:
    """What ``yardstick`` would play at ``position`` in the seat to move, in :meth:`sim.Position.legal_choices`'s
    notation. For ``search``, its searching decision from what the seat can see (see the module's docstring)."""
    if position.decision == "over":
        raise ValueError("the round is over at this position")
    seats = list(position.strategies)
    seats[position.seat] = strategy_lib.get(yardstick)
    choice, _ = position.with_strategies(seats).step()
    return choice


def position_text(position: Position) -> str:
    """What the seat to move sees at ``position``, in one line of words: the decision, its hand, the pile's top,
    the stock's size, the table, and the legal choices."""
    seat = position.seat
    seen = position.observe(seat)
    pile = position.pile().split()
    table = "; ".join(f"{i}: {m}" for i, m in enumerate(position.table())) or "empty"
    opened = "opened" if seen.opened else "not opened"
    return (f"round {position.round}, turn {position.turn}, seat {seat} ({opened}) to {position.decision}: "
            f"hand {position.hand(seat)}; pile top {pile[-1] if pile else '-'}; stock {seen.stock}; table {table}; "
            f"legal: {' | '.join(position.legal_choices())}")


def _table(r: rules_lib.Ruleset, strategy: str, field: str | Sequence[str] | None,
           seats: tuple[int, ...]) -> tuple[rules_lib.Ruleset, list[str]]:
    """One strategy per seat: ``strategy`` at ``seats``, the field's in order at the others."""
    if field is None or isinstance(field, str):
        players = r.players
        others = [strategy if field is None else field] * (players - len(seats))
    else:
        others = list(field)
        players = len(others) + len(seats)
        if not others:
            raise ValueError("field must name at least one other seat")
        try:
            r = r.replace(players=players)
        except rules_lib.RulesetError as exc:
            raise ValueError(f"field names {len(others)} other seats: {exc}") from None
    out = [s for s in seats if s >= players]
    if out:
        raise ValueError(f"seat {out[0]} is out of range: the game has seats 0 .. {players - 1}")
    if len(seats) >= players:
        raise ValueError("seats must leave at least one seat to the field")
    rest = iter(others)
    return r, [strategy if s in seats else next(rest) for s in range(players)]


def _check_seats(seats: Sequence[int] | int) -> tuple[int, ...]:
    if is_whole(seats):
        seats = [seats]
    if isinstance(seats, str) or not isinstance(seats, Sequence) or not seats:
        raise ValueError(f"seats must be a list of seat numbers, got {seats!r}")
    for s in seats:
        if not is_whole(s, 0):
            raise ValueError(f"seats must be whole numbers from 0, got {s!r}")
    return tuple(sorted({int(s) for s in seats}))


def _name(s: str | strategy_lib.Strategy) -> str:
    return s if isinstance(s, str) else strategy_lib.get(s).name


def _one_game(r: rules_lib.Ruleset, chosen: list[strategy_lib.Strategy], yardstick: strategy_lib.Strategy,
              seats: tuple[int, ...], seed: int, game: int,
              max_rounds: int | None) -> tuple[list[dict[str, Any]], list[Disagreement]]:
    """Every compared decision of game ``game`` and its disagreements."""
    extra = {} if max_rounds is None else {"max_rounds": max_rounds}
    events = play_traced(r, chosen, seed=seed, game=game, **extra)
    rows: list[dict[str, Any]] = []
    differ: list[Disagreement] = []
    for step in walk(events):
        p = step.position
        if p.seat not in seats:
            continue
        legal = p.legal_choices()
        if len(legal) < 2:
            continue
        theirs = yardstick_choice(p, yardstick)
        agreed = theirs == step.played
        rows.append({"game": game, "event": step.event, "round": p.round, "turn": p.turn, "seat": p.seat,
                     "kind": p.decision, "choices": len(legal), "agreed": agreed})
        if not agreed:
            differ.append(Disagreement(game, step.event, p.round, p.turn, p.seat, p.decision, position_text(p),
                                       step.played, theirs))
    return rows, differ


def _ordered_kinds(met: Sequence[str]) -> list[str]:
    """The kinds met: a turn's known kinds in their order, then any other in the order first met."""
    seen = list(dict.fromkeys(met))
    return [k for k in KINDS if k in seen] + [k for k in seen if k not in KINDS]


def agreement_table(decisions: pl.DataFrame, games: int) -> pl.DataFrame:
    """The table of :class:`Agreement` from its ``decisions`` frame over games ``0 .. games - 1``.

    One row per kind of decision met (a turn's ``draw``, ``lay``, ``discard`` first, then any other kind in the
    order first met), then ``"all"``: decisions, agreements, their share and its 95% interval, the games as
    clusters (a game without a decision of that kind counts as a cluster with none).
    """
    rows = []
    kinds = _ordered_kinds(decisions["kind"].to_list())
    for kind in [*kinds, "all"]:
        part = decisions if kind == "all" else decisions.filter(pl.col("kind") == kind)
        per_game = part.group_by("game").agg(pl.len().alias("n"), pl.col("agreed").sum().alias("k"))
        counts = np.zeros(games)
        agreed = np.zeros(games)
        counts[per_game["game"].to_numpy()] = per_game["n"].to_numpy()
        agreed[per_game["game"].to_numpy()] = per_game["k"].to_numpy()
        interval = ratio_interval(agreed, counts, share=True)
        rows.append({"kind": kind, "decisions": int(counts.sum()), "agreements": int(agreed.sum()),
                     "share": interval.mean, "low": interval.low, "high": interval.high})
    return pl.DataFrame(rows, schema=TABLE_SCHEMA)


@distributed.on_cluster
def agreement(
    strategy: str | strategy_lib.Strategy,
    yardstick: str | strategy_lib.Strategy = "search",
    *,
    rules: rules_lib.Ruleset | str = "rami51",
    field: str | Sequence[str] | None = None,
    games: int = 20,
    seats: Sequence[int] | int = (0,),
    seed: int = 1,
    workers: int = 1,
    max_rounds: int | None = None,
    scheduler: Any = None,
) -> Agreement:
    """How often ``strategy`` chooses what ``yardstick`` would, over the decisions of real games.

    Parameters
    ----------
    strategy : str or Strategy
        The strategy measured: a preset (``"expert"``), a parametrised one (``"expert:jokers=2"``), a tuned
        strategy's name or file.
    yardstick : str or Strategy
        The player it is measured against, deciding at the same positions from what the seat can see:
        ``"search"`` (the default; ``"search:trials=8"`` for a smaller budget) or any strategy.
    rules : Ruleset or str
        The ruleset or a preset's name.
    field : str or sequence of str, optional
        The other seats' strategies: one name for every other seat, or one per other seat in seat order
        (their number then sets the players). Default: ``strategy`` at every seat.
    games : int
        Games played, games ``0 .. games - 1`` of the simulation seeded ``seed``.
    seats : int or sequence of int
        The seats where ``strategy`` plays and whose decisions are compared.
    seed : int
        The simulation's seed (the games, and the searching yardstick's rollouts).
    workers : int
        Threads playing games side by side; the result does not depend on it.
    max_rounds : int, optional
        Play at most this many rounds of each game.
    scheduler : str or distributed.Client, optional
        Play the games on this Dask cluster (:mod:`sim.distributed`), one
        task a game: the same result as a local run.

    Returns
    -------
    Agreement
        The share of agreements per kind of decision and over all, with 95% intervals whose unit is the game,
        every compared decision, and the disagreements (see :class:`Agreement`).

    Raises
    ------
    ValueError
        For an unknown strategy, a bad count or seat, before any game is played.
    """
    games = check_whole("games", games, 1)
    workers = check_whole("workers", workers, 1)
    if max_rounds is not None:
        max_rounds = check_whole("max_rounds", max_rounds, 1)
    seed = check_seed(seed)
    focal = _check_seats(seats)
    r = rules_lib.as_ruleset(rules)
    r, table = _table(r, _name(strategy), None if field is None else
                      (field if isinstance(field, str) else [_name(f) for f in field]), focal)
    r, chosen = resolve(r, table)  # checks every strategy
    measured = strategy_lib.get(strategy)
    judge = strategy_lib.get(yardstick).for_game(r.game)
    names = [s.name for s in chosen]
    # One piece a game: a game's figures depend on its seed and index alone, so any split gives the same share.
    parts = distributed.run_pieces(_one_game, [(r, chosen, judge, focal, int(seed), i, max_rounds)
                                               for i in range(games)], workers,
                                   warm=ahead.warm_up("positions"))
    rows = [row for part, _ in parts for row in part]
    decisions = pl.DataFrame(rows, schema=DECISION_SCHEMA)
    return Agreement(
        strategy=measured.name, yardstick=judge.name, ruleset=ruleset_label(r), table_strategies=tuple(names),
        seats=focal, games=games, seed=int(seed), table=agreement_table(decisions, games), decisions=decisions,
        disagreements=tuple(d for _, part in parts for d in part),
    )
