"""The engine's callback to decisions written in Python: one registered function per slot.

A seat of kind ``KIND_PYTHON`` (:mod:`sim.engine.policies`) carries a slot
number in its parameters (``params[P_SLOT]``). At each of its decisions the
compiled policy leaves compiled code and calls :func:`answer`, which hands the
question to the function registered in that slot. The engine keeps only the
slots; what a policy written in Python sees, and what becomes of its errors,
belong to whoever registers it (the strategies' :mod:`strategies.user` does,
for :class:`strategies.user.PythonPolicy`).

A registered function is called as ``f(question, a, b, c, lo, hi, view, pub)``
and returns an ``int``; ``lo``, ``hi`` are the seat's hand as two 52-bit
words (``uint64``), ``view`` and ``pub`` its observation
(:mod:`sim.engine.layout`), and ``question`` one of the ``Q_*`` of
:mod:`sim.engine.policies`:

============  ===============================  ==================================
question      ``a``, ``b``, ``c``              answer
============  ===============================  ==================================
``Q_TAKE``    the pile's top card, it          1 to take it, 0 to draw from the
              completes a meld of the hand,    stock
              it fits a table meld
``Q_MAY_I``   the pile's top card, it          1 to say "Puis-je ?", 0 not to
              completes a meld, ``False``
``Q_ACTION``  ``act[:n]``, ``facts[:n]``,      the index of the laying action
              ``n``
``Q_DISCARD`` ``legal[:n]``, ``penalty[:n]``,  the card code to throw, one of
              ``in_meld[:n]``                  ``legal``
============  ===============================  ==================================
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["Answer", "answer", "register"]

Answer = Callable[..., int]
"""``f(question, a, b, c, lo, hi, view, pub) -> int`` (see the module's docstring)."""

_SLOTS: list[Answer] = []


def register(f: Answer) -> int:
    """Give ``f`` a new slot and return it: the value of ``params[P_SLOT]`` for a seat that ``f`` plays."""
    _SLOTS.append(f)
    return len(_SLOTS) - 1


def answer(question: int, slot: int, a: Any, b: Any, c: Any, lo: Any, hi: Any, view: Any, pub: Any) -> int:
    """The answer of the function registered in ``slot`` (called from compiled code)."""
    return _SLOTS[slot](question, a, b, c, lo, hi, view, pub)
