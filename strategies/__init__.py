"""Strategies: named compiled policies with their parameter vectors.

A strategy is a policy *kind* (see :mod:`strategies.policies`) and a vector
of numeric parameters; seats at one table may each play a different one.

==========  ==============================================================
name        what it does
==========  ==============================================================
``random``  uniform among the legal choices at every decision
``greedy``  takes a discard that fits a meld, opens as soon as it can with
            its richest opening, lays and adds everything it can, recovers
            jokers, discards its highest-penalty card that fits nothing
==========  ==============================================================
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from strategies.policies import KIND_GREEDY, KIND_RANDOM, N_PARAMS

__all__ = ["STRATEGIES", "Strategy", "get", "parameter_arrays"]


@dataclass(frozen=True)
class Strategy:
    """A named policy and its parameters."""

    name: str
    kind: int
    params: tuple[float, ...] = (0.0,) * N_PARAMS
    description: str = ""


STRATEGIES: dict[str, Strategy] = {
    "random": Strategy("random", KIND_RANDOM, description="uniform among the legal choices at every decision"),
    "greedy": Strategy(
        "greedy",
        KIND_GREEDY,
        description=(
            "takes a discard that fits a meld, opens as soon as it can, lays and adds "
            "everything it can, recovers jokers, discards its highest-penalty card that fits nothing"
        ),
    ),
}


def get(strategy: "str | Strategy") -> Strategy:
    """A strategy by name (or the strategy itself)."""
    if isinstance(strategy, Strategy):
        return strategy
    if strategy not in STRATEGIES:
        raise ValueError(
            f"unknown strategy {strategy!r}; the strategies are: {', '.join(STRATEGIES)}"
        )
    return STRATEGIES[strategy]


def parameter_arrays(strategies: list[Strategy], seats: int) -> tuple[np.ndarray, np.ndarray]:
    """``(kinds, params)`` arrays for the kernels, one row per seat (padded to ``seats``)."""
    kinds = np.zeros(seats, dtype=np.int64)
    params = np.zeros((seats, N_PARAMS), dtype=np.float64)
    for i, s in enumerate(strategies):
        kinds[i] = s.kind
        params[i, : len(s.params)] = s.params
    return kinds, params
