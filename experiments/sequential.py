"""A sequential comparison of two strategies: is ``a`` better than ``b``, with known error rates?

``compare(a, b)`` seats ``a`` and then ``b`` at the same table of a
``field`` (the other seats), on the same duplicate deals: every game is
played once per rotation of the table through the seats, in each arm. The
observation of game ``g`` is the *gain* of ``a`` over ``b``: ``b``'s points
per round minus ``a``'s on that game's deals (all rotations pooled), or the
reverse in basic rummy where points are a gain; positive means ``a`` did
better.

The test is Wald's sequential probability ratio test for the mean gain
``μ`` of normal observations, ``H0: μ = indifference`` against
``H1: μ = improvement``, with the standard deviation estimated from the
games so far. After every batch of games the log likelihood ratio

    Λ_n = (δ1 − δ0) / s² · (Σ d_i − n (δ0 + δ1) / 2)

is compared with ``log((1 − β) / α)`` (decide "a is better": reject H0)
and ``log(β / (1 − α))`` (decide "no improvement": accept H0); games are
added until one is crossed or ``max_games`` is reached ("undecided"). Wald's
bounds keep the chance of deciding "better" when ``μ ≤ δ0`` under α and of
deciding "no improvement" when ``μ ≥ δ1`` under β (checked by simulation in
the tests). Looking only after each batch makes the test slightly more
conservative, never less.

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
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import polars as pl

import strategies as strategy_lib
from experiments.tournament import better_points, play_table
from sim import rules

__all__ = ["Comparison", "compare", "game_gains", "median_unbiased", "sprt_bounds", "sprt_decide"]

BETTER, NOT_BETTER, UNDECIDED = "better", "no improvement", "undecided"


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's ``(lower, upper)`` bounds on the log likelihood ratio."""
    for key, value in (("alpha", alpha), ("beta", beta)):
        if not 0.0 < value < 0.5:
            raise ValueError(f"{key} must lie strictly between 0 and 0.5, got {value!r}")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


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
    min_games: int = 20,
) -> tuple[np.ndarray, np.ndarray]:
    """Run the test on given observations, vectorised over independent sequences.

    Parameters
    ----------
    gains : array of float, shape (sequences, n)
        Observations in order; the test looks after every ``batch`` of them
        (and not before ``min_games``), up to ``n``.

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
    for k in range(batch, n + batch, batch):
        k = min(k, n)
        if k < max(min_games, 2):
            continue
        total, sq = s1[:, k - 1], s2[:, k - 1]
        sd = np.sqrt(np.maximum((sq - total * total / k) / (k - 1), 0.0))
        llr = _llr(total, k, sd, indifference, improvement)
        up = open_ & (llr >= upper)
        down = open_ & (llr <= lower)
        decision[up], decision[down] = 1, -1
        used[up | down] = k
        open_ &= ~(up | down)
        if not open_.any() or k == n:
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
        ``"better"`` (a gains at least ``indifference``: H0 rejected),
        ``"no improvement"`` (H0 accepted), or ``"undecided"`` at ``max_games``.
    games : int
        Duplicate games used (each played once per rotation, in both arms).
    estimate, low, high : float
        Median-unbiased gain of ``a`` over ``b`` in points per round, and
        its 95% interval (positive: ``a`` better).
    naive : float
        The plain mean gain of the games used (biased by early stopping).
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
    looks: list[tuple[int, float]] = field(default_factory=list)
    wall_seconds: float = 0.0

    @property
    def better(self) -> bool:
        return self.decision == BETTER

    def __str__(self) -> str:
        r = self.ruleset
        sense = "fewer" if better_points(r.game) == "lower" else "more"
        head = {BETTER: f"{self.a} is better than {self.b}",
                NOT_BETTER: f"{self.a} does not improve on {self.b} by {self.improvement:g} points per round",
                UNDECIDED: f"undecided after {self.games:,} games"}[self.decision]
        return (f"{head} ({r.game}, {r.players} players, field {', '.join(self.field)}; SPRT with "
                f"indifference {self.indifference:g}, improvement {self.improvement:g} points per round, "
                f"alpha {self.alpha:g}, beta {self.beta:g})\n"
                f"games used: {self.games:,} duplicate games, each played once per rotation in both arms\n"
                f"gain of {self.a} over {self.b}: {self.estimate:+.2f} points per round ({sense} points is better), "
                f"95% interval {self.low:+.2f} to {self.high:+.2f} (median-unbiased for the sequential stop; "
                f"plain mean {self.naive:+.2f})")


def game_gains(frame_a: pl.DataFrame, frame_b: pl.DataFrame, better: str) -> pl.DataFrame:
    """Per game, the gain of the strategy at position 0 of arm A over the one of arm B.

    Returns
    -------
    polars.DataFrame
        Columns ``game`` and ``gain`` (points per round of B minus A's, or
        A minus B's when higher is better), sorted by game.
    """
    def per_game(frame: pl.DataFrame, tag: str) -> pl.DataFrame:
        return (frame.filter(pl.col("strategy_index") == 0).group_by("game")
                .agg(pl.col("points").cast(pl.Float64).mean().alias(tag)))

    joined = per_game(frame_a, "a").join(per_game(frame_b, "b"), on="game").sort("game")
    gain = pl.col("b") - pl.col("a") if better == "lower" else pl.col("a") - pl.col("b")
    return joined.select("game", gain.alias("gain"))


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
) -> Comparison:
    """Sequentially test whether ``a`` beats ``b`` against ``field`` (see the module's docstring).

    Parameters
    ----------
    a, b : str or Strategy
        The strategies compared (any name :func:`strategies.get` takes, or objects).
    ruleset : Ruleset or str
    field : sequence of str or Strategy
        The other seats of the table (at least one); ``players`` is one more.
    indifference, improvement : float
        The bounds δ0 < δ1 on the gain in points per round.
    alpha, beta : float
        The error rates: deciding "better" when the gain is at most δ0, and
        "no improvement" when it is at least δ1.
    batch : int
        Games added between two looks.
    max_games : int
        The test stops undecided here.
    seed, first_game : int
        The simulation seed, and the first game index (a confirmation on
        fresh deals starts past the games a search used).
    progress : callable, optional
        ``progress(games, llr)`` after each look.
    """
    start = time.perf_counter()
    sa, sb = strategy_lib.get(a), strategy_lib.get(b)
    others = [strategy_lib.get(s) for s in field]
    if not others:
        raise ValueError("the field must hold at least one strategy (the other seats of the table)")
    for key, value, least in (("batch", batch, 2), ("max_games", max_games, 2)):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ValueError(f"{key} must be a whole number of at least {least}, got {value!r}")
    sprt_bounds(alpha, beta)  # checks alpha and beta before any game is played
    if improvement <= indifference:
        raise ValueError(f"the improvement bound ({improvement}) must exceed the indifference bound ({indifference})")
    base = rules.as_ruleset(ruleset)
    players = len(others) + 1
    r = base if base.players == players else base.replace(players=players)
    better = better_points(r.game)
    checks = np.arange(batch, max_games + batch, batch)
    checks[-1] = min(checks[-1], max_games)
    checks = np.unique(np.minimum(checks, max_games))
    gains = np.zeros(0)
    looks: list[tuple[int, float]] = []
    side, stage = 0, len(checks) - 1
    for k, n in enumerate(checks):
        have = gains.size
        fa = play_table(r, [sa, *others], seed, first_game + have, int(n) - have, workers, label="a")
        fb = play_table(r, [sb, *others], seed, first_game + have, int(n) - have, workers, label="b")
        gains = np.concatenate([gains, game_gains(fa, fb, better)["gain"].to_numpy()])
        sd = float(gains.std(ddof=1)) if gains.size > 1 else 0.0
        llr = float(_llr(np.array(gains.sum()), np.array(gains.size), np.array(sd), indifference, improvement))
        looks.append((int(n), llr))
        if progress:
            progress(int(n), llr)
        # The decision is sprt_decide's, the function whose error rates the tests measure; earlier
        # looks crossed no bound, so only this one can decide.
        decided, _ = sprt_decide(gains[None, :], batch, indifference, improvement, alpha, beta, min_games=2)
        if decided[0] != 0:
            side, stage = int(decided[0]), k
            break
    sd = float(gains.std(ddof=1))
    est, low, high = median_unbiased(side, stage, float(gains.mean()), checks, sd, indifference, improvement, alpha,
                                     beta, seed=seed)
    decision = {1: BETTER, -1: NOT_BETTER, 0: UNDECIDED}[side]
    return Comparison(sa.name, sb.name, r, tuple(s.name for s in others), decision, int(gains.size), est, low, high,
                      float(gains.mean()), sd, indifference, improvement, alpha, beta, seed, looks,
                      time.perf_counter() - start)
