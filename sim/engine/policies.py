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

The heuristic's discard score is :func:`discard_score`, its one definition.
Where a policy's answer is known before the engine lists the choices, the
turn asks the shortcuts at the end of this module first
(:func:`take_reads_view`, :func:`may_i_shortcut`, :func:`may_i_reads_view`,
:func:`lists_joker_free`, :func:`stops_unlisted`, :func:`stops_unasked`,
:func:`discard_unlisted`), so that the turn loop reads no policy's parameters.

Kinds: ``KIND_RANDOM`` chooses uniformly among the legal choices;
``KIND_HEURISTIC`` is the parameterised family below, whose named presets
live in :mod:`strategies`.

The heuristic family's parameters (``params[P_*]``)
---------------------------------------------------

===================  ======  ===================================================
parameter            range   meaning
===================  ======  ===================================================
``P_JOKERS``         0-2     0: lay jokers as soon as they help; 1: use them in
                             the opening, afterwards only to go out; 2: keep them
                             for going out in one turn (rami sec)
``P_OPEN_EXTRA``     0-200   open only with at least threshold + this many points
``P_OPEN_CARDS``     0-15    open only when laying at least this many cards
``P_OPEN_ALL``       0-1     1: open only when the whole hand goes down
``P_DISCARD``        0-2     0: highest penalty among the cards that fit nothing;
                             1: keep cards close to melds, weighted by how many
                             copies of the missing cards are unseen; 2: as 1, and
                             avoid feeding the next player
``P_NEAR_WEIGHT``    0-50    points a near-meld is worth per unseen missing copy
``P_FEED_WEIGHT``    0-50    points of penalty for a card the next player may use
``P_TAKE_NEAR``      0-1     take the pile's top also when it only builds a
                             near-meld (where the rules let a taken card be kept)
``P_ADD``            0-1     1: add cards to table melds eagerly; 0: hold back
                             cards that sit in a meld of the hand
``P_RECOVER``        0-1     1: recover jokers whenever possible; 0: only to go out
``P_MAY_I``          0-3     "Puis-je ?": 0 never; 1 when the card completes a
                             meld; 2 also when it builds a near-meld; 3 as 1,
                             but only before the player's contract is laid
                             (after it no new meld may be laid)
``P_TAKE``           0-1     1: take the pile's top when it helps (as above);
                             0: never take it, always draw from the stock
``P_UNOPENED_KEEP``  0-3     before opening, how much less a card's penalty
                             counts towards throwing it (with P_DISCARD 1 or 2):
                             0 not less, 1 not at all, above 1 the high cards
                             are kept (slot 22, after the search's)
===================  ======  ===================================================

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

from sim.cards import N_NATURAL
from sim.engine.actions import discard_fits, discard_mask
from sim.engine.jit import kernel
from sim.engine.bits import (
    JOKER, RANK_CARDS, SUIT_BITS, ZERO, bit, count, highest, lowest, popcount, rank_of, suit_of,
)
from sim.engine.hand_melds import card_in_meld, holds_meld
from sim.engine.rng import below
from sim.engine.table import hand_recovers, table_accepts

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
# A seat that searches (sim.engine.search): it plays its own decisions by
# rollouts, and its base strategy (kind in P_SEARCH_BASE, the base's
# parameters in the other slots) in the rollouts. The turn never sees this
# kind: the searching round (search_round) hands the turn the base's kind.
KIND_SEARCH = 3

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
# KIND_SEARCH only: the most trials per choice, the base strategy's kind,
# the width (points) under which choices count as alike, the salt mixed
# into its rollouts' seeds, and its horizon (0 the round's points, 1 the
# game's value: sim.engine.game_value).
P_SEARCH_TRIALS, P_SEARCH_BASE, P_SEARCH_WIDTH = 12, 13, 14
P_SLOT = 15  # KIND_PYTHON: the policy's slot in sim.engine.callbacks
P_SEARCH_SALT = 16
P_SEARCH_HORIZON = 17
# KIND_SEARCH only: whether its rollouts see every hidden card (the ladder's
# ceiling, never a player), how strongly its re-deals lean on what the other
# seats' own choices said about their hands (0: not at all), and the normal
# quantile past which a choice is dropped between looks (0: the error-spending
# rule of sim.engine.search), and how many times a re-deal is made again while
# some seat holds a hand it would have opened with (0: never).
P_SEARCH_SEES = 18
P_SEARCH_INFER = 19
P_SEARCH_PRUNE = 20
P_SEARCH_REJECT = 21
# The heuristic family again (its first twelve slots are above): while the
# seat has not opened, how much less a card's own penalty counts towards
# throwing it (0: as much as ever; 1: not at all; above 1: the high cards,
# which reach the opening's threshold sooner, are kept).
P_UNOPENED_KEEP = 22
# KIND_SEARCH only: whether a laying is valued together with the seat's next
# decision of the same turn (each laying and each of its continuations a
# choice of the search; 0: the rest of the turn as the base plays it).
P_SEARCH_TURN = 23
N_PARAMS = 24

SEARCH_ONLY_SLOTS = (P_SEARCH_TRIALS, P_SEARCH_BASE, P_SEARCH_WIDTH, P_SLOT, P_SEARCH_SALT, P_SEARCH_HORIZON,
                     P_SEARCH_SEES, P_SEARCH_INFER, P_SEARCH_PRUNE, P_SEARCH_REJECT, P_SEARCH_TURN)
"""The slots a searching seat (or a Python seat's callback) reads and its base's play never does."""

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
    held = count(lo, hi, code) if code < N_NATURAL else 0
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
    if code >= N_NATURAL:
        return 0.0
    decks = view[V_DECKS]
    suit = suit_of(code)
    rank = rank_of(code)
    # Sets: another suit of the rank held, a third suit missing. Every held
    # other suit pairs with the same missing suits (those neither held nor
    # the card's own), so the sum is their unseen copies once, times the
    # held other suits (whole numbers: the same float as adding them one by one).
    held = 0
    for s in range(4):
        if lo & bit(s * 13 + rank - 1):
            held |= 1 << s
    partners = 0
    missing = 0.0
    for s in range(4):
        if s == suit:
            continue
        if held & (1 << s):
            partners += 1
        else:
            missing += unseen(s * 13 + rank - 1, lo, hi, pub, decks)
    total = partners * missing
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


def _feed_partners() -> np.ndarray:
    """Per card code, the codes it melds with in a 3-card meld: its rank in another suit, its suit within two ranks."""
    out = np.zeros(N_NATURAL, dtype=np.uint64)
    for code in range(N_NATURAL):
        suit, rank = divmod(code, 13)
        for other in range(N_NATURAL):
            s, r = divmod(other, 13)
            if (r == rank and s != suit) or (s == suit and r != rank and abs(r - rank) <= 2):
                out[code] |= np.uint64(1) << np.uint64(other)
    return out


FEED_PARTNERS = _feed_partners()
"""``FEED_PARTNERS[code]``: the cards a player holding one of them could meld ``code`` with, as a bit word."""


# Inlined: the turns call it, and a caller optimised apart (sim.engine.jit) would call it otherwise.
@kernel(forceinline=True)
def took_cards(pub, seat):
    """The card codes ``seat`` took from the pile and still holds, as a bit word (a code once, however many copies)."""
    row = PUB_TOOK + seat
    took = ZERO
    for c in range(N_NATURAL):
        if pub[row, c] != 0:
            took |= bit(c)
    return took


@kernel
def feeds_taken(code, took, next_opened, table_mask):
    """:func:`feeds` from the next player's taken cards already gathered (:func:`took_cards`).

    Scoring a hand's discards asks it of every card: the next player's taken
    cards are gathered once, and each card's partners among them are one
    mask and a bit count instead of a pass over the 52 codes.
    """
    if code >= N_NATURAL:
        return 2.0
    score = 0.0
    if next_opened and (table_mask & bit(code)):
        score += 1.0
    return score + popcount(took & FEED_PARTNERS[code])


@kernel
def feeds(code, seat_next, pub, view, table_mask, joker_fits):
    """How much the next player could use ``code``: the table and what it took.

    One point if the next player has opened and ``code`` fits a table meld,
    and one per card code it took from the pile that ``code`` would meld
    with (same rank in another suit, same suit within two ranks); a joker 2.
    """
    return feeds_taken(code, took_cards(pub, seat_next), pub[PUB_OPENED, seat_next], table_mask)


@kernel(forceinline=True)
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
    if completes or fits_table or card == JOKER:
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
    # The modes (never; when the card completes a meld; or is near one; the
    # first before the contract only, since after it no new meld may be laid
    # and two more cards only cost) are read in one place, the shortcut the
    # turn asks first.
    shortcut = may_i_shortcut(kind, params, view[V_OPENED] != 0)
    if shortcut == MAY_I_NO:
        return False
    if completes or card == JOKER:
        return True
    return shortcut == MAY_I_ASK and near_score(card, lo, hi, pub, view) > 0


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
        if code >= N_NATURAL:
            return False
        others = lo & ~bit(code)
        return not card_in_meld(others, jk, code, view[V_MIN_RUN], view[V_ACE_HIGH])
    if t == ACT_RECOVER:
        return params[P_RECOVER] > 0 or goes_out
    return True


@kernel(forceinline=True)
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


@kernel(forceinline=True)
def discard_score(params, code, penalty, fits, lo, hi, pub, view, table_mask, joker_fits):
    """How much the heuristic policy wants to throw ``code``: the highest score goes.

    Its ``penalty`` left in hand (before the seat opens, the share of it
    :func:`penalty_share` counts), less 1000 when it ``fits`` a meld of the
    hand or a table meld the player may add to; with ``P_DISCARD`` 1 less
    its near-meld worth, with 2 also less what it would feed the next
    player; less 5000 more for the joker.
    """
    took = took_cards(pub, view[V_NEXT]) if params[P_DISCARD] >= 2 else ZERO
    return discard_score_taken(params, code, penalty * penalty_share(params, view), fits, lo, hi, pub, view,
                               table_mask, took)


FITS_OFF = 1000.0
"""Points off the discard score of a card that fits a meld of the hand or a table meld the player may add to."""
JOKER_OFF = 5000.0
"""Points off the discard score of the joker, which goes only when nothing else may."""


@kernel(forceinline=True)
def penalty_share(params, view):
    """The share of a card's penalty that counts towards throwing it: all of it once the seat has opened,
    ``1 - P_UNOPENED_KEEP`` of it before (a flat penalty for an unopened hand makes the cards' own penalties
    moot, and the high cards reach the opening's threshold sooner). A judgement (``P_DISCARD`` 1 or 2), as the
    near-melds are: without one the policy throws by penalty alone (:func:`discard_unlisted` finds that card
    from masks). Read once a discard, not once a card."""
    if params[P_DISCARD] >= 1 and view[V_OPENED] == 0 and params[P_UNOPENED_KEEP] != 0:
        return 1.0 - params[P_UNOPENED_KEEP]
    return 1.0


@kernel(forceinline=True)
def discard_score_taken(params, code, penalty, fits, lo, hi, pub, view, table_mask, took):
    """:func:`discard_score` with the next player's taken cards already gathered (:func:`took_cards`) and
    ``penalty`` already its counted share (:func:`penalty_share`)."""
    mode = params[P_DISCARD]
    score = penalty
    if fits:
        score -= FITS_OFF
    if mode >= 1:
        score -= params[P_NEAR_WEIGHT] * near_score(code, lo, hi, pub, view)
    if mode >= 2:
        score -= params[P_FEED_WEIGHT] * feeds_taken(code, took, pub[PUB_OPENED, view[V_NEXT]], table_mask)
    if code == JOKER:
        score -= JOKER_OFF
    return score


@kernel(forceinline=True)
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
    best = -1
    best_score = -1.0e18
    # The next player's taken cards, gathered once for every card weighed.
    took = took_cards(pub, view[V_NEXT]) if params[P_DISCARD] >= 2 else ZERO
    # The judgement (near-melds, feeding) only takes points off a card's score:
    # a card whose score without it cannot beat the best so far is not weighed,
    # and the pick is the same (the first best in listing order).
    weighs = params[P_DISCARD] >= 1 and params[P_NEAR_WEIGHT] >= 0 and params[P_FEED_WEIGHT] >= 0
    share = penalty_share(params, view)
    for i in range(n_legal):
        pen = penalty[i] * share  # exact when the share is 1
        if weighs and best >= 0 and _unjudged_score(legal[i], pen, in_meld[i]) <= best_score:
            continue
        score = discard_score_taken(params, legal[i], pen, in_meld[i], lo, hi, pub, view, table_mask, took)
        if score > best_score:
            best_score = score
            best = i
    return legal[best]


@kernel(forceinline=True)
def _unjudged_score(code, penalty, fits):
    """:func:`discard_score_taken` without its judgement: at least the score it gives, whatever the judgement
    (its terms are subtracted in the same order, and the rounding of a subtraction never raises a result)."""
    score = penalty
    if fits:
        score -= FITS_OFF
    if code == JOKER:
        score -= JOKER_OFF
    return score


RANKS_TWO_TO_NINE = np.uint64(0x1FE)  # bits 1 .. 8 of a word of ranks (bit rank - 1)

# Shortcuts the turn asks before it lists the choices (sim.engine.turn): where
# a policy's answer is known without the listing, the listing is not made.
# Each gives exactly the policy's own answer on the listed choices
# (tests/test_engine_bits.py).


@kernel(forceinline=True)
def take_reads_view(kind, params):
    """Whether :func:`choose_take` reads the observation ``view`` (the heuristic only to weigh a near card)."""
    return kind != KIND_HEURISTIC or params[P_TAKE_NEAR] > 0


# What :func:`may_i_shortcut` says of a seat's "Puis-je ?".
MAY_I_NO, MAY_I_IF_COMPLETES, MAY_I_ASK = 0, 1, 2


@kernel(forceinline=True)
def may_i_shortcut(kind, params, opened):
    """What :func:`choose_may_i` will answer, as far as it is known before the card is looked at.

    ``MAY_I_NO``: no, whatever the card (the heuristic that never says
    "Puis-je ?", ``P_MAY_I`` 0, or that says it only before its contract,
    3, once ``opened``). ``MAY_I_IF_COMPLETES``: yes just when the card is the
    joker or sits in a meld of the hand (``P_MAY_I`` 1, or 3 before the
    contract): the turn answers from that test alone, with no view filled.
    ``MAY_I_ASK``: ask the policy. Asked of every other seat after each
    stock draw of Rami contrat.
    """
    if kind != KIND_HEURISTIC:
        return MAY_I_ASK
    mode = params[P_MAY_I]
    if mode <= 0 or (mode >= 3 and opened):
        return MAY_I_NO
    if mode == 2:
        return MAY_I_ASK
    return MAY_I_IF_COMPLETES


@kernel(forceinline=True)
def may_i_reads_view(kind, params):
    """Whether :func:`choose_may_i` reads the observation ``view``: the heuristic only to weigh a near card
    (``P_MAY_I`` 2) or to see whether its contract is down (3). Asked of every other seat after each stock
    draw of Rami contrat, so the view is not filled for the others."""
    return kind != KIND_HEURISTIC or params[P_MAY_I] >= 2


@kernel(forceinline=True)
def lists_joker_free(kind, params):
    """Whether the policy may play a Rami 51 opening kept free of jokers (``OPEN_NO_JOKER``) beside the same
    opening with its joker, so that the turn lists it.

    The heuristic that lays jokers as soon as they help (``P_JOKERS`` 0) and
    asks its opening for points alone (``P_OPEN_CARDS`` and ``P_OPEN_ALL``
    0) plays the richest opening: the joker-free one is worth no more points
    (the search without the joker finds no richer one), keeps the joker in
    hand (so it never goes out where the other does not), comes later in
    the listing and so never wins a tie, and is acceptable only where the
    other is. Its search, made when the best opening uses a joker (1.7
    times a round of four greedy Rami 51 players, beside 5.2 first
    searches), is then skipped.
    """
    return kind != KIND_HEURISTIC or params[P_JOKERS] > 0 or params[P_OPEN_CARDS] > 0 or params[P_OPEN_ALL] > 0


@kernel(forceinline=True)
def stops_unasked(kind):
    """Whether the policy, offered stopping alone, stops without being asked.

    The heuristic does; a random policy draws from its stream even then,
    and a Python policy is asked.
    """
    return kind == KIND_HEURISTIC


@kernel(forceinline=True)
def stops_unlisted(kind, rules, g, lo, jk, opened):
    """Whether the policy stops laying before the hand ``(lo, jk)``'s actions are listed (no card pending).

    The heuristic policy stops when stopping is all it may do
    (:func:`stop_only`).
    """
    return kind == KIND_HEURISTIC and stop_only(rules, g, lo, jk, opened)


@kernel(forceinline=True)
def stop_only(rules, g, lo, jk, opened):
    """Whether :func:`sim.engine.actions.enumerate_actions` would list stopping alone for the hand ``(lo, jk)``.

    (No card pending.)

    No meld in the hand (so no opening, contract or new meld: the listing
    finds no candidate, ``G_NCAND`` 0, and the discard's melded cards are
    none either way), no card of it the table takes when it may add, and
    no natural taking back a table joker once opened.
    """
    if holds_meld(lo, jk, rules.min_run, rules.ace_high):
        return False
    if opened or rules.add_before_opening:
        table_mask, joker_fits = table_accepts(g)
        if (lo & table_mask) != ZERO or (jk > 0 and joker_fits):
            return False
    return not (opened and hand_recovers(g, lo))  # no recovering natural without jokers


@kernel(forceinline=True)
def discard_unlisted(kind, params, rules, g, lo, jk, taken, opened, c_mask, c_info):
    """The card the policy throws, found without listing the legal discards; -1 when it needs the listing.

    The heuristic policy without judgement (``P_DISCARD`` 0) throws the best
    card of :func:`discard_score` from masks (:func:`_highest_discard`),
    where no penalty reaches the score's fitting margin.
    """
    if kind == KIND_HEURISTIC and params[P_DISCARD] < 1 and rules.ace_penalty < 990 and rules.joker_penalty < 990:
        return _highest_discard(rules, g, lo, jk, taken, opened, c_mask, c_info)
    return -1


@kernel(forceinline=True)
def _highest_discard(rules, g, lo, jk, taken, opened, c_mask, c_info):
    """The discard of the heuristic policy without judgement (``P_DISCARD`` 0), from masks.

    :func:`choose_discard` scores each legal discard by :func:`discard_score`
    (with ``P_DISCARD`` 0: its penalty, less 1000 when it fits a meld and
    5000 more for the joker) and plays the first best in listing order
    (naturals by code, then the joker). With penalties under 990 that is:
    the card fitting nothing with the highest penalty, the lowest code among
    equals; else the fitting natural so chosen; else the joker. Found here
    from the masks the listing is made of (the cards that may be thrown,
    :func:`sim.engine.actions.discard_mask`, and those that fit,
    :func:`sim.engine.actions.discard_fits`), without filling and scanning
    the lists.
    """
    mask, _ = discard_mask(rules, g, lo, jk, taken)
    fit = discard_fits(rules, g, lo, jk, opened, c_mask, c_info)
    for x in (mask & ~fit, mask & fit):
        if x != ZERO:
            return _highest_penalty(x, rules.ace_penalty)
    return JOKER


@kernel(forceinline=True)
def _highest_penalty(x, ace_penalty):
    """The card of the non-empty mask ``x`` with the highest :func:`card_penalty`, the lowest code among equals.

    By ranks from the highest penalty down (ten to king 10, then nine ...
    two), the aces joining the rank of their penalty: a few mask tests
    rather than the penalty of each card. Among two to nine, the highest
    rank held is found at once from the four suits folded into one word of
    ranks (a loop over the ranks was a few percent of a basic rummy round).
    """
    aces = x & RANK_CARDS
    if aces != ZERO and ace_penalty > 10:
        return lowest(aces)
    tens = x & ((RANK_CARDS << np.uint64(9)) | (RANK_CARDS << np.uint64(10)) | (RANK_CARDS << np.uint64(11))
                | (RANK_CARDS << np.uint64(12)))
    if ace_penalty == 10:
        tens |= aces
    if tens != ZERO:
        return lowest(tens)
    # Bit rank - 1 of ``ranks``: some card of that rank, two to nine, is in
    # ``x``, or the aces are and count that rank.
    ranks = (x | (x >> np.uint64(13)) | (x >> np.uint64(26)) | (x >> np.uint64(39))) & RANKS_TWO_TO_NINE
    if aces != ZERO and 2 <= ace_penalty <= 9:
        ranks |= np.uint64(1) << np.uint64(ace_penalty - 1)
    if ranks == ZERO:
        return lowest(aces)
    rank = highest(ranks) + 1
    y = x & (RANK_CARDS << np.uint64(rank - 1))
    if ace_penalty == rank:
        y |= aces
    return lowest(y)
