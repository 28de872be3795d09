"""A guarded tuner: search a strategy's parameters, then make the winner prove itself.

``tune(TuneConfig(...))`` (``rami tune``) searches declared ranges of the
heuristic family's parameters for the point that scores best against a
chosen field, and guards against fooling itself:

1. **Search** (optuna's TPE sampler, the study kept in a SQLite file so an
   interrupted tune resumes without losing a finished evaluation): each
   trial seats the candidate at position 0 of a table of the field and plays
   the same games on duplicate deals, every trial the same deals as the
   starting strategy (common random numbers), so a trial's value is its
   paired gain over the start on those deals, in points per round (or win
   rate). The starting strategy is the first trial (gain 0).
2. **Re-evaluation**: the ``top`` best candidates play again on fresh deals
   (game indices past the search's), with a paired 95% interval over games;
   the search's values of the best are biased upward by the selection (the
   winner's curse), these are not.
3. **Confirmation**: the best re-evaluated candidate must pass the
   sequential comparison (:func:`experiments.sequential.compare`) against
   the starting strategy, on fresh deals again, before it is reported as
   better; only then is a strategy file written.

The report puts the gain the search believed next to the re-evaluated and
the confirmed (median-unbiased) gains.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
import warnings
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

import strategies as strategy_lib
from experiments import metrics, sequential, stats
from experiments.tournament import play_table
from sim import distributed, rules
from sim.checks import check_whole, is_whole_valued
from strategies import CHOICE_PARAMETERS, PARAMETERS

__all__ = ["STUDY_FILE", "Candidate", "TuneConfig", "TuneResult", "check_start", "check_study", "effective_params", "evaluate",
           "parse_space", "search", "trials_table", "tune"]

OBJECTIVES = sequential.OBJECTIVES
STUDY_FILE = "study.db"
"""The SQLite file of a tuning run's search, beside its report (``rami tune``'s default ``--study``)."""
SEARCH_GAMES = 0
"""First game index of the search; re-evaluation and confirmation start past it."""
SEARCH_SETTINGS = ("start", "space", "ruleset", "field", "objective", "games", "seed")
"""The settings a search's values depend on; a study resumes only under the same."""


def parse_space(items: Sequence[str] | Mapping[str, Sequence[float]]) -> dict[str, tuple[float, float]]:
    """Parameter ranges from ``"name=low:high"`` strings (or a mapping name -> (low, high)).

    Choice parameters (whole numbers) are searched over the whole numbers of
    their range; a range must lie inside the parameter's own.
    """
    pairs: dict[str, tuple[float, float]] = {}
    entries = items.items() if isinstance(items, Mapping) else [_split_range(text) for text in items]
    for name, bounds in entries:
        if name not in PARAMETERS:
            raise ValueError(f"unknown strategy parameter {name!r}; the parameters are: {', '.join(PARAMETERS)}")
        if name in pairs:
            raise ValueError(f"parameter {name} is given twice; give each parameter's range once")
        low, high = (float(b) for b in bounds)
        _, lo_allowed, hi_allowed, meaning = PARAMETERS[name]
        if not (math.isfinite(low) and math.isfinite(high) and lo_allowed <= low < high <= hi_allowed):
            raise ValueError(f"range {name}={low:g}:{high:g} must satisfy {lo_allowed} <= low < high <= {hi_allowed} "
                             f"({meaning})")
        if name in CHOICE_PARAMETERS and not (is_whole_valued(low) and is_whole_valued(high)):
            raise ValueError(f"range {name}={low:g}:{high:g}: {name} selects a behaviour, so its bounds are whole "
                             f"numbers from {lo_allowed:g} to {hi_allowed:g} ({meaning})")
        pairs[name] = (low, high)
    if not pairs:
        raise ValueError("give at least one parameter range, e.g. near_weight=0:10")
    return pairs


def _split_range(text: str) -> tuple[str, tuple[float, float]]:
    name, eq, rng = text.partition("=")
    low, colon, high = rng.partition(":")
    try:
        if not eq or not colon:
            raise ValueError
        return name.strip(), (float(low), float(high))
    except ValueError:
        raise ValueError(f"bad parameter range {text!r}: expected name=low:high, e.g. near_weight=0:10") from None


@dataclass(frozen=True)
class TuneConfig:
    """What a tune searches, against what, and how much it may spend.

    Attributes
    ----------
    start : str
        The starting strategy (a name :func:`strategies.get` takes).
    space : dict of str to (low, high)
        The parameter ranges searched (:func:`parse_space`).
    ruleset : str
        Preset or ruleset file.
    field : tuple of str
        The other seats of the table.
    objective : str
        ``"points"`` (points per round, the game's own sense of better) or
        ``"wins"`` (share of games won).
    trials : int
        The search's budget: evaluations, the starting strategy included.
    games : int
        Games per evaluation (each played once per rotation).
    top : int
        Candidates re-evaluated on fresh deals.
    confirm_games : int
        Games of each re-evaluation.
    improvement, alpha, beta, max_games :
        The sequential confirmation's options (improvement in the
        objective's unit; default 1 point per round, or 0.02 of the share of
        games won).
    seed : int
    name : str
        The tuned strategy's name (and its file's stem).
    """

    start: str = "expert"
    space: dict[str, tuple[float, float]] = field(default_factory=dict)
    ruleset: str = "rami51"
    field: tuple[str, ...] = ("greedy", "greedy", "greedy")
    objective: str = "points"
    trials: int = 30
    games: int = 300
    top: int = 3
    confirm_games: int = 600
    improvement: float | None = None
    alpha: float = 0.05
    beta: float = 0.05
    max_games: int = 8000
    seed: int = 1
    name: str = "tuned"

    def __post_init__(self) -> None:
        if self.objective not in OBJECTIVES:
            raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, got {self.objective!r}")
        for key, least in (("trials", 1), ("games", 2), ("top", 1), ("confirm_games", 2), ("max_games", 2)):
            value = getattr(self, key)
            check_whole(key, value, least)
        if not self.field:
            raise ValueError("the field must hold at least one strategy (the other seats of the table)")
        parse_space(self.space)
        sequential.check_settings(0.0, self.improvement_bound(), self.alpha, self.beta, 1, self.max_games)
        if self.objective == "wins" and self.improvement_bound() >= 1:
            raise ValueError(f"improvement must be below 1 with objective wins (a share of games won), "
                             f"got {self.improvement_bound():g}")

    def key(self) -> str:
        """What the search's values depend on, as stored in the study: a study resumes only under the
        same (the budget, the re-evaluation and the confirmation settings may change)."""
        return json.dumps({k: v for k, v in dataclasses.asdict(self).items() if k in SEARCH_SETTINGS},
                          sort_keys=True, default=list)

    def improvement_bound(self) -> float:
        """The confirmation's improvement bound in the objective's unit (1 point per round, or 0.02 of
        the share of games won, unless given)."""
        if self.improvement is not None:
            return float(self.improvement)
        return 1.0 if self.objective == "points" else 0.02


# ---------------------------------------------------------------- evaluation


def evaluate(
    candidate: strategy_lib.Strategy,
    config: TuneConfig,
    first_game: int,
    games: int,
    workers: int | None = None,
) -> np.ndarray:
    """Per-game objective of ``candidate`` at position 0 of the field's table, shape ``(games,)``.

    Higher is better whatever the game; the same ``first_game`` and
    ``games`` give every candidate the same deals.
    """
    base = rules.as_ruleset(config.ruleset)
    players = len(config.field) + 1
    r = base if base.players == players else base.replace(players=players)
    field_strategies = [strategy_lib.get(s) for s in config.field]
    frame = play_table(r, [candidate, *field_strategies], config.seed, first_game, games, workers)
    return sequential.focal_values(frame, config.objective, rules.better_points(r.game))["v"].to_numpy()


def candidate_of(config: TuneConfig, params: Mapping[str, float], label: str = "") -> strategy_lib.Strategy:
    """The starting strategy with ``params`` changed, named ``label`` (default: after the change)."""
    start = strategy_lib.get(config.start)
    chosen = {k: (int(round(v)) if k in CHOICE_PARAMETERS else float(v)) for k, v in params.items()}
    s = start.with_params(**chosen).for_game(rules.as_ruleset(config.ruleset).game)
    return dataclasses.replace(s, name=label) if label else s


# -------------------------------------------------------------------- search


def check_study(storage: Path | str, study_name: str, key: str) -> None:
    """Refuse, before anything is played, a study file that is not a study or a study made by
    another search (``ValueError`` naming the file); a missing file or study is fine."""
    path = Path(storage)
    if not path.exists():
        return
    if path.is_dir():
        raise ValueError(f"the study file {path} is a folder; give a file name (e.g. {STUDY_FILE})")
    with open(path, "rb") as handle:
        head = handle.read(16)
    if head and head != b"SQLite format 3\x00":
        raise ValueError(f"{path} is not a study file (an SQLite database written by rami tune); "
                         "give another --study file")
    if not head:
        return
    import sqlite3

    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            row = db.execute(
                "SELECT a.value_json FROM study_user_attributes a JOIN studies s ON a.study_id = s.study_id "
                "WHERE s.study_name = ? AND a.key = 'key'", (study_name,)).fetchone()
    except sqlite3.Error:
        raise ValueError(f"{path} is not a study file (an SQLite database written by rami tune); "
                         "give another --study file") from None
    if row is not None and json.loads(row[0]) != key:
        raise ValueError(f"the study {study_name!r} in {path} was made by a search with other settings (one of "
                         "START, --param, --rules, --field, --objective, --games, --seed); give another --study "
                         "file or the same settings")


def search(
    objective: Callable[[dict[str, float]], float],
    space: Mapping[str, tuple[float, float]],
    trials: int,
    storage: Path | str,
    study_name: str = "tune",
    seed: int = 1,
    key: str = "",
    first: Mapping[str, float] | None = None,
    callback: Callable[[int, float], None] | None = None,
    plays_like: Callable[[dict[str, float]], Hashable] | None = None,
):
    """Maximise a noisy ``objective`` over ``space`` with optuna, the study in a SQLite file.

    A study already in ``storage`` under ``study_name`` resumes: its
    finished trials count toward ``trials`` and are never evaluated again;
    a trial that was running (or interrupted) when the process stopped is
    evaluated anew; the sampler's seed is derived from ``seed`` and the
    trials already stored, so a resumed search proposes new points rather
    than the first ones again.

    Parameters
    ----------
    objective : callable
        ``objective(params) -> value`` (higher is better).
    space : mapping of str to (low, high)
        Parameters; those of :data:`CHOICE_PARAMETERS` are whole numbers.
    trials : int
        Finished trials wanted in all.
    storage : Path or str
        The SQLite file.
    key : str
        Identifies what is tuned; resuming a study made with another key
        raises ``ValueError`` (its evaluations would not be comparable).
    first : mapping, optional
        Parameters of the first trial (the starting point).
    callback : callable, optional
        ``callback(finished, best_value)`` after each trial.
    plays_like : callable, optional
        ``plays_like(params)`` -> a key equal for parameters that play
        exactly alike: a trial whose key an earlier finished trial had takes
        that trial's value without calling ``objective`` (its user
        attribute ``plays_like`` names the earlier trial).

    Returns
    -------
    optuna.Study
    """
    import optuna
    from optuna.trial import TrialState

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    path = Path(storage)
    check_study(path, study_name, key)
    path.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # optuna's experimental and deprecation notes are not for the user
        study = optuna.create_study(storage=f"sqlite:///{path}", study_name=study_name, direction="maximize",
                                    load_if_exists=True)
    if study.user_attrs.get("key") is None:  # a different key was refused by check_study
        study.set_user_attr("key", key)
    # A sampler seeded as the first run was would propose its first points again.
    stream = int(np.random.SeedSequence([seed, len(study.trials)]).generate_state(1)[0])
    study.sampler = optuna.samplers.TPESampler(seed=stream, n_startup_trials=8)
    done = [t for t in study.trials if t.state == TrialState.COMPLETE]
    retried = set(study.user_attrs.get("retried", []))
    stopped = [t for t in study.trials if t.state == TrialState.RUNNING
               or (t.state == TrialState.FAIL and t.number not in retried)]
    for t in stopped:
        # Interrupted mid-evaluation: mark it failed and evaluate the same point again.
        if t.state == TrialState.RUNNING:
            study.tell(t.number, state=TrialState.FAIL)
        study.enqueue_trial(t.params)
        retried.add(t.number)
    if stopped:
        study.set_user_attr("retried", sorted(retried))
    if not study.trials and first is not None:
        study.enqueue_trial({k: v for k, v in first.items() if k in space})
    known = {}
    if plays_like is not None:
        for t in sorted(done, key=lambda t: t.number):
            known.setdefault(plays_like(dict(t.params)), (t.number, t.value))

    def run(trial) -> float:
        params = {}
        for name, (low, high) in space.items():
            if name in CHOICE_PARAMETERS:
                params[name] = trial.suggest_int(name, int(low), int(high))
            else:
                params[name] = trial.suggest_float(name, low, high)
        if plays_like is None:
            return float(objective(params))
        alike = plays_like(params)
        if alike in known:
            number, value = known[alike]
            trial.set_user_attr("plays_like", number)
            return value
        value = float(objective(params))
        known[alike] = (trial.number, value)
        return value

    def after(study, trial) -> None:
        if callback:
            finished = sum(1 for t in study.trials if t.state == TrialState.COMPLETE)
            callback(finished, study.best_value)

    remaining = trials - len(done)
    if remaining > 0:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            study.optimize(run, n_trials=remaining, callbacks=[after])
    return study


# ---------------------------------------------------------------------- tune


def effective_params(params: Mapping[str, float]) -> tuple:
    """The parameters that change play: weights the chosen modes never read are dropped, so two
    candidates differing only there count as one."""
    p = dict(params)
    if p.get("discard", 0) < 1:
        # Without a judgement the throw is by penalty alone: nothing weighs near-melds, and the share of an
        # unopened hand's penalties (sim.engine.policies.penalty_share) is not taken either.
        p.pop("near_weight", None)
        p.pop("unopened_keep", None)
    if p.get("discard", 0) < 2:
        p.pop("feed_weight", None)
    if p.get("take", 1) <= 0:
        p.pop("take_near", None)
    return tuple(sorted(p.items()))


@dataclass(frozen=True)
class Candidate:
    """A candidate of the search, its believed gain and its re-evaluated gain (with interval)."""

    params: dict[str, float]
    believed: float
    reevaluated: stats.Estimate | None = None


@dataclass
class TuneResult:
    """What :func:`tune` returns: the search's belief, the re-evaluation, and the confirmation."""

    config: TuneConfig
    trials: int
    candidates: list[Candidate]
    winner: Candidate | None
    """None when every trial played like the starting strategy."""
    confirmation: sequential.Comparison | None
    strategy: strategy_lib.Strategy
    file: Path | None
    wall_seconds: float
    trials_table: pl.DataFrame = field(default_factory=pl.DataFrame, repr=False)
    """Every trial of the search (:func:`trials_table`)."""

    @property
    def confirmed(self) -> bool:
        return self.confirmation is not None and self.confirmation.better

    def unit(self) -> str:
        return metrics.POINTS_PER_ROUND if self.config.objective == "points" else metrics.GAMES_WON

    def lines(self) -> list[str]:
        c = self.config
        u = self.unit()
        out = [f"Tuned {c.start} in {c.ruleset} against {', '.join(c.field)}: {self.trials} trials of {c.games} games "
               f"(each played once per rotation; gains are paired on the same deals, higher is better)"]
        out.append(f"{'candidate':48} {'search believed':>16} {'re-evaluated (95% interval)':>30}")
        for cand in self.candidates:
            e = cand.reevaluated
            text = " ".join(f"{k}={v:g}" for k, v in cand.params.items())
            mark = "  <- winner" if cand is self.winner else ""
            re = f"{e.estimate:+.3f} ({e.low:+.3f} to {e.high:+.3f})" if e else "n/a"
            out.append(f"{text[:48]:48} {cand.believed:>+16.3f} {re:>30}{mark}")
        conf = self.confirmation
        if conf is None or self.winner is None:
            out.append(f"every trial played exactly like {c.start} (the parameters tried are ones its modes never "
                       "read): nothing to confirm, no strategy file")
            return out
        out.append(f"confirmation (sequential test against {c.start}, fresh deals, {u}): {conf.decision} "
                   f"after {conf.games:,} games; gain {conf.estimate:+.3f} (95% interval {conf.low:+.3f} to "
                   f"{conf.high:+.3f}, median-unbiased)")
        out.append(f"believed gain {self.winner.believed:+.3f} {u}; re-evaluated "
                   f"{self.winner.reevaluated.estimate:+.3f}; confirmed "
                   + (f"{conf.estimate:+.3f} {u}" if self.confirmed
                      else "no: nothing is reported as better"))
        if self.file:
            out.append(f"strategy file: {self.file}")
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())

    def write_report(self, folder: Path | str) -> Path:
        """A report page: the search's belief beside the re-evaluation and the confirmation."""
        from experiments import report

        folder = Path(folder)
        c = self.config
        u = self.unit()
        rows = []
        for cand in self.candidates:
            e = cand.reevaluated
            rows.append([" ".join(f"{k}={v:g}" for k, v in cand.params.items()) + (" (winner)" if cand is self.winner
                                                                                    else ""),
                         f"{cand.believed:+.3f}", f"{e.estimate:+.3f} ({e.low:+.3f} to {e.high:+.3f})" if e else "n/a"])
        conf = self.confirmation
        title = f"Tuning {c.start} in {c.ruleset}"
        if conf is None or self.winner is None:
            confirmation = [("p", f"Every trial played exactly like {c.start}: nothing to confirm, no strategy file.")]
        else:
            confirmation = [
                ("p", f"Sequential probability ratio test of the winner against {c.start}, {u}, indifference "
                      f"0, improvement {c.improvement_bound():g}, alpha {c.alpha:g}, beta {c.beta:g}: {conf.decision} "
                      f"after {conf.games:,} duplicate games; median-unbiased gain {conf.estimate:+.3f} {u} "
                      f"(95% interval {conf.low:+.3f} to {conf.high:+.3f}; plain mean {conf.naive:+.3f})."),
                ("table", ["", "believed (search)", "re-evaluated", "confirmed"],
                 [["winner's gain", f"{self.winner.believed:+.3f} {u}",
                   f"{self.winner.reevaluated.estimate:+.3f} {u}",
                   f"{conf.estimate:+.3f} {u}" if self.confirmed else f"not confirmed ({conf.decision})"]]),
            ]
        blocks = [
            ("h1", title),
            ("p", f"Objective: {u} of the candidate against {', '.join(c.field)}, as a gain over {c.start} on the same "
                  f"deals (higher is better). Search: {self.trials} trials of {c.games:,} games each (optuna TPE, "
                  f"seed {c.seed}); re-evaluation of the best {c.top} on {c.confirm_games:,} fresh games; confirmation "
                  f"by a sequential test on fresh games again."),
            ("h2", "What the search believed, and what was measured after"),
            ("p", "Every trial, with its parameters, gain and games, is in `trials.csv`."),
            ("table", ["candidate", f"search's gain ({u})",
                       "re-evaluated gain, fresh deals (95% interval over games)"],
             rows),
            ("h2", "Confirmation"),
            *confirmation,
            ("p", "The search's values are the best of many noisy trials on one set of deals, so they lean high "
                  "(the winner's curse); the re-evaluation and the confirmation play fresh deals."),
            ("h2", "Result"),
            ("p", f"Strategy file `{self.file}` (`{self.strategy.name}`)." if self.file else
                  "No strategy file: the winner did not pass the confirmation."),
            ("h2", "How it was measured"),
            ("p", " ".join((__doc__ or "").split("\n\n", 1)[1].replace("**", "").replace("``", "`").split())),
            ("ul", [f"wall time {self.wall_seconds:.0f} s", "config: " + c.key()]),
        ]
        return report.write_document(folder, title, blocks)


def check_start(config: TuneConfig) -> tuple[strategy_lib.Strategy, str]:
    """The starting strategy as it plays the config's game, and the game; ``ValueError`` before any
    game is played when the ruleset, the field or the start cannot be used, or the start lies
    outside a searched range (it is the search's first trial, so the ranges must hold it)."""
    game = rules.as_ruleset(config.ruleset).game
    for s in config.field:
        strategy_lib.get(s)
    start = strategy_lib.get(config.start).for_game(game)
    if start.kind != strategy_lib.KIND_HEURISTIC:
        raise ValueError(f"the {start.name} strategy has no parameters to tune; start from greedy, cautious, expert "
                         "or a tuned strategy")
    for name, (low, high) in config.space.items():
        value = start.params.get(name, 0.0)
        if not low <= value <= high:
            raise ValueError(f"{start.name} plays {name}={value:g} in {game}, outside the range {name}={low:g}:"
                             f"{high:g}: widen the range to hold it (the starting point is the first trial)")
    return start, game


def trials_table(study, config: TuneConfig) -> pl.DataFrame:
    """Every trial of the search: ``trial``, ``state``, one column per searched parameter,
    ``gain`` (its value: gain over the start in the objective's unit, null unless finished),
    ``games`` (games it played: 0 when it took the value of ``plays_like``, an earlier trial
    whose parameters play exactly alike)."""
    rows = []
    for t in study.trials:
        alike = t.user_attrs.get("plays_like")
        row = {"trial": t.number, "state": t.state.name.lower()}
        row.update({k: (float(t.params[k]) if k in t.params else None) for k in config.space})
        row.update({"gain": t.value, "unit": metrics.POINTS_PER_ROUND if config.objective == "points"
                    else metrics.GAMES_WON, "games": 0 if alike is not None or t.value is None else config.games,
                    "plays_like": alike})
        rows.append(row)
    schema = {"trial": pl.Int64, "state": pl.String, **{k: pl.Float64 for k in config.space}, "gain": pl.Float64,
              "unit": pl.String, "games": pl.Int64, "plays_like": pl.Int64}
    return pl.DataFrame(rows, schema=schema)


@distributed.on_cluster
def tune(
    config: TuneConfig,
    study: Path | str,
    out: Path | str | None = None,
    workers: int | None = None,
    progress: Callable[[str], None] | None = None,
    scheduler: Any = None,
) -> TuneResult:
    """Search, re-evaluate, confirm (see the module's docstring); write the strategy file when confirmed.

    Parameters
    ----------
    config : TuneConfig
    study : Path or str
        The SQLite file of the search (resumed when it exists).
    out : Path or str, optional
        Folder for the report page and the strategy file (``NAME.toml``).
    progress : callable, optional
        Called with a line of text at each step.
    scheduler : str or distributed.Client, optional
        Play on this Dask cluster (:mod:`sim.distributed`, docs/cluster.md),
        connected once for the whole job: the same results as a local run.
    """
    start_time = time.perf_counter()
    say = progress or (lambda text: None)
    start, game = check_start(config)
    check_study(study, config.name, config.key())
    baseline = evaluate(start, config, SEARCH_GAMES, config.games, workers)

    def objective(params: dict[str, float]) -> float:
        values = evaluate(candidate_of(config, params), config, SEARCH_GAMES, config.games, workers)
        return float((values - baseline).mean())

    first = {k: float(start.params.get(k, 0.0)) for k in config.space}
    s = search(objective, config.space, config.trials, study, study_name=config.name, seed=config.seed,
               key=config.key(), first=first,
               callback=lambda n, best: say(f"trial {n}/{config.trials}: best gain so far {best:+.3f}"),
               plays_like=lambda params: effective_params(candidate_of(config, params).params))
    from optuna.trial import TrialState

    table = trials_table(s, config)
    finished = sorted((t for t in s.trials if t.state == TrialState.COMPLETE), key=lambda t: -t.value)
    # The start is the yardstick, not a candidate: trials that play like it are not re-evaluated.
    seen, best = {effective_params(start.params)}, []
    for t in finished:
        key = effective_params(candidate_of(config, t.params).params)
        if key not in seen:
            seen.add(key)
            best.append(t)
        if len(best) == config.top:
            break
    fresh = SEARCH_GAMES + config.games
    base_fresh = evaluate(start, config, fresh, config.confirm_games, workers)
    rng = np.random.default_rng([config.seed, 5])
    candidates = []
    for t in best:
        say(f"re-evaluating {t.params} on {config.confirm_games} fresh games")
        values = evaluate(candidate_of(config, t.params), config, fresh, config.confirm_games, workers)
        ones = np.ones_like(values)
        est = stats.paired_difference(values, ones, base_fresh, ones, rng, 1000)
        candidates.append(Candidate(dict(t.params), float(t.value), est))
    if not candidates:
        say("every trial played like the starting strategy: nothing to confirm")
        result = TuneResult(config, len(finished), [], None, None, start, None, time.perf_counter() - start_time,
                            table)
        if out is not None:
            result.write_report(out)
            table.write_csv(Path(out) / "trials.csv")
        return result
    winner = max(candidates, key=lambda c: c.reevaluated.estimate)
    tuned = candidate_of(config, winner.params, config.name)
    say(f"confirming {config.name} against {config.start} with a sequential test")
    confirmation = sequential.compare(
        tuned, start, config.ruleset, config.field, 0.0, config.improvement_bound(), config.alpha, config.beta,
        max_games=config.max_games, seed=config.seed, first_game=fresh + config.confirm_games, workers=workers,
        progress=lambda n, llr: say(f"  {n:,} games: log likelihood ratio {llr:+.2f}"), objective=config.objective)
    path = None
    if out is not None and confirmation.better:
        from strategies import files

        path = files.save(tuned, Path(out) / f"{config.name}.toml", base="greedy",
                          description=f"{config.start} tuned for {game} against {', '.join(config.field)}",
                          tuning={"objective": f"{config.objective} against {', '.join(config.field)}",
                                  "ruleset": config.ruleset, "trials": len(finished), "games_per_trial": config.games,
                                  "believed_gain": round(winner.believed, 4),
                                  "reevaluated_gain": round(winner.reevaluated.estimate, 4),
                                  "confirmed_gain": round(confirmation.estimate, 4),
                                  "confirmed_low": round(confirmation.low, 4),
                                  "confirmed_high": round(confirmation.high, 4),
                                  "confirmation_games": confirmation.games, "seed": config.seed})
    result = TuneResult(config, len(finished), candidates, winner, confirmation, tuned, path,
                        time.perf_counter() - start_time, table)
    if out is not None:
        result.write_report(out)
        table.write_csv(Path(out) / "trials.csv")
    return result
