"""The checks every room makes of a value it is given: whole numbers and the seeds, written once.

A count, an index or a seat is a whole number: an ``int`` or a numpy
integer, never a bool (``True`` is 1 to Python, never a count to a person)
nor a float, even one like ``2.0``. :func:`is_whole` says whether a value is
one within its bounds, for a room that raises its own error (a record's
line and column, a study file's key, the play server's status);
:func:`check_whole` raises the one ``ValueError``, naming the option or
field, and :func:`whole_range` words the bounds for either. A number read as a
float that must have no fraction (a choice parameter, ``2.0``) is
:func:`is_whole_valued`.

A simulation's seed (:func:`sim.simulate`, the deals, the odds, an
agreement's games, the experiments) is any whole number of 64 bits: the
random streams are derived from it as an unsigned 64-bit integer. A
rollout's seed (:func:`sim.rollout`, the analysis and the advice that roll
positions out) is one of 63 bits. The command line's options take their
ranges from here too.
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any

__all__ = ["ROLLOUT_SEED_MAX", "SEED_MAX", "check_seed", "check_whole", "is_whole", "is_whole_valued", "whole_range"]

SEED_MAX = 2**64 - 1
"""The largest simulation seed."""

ROLLOUT_SEED_MAX = 2**63 - 1
"""The largest rollout seed."""


def is_whole(value: Any, low: int | None = None, high: int | None = None) -> bool:
    """Whether ``value`` is a whole number (an ``int`` or a numpy integer, a bool is not one) from ``low``
    to ``high`` (each bound included; ``None`` for no bound)."""
    return (not isinstance(value, bool) and isinstance(value, Integral)
            and (low is None or value >= low) and (high is None or value <= high))


def is_whole_valued(value: Any) -> bool:
    """Whether the number ``value`` has no fraction: ``2`` and ``2.0`` have none, ``2.5``, infinity and NaN
    are not whole (a bool is no number). A strategy parameter is read as a float, and one that selects a
    behaviour takes a whole value; a TOML file's ``2.0`` is the whole number 2."""
    return (not isinstance(value, bool) and isinstance(value, Real) and math.isfinite(value)
            and value == int(value))


def whole_range(low: int | None = None, high: int | None = None) -> str:
    """The bounds in words: ``"a whole number from 2 to 6"``, ``"a whole number of at least 1"``."""
    if low is not None and high is not None:
        return f"a whole number from {low} to {high}"
    if low is not None:
        return f"a whole number of at least {low}"
    if high is not None:
        return f"a whole number of at most {high}"
    return "a whole number"


def check_whole(name: str, value: Any, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an ``int`` when :func:`is_whole` from ``low`` to ``high``, else ``ValueError``:
    ``"{name} must be a whole number of at least 1, got 0"``."""
    if not is_whole(value, low, high):
        raise ValueError(f"{name} must be {whole_range(low, high)}, got {value!r}")
    return int(value)


def check_seed(seed: Any, most: int = SEED_MAX, name: str = "seed") -> int:
    """``seed`` as an ``int`` when it is a whole number from 0 to ``most`` (a bool is not one), else
    ``ValueError`` naming ``name`` and the range (``2**64 - 1`` written as such)."""
    if not is_whole(seed, 0, most):
        bits = (most + 1).bit_length() - 1
        top = f"2**{bits} - 1" if most + 1 == 2**bits else str(most)
        raise ValueError(f"{name} must be a whole number from 0 to {top}, got {seed!r}")
    return int(seed)
