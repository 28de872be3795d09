"""A sequential comparison of two strategies: is ``a`` better than ``b``, with known error rates?

``compare(a, b)`` seats ``a`` and then ``b`` at the same table of a
``field`` (the other seats), on the same duplicate deals: every game is
played once per rotation of the table through the seats, in each arm. The
observation of game ``g`` is the *gain* of ``a`` over ``b``: ``b``'s points
per round minus ``a``'s on that game's deals (all rotations pooled), or the
reverse in basic rummy where points are a gain; positive means ``a`` did
better.

The test is a sequential probability ratio test for the mean gain ``μ`` of
normal observations, ``H0: μ = indifference`` against ``H1: μ = improvement``,
with the standard deviation estimated from the games so far. At every look
the log likelihood ratio

    Λ_n = (δ1 − δ0) / s² · (Σ d_i − n (δ0 + δ1) / 2)

is compared with ``log(1 / α)`` (reject H0: "a is better") and ``log(β)``
(accept H0); games are added until one is crossed or ``max_games`` is
reached ("undecided"). These are the bounds of Ville's inequality rather
than Wald's ``log((1 − β) / α)`` and ``log(β / (1 − α))``: the likelihood
ratio is a martingale under each hypothesis, so the chance that it *ever*
crosses the far bound is at most α (or β) however often the test looks,
and the error rates hold at every batch size, one game included. The
standard deviation is estimated, so no look comes before
:data:`MIN_FIRST_LOOK` games (an estimate from a handful of games is often
far too small, which made a test that looked after two games call "better"
13% of the time with no effect at all; a skew of the games' gains, as real
games have, needs a little more than 50 games). Both error rates are checked by
simulation in ``tests/test_sequential.py`` at batch sizes from 1 up.

When H0 is accepted, the verdict says how: "worse" when the 95% interval
of the gain (below) lies entirely under zero, "no improvement" otherwise
(the gain is below the improvement bound, maybe zero).

The mean of the games used is biased once the test stops early (it stops
when the running mean happens to be extreme). The estimate reported is
median-unbiased under the stagewise ordering of the test's outcomes (an
earlier exit at the upper bound ranks above a later one, which ranks above
every exit at the lower bound, the latest lowest; then by the running
mean), with the 95% interval from the same ordering: for a candidate ``μ``
the chance of an outcome at least as high as the observed one is computed by
simulating the test's own stopping rule with normal batch sums at the
observed standard deviation (common random numbers, so the chance is
monotone in ``μ``), and ``μ`` is solved for chances 0.5, 0.025 and 0.975.

A comparison given a folder (``out``) writes each arm's games there as
results datasets (``a/`` and ``b/``, one per rotation) as they are played,
and :data:`SETTINGS_FILE` with what makes the games (the strategies, the
rules, the field, the seed, the first game). The same comparison run again
into that folder plays only the games it does not hold yet: one killed
midway resumes, one that stopped undecided plays on with a larger
``max_games``, and the test's own settings (the bounds, the error rates,
the batch) may change, since they decide when to stop, not what is played.
A folder of other games is refused before anything is played.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

import strategies as strategy_lib
from experiments import metrics
from experiments.tournament import identity, play_table
from sim import distributed, rules, store
from sim.checks import check_whole

__all__ = ["MIN_FIRST_LOOK", "OBJECTIVES", "SETTINGS_FILE", "VERDICTS", "Comparison", "check_settings", "compare",
           "focal_values", "game_gains", "look_points", "median_unbiased", "sprt_bounds", "sprt_decide"]

BETTER, WORSE, NOT_BETTER, UNDECIDED = "better", "worse", "no improvement", "undecided"
VERDICTS = (BETTER, WORSE, NOT_BETTER, UNDECIDED)
MIN_FIRST_LOOK = 100
"""Games before the test first looks: its standard deviation is estimated from them."""
SETTINGS_FILE = "settings.json"
"""What makes a comparison's games, written to its folder: a later run with the same plays on from the games there."""


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """The ``(lower, upper)`` bounds on the log likelihood ratio: ``log β`` and ``log(1/α)``
    (Ville's inequality: each holds its error rate at every look)."""
    for key, value in (("alpha", alpha), ("beta", beta)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 < value < 0.5:
            raise ValueError(f"{key} must lie strictly between 0 and 0.5, got {value!r}")
    return math.log(beta), math.log(1.0 / alpha)


def look_points(batch: int, max_games: int, min_games: int = MIN_FIRST_LOOK) -> np.ndarray:
    """Games played at each look: every multiple of ``batch`` from ``min_games`` on, and ``max_games``.

    Returns
    -------
    array of int, shape (looks,)
        Increasing; the last is ``max_games`` (the only look when ``max_games < min_games``).
    """
    first = max(batch, math.ceil(min_games / batch) * batch)
    return np.unique(np.append(np.arange(first, max_games, batch, dtype=np.int64), max_games))


def _llr(total: np.ndarray, n: np.ndarray, sd: np.ndarray, indifference: float, improvement: float) -> np.ndarray:
    """The normal log likelihood ratio of H1 over H0 after ``n`` observations summing to ``total``."""
    return (improvement - indifference) / np.maximum(sd, 1e-12) ** 2 * (total - n * (indifference + improvement) / 2)


def sprt_decide(
    gains: np.ndarray,
    batch: int,
    indifference: float,
    improvement: float,
    alpha: float,
    beta: float,
    min_games: int = MIN_FIRST_LOOK,
) -> tuple[np.ndarray, np.ndarray]:
    """Run the test on given observations, vectorised over independent sequences.

    Parameters
    ----------
    gains : array of float, shape (sequences, n)
        Observations in order; the test looks at :func:`look_points`
        ``(batch, n, min_games)``.

    Returns
    -------
    decision : array of int, shape (sequences,)
        1 "better" (H0 rejected), -1 "no improvement" (H0 accepted), 0 undecided at ``n``.
    used : array of int, shape (sequences,)
        Observations used when the test stopped (``n`` when undecided).
    """
    d = np.atleast_2d(np.asarray(gains, dtype=np.float64))
    lower, upper = sprt_bounds(alpha, beta)
    if improvement <= indifference:
        raise ValueError(f"the improvement bound ({improvement}) must exceed the indifference bound ({indifference})")
    reps, n = d.shape
    decision = np.zeros(reps, dtype=np.int64)
    used = np.full(reps, n, dtype=np.int64)
    s1 = np.cumsum(d, axis=1)
    s2 = np.cumsum(d * d, axis=1)
    open_ = np.ones(reps, dtype=bool)
    for k in look_points(batch, n, min_games):
        k = int(k)
        if k < 2:
            continue
        total, sq = s1[:, k - 1], s2[:, k - 1]
        sd = np.sqrt(np.maximum((sq - total * total / k) / (k - 1), 0.0))
        llr = _llr(total, k, sd, indifference, improvement)
        up = open_ & (llr >= upper)
        down = open_ & (llr <= lower)
        decision[up], decision[down] = 1, -1
        used[up | down] = k
        open_ &= ~(up | down)
        if not open_.any():
            break
    return decision, used


def _outcome_scores(totals: np.ndarray, checks: np.ndarray, sd: float, indifference: float, improvement: float,
                    lower: float, upper: float) -> np.ndarray:
    """The stagewise order of each simulated path's outcome, as one number (higher: more in favour of H1).

    ``totals[p, k]``: the sum of path ``p``'s observations at look ``k``.
    """
    llr = _llr(totals, checks, np.full_like(totals, sd), indifference, improvement)
    stages = len(checks)
    crossed = (llr >= upper) | (llr <= lower)
    stop = np.where(crossed.any(axis=1), crossed.argmax(axis=1), stages - 1)
    rows = np.arange(len(totals))
    side = np.where(llr[rows, stop] >= upper, 1, np.where(llr[rows, stop] <= lower, -1, 0))
    mean = totals[rows, stop] / checks[stop]
    return _score(side, stop, mean, stages)


def _score(side, stop, mean, stages: int):
    # Exits at a bound rank by stage first (earlier upper highest, earlier lower lowest), then by mean.
    big = 1e6
    return np.where(side != 0, side * (stages + 1 - stop) * big, 0.0) + np.clip(mean, -big / 4, big / 4)


def median_unbiased(
    observed_side: int,
    observed_stage: int,
    observed_mean: float,
    checks: np.ndarray,
    sd: float,
    indifference: float,
    improvement: float,
    alpha: float,
    beta: float,
    seed: int = 0,
    paths: int = 4000,
) -> tuple[float, float, float]:
    """Median-unbiased estimate of the mean gain and its 95% interval, given how the test ended.

    Parameters
    ----------
    observed_side : int
        1, -1 or 0 (as :func:`sprt_decide`'s decision).
    observed_stage : int
        Index in ``checks`` of the look at which the test stopped.
    observed_mean : float
        Mean gain of the games used.
    checks : array of int, shape (looks,)
        Observations at each look the test could make (up to ``max_games``).
    sd : float
        Standard deviation of one observation.

    Returns
    -------
    (estimate, low, high) : tuple of float
    """
    lower, upper = sprt_bounds(alpha, beta)
    checks = np.asarray(checks, dtype=np.int64)
    rng = np.random.default_rng(seed)
    # Batch sums between looks, standardised; a path at mean mu adds mu * batch size.
    sizes = np.diff(np.concatenate([[0], checks]))
    z = rng.standard_normal((paths, len(checks))) * np.sqrt(sizes) * sd
    base = np.cumsum(z, axis=1)
    target = _score(np.array([observed_side]), np.array([observed_stage]), np.array([observed_mean]), len(checks))[0]

    def chance(mu: float) -> float:
        totals = base + mu * checks
        return float((_outcome_scores(totals, checks, sd, indifference, improvement, lower, upper) >= target).mean())

    se = sd / math.sqrt(max(int(checks[observed_stage]), 1))
    span = 12 * se + abs(improvement - indifference) * 4 + 1e-9

    def solve(p: float) -> float:
        lo, hi = observed_mean - span, observed_mean + span
        for _ in range(30):
            mid = (lo + hi) / 2
            if chance(mid) < p:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    return solve(0.5), solve(0.025), solve(0.975)


@dataclass
class Comparison:
    """What :func:`compare` returns.

    Attributes
    ----------
    decision : str
        ``"better"`` (H0 rejected: ``a`` gains more than ``indifference``),
        ``"worse"`` (H0 accepted and the gain's 95% interval lies below
        zero), ``"no improvement"`` (H0 accepted otherwise: ``a`` does not
        gain ``improvement``), or ``"undecided"`` at ``max_games``.
    games : int
        Duplicate games used (each played once per rotation, in both arms).
    estimate, low, high : float
        Median-unbiased gain of ``a`` over ``b`` in points per round, and
        its 95% interval (positive: ``a`` better).
    naive : float
        The plain mean gain of the games used (biased by early stopping).
    looks : list of (games, mean gain, sd, log likelihood ratio)
        The test's state at each look it made.
    gains : array of float, shape (games,)
        The gain of each game used, in game order.
    """

    a: str
    b: str
    ruleset: rules.Ruleset
    field: tuple[str, ...]
    decision: str
    games: int
    estimate: float
    low: float
    high: float
    naive: float
    sd: float
    indifference: float
    improvement: float
    alpha: float
    beta: float
    seed: int
    looks: list[tuple[int, float, float, float]] = field(default_factory=list)
    wall_seconds: float = 0.0
    batch: int = 0
    max_games: int = 0
    first_game: int = 0
    gains: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    objective: str = "points"

    @property
    def unit(self) -> str:
        return metrics.POINTS_PER_ROUND if self.objective == "points" else metrics.GAMES_WON

    @property
    def better(self) -> bool:
        return self.decision == BETTER

    def headline(self) -> str:
        """The verdict as a sentence."""
        unit = self.unit
        return {BETTER: f"{self.a} is better than {self.b} (its gain exceeds {self.indifference:g} {unit})",
                WORSE: f"{self.a} is worse than {self.b}",
                NOT_BETTER: f"{self.a} does not improve on {self.b} by {self.improvement:g} {unit} "
                            f"(no measurable difference either way)",
                UNDECIDED: f"undecided after {self.games:,} games: the gain of {self.a} over {self.b} is neither "
                           f"shown above {self.indifference:g} nor below {self.improvement:g} {unit}"}[self.decision]

    def looks_table(self) -> pl.DataFrame:
        """The looks as a frame: ``games``, ``mean_gain``, ``sd``, ``llr``, and the bounds."""
        lower, upper = sprt_bounds(self.alpha, self.beta)
        rows = [{"games": n, "mean_gain": m, "sd": s, "llr": llr, "lower": lower, "upper": upper}
                for n, m, s, llr in self.looks]
        return pl.DataFrame(rows, schema={"games": pl.Int64, "mean_gain": pl.Float64, "sd": pl.Float64,
                                          "llr": pl.Float64, "lower": pl.Float64, "upper": pl.Float64})

    def to_dict(self) -> dict:
        """Everything but the per-game gains, as plain values (for JSON)."""
        return {"a": self.a, "b": self.b, "ruleset": self.ruleset.to_dict(), "field": list(self.field),
                "decision": self.decision, "headline": self.headline(), "games": self.games,
                "gain": {"estimate": self.estimate, "low": self.low, "high": self.high, "naive": self.naive,
                         "unit": self.unit, "interval": "95%, median-unbiased for the sequential stop",
                         "resampling_unit": "game"},
                "sd": self.sd, "indifference": self.indifference, "improvement": self.improvement,
                "alpha": self.alpha, "beta": self.beta, "batch": self.batch, "max_games": self.max_games,
                "seed": self.seed, "first_game": self.first_game, "objective": self.objective,
                "looks": self.looks_table().to_dicts(), "wall_seconds": self.wall_seconds}

    def write(self, folder: Path | str) -> Path:
        """Save the comparison in ``folder``: ``looks.csv`` (the test at each look), ``gains.csv``
        (each game's gain, to recompute any figure) and ``comparison.json`` (:meth:`to_dict`)."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        self.looks_table().write_csv(folder / "looks.csv")
        pl.DataFrame({"game": np.arange(self.first_game, self.first_game + self.gains.size, dtype=np.int64),
                      "gain": self.gains}).write_csv(folder / "gains.csv")
        (folder / "comparison.json").write_text(json.dumps(self.to_dict(), indent=2), "utf-8")
        return folder

    def __str__(self) -> str:
        r = self.ruleset
        sense = (f" ({'fewer' if rules.better_points(r.game) == 'lower' else 'more'} points is better)"
                 if self.objective == "points" else "")
        digits = 2 if self.objective == "points" else 4
        return (f"{self.headline()} ({r.game}, {r.players} players, field {', '.join(self.field)}; sequential test "
                f"with indifference {self.indifference:g}, improvement {self.improvement:g} {self.unit}, "
                f"alpha {self.alpha:g}, beta {self.beta:g})\n"
                f"games used: {self.games:,} duplicate games, each played once per rotation in both arms\n"
                f"gain of {self.a} over {self.b}: {self.estimate:+.{digits}f} {self.unit}{sense}, "
                f"95% interval {self.low:+.{digits}f} to {self.high:+.{digits}f} (the game is the unit; "
                f"median-unbiased for the sequential stop; plain mean {self.naive:+.{digits}f})")


OBJECTIVES = ("points", "wins")


def focal_values(frame: pl.DataFrame, objective: str, better: str) -> pl.DataFrame:
    """Per game, the objective of the strategy at position 0 (``strategy_index`` 0), higher better.

    ``"points"``: its points per round over the game's rounds and rotations,
    signed so that higher is better; ``"wins"``: its share of the game's win
    in each rotation (a ``k``-way tie counts ``1/k``, a game nobody won 0),
    averaged over the rotations.

    Returns
    -------
    polars.DataFrame
        Columns ``game`` and ``v``, sorted by game.
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    if objective == "points":
        sign = -1.0 if better == "lower" else 1.0
        focal = frame.filter(pl.col("strategy_index") == 0)
        return focal.group_by("game").agg((sign * pl.col("points").cast(pl.Float64).mean()).alias("v")).sort("game")
    finals = (frame.group_by("rotation", "game", "seat").agg(pl.col("won").first(), pl.col("strategy_index").first())
              .with_columns(pl.col("won").cast(pl.Float64).sum().over("rotation", "game").alias("k")))
    share = finals.filter(pl.col("strategy_index") == 0).with_columns(
        pl.when(pl.col("k") > 0).then(pl.col("won").cast(pl.Float64) / pl.col("k")).otherwise(0.0).alias("s"))
    return share.group_by("game").agg(pl.col("s").mean().alias("v")).sort("game")


def game_gains(frame_a: pl.DataFrame, frame_b: pl.DataFrame, better: str, objective: str = "points") -> pl.DataFrame:
    """Per game, the gain of the strategy at position 0 of arm A over the one of arm B.

    Returns
    -------
    polars.DataFrame
        Columns ``game`` and ``gain``: with ``objective="points"`` points per
        round of B minus A's (A minus B's when higher is better), with
        ``"wins"`` A's share of games won minus B's; sorted by game.
    """
    joined = (focal_values(frame_a, objective, better).rename({"v": "a"})
              .join(focal_values(frame_b, objective, better).rename({"v": "b"}), on="game").sort("game"))
    return joined.select("game", (pl.col("a") - pl.col("b")).alias("gain"))


@distributed.on_cluster
def compare(
    a: str | strategy_lib.Strategy,
    b: str | strategy_lib.Strategy,
    ruleset: rules.Ruleset | str = "rami51",
    field: Sequence[str | strategy_lib.Strategy] = ("greedy", "greedy", "greedy"),
    indifference: float = 0.0,
    improvement: float = 1.0,
    alpha: float = 0.05,
    beta: float = 0.05,
    batch: int = 200,
    max_games: int = 20_000,
    seed: int = 1,
    first_game: int = 0,
    workers: int | None = None,
    progress: Callable[[int, float], None] | None = None,
    objective: str = "points",
    scheduler: Any = None,
    out: Path | str | None = None,
) -> Comparison:
    """Sequentially test whether ``a`` beats ``b`` against ``field`` (see the module's docstring).

    Parameters
    ----------
    a, b : str or Strategy
        The strategies compared (any name :func:`strategies.get` takes, or
        objects); they must play differently (another kind or parameters:
        a name alone is a label).
    ruleset : Ruleset or str
    field : sequence of str or Strategy
        The other seats of the table (at least one); ``players`` is one more.
    indifference, improvement : float
        The bounds δ0 < δ1 on the gain in points per round (finite).
    alpha, beta : float
        The error rates: deciding "better" when the gain is at most δ0, and
        "no improvement" (or "worse") when it is at least δ1.
    batch : int
        Games added between two looks (1 or more; the first look waits for
        :data:`MIN_FIRST_LOOK` games).
    max_games : int
        The test stops undecided here (at least :data:`MIN_FIRST_LOOK`).
    seed, first_game : int
        The simulation seed, and the first game index (a confirmation on
        fresh deals starts past the games a search used).
    progress : callable, optional
        ``progress(games, llr)`` after each look.
    objective : str
        ``"points"`` (the gain in points per round, the game's own sense of
        better) or ``"wins"`` (the gain in share of games won; then
        ``indifference`` and ``improvement`` are shares, e.g. 0.02).
    scheduler : str or distributed.Client, optional
        Play on this Dask cluster (:mod:`sim.distributed`, docs/cluster.md),
        connected once for the whole job: the same results as a local run.
    out : path, optional
        A new or empty folder, or one this comparison's games were written
        to: each arm's games are written there as they are played, and the
        games already there are not played again (see the module's
        docstring). The result itself is written by :meth:`Comparison.write`.

    Raises
    ------
    ValueError
        A bad setting, two strategies that play alike, or ``out`` holding
        other files or another comparison's games (said setting by setting),
        before any game is played.
    """
    start = time.perf_counter()
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    sa, sb = strategy_lib.get(a), strategy_lib.get(b)
    others = [strategy_lib.get(s) for s in field]
    check_settings(indifference, improvement, alpha, beta, batch, max_games, len(others))
    base = rules.as_ruleset(ruleset)
    players = len(others) + 1
    r = base if base.players == players else base.replace(players=players)
    if identity(sa, r.game) == identity(sb, r.game):
        raise ValueError(f"{sa.name!r} and {sb.name!r} play exactly alike in {r.game} (same kind and parameters): "
                         "compare two strategies that differ")
    check_whole("first_game", first_game, 0)
    if out is not None:
        store.claim_folder(out, SETTINGS_FILE, _settings(sa, sb, others, r, seed, first_game), "a comparison")
    better = rules.better_points(r.game)
    checks = look_points(batch, max_games)
    gains = np.zeros(0)
    looks: list[tuple[int, float, float, float]] = []
    side, stage = 0, len(checks) - 1
    for k, n in enumerate(checks):
        have = gains.size
        fa, fb = (play_table(r, [s, *others], seed, first_game + have, int(n) - have, workers, label=arm,
                             out=None if out is None else Path(out) / arm)
                  for arm, s in (("a", sa), ("b", sb)))
        gains = np.concatenate([gains, game_gains(fa, fb, better, objective)["gain"].to_numpy()])
        sd = float(gains.std(ddof=1)) if gains.size > 1 else 0.0
        llr = float(_llr(np.array(gains.sum()), np.array(gains.size), np.array(sd), indifference, improvement))
        looks.append((int(n), float(gains.mean()), sd, llr))
        if progress:
            progress(int(n), llr)
        # The decision is sprt_decide's, the function whose error rates the tests measure; earlier
        # looks crossed no bound, so only this one can decide.
        decided, _ = sprt_decide(gains[None, :], batch, indifference, improvement, alpha, beta)
        if decided[0] != 0:
            side, stage = int(decided[0]), k
            break
    sd = float(gains.std(ddof=1))
    est, low, high = median_unbiased(side, stage, float(gains.mean()), checks, sd, indifference, improvement, alpha,
                                     beta, seed=seed)
    decision = {1: BETTER, -1: WORSE if high < 0 and gains.mean() < 0 else NOT_BETTER, 0: UNDECIDED}[side]
    return Comparison(sa.name, sb.name, r, tuple(s.name for s in others), decision, int(gains.size), est, low, high,
                      float(gains.mean()), sd, indifference, improvement, alpha, beta, seed, looks,
                      time.perf_counter() - start, batch, max_games, first_game, gains, objective)


def _settings(sa: strategy_lib.Strategy, sb: strategy_lib.Strategy, others: Sequence[strategy_lib.Strategy],
              r: rules.Ruleset, seed: int, first_game: int) -> dict:
    """What makes a comparison's games: A, B and the field's strategies by name and by what each plays (its identity
    in the game), the rules, the seed and the first game."""
    def named(s: strategy_lib.Strategy, role: str) -> dict:
        return {"role": role, "name": s.name, "identity": list(identity(s, r.game))}

    return {"format": 1, "ruleset": r.to_dict(),
            "strategies": [named(sa, "A"), named(sb, "B"), *(named(s, "field") for s in others)],
            "seed": seed, "first_game": first_game}


def check_settings(indifference: float, improvement: float, alpha: float, beta: float, batch: int, max_games: int,
                   field_size: int = 1) -> None:
    """Refuse settings the test cannot use, before any game is played (``ValueError`` naming the setting)."""
    if field_size < 1:
        raise ValueError("the field must hold at least one strategy (the other seats of the table)")
    for key, value, least in (("batch", batch, 1), ("max_games", max_games, MIN_FIRST_LOOK)):
        check_whole(key, value, least)
    sprt_bounds(alpha, beta)
    for key, value in (("indifference", indifference), ("improvement", improvement)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"{key} must be a finite number of points per round, got {value!r}")
    if improvement <= indifference:
        raise ValueError(f"improvement must exceed indifference (the bounds on the gain): got improvement "
                         f"{improvement:g}, indifference {indifference:g}")
