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
``search``      values each of its decisions by playing every legal choice out
                to the round's end over re-deals of the cards it cannot see,
                with its base strategy (``expert`` by default) at every seat
                of the playouts: ``"search:trials=64,width=2,base=cautious"``
==============  =============================================================

``search`` takes ``trials`` and ``width`` (:data:`SEARCH_PARAMETERS`) and
``base``, the name of a compiled strategy (a preset or a tuned strategy's
name, without parameters of its own, since ``,`` and ``=`` already separate
the search's own): ``base`` is the one strategy parameter that is a name.

Strategies written in Python are registered with
:func:`strategies.user.register` and then used by name like these.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from sim.checks import is_whole_valued
from sim.engine.policies import KIND_HEURISTIC, KIND_RANDOM, KIND_SEARCH, N_PARAMS, P_SEARCH_BASE, P_SLOT
from strategies import files
from strategies.parameters import CEILING_PARAMETERS, CHOICE_PARAMETERS, PARAMETERS, SEARCH_PARAMETERS

__all__ = ["CHOICE_PARAMETERS", "PARAMETERS", "SEARCH_DEFAULTS", "SEARCH_PARAMETERS", "STRATEGIES", "Strategy",
           "ceiling", "clairvoyant", "files", "get", "parameter_arrays", "search"]

_GREEDY = {
    "jokers": 0, "open_extra": 0, "open_cards": 0, "open_all": 0, "discard": 0,
    "near_weight": 0, "feed_weight": 0, "take_near": 0, "add": 1, "recover": 1, "may_i": 1, "take": 1,
    "unopened_keep": 0,
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
    base: "Strategy | None" = None
    """A searching strategy's base: the strategy of every seat of its playouts (``KIND_SEARCH`` only)."""

    def with_params(self, **changes: float) -> "Strategy":
        """The same strategy with some parameters changed, named after the change.

        A change holds in every game, over the strategy's per-game parameters too.
        """
        if self.kind == KIND_SEARCH:
            if clairvoyant(self):
                return ceiling(self.base, **{k: v for k, v in {**self.params, **changes}.items() if k != "sees"})
            return search(self.base, **{**self.params, **changes})
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
        if self.base is not None:
            return Strategy(self.name, self.kind, self.params, self.description, self.slot, base=self.base.for_game(game))
        if not self.per_game:
            return self
        return Strategy(self.name, self.kind, {**self.params, **self.per_game.get(game, {})}, self.description,
                        self.slot)

    def vector(self) -> np.ndarray:
        """The parameter vector the kernels read."""
        if self.base is not None:
            # The base's vector, which the playouts read, with the search's slots.
            out = self.base.vector()
            out[P_SEARCH_BASE] = self.base.kind
            for key, value in self.params.items():
                out[_SEARCH_SLOTS[key][0]] = value
            return out
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
    if key in CHOICE_PARAMETERS and not is_whole_valued(value):
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


_SEARCH_SLOTS = {**SEARCH_PARAMETERS, **CEILING_PARAMETERS}

SEARCH_DEFAULTS: dict[str, float] = {"trials": 1024, "width": 0.25, "salt": 0, "horizon": 0, "infer": 0, "prune": 2,
                                     "reject": 0, "turn": 1}
"""The search's default budget, read off the measured strength against CPU (docs/strategies.md, "Speed and the
default budget"): a whole Rami 51 game under 2 s of one core; a laying searched with its continuation (``turn``),
which measurably pays in basic rummy and costs nothing measurable elsewhere. ``search:trials=32,width=2,prune=0,turn=0``
is the search this default replaced."""
WHOLE_SEARCH_PARAMETERS = ("trials", "salt", "horizon", "reject", "turn")
"""The search's parameters that are whole numbers."""

STRATEGIES["search"] = Strategy(
    "search", KIND_SEARCH, dict(SEARCH_DEFAULTS),
    "plays every legal choice of each of its decisions out to the round's end over re-deals of the cards it "
    "cannot see, with its base strategy (expert) at every seat, and keeps the best (sim.engine.search)",
    base=STRATEGIES["expert"],
)


def search(base: "str | Strategy | None" = None, **numbers: float) -> Strategy:
    """The ``search`` strategy over ``base`` (default ``expert``) with ``trials`` and ``width`` (:data:`SEARCH_PARAMETERS`)."""
    chosen = get(base if base is not None else "expert")
    if chosen.kind not in (KIND_HEURISTIC, KIND_RANDOM):
        raise ValueError(f"the search's base must be a compiled strategy (a preset or a tuned strategy), "
                         f"not {chosen.name!r}")
    for key, value in numbers.items():
        if key not in SEARCH_PARAMETERS:
            raise ValueError(f"unknown search parameter {key!r}; the search's parameters are: base, "
                             f"{', '.join(SEARCH_PARAMETERS)}")
        _, low, high, meaning = SEARCH_PARAMETERS[key]
        if (isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value)
                or not low <= value <= high or (key in WHOLE_SEARCH_PARAMETERS and not is_whole_valued(value))):
            raise ValueError(f"search parameter {key} = {value!r} must be a "
                             f"{'whole ' if key in WHOLE_SEARCH_PARAMETERS else ''}"
                             f"number from {low} to {high} ({meaning})")
    params = {**SEARCH_DEFAULTS, **numbers}
    changed = [f"{k}={v:g}" for k, v in numbers.items() if v != SEARCH_DEFAULTS[k]]
    if chosen.name != "expert":
        changed.append(f"base={chosen.name}")
    name = "search" + (":" + ",".join(changed) if changed else "")
    return Strategy(name, KIND_SEARCH, params, STRATEGIES["search"].description, base=chosen)


CEILING_DESCRIPTION = (
    "the search with rollouts that keep every hidden card as it is: it sees the other hands and the stock. "
    "Not a player: the ladder's ceiling, what knowing the hidden cards is worth (rami ladder)")


def ceiling(base: "str | Strategy | None" = None, **numbers: float) -> Strategy:
    """The ladder's ceiling: :func:`search` whose rollouts see every hidden card (no re-deal).

    It breaks the information rule by design, so the API seats it only where
    asked to (``sim.simulate(..., allow_clairvoyant=True)``, which the
    ladder alone passes) and :func:`clairvoyant` tells it apart.
    """
    seeing = search(base, **numbers)
    name = "ceiling" + seeing.name[len("search"):]
    return Strategy(name, KIND_SEARCH, {**seeing.params, "sees": 1}, CEILING_DESCRIPTION, base=seeing.base)


def clairvoyant(strategy: "str | Strategy") -> bool:
    """Whether ``strategy`` sees cards a player cannot see (the ladder's ceiling)."""
    s = get(strategy)
    return s.kind == KIND_SEARCH and s.params.get("sees", 0) > 0


def get(strategy: "str | Strategy") -> Strategy:
    """A strategy by name, ``"name:param=value,..."``, a tuned strategy's name or a
    strategy file's path (:mod:`strategies.files`), or the strategy itself."""
    if isinstance(strategy, Strategy):
        return strategy
    if not isinstance(strategy, str):
        raise TypeError(f"a strategy is a name or a Strategy, got {type(strategy).__name__}")
    name, _, changes = strategy.partition(":")
    if name in ("search", "ceiling"):
        return _search_by_name(strategy, changes, ceiling if name == "ceiling" else search)
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


def _search_by_name(strategy: str, changes: str, make: "Callable[..., Strategy]") -> Strategy:
    """``search:trials=64,base=cautious``: the numbers as :func:`get` reads them, ``base`` a strategy's name."""
    base = None
    numbers: dict[str, float] = {}
    for item in changes.split(",") if changes else []:
        key, eq, value = (part.strip() for part in item.partition("="))
        if not eq:
            raise ValueError(f"bad strategy parameter {item!r} in {strategy!r}: expected name=value")
        if key in numbers or (key == "base" and base is not None):
            raise ValueError(f"strategy parameter {key} is given twice in {strategy!r}")
        if key == "base":
            base = value
            continue
        try:
            numbers[key] = float(value)
        except ValueError:
            raise ValueError(f"strategy parameter {key} = {value!r} is not a number") from None
    return make(base, **numbers)


def parameter_arrays(strategies: list[Strategy], seats: int) -> tuple[np.ndarray, np.ndarray]:
    """``(kinds, params)`` arrays for the kernels, one row per seat (padded to ``seats``)."""
    kinds = np.zeros(seats, dtype=np.int64)
    params = np.zeros((seats, N_PARAMS), dtype=np.float64)
    for i, s in enumerate(strategies):
        kinds[i] = s.kind
        params[i] = s.vector()
    return kinds, params
