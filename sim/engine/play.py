"""The compiled round and game loops.

Everything here runs in numba over plain arrays; the Python API
(:mod:`sim.api`) validates, seeds, allocates and collects. A game is played
by :func:`play_game`, which writes one result row per round and seat and,
when tracing, every event (see ``docs/trace.md``; :mod:`sim.trace` turns the
event rows into dicts).

The state of a round is a :class:`sim.engine.state.RoundState` (its fields
and the ``S_*`` and ``G_*`` columns are documented there), unpacked here
into its arrays so that helpers update them in place; the round scalars are
the array ``g``. :mod:`sim.engine.position` plays the same turn one decision
at a time.
"""

from __future__ import annotations

import numpy as np

from sim.engine.jit import entry, kernel

from sim.engine import params as P
from sim.engine.melds import (
    I_JOKER,
    I_KIND,
    I_POINTS,
    I_SIZE,
    JOKER,
    KIND_RUN,
    MAX_CANDIDATES,
    N_INFO,
    SUIT_BITS,
    ZERO,
    add_card,
    bit,
    card_in_meld,
    contract_ruled_out,
    joker_in_meld,
    enumerate_melds,
    holds_meld,
    highest,
    lowest,
    melded_cards,
    opening_bound,
    remove_card,
    remove_mask,
    search,
    search_contract,
    workspace,
)
from sim.engine.rng import derive_seed, mix64, shuffle
from sim.engine.table import (
    END_HIGH,
    END_LOW,
    END_SET,
    accepts,
    add_to_meld,
    fits_end,
    recover,
    recovering_cards,
)
from sim.engine.layout import (
    A_P1,
    A_P2,
    A_P3,
    A_P4,
    A_P5,
    A_TYPE,
    ACT_ADD,
    ACT_MELD,
    ACT_OPEN,
    ACT_RECOVER,
    ACT_STOP,
    F_CARDS,
    F_JOKERS,
    F_LEFT,
    F_POINTS,
    N_FACTS,
    N_PUB,
    N_VIEW,
    OPEN_NO_JOKER,
    PUB_OPENED,
    PUB_PILE,
    PUB_TABLE,
    PUB_TOOK,
    fill_view,
)
from sim.engine.state import (  # noqa: F401 (the round's columns, read as play.G_* and play.S_*)
    G_ACCEPT,
    G_ACCEPT_JOKER,
    G_DETERMINISTIC,
    G_FIRST,
    G_LAST_OPEN,
    G_MELDS,
    G_NCAND,
    G_NEV,
    G_NFLIPS,
    G_OVERFLOW,
    G_PILE,
    G_RECOVERING,
    G_RESTOCKS,
    G_ROUND,
    G_STOCK,
    G_TRACE,
    G_TURN,
    N_G,
    N_S,
    S_FIRST_LAY,
    S_JOKERS_LAID,
    S_MAY_I,
    S_NO_OPEN,
    S_OPEN_POINTS,
    S_OPEN_TURN,
    S_OPENED,
    S_TAKES,
    S_TURNS,
    RoundState,
)
from sim.engine.state import threshold as _threshold
from sim.engine.policies import (
    KIND_HEURISTIC,
    P_DISCARD,
    P_TAKE_NEAR,
    choose_action,
    choose_discard,
    choose_may_i,
    choose_take,
    policy_is_deterministic,
)

MAX_SEATS = 6
MAX_MELDS = 48
MAX_ACTIONS = 8192
MAX_CARDS = 128
MAX_ROUNDS = 200


# Event rows (12 int32 columns; column 0 the type, column 1 the round).
EV_DEAL, EV_DRAW, EV_RESTOCK, EV_OPEN, EV_MELD, EV_ADD, EV_RECOVER, EV_DISCARD = 1, 2, 3, 4, 5, 6, 7, 8
EV_CARD, EV_OUT, EV_BLOCKED, EV_ROUND_END, EV_SEAT, EV_GAME_END, EV_MAY_I = 9, 10, 11, 12, 13, 14, 15
N_EV = 12
WHERE_STOCK, WHERE_PILE = 10, 11
BLOCK_NONE, BLOCK_STOCK, BLOCK_TURN_CAP, BLOCK_CYCLE, BLOCK_TABLE_CLOSED = 0, 1, 2, 3, 4
TURN_NEXT, TURN_OUT, TURN_BLOCKED, TURN_CAP, TURN_CYCLE, TURN_CLOSED = 0, 1, 2, 3, 4, 5
MAX_FLIPS = 64
# Rami contrat: sets and runs of the contract of deals 1 .. 7 (docs/rules.md section 6.2).
CONTRACT_SETS = (2, 1, 0, 3, 2, 1, 0)
CONTRACT_RUNS = (0, 1, 2, 0, 1, 2, 3)

# Result columns, one row per game, round and seat (documented in sim.api).
R_GAME, R_ROUND, R_SEAT, R_FIRST, R_OPENED, R_OPEN_TURN, R_OPEN_POINTS = 0, 1, 2, 3, 4, 5, 6
R_JOKERS_LAID, R_JOKERS_HELD, R_CARDS_LEFT, R_POINTS, R_WENT_OUT, R_RAMI_SEC = 7, 8, 9, 10, 11, 12
R_BLOCKED, R_TURNS, R_TOTAL, R_TAKES, R_WINNER, R_WON, R_TRUNCATED, R_HAND_VALUE = 13, 14, 15, 16, 17, 18, 19, 20
R_SEAT_TURNS, R_MAY_I = 21, 22
N_R = 23


@kernel
def _event(ev, g, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11):
    if not g[G_TRACE]:
        return
    i = g[G_NEV]
    if i >= ev.shape[0]:
        g[G_OVERFLOW] = 1
        return
    ev[i, 0] = a0
    ev[i, 1] = a1
    ev[i, 2] = a2
    ev[i, 3] = a3
    ev[i, 4] = a4
    ev[i, 5] = a5
    ev[i, 6] = a6
    ev[i, 7] = a7
    ev[i, 8] = a8
    ev[i, 9] = a9
    ev[i, 10] = a10
    ev[i, 11] = a11
    g[G_NEV] = i + 1


@kernel
def _card_event(ev, g, where, code):
    _event(ev, g, EV_CARD, g[G_ROUND], where, code, 0, 0, 0, 0, 0, 0, 0, 0)


@kernel
def _trace_places(ev, g, stock, pile):
    """Trace the stock (top first) and the pile (bottom first)."""
    if not g[G_TRACE]:
        return
    for i in range(g[G_STOCK] - 1, -1, -1):
        _card_event(ev, g, WHERE_STOCK, stock[i])
    for i in range(g[G_PILE]):
        _card_event(ev, g, WHERE_PILE, pile[i])


@kernel
def _trace_hand(ev, g, seat, lo, hi, jk):
    if not g[G_TRACE]:
        return
    x = lo
    while x:
        c = lowest(x)
        _card_event(ev, g, seat, c)
        if hi & bit(c):
            _card_event(ev, g, seat, c)
        x &= x - np.uint64(1)
    for _ in range(jk):
        _card_event(ev, g, seat, JOKER)


@kernel
def _next_card(x, joker_next):
    """One step through a hand's cards: the lowest natural of mask ``x``, then
    the joker when ``joker_next``; ``(-1, ...)`` when done. Returns
    ``(code, x, joker_next)`` to carry on with."""
    if x:
        return lowest(x), x & (x - np.uint64(1)), joker_next
    if joker_next:
        return JOKER, x, False
    return -1, x, False


@kernel
def _take_card(h_lo, h_hi, h_jk, h_n, seat, code):
    if code == JOKER:
        h_jk[seat] += 1
    else:
        h_lo[seat], h_hi[seat] = add_card(h_lo[seat], h_hi[seat], code)
    h_n[seat] += 1


@kernel
def _drop_card(h_lo, h_hi, h_jk, h_n, seat, code):
    if code == JOKER:
        h_jk[seat] -= 1
    else:
        h_lo[seat], h_hi[seat] = remove_card(h_lo[seat], h_hi[seat], code)
    h_n[seat] -= 1


@kernel
def card_penalty(code, rules):
    if code == JOKER:
        return rules.joker_penalty
    rank = code % 13 + 1
    if rank == 1:
        return rules.ace_penalty
    return min(rank, 10)


@kernel
def hand_value(lo, hi, jk, rules):
    total = jk * rules.joker_penalty
    x = lo
    while x:
        c = lowest(x)
        v = card_penalty(c, rules)
        total += v
        if hi & bit(c):
            total += v
        x &= x - np.uint64(1)
    return total


@kernel
def _table_changed(g, table, rules, first_new):
    """Refresh the cached set of cards the table takes (after every laying).

    ``first_new``: the laying only added melds from this index on, so the
    melds before it take what they took; -1 when it changed a meld, and
    every meld is asked again.
    """
    first = first_new if first_new >= 0 else 0
    mask, joker = accepts(table, first, g[G_MELDS], rules.ace_high)
    recovering = ZERO
    if rules.jokers > 0:
        unambiguous = rules.joker_recovery_from_set == P.RECOVER_UNAMBIGUOUS
        for m in range(first, g[G_MELDS]):
            recovering |= recovering_cards(table, m, unambiguous)
    if first_new >= 0:
        mask |= np.uint64(g[G_ACCEPT])
        joker = joker or g[G_ACCEPT_JOKER] == 1
        recovering |= np.uint64(g[G_RECOVERING])
    g[G_ACCEPT] = np.int64(mask)  # bits 0 .. 51 only: fits an int64
    g[G_ACCEPT_JOKER] = 1 if joker else 0
    g[G_RECOVERING] = np.int64(recovering)


@kernel
def _table_accepts(g):
    """``(mask of natural codes, joker fits)`` the table takes now."""
    return np.uint64(g[G_ACCEPT]), g[G_ACCEPT_JOKER] == 1


@kernel
def _table_closed(rules, g, seats):
    """Contrat: every player has laid its contract and the table takes no card."""
    for s in range(rules.players):
        if not seats[s, S_OPENED]:
            return False
    mask, joker = _table_accepts(g)
    return mask == ZERO and not joker


def _near_cards_table() -> np.ndarray:
    """``NEAR_CARDS[ace_high, code]``: the naturals that can share a meld with natural ``code`` as its nearest partners.

    The other suits of its rank, and the cards of its suit up to two ranks
    away (the ace next to the two and, when it ranks high, to the king).
    A meld holding ``code`` holds one of them: a set another suit of the
    rank, a run (of three cards or more, one gap at most filled by a joker)
    a card at most two places away. So a hand without any of them cannot
    use ``code`` at all, which one bit test tells. Shape ``(2, 52)``, uint64
    masks of codes; a constant of the compiled code.
    """
    table = np.zeros((2, 52), dtype=np.uint64)
    for ace_high in (0, 1):
        top = 14 if ace_high else 13
        for code in range(52):
            rank, suit = code % 13 + 1, code // 13
            mask = 0
            for s in range(4):
                if s != suit:
                    mask |= 1 << (s * 13 + rank - 1)
            for p in (rank, 14):
                if p == 14 and not (rank == 1 and ace_high):
                    continue
                for q in range(p - 2, p + 3):
                    if q != p and 1 <= q <= top and (q - 1) % 13 != rank - 1:
                        mask |= 1 << (suit * 13 + (q - 1) % 13)
            table[ace_high, code] = mask
    return table


NEAR_CARDS = _near_cards_table()
# The aces of the four suits (codes 0, 13, 26, 39): shifted by r, the cards of rank r + 1.
RANK_CARDS = np.uint64(1 | 1 << 13 | 1 << 26 | 1 << 39)
RANKS_TWO_TO_NINE = np.uint64(0x1FE)  # bits 1 .. 8 of a word of ranks (bit rank - 1)


@kernel(inline="always")
def _completes(lo, jk, top, rules):
    """Whether the pile's ``top`` sits in a meld of the hand ``(lo, jk)`` with it.

    :func:`card_in_meld`, answered first from the card's near partners
    (:data:`NEAR_CARDS`): most hands asked about most discards hold none.
    Inlined: a call would copy the rules, some thirty words, for a bit test.
    """
    if top == JOKER:
        return joker_in_meld(lo, rules.min_run, rules.ace_high)
    if (lo & NEAR_CARDS[1 if rules.ace_high else 0, top]) == ZERO:
        return False
    if jk > 0:
        return card_in_meld(lo, jk, top, rules.min_run, rules.ace_high)
    # Without a joker, card_in_meld's answer from bit tests: two other suits
    # of the rank, or min_run positions in a row of the suit around the card.
    rank = top % 13
    suit = top // 13
    others = lo & (RANK_CARDS << np.uint64(rank)) & ~bit(top)
    if (others & (others - np.uint64(1))) != ZERO:
        return True
    ranks = np.int64((lo >> np.uint64(13 * suit)) & SUIT_BITS) | (1 << rank)
    if rules.ace_high and (ranks & 1):
        ranks |= 1 << 13
    in_a_row = ranks  # bit s: positions s + 1 .. s + min_run all held
    for i in range(1, rules.min_run):
        in_a_row &= ranks >> i
    # The windows holding the card start at most min_run - 1 places below it
    # (the ace also at position 14 when it ranks high).
    below = (1 << rules.min_run) - 1
    windows = (below << rank) >> (rules.min_run - 1)
    if rank == 0 and rules.ace_high:
        windows |= (below << 13) >> (rules.min_run - 1)
    return (in_a_row & windows) != 0


@kernel(forceinline=True)
def _may_i(rules, g, ev, seat, kinds, params, policy_rng, h_lo, h_hi, h_jk, h_n, seats, stock, pile, pub, view):
    """"Puis-je ?" after ``seat`` drew from the stock (docs/rules.md item 29).

    Played after every stock draw of Rami contrat, for each other seat: so it
    is inlined into the turn (its sixteen arguments are not copied at each
    draw), and whether the card completes a meld is answered from bit tests
    first (:func:`_completes`).
    """
    granted = 0
    asker = seat
    for _ in range(1, rules.players):
        if granted >= rules.may_i_limit or g[G_PILE] == 0 or g[G_STOCK] == 0:
            return
        asker = asker + 1 if asker + 1 < rules.players else 0  # (no division: asked after every draw)
        top = pile[g[G_PILE] - 1]
        lo, jk = h_lo[asker], h_jk[asker]
        completes = _completes(lo, jk, top, rules)
        fill_view(rules, g, seats, h_n, h_jk, asker, view)
        if not choose_may_i(kinds[asker], params[asker], policy_rng, asker, top, completes,
                            lo, h_hi[asker], pub, view):
            continue
        g[G_PILE] -= 1
        pub[PUB_PILE, top] -= 1
        pub[PUB_TOOK + asker, top] += 1
        _take_card(h_lo, h_hi, h_jk, h_n, asker, top)
        g[G_STOCK] -= 1
        penalty = stock[g[G_STOCK]]
        _take_card(h_lo, h_hi, h_jk, h_n, asker, penalty)
        seats[asker, S_MAY_I] += 1
        # Two cards joined the hand outside its turn: what it could lay is unknown again.
        seats[asker, S_NO_OPEN] = 0
        granted += 1
        _event(ev, g, EV_MAY_I, g[G_ROUND], asker, top, penalty, 0, 0, 0, 0, 0, 0, 0)
    # The seat to move decides next: give it its own view back.
    fill_view(rules, g, seats, h_n, h_jk, seat, view)


@kernel
def _leaves_ok(n_after, lo, hi, jk, taken, rules):
    """Whether a laying may leave this hand (docs/rules.md items 12 and 18)."""
    if n_after == 0:
        return rules.go_out == P.OUT_LAY_OR_DISCARD
    if taken < 0:
        return True
    if taken == JOKER:
        return (lo | hi) != ZERO
    return (lo & ~bit(taken)) != ZERO or jk > 0


@kernel
def _push_action(act, facts, n, t, p1, p2, p3, p4, p5, cards, points, jokers, left):
    if n >= act.shape[0]:
        return n
    act[n, A_TYPE] = t
    act[n, A_P1] = p1
    act[n, A_P2] = p2
    act[n, A_P3] = p3
    act[n, A_P4] = p4
    act[n, A_P5] = p5
    facts[n, F_CARDS] = cards
    facts[n, F_POINTS] = points
    facts[n, F_JOKERS] = jokers
    facts[n, F_LEFT] = left
    return n + 1


@kernel(forceinline=True)
def enumerate_actions(
    rules, g, seat, lo, hi, jk, n_hand, opened, taken, pending, hint,
    table, c_mask, c_info, s_mask, s_info, open_sel, open_n,
    act, facts, r_mask, r_info, ws,
):
    """Every legal laying action of ``seat`` now; returns their count.

    ``taken`` is the code taken from the discard this turn (-1 if none);
    ``pending`` is that code while ``must_use`` still requires laying it.
    ``hint`` is the card just drawn when the hand before it is known unable
    to open: any opening must then use it, which the search exploits.
    The candidates of the hand are left in ``c_mask``/``c_info``; an opening
    action ``ACT_OPEN`` with ``P1`` = 0 (normal) or 1 (whole hand) finds its
    melds in ``open_sel[P1, :open_n[P1]]``.
    """
    n_act = 0
    if opened and rules.game == P.GAME_CONTRAT:
        # No meld follows the contract: the hand's candidates would serve
        # only the discard's "fits" flag, which melded_cards answers without
        # listing them (G_NCAND -1 says they are not listed).
        n_c = -1
    elif rules.game == P.GAME_CONTRAT and _no_contract(rules, g, lo, hi, jk, pending if pending >= 0 else hint, s_mask):
        # Most hands before the contract hold none, which bit tests tell:
        # the listing would then serve only the discard's "fits" flag (as
        # after the contract).
        n_c = -1
    elif (not opened and rules.game == P.GAME_RAMI51 and not rules.lay_all_ignores_opening
          and opening_bound(lo, hi, jk, rules.min_run, rules.ace_high) < _threshold(g, rules)):
        # No melds of the hand reach the threshold, so there is no opening
        # to search for; most hands of a seat waiting to open are such, and
        # the bound is cheaper than listing their candidates. Nothing else
        # reads them before the discard, which melded_cards answers.
        n_c = -1
    elif not holds_meld(lo, jk, rules.min_run, rules.ace_high):
        n_c = 0  # what the listing finds, told by a few word operations
    else:
        n_c = enumerate_melds(lo, jk, rules.min_run, rules.ace_high, c_mask, c_info)
    n_melds = g[G_MELDS]
    if pending < 0:
        n_act = _push_action(act, facts, n_act, ACT_STOP, 0, 0, 0, 0, 0, 0, 0, 0, n_hand)
    out = ws[1][7]  # the workspace's spare row holds the chosen melds
    g[G_NCAND] = n_c
    if not opened and rules.game == P.GAME_CONTRAT:
        if n_c >= 0:
            n_act = _push_contracts(rules, g, lo, hi, jk, n_hand, taken, pending, hint, n_c, c_mask, c_info,
                                    open_sel, open_n, act, facts, n_act, out, ws)
    elif not opened and n_c > 0:
        limit = n_hand if rules.go_out == P.OUT_LAY_OR_DISCARD else n_hand - 1
        forced = pending if pending >= 0 else hint
        value, k = search(lo, hi, jk, n_c, c_mask, c_info, 0, rules.open_needs_natural_run != 0,
                          forced, limit, _threshold(g, rules), out, ws)
        if value >= 0 and k > 0:
            n_before = n_act
            n_act = _push_opening(rules, lo, hi, jk, n_hand, taken, n_c, c_mask, c_info, out, k,
                                  open_sel, open_n, 0, act, facts, n_act)
            if jk > 0 and forced != JOKER and n_act > n_before and facts[n_act - 1, F_JOKERS] > 0:
                # The same opening kept free of jokers, for players who hold them.
                value, k = search(lo, hi, 0, n_c, c_mask, c_info, 0, rules.open_needs_natural_run != 0,
                                  forced, limit, _threshold(g, rules), out, ws)
                if value >= 0 and k > 0:
                    n_act = _push_opening(rules, lo, hi, jk, n_hand, taken, n_c, c_mask, c_info, out, k,
                                          open_sel, open_n, OPEN_NO_JOKER, act, facts, n_act)
        if rules.lay_all_ignores_opening:
            value, k = search(lo, hi, jk, n_c, c_mask, c_info, 1, False, forced, limit, n_hand - 1, out, ws)
            if value >= 0 and k > 0:
                n_act = _push_opening(rules, lo, hi, jk, n_hand, taken, n_c, c_mask, c_info, out, k,
                                      open_sel, open_n, 1, act, facts, n_act)
    elif rules.game != P.GAME_CONTRAT:
        # New melds once opened (in contrat, after the contract, none). A
        # hand not opened comes here only without candidates: no opening
        # (the searches above would find none) and no meld either.
        for k in range(n_c):
            m = c_mask[k]
            joker = c_info[k, I_JOKER]
            if joker > jk:
                continue
            if pending >= 0:
                if pending == JOKER:
                    if not joker:
                        continue
                elif not (m & bit(pending)):
                    continue
            size = c_info[k, I_SIZE]
            nlo, nhi = remove_mask(lo, hi, m)
            if not _leaves_ok(n_hand - size, nlo, nhi, jk - joker, taken, rules):
                continue
            n_act = _push_action(act, facts, n_act, ACT_MELD, k, 0, 0, 0, 0, size, c_info[k, I_POINTS], joker,
                                 n_hand - size)
    if opened or rules.add_before_opening:
        # Additions: each card of the hand the table takes, each meld, each end.
        taken_mask, joker_fits = _table_accepts(g)
        x = lo & taken_mask
        joker_next = jk > 0 and joker_fits
        while True:
            code, x, joker_next = _next_card(x, joker_next)
            if code < 0:
                break
            if pending < 0 or pending == code:
                if code == JOKER:
                    nlo, nhi, njk = lo, hi, jk - 1
                else:
                    nlo, nhi = remove_card(lo, hi, code)
                    njk = jk
                if _leaves_ok(n_hand - 1, nlo, nhi, njk, taken, rules):
                    for m in range(n_melds):
                        # A run takes cards at its low and high ends, a set
                        # only as a set: the other ends are not tried.
                        if table[m, I_KIND] == KIND_RUN:
                            first_end, last_end = END_LOW, END_HIGH
                        else:
                            first_end, last_end = END_SET, END_SET
                        for end in range(first_end, last_end + 1):
                            if fits_end(table, m, code, end, rules.ace_high):
                                n_act = _push_action(act, facts, n_act, ACT_ADD, code, m, end, 0, 0, 1, 0,
                                                     1 if code == JOKER else 0, n_hand - 1)
    if opened and rules.jokers > 0 and _hand_recovers(g, lo):
        n_act = _push_recoveries(rules, g, lo, hi, jk, n_hand, taken, pending, table,
                                 s_mask, s_info, act, facts, r_mask, r_info, n_act)
    return n_act


@kernel(inline="always")
def _stop_only(rules, g, lo, jk, opened):
    """Whether :func:`enumerate_actions` would list stopping alone for the hand ``(lo, jk)``, no card pending.

    No meld in the hand (so no opening, contract or new meld: the listing
    finds no candidate, ``G_NCAND`` 0, and the discard's melded cards are
    none either way), no card of it the table takes when it may add, and
    no natural taking back a table joker once opened.
    """
    if holds_meld(lo, jk, rules.min_run, rules.ace_high):
        return False
    if opened or rules.add_before_opening:
        table_mask, joker_fits = _table_accepts(g)
        if (lo & table_mask) != ZERO or (jk > 0 and joker_fits):
            return False
    return not (opened and _hand_recovers(g, lo))  # no recovering natural without jokers


@kernel
def _hand_recovers(g, lo):
    """Whether some natural of the hand ``lo`` takes back a table joker: checked before listing recoveries,
    so that a hand without one (nearly every hand, even with jokers on the
    table) skips that call and its thirty arguments. Recoveries are listed
    for these cards only, so none is missed. The table's recovering cards
    are kept in ``g[G_RECOVERING]`` (none when the deck has no joker)."""
    return (lo & np.uint64(g[G_RECOVERING])) != ZERO


@kernel
def _richest_placement(c, n_c, c_mask, c_info):
    """The candidate laying the cards of candidate ``c`` that is worth most to an opening.

    A run's joker at one end may often stand at the other end instead, with
    the same natural cards (both are candidates): an opening lays it where it
    is worth more (docs/rules.md item 4); so too the ace of a 13-card run,
    low or high. A search for the most cards laid sees no difference between
    the two, so the choice is made here.
    """
    if c_info[c, I_KIND] != KIND_RUN:
        return c
    best = c
    m = c_mask[c]
    joker = c_info[c, I_JOKER]
    for k in range(n_c):
        if (c_mask[k] == m and c_info[k, I_JOKER] == joker and c_info[k, I_KIND] == KIND_RUN
                and c_info[k, I_POINTS] > c_info[best, I_POINTS]):
            best = k
    return best


@kernel
def _push_opening(rules, lo, hi, jk, n_hand, taken, n_c, c_mask, c_info, sel, k, open_sel, open_n, which,
                  act, facts, n_act, may_empty=False):
    nlo, nhi, njk = lo, hi, jk
    cards = 0
    points = 0
    jokers = 0
    for i in range(k):
        c = _richest_placement(sel[i], n_c, c_mask, c_info)
        nlo, nhi = remove_mask(nlo, nhi, c_mask[c])
        njk -= c_info[c, I_JOKER]
        cards += c_info[c, I_SIZE]
        points += c_info[c, I_POINTS]
        jokers += c_info[c, I_JOKER]
        open_sel[which, i] = c
    open_n[which] = k
    if not (may_empty and cards == n_hand) and not _leaves_ok(n_hand - cards, nlo, nhi, njk, taken, rules):
        return n_act
    return _push_action(act, facts, n_act, ACT_OPEN, which, 0, 0, 0, 0, cards, points, jokers, n_hand - cards)


@kernel
def _no_contract(rules, g, lo, hi, jk, forced, scratch):
    """Whether :func:`_push_contracts` would find no contract, told without listing the hand's candidates.

    A contract that must use card ``forced`` needs a meld of the hand
    holding it (:func:`_completes`); the rest are the contract search's own
    first tests (:func:`contract_ruled_out`). ``scratch`` is a uint64 array
    of at least 400 slots.
    """
    if forced >= 0 and not _completes(lo, jk, forced, rules):
        return True
    deal = g[G_ROUND] % 7
    return contract_ruled_out(lo, hi, jk, CONTRACT_SETS[deal], CONTRACT_RUNS[deal], deal == 6, rules.min_run,
                              rules.ace_high, scratch)


@kernel
def _push_contracts(rules, g, lo, hi, jk, n_hand, taken, pending, hint, n_c, c_mask, c_info,
                    open_sel, open_n, act, facts, n_act, out, ws):
    """The contract of this deal as opening actions (docs/rules.md items 26 and 28).

    The contract laying the most cards, and the same kept free of jokers when
    that differs. Deal 7 is laid only as the whole hand, which goes out.
    """
    deal = g[G_ROUND] % 7
    sets = CONTRACT_SETS[deal]
    runs = CONTRACT_RUNS[deal]
    whole = deal == 6
    limit = n_hand if whole else n_hand - 1
    forced = pending if pending >= 0 else hint
    # The turn lists candidates for the contract only once _no_contract
    # found this very hand (and card) not ruled out: it holds the sets and
    # the runs apart (packed).
    cards, _ = search_contract(lo, hi, jk, n_c, c_mask, c_info, sets, runs, whole, forced, limit, out, ws, True)
    if cards < 0:
        return n_act
    n_before = n_act
    n_act = _push_opening(rules, lo, hi, jk, n_hand, taken, n_c, c_mask, c_info, out, sets + runs,
                          open_sel, open_n, 0, act, facts, n_act, whole)
    if jk > 0 and forced != JOKER and n_act > n_before and facts[n_act - 1, F_JOKERS] > 0:
        cards, _ = search_contract(lo, hi, 0, n_c, c_mask, c_info, sets, runs, whole, forced, limit, out, ws)
        if cards >= 0:
            n_act = _push_opening(rules, lo, hi, jk, n_hand, taken, n_c, c_mask, c_info, out, sets + runs,
                                  open_sel, open_n, OPEN_NO_JOKER, act, facts, n_act, whole)
    return n_act


@kernel
def _push_recoveries(rules, g, lo, hi, jk, n_hand, taken, pending, table, s_mask, s_info,
                     act, facts, r_mask, r_info, n_act):
    n_melds = g[G_MELDS]
    unambiguous = rules.joker_recovery_from_set == P.RECOVER_UNAMBIGUOUS
    for m in range(n_melds):
        if not table[m, I_JOKER]:
            continue
        # Only the hand's cards that take this joker back, lowest first: a
        # mask, rather than a test of every card of the hand against the meld.
        x = lo & recovering_cards(table, m, unambiguous)
        while x:
            code = lowest(x)
            x &= x - np.uint64(1)
            # The hand once the natural is down and the joker is in it.
            rlo, rhi = remove_card(lo, hi, code)
            rjk = jk + 1
            lays_pending = pending < 0 or pending == code
            # Relay (a): a new meld from the hand holding the joker, the largest
            # (not in contrat, where no new meld follows the contract).
            n_s = 0
            if rules.game != P.GAME_CONTRAT and holds_meld(rlo, rjk, rules.min_run, rules.ace_high):
                n_s = enumerate_melds(rlo, rjk, rules.min_run, rules.ace_high, s_mask, s_info)
            best = -1
            for k in range(n_s):
                if s_info[k, I_JOKER] and (s_mask[k] & ~rlo) == ZERO:
                    if not lays_pending and not (s_mask[k] & bit(pending)):
                        continue
                    if best < 0 or s_info[k, I_SIZE] > s_info[best, I_SIZE]:
                        best = k
            if best >= 0 and n_act < act.shape[0]:
                size = s_info[best, I_SIZE]
                nlo, nhi = remove_mask(rlo, rhi, s_mask[best])
                if _leaves_ok(n_hand - size, nlo, nhi, rjk - 1, taken, rules):
                    r_mask[n_act] = s_mask[best]
                    for col in range(N_INFO):
                        r_info[n_act, col] = s_info[best, col]
                    n_act = _push_action(act, facts, n_act, ACT_RECOVER, code, m, 0, -1, 0, size, 0, 1, n_hand - size)
            # Relay (b): the joker added to another table meld.
            if lays_pending and _leaves_ok(n_hand - 1, rlo, rhi, jk, taken, rules):
                for m2 in range(n_melds):
                    if m2 == m:
                        continue
                    for end in range(3):
                        if fits_end(table, m2, JOKER, end, rules.ace_high):
                            n_act = _push_action(act, facts, n_act, ACT_RECOVER, code, m, 1, m2, end, 1, 0, 1,
                                                 n_hand - 1)
    return n_act


@kernel
def _lay_meld(rules, g, ev, seat, table, owner, info, part_of_open):
    m = g[G_MELDS]
    for col in range(N_INFO):
        table[m, col] = info[col]
    owner[m] = seat
    g[G_MELDS] = m + 1
    _event(ev, g, EV_MELD, g[G_ROUND], seat, m, info[0], info[1], info[2], info[3], info[4], info[I_JOKER],
           part_of_open, 0)


@kernel(inline="always")
def apply_action(
    rules, g, ev, seat, i, act, facts, h_lo, h_hi, h_jk, h_n, seats, table, owner,
    c_mask, c_info, open_sel, open_n, r_mask, r_info, pub,
):
    """Play action ``i``; returns ``(mask of naturals laid, whether a joker was laid)``."""
    t = act[i, A_TYPE]
    laid_mask = ZERO
    laid_joker = False
    # The table's joker flags are summed into the public counts after the
    # action: kept from the melds it changes, not summed over every meld.
    melds_before = g[G_MELDS]
    flags_before = 0
    if t == ACT_ADD or t == ACT_RECOVER:
        flags_before += table[act[i, A_P2], I_JOKER]
        if t == ACT_RECOVER and act[i, A_P3] != 0 and act[i, A_P4] != act[i, A_P2]:
            flags_before += table[act[i, A_P4], I_JOKER]
    if t == ACT_OPEN:
        which = act[i, A_P1]
        points = facts[i, F_POINTS]
        _event(ev, g, EV_OPEN, g[G_ROUND], seat, points, which, open_n[which], 0, 0, 0, 0, 0, 0)
        for j in range(open_n[which]):
            k = open_sel[which, j]
            h_lo[seat], h_hi[seat] = remove_mask(h_lo[seat], h_hi[seat], c_mask[k])
            h_jk[seat] -= c_info[k, I_JOKER]
            h_n[seat] -= c_info[k, I_SIZE]
            seats[seat, S_JOKERS_LAID] += c_info[k, I_JOKER]
            laid_mask |= c_mask[k]
            laid_joker = laid_joker or c_info[k, I_JOKER] == 1
            _lay_meld(rules, g, ev, seat, table, owner, c_info[k], 1)
        seats[seat, S_OPENED] = 1
        pub[PUB_OPENED, seat] = 1
        seats[seat, S_OPEN_TURN] = seats[seat, S_TURNS]
        seats[seat, S_OPEN_POINTS] = points
        g[G_LAST_OPEN] = points
    elif t == ACT_MELD:
        k = act[i, A_P1]
        h_lo[seat], h_hi[seat] = remove_mask(h_lo[seat], h_hi[seat], c_mask[k])
        h_jk[seat] -= c_info[k, I_JOKER]
        h_n[seat] -= c_info[k, I_SIZE]
        seats[seat, S_JOKERS_LAID] += c_info[k, I_JOKER]
        laid_mask = c_mask[k]
        laid_joker = c_info[k, I_JOKER] == 1
        _lay_meld(rules, g, ev, seat, table, owner, c_info[k], 0)
    elif t == ACT_ADD:
        code = act[i, A_P1]
        m = act[i, A_P2]
        end = act[i, A_P3]
        _drop_card(h_lo, h_hi, h_jk, h_n, seat, code)
        stands = add_to_meld(table, m, code, end)
        if code == JOKER:
            seats[seat, S_JOKERS_LAID] += 1
            laid_joker = True
        else:
            laid_mask = bit(code)
        _event(ev, g, EV_ADD, g[G_ROUND], seat, m, code, end, stands, 0, 0, 0, 0, 0)
    elif t == ACT_RECOVER:
        code = act[i, A_P1]
        m = act[i, A_P2]
        _drop_card(h_lo, h_hi, h_jk, h_n, seat, code)
        recover(table, m, code)
        _take_card(h_lo, h_hi, h_jk, h_n, seat, JOKER)
        laid_mask = bit(code)
        _event(ev, g, EV_RECOVER, g[G_ROUND], seat, m, code, 0, 0, 0, 0, 0, 0, 0)
        if act[i, A_P3] == 0:
            h_lo[seat], h_hi[seat] = remove_mask(h_lo[seat], h_hi[seat], r_mask[i])
            h_jk[seat] -= 1
            h_n[seat] -= r_info[i, I_SIZE]
            laid_mask |= r_mask[i]
            _lay_meld(rules, g, ev, seat, table, owner, r_info[i], 0)
        else:
            m2 = act[i, A_P4]
            end = act[i, A_P5]
            _drop_card(h_lo, h_hi, h_jk, h_n, seat, JOKER)
            stands = add_to_meld(table, m2, JOKER, end)
            _event(ev, g, EV_ADD, g[G_ROUND], seat, m2, JOKER, end, stands, 0, 0, 0, 0, 0)
        laid_joker = True
        seats[seat, S_JOKERS_LAID] += 1
    if seats[seat, S_FIRST_LAY] < 0:
        seats[seat, S_FIRST_LAY] = g[G_TURN]
    _table_changed(g, table, rules, melds_before if (t == ACT_OPEN or t == ACT_MELD) else -1)
    # Public counts: every natural laid (one copy per mask bit) and the jokers
    # now on the table.
    x = laid_mask
    while x:
        pub[PUB_TABLE, lowest(x)] += 1
        x &= x - np.uint64(1)
    flags_after = 0
    if t == ACT_ADD or t == ACT_RECOVER:
        flags_after += table[act[i, A_P2], I_JOKER]
        if t == ACT_RECOVER and act[i, A_P3] != 0 and act[i, A_P4] != act[i, A_P2]:
            flags_after += table[act[i, A_P4], I_JOKER]
    for m in range(melds_before, g[G_MELDS]):
        flags_after += table[m, I_JOKER]
    pub[PUB_TABLE, JOKER] += flags_after - flags_before
    return laid_mask, laid_joker


@kernel
def _restock(rules, g, ev, stock, pile, rng, pub):
    """Rebuild an empty stock from the pile; False if the round is blocked."""
    if rules.stock_exhausted == P.STOCK_TURN_ONCE and g[G_RESTOCKS] >= 1:
        return False
    n = g[G_PILE] - 1
    if n <= 0:
        return False
    top = pile[g[G_PILE] - 1]
    # Turning the pile over puts its first card on top of the new stock: the
    # stock's top is its last slot, so the pile goes in reversed.
    for i in range(n):
        stock[i] = pile[n - 1 - i]
    g[G_STOCK] = n
    if rules.stock_exhausted == P.STOCK_RESHUFFLE:
        shuffle(stock, n, rng, 0)
    pile[0] = top
    g[G_PILE] = 1
    pub[PUB_PILE, :] = 0
    pub[PUB_PILE, top] = 1
    g[G_RESTOCKS] += 1
    mode = 0 if rules.stock_exhausted == P.STOCK_RESHUFFLE else 1
    _event(ev, g, EV_RESTOCK, g[G_ROUND], mode, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    _trace_places(ev, g, stock, pile)
    return True


@kernel
def _flip(g, ev, stock, pile, pub):
    """Basic rummy: the whole pile, turned over unshuffled, becomes the stock."""
    n = g[G_PILE]
    for i in range(n):
        stock[i] = pile[n - 1 - i]
    g[G_STOCK] = n
    g[G_PILE] = 0
    pub[PUB_PILE, :] = 0
    g[G_RESTOCKS] += 1
    _event(ev, g, EV_RESTOCK, g[G_ROUND], 2, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    _trace_places(ev, g, stock, pile)


@kernel
def position_hash(rules, g, h_lo, h_hi, h_jk, seats, table, stock, pile):
    """A fingerprint of everything a deterministic player's future depends on.

    Hands, stock order, pile, table melds, who has opened, and the seat to
    move; not the statistics counters. Equal fingerprints at two turnings
    of the pile mean a round of deterministic players repeats forever.
    """
    # The seat to move and the sizes first, so that the packed words below
    # (cards 8 bits apiece, eight to a word; a meld's columns 16 bits
    # apiece, four to a word) say everything: a scramble per word rather
    # than per card.
    h = mix64(np.uint64(g[G_TURN] % rules.players + 1) | (np.uint64(g[G_STOCK]) << np.uint64(8))
              | (np.uint64(g[G_PILE]) << np.uint64(24)) | (np.uint64(g[G_MELDS]) << np.uint64(40)))
    # Jokers and opened flags of every seat in one word (9 bits a seat), and
    # the second copies only where the deck has them.
    counts = ZERO
    for s in range(rules.players):
        h = mix64(h ^ h_lo[s])
        if rules.decks > 1:
            h = mix64(h ^ h_hi[s])
        counts = (counts << np.uint64(9)) | np.uint64(h_jk[s] * 2 + seats[s, S_OPENED])
    h = mix64(h ^ counts)
    h = _hash_cards(h, stock, g[G_STOCK])
    h = _hash_cards(h, pile, g[G_PILE])
    for m in range(g[G_MELDS]):
        for first in range(0, N_INFO, 4):
            w = ZERO
            for col in range(first, first + 4):
                w = (w << np.uint64(16)) | np.uint64(np.int64(table[m, col]) & 0xFFFF)
            h = mix64(h ^ w)
    return h


@kernel
def _hash_cards(h, cards, n):
    """``h`` scrambled with the codes ``cards[:n]`` in order, eight to a word."""
    w = ZERO
    for i in range(n):
        w = (w << np.uint64(8)) | np.uint64(cards[i])
        if i % 8 == 7:
            h = mix64(h ^ w)
            w = ZERO
    return mix64(h ^ w)


@kernel
def deal_round(rules, rnd, first, g, ev, h_lo, h_hi, h_jk, h_n, seats, stock, pile, deck_rng, order, pub):
    """Shuffle with the round's stream and deal: hands, the first discard, the stock.

    ``order``, when not empty, is the deck to deal instead (a scripted deal):
    the first player's cards first, then each seat in turn order, the first
    discard, then the stock from its top down.
    """
    n_players = rules.players
    n_cards = 52 * rules.decks + rules.jokers
    # The deck is laid out in the stock's own slots, dealt from the front;
    # what is left becomes the stock at the end.
    deck = stock
    if order.shape[0] > 0:
        for i in range(n_cards):
            deck[i] = order[i]
    else:
        # The deck, shuffled by the round's own stream.
        i = 0
        for code in range(52):
            for _ in range(rules.decks):
                deck[i] = code
                i += 1
        for _ in range(rules.jokers):
            deck[i] = JOKER
            i += 1
        shuffle(deck, n_cards, deck_rng, 0)

    g[G_ROUND] = rnd
    g[G_FIRST] = first
    g[G_ACCEPT] = 0
    g[G_ACCEPT_JOKER] = 0
    g[G_RECOVERING] = 0
    g[G_NFLIPS] = 0
    g[G_MELDS] = 0
    g[G_TURN] = 0
    g[G_RESTOCKS] = 0
    g[G_LAST_OPEN] = 0
    for s in range(n_players):
        h_lo[s] = ZERO
        h_hi[s] = ZERO
        h_jk[s] = 0
        h_n[s] = 0
        for col in range(N_S):
            seats[s, col] = 0
        seats[s, S_OPEN_TURN] = -1
        seats[s, S_FIRST_LAY] = -1
    hand_size = rules.hand_size
    if rules.game == P.GAME_CONTRAT:
        hand_size = 10 if rnd % 7 < 3 else 12
    elif rules.game == P.GAME_BASIC and hand_size <= 0:
        hand_size = 10 if n_players == 2 else (7 if n_players <= 4 else 6)
    i = 0
    for s in range(n_players):
        seat = (first + s) % n_players
        extra = 1 if (s == 0 and rules.first_player_extra_card) else 0
        for _ in range(hand_size + extra):
            _take_card(h_lo, h_hi, h_jk, h_n, seat, deck[i])
            i += 1
    pile[0] = deck[i]
    i += 1
    g[G_PILE] = 1
    pub[:, :] = 0
    pub[PUB_PILE, deck[i - 1]] = 1
    n_stock = n_cards - i
    # The stock's top is its last slot: the next card of the deck. Reverse
    # the undealt cards in place, then move them down to slot 0.
    a, b = i, n_cards - 1
    while a < b:
        deck[a], deck[b] = deck[b], deck[a]
        a += 1
        b -= 1
    for j in range(n_stock):
        stock[j] = deck[i + j]
    g[G_STOCK] = n_stock
    if g[G_TRACE]:
        _event(ev, g, EV_DEAL, rnd, first, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        for s in range(n_players):
            _trace_hand(ev, g, s, h_lo[s], h_hi[s], h_jk[s])
        _trace_places(ev, g, stock, pile)



@kernel(inline="always")
def play_turn(
    rules, g, ev, seat, h_lo, h_hi, h_jk, h_n, seats, table, owner, stock, pile,
    kinds, params, policy_rng, deck_rng, bufs, act, facts, r_mask, r_info, open_sel, open_n, ws, flips, pub, view,
):
    """Play the turn of ``seat``, the seat to move: draw, lay, discard.

    ``seat`` is ``(g[G_FIRST] + g[G_TURN]) % players``, kept by the caller
    from turn to turn: a division at every turn was a few percent of a
    round's time.

    Returns ``TURN_NEXT`` (the next seat moves), ``TURN_OUT`` (the seat went
    out: ``g[G_TURN]`` stays on its turn), ``TURN_BLOCKED`` (the stock could
    not be rebuilt), ``TURN_CAP`` (the round reached ``turn_cap``) or
    ``TURN_CYCLE`` (deterministic players came back to a position they had
    at an earlier turning of the pile: the round would never end).
    """
    c_mask, c_info, s_mask, s_info, d_legal, d_penalty, d_fits = bufs
    turn = g[G_TURN]
    if turn >= rules.turn_cap:
        return TURN_CAP
    if rules.game == P.GAME_CONTRAT and _table_closed(rules, g, seats):
        return TURN_CLOSED
    rnd = g[G_ROUND]
    kind = kinds[seat]
    par = params[seat]
    seats[seat, S_TURNS] += 1
    opened = seats[seat, S_OPENED] == 1
    taken = -1
    drawn = -1
    cached = -1
    if not (turn == 0 and rules.first_player_extra_card):
        if g[G_STOCK] == 0 and rules.stock_exhausted != P.STOCK_FLIP:
            if not _restock(rules, g, ev, stock, pile, deck_rng, pub):
                return TURN_BLOCKED
        take = False
        if g[G_PILE] > 0:
            top = pile[g[G_PILE] - 1]
            legal, known, cached = _take_status(
                rules, g, seat, top, opened, h_lo[seat], h_hi[seat], h_jk[seat], h_n[seat],
                table, c_mask, c_info, s_mask, s_info, open_sel, open_n, act, facts, r_mask, r_info, ws,
            )
            if legal:
                lo, jk = h_lo[seat], h_jk[seat]
                # The take check already asked this of the same hand, unless
                # the card fitting the table answered it first.
                if known >= 0:
                    completes = known == 1
                else:
                    completes = _completes(lo, jk, top, rules)
                table_mask, joker_fits = _table_accepts(g)
                on_table = joker_fits if top == JOKER else (table_mask & bit(top)) != ZERO
                can_add = opened or rules.add_before_opening
                if kind != KIND_HEURISTIC or par[P_TAKE_NEAR] > 0:
                    # The heuristic policy reads the view only to weigh a near card.
                    fill_view(rules, g, seats, h_n, h_jk, seat, view)
                take = choose_take(kind, par, policy_rng, seat, top, completes, can_add and on_table,
                                   lo, h_hi[seat], pub, view)
        if take:
            taken = pile[g[G_PILE] - 1]
            drawn = taken
            g[G_PILE] -= 1
            pub[PUB_PILE, taken] -= 1
            pub[PUB_TOOK + seat, taken] += 1
            _take_card(h_lo, h_hi, h_jk, h_n, seat, taken)
            seats[seat, S_TAKES] += 1
            _event(ev, g, EV_DRAW, rnd, seat, 1, taken, 0, 0, 0, 0, 0, 0, 0)
        else:
            if g[G_STOCK] == 0:
                if g[G_PILE] == 0:
                    return TURN_BLOCKED
                _flip(g, ev, stock, pile, pub)
                if g[G_DETERMINISTIC]:
                    # Deterministic players back at a position seen at an
                    # earlier turning would replay it forever.
                    h = position_hash(rules, g, h_lo, h_hi, h_jk, seats, table, stock, pile)
                    for i in range(min(g[G_NFLIPS], MAX_FLIPS)):
                        if flips[i] == h:
                            return TURN_CYCLE
                    if g[G_NFLIPS] < MAX_FLIPS:
                        flips[g[G_NFLIPS]] = h
                    g[G_NFLIPS] += 1
            g[G_STOCK] -= 1
            code = stock[g[G_STOCK]]
            drawn = code
            _take_card(h_lo, h_hi, h_jk, h_n, seat, code)
            _event(ev, g, EV_DRAW, rnd, seat, 0, code, 0, 0, 0, 0, 0, 0, 0)
            if rules.may_i:
                _may_i(rules, g, ev, seat, kinds, params, policy_rng, h_lo, h_hi, h_jk, h_n, seats, stock, pile,
                       pub, view)

    # Laying.
    pending = taken if (taken >= 0 and rules.discard_take == P.TAKE_MUST_USE) else -1
    # The hand before the draw could not open (and the threshold never
    # falls): an opening now must use the card drawn.
    hint = drawn if (seats[seat, S_NO_OPEN] and drawn >= 0) else -1
    went_out = False
    # The take check already listed the actions of this very hand.
    reuse = taken >= 0 and cached >= 0
    while True:
        opened = seats[seat, S_OPENED] == 1
        if (not reuse and pending < 0 and kind == KIND_HEURISTIC
                and _stop_only(rules, g, h_lo[seat], h_jk[seat], opened)):
            # Stopping is all the hand may do, which the listing would find
            # (stop alone), and the heuristic policy stops then.
            g[G_NCAND] = 0
            if not opened:
                seats[seat, S_NO_OPEN] = 1
            break
        if reuse:
            n_act = cached
            reuse = False
        else:
            n_act = enumerate_actions(
                rules, g, seat, h_lo[seat], h_hi[seat], h_jk[seat], h_n[seat], opened, taken, pending, hint,
                table, c_mask, c_info, s_mask, s_info, open_sel, open_n, act, facts, r_mask, r_info, ws,
            )
        if n_act == 0:
            break  # cannot happen while a pending card had a legal laying
        if not opened:
            can_open = False
            for j in range(n_act):
                if act[j, A_TYPE] == ACT_OPEN:
                    can_open = True
            seats[seat, S_NO_OPEN] = 0 if can_open else 1
        if n_act == 1 and act[0, A_TYPE] == ACT_STOP and kind == KIND_HEURISTIC:
            break  # the heuristic policy stops when stopping is all it may do
        fill_view(rules, g, seats, h_n, h_jk, seat, view)
        a = choose_action(kind, par, policy_rng, seat, act, facts, n_act, view, h_lo[seat], h_hi[seat], h_jk[seat],
                          pub)
        if act[a, A_TYPE] == ACT_STOP:
            break
        laid_mask, laid_joker = apply_action(
            rules, g, ev, seat, a, act, facts, h_lo, h_hi, h_jk, h_n, seats, table, owner,
            c_mask, c_info, open_sel, open_n, r_mask, r_info, pub,
        )
        if pending >= 0:
            if (pending == JOKER and laid_joker) or (pending < JOKER and (laid_mask & bit(pending))):
                pending = -1
        if h_n[seat] == 0:
            went_out = True
            break
        if act[a, A_TYPE] == ACT_OPEN and act[a, A_P1] == 1:
            break  # the whole hand but one card is down: that card is the discard
    if went_out:
        _event(ev, g, EV_OUT, rnd, seat, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        return TURN_OUT

    # Discarding.
    code = _discard(rules, g, seat, kind, par, policy_rng, h_lo[seat], h_hi[seat], h_jk[seat], taken,
                    seats[seat, S_OPENED] == 1, table, c_mask, c_info, pub, view, d_legal, d_penalty, d_fits,
                    seats, h_n, h_jk)
    _drop_card(h_lo, h_hi, h_jk, h_n, seat, code)
    pile[g[G_PILE]] = code
    g[G_PILE] += 1
    pub[PUB_PILE, code] += 1
    _event(ev, g, EV_DISCARD, rnd, seat, code, 0, 0, 0, 0, 0, 0, 0, 0)
    if h_n[seat] == 0:
        _event(ev, g, EV_OUT, rnd, seat, 1, 0, 0, 0, 0, 0, 0, 0, 0)
        return TURN_OUT
    g[G_TURN] = turn + 1
    return TURN_NEXT



@kernel
def play_round(
    rules, rnd, first, g, ev, h_lo, h_hi, h_jk, h_n, seats, table, owner, stock, pile,
    kinds, params, policy_rng, deck_rng, bufs, act, facts, r_mask, r_info, open_sel, open_n, ws, order, flips, pub, view,
):
    """Play one round; returns ``(winner, blocked, rami_sec)``.

    ``winner`` is -1 when the round is blocked (``blocked`` says why).
    """
    n_players = rules.players
    deal_round(rules, rnd, first, g, ev, h_lo, h_hi, h_jk, h_n, seats, stock, pile, deck_rng, order, pub)
    winner = -1
    blocked = BLOCK_NONE
    seat = first  # the round starts at turn 0
    while True:
        status = play_turn(
            rules, g, ev, seat, h_lo, h_hi, h_jk, h_n, seats, table, owner, stock, pile,
            kinds, params, policy_rng, deck_rng, bufs, act, facts, r_mask, r_info, open_sel, open_n, ws, flips, pub, view,
        )
        if status == TURN_NEXT:
            seat = seat + 1 if seat + 1 < n_players else 0
            continue
        if status == TURN_OUT:
            winner = seat
        elif status == TURN_BLOCKED:
            blocked = BLOCK_STOCK
        elif status == TURN_CYCLE:
            blocked = BLOCK_CYCLE
        elif status == TURN_CLOSED:
            blocked = BLOCK_TABLE_CLOSED
        else:
            blocked = BLOCK_TURN_CAP
        break

    rami_sec = False
    if winner >= 0:
        # The winner laid its first cards in the very turn it went out.
        if seats[winner, S_FIRST_LAY] == g[G_TURN]:
            if rules.rami_sec == P.SEC_DOUBLE:
                rami_sec = True
            elif rules.rami_sec == P.SEC_FLAT_200:
                rami_sec = True
                for s in range(n_players):
                    if s != winner and seats[s, S_OPENED]:
                        rami_sec = False
    else:
        _event(ev, g, EV_BLOCKED, rnd, blocked, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    return winner, blocked, rami_sec


@kernel(forceinline=True)
def _take_status(rules, g, seat, top, opened, lo, hi, jk, n_hand, table,
                 c_mask, c_info, s_mask, s_info, open_sel, open_n, act, facts, r_mask, r_info, ws):
    """``(legal, completes, n_act)``: may ``seat`` take the discard top.

    ``completes`` is whether the card sits in a meld of the hand (1 or 0),
    or -1 when the check did not need to find out: the turn asks the same
    for its take decision, and computes it only when it is -1.
    Under ``must_use`` the check enumerates the laying actions of the hand
    with the card; ``n_act`` is their count (left in ``act``), which the
    laying phase reuses when the card is taken; -1 when not enumerated.
    """
    if rules.discard_take == P.TAKE_AFTER_OPENING and not opened:
        return False, -1, -1
    # A card of another code must stay for the discard (docs/rules.md item 12).
    if top == JOKER:
        if (lo | hi) == ZERO:
            return False, -1, -1
    elif (lo & ~bit(top)) == ZERO and jk == 0:
        return False, -1, -1
    can_add = opened or rules.add_before_opening
    table_mask, joker_fits = _table_accepts(g)
    on_table = joker_fits if top == JOKER else (table_mask & bit(top)) != ZERO
    fits_table = can_add and on_table
    if rules.last_card_no_discard_take and n_hand == 1 and on_table:
        return False, -1, -1
    if top == JOKER:
        tlo, thi, tjk = lo, hi, jk + 1
    else:
        tlo, thi = add_card(lo, hi, top)
        tjk = jk
    useful = fits_table
    completes = -1
    if not useful:
        useful = _completes(lo, jk, top, rules)
        completes = 1 if useful else 0
    if rules.discard_take == P.TAKE_MUST_USE:
        # A card in no meld of the hand and fitting no table meld can still be
        # laid after a joker recovery (in the joker's new meld, or as the
        # natural that takes it back): only then is the full check needed.
        maybe = useful
        if opened and not maybe and top != JOKER:
            # The naturals that take back some table joker, as one mask.
            recovering = np.uint64(g[G_RECOVERING])
            maybe = (recovering & bit(top)) != ZERO  # the card itself takes a joker back
            holds_recovery = (lo & recovering) != ZERO
            # Or another card of the hand takes a joker back, and the card goes
            # into the joker's new meld (not in contrat, where none follows).
            if (not maybe and holds_recovery and rules.game != P.GAME_CONTRAT
                    and card_in_meld(lo, jk + 1, top, rules.min_run, rules.ace_high)):
                maybe = True
        if not maybe:
            return False, completes, -1
        # Legal only if some laying of this turn can use it.
        n_act = enumerate_actions(rules, g, seat, tlo, thi, tjk, n_hand + 1, opened, top, top, -1, table,
                                  c_mask, c_info, s_mask, s_info, open_sel, open_n, act, facts, r_mask, r_info, ws)
        return n_act > 0, completes, n_act
    return True, completes, -1


@kernel(inline="always")
def _discard(rules, g, seat, kind, par, policy_rng, lo, hi, jk, taken, opened, table, c_mask, c_info, pub, view,
             legal, penalty, fits, seats, h_n, h_jk):
    """The card ``seat`` throws; the observation ``view`` is filled only for
    a policy that reads it (the greedy discard from masks does not)."""
    if kind == KIND_HEURISTIC and par[P_DISCARD] < 1 and rules.ace_penalty < 990 and rules.joker_penalty < 990:
        return _highest_discard(rules, g, lo, jk, taken, opened, c_mask, c_info)
    fill_view(rules, g, seats, h_n, h_jk, seat, view)
    n = legal_discards(rules, g, lo, hi, jk, taken, opened, c_mask, c_info, legal, penalty, fits)
    table_mask, joker_fits = _table_accepts(g)
    return choose_discard(kind, par, policy_rng, seat, legal, n, penalty, fits, view, lo, hi, pub,
                          table_mask, joker_fits)


@kernel(inline="always")
def _hand_melded(rules, g, lo, jk, c_mask, c_info):
    """The cards of the hand ``(lo, jk)`` that sit in some meld of it, for the discard.

    The last listing of the laying phase was of this very hand: the union of
    its candidates the hand's jokers allow; when the turn listed none
    (``G_NCAND`` -1), :func:`melded_cards` gives the same mask from bit tests.
    """
    n_c = g[G_NCAND]
    if n_c < 0:
        return melded_cards(lo, jk, rules.min_run, rules.ace_high)
    in_meld = ZERO
    for k in range(n_c):
        if c_info[k, I_JOKER] <= jk:
            in_meld |= c_mask[k]
    return in_meld


@kernel(inline="always")
def _highest_discard(rules, g, lo, jk, taken, opened, c_mask, c_info):
    """The discard of the heuristic policy without judgement (``P_DISCARD`` 0), from masks.

    :func:`choose_discard` scores each card of :func:`legal_discards` by its
    penalty, less 1000 when it fits a meld and 5000 more for the joker, and
    plays the first best in listing order (naturals by code, then the
    joker). With penalties under 990 that is: the card fitting nothing with
    the highest penalty, the lowest code among equals; else the fitting
    natural so chosen; else the joker. Found here from the same masks,
    without filling and scanning the lists.
    """
    in_meld = _hand_melded(rules, g, lo, jk, c_mask, c_info)
    table_mask, joker_fits = _table_accepts(g)
    fit = in_meld | (table_mask if (opened or rules.add_before_opening) else ZERO)
    legal = lo & ~bit(taken) if 0 <= taken < JOKER else lo
    joker_legal = jk > 0 and taken != JOKER
    if rules.discard_playable_forbidden:
        # The cards the table takes go only when nothing else may.
        kept = legal & ~table_mask
        kept_joker = joker_legal and not joker_fits
        if kept != ZERO or kept_joker:
            legal, joker_legal = kept, kept_joker
    for x in (legal & ~fit, legal & fit):
        if x != ZERO:
            return _highest_penalty(x, rules.ace_penalty)
    return JOKER


@kernel(inline="always")
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


@kernel(inline="always")
def legal_discards(rules, g, lo, hi, jk, taken, opened, c_mask, c_info, legal, penalty, fits):
    """The cards the hand may throw into ``legal[:n]`` (with their penalty and whether each fits); returns ``n``."""
    in_meld = _hand_melded(rules, g, lo, jk, c_mask, c_info)
    can_add = opened or rules.add_before_opening
    table_mask, joker_fits = _table_accepts(g)
    for forbid_playable in (True, False):
        n = 0
        x = lo
        joker_next = jk > 0
        while True:
            code, x, joker_next = _next_card(x, joker_next)
            if code < 0:
                break
            if code != taken:
                on_table = joker_fits if code == JOKER else (table_mask & bit(code)) != ZERO
                if not (forbid_playable and rules.discard_playable_forbidden and on_table):
                    legal[n] = code
                    penalty[n] = card_penalty(code, rules)
                    fits[n] = code == JOKER or (in_meld & bit(code)) != ZERO or (can_add and on_table)
                    n += 1
        if n > 0:
            break
    return n


@entry
def make_buffers():
    """Every array a round is played on (a :class:`RoundState`), allocated once per batch of games."""
    return RoundState(
        np.zeros(MAX_SEATS, dtype=np.uint64),  # h_lo
        np.zeros(MAX_SEATS, dtype=np.uint64),  # h_hi
        np.zeros(MAX_SEATS, dtype=np.int64),  # h_jk
        np.zeros(MAX_SEATS, dtype=np.int64),  # h_n
        np.zeros((MAX_SEATS, N_S), dtype=np.int64),  # seats
        np.zeros((MAX_MELDS, N_INFO), dtype=np.int32),  # table
        np.zeros(MAX_MELDS, dtype=np.int32),  # owner
        np.zeros(MAX_CARDS, dtype=np.int64),  # stock
        np.zeros(MAX_CARDS, dtype=np.int64),  # pile
        np.zeros(MAX_CANDIDATES, dtype=np.uint64),  # c_mask
        np.zeros((MAX_CANDIDATES, N_INFO), dtype=np.int32),  # c_info
        np.zeros(MAX_CANDIDATES, dtype=np.uint64),  # s_mask
        np.zeros((MAX_CANDIDATES, N_INFO), dtype=np.int32),  # s_info
        np.zeros((MAX_ACTIONS, 6), dtype=np.int64),  # act
        np.zeros((MAX_ACTIONS, N_FACTS), dtype=np.int64),  # facts
        np.zeros(MAX_ACTIONS, dtype=np.uint64),  # r_mask
        np.zeros((MAX_ACTIONS, N_INFO), dtype=np.int32),  # r_info
        np.zeros((3, 64), dtype=np.int64),  # open_sel: best, whole hand, without joker
        np.zeros(3, dtype=np.int64),  # open_n
        np.zeros(MAX_FLIPS, dtype=np.uint64),  # flips: position fingerprints at turnings
        np.zeros((N_PUB, 53), dtype=np.int64),  # pub: public card counts (sim.engine.layout)
        np.zeros(N_VIEW, dtype=np.int64),  # view: the scalars of a seat's observation
        np.zeros(54, dtype=np.int64),  # d_legal: the cards a seat may discard
        np.zeros(54, dtype=np.float64),  # d_penalty: what each costs left in hand
        np.zeros(54, dtype=np.bool_),  # d_fits: whether each fits a meld
    )


@kernel
def _deterministic(rules, kinds, params):
    """1 when every seat decides without randomness (so positions can cycle)."""
    for s in range(rules.players):
        if not policy_is_deterministic(kinds[s], params[s]):
            return 0
    return 1


@kernel
def _seed_round(seed, game, rnd, policy_rng, deck_rng):
    # Every round has its own deck stream and one stream per seat, so any
    # round replays alone and the deck does not depend on the players' choices.
    for s in range(MAX_SEATS):
        policy_rng[s] = derive_seed(np.uint64(seed), game, rnd * MAX_SEATS + s, 1)
    deck_rng[0] = derive_seed(np.uint64(seed), game, rnd, 2)


@kernel
def game_rows(rules, max_rounds):
    """The most result rows one game writes: a row per round and seat, for
    ``max_rounds`` rounds, or exactly the game's rounds when it has a fixed
    number (basic rummy's three, contrat's seven) and the cap is not lower."""
    rounds = max_rounds
    if 0 < rules.game_rounds < max_rounds:
        rounds = rules.game_rounds
    return rounds * rules.players


@entry(inline="always")
def play_game(rules, game, seed, kinds, params, max_rounds, res, n_res, ev, g, buffers, ws, order, order_round):
    """Play game ``game`` of the simulation seeded ``seed``.

    Writes one row per round and seat into ``res`` from row ``n_res``:
    ``res`` is column-major, ``res[R_..., row]``, so that the result frame
    takes each column as one contiguous run; returns the new row count, or
    -1 when ``res`` has no room left for the longest such game
    (:func:`game_rows`; the caller then grows it and plays the game again).
    ``buffers`` (from :func:`make_buffers`) and ``ws`` (from
    :func:`sim.engine.melds.workspace`) are scratch space. ``order``, when
    not empty, scripts the deal of round ``order_round`` (see :func:`deal_round`).
    """
    n_players = rules.players
    if n_res + game_rows(rules, max_rounds) > res.shape[1]:
        return -1
    (h_lo, h_hi, h_jk, h_n, seats, table, owner, stock, pile, c_mask, c_info, s_mask, s_info,
     act, facts, r_mask, r_info, open_sel, open_n, flips, pub, view, d_legal, d_penalty, d_fits) = buffers
    bufs = (c_mask, c_info, s_mask, s_info, d_legal, d_penalty, d_fits)
    policy_rng = np.empty(MAX_SEATS, dtype=np.uint64)
    deck_rng = np.empty(1, dtype=np.uint64)
    g[G_DETERMINISTIC] = _deterministic(rules, kinds, params)
    totals = np.zeros(MAX_SEATS, dtype=np.int64)
    points = np.zeros(MAX_SEATS, dtype=np.int64)
    start_row = n_res
    rnd = 0
    truncated = False
    winner_game = -1
    while True:
        if rnd >= max_rounds:
            truncated = True
            break
        first = rnd % n_players
        _seed_round(seed, game, rnd, policy_rng, deck_rng)
        winner, blocked, rami_sec = play_round(
            rules, rnd, first, g, ev, h_lo, h_hi, h_jk, h_n, seats, table, owner, stock, pile,
            kinds, params, policy_rng, deck_rng, bufs, act, facts, r_mask, r_info, open_sel, open_n, ws,
            order if rnd == order_round else order[:0], flips, pub, view,
        )
        _score_round(rules, winner, rami_sec, h_lo, h_hi, h_jk, seats, points)
        for s in range(n_players):
            totals[s] += points[s]
        if g[G_TRACE]:
            _event(ev, g, EV_ROUND_END, rnd, winner, 1 if rami_sec else 0, blocked, 0, 0, 0, 0, 0, 0, 0)
            for s in range(n_players):
                _event(ev, g, EV_SEAT, rnd, s, points[s], totals[s], seats[s, S_OPENED], 0, 0, 0, 0, 0, 0)
                _trace_hand(ev, g, s, h_lo[s], h_hi[s], h_jk[s])
        for s in range(n_players):
            res[R_GAME, n_res] = game
            res[R_ROUND, n_res] = rnd
            res[R_SEAT, n_res] = s
            res[R_FIRST, n_res] = first
            res[R_OPENED, n_res] = seats[s, S_OPENED]
            res[R_OPEN_TURN, n_res] = seats[s, S_OPEN_TURN]
            res[R_OPEN_POINTS, n_res] = seats[s, S_OPEN_POINTS]
            res[R_JOKERS_LAID, n_res] = seats[s, S_JOKERS_LAID]
            res[R_JOKERS_HELD, n_res] = h_jk[s]
            res[R_CARDS_LEFT, n_res] = h_n[s]
            res[R_POINTS, n_res] = points[s]
            res[R_WENT_OUT, n_res] = 1 if s == winner else 0
            res[R_RAMI_SEC, n_res] = 1 if (rami_sec and s == winner) else 0
            res[R_BLOCKED, n_res] = blocked
            # A round stopped by the turn cap or a closed table stops before
            # the next turn begins; any other ends in a turn begun.
            stopped_before_turn = blocked == BLOCK_TURN_CAP or blocked == BLOCK_TABLE_CLOSED
            res[R_TURNS, n_res] = g[G_TURN] if stopped_before_turn else g[G_TURN] + 1
            res[R_TOTAL, n_res] = totals[s]
            res[R_TAKES, n_res] = seats[s, S_TAKES]
            res[R_HAND_VALUE, n_res] = hand_value(h_lo[s], h_hi[s], h_jk[s], rules)
            res[R_SEAT_TURNS, n_res] = seats[s, S_TURNS]
            res[R_MAY_I, n_res] = seats[s, S_MAY_I]
            n_res += 1
        rnd += 1
        done, winner_game = _game_over(rules, rnd, totals)
        if done:
            break
    for r in range(start_row, n_res):
        res[R_WINNER, r] = winner_game
        res[R_TRUNCATED, r] = 1 if truncated else 0
        res[R_WON, r] = 0
    # Every seat sharing the best total is marked as a winner.
    best = totals[0]
    for s in range(n_players):
        if (rules.game == P.GAME_BASIC and totals[s] > best) or (rules.game != P.GAME_BASIC and totals[s] < best):
            best = totals[s]
    if not truncated:
        for r in range(start_row, n_res):
            if totals[res[R_SEAT, r]] == best:
                res[R_WON, r] = 1
    if g[G_TRACE]:
        _event(ev, g, EV_GAME_END, rnd, winner_game, 1 if truncated else 0, 0, 0, 0, 0, 0, 0, 0, 0)
        for s in range(n_players):
            _event(ev, g, EV_SEAT, rnd, s, 0, totals[s], 0, 0, 0, 0, 0, 0, 0)
    return n_res


@entry
def _round_points(rules, winner, rami_sec, h_lo, h_hi, h_jk, seats):
    points = np.zeros(MAX_SEATS, dtype=np.int64)
    _score_round(rules, winner, rami_sec, h_lo, h_hi, h_jk, seats, points)
    return points


@kernel
def _score_round(rules, winner, rami_sec, h_lo, h_hi, h_jk, seats, points):
    """Each seat's points of the round into ``points`` (zeros beyond the seats)."""
    n_players = rules.players
    for s in range(MAX_SEATS):
        points[s] = 0
    if winner < 0:
        if rules.blocked_scores_hands:
            for s in range(n_players):
                points[s] = hand_value(h_lo[s], h_hi[s], h_jk[s], rules)
        return
    if rules.game == P.GAME_BASIC:
        gain = 0
        for s in range(n_players):
            if s != winner:
                gain += hand_value(h_lo[s], h_hi[s], h_jk[s], rules)
        if rami_sec and rules.rami_sec == P.SEC_DOUBLE:
            gain *= 2
        points[winner] = gain
        return
    for s in range(n_players):
        if s == winner:
            continue
        if not seats[s, S_OPENED] and rules.unopened_penalty != P.UNOPENED_COUNT_CARDS:
            v = rules.unopened_penalty
        else:
            v = hand_value(h_lo[s], h_hi[s], h_jk[s], rules)
        if rami_sec and rules.rami_sec == P.SEC_DOUBLE:
            v *= 2
        elif rami_sec and rules.rami_sec == P.SEC_FLAT_200:
            v = 200
        points[s] = v


@kernel
def _game_over(rules, rounds_played, totals):
    """``(done, winner)``: winner is the seat with the best total, -1 if shared."""
    n_players = rules.players
    if rules.game_rounds > 0:
        if rounds_played < rules.game_rounds:
            return False, -1
        best = 0
        for s in range(1, n_players):
            if (rules.game == P.GAME_BASIC and totals[s] > totals[best]) or (
                rules.game != P.GAME_BASIC and totals[s] < totals[best]
            ):
                best = s
        for s in range(n_players):
            if s != best and totals[s] == totals[best]:
                return True, -1
        return True, best
    reached = False
    for s in range(n_players):
        if totals[s] >= rules.game_target:
            reached = True
    if not reached:
        return False, -1
    best = 0
    for s in range(1, n_players):
        if totals[s] < totals[best]:
            best = s
    for s in range(n_players):
        if s != best and totals[s] == totals[best]:
            return False, -1  # a tie for the lowest plays one more round
    return True, best


@entry
def seating(rules, game, kinds, params, rotate, kinds_out, params_out):
    """The strategies at the seats of game ``game``.

    With ``rotate``, strategy ``j`` plays seat ``(j + game) mod players``, so
    over consecutive games every strategy sits everywhere equally often.
    """
    n = rules.players
    for s in range(n):
        j = (s - game) % n if rotate else s
        kinds_out[s] = kinds[j]
        params_out[s] = params[j]


@entry
def play_games(rules, seed, first_game, n_games, kinds, params, max_rounds, res, first_row, rotate):
    """Play games ``first_game .. first_game + n_games - 1`` into ``res``, shape ``(N_R, rows)``, from ``first_row``.

    Returns ``(games_done, end_row)``: fewer games than asked when ``res``
    filled; the games' rows are ``res[:, first_row:end_row]``. Batches of
    one simulation may share one ``res``, each writing its own rows (games
    of a fixed number of rounds fill a known number). ``rotate`` moves the
    strategies one seat on from game to game (see :func:`seating`).
    """
    ev = np.zeros((1, N_EV), dtype=np.int32)
    g = np.zeros(N_G, dtype=np.int64)
    buffers = make_buffers()
    ws = workspace()
    order = np.zeros(0, dtype=np.int64)
    game_kinds = kinds.copy()
    game_params = params.copy()
    n_res = first_row
    for i in range(n_games):
        seating(rules, first_game + i, kinds, params, rotate, game_kinds, game_params)
        rows = play_game(rules, first_game + i, seed, game_kinds, game_params, max_rounds, res, n_res, ev, g,
                         buffers, ws, order, 0)
        if rows < 0:
            return i, n_res
        n_res = rows
    return n_games, n_res


@entry
def trace_game(rules, game, seed, kinds, params, max_rounds, ev, order, order_round, rotate):
    """Play one game recording every event into ``ev``; returns ``(events, overflow)``.

    ``order`` scripts the deal of round ``order_round``; empty for shuffled deals.
    """
    g = np.zeros(N_G, dtype=np.int64)
    g[G_TRACE] = 1
    res = np.zeros((N_R, max_rounds * rules.players), dtype=np.int32)  # the rows the batch writes, as it types them
    game_kinds = kinds.copy()
    game_params = params.copy()
    seating(rules, game, kinds, params, rotate, game_kinds, game_params)
    play_game(rules, game, seed, game_kinds, game_params, max_rounds, res, 0, ev, g, make_buffers(), workspace(),
              order, order_round)
    return g[G_NEV], g[G_OVERFLOW]


@entry
def start_round(rules, game, seed, rnd, buffers, g, ev, policy_rng, deck_rng, order):
    """Seed the streams of ``(seed, game)`` and deal round ``rnd``, as :func:`play_game` does.

    Leaves the very position :func:`play_game` starts that round from, to
    study turn by turn with :func:`step_turn` (tests of the information rule,
    advice). ``order`` scripts the deal (see :func:`deal_round`); empty: shuffled.
    """
    (h_lo, h_hi, h_jk, h_n, seats, table, owner, stock, pile, c_mask, c_info, s_mask, s_info,
     act, facts, r_mask, r_info, open_sel, open_n, flips, pub, view, d_legal, d_penalty, d_fits) = buffers
    _seed_round(seed, game, rnd, policy_rng, deck_rng)
    g[G_DETERMINISTIC] = 0  # studied positions are edited by hand: no cycle claims
    deal_round(rules, rnd, rnd % rules.players, g, ev, h_lo, h_hi, h_jk, h_n, seats, stock, pile, deck_rng, order, pub)


@entry
def step_turn(rules, kinds, params, buffers, ws, g, ev, policy_rng, deck_rng):
    """Play the next turn of a position from :func:`start_round`; returns the ``TURN_*`` status."""
    (h_lo, h_hi, h_jk, h_n, seats, table, owner, stock, pile, c_mask, c_info, s_mask, s_info,
     act, facts, r_mask, r_info, open_sel, open_n, flips, pub, view, d_legal, d_penalty, d_fits) = buffers
    bufs = (c_mask, c_info, s_mask, s_info, d_legal, d_penalty, d_fits)
    return play_turn(
        rules, g, ev, (g[G_FIRST] + g[G_TURN]) % rules.players, h_lo, h_hi, h_jk, h_n, seats, table, owner, stock, pile,
        kinds, params, policy_rng, deck_rng, bufs, act, facts, r_mask, r_info, open_sel, open_n, ws, flips, pub, view,
    )
