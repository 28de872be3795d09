"""The best collection of disjoint melds of a hand, exactly: an opening's points or the most cards laid.

:func:`search` picks disjoint candidates of a hand (listed by
:func:`sim.engine.hand_melds.enumerate_melds`) that maximise the opening
points or the cards laid, exactly, as :func:`sim.rules.best_collection`
does slowly: a depth-first branch and bound over the hand's cards, lowest
card first, with bounds on what the cards left can still be worth
(:func:`_bound` and the tighter second bound of :func:`_joker_extra`). A
collection that must hold a given card (the one just drawn) is searched
from the melds holding it. :func:`opening_bound` bounds a hand's opening
without listing its melds, so that most hands skip the search.
:func:`workspace` makes the scratch the searches (this one and
:mod:`sim.engine.contract_search`) reuse from call to call.
"""

from __future__ import annotations

import numpy as np

from sim.engine.bits import (
    JOKER,
    ONE,
    RANK_CARDS,
    SUIT_MASKS,
    ZERO,
    bit,
    cards_value,
    lowest,
    popcount,
    rank_of,
    rank_value,
    remove_card,
    remove_mask,
    suit_ranks,
)
from sim.engine.hand_melds import (
    I_JOKER,
    I_KIND,
    I_POINTS,
    I_SIZE,
    KIND_RUN,
    MAX_CANDIDATES,
    N_INFO,
    enumerate_melds,
    run_cards,
)
from sim.engine.jit import entry, kernel

NO_MELD = -3  # the end of a chain of candidates in the meld search (see _group)
# The forced search's order of melds (see search): a key per meld, its index
# in the low bits and what its bound falls short of MAX_BOUND above them.
ORDER_BITS = (MAX_CANDIDATES - 1).bit_length()
ORDER_MASK = (1 << ORDER_BITS) - 1
MAX_BOUND = 1 << 20  # above any bound: at most 108 cards of 11 points


@kernel
def opening_bound(lo, hi, jk, min_run, ace_high):
    """An upper bound on the opening points of any disjoint melds of the hand ``(lo, hi, jk)``, without listing them.

    A meld without joker lies within the cards ``u`` that some meld without
    joker holds, each physical card of them counted once at most. A meld
    with a joker (one joker a meld, so at most ``jk`` such melds) adds at
    most its joker and its naturals outside ``u``, which all lie in one suit
    (a run, among the cards some run with a joker holds) or one rank (a
    set). So the points are at most the value of ``u``'s cards (both copies)
    plus ``jk`` times the most one meld with a joker can add that way.
    """
    r0, r1, r2, r3 = suit_ranks(lo, 0), suit_ranks(lo, 1), suit_ranks(lo, 2), suit_ranks(lo, 3)
    three = (r0 & r1 & r2) | (r0 & r1 & r3) | (r0 & r2 & r3) | (r1 & r2 & r3)
    u = run_cards(lo, min_run, ace_high, False) | (lo & (np.uint64(three) * RANK_CARDS))
    bound = cards_value(lo & u) + cards_value(hi & u)
    if jk == 0:
        return bound
    # A joker in a run stands for a position worth at most an ace laid high;
    # in a set, for its rank.
    joker_value = 11 if ace_high else 10
    extra = 0
    runs = run_cards(lo, min_run, ace_high, True)
    outside = runs & ~u
    for suit in range(4):
        if runs & SUIT_MASKS[suit]:
            extra = max(extra, joker_value + cards_value(outside & SUIT_MASKS[suit]))
    two = (r0 & r1) | (r0 & r2) | (r0 & r3) | (r1 & r2) | (r1 & r3) | (r2 & r3)
    loose = lo & ~u
    while two:
        rank = lowest(two) + 1
        two &= two - 1
        outside_suits = popcount(loose & (RANK_CARDS << np.uint64(rank - 1)))
        extra = max(extra, rank_value(rank) * (1 + outside_suits))
    return bound + jk * extra


@kernel
def _card_value(code):
    # The most a natural card can add to an opening: an ace can be 11.
    return rank_value(rank_of(code))


@kernel(constants=("objective",))
def _bound(lo, hi, jk, objective):
    if objective == 1:
        return popcount(lo) + popcount(hi) + jk
    return 11 * jk + cards_value(lo) + cards_value(hi)


@kernel(constants=("objective",), forceinline=True)
def _root_bounds(lo, hi, jk, objective, card_limit, u0, extra):
    """``(bound, second bound)`` on what :func:`_search` can find in the hand ``(lo, hi, jk)`` of its useful cards.

    ``bound`` is the smaller of :func:`_bound` and the second bound (see
    :func:`_joker_extra`), which counts a joker's cards once; the search
    starts from both. For cards laid, ``bound`` is :func:`_bound` at most
    ``card_limit``, and the second bound (points) is not needed: 0.
    """
    bound = _bound(lo, hi, jk, objective)
    if objective == 1:
        return min(bound, card_limit), 0  # (the second bound counts points: unused for cards laid)
    bound0 = cards_value(lo & u0) + cards_value(hi & u0) + jk * extra
    return min(bound, bound0), bound0


@kernel(constants=("objective", "need_natural"))
def search(lo, hi, jk, n, c_mask, c_info, objective, need_natural, forced, card_limit, target, out, ws):
    """The best collection of disjoint candidates, exactly; see :func:`_search`.

    A collection that must use card ``forced`` is searched from the melds
    holding that card: each is laid first, then the rest of the hand is
    searched freely. Few melds hold a given card, so this is far quicker
    than searching everything and discarding what misses it. The melds are
    tried richest bound first, with ties resolved as trying them in listing
    order would: the collection found is the same either way.
    """
    # Settle what needs no search first: most hands a turn looks at hold no
    # candidate, or none with the forced card, or too few useful points.
    if n == 0:
        # (what the searches below return for no candidate at all)
        return (0, 0) if forced < 0 and target <= 0 and not need_natural else (-1, 0)
    useful, joker_useful, natural = _fitting(lo, jk, n, c_mask, c_info)
    if target > 0:
        # A collection is worth at most _bound of the useful cards it holds,
        # so when all of them together fall short, nothing qualifies.
        bound = _bound(lo & useful, hi & useful, jk if joker_useful else 0, objective)
        if objective == 1 and bound > card_limit:
            bound = card_limit
        if bound < target:
            return -1, 0
    u0 = ZERO
    extra = 0
    if objective == 0:
        # A tighter bound on hands with a joker (see _joker_extra), for
        # this hand and for every rest the searches below leave.
        u0 = natural
        extra = _joker_extra(lo, jk if joker_useful else 0, n, c_mask, c_info, u0)
        if target > 0 and cards_value(lo & u0) + cards_value(hi & u0) + (jk if joker_useful else 0) * extra < target:
            return -1, 0
    if forced < 0:
        _group(n, c_mask, c_info, lo & useful, ws, u0)
        return _search(lo, hi, jk, n, c_mask, c_info, objective, need_natural, card_limit, target, out, ws,
                       useful, joker_useful, u0, extra)
    # The melds holding the forced card, each with a bound on what it and
    # the best rest of the hand can be worth, are searched richest bound
    # first: the best opening is then found early, and its value prunes the
    # rests searched after it, most of them at once. Ties still go to the
    # lowest candidate index, as in index order: a rest whose meld comes
    # before the best one's is searched for a collection worth as much.
    order = ws[0][0]  # key per meld: the bound, decreasing, then the index (see below)
    n_order = 0
    for k in range(n):
        joker = c_info[k, I_JOKER]
        m = c_mask[k]
        if forced == JOKER:
            if not joker:
                continue
        elif not (m & bit(forced)):
            continue
        if joker > jk or (m & ~lo) != ZERO:
            continue
        size = c_info[k, I_SIZE]
        if size > card_limit:
            continue
        nlo, nhi = remove_mask(lo, hi, m)
        # The rest's second bound (see _root_bounds) for points, its cards for
        # cards laid: the smaller bound _root_bounds gives cost more to reckon
        # than it saved (Rami 51 1% more instructions a round).
        if objective == 0:
            bound = c_info[k, I_POINTS] + cards_value(nlo & u0) + cards_value(nhi & u0) + (jk - joker) * extra
        else:
            bound = size + min(popcount(nlo) + popcount(nhi) + jk - joker, card_limit - size)
        # A rest that cannot bring what this meld needs is not searched.
        if bound < target:
            continue
        key = ((MAX_BOUND - bound) << ORDER_BITS) | k
        i = n_order
        while i > 0 and order[i - 1] > key:
            order[i] = order[i - 1]
            i -= 1
        order[i] = key
        n_order += 1
    if n_order == 0:
        return -1, 0
    grouped = False
    sub = ws[1][8]
    best = -1
    best_k = n
    n_best = 0
    for i in range(n_order):
        key = order[i]
        k = key & ORDER_MASK
        bound = MAX_BOUND - (key >> ORDER_BITS)
        if bound < best or (bound == best and k > best_k):
            break  # the later melds' bounds are no higher
        joker = c_info[k, I_JOKER]
        size = c_info[k, I_SIZE]
        value = c_info[k, I_POINTS] if objective == 0 else size
        nlo, nhi = remove_mask(lo, hi, c_mask[k])
        natural_run = c_info[k, I_KIND] == KIND_RUN and joker == 0
        # A meld listed before the best one's needs a rest only worth as much; one listed after it, more.
        least = max(target, best if (k < best_k and best >= 0) else best + 1)
        # The rest of the hand is searched with only the cards that melds
        # still fitting it use: a tighter bound, so most rests are settled
        # at once.
        rest_useful, rest_joker_useful, _ = _fitting(nlo, jk - joker, n, c_mask, c_info)
        # Most rests of an opening are settled by the search's first bound:
        # checked here, so that the candidates are chained only when some
        # rest is searched.
        rest_bound, _ = _root_bounds(nlo & rest_useful, nhi & rest_useful, (jk - joker) if rest_joker_useful else 0,
                                     objective, card_limit - size, u0, extra)
        if rest_bound < least - value:
            continue  # the rest's search would stop at once, finding nothing worth that (least - value > 0)
        if not grouped:
            # Chained only for a rest that is searched (see _group).
            _group(n, c_mask, c_info, lo & useful, ws, u0)
            grouped = True
        rest, n_rest = _search(nlo, nhi, jk - joker, n, c_mask, c_info, objective,
                               need_natural and not natural_run, card_limit - size,
                               least - value, sub, ws, rest_useful, rest_joker_useful, u0, extra)
        if rest >= 0 and rest + value >= least:
            best = rest + value
            best_k = k
            out[0] = k
            for j in range(n_rest):
                out[1 + j] = sub[j]
            n_best = 1 + n_rest
    if best < 0:
        return -1, 0
    return best, n_best


@kernel
def _fitting(lo, jk, n, c_mask, c_info):
    """``(mask of the cards, whether a joker, mask of the cards without joker)`` that the candidates fitting the
    hand ``(lo, jk)`` use: all of them, and those without joker (see :func:`_joker_extra`).

    A card outside the first mask can only stay in hand: leaving it out of a
    search changes no collection found, and tightens the search's bound.
    """
    useful = ZERO
    natural = ZERO
    joker_useful = False
    for k in range(n):
        m = c_mask[k]
        joker = c_info[k, I_JOKER]
        # No branch on whether the candidate fits (unpredictable): its mask
        # is kept through an all-ones or all-zeros word.
        fits = ((m & ~lo) == ZERO) & (joker <= jk)
        kept = m & (ZERO - np.uint64(fits))
        useful |= kept
        joker_useful |= fits & (joker != 0)
        natural |= kept & (ZERO - np.uint64(joker == 0))
    return useful, joker_useful, natural


@kernel
def _joker_extra(lo, jk, n, c_mask, c_info, u):
    """``extra``, for a second bound on the opening points of the hand ``(lo, jk)`` and of any part of it.

    ``u`` is the mask of the cards that the candidates without joker fitting
    the hand hold (from :func:`_fitting`), ``extra`` the most points a candidate with a joker fitting
    it counts beyond its naturals in ``u`` (0 when none fits). A part of the
    hand fits no candidate the whole hand does not, so any disjoint
    candidates of it are worth at most the values (:func:`cards_value`) of
    its cards in ``u``, both copies, plus ``extra`` for each joker: the
    candidates without joker hold only cards of ``u``, and each one with a
    joker (one joker each) adds at most ``extra`` to the value of its
    naturals in ``u``. Unlike :func:`_bound`, the cards that only a joker
    makes useful count once per joker, not each.
    """
    extra = 0
    if jk > 0:
        for k in range(n):
            m = c_mask[k]
            if c_info[k, I_JOKER] == 1 and (m & ~lo) == ZERO:
                extra = max(extra, c_info[k, I_POINTS] - cards_value(m & u))
    return extra


@kernel
def _group(n, c_mask, c_info, cards, ws, u0):
    """Chain the candidates by their lowest natural card, for :func:`_search`.

    The search settles the hand's lowest card first, either left in hand or
    in a meld it heads, so it looks candidates up by lowest card: the chain
    of card ``c`` starts at ``ws[0][2][c]`` and goes on through
    ``ws[0][1][k]`` from candidate ``k`` to the next one, in candidate order,
    ending at ``NO_MELD``. Only the chains of the cards of mask ``cards``
    are started (the search meets no other lowest card; the links written
    for other cards are never followed): a handful of stores where a sort
    over every card code cost more than the search on most hands. ``ws[0][4][k]`` receives what candidate ``k`` takes off
    :func:`_bound` of the opening points when laid, ``ws[0][3][k]`` the value
    of its naturals in ``u0`` (what it takes off the bound of
    :func:`_joker_extra`, with ``extra`` for its joker). Done once per
    :func:`search`, however many searches it runs on the same candidates.
    """
    wc = ws[0]
    nxt = wc[1]
    head = wc[2]
    value = wc[4]
    value0 = wc[3]
    x = cards
    while x:
        head[lowest(x)] = NO_MELD
        x &= x - ONE
    for k in range(n - 1, -1, -1):
        # The most candidate k's cards could add to an opening (see _bound).
        x = c_mask[k]
        low = lowest(x)
        whole = cards_value(x)
        value[k] = 11 * np.int64(c_info[k, I_JOKER]) + whole
        # A candidate within u0 (each one without joker that fits the hand) counts all its naturals there.
        value0[k] = whole if (x & ~u0) == ZERO else cards_value(x & u0)
        nxt[k] = head[low]
        head[low] = k


@kernel(constants=("objective",))
def _greedy_value(lo, hi, jk, n, c_mask, c_info, objective, need_natural, card_limit):
    """The value of disjoint candidates picked richest first (a natural run
    first when ``need_natural``); -1 when ``need_natural`` finds none."""
    total = 0
    used = 0
    need = need_natural
    while True:
        pick = -1
        pick_value = 0
        for k in range(n):
            joker = c_info[k, I_JOKER]
            size = c_info[k, I_SIZE]
            if (c_mask[k] & ~lo) != ZERO or joker > jk or used + size > card_limit:
                continue
            if need and (joker or c_info[k, I_KIND] != KIND_RUN):
                continue
            value = c_info[k, I_POINTS] if objective == 0 else size
            if value > pick_value:
                pick = k
                pick_value = value
        if pick < 0:
            return -1 if need else total
        lo, hi = remove_mask(lo, hi, c_mask[pick])
        jk -= c_info[pick, I_JOKER]
        used += c_info[pick, I_SIZE]
        total += pick_value
        need = False


@kernel(constants=("objective",))
def _search(lo, hi, jk, n, c_mask, c_info, objective, need_natural, card_limit, target, out, ws, useful,
            joker_useful, u0, extra):
    """The best collection of disjoint candidates, exactly.

    Parameters
    ----------
    lo, hi, jk : uint64, uint64, int
        The hand.
    n, c_mask, c_info : int, uint64[:], int32[:, N_INFO]
        Candidates from :func:`enumerate_melds` for this hand.
    objective : int
        0: opening points; 1: cards laid.
    need_natural : bool
        Only collections holding a run without joker qualify.
    card_limit : int
        Most cards the collection may hold.
    target : int
        Only collections worth at least this much qualify.
    out : int64[:]
        Receives the chosen candidates' indices.
    ws : tuple
        Scratch arrays from :func:`workspace`, reused across calls, holding
        the candidates chained by :func:`_group`.
    useful, joker_useful : uint64, bool
        What :func:`_fitting` returns for this hand.
    u0, extra : uint64, int
        The cards without joker :func:`_fitting` finds, and what :func:`_joker_extra` returns, for this hand or any hand
        holding it (objective 0; unused for objective 1): a second bound,
        kept beside :func:`_bound` as cards are settled, and the smaller of
        the two prunes. Any upper bound prunes only branches that cannot
        beat the best found so far, so the collection found is the same.

    Returns
    -------
    (int, int)
        The best value (-1 if nothing qualifies) and how many candidates of
        ``out`` make it.
    """
    # Only cards that some candidate uses can be laid: drop the others.
    lo = lo & useful
    hi = hi & useful
    if not joker_useful:
        jk = 0
    # Nothing to find when even every useful card together is not enough.
    root_bound, root_bound0 = _root_bounds(lo, hi, jk, objective, card_limit, u0, extra)
    if root_bound < target or n == 0:
        if target <= 0 and not need_natural:
            return 0, 0
        return -1, 0

    # Candidates chained by their lowest natural card (see _group).
    wc, wf, wu = ws
    nxt = wc[1]
    head = wc[2]
    cand_value = wc[4]
    cand_value0 = wc[3]
    f_bound0 = wf[9]

    f_lo = wu[0]
    f_hi = wu[1]
    f_jk = wf[0]
    f_nat = wf[1]
    # The bound of each frame's hand, kept as the hand loses cards: it is
    # additive over cards, so no frame walks its hand to compute it.
    f_bound = wf[2]
    f_used = wf[3]
    f_val = wf[4]
    f_iter = wf[5]
    f_choice = wf[6]

    # Without a target, a collection picked greedily (the richest meld that
    # still fits, again and again) starts the search off with something to
    # beat, so that poorer branches are cut at once. The first collection of
    # the best value in search order is still the one found: until it is
    # reached, everything recorded is worth less. With a target (an opening
    # threshold) the target alone cuts as much on the hands a round meets,
    # and the greedy pass cost more than it saved (measured on the
    # searches of Rami 51 rounds).
    if target > 0:
        best = target - 1
    else:
        best = max(target, _greedy_value(lo, hi, jk, n, c_mask, c_info, objective, need_natural, card_limit)) - 1
    n_best = 0
    found = False
    d = 0
    f_lo[0] = lo
    f_hi[0] = hi
    f_jk[0] = jk
    f_bound[0] = _bound(lo, hi, jk, objective)
    f_bound0[0] = root_bound0
    f_nat[0] = 1 if need_natural else 0
    f_used[0] = 0
    f_val[0] = 0
    f_iter[0] = -2
    while d >= 0:
        clo = f_lo[d]
        it = f_iter[d]
        if it == -2:
            # A new node: a leaf when no natural is left, else prune or expand.
            if clo == ZERO:
                if not f_nat[d] and f_val[d] > best:
                    best = f_val[d]
                    found = True
                    n_best = 0
                    for e in range(d):
                        if f_choice[e] >= 0:
                            out[n_best] = f_choice[e]
                            n_best += 1
                d -= 1
                continue
            room = card_limit - f_used[d]
            bound = f_bound[d]
            if objective == 1 and bound > room:
                bound = room
            if objective == 0 and f_bound0[d] < bound:
                bound = f_bound0[d]
            if f_val[d] + bound <= best:
                d -= 1
                continue
            f_iter[d] = -1
            it = -1
        c = lowest(clo)
        if it == -1:
            f_iter[d] = head[c]
            # Leave one copy of c in hand.
            nlo, nhi = remove_card(clo, f_hi[d], c)
            f_choice[d] = -1
            e = d + 1
            f_lo[e] = nlo
            f_hi[e] = nhi
            f_jk[e] = f_jk[d]
            f_bound[e] = f_bound[d] - (1 if objective == 1 else _card_value(c))
            f_bound0[e] = f_bound0[d] - (_card_value(c) if (u0 & bit(c)) != ZERO else 0)
            f_nat[e] = f_nat[d]
            f_used[e] = f_used[d]
            f_val[e] = f_val[d]
            f_iter[e] = -2
            d = e
            continue
        if it != NO_MELD:
            k = np.uint64(it)  # unsigned: numba tests a signed index for counting from the end
            f_iter[d] = nxt[k]
            m = c_mask[k]
            if (m & ~clo) != ZERO:
                continue
            joker = c_info[k, I_JOKER]
            if joker > f_jk[d]:
                continue
            size = c_info[k, I_SIZE]
            if f_used[d] + size > card_limit:
                continue
            nlo, nhi = remove_mask(clo, f_hi[d], m)
            f_choice[d] = k
            e = d + 1
            f_lo[e] = nlo
            f_hi[e] = nhi
            f_jk[e] = f_jk[d] - joker
            f_bound[e] = f_bound[d] - (size if objective == 1 else cand_value[k])
            f_bound0[e] = f_bound0[d] - cand_value0[k] - joker * extra
            natural_run = c_info[k, I_KIND] == KIND_RUN and joker == 0
            f_nat[e] = 1 if (f_nat[d] and not natural_run) else 0
            f_used[e] = f_used[d] + size
            f_val[e] = f_val[d] + (c_info[k, I_POINTS] if objective == 0 else size)
            f_iter[e] = -2
            d = e
            continue
        d -= 1
    if not found:
        return -1, 0
    return best, n_best


@entry
def workspace():
    """Scratch arrays for :func:`search`: allocate once, reuse for every call.

    ``[0]`` the candidates chained by lowest card and their values
    (:func:`_group`), row 0 the order a forced search tries its melds in; ``[1]`` and ``[2]`` the depth-first search's frames,
    row 7 of ``[1]`` the chosen melds handed to callers, row 8 those of a
    forced card's sub-search, row 9 the frames' second bound. The contract
    search (:mod:`sim.engine.contract_search`) reuses the rows of ``[0]``
    for its lists of melds, row 8 of ``[1]`` for a forced card's sub-search,
    and rows 2 and 3 of ``[2]`` for its melds' masks.
    """
    return (
        np.zeros((5, MAX_CANDIDATES), dtype=np.int64),
        np.zeros((10, 64), dtype=np.int64),
        np.zeros((4, MAX_CANDIDATES), dtype=np.uint64),
    )


@entry
def best_opening_points(lo, hi, jk, min_run, ace_high, need_natural):
    """Exact best opening total of a hand (0 if none), with scratch of its own: the compiled ``best_opening``."""
    c_mask = np.empty(MAX_CANDIDATES, dtype=np.uint64)
    c_info = np.empty((MAX_CANDIDATES, N_INFO), dtype=np.int32)
    out = np.empty(64, dtype=np.int64)
    n = enumerate_melds(lo, jk, min_run, ace_high, c_mask, c_info)
    value, _ = search(lo, hi, jk, n, c_mask, c_info, 0, need_natural, -1, 1000, 0, out, workspace())
    return max(value, 0)
