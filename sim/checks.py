"""The checks every room makes of a value it is given: the seeds, written once.

A simulation's seed (:func:`sim.simulate`, the deals, the odds, an
agreement's games, the experiments) is any whole number of 64 bits: the
random streams are derived from it as an unsigned 64-bit integer. A
rollout's seed (:func:`sim.rollout`, the analysis and the advice that roll
positions out) is one of 63 bits. The command line's options take their
ranges from here too.
"""

from __future__ import annotations

from numbers import Integral
from typing import Any

__all__ = ["ROLLOUT_SEED_MAX", "SEED_MAX", "check_seed"]

SEED_MAX = 2**64 - 1
"""The largest simulation seed."""

ROLLOUT_SEED_MAX = 2**63 - 1
"""The largest rollout seed."""


def check_seed(seed: Any, most: int = SEED_MAX, name: str = "seed") -> int:
    """``seed`` as an ``int`` when it is a whole number from 0 to ``most`` (a bool is not one), else
    ``ValueError`` naming ``name`` and the range (``2**64 - 1`` written as such)."""
    if isinstance(seed, bool) or not isinstance(seed, Integral) or not 0 <= seed <= most:
        bits = (most + 1).bit_length() - 1
        top = f"2**{bits} - 1" if most + 1 == 2**bits else str(most)
        raise ValueError(f"{name} must be a whole number from 0 to {top}, got {seed!r}")
    return int(seed)
