"""Interval estimates for experiment metrics: pure functions over numpy arrays.

Each function takes one sample of independent units (in a clustered design,
one value per cluster, e.g. per game) and returns an interval for its mean.
Randomness enters only through an explicit seed or ``numpy.random.Generator``.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["bootstrap_interval", "normal_interval"]


def _sample(values: np.ndarray | list[float], minimum: int) -> np.ndarray:
    sample = np.asarray(values, dtype=np.float64)
    if sample.ndim != 1:
        raise ValueError(f"expected a 1-D sample, got an array of shape {sample.shape}")
    if sample.size < minimum:
        raise ValueError(f"need at least {minimum} values, got {sample.size}")
    if not np.all(np.isfinite(sample)):
        raise ValueError("the sample holds NaN or infinite values")
    return sample


def normal_interval(values: np.ndarray | list[float], z: float = 1.96) -> tuple[float, float, float]:
    """Mean and normal-approximation interval ``mean ± z·sd/√n``.

    Parameters
    ----------
    values : array of float, shape (n,)
        One value per independent unit (n >= 2); ``sd`` is the sample
        standard deviation (``ddof=1``).
    z : float
        Normal quantile; 1.96 gives a 95% interval.

    Returns
    -------
    (mean, low, high) : tuple of float
    """
    sample = _sample(values, 2)
    mean = float(sample.mean())
    half = z * float(sample.std(ddof=1)) / math.sqrt(sample.size)
    return mean, mean - half, mean + half


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
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        raise ValueError(f"n_resamples must be a whole number of at least 1, got {n_resamples!r}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie strictly between 0 and 1, got {level!r}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    values = np.empty(n_resamples, dtype=np.float64)
    # Chunks of resamples keep the index array small for large samples.
    chunk = max(1, 4_000_000 // n)
    for start in range(0, n_resamples, chunk):
        stop = min(start + chunk, n_resamples)
        values[start:stop] = statistic(rng.integers(0, n, size=(stop - start, n)))
    low, high = np.quantile(values, [(1.0 - level) / 2.0, (1.0 + level) / 2.0])
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
