"""An experiment's typed config: the keys every experiment shares and their checks, read from a mapping
(a run's ``summary.json``) or from ``key=value`` settings (the command line's ``--set``).

Each experiment's ``Config`` subclasses :class:`Config` with its own keys;
an unknown key or a value of the wrong type is refused naming the key.
"""

from __future__ import annotations

import dataclasses
import tomllib
import types
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sim.checks import SEED_MAX, is_whole_valued

__all__ = ["Config"]


@dataclass(frozen=True)
class Config:
    """What every experiment's config holds; subclasses add their own fields.

    Attributes
    ----------
    games : int
        Games per arm (a duplicate arm plays each of them once per rotation);
        in the sequential mode, the games of the first step.
    seed : int
        The simulation seed shared by every arm (common random numbers).
    precision : float or None
        Sequential mode: add games until every headline interval is narrower
        than this, in the finding's own unit (points per round; shares as
        fractions, so 0.02 is two percentage points).
    max_games : int
        The sequential mode stops here even when an interval is still wider.
    resamples : int
        Bootstrap resamples per interval.
    workers : int or None
        Engine threads (default every core); results do not depend on it.
    """

    games: int = 2000
    seed: int = 1
    precision: float | None = None
    max_games: int = 200_000
    resamples: int = 1000
    workers: int | None = None

    def __post_init__(self) -> None:
        checks = [
            ("games", self.games >= 2, "at least 2 (an interval needs two games)"),
            ("seed", 0 <= self.seed <= SEED_MAX, "from 0 to 2**64 - 1"),
            ("precision", self.precision is None or self.precision > 0, "a positive width"),
            ("max_games", self.max_games >= 2, "at least 2"),
            ("resamples", self.resamples >= 50, "at least 50"),
            ("workers", self.workers is None or self.workers >= 1, "at least 1"),
        ]
        for key, ok, allowed in checks:
            if not ok:
                raise ValueError(f"config key {key!r} must be {allowed}, got {getattr(self, key)!r}")

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> Config:
        """A config from a mapping; an unknown key or a value of the wrong type raises ``ValueError``."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(
                f"unknown config key {unknown[0]!r} for {cls.__module__.rsplit('.', 1)[-1]}; "
                f"the keys are: {', '.join(sorted(known))}"
            )
        hints = typing.get_type_hints(cls)
        return cls(**{k: _coerce(k, v, hints[k]) for k, v in values.items()})

    def replace(self, **changes: Any) -> Config:
        """A copy with some keys changed (checked as in :meth:`from_dict`)."""
        return type(self).from_dict({**self.to_dict(), **changes})

    def with_settings(self, items: Sequence[str]) -> Config:
        """A copy with ``key=value`` strings applied (values read as TOML; lists as ``2,3,4``)."""
        changes: dict[str, Any] = {}
        for item in items:
            if "=" not in item:
                raise ValueError(f"{item!r}: expected key=value")
            key, text = (part.strip() for part in item.split("=", 1))
            changes[key] = _read_value(text)
        return self.replace(**changes)

    def to_dict(self) -> dict[str, Any]:
        """Plain values (tuples as lists), as stored in ``summary.json``."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(self).items()}


def _read_value(text: str) -> Any:
    if "," in text and not text.startswith("["):
        return [_read_value(part.strip()) for part in text.split(",")]
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text  # a bare word


def _coerce(key: str, value: Any, hint: Any) -> Any:
    """``value`` as the field's type, or a ``ValueError`` naming the key and the type."""
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        hint = next(a for a in args if a is not type(None))
        args = typing.get_args(hint)
    if typing.get_origin(hint) is tuple:
        items = value if isinstance(value, (list, tuple)) else [value]
        return tuple(_coerce(key, item, args[0]) for item in items)
    if hint is float and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if hint is int and isinstance(value, float) and is_whole_valued(value):
        return int(value)
    if not isinstance(value, hint) or (hint is int and isinstance(value, bool)):
        kinds = {int: "a whole number", float: "a number", str: "a word", bool: "true or false"}
        raise ValueError(f"config key {key!r} takes {kinds.get(hint, hint)}, got {value!r}")
    return value
