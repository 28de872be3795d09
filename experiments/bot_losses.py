"""Where do the bots lose points: which of their decisions cost the most?

Games of four players of one strategy (`greedy`, `cautious`, `expert`; Rami
51) are traced, and every decision of one seat per game (seat ``game mod
players``) over the first ``rounds`` rounds is analysed as `rami analyse`
does (:func:`sim.analyse`): each legal choice is rolled out on common futures
(belief mode: the cards the seat cannot see re-dealt at every trial), and the
*loss* of the played choice is the round points it gave up against the best
choice found (positive: it cost points). Decisions with a single legal choice
cost nothing and are left out of every figure below.

The decisions are counted by kind (draw, laying, discard) and by *situation*,
a small documented set of classes read off the position and the choice
played (:data:`SITUATIONS`; a decision may be in several or none):

- ``takes the pile's top``: a draw that takes the discard;
- ``draws from the stock though it may take``: a draw from the stock when
  taking the pile's top was legal;
- ``opens``: the laying that opens;
- ``could open and waits``: a laying decision where an opening was legal and
  the seat stopped;
- ``lays a joker at its turns 1 to 3``: a laying (the opening included) that
  puts a joker on the table in the seat's first three turns of the round;
- ``lays more after opening``: a new meld, an addition or a recovery;
- ``throws a card that fits``: a discard of a card that sits in a meld of the
  hand or could be added to a table meld;
- ``throws a card of 10 points or more``;
- ``throws while an opponent holds 2 cards or fewer``.

For each strategy and each kind or situation: its frequency (decisions per
analysed seat and game), its mean loss per decision, and the points it
loses per analysed seat and game (frequency times mean loss: where the points
go), each a ratio of sums over games with a 95% interval that resamples games
(a game's decisions are resampled together). One worked example per kind and
situation, the costliest decision of it, is named in the run's provenance by
strategy, game and trace event, and each game's whole trace is kept in the
``traces`` table of the run's dataset, so that a game page can be drawn from it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from matplotlib.figure import Figure

import sim
from experiments import configs, plots, stats
from experiments.experiment import experiment_from
from experiments.findings import Finding, Results, rng_for
from experiments.runner import DATA, row_config
from sim import ahead, provenance, rules, store
from sim.analysis.analyse import Step, analyse_step, walk
from sim.analysis.decisions import MARK_THRESHOLDS, Analysis
from sim.modes import BELIEF, MODES

TITLE = "Where do the bots lose points: which of their decisions cost the most?"

STRATEGIES = ("greedy", "cautious", "expert")
KINDS = ("draw", "lay", "discard")
KIND_NAMES = {"draw": "draws", "lay": "layings", "discard": "discards"}
FREQUENCY = "decisions per seat and game"
LOSS = "loss per decision"
LOSS_PER_GAME = "points lost per seat and game"
GAMES_PER_BATCH = 2
"""Traced games (of every strategy) per batch file: a batch is a few seconds of rollouts."""


@dataclass(frozen=True)
class Config(configs.Config):
    """Config of this experiment.

    Attributes
    ----------
    games : int
        Traced games per strategy (one seat of each is analysed).
    strategies : tuple of str
        The strategies, each playing every seat of its own games.
    rounds : int
        Rounds traced and analysed per game (the first ones).
    trials : int
        The most rollout trials per choice of a decision.
    width : float
        A decision's rollout stops once every difference's interval is this narrow (points).
    mode : str
        ``"belief"`` or ``"clairvoyant"``.
    ruleset : str
        A Rami 51 preset or ruleset file.
    players : int
        Seats at the table.
    """

    games: int = 16
    strategies: tuple[str, ...] = STRATEGIES
    rounds: int = 2
    trials: int = 200
    width: float = 3.0
    mode: str = BELIEF
    ruleset: str = "rami51"
    players: int = 4

    def __post_init__(self) -> None:
        super().__post_init__()
        checks = [
            ("strategies", len(self.strategies) >= 1 and len(set(self.strategies)) == len(self.strategies),
             "one or more distinct strategy names"),
            ("rounds", self.rounds >= 1, "at least 1"),
            ("trials", self.trials >= 2, "at least 2 (an interval needs two trials)"),
            ("width", self.width > 0, "a positive number of points"),
            ("mode", self.mode in MODES, " or ".join(MODES)),
            ("players", rules.MIN_PLAYERS <= self.players <= rules.MAX_PLAYERS,
             f"from {rules.MIN_PLAYERS} to {rules.MAX_PLAYERS}"),
            ("precision", self.precision is None, "unset: this experiment has no sequential mode"),
        ]
        for key, ok, allowed in checks:
            if not ok:
                raise ValueError(f"config key {key!r} must be {allowed}, got {getattr(self, key)!r}")


QUICK = {"games": 3, "rounds": 1, "trials": 60, "width": 6.0}

NOTES = [
    "The best choice is the best found by the rollouts, whose own strategy plays every seat after the decision: "
    "a loss is measured against what the bot could have done at that decision and then played as it plays.",
    "The sequential stop (`width`) spends few trials on clear decisions; a loss's interval is over the "
    "decision's trials, the figures' intervals over games.",
    "\"Puis-je ?\" (Rami contrat) is not a decision of Rami 51 and is not analysed.",
]


# ---------------------------------------------------------------- situations


def _facts(step: Step, players: int) -> dict[str, Any]:
    """What the classifiers read of a decision: the position's facts and the choice played."""
    p, played = step.position, step.played
    seat = p.seat
    sizes = p.hand_sizes()
    choices = p.legal_choices()
    discard = {card: (penalty, fits) for card, penalty, fits in p.discard_facts()}
    penalty, fits = discard.get(played, (0, False))
    return {
        "kind": p.decision, "played": played, "choices": len(choices), "table_turn": p.turn // players + 1,
        "hand_size": sizes[seat], "may_take": any(c.startswith("take ") for c in choices),
        "may_open": any(c.startswith("open ") for c in choices), "penalty": penalty, "fits": fits,
        "fewest_other": min(n for s, n in enumerate(sizes) if s != seat),
        "hand": p.hand(seat), "table": " | ".join(p.table()), "pile": p.pile().split(" ")[-1],
    }


SITUATIONS: dict[str, Callable[[dict[str, Any]], bool]] = {
    "takes the pile's top": lambda f: f["kind"] == "draw" and f["played"].startswith("take "),
    "draws from the stock though it may take": lambda f: f["kind"] == "draw" and f["played"] == "stock"
    and f["may_take"],
    "opens": lambda f: f["kind"] == "lay" and f["played"].startswith("open "),
    "could open and waits": lambda f: f["kind"] == "lay" and f["played"] == "stop" and f["may_open"],
    "lays a joker at its turns 1 to 3": lambda f: f["kind"] == "lay" and "★" in f["played"]
    and f["table_turn"] <= 3,
    "lays more after opening": lambda f: f["kind"] == "lay" and f["played"].startswith(("meld ", "add ", "recover ")),
    "throws a card that fits": lambda f: f["kind"] == "discard" and f["fits"],
    "throws a card of 10 points or more": lambda f: f["kind"] == "discard" and f["penalty"] >= 10,
    "throws while an opponent holds 2 cards or fewer": lambda f: f["kind"] == "discard" and f["fewest_other"] <= 2,
}
"""The situation classifiers (see the module's docstring), each a test of :func:`_facts`' dict."""


def _column(name: str) -> str:
    return "s_" + "".join(c if c.isalnum() else "_" for c in name).strip("_")


DECISION_COLUMNS: dict[str, pl.DataType] = {
    "strategy": pl.String, "game": pl.Int64, "round": pl.Int64, "event": pl.Int64, "turn": pl.Int64,
    "table_turn": pl.Int64, "seat": pl.Int64, "kind": pl.String, "choices": pl.Int64, "played": pl.String,
    "best": pl.String, "loss": pl.Float64, "loss_low": pl.Float64, "loss_high": pl.Float64, "mark": pl.String,
    "trials": pl.Int64, "hand": pl.String, "hand_size": pl.Int64, "table": pl.String, "pile": pl.String,
    **{_column(name): pl.Boolean for name in SITUATIONS},
}
"""The columns of a decision's row (table ``positions`` of the run's dataset)."""

TRACE_COLUMNS: dict[str, pl.DataType] = {"strategy": pl.String, "game": pl.Int64, "seat": pl.Int64,
                                         "trace": pl.String}
"""The columns of a game's row in table ``traces``: the trace as JSON (``docs/trace.md``)."""


def _seed(config: Config, strategy: str, game: int) -> int:
    """The rollouts' seed of one game, the same on every run of ``config``."""
    salt = STRATEGIES.index(strategy) if strategy in STRATEGIES else sum(map(ord, strategy))
    return int(np.random.default_rng([config.seed, game, salt, 41]).integers(0, 2**62))


def decisions(config: Config, first_game: int, n_games: int) -> dict[str, pl.DataFrame]:
    """The analysed decisions (table ``positions``) and the traces (table ``traces``) of games
    ``first_game .. first_game + n_games - 1`` of every strategy; a game's rows depend on the config, the
    strategy and the game index alone."""
    rows, traces = [], []
    workers = config.workers or 2
    for game in range(first_game, first_game + n_games):
        seat = game % config.players
        for strategy in config.strategies:
            events = sim.play_traced(config.ruleset, [strategy] * config.players, seed=config.seed, game=game,
                                     max_rounds=config.rounds)
            traces.append({"strategy": strategy, "game": game, "seat": seat,
                           "trace": json.dumps(events, ensure_ascii=False)})
            seed = _seed(config, strategy, game)
            for step in walk(events):
                if step.position.seat != seat or len(step.position.legal_choices()) < 2:
                    continue
                facts = _facts(step, config.players)
                d = analyse_step(step, trials=config.trials, mode=config.mode, seed=seed, workers=workers,
                                 width=config.width)
                trials = next(c.trials for c in d.candidates if c.played)
                rows.append({
                    "strategy": strategy, "game": game, "round": d.round, "event": d.event, "turn": d.turn,
                    "table_turn": facts["table_turn"], "seat": seat, "kind": d.kind, "choices": facts["choices"],
                    "played": d.played, "best": d.best, "loss": d.loss, "loss_low": d.loss_ci[0],
                    "loss_high": d.loss_ci[1], "mark": d.mark, "trials": trials, "hand": facts["hand"],
                    "hand_size": facts["hand_size"], "table": facts["table"], "pile": facts["pile"],
                    **{_column(name): bool(test(facts)) for name, test in SITUATIONS.items()},
                })
    return {"positions": pl.DataFrame(rows, schema=DECISION_COLUMNS),
            "traces": pl.DataFrame(traces, schema=TRACE_COLUMNS)}


@dataclass(frozen=True)
class DecisionsPart:
    """The analysed decisions as the one results dataset of a run (tables ``positions`` and ``traces``),
    written :data:`GAMES_PER_BATCH` games at a time so that a stopped run resumes."""

    config: Config
    name: str = "positions"

    def play(self, folder: Path, first_game: int, n_games: int, workers: int | None,
             progress: Callable[[int], None] | None) -> None:
        identity = provenance.dataset_identity({"positions of": "every decision of one seat, analysed",
                                                 "config": row_config(self.config),
                                                 "tables": ["positions", "traces"]})
        run = provenance.run_record("analysed decisions of bot games", store.now(), first_game, n_games,
                                    GAMES_PER_BATCH, f"{self.config.workers or 2} rollout threads")
        store.fill(folder, identity, run, first_game, n_games, GAMES_PER_BATCH,
                   lambda first, count: decisions(self.config, first, count), progress, warm=(ahead.warm_up("positions"),))

    def rows(self, folder: Path, n_games: int) -> pl.LazyFrame:
        return store.load(folder, "positions").filter(pl.col("game") < n_games)


def traces(folder: Path | str) -> pl.DataFrame:
    """The traces of a run's games (``folder``: the run's folder, beside ``summary.json``), one row per
    strategy and game; ``json.loads(row["trace"])`` is the game's events."""
    return store.load(Path(folder) / DATA / "positions", "traces").collect()


# ----------------------------------------------------------------- analysis


def groups() -> list[tuple[str, pl.Expr]]:
    """Every kind of decision, then every situation, as ``(name, filter)``."""
    return [(f"{KIND_NAMES[k]}", pl.col("kind") == k) for k in KINDS] + \
        [(name, pl.col(_column(name))) for name in SITUATIONS]


def _estimate(per_game: pl.DataFrame, total: str, count: str, config: Config, salt: int) -> stats.Estimate | None:
    if per_game.height < 2 or float(per_game[count].sum()) <= 0:
        return None
    return stats.ratio_estimate(per_game[total].to_numpy().astype(float), per_game[count].to_numpy().astype(float),
                                rng_for(config, salt), config.resamples, unit="game")


def analyse(frame: pl.DataFrame, config: Config) -> list[Finding]:
    """For each strategy, over every decision with a choice and by kind and situation: the frequency, the
    loss per decision and the points lost per seat and game (see the module's docstring)."""
    found: list[Finding] = []
    for k, strategy in enumerate(config.strategies):
        mine = frame.filter(pl.col("strategy") == strategy)
        if mine.height == 0:
            continue
        games = mine.select("game").unique().sort("game")
        rounds = mine.select("game", "round").unique().height
        for j, (group, condition) in enumerate([("", pl.lit(True)), *groups()]):
            per_game = games.join(
                mine.filter(condition).group_by("game").agg(pl.len().alias("n"), pl.col("loss").sum().alias("loss")),
                on="game", how="left").fill_null(0).with_columns(pl.lit(1).alias("one")).sort("game")
            for m, (metric, total, count, headline) in enumerate(
                    ((FREQUENCY, "n", "one", False), (LOSS, "loss", "n", not group),
                     (LOSS_PER_GAME, "loss", "one", False))):
                if metric != FREQUENCY and int(per_game["n"].sum()) == 0:
                    continue
                e = _estimate(per_game, total, count, config, 1000 * k + 10 * j + m)
                if e is not None:
                    found.append(Finding(metric, (strategy,), e, per_game.height, rounds, group, headline,
                                         "" if metric == FREQUENCY else "lower"))
    return found


def _costliest(findings: list[Finding], strategy: str, metric: str = LOSS_PER_GAME) -> list[Finding]:
    return sorted((f for f in findings if f.metric == metric and f.arms == (strategy,) and f.group),
                  key=lambda f: -f.estimate.estimate)


def conclusions(findings: list[Finding], config: Config) -> list[str]:
    """Per strategy: its loss per decision, and where most of its points go."""
    lines = []
    for strategy in config.strategies:
        head = next((f for f in findings if f.metric == LOSS and f.arms == (strategy,) and not f.group), None)
        if head is None:
            continue
        e = head.estimate
        line = (f"`{strategy}` gives up {e.estimate:.2f} round points per decision with a choice (95% interval "
                f"{e.low:.2f} to {e.high:.2f}, over {head.games} games)")
        situations = [f for f in _costliest(findings, strategy) if f.group in SITUATIONS]
        if situations:
            top = situations[0].estimate
            line += (f"; its costliest situation is \"{situations[0].group}\", {top.estimate:.2f} points per seat "
                     f"and game ({top.low:.2f} to {top.high:.2f})")
            if len(situations) > 1:
                line += f", then \"{situations[1].group}\" ({situations[1].estimate.estimate:.2f})"
        lines.append(line + ".")
    return lines or ["No decision with a choice was analysed: raise games."]


def figures(frame: pl.DataFrame, findings: list[Finding], config: Config) -> dict[str, Figure]:
    """Points lost per seat and game, by kind and situation, for each strategy."""
    shown = [f for f in findings if f.metric == LOSS_PER_GAME and f.group]
    if not shown:
        return {}
    fig, _ = plots.interval_plot([f"{f.arms[0]}: {f.group}" for f in shown], [f.estimate for f in shown],
                                 "round points lost per analysed seat and game",
                                 title="Where the bots lose points, by kind of decision and situation")
    return {"per_game": fig}


def examples(frame: pl.DataFrame) -> list[dict[str, Any]]:
    """The worked example of each kind and situation: its costliest decision (strategy, game, trace event,
    the choices, the loss); the game's trace is in the run's ``traces`` table."""
    out = []
    for group, condition in groups():
        rows = frame.filter(condition).sort(["loss", "strategy", "game", "event"], descending=[True, False, False,
                                                                                                False])
        if rows.height == 0:
            continue
        r = rows.row(0, named=True)
        out.append({"group": group, "strategy": r["strategy"], "game": r["game"], "seat": r["seat"],
                    "round": r["round"], "event": r["event"], "kind": r["kind"], "played": r["played"],
                    "best": r["best"], "loss": r["loss"], "loss_low": r["loss_low"], "loss_high": r["loss_high"],
                    "mark": r["mark"], "hand": r["hand"], "table": r["table"], "pile": r["pile"]})
    return out


def example_analysis(config: Config, folder: Path | str, example: dict[str, Any]) -> Analysis:
    """A worked example's decision analysed again as the run analysed it (its game's stored trace, the same
    rollout seed, trials and stop, so the same figures), as the analysis its game page draws."""
    row = traces(folder).filter((pl.col("strategy") == example["strategy"]) & (pl.col("game") == example["game"]))
    events = json.loads(row["trace"][0])
    step = next(s for s in walk(events) if s.event == example["event"] and s.position.decision == example["kind"])
    seed = _seed(config, example["strategy"], example["game"])
    decision = analyse_step(step, trials=config.trials, mode=config.mode, seed=seed, workers=config.workers or 2,
                            width=config.width)
    lower = rules.better_points(rules.as_ruleset(config.ruleset).game) == "lower"
    return Analysis(tuple(events), (example["seat"],), config.mode, config.trials, seed, dict(MARK_THRESHOLDS), lower,
                    (decision,))


def row_facts(frame: pl.DataFrame) -> dict[str, Any]:
    return {"decisions": frame.height, "marked": int(frame["mark"].is_not_null().sum()), "examples": examples(frame)}


ESTIMAND = ("each figure is a ratio of sums over games: a game's losses (or decisions) over its decisions (or "
            "1), so a game with more decisions weighs more; a decision's loss is the round points its played "
            "choice gave up against the best choice found by rollouts.")


def edition_note(results: Results, quick: bool) -> str:
    c = results.config
    note = (f"{'Quick' if quick else 'Full'} edition: {c.games:,} traced games per strategy "
            f"({', '.join(c.strategies)}; {c.players} players of one strategy, the first {c.rounds} round"
            f"{'s' if c.rounds > 1 else ''}), every decision with a choice of one seat per game analysed: at most "
            f"{c.trials:,} trials per choice in {c.mode} mode, stopped once every difference is known to "
            f"{c.width:g} points. {results.frame.height:,} decisions. Every figure carries a 95% interval that "
            "resamples games.")
    if quick:
        note += " At this size the intervals are wide; the full edition (`rami report`) analyses many more games."
    return note


def page_blocks(runs: list[Results]) -> list[tuple]:
    """Where the points go per strategy, and the worked examples (each with its game page, written beside the
    page when the run has a folder)."""
    from experiments import report

    first = runs[0]
    blocks: list[tuple] = [("h2", "Where the points go")]
    for strategy in first.config.strategies:
        rows = []
        for f in _costliest(first.findings, strategy):
            freq = next((g for g in first.findings if g.metric == FREQUENCY and g.arms == f.arms
                         and g.group == f.group), None)
            per = next((g for g in first.findings if g.metric == LOSS and g.arms == f.arms and g.group == f.group),
                       None)
            cell = lambda e: f"{e.estimate:.2f} ({e.low:.2f} to {e.high:.2f})"  # noqa: E731
            rows.append([f.group, cell(freq.estimate) if freq else "", cell(per.estimate) if per else "",
                         cell(f.estimate)])
        blocks.append(("table", [f"`{strategy}`: decisions", FREQUENCY, LOSS, LOSS_PER_GAME], rows))
    blocks.append(("p", f"At seed {first.config.seed}, costliest first (points lost per seat and game). A kind "
                        "(draws, layings, discards) holds every decision of it; a situation only those it names."))
    blocks.append(("h2", "Worked examples"))
    items = []
    pages: dict[tuple[str, int, int], str] = {}
    for ex in first.provenance.get("examples", []):
        link = ""
        if first.out is not None:
            # The game page, written beside this page: the example's decision analysed again as the run did.
            key = (ex["strategy"], ex["game"], ex["event"])
            if key not in pages:
                pages[key] = report.game_page(Path(first.out).parent, f"{ex['strategy']}-game-{ex['game']}-event-"
                                              f"{ex['event']}", example_analysis(first.config, first.out, ex))
            link = f" [The game, at this decision]({pages[key]})."
        items.append(f"{ex['group']}: `{ex['strategy']}`, game {ex['game']}, round {ex['round'] + 1}, seat "
                     f"{ex['seat']}, trace event {ex['event']} ({ex['kind']}). Hand {ex['hand']}; table "
                     f"{ex['table'] or 'empty'}; pile's top {ex['pile'] or 'none'}. Played `{ex['played']}`, best "
                     f"`{ex['best']}`: {ex['loss']:.2f} points lost (95% interval {ex['loss_low']:.2f} to "
                     f"{ex['loss_high']:.2f}){', marked ' + ex['mark'] if ex['mark'] else ''}.{link}")
    blocks.append(("ul", items or ["No decision was analysed."]))
    blocks.append(("p", "Each kind's and situation's costliest decision at this seed. The game's trace is in the "
                        "run's dataset (`data/positions`, table `traces`: `experiments.bot_losses.traces(run "
                        "folder)`); `sim.analyse` or `rami analyse --trace` analyses it again."))
    return blocks


EXPERIMENT = experiment_from(
    sys.modules[__name__], parts=lambda config: [DecisionsPart(config)], sequential=False, order=(),
    estimand=ESTIMAND, edition_note=edition_note, row_facts=row_facts, page_blocks=page_blocks, notes=tuple(NOTES),
    compiles=("positions",))


def run(config: Config, out: Path | None = None, progress=None) -> Results:
    """Trace the games, analyse the decisions, and (with ``out``) write the rows and ``summary.json``."""
    return EXPERIMENT.run(config, out, progress)
