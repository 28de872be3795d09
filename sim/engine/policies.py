"""Compiled policies: how a seat decides, from what its player may see.

A seat plays a policy *kind* with a parameter vector (``params[seat]``). The
engine asks four questions, each answered from the observation it passes:
the player's own hand, the public counts ``pub`` (cards on the table, in the
pile, taken from the pile by each seat, who has opened), the scalars of
``view`` (its hand size, the stock size, the opening threshold, ...), and
facts it computed about the legal choices. Never another hand or the stock.

* :func:`choose_take`: take the pile's top card instead of drawing?
* :func:`choose_action`: which legal laying action next (or stop)?
* :func:`choose_discard`: which legal card to throw?
* :func:`choose_may_i`: say "Puis-je ?" for the pile's top card (contrat)?

Kinds: ``KIND_RANDOM`` chooses uniformly among the legal choices;
``KIND_HEURISTIC`` is the parameterised family below, whose named presets
live in :mod:`strategies`.

The heuristic family's parameters (``params[P_*]``)
---------------------------------------------------

=================  ======  ===================================================
parameter          range   meaning
=================  ======  ===================================================
``P_JOKERS``       0-2     0: lay jokers as soon as they help; 1: use them in
                           the opening, afterwards only to go out; 2: keep them
                           for going out in one turn (rami sec)
``P_OPEN_EXTRA``   0-200   open only with at least threshold + this many points
``P_OPEN_CARDS``   0-15    open only when laying at least this many cards
``P_OPEN_ALL``     0-1     1: open only when the whole hand goes down
``P_DISCARD``      0-2     0: highest penalty among the cards that fit nothing;
                           1: keep cards close to melds, weighted by how many
                           copies of the missing cards are unseen; 2: as 1, and
                           avoid feeding the next player
``P_NEAR_WEIGHT``  0-50    points a near-meld is worth per unseen missing copy
``P_FEED_WEIGHT``  0-50    points of penalty for a card the next player may use
``P_TAKE_NEAR``    0-1     take the pile's top also when it only builds a
                           near-meld (where the rules let a taken card be kept)
``P_ADD``          0-1     1: add cards to table melds eagerly; 0: hold back
                           cards that sit in a meld of the hand
``P_RECOVER``      0-1     1: recover jokers whenever possible; 0: only to go out
``P_MAY_I``        0-3     "Puis-je ?": 0 never; 1 when the card completes a
                           meld; 2 also when it builds a near-meld; 3 as 1,
                           but only before the player's contract is laid
                           (after it no new meld may be laid)
``P_TAKE``         0-1     1: take the pile's top when it helps (as above);
                           0: never take it, always draw from the stock
=================  ======  ===================================================

The choice parameters (jokers, open_all, discard, take_near, add, recover,
may_i, take) take whole numbers only. The strategies name the slots, with
these ranges, in :data:`strategies.PARAMETERS` (``strategies/parameters.py``).
"""

from __future__ import annotations

import warnings

import numpy as np
from numba import njit, objmode
from numba.core.errors import NumbaWarning

# Numba notes, when compiling the callback to Python policies, that the GIL is
# taken inside that block: expected (only Python seats pay it), so not shown.
warnings.filterwarnings("ignore", message=".*Code running in object mode won't allow parallel", category=NumbaWarning)

from sim.engine.jit import kernel
from sim.engine.melds import SUIT_BITS, bit, card_in_meld, count
from sim.engine.rng import below

# The action and observation layouts are the engine's (sim.engine.layout),
# re-exported here for the policies written against this module.
from sim.engine.layout import (  # noqa: F401
    A_P1, A_P2, A_P3, A_P4, A_P5, A_TYPE, ACT_ADD, ACT_MELD, ACT_OPEN, ACT_RECOVER, ACT_STOP, F_CARDS, F_JOKERS,
    F_LEFT, F_POINTS, N_FACTS, N_PUB, N_VIEW, OPEN_ALL, OPEN_BEST, OPEN_NO_JOKER, PUB_OPENED, PUB_PILE, PUB_TABLE,
    PUB_TOOK, V_ACCEPT, V_ACCEPT_JOKER, V_ACE_HIGH, V_DECKS, V_HAND, V_JOKERS, V_MIN_RUN, V_NEXT, V_OPENED, V_SEAT,
    V_STOCK, V_THRESHOLD,
)

KIND_RANDOM = 0
KIND_HEURISTIC = 1
KIND_PYTHON = 2  # a policy written in Python, called back (sim.engine.callbacks)

(
    P_JOKERS,
    P_OPEN_EXTRA,
    P_OPEN_CARDS,
    P_OPEN_ALL,
    P_DISCARD,
    P_NEAR_WEIGHT,
    P_FEED_WEIGHT,
    P_TAKE_NEAR,
    P_ADD,
    P_RECOVER,
    P_MAY_I,
    P_TAKE,
) = range(12)
N_PARAMS = 16
P_SLOT = 15  # KIND_PYTHON: the policy's slot in sim.engine.callbacks

# Questions put to a Python policy (sim.engine.callbacks).
Q_TAKE, Q_ACTION, Q_DISCARD, Q_MAY_I = 0, 1, 2, 3


def _python_decide(question, slot, a, b, c, lo, hi, view, pub):
    """Ask the Python policy in ``slot`` (:mod:`sim.engine.callbacks`; plain Python, called from compiled code)."""
    from sim.engine import callbacks

    return callbacks.answer(question, slot, a, b, c, lo, hi, view, pub)


@njit(cache=True, _nrt=True, forceinline=False)
def _ask_python(question, slot, a, b, c, lo, hi, view, pub):
    """:func:`_python_decide` from compiled code: a plain ``njit`` function,
    since handing arrays to Python needs numba's reference counting (see
    :mod:`sim.engine.jit`). ``_nrt=True`` and ``forceinline=False`` are
    explicit because a function that leaves them unset inherits its
    caller's settings."""
    with objmode(r="int64"):
        r = _python_decide(question, slot, a, b, c, lo, hi, view, pub)
    return r


@kernel
def policy_is_deterministic(kind, params):
    """Whether the policy's choices depend on the position alone (no random stream)."""
    return kind == KIND_HEURISTIC


@kernel
def unseen(code, lo, hi, pub, decks):
    """Copies of ``code`` neither in the hand, on the table nor in the pile."""
    held = count(lo, hi, code) if code < 52 else 0
    n = decks - held - pub[PUB_TABLE, code] - pub[PUB_PILE, code]
    return max(n, 0)


@kernel
def near_score(code, lo, hi, pub, view):
    """How close ``code`` is to a meld with the hand's other cards.

    Sums, over every 3-card meld holding ``code`` and one other card of the
    hand, the unseen copies of the missing card: a pair of kings with two
    unseen kings of other suits scores higher than one whose partners are
    all on the table.
    """
    if code >= 52:
        return 0.0
    decks = view[V_DECKS]
    suit = code // 13
    rank = code % 13 + 1
    total = 0.0
    # Sets: another suit of the rank held, a third suit missing.
    for s in range(4):
        if s != suit and (lo & bit(s * 13 + rank - 1)):
            for t in range(4):
                if t != suit and t != s and not (lo & bit(t * 13 + rank - 1)):
                    total += unseen(t * 13 + rank - 1, lo, hi, pub, decks)
    # Runs: positions p-2 .. p+2 in the suit; the ace also sits at 14.
    ranks = np.int64((lo >> np.uint64(13 * suit)) & SUIT_BITS)
    top = 14 if view[V_ACE_HIGH] else 13
    if view[V_ACE_HIGH] and (ranks & 1):
        ranks |= 1 << 13
    for p in (rank, 14):
        if p == 14 and not (rank == 1 and view[V_ACE_HIGH]):
            continue
        for d in (-2, -1, 1, 2):
            q = p + d
            if q < 1 or q > top or not (ranks >> (q - 1)) & 1:
                continue
            # The missing third card: between them, or beyond the pair.
            lo_p, hi_p = min(p, q), max(p, q)
            for m in (lo_p - 1, lo_p + 1, hi_p + 1):
                if m < 1 or m > top or m == p or m == q or (ranks >> (m - 1)) & 1:
                    continue
                if hi_p - lo_p == 2 and m != lo_p + 1:
                    continue
                total += unseen(suit * 13 + (m - 1) % 13, lo, hi, pub, decks)
    return total


@kernel
def feeds(code, seat_next, pub, view, table_mask, joker_fits):
    """How much the next player could use ``code``: the table and what it took."""
    if code >= 52:
        return 2.0
    score = 0.0
    if pub[PUB_OPENED, seat_next] and (table_mask & bit(code)):
        score += 1.0
    suit = code // 13
    rank = code % 13 + 1
    row = PUB_TOOK + seat_next
    for s in range(4):
        for r in range(1, 14):
            c = s * 13 + r - 1
            if pub[row, c] == 0:
                continue
            if (r == rank and s != suit) or (s == suit and abs(r - rank) <= 2 and r != rank):
                score += 1.0
    return score


@kernel(inline="always")
def choose_take(kind, params, rng, seat, card, completes, fits_table, lo, hi, pub, view):
    """Whether to take the pile's top ``card`` (already known to be legal).

    ``completes``: the card sits in a meld of the hand (with it);
    ``fits_table``: this player can add it to a table meld.
    """
    if kind == KIND_RANDOM:
        return below(rng, seat, 2) == 1
    if kind == KIND_PYTHON:
        slot = np.int64(params[P_SLOT])
        return _ask_python(Q_TAKE, slot, card, completes, fits_table, lo, hi, view, pub) != 0
    if params[P_TAKE] <= 0:
        return False
    if completes or fits_table or card == 52:
        return True
    return params[P_TAKE_NEAR] > 0 and near_score(card, lo, hi, pub, view) > 0


@kernel(forceinline=True)
def choose_may_i(kind, params, rng, seat, card, completes, lo, hi, pub, view):
    """Whether to say "Puis-je ?" for the pile's top ``card`` (contrat).

    Asked of every other seat after each stock draw: inlined where the
    engine asks it, so that its arrays are not copied at every question.
    """
    if kind == KIND_RANDOM:
        return below(rng, seat, 2) == 1
    if kind == KIND_PYTHON:
        slot = np.int64(params[P_SLOT])
        return _ask_python(Q_MAY_I, slot, card, completes, False, lo, hi, view, pub) != 0
    mode = params[P_MAY_I]
    if mode <= 0:
        return False
    if mode >= 3 and view[V_OPENED]:
        # After the contract no new meld may be laid: two more cards only cost.
        return False
    if completes or card == 52:
        return True
    return mode == 2 and near_score(card, lo, hi, pub, view) > 0


@kernel
def _acceptable(params, act, facts, i, view, lo, jk):
    """Whether heuristic parameters allow action ``i``."""
    t = act[i, A_TYPE]
    goes_out = facts[i, F_LEFT] == 0 or (t == ACT_OPEN and act[i, A_P1] == OPEN_ALL)
    jokers = facts[i, F_JOKERS]
    joker_mode = params[P_JOKERS]
    if t == ACT_OPEN:
        if jokers > 0 and joker_mode >= 2 and not goes_out:
            return False
        if facts[i, F_POINTS] < view[V_THRESHOLD] + params[P_OPEN_EXTRA] and not goes_out:
            return False
        if facts[i, F_CARDS] < params[P_OPEN_CARDS] and not goes_out:
            return False
        if params[P_OPEN_ALL] > 0 and facts[i, F_LEFT] > 1:
            return False
        return True
    if jokers > 0 and joker_mode >= 1 and not goes_out:
        return False
    if t == ACT_ADD:
        if params[P_ADD] > 0 or goes_out:
            return True
        code = act[i, A_P1]
        # Hold back a card that still belongs to a meld or near-meld of the hand.
        if code >= 52:
            return False
        others = lo & ~bit(code)
        return not card_in_meld(others, jk, code, view[V_MIN_RUN], view[V_ACE_HIGH])
    if t == ACT_RECOVER:
        return params[P_RECOVER] > 0 or goes_out
    return True


@kernel(inline="always")
def choose_action(kind, params, rng, seat, act, facts, n_act, view, lo, hi, jk, pub):
    """Index of the laying action to play among ``act[:n_act]``.

    The heuristic plays, among the actions its parameters allow, the one it
    ranks first: laying the whole hand, then the richest opening, then the
    largest new meld, then additions (natural cards before jokers), then joker
    recovery, else it stops. When the rules force a laying (a card taken
    under ``must_use``) and its parameters allow none, it plays the best
    forced one anyway.
    """
    if kind == KIND_RANDOM:
        return below(rng, seat, n_act)
    if kind == KIND_PYTHON:
        slot = np.int64(params[P_SLOT])
        return _ask_python(Q_ACTION, slot, act[:n_act], facts[:n_act], n_act, lo, hi, view, pub)
    best = -1
    best_score = -1.0e18
    fallback = -1
    fallback_score = -1.0e18
    for i in range(n_act):
        t = act[i, A_TYPE]
        if t == ACT_STOP:
            score = 0.0
        elif t == ACT_OPEN:
            score = 4000.0 + (1000.0 if act[i, A_P1] == OPEN_ALL else 0.0) + facts[i, F_POINTS]
            if facts[i, F_LEFT] == 0:
                score += 2000.0
        elif t == ACT_MELD:
            score = 3000.0 + 10.0 * facts[i, F_CARDS] + 0.01 * facts[i, F_POINTS] - 5.0 * facts[i, F_JOKERS]
        elif t == ACT_ADD:
            score = 2000.0 - 100.0 * facts[i, F_JOKERS]
        else:
            score = 1000.0
        if facts[i, F_LEFT] == 0 and t != ACT_STOP:
            score += 10000.0  # going out beats everything
        if score > fallback_score:
            fallback_score = score
            fallback = i
        if t == ACT_STOP or _acceptable(params, act, facts, i, view, lo, jk):
            if score > best_score:
                best_score = score
                best = i
    if best < 0:
        return fallback
    return best


@kernel(inline="always")
def choose_discard(kind, params, rng, seat, legal, n_legal, penalty, in_meld, view, lo, hi, pub,
                   table_mask, joker_fits):
    """The card code to discard among ``legal[:n_legal]``.

    ``penalty[i]`` is what card ``legal[i]`` costs left in hand; ``in_meld[i]``
    is true when it belongs to a meld of the hand or fits a table meld the
    player may add to.
    """
    if kind == KIND_RANDOM:
        return legal[below(rng, seat, n_legal)]
    if kind == KIND_PYTHON:
        slot = np.int64(params[P_SLOT])
        return _ask_python(Q_DISCARD, slot, legal[:n_legal], penalty[:n_legal], in_meld[:n_legal], lo, hi, view,
                           pub)
    mode = params[P_DISCARD]
    best = -1
    best_score = -1.0e18
    for i in range(n_legal):
        code = legal[i]
        score = penalty[i]
        if in_meld[i]:
            score -= 1000.0
        if mode >= 1:
            score -= params[P_NEAR_WEIGHT] * near_score(code, lo, hi, pub, view)
        if mode >= 2:
            score -= params[P_FEED_WEIGHT] * feeds(code, view[V_NEXT], pub, view, table_mask, joker_fits)
        if code == 52:
            score -= 5000.0  # a joker goes only when nothing else may
        if score > best_score:
            best_score = score
            best = i
    return legal[best]
