"""Compiled policies: how a seat decides, from what its player may see.

A policy is chosen per seat by a *kind* code and a parameter vector
(``params[seat]``). The engine asks three kinds of question, each answered
from the observation it passes (the player's own hand, the table, the pile's
top, public counts), never from other hands or the stock:

* :func:`choose_take`: take the discard's top card instead of drawing?
* :func:`choose_action`: which legal laying action next (or stop)?
* :func:`choose_discard`: which legal card to throw?

Kinds:

``KIND_RANDOM``
    Uniform among the legal choices at every question.
``KIND_GREEDY``
    Takes the discard when it fits a meld; opens as soon as it can (the
    opening worth most), then lays every meld it can (largest first), adds
    every card it can, recovers jokers; discards its highest-penalty card that
    fits nothing.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.engine.rng import below

KIND_RANDOM = 0
KIND_GREEDY = 1
N_PARAMS = 8

# Action rows, filled by the engine: act[i, A_TYPE], ...
A_TYPE, A_P1, A_P2, A_P3, A_P4, A_P5 = 0, 1, 2, 3, 4, 5
ACT_STOP, ACT_OPEN, ACT_MELD, ACT_ADD, ACT_RECOVER = 0, 1, 2, 3, 4
# Per-action facts the engine adds for the policies: cards laid, opening
# points, jokers laid.
F_CARDS, F_POINTS, F_JOKERS = 0, 1, 2


@njit(cache=True, nogil=True)
def policy_is_deterministic(kind, params):
    """Whether the policy's choices depend on the position alone (no random stream)."""
    return kind != KIND_RANDOM


@njit(cache=True, nogil=True)
def choose_take(kind, params, rng, seat, card, useful):
    """Whether to take the discard top ``card`` (already known to be legal).

    ``useful`` is true when the card would sit in a meld of the hand or fit
    a table meld the player may add to.
    """
    if kind == KIND_RANDOM:
        return below(rng, seat, 2) == 1
    return useful


@njit(cache=True, nogil=True)
def choose_action(kind, params, rng, seat, act, facts, n_act):
    """Index of the laying action to play among ``act[:n_act]``."""
    if kind == KIND_RANDOM:
        return below(rng, seat, n_act)
    best = -1
    best_score = -1.0
    for i in range(n_act):
        t = act[i, A_TYPE]
        if t == ACT_STOP:
            score = 0.0
        elif t == ACT_OPEN:
            # Laying the whole hand first, then the richest opening.
            score = 4000.0 + 1000.0 * act[i, A_P1] + facts[i, F_POINTS]
        elif t == ACT_MELD:
            score = 3000.0 + 10.0 * facts[i, F_CARDS] + 0.01 * facts[i, F_POINTS]
        elif t == ACT_ADD:
            # Natural cards before jokers: a joker is worth keeping for a meld.
            score = 2000.0 - 100.0 * facts[i, F_JOKERS]
        else:
            score = 1000.0
        if score > best_score:
            best_score = score
            best = i
    return best


@njit(cache=True, nogil=True)
def choose_discard(kind, params, rng, seat, legal, n_legal, penalty, fits):
    """The card code to discard among ``legal[:n_legal]``.

    ``penalty[i]`` is what the card would cost left in hand; ``fits[i]`` is
    true when it belongs to a meld of the hand or fits a table meld.
    """
    if kind == KIND_RANDOM:
        return legal[below(rng, seat, n_legal)]
    best = -1
    best_score = -1.0e9
    for i in range(n_legal):
        score = penalty[i] - (1000.0 if fits[i] else 0.0)
        if legal[i] == 52:
            score -= 5000.0  # a joker goes only when nothing else may
        if score > best_score:
            best_score = score
            best = i
    return legal[best]
