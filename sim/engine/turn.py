"""The turn: draw (the take check, the pile's top or the stock, "Puis-je ?"), lay, discard.

The turn's steps, each a function on the round state ``st``
(:class:`sim.engine.state.RoundState`) and the round scalars ``g``, in
their order: :func:`begin_turn`, :func:`draws`, :func:`take_check`, then
:func:`take_top` or :func:`draw_stock` (then, in Rami contrat, "Puis-je ?"
asked of each other seat: :func:`may_i` and its steps), :func:`laying_starts`,
then :func:`list_layings` and :func:`lay` until the seat stops,
:func:`list_discards` and :func:`throw`. Between them the seat's policy
decides (:func:`decide_take`, :func:`decide_may_i` for an asker,
:func:`decide_action`, :func:`decide_discard`, asking
:mod:`sim.engine.policies`).

:func:`play_turn` calls them in one go, inlined into the round loop;
:mod:`sim.engine.position` calls the same steps one decision at a time, so
that a position stops where a strategy would decide. The laying actions
are listed and played by :mod:`sim.engine.actions`.
"""

from __future__ import annotations

import numpy as np

from sim.engine.params import (
    GAME_CONTRAT, GAME_RAMI51, STOCK_FLIP, STOCK_RESHUFFLE, STOCK_TURN_ONCE, TAKE_AFTER_OPENING, TAKE_MUST_USE,
)
from sim.engine.actions import apply_action, discard_fits, discard_mask, enumerate_actions
from sim.engine.events import EV_DISCARD, EV_DRAW, EV_MAY_I, EV_OUT, EV_RESTOCK, record_event, trace_places
from sim.engine.hand import card_completes, card_penalty, drop_card, next_card, take_card
from sim.engine.jit import kernel
from sim.engine.layout import A_P1, A_TYPE, ACT_OPEN, ACT_STOP, PUB_PILE, PUB_TOOK, fill_view
from sim.engine.bits import JOKER, ZERO, add_card, bit
from sim.engine.hand_melds import N_INFO, card_in_meld
from sim.engine.policies import (
    MAY_I_IF_COMPLETES,
    MAY_I_NO,
    choose_action,
    choose_discard,
    choose_may_i,
    choose_take,
    discard_unlisted,
    lists_joker_free,
    may_i_reads_view,
    may_i_shortcut,
    stops_unasked,
    stops_unlisted,
    take_reads_view,
)
from sim.engine.rng import mix64, shuffle
from sim.engine.state import (
    G_DETERMINISTIC,
    G_MELDS,
    G_NCAND,
    G_NFLIPS,
    G_PILE,
    G_RECOVERING,
    G_RESTOCKS,
    G_ROUND,
    G_STOCK,
    G_TURN,
    MAX_FLIPS,
    S_MAY_I,
    S_NO_OPEN,
    S_OPENED,
    S_TAKES,
    S_TURNS,
)
from sim.engine.table import table_accepts, table_closed

# How a turn ends: the next seat moves, the seat went out, or the round stops (why).
TURN_NEXT, TURN_OUT, TURN_BLOCKED, TURN_CAP, TURN_CYCLE, TURN_CLOSED = 0, 1, 2, 3, 4, 5


@kernel(inline="always")
def may_i_goes_on(rules, g, granted):
    """Whether "Puis-je ?" is asked of one more seat: ``granted`` grants so far under ``may_i_limit``, and a
    pile's top to take and a stock card to draw as the penalty (docs/rules.md item 29)."""
    return granted < rules.may_i_limit and g[G_PILE] > 0 and g[G_STOCK] > 0


@kernel(inline="always")
def next_asker(rules, asker):
    """The seat asked after ``asker`` (the drawer first): the next in play order, without a division."""
    return asker + 1 if asker + 1 < rules.players else 0


@kernel(forceinline=True)
def decide_may_i(rules, g, st, asker, kinds, params, policy_rng):
    """Whether ``asker``'s policy says "Puis-je ?" for the pile's top, from its own view.

    It is asked after every stock draw, so the policy's shortcut
    (:func:`sim.engine.policies.may_i_shortcut`) comes first: a policy that
    says no whatever the card is not asked, one that says yes just when the
    card completes a meld is answered from that test (:func:`card_completes`,
    bit tests first), and the view is filled only for a policy that reads it.
    """
    # Unsigned indices: asked after every stock draw, and numba tests a
    # signed index the compiler cannot bound for counting from the end.
    at = np.uint64(asker)
    kind = kinds[at]
    par = params[at]
    shortcut = may_i_shortcut(kind, par, st.seats[at, S_OPENED] == 1)
    if shortcut == MAY_I_NO:
        return False
    top = st.pile[np.uint64(g[G_PILE] - 1)]
    lo, jk = st.h_lo[at], st.h_jk[at]
    if shortcut == MAY_I_IF_COMPLETES:
        return top == JOKER or card_completes(lo, jk, top, rules)
    completes = card_completes(lo, jk, top, rules)
    if may_i_reads_view(kind, par):
        fill_view(rules, g, st.seats, st.h_n, st.h_jk, asker, st.obs)
    return choose_may_i(kind, par, policy_rng, asker, top, completes, lo, st.h_hi[at], st.pub, st.obs)


@kernel(inline="always")
def grant_may_i(g, ev, st, asker):
    """``asker`` takes the pile's top and, as the penalty, the stock's top card; returns the pile's card."""
    top = st.pile[np.uint64(g[G_PILE] - 1)]
    g[G_PILE] -= 1
    st.pub[PUB_PILE, np.uint64(top)] -= 1
    st.pub[PUB_TOOK + asker, np.uint64(top)] += 1
    take_card(st.h_lo, st.h_hi, st.h_jk, st.h_n, asker, top)
    g[G_STOCK] -= 1
    penalty = st.stock[np.uint64(g[G_STOCK])]
    take_card(st.h_lo, st.h_hi, st.h_jk, st.h_n, asker, penalty)
    st.seats[asker, S_MAY_I] += 1
    # Two cards joined the hand outside its turn: what it could lay is unknown again.
    st.seats[asker, S_NO_OPEN] = 0
    record_event(ev, g, EV_MAY_I, g[G_ROUND], asker, top, penalty, 0, 0, 0, 0, 0, 0, 0)
    return top


@kernel(forceinline=True)
def may_i(rules, g, ev, st, seat, kinds, params, policy_rng):
    """"Puis-je ?" after ``seat`` drew from the stock (docs/rules.md item 29), asked of each other seat in turn.

    Played after every stock draw of Rami contrat: so it is inlined into
    the turn (its arguments are not copied at each draw). Its steps
    (:func:`may_i_goes_on`, :func:`next_asker`, :func:`decide_may_i`,
    :func:`grant_may_i`) are those that :mod:`sim.engine.position` plays one
    asker at a time. The askers' views overwrite ``st.obs``, and the drawer's
    is not written back: every decision that reads the view fills it first
    (``decide_take``, ``decide_action``, ``decide_discard``), so the drawer's
    own view was written after every stock draw for nobody.
    """
    granted = 0
    asker = seat
    for _ in range(1, rules.players):
        if not may_i_goes_on(rules, g, granted):
            break
        asker = next_asker(rules, asker)
        if decide_may_i(rules, g, st, asker, kinds, params, policy_rng):
            grant_may_i(g, ev, st, asker)
            granted += 1


@kernel
def restock(rules, g, ev, stock, pile, rng, pub):
    """Rebuild an empty stock from the pile; False if the round is blocked."""
    if rules.stock_exhausted == STOCK_TURN_ONCE and g[G_RESTOCKS] >= 1:
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
    if rules.stock_exhausted == STOCK_RESHUFFLE:
        shuffle(stock, n, rng, 0)
    pile[0] = top
    g[G_PILE] = 1
    pub[PUB_PILE, :] = 0
    pub[PUB_PILE, top] = 1
    g[G_RESTOCKS] += 1
    mode = 0 if rules.stock_exhausted == STOCK_RESHUFFLE else 1
    record_event(ev, g, EV_RESTOCK, g[G_ROUND], mode, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    trace_places(ev, g, stock, pile)
    return True


@kernel
def flip_pile(g, ev, stock, pile, pub):
    """Basic rummy: the whole pile, turned over unshuffled, becomes the stock."""
    n = g[G_PILE]
    for i in range(n):
        stock[i] = pile[n - 1 - i]
    g[G_STOCK] = n
    g[G_PILE] = 0
    pub[PUB_PILE, :] = 0
    g[G_RESTOCKS] += 1
    record_event(ev, g, EV_RESTOCK, g[G_ROUND], 2, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    trace_places(ev, g, stock, pile)


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


# What a laying leaves the turn to do next (:func:`lay`).
LAY_ON, LAY_OUT, LAY_DISCARD = 0, 1, 2


@kernel(inline="always")
def begin_turn(rules, g, st, seat):
    """Begin the turn of ``seat``, the seat to move; returns ``TURN_NEXT`` once begun.

    ``TURN_CAP`` when the round reached ``turn_cap``, ``TURN_CLOSED`` when
    the contrat table is closed: the round stops before the turn.
    """
    if g[G_TURN] >= rules.turn_cap:
        return TURN_CAP
    if rules.game == GAME_CONTRAT and table_closed(rules, g, st.seats):
        return TURN_CLOSED
    st.seats[seat, S_TURNS] += 1
    return TURN_NEXT


@kernel(inline="always")
def draws(rules, g):
    """Whether the turn begins with a draw: not the first turn of a deal whose first player got an extra card."""
    return not (g[G_TURN] == 0 and rules.first_player_extra_card)


@kernel(inline="always")
def take_check(rules, g, ev, st, seat, deck_rng, ws, joker_free):
    """Before the draw: rebuild an empty stock, then ask whether ``seat`` may take the pile's top.

    Returns ``(status, legal, known, cached)``: ``status`` ``TURN_BLOCKED``
    when the stock could not be rebuilt, else ``TURN_NEXT``; the rest as
    :func:`take_status` answers them (not legal with an empty pile).
    ``joker_free``: as for :func:`sim.engine.actions.enumerate_actions`.
    """
    if g[G_STOCK] == 0 and rules.stock_exhausted != STOCK_FLIP:
        if not restock(rules, g, ev, st.stock, st.pile, deck_rng, st.pub):
            return TURN_BLOCKED, False, -1, -1
    if g[G_PILE] == 0:
        return TURN_NEXT, False, -1, -1
    top = st.pile[np.uint64(g[G_PILE] - 1)]
    legal, known, cached = take_status(
        rules, g, seat, top, st.seats[seat, S_OPENED] == 1, st.h_lo[seat], st.h_hi[seat], st.h_jk[seat],
        st.h_n[seat], st.table, st.takes, st.c_mask, st.c_info, st.s_mask, st.s_info, st.open_sel, st.open_n,
        st.act, st.facts, st.r_mask, st.r_info, ws, joker_free,
    )
    return TURN_NEXT, legal, known, cached


@kernel(inline="always")
def decide_take(rules, g, st, seat, kinds, params, policy_rng, known):
    """Whether ``seat``'s policy takes the pile's top (taking it is legal).

    ``known``: whether the card sits in a meld of the hand, as the take
    check found it (1 or 0), or -1 when it did not need to find out.
    """
    lo, jk = st.h_lo[seat], st.h_jk[seat]
    top = st.pile[np.uint64(g[G_PILE] - 1)]
    if known >= 0:
        completes = known == 1
    else:
        completes = card_completes(lo, jk, top, rules)
    table_mask, joker_fits = table_accepts(g)
    on_table = joker_fits if top == JOKER else (table_mask & bit(top)) != ZERO
    can_add = st.seats[seat, S_OPENED] == 1 or rules.add_before_opening
    kind = kinds[seat]
    par = params[seat]
    if take_reads_view(kind, par):
        fill_view(rules, g, st.seats, st.h_n, st.h_jk, seat, st.obs)
    return choose_take(kind, par, policy_rng, seat, top, completes, can_add and on_table, lo, st.h_hi[seat],
                       st.pub, st.obs)


@kernel(inline="always")
def take_top(g, ev, st, seat):
    """``seat`` takes the pile's top; returns its code."""
    # The turn's steps index the pile, the stock and the public counts at
    # unsigned positions and codes: numba tests a signed index for counting
    # from the end, which these never do.
    taken = st.pile[np.uint64(g[G_PILE] - 1)]
    g[G_PILE] -= 1
    st.pub[PUB_PILE, np.uint64(taken)] -= 1
    st.pub[PUB_TOOK + seat, np.uint64(taken)] += 1
    take_card(st.h_lo, st.h_hi, st.h_jk, st.h_n, seat, taken)
    st.seats[seat, S_TAKES] += 1
    record_event(ev, g, EV_DRAW, g[G_ROUND], seat, 1, taken, 0, 0, 0, 0, 0, 0, 0)
    return taken


@kernel(inline="always")
def draw_stock(rules, g, ev, st, seat):
    """``seat`` draws from the stock (basic rummy turns the pile over first when it is empty).

    Returns ``(status, code)``: ``TURN_BLOCKED`` when there is nothing to
    draw, ``TURN_CYCLE`` when deterministic players came back to a position
    they had at an earlier turning of the pile (the round would never end),
    else ``TURN_NEXT`` and the card drawn. Then, when the rules have it,
    the other seats may say "Puis-je ?" (:func:`may_i`).
    """
    if g[G_STOCK] == 0:
        if g[G_PILE] == 0:
            return TURN_BLOCKED, -1
        flip_pile(g, ev, st.stock, st.pile, st.pub)
        if g[G_DETERMINISTIC]:
            # Deterministic players back at a position seen at an earlier
            # turning would replay it forever.
            h = position_hash(rules, g, st.h_lo, st.h_hi, st.h_jk, st.seats, st.table, st.stock, st.pile)
            for i in range(min(g[G_NFLIPS], MAX_FLIPS)):
                if st.flips[i] == h:
                    return TURN_CYCLE, -1
            if g[G_NFLIPS] < MAX_FLIPS:
                st.flips[g[G_NFLIPS]] = h
            g[G_NFLIPS] += 1
    g[G_STOCK] -= 1
    code = st.stock[np.uint64(g[G_STOCK])]
    take_card(st.h_lo, st.h_hi, st.h_jk, st.h_n, seat, code)
    record_event(ev, g, EV_DRAW, g[G_ROUND], seat, 0, code, 0, 0, 0, 0, 0, 0, 0)
    return TURN_NEXT, code


@kernel(inline="always")
def laying_starts(rules, st, seat, taken, drawn):
    """``(pending, hint)`` for the laying after the draw.

    ``pending``: the card taken while ``must_use`` still requires laying it
    (-1 if none). ``hint``: the card drawn when the hand before it could
    not open (and the threshold never falls), so that an opening now must
    use it (-1 if none).
    """
    pending = taken if (taken >= 0 and rules.discard_take == TAKE_MUST_USE) else -1
    hint = drawn if (st.seats[seat, S_NO_OPEN] and drawn >= 0) else -1
    return pending, hint


@kernel(inline="always")
def list_layings(rules, g, st, ws, seat, taken, pending, hint, cached, joker_free):
    """The legal laying actions of ``seat`` now, into ``st.act[:n]``; returns ``n``.

    ``cached`` >= 0: the take check already listed these ``cached`` actions
    of this very hand. A seat that has not opened remembers whether it
    could (``S_NO_OPEN``). ``joker_free``: as for :func:`enumerate_actions`.
    """
    opened = st.seats[seat, S_OPENED] == 1
    if cached >= 0:
        n_act = cached
    else:
        n_act = enumerate_actions(
            rules, g, seat, st.h_lo[seat], st.h_hi[seat], st.h_jk[seat], st.h_n[seat], opened, taken, pending,
            hint, st.table, st.takes, st.c_mask, st.c_info, st.s_mask, st.s_info, st.open_sel, st.open_n, st.act,
            st.facts, st.r_mask, st.r_info, ws, joker_free,
        )
    if n_act > 0 and not opened:
        can_open = False
        for j in range(n_act):
            if st.act[j, A_TYPE] == ACT_OPEN:
                can_open = True
        st.seats[seat, S_NO_OPEN] = 0 if can_open else 1
    return n_act


@kernel(inline="always")
def decide_action(rules, g, st, seat, kinds, params, policy_rng, n_act):
    """The index of the laying action ``seat``'s policy plays among ``st.act[:n_act]``."""
    fill_view(rules, g, st.seats, st.h_n, st.h_jk, seat, st.obs)
    return choose_action(kinds[seat], params[seat], policy_rng, seat, st.act, st.facts, n_act, st.obs,
                         st.h_lo[seat], st.h_hi[seat], st.h_jk[seat], st.pub)


@kernel(inline="always")
def lay(rules, g, ev, st, seat, a, pending):
    """Play laying action ``a`` of ``st.act``; returns ``(pending, next)``.

    ``pending`` is the card still to lay afterwards; ``next`` is ``LAY_ON``
    (list the layings again), ``LAY_OUT`` (the hand is empty: the seat went
    out) or ``LAY_DISCARD`` (the seat stopped, or laid its whole hand but the
    card it throws).
    """
    if st.act[a, A_TYPE] == ACT_STOP:
        return pending, LAY_DISCARD
    laid_mask, laid_joker = apply_action(rules, g, ev, st, seat, a)
    if pending >= 0:
        if (pending == JOKER and laid_joker) or (pending < JOKER and (laid_mask & bit(pending))):
            pending = -1
    if st.h_n[seat] == 0:
        record_event(ev, g, EV_OUT, g[G_ROUND], seat, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        return pending, LAY_OUT
    if st.act[a, A_TYPE] == ACT_OPEN and st.act[a, A_P1] == 1:
        return pending, LAY_DISCARD  # the whole hand but one card is down: that card is the discard
    return pending, LAY_ON


@kernel(inline="always")
def list_discards(rules, g, st, seat, taken):
    """The cards ``seat`` may throw into ``st.d_legal[:n]`` (:func:`legal_discards`); returns ``n``."""
    return legal_discards(rules, g, st.h_lo[seat], st.h_jk[seat], taken, st.seats[seat, S_OPENED] == 1, st.c_mask,
                          st.c_info, st.d_legal, st.d_penalty, st.d_fits)


@kernel(inline="always")
def decide_discard(rules, g, st, seat, kinds, params, policy_rng, n):
    """The card ``seat``'s policy throws among ``st.d_legal[:n]``."""
    fill_view(rules, g, st.seats, st.h_n, st.h_jk, seat, st.obs)
    table_mask, joker_fits = table_accepts(g)
    return choose_discard(kinds[seat], params[seat], policy_rng, seat, st.d_legal, n, st.d_penalty, st.d_fits,
                          st.obs, st.h_lo[seat], st.h_hi[seat], st.pub, table_mask, joker_fits)


@kernel(inline="always")
def throw(g, ev, st, seat, code):
    """``seat`` throws ``code`` onto the pile; returns ``TURN_OUT`` if its hand is empty, else ``TURN_NEXT``."""
    drop_card(st.h_lo, st.h_hi, st.h_jk, st.h_n, seat, code)
    st.pile[np.uint64(g[G_PILE])] = code
    g[G_PILE] += 1
    st.pub[PUB_PILE, np.uint64(code)] += 1
    record_event(ev, g, EV_DISCARD, g[G_ROUND], seat, code, 0, 0, 0, 0, 0, 0, 0, 0)
    if st.h_n[seat] == 0:
        record_event(ev, g, EV_OUT, g[G_ROUND], seat, 1, 0, 0, 0, 0, 0, 0, 0, 0)
        return TURN_OUT
    g[G_TURN] += 1
    return TURN_NEXT


@kernel(inline="always")
def play_turn(rules, g, ev, st, seat, kinds, params, policy_rng, deck_rng, ws):
    """Play the turn of ``seat``, the seat to move, on the round state ``st``: draw, lay, discard.

    Each step is a function of its own, which :mod:`sim.engine.position`
    plays one decision at a time; here the seat's policy answers at once.
    ``seat`` is ``(g[G_FIRST] + g[G_TURN]) % players``, kept by the caller
    from turn to turn: a division at every turn was a few percent of a
    round's time.

    Returns ``TURN_NEXT`` (the next seat moves), ``TURN_OUT`` (the seat went
    out: ``g[G_TURN]`` stays on its turn), ``TURN_BLOCKED`` (the stock could
    not be rebuilt), ``TURN_CAP`` (the round reached ``turn_cap``),
    ``TURN_CYCLE`` (deterministic players came back to a position they had
    at an earlier turning of the pile: the round would never end) or
    ``TURN_CLOSED`` (the contrat table takes no more cards).
    """
    # A seat the compiler can bound (0 .. 255, a no-op on a seat): numba
    # tests every signed array index for counting from the end, and the
    # turn's steps index a dozen arrays by seat; bounded, those tests go.
    seat = seat & 0xFF
    status = begin_turn(rules, g, st, seat)
    if status != TURN_NEXT:
        return status
    kind = kinds[seat]
    par = params[seat]
    # The listings leave out what the policy never plays (the same choice
    # either way): Rami 51's joker-free opening.
    joker_free = rules.game != GAME_RAMI51 or lists_joker_free(kind, par)
    taken = -1
    drawn = -1
    cached = -1
    if draws(rules, g):
        status, legal, known, cached = take_check(rules, g, ev, st, seat, deck_rng, ws, joker_free)
        if status != TURN_NEXT:
            return status
        if legal and decide_take(rules, g, st, seat, kinds, params, policy_rng, known):
            taken = take_top(g, ev, st, seat)
            drawn = taken
        else:
            status, drawn = draw_stock(rules, g, ev, st, seat)
            if status != TURN_NEXT:
                return status
            if rules.may_i:
                may_i(rules, g, ev, st, seat, kinds, params, policy_rng)

    pending, hint = laying_starts(rules, st, seat, taken, drawn)
    # The take check already listed the actions of this very hand.
    reuse = cached if taken >= 0 else -1
    while True:
        opened = st.seats[seat, S_OPENED] == 1
        if reuse < 0 and pending < 0 and stops_unlisted(kind, rules, g, st.h_lo[seat], st.h_jk[seat], opened):
            # The policy stops unasked, and the listing would find stopping
            # alone: it is not made (what it would leave is set here).
            g[G_NCAND] = 0
            if not opened:
                st.seats[seat, S_NO_OPEN] = 1
            break
        n_act = list_layings(rules, g, st, ws, seat, taken, pending, hint, reuse, joker_free)
        reuse = -1
        if n_act == 0:
            break  # cannot happen while a pending card had a legal laying
        if n_act == 1 and st.act[0, A_TYPE] == ACT_STOP and stops_unasked(kind):
            break
        a = decide_action(rules, g, st, seat, kinds, params, policy_rng, n_act)
        pending, after = lay(rules, g, ev, st, seat, a, pending)
        if after == LAY_OUT:
            return TURN_OUT
        if after == LAY_DISCARD:
            break

    # Discarding: a policy that needs no listing (nor view) answers first.
    code = discard_unlisted(kind, par, rules, g, st.h_lo[seat], st.h_jk[seat], taken,
                            st.seats[seat, S_OPENED] == 1, st.c_mask, st.c_info)
    if code < 0:
        code = decide_discard(rules, g, st, seat, kinds, params, policy_rng, list_discards(rules, g, st, seat, taken))
    return throw(g, ev, st, seat, code)


@kernel(forceinline=True)
def take_status(rules, g, seat, top, opened, lo, hi, jk, n_hand, table, takes,
                 c_mask, c_info, s_mask, s_info, open_sel, open_n, act, facts, r_mask, r_info, ws, joker_free):
    """``(legal, completes, n_act)``: may ``seat`` take the discard top.

    ``joker_free``: as for :func:`sim.engine.actions.enumerate_actions`.
    ``completes`` is whether the card sits in a meld of the hand (1 or 0),
    or -1 when the check did not need to find out: the turn asks the same
    for its take decision, and computes it only when it is -1.
    Under ``must_use`` the check enumerates the laying actions of the hand
    with the card; ``n_act`` is their count (left in ``act``), which the
    laying phase reuses when the card is taken; -1 when not enumerated.
    """
    if rules.discard_take == TAKE_AFTER_OPENING and not opened:
        return False, -1, -1
    # A card of another code must stay for the discard (docs/rules.md item 12).
    if top == JOKER:
        if (lo | hi) == ZERO:
            return False, -1, -1
    elif (lo & ~bit(top)) == ZERO and jk == 0:
        return False, -1, -1
    can_add = opened or rules.add_before_opening
    table_mask, joker_fits = table_accepts(g)
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
        useful = card_completes(lo, jk, top, rules)
        completes = 1 if useful else 0
    if rules.discard_take == TAKE_MUST_USE:
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
            if (not maybe and holds_recovery and rules.game != GAME_CONTRAT
                    and card_in_meld(lo, jk + 1, top, rules.min_run, rules.ace_high)):
                maybe = True
        if not maybe:
            return False, completes, -1
        # Legal only if some laying of this turn can use it.
        n_act = enumerate_actions(rules, g, seat, tlo, thi, tjk, n_hand + 1, opened, top, top, -1, table, takes,
                                  c_mask, c_info, s_mask, s_info, open_sel, open_n, act, facts, r_mask, r_info, ws,
                                  joker_free)
        return n_act > 0, completes, n_act
    return True, completes, -1


@kernel(inline="always")
def legal_discards(rules, g, lo, jk, taken, opened, c_mask, c_info, legal, penalty, fits):
    """The cards the hand may throw (:func:`sim.engine.actions.discard_mask`) into ``legal[:n]``, naturals by code
    then the joker, with their penalty and whether each fits (:func:`sim.engine.actions.discard_fits`); returns
    ``n``."""
    mask, joker = discard_mask(rules, g, lo, jk, taken)
    fit = discard_fits(rules, g, lo, jk, opened, c_mask, c_info)
    n = 0
    x = mask
    joker_next = joker
    while True:
        code, x, joker_next = next_card(x, joker_next)
        if code < 0:
            break
        legal[n] = code
        penalty[n] = card_penalty(code, rules)
        fits[n] = code == JOKER or (fit & bit(code)) != ZERO
        n += 1
    return n
