"""Strategies: named points of one parameterised heuristic family.

A strategy is a policy *kind* of the engine's compiled policies
(:mod:`sim.engine.policies`) and a vector of named parameters
(:mod:`strategies.parameters`). Seats at one table may each play a
different strategy, and an experiment changes one habit by name while
keeping everything else equal::

    import strategies
    waiting = strategies.get("greedy").with_params(open_extra=20)
    sim.simulate("rami51", [waiting, "greedy", "greedy", "greedy"], n_games=10_000)

or, by a name string, ``"greedy:open_extra=20,jokers=2"``.

==============  =============================================================
name            what it does
==============  =============================================================
``random``      chooses uniformly among the legal choices at every decision
``greedy``      takes a discard that fits a meld, opens as soon as it can with
                its richest opening, lays and adds everything it can, recovers
                jokers, discards its highest-penalty card that fits nothing
``cautious``    waits for a comfortable opening (15 points above the
                threshold), keeps its jokers for the opening, holds back cards
                of its own melds from the table, and weighs heavily against
                feeding the next player
``expert``      plays like greedy but discards with judgement: keeps cards
                close to melds, weighted by how many of the missing cards are
                still unseen, and avoids what the next player can use
==============  =============================================================

Strategies written in Python are registered with
:func:`strategies.user.register` and then used by name like these.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from sim.engine.policies import KIND_HEURISTIC, KIND_RANDOM, N_PARAMS, P_SLOT
from strategies import files
from strategies.parameters import CHOICE_PARAMETERS, PARAMETERS

__all__ = ["CHOICE_PARAMETERS", "PARAMETERS", "STRATEGIES", "Strategy", "files", "get", "parameter_arrays"]

_GREEDY = {
    "jokers": 0, "open_extra": 0, "open_cards": 0, "open_all": 0, "discard": 0,
    "near_weight": 0, "feed_weight": 0, "take_near": 0, "add": 1, "recover": 1, "may_i": 1, "take": 1,
}


@dataclass(frozen=True)
class Strategy:
    """A named policy kind and its parameters (names of :data:`PARAMETERS`)."""

    name: str
    kind: int
    params: dict[str, float] = field(default_factory=dict)
    description: str = ""
    slot: int = -1  # a Python policy's slot in strategies.user
    per_game: dict[str, dict[str, float]] = field(default_factory=dict)
    """Parameters that replace ``params`` in one game (``"contrat"``, ``"basic"``, ``"rami51"``)."""

    def with_params(self, **changes: float) -> "Strategy":
        """The same strategy with some parameters changed, named after the change.

        A change holds in every game, over the strategy's per-game parameters too.
        """
        if self.kind != KIND_HEURISTIC:
            raise ValueError(f"the {self.name} strategy has no parameters to change")
        for key, value in changes.items():
            _check_param(key, value)
        label = ",".join(f"{k}={v:g}" for k, v in changes.items())
        per_game = {game: {**values, **changes} for game, values in self.per_game.items()}
        return Strategy(f"{self.name}:{label}", self.kind, {**self.params, **changes}, self.description, self.slot,
                        per_game)

    def for_game(self, game: str) -> "Strategy":
        """The strategy as it plays ``game``: its per-game parameters applied, same name."""
        if not self.per_game:
            return self
        return Strategy(self.name, self.kind, {**self.params, **self.per_game.get(game, {})}, self.description,
                        self.slot)

    def vector(self) -> np.ndarray:
        """The parameter vector the kernels read."""
        out = np.zeros(N_PARAMS, dtype=np.float64)
        for key, value in self.params.items():
            out[PARAMETERS[key][0]] = value
        out[P_SLOT] = self.slot
        return out


def _check_param(key: str, value: float) -> None:
    if key not in PARAMETERS:
        raise ValueError(f"unknown strategy parameter {key!r}; the parameters are: {', '.join(PARAMETERS)}")
    _, low, high, meaning = PARAMETERS[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or not low <= value <= high:
        raise ValueError(f"strategy parameter {key} = {value!r} must be a number from {low} to {high} ({meaning})")
    if key in CHOICE_PARAMETERS and value != int(value):
        raise ValueError(f"strategy parameter {key} = {value!r} selects a behaviour: a whole number from {low} to {high}")


_EXPERT_BY_GAME: dict[str, dict[str, float]] = {
    # The expert's point in each game where Rami 51's does not serve: the
    # parameters of strategies/tuned/expert-<game>.toml (found by rami tune,
    # confirmed against greedy by the sequential test; docs/strategies.md).
    "contrat": {**_GREEDY, "may_i": 0},
    "basic": {
        **_GREEDY, "add": 0, "discard": 2, "feed_weight": 11.632, "jokers": 2, "may_i": 2, "near_weight": 34.2271,
        "take_near": 1,
    },
}

STRATEGIES: dict[str, Strategy] = {
    "random": Strategy("random", KIND_RANDOM, {}, "uniform among the legal choices at every decision"),
    "greedy": Strategy(
        "greedy", KIND_HEURISTIC, dict(_GREEDY),
        "takes a discard that fits a meld, opens as soon as it can, lays and adds everything it can, "
        "recovers jokers, discards its highest-penalty card that fits nothing",
    ),
    "cautious": Strategy(
        "cautious", KIND_HEURISTIC,
        {**_GREEDY, "open_extra": 15, "jokers": 1, "add": 0, "discard": 2, "near_weight": 2.0, "feed_weight": 8.0},
        "waits for a comfortable opening, keeps jokers for it, holds back cards of its own melds, "
        "weighs heavily against feeding the next player; never asks \"Puis-je ?\" in Rami contrat",
        per_game={"contrat": {"may_i": 0}},
    ),
    "expert": Strategy(
        "expert", KIND_HEURISTIC,
        {**_GREEDY, "discard": 2, "near_weight": 2.5, "feed_weight": 3.0, "take_near": 1, "may_i": 2},
        "plays like greedy but keeps cards close to melds (weighted by unseen copies) "
        "and avoids discarding what the next player can use; in Rami contrat and basic rummy "
        "it plays the point tuned for that game",
        per_game=dict(_EXPERT_BY_GAME),
    ),
}


def get(strategy: "str | Strategy") -> Strategy:
    """A strategy by name, ``"name:param=value,..."``, a tuned strategy's name or a
    strategy file's path (:mod:`strategies.files`), or the strategy itself."""
    if isinstance(strategy, Strategy):
        return strategy
    if not isinstance(strategy, str):
        raise TypeError(f"a strategy is a name or a Strategy, got {type(strategy).__name__}")
    name, _, changes = strategy.partition(":")
    if name in STRATEGIES:
        base = STRATEGIES[name]
    elif files.is_path(name) or name in files.registered():
        base = files.load(name)
    else:
        raise ValueError(f"unknown strategy {name!r}; the strategies are: {', '.join(STRATEGIES)}, the tuned "
                         f"strategies {', '.join(files.registered()) or '(none)'}, or a strategy file path (.toml)")
    if not changes:
        return base
    values: dict[str, float] = {}
    for item in changes.split(","):
        key, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"bad strategy parameter {item!r} in {strategy!r}: expected name=value")
        if key.strip() in values:
            raise ValueError(f"strategy parameter {key.strip()} is given twice in {strategy!r}")
        try:
            values[key.strip()] = float(value)
        except ValueError:
            raise ValueError(f"strategy parameter {key.strip()} = {value!r} is not a number") from None
    return base.with_params(**values)


def parameter_arrays(strategies: list[Strategy], seats: int) -> tuple[np.ndarray, np.ndarray]:
    """``(kinds, params)`` arrays for the kernels, one row per seat (padded to ``seats``)."""
    kinds = np.zeros(seats, dtype=np.int64)
    params = np.zeros((seats, N_PARAMS), dtype=np.float64)
    for i, s in enumerate(strategies):
        kinds[i] = s.kind
        params[i] = s.vector()
    return kinds, params
