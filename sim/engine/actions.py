"""The laying actions: listing every legal one of a hand, and playing one.

:func:`enumerate_actions` fills ``act`` / ``facts`` (layouts in
:mod:`sim.engine.layout`) with the openings (or the contract), the new
melds, the additions to table melds and the joker recoveries a hand may lay
now; :func:`apply_action` plays one of them on the round state.
"""

from __future__ import annotations

import numpy as np

from sim.engine.params import (
    CONTRACT_DEALS, CONTRACT_RUNS, CONTRACT_SETS, CONTRACT_WHOLE_HAND, GAME_CONTRAT, GAME_RAMI51, OUT_LAY_OR_DISCARD,
    PLAYABLE_FORBIDDEN, RECOVER_UNAMBIGUOUS,
)
from sim.engine.events import EV_ADD, EV_MELD, EV_OPEN, EV_RECOVER, record_event
from sim.engine.hand import card_completes, drop_card, next_card, take_card
from sim.engine.jit import kernel
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
    OPEN_NO_JOKER,
    PUB_OPENED,
    PUB_TABLE,
)
from sim.engine.bits import JOKER, ZERO, bit, lowest, remove_card, remove_mask
from sim.engine.contract_search import contract_ruled_out, search_contract
from sim.engine.hand_melds import (
    I_JOKER,
    I_KIND,
    I_POINTS,
    I_SIZE,
    KIND_RUN,
    N_INFO,
    enumerate_melds,
    holds_meld,
    melded_cards,
)
from sim.engine.meld_search import opening_bound, search
from sim.engine.state import (
    G_LAST_OPEN,
    G_MELDS,
    G_NCAND,
    G_ROUND,
    G_TURN,
    S_FIRST_LAY,
    S_JOKERS_LAID,
    S_OPEN_POINTS,
    S_OPEN_TURN,
    S_OPENED,
    S_TURNS,
    threshold,
)
from sim.engine.table import (
    add_to_meld,
    ends_taking,
    hand_recovers,
    meld_takes,
    recover,
    recovering_cards,
    table_accepts,
    table_changed,
)



@kernel
def _leaves_ok(n_after, lo, hi, jk, taken, rules):
    """Whether a laying may leave this hand (docs/rules.md items 12 and 18)."""
    if n_after == 0:
        return rules.go_out == OUT_LAY_OR_DISCARD
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
    table, takes, c_mask, c_info, s_mask, s_info, open_sel, open_n,
    act, facts, r_mask, r_info, ws, joker_free,
):
    """Every legal laying action of ``seat`` now; returns their count.

    ``taken`` is the code taken from the discard this turn (-1 if none);
    ``pending`` is that code while ``must_use`` still requires laying it.
    ``hint`` is the card just drawn when the hand before it is known unable
    to open: any opening must then use it, which the search exploits.
    The candidates of the hand are left in ``c_mask``/``c_info``; an opening
    action ``ACT_OPEN`` with ``P1`` = 0 (normal) or 1 (whole hand) finds its
    melds in ``open_sel[P1, :open_n[P1]]``. ``joker_free``: a Rami 51
    opening that uses a joker is listed again kept free of jokers
    (``OPEN_NO_JOKER``), for a policy that may play it
    (:func:`sim.engine.policies.lists_joker_free`); every legal action is
    listed with it true. ``takes``: what each table meld takes (the round
    state's rows, :func:`sim.engine.table.table_changed`).
    """
    n_act = 0
    if opened and rules.game == GAME_CONTRAT:
        # No meld follows the contract: the hand's candidates would serve
        # only the discard's "fits" flag, which melded_cards answers without
        # listing them (G_NCAND -1 says they are not listed).
        n_c = -1
    elif rules.game == GAME_CONTRAT and _no_contract(rules, g, lo, hi, jk, pending if pending >= 0 else hint, s_mask):
        # Most hands before the contract hold none, which bit tests tell:
        # the listing would then serve only the discard's "fits" flag (as
        # after the contract).
        n_c = -1
    elif (not opened and rules.game == GAME_RAMI51 and not rules.lay_all_ignores_opening
          and (pending >= 0 or hint >= 0) and not card_completes(lo, jk, pending if pending >= 0 else hint, rules)):
        # An opening that must use a card (the discard taken, or the card
        # drawn by a hand that could not open before it) needs a meld of
        # the hand holding that card: when none does, a few bit tests say
        # there is no opening, as below.
        n_c = -1
    elif (not opened and rules.game == GAME_RAMI51 and not rules.lay_all_ignores_opening
          and opening_bound(lo, hi, jk, rules.min_run, rules.ace_high) < threshold(g, rules)):
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
    if not opened and rules.game == GAME_CONTRAT:
        if n_c >= 0:
            n_act = _push_contracts(rules, g, lo, hi, jk, n_hand, taken, pending, hint, n_c, c_mask, c_info,
                                    open_sel, open_n, act, facts, n_act, out, ws)
    elif not opened and n_c > 0:
        limit = n_hand if rules.go_out == OUT_LAY_OR_DISCARD else n_hand - 1
        forced = pending if pending >= 0 else hint
        value, k = search(lo, hi, jk, n_c, c_mask, c_info, 0, rules.open_needs_natural_run != 0,
                          forced, limit, threshold(g, rules), out, ws)
        if value >= 0 and k > 0:
            n_before = n_act
            n_act = _push_opening(rules, lo, hi, jk, n_hand, taken, n_c, c_mask, c_info, out, k,
                                  open_sel, open_n, 0, act, facts, n_act)
            if joker_free and jk > 0 and forced != JOKER and n_act > n_before and facts[n_act - 1, F_JOKERS] > 0:
                # The same opening kept free of jokers, for players who hold them.
                value, k = search(lo, hi, 0, n_c, c_mask, c_info, 0, rules.open_needs_natural_run != 0,
                                  forced, limit, threshold(g, rules), out, ws)
                if value >= 0 and k > 0:
                    n_act = _push_opening(rules, lo, hi, jk, n_hand, taken, n_c, c_mask, c_info, out, k,
                                          open_sel, open_n, OPEN_NO_JOKER, act, facts, n_act)
        if rules.lay_all_ignores_opening:
            value, k = search(lo, hi, jk, n_c, c_mask, c_info, 1, False, forced, limit, n_hand - 1, out, ws)
            if value >= 0 and k > 0:
                n_act = _push_opening(rules, lo, hi, jk, n_hand, taken, n_c, c_mask, c_info, out, k,
                                      open_sel, open_n, 1, act, facts, n_act)
    elif rules.game != GAME_CONTRAT:
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
        taken_mask, joker_fits = table_accepts(g)
        x = lo & taken_mask
        joker_next = jk > 0 and joker_fits
        while True:
            code, x, joker_next = next_card(x, joker_next)
            if code < 0:
                break
            if pending < 0 or pending == code:
                if code == JOKER:
                    nlo, nhi, njk = lo, hi, jk - 1
                else:
                    nlo, nhi = remove_card(lo, hi, code)
                    njk = jk
                if _leaves_ok(n_hand - 1, nlo, nhi, njk, taken, rules):
                    card = bit(code)
                    for m in range(n_melds):
                        if not meld_takes(takes, m, card):
                            continue  # no end of the meld takes the card
                        # A run takes cards at its low and high ends, a set
                        # only as a set; each end in that order.
                        ends = ends_taking(table, m, code, rules.ace_high)
                        while ends:
                            end = lowest(np.uint64(ends))
                            ends &= ends - 1
                            n_act = _push_action(act, facts, n_act, ACT_ADD, code, m, end, 0, 0, 1, 0,
                                                 1 if code == JOKER else 0, n_hand - 1)
    if opened and rules.jokers > 0 and hand_recovers(g, lo):
        n_act = _push_recoveries(rules, g, lo, hi, jk, n_hand, taken, pending, table,
                                 s_mask, s_info, act, facts, r_mask, r_info, n_act)
    return n_act


@kernel
def _richest_placement(c, n_c, c_mask, c_info):
    """The candidate laying the cards of candidate ``c`` that is worth most to an opening.

    A run's joker at one end may often stand at the other end instead, with
    the same natural cards (both are candidates): an opening lays it where it
    is worth more (docs/rules.md item 4); so too the ace of a 13-card run,
    low or high. A search for the most cards laid sees no difference between
    the two, so the choice is made here. A run without joker of fewer than
    13 cards has no other placement (its cards fix its positions): it is
    returned at once, without a pass over the candidates.
    """
    if c_info[c, I_KIND] != KIND_RUN or (c_info[c, I_JOKER] == 0 and c_info[c, I_SIZE] < 13):
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
    holding it (:func:`card_completes`); the rest are the contract search's own
    first tests (:func:`contract_ruled_out`). ``scratch`` is a uint64 array
    of at least 400 slots.
    """
    if forced >= 0 and not card_completes(lo, jk, forced, rules):
        return True
    deal = g[G_ROUND] % CONTRACT_DEALS
    return contract_ruled_out(lo, hi, jk, CONTRACT_SETS[deal], CONTRACT_RUNS[deal], deal == CONTRACT_WHOLE_HAND,
                              rules.min_run, rules.ace_high, scratch)


@kernel
def _push_contracts(rules, g, lo, hi, jk, n_hand, taken, pending, hint, n_c, c_mask, c_info,
                    open_sel, open_n, act, facts, n_act, out, ws):
    """The contract of this deal as opening actions (docs/rules.md items 26 and 28).

    The contract laying the most cards, and the same kept free of jokers when
    that differs. Deal 7 is laid only as the whole hand, which goes out.
    """
    deal = g[G_ROUND] % CONTRACT_DEALS
    sets = CONTRACT_SETS[deal]
    runs = CONTRACT_RUNS[deal]
    whole = deal == CONTRACT_WHOLE_HAND
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
    unambiguous = rules.joker_recovery_from_set == RECOVER_UNAMBIGUOUS
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
            if rules.game != GAME_CONTRAT and holds_meld(rlo, rjk, rules.min_run, rules.ace_high):
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
                    ends = ends_taking(table, m2, JOKER, rules.ace_high)
                    while ends:
                        end = lowest(np.uint64(ends))
                        ends &= ends - 1
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
    record_event(ev, g, EV_MELD, g[G_ROUND], seat, m, info[0], info[1], info[2], info[3], info[4], info[I_JOKER],
           part_of_open, 0)


@kernel(forceinline=True)
def _count_laid(pub, mask):
    """One more copy of each natural of ``mask`` on the table, in the public counts."""
    x = mask
    while x:
        pub[PUB_TABLE, lowest(x)] += 1
        x &= x - np.uint64(1)


@kernel(forceinline=True)
def apply_action(rules, g, ev, st, seat, i):
    """Play action ``i`` of ``st.act`` for ``seat``; returns ``(mask of naturals laid, whether a joker was laid)``."""
    act, facts, h_lo, h_hi, h_jk, h_n, seats = st.act, st.facts, st.h_lo, st.h_hi, st.h_jk, st.h_n, st.seats
    table, owner, c_mask, c_info, open_sel, open_n = st.table, st.owner, st.c_mask, st.c_info, st.open_sel, st.open_n
    r_mask, r_info, pub = st.r_mask, st.r_info, st.pub
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
        record_event(ev, g, EV_OPEN, g[G_ROUND], seat, points, which, open_n[which], 0, 0, 0, 0, 0, 0)
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
        drop_card(h_lo, h_hi, h_jk, h_n, seat, code)
        stands = add_to_meld(table, m, code, end)
        if code == JOKER:
            seats[seat, S_JOKERS_LAID] += 1
            laid_joker = True
        else:
            laid_mask = bit(code)
        record_event(ev, g, EV_ADD, g[G_ROUND], seat, m, code, end, stands, 0, 0, 0, 0, 0)
    elif t == ACT_RECOVER:
        code = act[i, A_P1]
        m = act[i, A_P2]
        drop_card(h_lo, h_hi, h_jk, h_n, seat, code)
        recover(table, m, code)
        take_card(h_lo, h_hi, h_jk, h_n, seat, JOKER)
        laid_mask = bit(code)
        record_event(ev, g, EV_RECOVER, g[G_ROUND], seat, m, code, 0, 0, 0, 0, 0, 0, 0)
        if act[i, A_P3] == 0:
            h_lo[seat], h_hi[seat] = remove_mask(h_lo[seat], h_hi[seat], r_mask[i])
            h_jk[seat] -= 1
            h_n[seat] -= r_info[i, I_SIZE]
            laid_mask |= r_mask[i]
            _lay_meld(rules, g, ev, seat, table, owner, r_info[i], 0)
        else:
            m2 = act[i, A_P4]
            end = act[i, A_P5]
            drop_card(h_lo, h_hi, h_jk, h_n, seat, JOKER)
            stands = add_to_meld(table, m2, JOKER, end)
            record_event(ev, g, EV_ADD, g[G_ROUND], seat, m2, JOKER, end, stands, 0, 0, 0, 0, 0)
        laid_joker = True
        seats[seat, S_JOKERS_LAID] += 1
    if seats[seat, S_FIRST_LAY] < 0:
        seats[seat, S_FIRST_LAY] = g[G_TURN]
    # The melds the laying changed (an addition's, a recovery's and the meld
    # its joker joined); new melds start at melds_before.
    changed = -1
    changed_too = -1
    if t == ACT_ADD or t == ACT_RECOVER:
        changed = act[i, A_P2]
        if t == ACT_RECOVER and act[i, A_P3] != 0 and act[i, A_P4] != changed:
            changed_too = act[i, A_P4]
    table_changed(g, table, st.takes, rules, melds_before, changed, changed_too)
    # Public counts: every natural laid, counted meld by meld (an opening may
    # lay both copies of a code, one in a run and one in a set, which the
    # union mask holds once), and the jokers now on the table.
    if t == ACT_OPEN:
        which = act[i, A_P1]
        for j in range(open_n[which]):
            _count_laid(pub, c_mask[open_sel[which, j]])
    elif t == ACT_RECOVER:
        _count_laid(pub, bit(act[i, A_P1]))
        if act[i, A_P3] == 0:
            _count_laid(pub, r_mask[i])
    else:
        _count_laid(pub, laid_mask)
    flags_after = 0
    if t == ACT_ADD or t == ACT_RECOVER:
        flags_after += table[act[i, A_P2], I_JOKER]
        if t == ACT_RECOVER and act[i, A_P3] != 0 and act[i, A_P4] != act[i, A_P2]:
            flags_after += table[act[i, A_P4], I_JOKER]
    for m in range(melds_before, g[G_MELDS]):
        flags_after += table[m, I_JOKER]
    pub[PUB_TABLE, JOKER] += flags_after - flags_before
    return laid_mask, laid_joker


@kernel(forceinline=True)
def hand_melded(rules, g, lo, jk, c_mask, c_info):
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


@kernel(forceinline=True)
def discard_mask(rules, g, lo, jk, taken):
    """``(mask, joker)``: the cards the hand ``(lo, jk)`` may throw, its naturals as a bit word (a code once,
    however many copies) and whether the joker may go.

    The one owner of the rule, which the turn's listing of the discards
    (:func:`sim.engine.turn.legal_discards`) and the policies' shortcut
    (:func:`sim.engine.policies.discard_unlisted`) both read: the card
    ``taken`` from the pile this turn stays (docs/rules.md item 11; -1: none
    taken), and with ``discard_playable`` forbidden a card some table meld
    takes goes only when nothing else may (item 16).
    """
    mask = lo & ~bit(taken) if 0 <= taken < JOKER else lo
    joker = jk > 0 and taken != JOKER
    if rules.discard_playable == PLAYABLE_FORBIDDEN:
        table_mask, joker_fits = table_accepts(g)
        kept = mask & ~table_mask
        kept_joker = joker and not joker_fits
        if kept != ZERO or kept_joker:
            return kept, kept_joker
    return mask, joker


@kernel(forceinline=True)
def discard_fits(rules, g, lo, jk, opened, c_mask, c_info):
    """The naturals of the hand ``(lo, jk)`` that fit, for the discard: those in a meld of the hand
    (:func:`hand_melded`) or taken by a table meld the seat may add to (``opened``, or adding before opening);
    the joker always fits. The one owner of "fits", which the listing and the policies' shortcut both read."""
    table_mask, _ = table_accepts(g)
    return hand_melded(rules, g, lo, jk, c_mask, c_info) | (
        table_mask if (opened or rules.add_before_opening) else ZERO)
