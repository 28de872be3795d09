"""Forks at positions of real games: one decision played both ways, from the same position, on the same futures.

A game-level experiment changes a habit for a whole game; a fork changes one
decision. The fork experiments (:mod:`experiments.joker_fork`,
:mod:`experiments.opening_fork`) share this machinery:

1. **Positions from real games.** Games are played by the engine and traced
   (:func:`sim.play_traced`, the very games :func:`sim.simulate` plays under
   the same seed); every event where the decision arises is a candidate, and
   at most ``per_game`` candidates of each game, drawn at random, become
   positions (:meth:`sim.Position.from_trace`). A candidate is kept only if
   the position really offers both choices: the seat's own strategy plays
   the "now" choice there, and the other choice is legal.
2. **Both choices played out.** :func:`sim.rollout` plays each choice and
   the rest of the round ``trials`` times, on common random numbers (trial
   ``t`` of both choices shares its re-deal and its future, card by card of
   the stock). After the fork every seat plays its own strategy again: a
   fork measures this decision, not a new habit.
3. **Averaged over positions.** A position's value is the mean paired
   difference over its trials; the experiment's answer is the mean over
   positions, with a 95% interval that resamples games (the positions drawn
   from one game are resampled together, so with ``per_game > 1`` they count
   as one cluster). That interval holds both the spread between positions
   and each position's trial noise.

Rows: one per position (the ``positions`` table of the run's one dataset,
``data/positions``, written a few games at a time so that a stopped run
resumes), with the position in card notation, both choices, both values,
and the facts the breakdown groups by.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import polars as pl
from matplotlib.figure import Figure

import sim
from experiments import configs, plots, stats, wording
from experiments.experiment import Experiment, experiment_from
from experiments.findings import Finding, Results, rng_for
from experiments.runner import read_summary, row_config
from sim import ahead, provenance, rules, store
from sim.analysis.analyse import decision_of
from sim.analysis.decisions import MARK_THRESHOLDS, Analysis
from sim.modes import BELIEF, MODES
from sim.position import Position
from sim.rollouts import Rollout

__all__ = ["POSITION_COLUMNS", "Fork", "ForkConfig", "PositionsPart", "breakdown_findings", "collect", "experiment",
           "game_level", "page_blocks", "positions", "went_out_this_turn"]

HEADLINE = "round points at the fork"
OUT_RATE = "going-out rate at the fork"
LEVEL = "round points after the choice"


@dataclass(frozen=True)
class ForkConfig(configs.Config):
    """What a fork experiment's config holds.

    Attributes
    ----------
    games : int
        Traced games the positions are drawn from.
    per_game : int
        At most this many positions from one game (they are resampled together).
    trials : int
        Rollout trials per choice and position.
    mode : str
        ``"belief"`` (re-deal what the seat cannot see: the question a player
        faces) or ``"clairvoyant"`` (the true hidden cards).
    ruleset : str
        A Rami 51 preset or ruleset file.
    players : int
        Seats at the table.
    strategy : str
        The strategy every seat plays, in the traced games and after the fork.
    """

    games: int = 100
    per_game: int = 2
    trials: int = 400
    mode: str = BELIEF
    ruleset: str = "rami51"
    players: int = 4
    strategy: str = "greedy"

    def __post_init__(self) -> None:
        super().__post_init__()
        checks = [
            ("per_game", self.per_game >= 1, "at least 1"),
            ("trials", self.trials >= 2, "at least 2 (an interval needs two trials)"),
            ("mode", self.mode in MODES, " or ".join(MODES)),
            ("players", rules.MIN_PLAYERS <= self.players <= rules.MAX_PLAYERS,
             f"from {rules.MIN_PLAYERS} to {rules.MAX_PLAYERS}"),
            ("precision", self.precision is None,
             "unset: a fork experiment has no sequential mode (give games, per_game and trials)"),
        ]
        for key, ok, allowed in checks:
            if not ok:
                raise ValueError(f"config key {key!r} must be {allowed}, got {getattr(self, key)!r}")


@dataclass(frozen=True)
class Fork:
    """One decision of the game, as a fork experiment studies it.

    Attributes
    ----------
    now, other : str
        How the report names the two choices ("lay the joker now", "keep it").
    other_choice : str
        The other choice, in the notation of :meth:`sim.Position.legal_choices`.
    candidate : callable
        ``candidate(events, index)``: the facts of a traced event where the
        decision may arise (a dict of report columns), or ``None``.
    plays_now : callable
        ``plays_now(choice)``: whether the seat's own choice at the position
        is the "now" choice of the fork.
    salt : int
        Keeps the position draws of two forks apart.
    facts : dict
        The columns ``candidate`` adds to a position's row, with their
        types (so that a batch of games offering no position still has
        every column).
    """

    now: str
    other: str
    other_choice: str
    candidate: Callable[[list[dict[str, Any]], int], dict[str, Any] | None]
    plays_now: Callable[[str], bool]
    salt: int
    facts: Mapping[str, pl.DataType] = field(default_factory=dict)


def went_out_this_turn(events: Sequence[dict[str, Any]], index: int) -> bool:
    """Whether the seat of ``events[index]`` goes out in the turn that event belongs to."""
    seat = events[index].get("seat")
    for e in events[index + 1:]:
        if e["type"] == "out":
            return e.get("seat") == seat
        if e["type"] in ("draw", "round_end", "deal", "blocked"):
            return False
    return False


def _rollout_seed(config: ForkConfig, game: int, index: int, salt: int) -> int:
    """A rollout seed of its own per position, the same on every run of ``config``."""
    return int(np.random.default_rng([config.seed, game, index, salt]).integers(0, 2**62))


POSITION_COLUMNS: dict[str, pl.DataType] = {
    "game": pl.Int64, "round": pl.Int64, "event": pl.Int64, "turn": pl.Int64, "table_turn": pl.Int64,
    "seat": pl.Int64, "hand": pl.String, "hand_size": pl.Int64, "table": pl.String, "pile": pl.String,
    "now": pl.String, "other": pl.String, "points_now": pl.Float64, "points_other": pl.Float64,
    "diff": pl.Float64, "diff_low": pl.Float64, "diff_high": pl.Float64, "out_now": pl.Float64,
    "out_other": pl.Float64, "var_paired": pl.Float64, "var_unpaired": pl.Float64, "trials": pl.Int64,
}
"""The columns of a position's row (see :func:`positions`), before the fork's own facts."""

GAMES_PER_BATCH = 5
"""Traced games per batch file of a fork's positions: a batch is a few seconds of rollouts, so a run stopped
at any moment loses little."""


def rollout_threads(config: ForkConfig) -> int:
    """Threads each position's rollout runs on: the config's ``workers``, else two."""
    return config.workers or 2


def positions(fork: Fork, config: ForkConfig, first_game: int, n_games: int,
              progress: Callable[[int], None] | None = None) -> pl.DataFrame:
    """Draw the positions of traced games ``first_game .. first_game + n_games - 1`` and roll both choices out.

    A game's positions depend on the seed, the game index and the config
    alone, so any range of games gives the same rows as the games played in
    one go.

    Returns
    -------
    polars.DataFrame
        One row per position: ``game``, ``round``, ``event`` (index in the
        trace), ``turn`` (turns completed in the round), ``table_turn`` (the
        seat's own turn, counting from 1), ``seat``, ``hand`` (card
        notation), ``hand_size``, ``table``, ``pile``, ``now``, ``other``
        (the choices), ``points_now``, ``points_other``, ``diff`` (other
        minus now, mean over trials) with ``diff_low``/``diff_high`` (its
        95% interval over trials), ``out_now``, ``out_other``, ``var_paired``
        and ``var_unpaired`` (of the trial differences, and of two
        independent trials), ``trials``, and the fork's own facts
        (:attr:`Fork.facts`). A progress callback receives each finished game.
    """
    strategies = [config.strategy] * config.players
    workers = rollout_threads(config)
    rows = []
    for game in range(first_game, first_game + n_games):
        events = sim.play_traced(config.ruleset, strategies, seed=config.seed, game=game)
        candidates = [(i, facts) for i in range(len(events))
                      if (facts := fork.candidate(events, i)) is not None]
        rng = np.random.default_rng([config.seed, game, fork.salt])
        taken = 0
        for k in rng.permutation(len(candidates)):
            if taken >= config.per_game:
                break
            index, facts = candidates[k]
            position = sim.Position.from_trace(events, index)
            own, _ = position.step()
            if not fork.plays_now(own) or fork.other_choice not in position.legal_choices():
                continue
            r = sim.rollout(position, choices=[own, fork.other_choice], n=config.trials, mode=config.mode,
                            seed=_rollout_seed(config, game, index, fork.salt), workers=workers)
            rows.append(_row(position, r, own, fork.other_choice, game, index, facts, config))
            taken += 1
        if progress:
            progress(1)
    return pl.DataFrame(rows, schema={**POSITION_COLUMNS, **fork.facts})


def collect(fork: Fork, config: ForkConfig, progress: Callable[[int, int], None] | None = None) -> pl.DataFrame:
    """The positions of games ``0 .. config.games - 1`` (see :func:`positions`), in memory; none raises ``ValueError``."""
    done = 0

    def tick(k: int) -> None:
        nonlocal done
        done += k
        if progress:
            progress(done, config.games)

    frame = positions(fork, config, 0, config.games, tick)
    if frame.height == 0:
        raise ValueError(f"no position offering the decision in {config.games} games: raise games")
    return frame


@dataclass(frozen=True)
class PositionsPart:
    """A fork experiment's positions, as the one results dataset of its run (table ``positions``).

    Batches of :data:`GAMES_PER_BATCH` traced games, each written whole as it
    finishes, so a run stopped at any moment resumes at the first batch not
    on disk.
    """

    fork: Fork
    config: ForkConfig
    name: str = "positions"

    def play(self, folder: Path, first_game: int, n_games: int, workers: int | None,
             progress: Callable[[int], None] | None) -> None:
        identity = provenance.dataset_identity({"positions of": f"{self.fork.now} or {self.fork.other}",
                                                 "salt": self.fork.salt, "config": row_config(self.config),
                                                 "tables": ["positions"]})
        run = provenance.run_record(f"fork positions {self.fork.now!r} / {self.fork.other!r}", store.now(),
                                    first_game, n_games, GAMES_PER_BATCH, f"{rollout_threads(self.config)} rollout threads")
        store.fill(folder, identity, run, first_game, n_games, GAMES_PER_BATCH,
                   lambda first, count: {"positions": positions(self.fork, self.config, first, count)}, progress,
                   warm=(ahead.warm_up("positions"),))

    def rows(self, folder: Path, n_games: int) -> pl.LazyFrame:
        return store.load(folder, "positions").filter(pl.col("game") < n_games)


def _row(position: Position, r: Rollout, now: str, other: str, game: int, index: int, facts: dict[str, Any],
         config: ForkConfig) -> dict[str, Any]:
    seat = position.seat
    a, b = r.points[0], r.points[1]
    d = b - a
    mean, low, high = stats.normal_interval(d) if d.std() > 0 else (float(d.mean()),) * 3
    out = {c.choice: c.p_out for c in r.choices}
    return {
        "game": game, "round": position.round, "event": index, "turn": position.turn,
        "table_turn": position.turn // config.players + 1, "seat": seat, "hand": position.hand(seat),
        "hand_size": position.hand_sizes()[seat], "table": " | ".join(position.table()),
        "pile": position.pile().split(" ")[-1],
        "now": now, "other": other, "points_now": float(a.mean()), "points_other": float(b.mean()),
        "diff": mean, "diff_low": low, "diff_high": high, "out_now": out[now], "out_other": out[other],
        "var_paired": float(d.var(ddof=1)), "var_unpaired": float(a.var(ddof=1) + b.var(ddof=1)),
        "trials": int(r.trials), **facts,
    }


# ----------------------------------------------------------------- analysis


def estimate(frame: pl.DataFrame, column: str, config: ForkConfig, salt: int) -> stats.Estimate | None:
    """The mean of ``column`` over positions, its interval resampling games; ``None`` under two games."""
    # Sorted by game: the bootstrap draws games by their place, so the order must not vary between runs.
    per_game = frame.group_by("game").agg(pl.col(column).sum().alias("total"), pl.len().alias("count")).sort("game")
    if per_game.height < 2:
        return None
    e = stats.ratio_estimate(per_game["total"].to_numpy(), per_game["count"].to_numpy(),
                             rng_for(config, salt), config.resamples, unit="game")
    unpaired = float(frame["var_unpaired"].sum())
    ratio = float(frame["var_paired"].sum()) / unpaired if column == "diff" and unpaired > 0 else float("nan")
    return stats.Estimate(e.estimate, e.low, e.high, e.normal_low, e.normal_high, e.clusters, e.unit, ratio)


def _finding(frame: pl.DataFrame, metric: str, arms: tuple[str, ...], column: str, config: ForkConfig, salt: int,
             group: str = "", headline: bool = False, better: str = "lower") -> Finding | None:
    e = estimate(frame, column, config, salt)
    if e is None:
        return None
    rounds = frame.select("game", "round").unique().height
    return Finding(metric, arms, e, frame["game"].n_unique(), rounds, group, headline, better)


def breakdown_findings(fork: Fork, frame: pl.DataFrame, config: ForkConfig,
                       groups: Sequence[tuple[str, pl.Expr]]) -> list[Finding]:
    """The findings of a fork: the cost over every position, each choice's level, and the cost by group.

    ``groups`` are ``(name, filter)`` pairs; a group with positions from
    fewer than two games gets no finding.
    """
    pair = (fork.other, fork.now)
    frame = frame.with_columns((pl.col("out_other") - pl.col("out_now")).alias("out_diff"))
    found = [
        _finding(frame, HEADLINE, pair, "diff", config, 1, headline=True),
        _finding(frame, OUT_RATE, pair, "out_diff", config, 2, better="higher"),
        _finding(frame, LEVEL, (fork.now,), "points_now", config, 3),
        _finding(frame, LEVEL, (fork.other,), "points_other", config, 4),
    ]
    for k, (name, condition) in enumerate(groups):
        found.append(_finding(frame.filter(condition), HEADLINE, pair, "diff", config, 10 + k, group=name))
    return [f for f in found if f is not None]


def conclusions(fork: Fork, findings: list[Finding]) -> list[str]:
    """The sentences on every position: the cost in round points and the change in going out."""
    lines = []
    head = next((f for f in findings if f.metric == HEADLINE and not f.group), None)
    if head is not None:
        e = head.estimate
        if wording.verdict(head) == "higher":
            lines.append(f"At this decision, prefer {fork.now}: {fork.other} costs {wording.fmt(head.metric, e.estimate)} "
                         f"round points on average (95% interval {wording.interval_text(head)}).")
        elif wording.verdict(head) == "lower":
            lines.append(f"At this decision, prefer {fork.other}: it saves {wording.fmt(head.metric, -e.estimate)} round "
                         f"points on average over {fork.now} (95% interval {wording.interval_text(head, True)}).")
        else:
            lines.append(f"At this decision, {fork.now} and {fork.other} are worth the same at this size "
                         f"(95% interval {wording.interval_text(head, True)}).")
    for f in findings:
        if f.metric in (HEADLINE, OUT_RATE) and not f.group:
            lines.append(wording.difference_sentence(f, fork.other, fork.now))
    return lines


def figures(fork: Fork, frame: pl.DataFrame, findings: list[Finding], x: str, xlabel: str) -> dict[str, Figure]:
    """The cost over every position and by group; and each position's cost against ``x``."""
    shown = [f for f in findings if f.metric == HEADLINE]
    labels = ["every position" if not f.group else f.group for f in shown]
    what = f"round points: {fork.other} minus {fork.now}"
    fig1, _ = plots.interval_plot(labels, [f.estimate for f in shown], f"{what}\n(above zero: {fork.now} was better)",
                                  title=f"{fork.other[0].upper() + fork.other[1:]} rather than {fork.now}")
    fig2, _ = plots.position_plot(frame[x].to_numpy(), frame["diff"].to_numpy(), frame["diff_low"].to_numpy(),
                                  frame["diff_high"].to_numpy(), xlabel, what,
                                  title="Each position's cost, with its interval over trials")
    return {"cost": fig1, "positions": fig2}


# ------------------------------------------------------------------ running


def experiment(module: ModuleType, fork: Fork, **declared: Any) -> Experiment:
    """A fork module's :class:`~experiments.experiment.Experiment`: its positions as the one part, the fork page."""
    return experiment_from(
        module, parts=lambda config: [PositionsPart(fork, config)], sequential=False, order=(),
        estimand=ESTIMAND, edition_note=edition_note,
        row_facts=lambda frame: {"positions": frame.height, "games_with_positions": int(frame["game"].n_unique())},
        compiles=("positions",), **declared)


# ------------------------------------------------------------------ the page


ESTIMAND = ("a position's value is the mean over its trials of the seat's round points after one choice minus "
            "after the other; the figure is the mean over positions (a ratio of sums over games: the games' "
            "summed position values over their positions, so a game offering more positions weighs more).")
"""The estimand the page header names."""


def edition_note(results: Results, quick: bool) -> str:
    """The page's opening note: what was played, and what the intervals resample."""
    c, p = results.config, results.provenance
    edition = "Quick edition" if quick else "Full edition"
    note = (f"{edition}: {p.get('positions', results.frame.height):,} positions drawn from {c.games:,} traced games "
            f"of {c.players} `{c.strategy}` players per seed (at most {c.per_game} a game), each choice rolled out "
            f"{c.trials:,} times in {c.mode} mode on common random numbers. Every figure carries a 95% interval "
            "that resamples games: a position is the unit, and the positions of one game are resampled together.")
    if quick:
        note += " At this size the intervals are wide; the full edition (`rami report`) draws many more positions."
    return note


def game_level(results: Results, experiment: str) -> tuple[dict[str, Any] | None, str]:
    """The ``summary.json`` of a game-level experiment at the same seed, and where it was found.

    Looked for beside this run in its report folder, then in the full
    edition committed with the package (``reports/``).
    """
    seed = results.config.seed
    places = []
    if results.out is not None:
        places.append((Path(results.out).parent.parent / experiment / f"seed-{seed}", "this edition"))
    places.append((Path(__file__).resolve().parent.parent / "reports" / experiment / f"seed-{seed}",
                   "the committed full edition"))
    for folder, where in places:
        try:
            return read_summary(folder), where
        except (OSError, ValueError):
            continue
    return None, ""


def _cell(estimate: float, low: float, high: float) -> str:
    return f"{estimate:+.2f} ({low:+.2f} to {high:+.2f})"


def example_analysis(fork: Fork, config: ForkConfig, row: dict[str, Any]) -> Analysis:
    """An example position's fork as the analysis its game page draws: the traced game, and the decision with
    its two choices rolled out again as :func:`positions` rolled them (the same seed, so the same figures)."""
    events = sim.play_traced(config.ruleset, [config.strategy] * config.players, seed=config.seed, game=row["game"])
    position = sim.Position.from_trace(events, row["event"])
    own, _ = position.step()
    seed = _rollout_seed(config, row["game"], row["event"], fork.salt)
    r = sim.rollout(position, choices=[own, fork.other_choice], n=config.trials, mode=config.mode, seed=seed,
                    workers=rollout_threads(config))
    decision = decision_of(row["event"], position, own, r)
    return Analysis(tuple(events), (position.seat,), config.mode, config.trials, seed, dict(MARK_THRESHOLDS),
                    r.lower_is_better, (decision,))


def page_blocks(fork: Fork, runs: Sequence[Results], game_rows: Callable[[dict[str, Any]], list[list[str]]],
                experiment: str, habit_words: str, groups_title: str, describe: Callable[[dict[str, Any]], str]
                ) -> list[tuple]:
    """The fork page's own sections: beside the game-level answer, the breakdown, example positions (each with
    its game page, written beside the page when the run has a folder)."""
    from experiments import report

    first = runs[0]
    blocks: list[tuple] = [("h2", "This decision, and the habit over a whole game")]
    rows = []
    for r in runs:
        head = next((f for f in r.findings if f.metric == HEADLINE and not f.group), None)
        if head is not None:
            e = head.estimate
            rows.append([f"this decision at this position: {fork.other} rather than {fork.now} (fork, seed "
                         f"{r.config.seed})", _cell(e.estimate, e.low, e.high),
                         f"round points of the round of the decision; {r.frame.height:,} positions, "
                         f"{e.clusters:,} games"])
    sources = set()
    for r in runs:
        summary, where = game_level(r, experiment)
        if summary is None:
            continue
        sources.add(where)
        for name, f in game_rows(summary):
            rows.append([f"{name} (game level, seed {summary['config']['seed']})",
                         _cell(f["estimate"], f["low"], f["high"]),
                         f"points per round over whole games; {f['games']:,} games"])
    blocks.append(("table", ["what changes", "cost in points (95% interval)", "measured over"], rows))
    text = (f"Two questions with two answers. The game-level experiment (`{experiment}`) gives one player a habit "
            f"for whole games ({habit_words}) and measures its points per round over every round it plays: the "
            "cost of the habit, however often the decision comes up and whatever it leads to later. The fork "
            f"takes one decision at one position where it arises and plays it both ways; afterwards the player "
            f"goes back to its own play ({first.config.strategy}), so the figure is what this one decision costs "
            "in the round it is made, averaged over the positions where real games meet it. A habit's cost adds "
            "up every time it bites in a round; a fork's cost is one bite.")
    if not sources:
        text += (f" The game-level figures were not found beside this run: run `rami report` (or `rami report "
                 f"--only {experiment}`) to show them here.")
    else:
        text += f" Game-level figures from {' and '.join(sorted(sources))}."
    blocks.append(("p", text))

    blocks.append(("h2", f"For a guide: {groups_title}"))
    grouped = [f for f in first.findings if f.group and f.metric == HEADLINE]
    rows = [[f.group, _cell(f.estimate.estimate, f.estimate.low, f.estimate.high), f"{f.estimate.clusters:,}"]
            for f in grouped]
    blocks.append(("table", ["positions", f"round points: {fork.other} minus {fork.now} (95% interval)", "games"],
                   rows))
    text = ("Positive: the seat gives away points by the other choice, so the choice its strategy made was the "
            "better one there; negative: the other choice would have saved points. Groups with positions from fewer "
            "than two games are left out.")
    if len(grouped) >= 2:
        worst = max(grouped, key=lambda f: f.estimate.estimate)
        best = min(grouped, key=lambda f: f.estimate.estimate)
        text = (f"At seed {first.config.seed}, {fork.other} rather than {fork.now} costs most for {worst.group} "
                f"and least for {best.group}; read the intervals before ranking groups. ") + text
    blocks.append(("p", text + " In the findings table below, the last column is, for this experiment, the "
                               "variance of a trial's paired difference over that of two independent trials, pooled "
                               "over positions: what the common random numbers of the rollouts gained."))

    blocks.append(("h2", "Example positions"))
    frame = first.frame.sort("diff")
    picks = [frame.row(0, named=True), frame.row(frame.height - 1, named=True)] if frame.height > 1 else \
        [frame.row(0, named=True)]
    items = []
    for row in picks:
        link = ""
        if first.out is not None:
            page = report.game_page(Path(first.out).parent, f"game-{row['game']}-event-{row['event']}",
                                    example_analysis(fork, first.config, row))
            link = f" [The game, at this decision]({page})."
        items.append(
            f"Game {row['game']}, round {row['round'] + 1}, the seat's turn {row['table_turn']} (seat {row['seat']}), "
            f"{describe(row)}. Hand: {row['hand']}. Table: {row['table'] or 'empty'}. Pile: {row['pile'] or 'empty'}. "
            f"`{row['now']}` → {row['points_now']:.2f} round points (goes out {row['out_now']:.0%}); "
            f"`{row['other']}` → {row['points_other']:.2f} (goes out {row['out_other']:.0%}); "
            f"difference {row['diff']:+.2f} (95% interval over {row['trials']:,} trials {row['diff_low']:+.2f} to "
            f"{row['diff_high']:+.2f}).{link}")
    blocks.append(("ul", items))
    blocks.append(("p", "The position where the other choice did best, then the one where it did worst, at seed "
                        f"{first.config.seed}. Every position's row is in the run's `data/positions` dataset beside "
                        "`summary.json` (`rami info` describes it; `sim.load(folder, \"positions\")` reads it)."))
    return blocks

