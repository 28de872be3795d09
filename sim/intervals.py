"""Interval estimates: pure functions over numpy arrays, the one home of every interval.

A simulation's summary (:mod:`sim.summary`: :func:`ratio_interval`,
:func:`wilson_interval`), the rollouts of a position (:mod:`sim.rollouts`:
:func:`mean_interval`) and the experiments (:mod:`experiments.stats` offers
this module's names to them) all take their intervals from here.

Each of the experiments' functions takes one sample of independent units (in a clustered design,
one value per cluster, e.g. per game) and returns an interval for its mean.
Randomness enters only through an explicit seed or ``numpy.random.Generator``.

Most metrics of a rummy study are ratios of sums over clusters: points per
round is the sum of a game's points over its rounds, summed over games, over
the number of rounds. :func:`ratio_estimate` and :func:`paired_difference`
give such a ratio (or the difference of two, for arms that played the same
games) with two 95% intervals: a percentile bootstrap that resamples whole
clusters, and the normal approximation of the linearised ratio (the delta
method). The paired difference also measures what pairing gained: the
variance an unpaired design of the same size would have had, estimated from
the same clusters.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from statistics import NormalDist

import numpy as np

from sim.checks import check_whole, is_whole

__all__ = [
    "Estimate",
    "Interval",
    "Z95",
    "Z95_ROUNDED",
    "bootstrap_interval",
    "contrast_estimate",
    "mean_interval",
    "normal_interval",
    "paired_difference",
    "ratio_bootstrap_interval",
    "ratio_estimate",
    "ratio_interval",
    "simultaneous_interval",
    "survival_curve",
    "unpaired_difference",
    "wilson_interval",
]

Z95 = 1.959963984540054
"""The normal quantile of a two-sided 95% interval: the literal the summaries have always used
(``NormalDist().inv_cdf(0.975)`` differs from it in the last binary place only)."""
Z95_ROUNDED = 1.96
"""The same quantile rounded to two decimals, which the experiments' normal intervals (and the ones in every
recorded ``summary.json``) have always used; kept apart from :data:`Z95` so that no recorded figure moves."""


def _sample(values: np.ndarray | list[float], minimum: int) -> np.ndarray:
    sample = np.asarray(values, dtype=np.float64)
    if sample.ndim != 1:
        raise ValueError(f"expected a 1-D sample, got an array of shape {sample.shape}")
    if sample.size < minimum:
        raise ValueError(f"need at least {minimum} values, got {sample.size}")
    if not np.all(np.isfinite(sample)):
        raise ValueError("the sample holds NaN or infinite values")
    return sample


def normal_interval(values: np.ndarray | list[float], z: float = Z95_ROUNDED) -> tuple[float, float, float]:
    """Mean and normal-approximation interval ``mean ± z·sd/√n``.

    Parameters
    ----------
    values : array of float, shape (n,)
        One value per independent unit (n >= 2); ``sd`` is the sample
        standard deviation (``ddof=1``).
    z : float
        Normal quantile; the default gives a 95% interval.

    Returns
    -------
    (mean, low, high) : tuple of float
    """
    sample = _sample(values, 2)
    return mean_interval(sample, z)


def mean_interval(x: np.ndarray, z: float) -> tuple[float, float, float]:
    """``(mean, low, high)`` of the mean of ``x`` with a normal interval of ``z`` standard errors.

    Unlike :func:`normal_interval` it checks nothing: a single value gives an
    infinite interval (a rollout's first trials, before a second one).
    """
    m = float(x.mean())
    if len(x) < 2:
        return m, -math.inf, math.inf
    half = z * float(x.std(ddof=1)) / math.sqrt(len(x))
    return m, m - half, m + half


def bootstrap_interval(
    values: np.ndarray | list[float],
    seed: int | np.random.Generator,
    n_resamples: int = 2000,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap interval for the mean.

    Draws ``n_resamples`` samples of size ``n`` with replacement from
    ``values``, takes the mean of each, and returns the ``(1 - level) / 2``
    and ``(1 + level) / 2`` quantiles of those means.

    Parameters
    ----------
    values : array of float, shape (n,)
        One value per independent unit (n >= 1), e.g. one per game so that
        the resampling respects the clustering of rounds within games.
    seed : int or numpy.random.Generator
        The resampling's random state; the same seed gives the same interval.
    n_resamples : int
        Bootstrap resamples.
    level : float
        Coverage, strictly between 0 and 1.

    Returns
    -------
    (low, high) : tuple of float
    """
    sample = _sample(values, 1)
    return _percentiles(sample.size, lambda idx: sample[idx].mean(axis=1), seed, n_resamples, level)


def _percentiles(n, statistic, seed, n_resamples: int, level: float) -> tuple[float, float]:
    """Quantiles of ``statistic`` over resamples of ``n`` units drawn with replacement.

    ``statistic`` maps an index array of shape (resamples, n) to one value
    per resample.
    """
    n_resamples = check_whole("n_resamples", n_resamples, 1)
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie strictly between 0 and 1, got {level!r}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    values = np.empty(n_resamples, dtype=np.float64)
    # Chunks of resamples keep the index array small for large samples.
    chunk = max(1, 4_000_000 // n)
    for start in range(0, n_resamples, chunk):
        stop = min(start + chunk, n_resamples)
        values[start:stop] = statistic(rng.integers(0, n, size=(stop - start, n)))
    low, high = np.nanquantile(values, [(1.0 - level) / 2.0, (1.0 + level) / 2.0])
    return float(low), float(high)


def ratio_bootstrap_interval(
    totals: np.ndarray | list[float],
    counts: np.ndarray | list[float],
    seed: int | np.random.Generator,
    n_resamples: int = 2000,
    level: float = 0.95,
) -> tuple[float, float, float]:
    """Cluster bootstrap of a ratio of sums, ``sum(totals) / sum(counts)``.

    The estimate a round-weighted mean needs when rounds come in games: each
    game (cluster) contributes the sum of its rounds' values (``totals``) and
    its number of rounds (``counts``); whole games are resampled.

    Parameters
    ----------
    totals, counts : array of float, shape (n,)
        One entry per cluster; ``counts`` positive.
    seed : int or numpy.random.Generator
        The resampling's random state.

    Returns
    -------
    (estimate, low, high) : tuple of float
    """
    t = _sample(totals, 1)
    c = _sample(counts, 1)
    if t.shape != c.shape:
        raise ValueError(f"totals and counts must have one entry per cluster, got {t.shape} and {c.shape}")
    if (c <= 0).any():
        raise ValueError("counts must be positive")
    low, high = _percentiles(t.size, lambda idx: t[idx].sum(axis=1) / c[idx].sum(axis=1), seed, n_resamples, level)
    return float(t.sum() / c.sum()), low, high


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its 95% intervals.

    ``low`` and ``high`` are the percentile bootstrap over ``clusters``
    resampled units (the unit is named in ``unit``); ``normal_low`` and
    ``normal_high`` the normal approximation. For a paired difference,
    ``variance_ratio`` is the estimated variance of the paired estimate over
    that of an unpaired design with as many clusters per arm (below 1: the
    pairing helped), else NaN.
    """

    estimate: float
    low: float
    high: float
    normal_low: float
    normal_high: float
    clusters: int
    unit: str = "game"
    variance_ratio: float = math.nan

    @property
    def width(self) -> float:
        """Width of the bootstrap interval."""
        return self.high - self.low

    @property
    def excludes_zero(self) -> bool:
        """Both intervals lie on one side of zero, and the bootstrap's has a width.

        An interval of no width comes from a quantity that took one value in
        every resampled game (a rate never or always met, a difference
        fixed by construction): the resampling measured no variation, so it
        cannot tell a difference from chance.
        """
        if self.high <= self.low:
            return False
        return (self.low > 0 and self.normal_low > 0) or (self.high < 0 and self.normal_high < 0)

    def to_dict(self) -> dict[str, float | int | str]:
        return asdict(self)


def simultaneous_interval(e: Estimate, family: int, level: float = 0.95) -> tuple[float, float]:
    """The normal interval of ``e`` widened so that ``family`` such intervals hold together at ``level``.

    Bonferroni: each interval at ``1 - (1 - level) / family``. A claim about a
    family ("some variant changes it", "some seat wins more") is a claim
    about all its members at once; at 95% each, eleven intervals cross zero
    by chance about half the time.
    """
    if family < 1:
        raise ValueError(f"family must be at least 1, got {family!r}")
    z = NormalDist().inv_cdf(1 - (1 - level) / 2 / family)
    half = (e.normal_high - e.normal_low) / 2 * z / NormalDist().inv_cdf(1 - (1 - level) / 2)
    return e.estimate - half, e.estimate + half


def _linearised(totals: np.ndarray, counts: np.ndarray) -> tuple[float, np.ndarray]:
    """The ratio ``sum(totals) / sum(counts)`` and each cluster's influence on it.

    The influence ``(t - R c) / mean(c)`` has mean zero; its variance over
    ``n`` is the delta method's variance of the ratio.
    """
    ratio = float(totals.sum() / counts.sum())
    return ratio, (totals - ratio * counts) / counts.mean()


def _pair(totals, counts) -> tuple[np.ndarray, np.ndarray]:
    t = _sample(totals, 2)
    c = _sample(counts, 2)
    if t.shape != c.shape:
        raise ValueError(f"totals and counts must have one entry per cluster, got {t.shape} and {c.shape}")
    if (c < 0).any() or c.sum() <= 0:
        raise ValueError("counts must be non-negative with a positive sum")
    return t, c


def ratio_estimate(
    totals: np.ndarray | list[float],
    counts: np.ndarray | list[float],
    seed: int | np.random.Generator,
    n_resamples: int = 2000,
    unit: str = "game",
    z: float = Z95_ROUNDED,
) -> Estimate:
    """``sum(totals) / sum(counts)`` with cluster bootstrap and delta-method intervals.

    Parameters
    ----------
    totals, counts : array of float, shape (n,)
        One entry per cluster (n >= 2): the sum of the metric over the
        cluster's units and their number (counts may be 0 for a cluster
        holding no unit of interest, as long as the sum is positive). A plain
        mean over clusters is the case ``counts = 1``.
    seed : int or numpy.random.Generator
        The resampling's random state.
    unit : str
        What one cluster is, for the reader ("game", "deal").
    """
    t, c = _pair(totals, counts)
    ratio, influence = _linearised(t, c)
    half = z * float(influence.std(ddof=1)) / math.sqrt(t.size)

    def statistic(idx: np.ndarray) -> np.ndarray:
        den = c[idx].sum(axis=1)
        return t[idx].sum(axis=1) / np.where(den > 0, den, np.nan)

    low, high = _percentiles(t.size, statistic, seed, n_resamples, 0.95)
    return Estimate(ratio, low, high, ratio - half, ratio + half, int(t.size), unit)


def paired_difference(
    totals_a, counts_a, totals_b, counts_b,
    seed: int | np.random.Generator,
    n_resamples: int = 2000,
    unit: str = "game",
    z: float = Z95_ROUNDED,
) -> Estimate:
    """Ratio of arm A minus ratio of arm B, the arms measured on the same clusters.

    Entry ``i`` of the four arrays belongs to the same cluster (the same
    game, dealt the same cards in both arms); the bootstrap resamples clusters
    jointly, so what the arms share cancels. ``variance_ratio`` compares the
    delta-method variance of this paired difference with ``var(A) + var(B)``,
    the variance of the same difference from two independent samples of the
    same size.

    Parameters
    ----------
    totals_a, counts_a, totals_b, counts_b : array of float, shape (n,)
        Per cluster, as in :func:`ratio_estimate`.
    """
    ta, ca = _pair(totals_a, counts_a)
    tb, cb = _pair(totals_b, counts_b)
    if ta.shape != tb.shape:
        raise ValueError(f"paired arms need the same clusters, got {ta.size} and {tb.size}")
    ra, ia = _linearised(ta, ca)
    rb, ib = _linearised(tb, cb)
    n = ta.size
    paired_var = float((ia - ib).var(ddof=1)) / n
    unpaired_var = (float(ia.var(ddof=1)) + float(ib.var(ddof=1))) / n
    half = z * math.sqrt(paired_var)

    def statistic(idx: np.ndarray) -> np.ndarray:
        da, db = ca[idx].sum(axis=1), cb[idx].sum(axis=1)
        return (ta[idx].sum(axis=1) / np.where(da > 0, da, np.nan)
                - tb[idx].sum(axis=1) / np.where(db > 0, db, np.nan))

    low, high = _percentiles(n, statistic, seed, n_resamples, 0.95)
    ratio = paired_var / unpaired_var if unpaired_var > 0 else math.nan
    d = ra - rb
    return Estimate(d, low, high, d - half, d + half, int(n), unit, ratio)


def contrast_estimate(
    totals: np.ndarray,
    counts: np.ndarray,
    weights: Sequence[float],
    seed: int | np.random.Generator,
    n_resamples: int = 2000,
    unit: str = "game",
    z: float = Z95_ROUNDED,
) -> Estimate:
    """``sum_k weights[k] * ratio_k``, each ``ratio_k = sum(totals[k]) / sum(counts[k])``, on shared clusters.

    The estimate of a sweep's effects: an effect is a difference of two
    ratios (``weights = (1, -1)``, :func:`paired_difference`'s estimate), an
    effect's change between two levels of another factor (an interaction) a
    difference of two such differences (``(1, -1, -1, 1)``). Entry ``[k, i]``
    belongs to cluster ``i`` for every ``k`` (the same game index in every
    cell), and the bootstrap resamples clusters jointly; the normal interval
    is the delta method's, from the clusters' combined influence.

    Parameters
    ----------
    totals, counts : array of float, shape (k, n)
        Per ratio and cluster, as in :func:`ratio_estimate`.
    weights : sequence of float, length k
    """
    t = np.asarray(totals, dtype=np.float64)
    c = np.asarray(counts, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    if t.ndim != 2 or t.shape != c.shape or w.shape != (t.shape[0],):
        raise ValueError(f"totals and counts must be (ratios, clusters) arrays with one weight per ratio, got "
                         f"{t.shape}, {c.shape} and {w.shape}")
    if t.shape[1] < 2:
        raise ValueError(f"an interval needs at least 2 clusters, got {t.shape[1]}")
    if (c < 0).any() or (c.sum(axis=1) <= 0).any():
        raise ValueError("counts must be non-negative with a positive sum for every ratio")
    estimate = 0.0
    influence = np.zeros(t.shape[1])
    for k in range(t.shape[0]):
        ratio, inf = _linearised(t[k], c[k])
        estimate += w[k] * ratio
        influence += w[k] * inf
    n = t.shape[1]
    estimate = float(estimate)
    half = z * float(influence.std(ddof=1)) / math.sqrt(n)

    def statistic(idx: np.ndarray) -> np.ndarray:
        out = np.zeros(idx.shape[0])
        for k in range(t.shape[0]):
            den = c[k][idx].sum(axis=1)
            out += w[k] * t[k][idx].sum(axis=1) / np.where(den > 0, den, np.nan)
        return out

    low, high = _percentiles(n, statistic, seed, n_resamples, 0.95)
    return Estimate(estimate, low, high, estimate - half, estimate + half, int(n), unit)


def unpaired_difference(
    totals_a, counts_a, totals_b, counts_b,
    seed: int | np.random.Generator,
    n_resamples: int = 2000,
    unit: str = "game",
    z: float = Z95_ROUNDED,
) -> Estimate:
    """Ratio of arm A minus ratio of arm B from two independent samples of clusters.

    The design a paired one is measured against: each arm's clusters are
    resampled on their own. Sizes may differ.
    """
    ta, ca = _pair(totals_a, counts_a)
    tb, cb = _pair(totals_b, counts_b)
    ra, ia = _linearised(ta, ca)
    rb, ib = _linearised(tb, cb)
    var = float(ia.var(ddof=1)) / ta.size + float(ib.var(ddof=1)) / tb.size
    half = z * math.sqrt(var)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    draws = np.empty(n_resamples)
    for k in range(n_resamples):
        i = rng.integers(0, ta.size, ta.size)
        j = rng.integers(0, tb.size, tb.size)
        draws[k] = ta[i].sum() / max(ca[i].sum(), 1e-300) - tb[j].sum() / max(cb[j].sum(), 1e-300)
    low, high = np.quantile(draws, [0.025, 0.975])
    d = ra - rb
    return Estimate(d, float(low), float(high), d - half, d + half, int(min(ta.size, tb.size)), unit)


def _cluster_weights(n: int, rng: np.random.Generator, n_resamples: int) -> np.ndarray:
    """How often each of ``n`` clusters is drawn in each resample, shape (n_resamples, n)."""
    weights = np.zeros((n_resamples, n), dtype=np.float64)
    for b in range(n_resamples):
        weights[b] = np.bincount(rng.integers(0, n, n), minlength=n)
    return weights


def _kaplan_meier(events: np.ndarray, at_risk: np.ndarray) -> np.ndarray:
    """Survival after each time from summed counts, shape (..., T)."""
    hazard = np.divide(events, at_risk, out=np.zeros(events.shape), where=at_risk > 0)
    return np.cumprod(1.0 - hazard, axis=-1)


def survival_curve(
    events: np.ndarray,
    at_risk: np.ndarray,
    seed: int | np.random.Generator,
    n_resamples: int = 500,
    unit: str = "game",
    by_time: int | Sequence[int] = 10,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, Estimate, Estimate | tuple[Estimate, ...]]:
    """Kaplan-Meier survival with a cluster bootstrap band, and the median time.

    Parameters
    ----------
    events, at_risk : arrays of int, shape (clusters, T)
        Per cluster (game) and time ``t = 1 .. T``: observations ending with
        the event at ``t``, and observations still at risk at ``t``
        (:func:`experiments.metrics.opening_times`).
    seed : int or numpy.random.Generator
        The resampling's random state.

    Returns
    -------
    survival, low, high : arrays of float, shape (T,)
        ``P(time > t)`` and its pointwise 95% percentile band.
    median : Estimate
        The first ``t`` with survival at most one half (NaN when the curve
        stays above it), with its bootstrap interval (``normal_*`` from the
        bootstrap standard deviation).
    by : Estimate, or tuple of Estimate when ``by_time`` is a sequence
        ``1 - survival`` at ``t = by_time``: the share of events by then
        (one per time of ``by_time``).
    """
    if events.shape != at_risk.shape or events.ndim != 2 or events.shape[0] < 2:
        raise ValueError(f"events and at_risk must share a shape (clusters >= 2, T), got {events.shape}, {at_risk.shape}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    curve = _kaplan_meier(events.sum(axis=0), at_risk.sum(axis=0))
    weights = _cluster_weights(events.shape[0], rng, n_resamples)
    curves = _kaplan_meier(weights @ events, weights @ at_risk)
    low, high = np.quantile(curves, [0.025, 0.975], axis=0)

    def median(c: np.ndarray) -> np.ndarray:
        below = c <= 0.5
        return np.where(below.any(axis=-1), below.argmax(axis=-1) + 1.0, np.nan)

    m = float(median(curve))
    draws = median(curves)
    finite = draws[np.isfinite(draws)]
    if math.isnan(m) or finite.size < draws.size:
        est = Estimate(m, math.nan, math.nan, math.nan, math.nan, int(events.shape[0]), unit)
    else:
        sd = float(finite.std(ddof=1))
        lo, hi = np.quantile(finite, [0.025, 0.975])
        est = Estimate(m, float(lo), float(hi), m - Z95_ROUNDED * sd, m + Z95_ROUNDED * sd, int(events.shape[0]), unit)
    def share_by(t: int) -> Estimate:
        if not is_whole(t, 1):
            raise ValueError(f"by_time must hold whole numbers of at least 1, got {t!r}")
        k = min(int(t), curve.size) - 1
        share = 1.0 - curves[:, k]
        sd = float(share.std(ddof=1))
        return Estimate(1.0 - float(curve[k]), 1.0 - float(high[k]), 1.0 - float(low[k]),
                        1.0 - float(curve[k]) - Z95_ROUNDED * sd, 1.0 - float(curve[k]) + Z95_ROUNDED * sd, int(events.shape[0]),
                        unit)

    by = tuple(share_by(t) for t in by_time) if isinstance(by_time, Sequence) else share_by(by_time)
    return curve, low, high, est, by


# ------------------------------------------------ a simulation's summary


@dataclass(frozen=True)
class Interval:
    """An estimate and its 95% interval; ``low`` and ``high`` are NaN when it cannot be estimated
    (fewer than two games, or no round to average)."""

    mean: float
    low: float
    high: float

    def text(self, digits: int = 2, percent: bool = False) -> str:
        """``mean [low, high]``, as percentages with ``percent``."""
        scale, unit = (100.0, "%") if percent else (1.0, "")
        if math.isnan(self.mean):
            return "-"
        mean = f"{self.mean * scale:.{digits}f}{unit}"
        if math.isnan(self.low):
            return f"{mean} [-]"
        return f"{mean} [{self.low * scale:.{digits}f}, {self.high * scale:.{digits}f}]"


def ratio_interval(sums: np.ndarray, counts: np.ndarray, share: bool = False) -> Interval:
    """The ratio ``sum(sums) / sum(counts)`` over games, with its cluster-robust 95% interval.

    Parameters
    ----------
    sums, counts : numpy.ndarray, shape (games,)
        Per game: the total of the figure and the number of rounds (or
        openings) it is over.
    share : bool
        The ratio is a share of rounds: the interval is kept within 0 and 1
        (the normal approximation can cross them on few games).
    """
    sums = np.asarray(sums, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.float64)
    total = counts.sum()
    if total == 0:
        return Interval(math.nan, math.nan, math.nan)
    ratio = sums.sum() / total
    games = len(sums)
    if games < 2:
        return Interval(ratio, math.nan, math.nan)
    residual = sums - ratio * counts
    half = Z95 * math.sqrt(games / (games - 1) * float(residual @ residual)) / total
    if share:
        return Interval(ratio, max(0.0, ratio - half), min(1.0, ratio + half))
    return Interval(ratio, ratio - half, ratio + half)


def wilson_interval(successes: int, trials: int) -> Interval:
    """A share of ``trials`` independent trials and its 95% Wilson interval."""
    if trials == 0:
        return Interval(math.nan, math.nan, math.nan)
    p = successes / trials
    denominator = 1 + Z95**2 / trials
    centre = (p + Z95**2 / (2 * trials)) / denominator
    half = Z95 * math.sqrt(p * (1 - p) / trials + Z95**2 / (4 * trials**2)) / denominator
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half))
