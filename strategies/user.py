"""User strategies: a policy written in Python, called from the compiled engine.

Write a subclass of :class:`PythonPolicy`, override the decisions you want to
change (the others play like its ``base`` strategy), and register it under a
name; the name then works everywhere a strategy name does::

    from strategies.user import PythonPolicy, register

    class Hoarder(PythonPolicy):
        '''Greedy, but throws its lowest card: keeps high cards for the opening.'''
        base = "greedy"

        def discard(self, view, choices):
            free = [c for c in choices if not c.in_meld and not c.card.is_joker] or choices
            return min(free, key=lambda c: c.penalty).card

    register("hoarder", Hoarder())
    sim.simulate("rami51", ["hoarder", "greedy", "greedy", "greedy"], n_games=1000)

Each decision receives a :class:`View`: the player's own hand and only
public information (the information rule), and the legal choices; it returns
one of them. A method may call compiled code (a function decorated with
``numba.njit``) for its heavy work.

Speed: the engine leaves compiled code at each decision of such a seat and
hands it a view that works each attribute out when first read. Measured on a
2-core machine of the kind CI uses, a Python seat that defers to its base
costs about 15 microseconds per decision (about 17 decisions a Rami 51
round), and one that reads every attribute of the view at each throw about
27; so Rami 51 with one Python seat and three compiled ones runs about 2,000
to 3,500 rounds a second, against about 100,000 with four compiled seats: fine for
trying an idea on thousands of games, slow for millions (then port the idea
to a parameter of the compiled family). A Python seat holds the GIL while it
decides, so extra workers barely help it. Results stay reproducible for a
seed as long as the policy itself is deterministic; a Python policy's seat is
never assumed deterministic (so no cycle is stopped early). An exception
raised by a policy is raised by ``simulate`` once the games it was playing
are done (the base strategy answered in its place meanwhile).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from sim.cards import Card
from sim.engine import callbacks
from sim.engine import policies as engine_policies
from sim.observation import Observation

__all__ = ["Action", "DiscardChoice", "PythonPolicy", "View", "register"]

_ACTION_NAMES = {engine_policies.ACT_STOP: "stop", engine_policies.ACT_OPEN: "open", engine_policies.ACT_MELD: "meld",
                 engine_policies.ACT_ADD: "add", engine_policies.ACT_RECOVER: "recover"}


View = Observation
"""What the player sees when it decides: :class:`sim.observation.Observation`, under the name strategies know.

Its attributes: ``seat`` and ``next_seat``; ``hand`` (the player's own
cards, a list of :class:`~sim.cards.Card`); ``opened``; ``threshold`` (the
points an opening needs now); ``stock`` (cards left in it); ``table`` and
``pile`` (copies of each card code there, arrays of 53); ``table_takes``
and ``table_takes_joker`` (what could be added to a table meld now);
``took`` (the cards each seat took from the pile, shape (6, 53)) and
``opened_seats`` (1 for each seat that has opened); and the engine's own
arrays behind them, ``lo`` and ``hi`` (the hand's words), ``view`` and
``pub`` (:mod:`sim.engine.layout`), for a policy that calls compiled code.
"""


@dataclass(frozen=True)
class Action:
    """One legal laying action: ``kind`` is stop, open, meld, add or recover.

    ``card`` is the card added (add) or put in a joker's place (recover);
    ``meld`` the table meld it goes to; ``cards`` how many cards leave the
    hand, ``points`` their opening value, ``jokers`` how many are jokers,
    ``left`` the cards still in hand after it.
    """

    kind: str
    card: Card | None
    meld: int
    cards: int
    points: int
    jokers: int
    left: int


@dataclass(frozen=True)
class DiscardChoice:
    """A card the player may discard, what it costs in hand, whether it sits in a meld."""

    card: Card
    penalty: float
    in_meld: bool


class PythonPolicy:
    """A strategy written in Python; every decision defaults to the ``base`` strategy's."""

    base: str = "greedy"

    def _base(self):
        import strategies

        return strategies.get(self.base)

    # Each default asks the compiled heuristic with the base's parameters, on
    # the very arrays the engine passed, so an unchanged decision is exactly
    # the base strategy's.
    def take(self, view: View, card: Card, completes: bool, fits_table: bool) -> bool:
        """Take the pile's top ``card`` (a legal take) instead of drawing?"""
        base, raw = self._base(), _RAW[id(view)]
        return bool(engine_policies.choose_take(base.kind, base.vector(), _NO_RNG, view.seat, int(card), completes,
                                                fits_table, *_hand(view), raw["pub"], raw["view"]))

    def action(self, view: View, actions: list[Action]) -> Action:
        """The laying action to play next; ``stop`` goes on to the discard."""
        base, raw = self._base(), _RAW[id(view)]
        i = engine_policies.choose_action(base.kind, base.vector(), _NO_RNG, view.seat, raw["act"], raw["facts"],
                                          len(actions), raw["view"], *_hand(view),
                                          np.int64(raw["view"][engine_policies.V_JOKERS]), raw["pub"])
        return actions[i]

    def discard(self, view: View, choices: list[DiscardChoice]) -> Card:
        """The card to throw."""
        base, raw = self._base(), _RAW[id(view)]
        code = engine_policies.choose_discard(base.kind, base.vector(), _NO_RNG, view.seat, raw["legal"], len(choices),
                                              raw["penalty"], raw["in_meld"], raw["view"], *_hand(view),
                                              raw["pub"], *_table_accepts(raw["view"]))
        return Card(int(code))

    def may_i(self, view: View, card: Card, completes: bool) -> bool:
        """Say "Puis-je ?" for the pile's top ``card`` (Rami contrat)?"""
        base, raw = self._base(), _RAW[id(view)]
        return bool(engine_policies.choose_may_i(base.kind, base.vector(), _NO_RNG, view.seat, int(card), completes,
                                                 *_hand(view), raw["pub"], raw["view"]))


_RAW: dict[int, dict] = {}  # the engine's own arrays behind each View being decided, and the question's
_NO_RNG = np.zeros(6, dtype=np.uint64)  # the heuristic draws no random numbers


def _hand(view: View) -> tuple[np.uint64, np.uint64]:
    """The hand's words as the compiled heuristic takes them."""
    return np.uint64(view.lo), np.uint64(view.hi)


def _table_accepts(view) -> tuple[np.uint64, bool]:
    """What the table takes, as the engine put it in the view."""
    return np.uint64(view[engine_policies.V_ACCEPT]), bool(view[engine_policies.V_ACCEPT_JOKER])


def register(name: str, policy: PythonPolicy, description: str = "") -> None:
    """Make ``policy`` playable under ``name`` (``simulate``, the CLI, tournaments)."""
    import strategies

    if not isinstance(policy, PythonPolicy):
        raise TypeError(f"register expects a PythonPolicy, got {type(policy).__name__}")
    if not name or ":" in name or "," in name:
        raise ValueError(f"strategy name {name!r} must be non-empty, without ':' or ','")
    if name in strategies.STRATEGIES and strategies.STRATEGIES[name].kind != engine_policies.KIND_PYTHON:
        raise ValueError(f"{name!r} is a built-in strategy; choose another name")
    slot = callbacks.register(partial(_answer, policy))
    doc = description or (type(policy).__doc__ or "a Python policy").strip().splitlines()[0]
    strategies.STRATEGIES[name] = strategies.Strategy(name, engine_policies.KIND_PYTHON, {}, doc, slot=slot)


_ERRORS: list[BaseException] = []


def raise_pending() -> None:
    """Raise the first error a Python policy raised during the last simulation.

    An exception cannot cross the compiled engine with its message, so
    :func:`_answer` keeps it, lets the base strategy answer so the game stays
    legal, and the API raises it once the kernel returns.
    """
    if _ERRORS:
        error = _ERRORS[0]
        _ERRORS.clear()
        raise error


def _answer(policy: PythonPolicy, question, a, b, c, lo, hi, view, pub) -> int:
    """The engine's call for ``policy`` (its slot in :mod:`sim.engine.callbacks`): ask it, or its base if it fails."""
    try:
        return _decide(policy, question, a, b, c, lo, hi, view, pub)
    except Exception as exc:  # noqa: BLE001 - kept and raised by the API after the kernel
        _ERRORS.append(exc)
        fallback = PythonPolicy()
        fallback.base = policy.base
        return _decide(fallback, question, a, b, c, lo, hi, view, pub)


def _decide(policy, question, a, b, c, lo, hi, view, pub) -> int:
    """Build the view, ask ``policy``, check the answer."""
    v = Observation.of(lo, hi, view, pub)
    raw = {"pub": pub, "view": view}
    if question == engine_policies.Q_ACTION:
        raw["act"], raw["facts"] = a, b
    elif question == engine_policies.Q_DISCARD:
        raw["legal"], raw["penalty"], raw["in_meld"] = a, b, c
    _RAW[id(v)] = raw
    try:
        if question == engine_policies.Q_TAKE:
            return int(bool(policy.take(v, Card(int(a)), bool(b), bool(c))))
        if question == engine_policies.Q_MAY_I:
            return int(bool(policy.may_i(v, Card(int(a)), bool(b))))
        if question == engine_policies.Q_ACTION:
            acts, facts = a, b
            options = []
            for i in range(int(c)):
                t = int(acts[i, engine_policies.A_TYPE])
                card = Card(int(acts[i, engine_policies.A_P1])) if t in (engine_policies.ACT_ADD,
                                                                         engine_policies.ACT_RECOVER) else None
                meld = int(acts[i, engine_policies.A_P2]) if t in (engine_policies.ACT_ADD,
                                                                   engine_policies.ACT_RECOVER) else -1
                options.append(Action(_ACTION_NAMES[t], card, meld, int(facts[i, engine_policies.F_CARDS]),
                                      int(facts[i, engine_policies.F_POINTS]), int(facts[i, engine_policies.F_JOKERS]),
                                      int(facts[i, engine_policies.F_LEFT])))
            chosen = policy.action(v, options)
            for i, option in enumerate(options):
                if option is chosen:
                    return i
            raise ValueError(f"{type(policy).__name__}.action returned {chosen!r}, not one of the actions offered")
        choices = [DiscardChoice(Card(int(code)), float(cost), bool(m)) for code, cost, m in zip(a, b, c)]
        card = policy.discard(v, choices)
        legal = [int(x.card) for x in choices]
        if card is None or int(card) not in legal:
            raise ValueError(f"{type(policy).__name__}.discard returned {card!r}, not one of the legal discards")
        return int(card)
    finally:
        _RAW.pop(id(v), None)
