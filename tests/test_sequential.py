"""The sequential comparison's error rates, by simulation on synthetic data with a known gain.

The test promises: with no gain (or a gain of at most the indifference
bound) it calls "better" at most ``alpha`` of the time, and with a gain of
the improvement bound it gives up ("no improvement" or "worse") at most
``beta`` of the time, whatever the batch size it accepts. Each check uses
its own seeded draws; the margin is three binomial standard errors of the
simulation itself.
"""

from __future__ import annotations

import numpy as np
import pytest

from experiments import sequential

REPS, HORIZON = 2000, 1500


def _margin(p: float) -> float:
    return 3 * np.sqrt(p * (1 - p) / REPS)


@pytest.mark.parametrize("batch", [1, 2, 5, 25, 200])
@pytest.mark.parametrize("sd", [3.0, 6.0])
def test_no_gain_is_called_better_at_most_alpha_of_the_time_at_every_batch(batch, sd):
    rng = np.random.default_rng([batch, int(sd)])
    decision, used = sequential.sprt_decide(rng.normal(0.0, sd, (REPS, HORIZON)), batch, 0.0, 1.0, 0.05, 0.05)
    assert (decision == 1).mean() <= 0.05 + _margin(0.05)
    assert used.min() >= sequential.MIN_FIRST_LOOK  # no decision from a handful of games


@pytest.mark.parametrize("batch", [1, 2, 5, 25, 200])
def test_a_gain_of_the_improvement_bound_is_found(batch):
    rng = np.random.default_rng([batch, 7])
    decision, used = sequential.sprt_decide(rng.normal(1.0, 6.0, (REPS, HORIZON)), batch, 0.0, 1.0, 0.05, 0.05)
    assert (decision == -1).mean() <= 0.05 + _margin(0.05)
    assert (decision == 1).mean() >= 0.9  # the power: it decides, and decides right
    assert np.median(used) < HORIZON / 2  # and stops early


@pytest.mark.parametrize("alpha,beta", [(0.1, 0.2), (0.01, 0.1)])
def test_other_error_rates_hold_at_batch_one(alpha, beta):
    rng = np.random.default_rng(3)
    decision, _ = sequential.sprt_decide(rng.normal(0.0, 4.0, (REPS, HORIZON)), 1, 0.0, 1.0, alpha, beta)
    assert (decision == 1).mean() <= alpha + _margin(alpha)
    decision, _ = sequential.sprt_decide(rng.normal(1.0, 4.0, (REPS, HORIZON)), 1, 0.0, 1.0, alpha, beta)
    assert (decision == -1).mean() <= beta + _margin(beta)


def test_skewed_and_heavy_tailed_games_keep_the_false_positive_rate():
    # Gains of real games are not quite normal: 400 games of expert against greedy had a skewness
    # up to 0.5 and an excess kurtosis up to 1.1 (Rami 51, basic rummy, contrat). Synthetic gains
    # as skewed (a gamma shape) and with heavier tails (Student's t, 6 degrees of freedom),
    # centred on no gain, at the smallest batch, both signs of the skew.
    rng = np.random.default_rng(9)
    shape = 16.0  # skewness 2 / sqrt(shape) = 0.5
    skewed = 6.0 * (rng.gamma(shape, 1.0, (REPS, HORIZON)) - shape) / np.sqrt(shape)
    heavy = 6.0 * rng.standard_t(6, (REPS, HORIZON)) / np.sqrt(1.5)
    for gains in (skewed, -skewed, heavy):
        decision, _ = sequential.sprt_decide(gains, 1, 0.0, 1.0, 0.05, 0.05)
        assert (decision == 1).mean() <= 0.05 + _margin(0.05)


def test_looks_start_at_the_first_look_and_end_at_the_horizon():
    assert sequential.MIN_FIRST_LOOK == 100
    assert sequential.look_points(200, 1000).tolist() == [200, 400, 600, 800, 1000]
    assert sequential.look_points(2, 110).tolist() == [100, 102, 104, 106, 108, 110]
    assert sequential.look_points(30, 200).tolist() == [120, 150, 180, 200]
    assert sequential.look_points(7, 100).tolist() == [100]


def test_settings_are_refused_by_name():
    for kwargs, word in [({"alpha": 0.0}, "alpha"), ({"beta": 0.5}, "beta"), ({"batch": 0}, "batch"),
                         ({"max_games": 10}, "max_games"), ({"improvement": float("inf")}, "improvement"),
                         ({"indifference": float("nan")}, "indifference"), ({"improvement": -1.0}, "improvement")]:
        settings = {"indifference": 0.0, "improvement": 1.0, "alpha": 0.05, "beta": 0.05, "batch": 10,
                    "max_games": 100, **kwargs}
        with pytest.raises(ValueError, match=word):
            sequential.check_settings(**settings)
