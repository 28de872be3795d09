"""The contract of a Rami contrat deal that lays the most cards, exactly, and the tests that rule a hand out first.

A contract is exactly so many sets and so many runs, disjoint, from the
candidates :func:`sim.engine.hand_melds.enumerate_melds` lists (deal 7's
contract holds the whole hand). :func:`search_contract` picks them slot by
slot, largest melds first, and returns the contract laying the most cards
(ties to the higher opening value). Most hands a turn asks about hold no
contract: :func:`contract_ruled_out` says so of most of them from their
smallest melds (:func:`_least_melds`) before any candidate is listed. The
scratch is :func:`sim.engine.meld_search.workspace`'s.
"""

from __future__ import annotations

import numpy as np

from sim.engine.bits import (
    JOKER,
    ONE,
    RANK_CARDS,
    SUIT_BITS,
    ZERO,
    bit,
    lowest,
    popcount,
    remove_mask,
    suit_ranks,
    window_mask,
)
from sim.engine.hand_melds import (
    I_JOKER,
    I_KIND,
    I_POINTS,
    I_SIZE,
    KIND_RUN,
    KIND_SET,
    melded_cards,
    run_positions,
    window_starts,
)
from sim.engine.jit import kernel

@kernel(constants=True)
def _contract_slot(k, clo, chi, cjk, c_mask, c_info, forced):
    """Lay candidate ``k`` on the hand ``(clo, chi, cjk)`` if it fits.

    Returns ``(fits, lo, hi, jk, cards, points, uses_forced)``.
    """
    m = c_mask[k]
    joker = c_info[k, I_JOKER]
    if (m & ~clo) != ZERO or joker > cjk:
        return False, clo, chi, cjk, 0, 0, False
    nlo, nhi = remove_mask(clo, chi, m)
    uses = (forced == JOKER and joker == 1) or (0 <= forced < JOKER and (m & bit(forced)) != ZERO)
    return True, nlo, nhi, cjk - joker, c_info[k, I_SIZE], c_info[k, I_POINTS], uses


@kernel
def _contract_melds(n, c_mask, c_info, ws, no_joker=False):
    """List the candidates a contract picks from, once per contract search.

    The sets go to ``ws[0][0]`` and the runs to ``ws[0][1]``, each largest
    first and, among melds of one size, in candidate order, so that good
    contracts come early and the size bounds of :func:`_contract` cut the
    rest of each loop. A counting sort over the sizes (3 .. 14), with the
    counts in ``ws[0][2]``: one pass over the candidates instead of one per
    size, and done once for every sub-search a forced card starts rather
    than in each. Slot ``s`` of ``ws[0][2]`` is left holding how many sets
    have ``s`` cards or more, slot ``16 + s`` how many runs. The listed
    melds' masks go to ``ws[2][2]`` (sets) and ``ws[2][3]`` (runs), in list
    order, with :data:`LEAST_JOKER` marking a joker: :func:`_contract` reads
    them in order and tells whether a meld fits a hand with one mask test.
    With ``no_joker`` (the hand searched holds no joker) only the melds
    without a joker are listed: the others fit no part of the hand, and
    every loop over the lists passes over a meld that does not fit, so the
    same contract is found, sooner. Returns ``(sets listed, runs listed,
    mask of the cards some candidate uses)``.
    """
    wc = ws[0]
    set_idx = wc[0]
    run_idx = wc[1]
    # Slots 0 .. 15 count the sets of each size, 16 .. 31 the runs; they
    # then hold where the next meld of that size goes.
    at = wc[2]
    for i in range(32):
        at[i] = 0
    useful = ZERO
    for k in range(n):
        useful |= c_mask[k]
        if no_joker and c_info[k, I_JOKER]:
            continue
        # Unsigned indices here and below: numba tests a signed one for counting from the end.
        at[np.uint64(c_info[k, I_SIZE] + (0 if c_info[k, I_KIND] == KIND_SET else 16))] += 1
    n_sets = 0
    n_runs = 0
    for size in range(15, -1, -1):
        count_sets = at[size]
        at[size] = n_sets
        n_sets += count_sets
        count_runs = at[size + 16]
        at[size + 16] = n_runs
        n_runs += count_runs
    set_mask = ws[2][2]
    run_mask = ws[2][3]
    for k in range(n):
        if no_joker and c_info[k, I_JOKER]:
            continue
        m = c_mask[k] | (LEAST_JOKER if c_info[k, I_JOKER] else ZERO)
        if c_info[k, I_KIND] == KIND_SET:
            slot = np.uint64(c_info[k, I_SIZE])
            place = np.uint64(at[slot])
            set_idx[place] = k
            set_mask[place] = m
        else:
            slot = np.uint64(c_info[k, I_SIZE] + 16)
            place = np.uint64(at[slot])
            run_idx[place] = k
            run_mask[place] = m
        at[slot] += 1
    return n_sets, n_runs, useful


@kernel
def _suits(lo):
    """How many suits the natural cards ``lo`` hold."""
    suits = 0
    for suit in range(4):
        if (lo >> np.uint64(13 * suit)) & SUIT_BITS:
            suits += 1
    return suits


@kernel
def _holds_disjoint(lo, hi, jk, idx, n_idx, count, c_mask, c_info):
    """Whether the hand can lay ``count`` (0 .. 3) of the melds ``idx[:n_idx]`` at once.

    A meld may be taken twice when the hand holds both copies of its cards,
    as in :func:`_contract`. It stops at the first collection found, so a
    hand that holds one costs little; a hand that holds none, the usual
    case, costs one pass over pairs (or triples) of one kind of meld.
    """
    if count <= 0:
        return True
    for a in range(n_idx):
        fit, lo1, hi1, jk1, _, _, _ = _contract_slot(idx[a], lo, hi, jk, c_mask, c_info, -1)
        if not fit:
            continue
        if count == 1:
            return True
        for b in range(a, n_idx):
            fit, lo2, hi2, jk2, _, _, _ = _contract_slot(idx[b], lo1, hi1, jk1, c_mask, c_info, -1)
            if not fit:
                continue
            if count == 2:
                return True
            for c in range(b, n_idx):
                fit, _, _, _, _, _, _ = _contract_slot(idx[c], lo2, hi2, jk2, c_mask, c_info, -1)
                if fit:
                    return True
    return False


# A least meld's mask marks its joker in bit 63 (natural codes use bits 0 .. 51).
LEAST_JOKER = np.uint64(1) << np.uint64(63)


@kernel
def _least_melds(lo, jk, kind, min_run, ace_high, out):
    """The hand's smallest melds of one ``kind`` into ``out``; returns their count.

    Sets of three suits, or two and a joker; runs of ``min_run`` positions,
    all held, or one of them (held or not) a joker. Each is a candidate of
    :func:`enumerate_melds`, and every candidate of that kind holds one of
    them with no more jokers, so the hand can lay some number of disjoint
    candidates of the kind exactly when it can lay as many of these: the
    check of :func:`_holds_disjoint` without listing every candidate.
    Joker melds carry :data:`LEAST_JOKER` in their mask.
    """
    n = 0
    if kind == KIND_SET:
        r0, r1, r2, r3 = suit_ranks(lo, 0), suit_ranks(lo, 1), suit_ranks(lo, 2), suit_ranks(lo, 3)
        two = (r0 & r1) | (r0 & r2) | (r0 & r3) | (r1 & r2) | (r1 & r3) | (r2 & r3)
        three = (r0 & r1 & r2) | (r0 & r1 & r3) | (r0 & r2 & r3) | (r1 & r2 & r3)
        ranks = two if jk > 0 else three
        while ranks:
            rank = lowest(ranks)
            ranks &= ranks - 1
            # The rank's suits, bit 13 s for suit s, as the cards of rank 1.
            suits = (lo >> np.uint64(rank)) & RANK_CARDS
            sub = ZERO
            while True:
                # The next subset of the rank's suits, in increasing order.
                sub = (sub - suits) & suits
                if sub == ZERO:
                    break
                k = popcount(sub)
                if k == 3 or (k == 2 and jk > 0):
                    m = sub << np.uint64(rank)
                    out[n] = m if k == 3 else m | LEAST_JOKER
                    n += 1
        return n
    # Only the windows of min_run positions that hold every position, or
    # (with a joker) all but one, yield runs: window_starts finds them all
    # at once, suit by suit and by start position, the order a walk over
    # every window would list them in.
    positions = run_positions(lo, ace_high)
    starts = window_starts(positions, min_run, ace_high, jk > 0)
    window = (ONE << np.uint64(min_run)) - ONE
    while starts != ZERO:
        i = lowest(starts)
        starts &= starts - ONE
        suit = i // 14
        start = i - 14 * suit + 1
        end = start + min_run - 1
        missing = window & ~(positions >> np.uint64(i))
        if missing == ZERO:
            out[n] = window_mask(suit, start, end, 0)
            n += 1
            if jk > 0:
                # The joker standing for a card the hand holds frees it.
                for p in range(start, end + 1):
                    out[n] = window_mask(suit, start, end, p) | LEAST_JOKER
                    n += 1
        else:
            # One position missing (only with a joker): the joker's.
            out[n] = window_mask(suit, start, end, start + lowest(missing)) | LEAST_JOKER
            n += 1
    return n


@kernel
def _packs(lo, hi, jk, melds, n_set, run_from, run_to, sets, runs):
    """Whether the hand can lay ``sets`` of the sets ``melds[:n_set]`` and ``runs`` of the runs
    ``melds[run_from:run_to]`` at once (least melds of :func:`_least_melds`; none to three in all).

    The slots are filled sets first, then runs, each slot from its kind's
    melds and, within a kind, from the previous slot's meld on (the same
    meld twice when the hand holds both copies of its cards). One kind alone
    is asked with no meld of the other.
    """
    total = sets + runs
    if total <= 0:
        return True
    start0, end0 = (0, n_set) if sets >= 1 else (run_from, run_to)
    # The melds are read at unsigned indices: the loops start at arguments,
    # which the compiler cannot see are never negative, and numba tests a
    # signed index for counting from the end.
    for a in range(start0, end0):
        ma = melds[np.uint64(a)] & ~LEAST_JOKER
        ja = 1 if melds[np.uint64(a)] & LEAST_JOKER else 0
        if (ma & ~lo) != ZERO or ja > jk:
            continue
        if total == 1:
            return True
        lo1, hi1 = remove_mask(lo, hi, ma)
        jk1 = jk - ja
        start1, end1 = (a, n_set) if sets >= 2 else ((run_from, run_to) if sets == 1 else (a, run_to))
        for b in range(start1, end1):
            mb = melds[np.uint64(b)] & ~LEAST_JOKER
            jb = 1 if melds[np.uint64(b)] & LEAST_JOKER else 0
            if (mb & ~lo1) != ZERO or jb > jk1:
                continue
            if total == 2:
                return True
            lo2, hi2 = remove_mask(lo1, hi1, mb)
            jk2 = jk1 - jb
            start2, end2 = (b, n_set) if sets >= 3 else ((run_from, run_to) if sets == 2 else (b, run_to))
            for c in range(start2, end2):
                mc = melds[np.uint64(c)] & ~LEAST_JOKER
                jc = 1 if melds[np.uint64(c)] & LEAST_JOKER else 0
                if (mc & ~lo2) == ZERO and jc <= jk2:
                    return True
    return False


# Where contract_ruled_out lists the least runs in its scratch: after the
# most least sets a hand can hold (ten a rank: four choices of three suits,
# six of two suits and a joker).
LEAST_RUNS_AT = 130


@kernel
def contract_ruled_out(lo, hi, jk, sets, runs, whole, min_run, ace_high, scratch):
    """Whether :func:`search_contract` finds no contract for a reason seen before listing any candidate.

    With ``whole``, a card in no meld (:func:`melded_cards` is the
    candidates' union) or more suits than runs when there is no set, as the
    search itself tests once the candidates are listed. Then the contract's
    runs alone, its sets alone, and both kinds together, held at once
    (:func:`_least_melds`): every meld of a contract holds a least meld of
    its kind with no more jokers, and least melds are melds, so the hand
    holds some contract, whatever its size, exactly when it holds disjoint
    least melds of the contract's kinds. Most hands asked about are ruled
    out so, and the listing is skipped. ``scratch`` holds the least melds
    (uint64, at least 400 slots: 130 sets from slot 0 and 256 runs from slot
    :data:`LEAST_RUNS_AT`, the runs with a min_run of 7).
    """
    if whole:
        if (lo & ~melded_cards(lo, jk, min_run, ace_high)) != ZERO:
            return True
        if sets == 0 and _suits(lo) > runs:
            return True
    # Each kind alone first (the cheaper tests), runs before sets: most hands
    # asked about a contract with runs lack them (a run needs min_run cards
    # of a suit in a row), and are then ruled out before their sets are
    # listed. Then both kinds together.
    run_to = LEAST_RUNS_AT
    if runs > 0:
        run_to += _least_melds(lo, jk, KIND_RUN, min_run, ace_high, scratch[LEAST_RUNS_AT:])
        if not _packs(lo, hi, jk, scratch, 0, LEAST_RUNS_AT, run_to, 0, runs):
            return True
    if sets > 0:
        n_set = _least_melds(lo, jk, KIND_SET, min_run, ace_high, scratch)
        if not _packs(lo, hi, jk, scratch, n_set, LEAST_RUNS_AT, run_to, sets, 0):
            return True
        if runs > 0 and not _packs(lo, hi, jk, scratch, n_set, LEAST_RUNS_AT, run_to, sets, runs):
            return True
    return False


@kernel(constants=("packed",))
def search_contract(lo, hi, jk, n, c_mask, c_info, sets, runs, whole, forced, card_limit, out, ws, packed=False):
    """The contract of a Rami contrat deal that lays the most cards; see :func:`_contract`.

    A contract that must use card ``forced`` is searched from the melds
    holding that card: each is laid first and the rest of the contract is
    searched freely in what remains, which is far quicker when the card fits
    few melds (the usual case: the card just drawn).

    ``packed`` says that :func:`contract_ruled_out` found this very hand
    not ruled out: it then holds the contract's sets alone and its runs
    alone, which the search need not test again (:func:`_least_melds` gives
    the test's answer exactly).
    """
    if forced >= 0:
        # No candidate holds the card: no contract can use it, and nothing
        # need be listed.
        holds = False
        for k in range(n):
            if (forced == JOKER and c_info[k, I_JOKER] == 1) or (forced < JOKER and (c_mask[k] & bit(forced))):
                holds = True
                break
        if not holds:
            return -1, 0
    if whole:
        # Deal 7 lays every card: a card in no candidate, or more suits than
        # runs when the contract has no set, rules the hand out (whatever
        # meld a forced card goes in first), before any listing.
        useful = ZERO
        for k in range(n):
            useful |= c_mask[k]
        if (lo & ~useful) != ZERO:
            return -1, 0
        if sets == 0 and _suits(lo) > runs:
            return -1, 0
    n_sets, n_runs, useful = _contract_melds(n, c_mask, c_info, ws, jk == 0)
    wc = ws[0]
    set_idx = wc[0]
    run_idx = wc[1]
    # Most searches find no contract (a seat draws many times before it can
    # lay its contract): a hand that cannot hold the contract's sets alone,
    # or its runs alone, cannot hold the contract. Checked once here, not
    # for every meld the search tries first.
    if not packed:
        if not _holds_disjoint(lo, hi, jk, set_idx, n_sets, sets, c_mask, c_info):
            return -1, 0
        if not _holds_disjoint(lo, hi, jk, run_idx, n_runs, runs, c_mask, c_info):
            return -1, 0
    wm = ws[2]
    if forced < 0:
        return _contract(lo, hi, jk, n_sets, n_runs, c_mask, c_info, sets, runs, whole, useful, card_limit, out,
                         wc, wm)
    best_cards = -1
    best_points = 0
    sub = ws[1][8]
    for k in range(n):
        kind = c_info[k, I_KIND]
        if (kind == KIND_SET and sets == 0) or (kind != KIND_SET and runs == 0):
            continue
        fit, lo1, hi1, jk1, cards1, pts1, used = _contract_slot(k, lo, hi, jk, c_mask, c_info, forced)
        if not fit or not used or cards1 > card_limit:
            continue
        rest_sets = sets - (1 if kind == KIND_SET else 0)
        rest_runs = runs - (0 if kind == KIND_SET else 1)
        cards2, pts2 = _contract(lo1, hi1, jk1, n_sets, n_runs, c_mask, c_info, rest_sets, rest_runs, whole,
                                 useful, card_limit - cards1, sub, wc, wm)
        if cards2 < 0:
            continue
        cards = cards1 + cards2
        points = pts1 + pts2
        if cards > best_cards or (cards == best_cards and points > best_points):
            best_cards, best_points = cards, points
            out[0] = k
            for i in range(rest_sets + rest_runs):
                out[1 + i] = sub[i]
    return best_cards, best_points


@kernel
def _contract(lo, hi, jk, n_sets, n_runs, c_mask, c_info, sets, runs, whole, useful, card_limit, out, wc, wm):
    """The contract of a Rami contrat deal that lays the most cards.

    Exactly ``sets`` sets and ``runs`` runs (two or three melds), disjoint,
    from the candidates of the hand, listed by :func:`_contract_melds`
    (``n_sets`` sets and ``n_runs`` runs, largest first, in ``wc`` and
    ``wm``; rows 3 and 4 of ``wc`` are scratch); ``useful`` the cards some
    candidate uses; with ``whole`` they must hold every card of the hand
    (deal 7). At most ``card_limit`` cards are laid. Ties go to the higher
    opening value. Returns ``(cards laid, points)``, ``(-1, 0)`` when no
    contract can be laid, and the melds' candidate indices in ``out``.

    The melds are picked slot by slot (sets first, then runs, indices never
    decreasing within a kind so each collection is tried once; the same meld
    may be taken twice when the hand holds both copies of its cards), and a
    partial pick that no longer fits the hand is abandoned at once. One to
    three melds; no card is forced here (see :func:`search_contract`).
    """
    total = sets + runs
    if total < 1 or total > 3:
        return -1, 0
    if whole:
        # Every card must sit in one of the melds: a card in no candidate, or
        # more suits than runs when there is no set, rules the hand out at once.
        if (lo & ~useful) != ZERO:
            return -1, 0
        if sets == 0 and _suits(lo) > runs:
            return -1, 0
    set_idx = wc[0]
    run_idx = wc[1]
    at_least = wc[2]  # slot s: the sets of s cards or more; slot 16 + s: the runs (see _contract_melds)
    fit1 = wc[3]
    fit2 = wc[4]
    set_mask = wm[2]
    run_mask = wm[3]
    n_cards = popcount(lo) + popcount(hi) + jk
    ceiling = min(n_cards, card_limit)  # no contract lays more
    biggest_set = c_info[set_idx[0], I_SIZE] if n_sets > 0 else 0
    biggest_run = c_info[run_idx[0], I_SIZE] if n_runs > 0 else 0
    best_cards = -1
    best_points = 0
    len0 = n_sets if sets >= 1 else n_runs
    len1 = (n_sets if sets >= 2 else n_runs) if total >= 2 else 1
    len2 = (n_sets if sets >= 3 else n_runs) if total == 3 else 1
    same01 = sets >= 2 or sets == 0  # slots 0 and 1 of one kind
    same12 = sets == 3 or sets <= 1
    # The most the slots after slot 0 and slot 1 can still add.
    most_after0 = ((biggest_set if sets >= 2 else biggest_run) if total >= 2 else 0) + (
        (biggest_set if sets >= 3 else biggest_run) if total == 3 else 0
    )
    most_after1 = (biggest_set if sets >= 3 else biggest_run) if total == 3 else 0
    list0 = set_idx if sets >= 1 else run_idx
    list1 = set_idx if sets >= 2 else run_idx
    list2 = set_idx if sets >= 3 else run_idx
    mask0 = set_mask if sets >= 1 else run_mask
    mask1 = set_mask if sets >= 2 else run_mask
    mask2 = set_mask if sets >= 3 else run_mask
    # Where the sizes of slot 2's kind are counted in at_least.
    sizes2 = 0 if sets >= 3 else 16
    misfit0 = _misfit(lo, jk)
    for a in range(len0):
        if best_cards >= ceiling:
            break  # nothing can lay more cards
        ka = np.uint64(list0[a])  # unsigned, as the inner loops' indices below
        size_a = c_info[ka, I_SIZE]
        after0 = most_after0
        if same01 and total >= 2:
            # Slot 1 picks from slot 0's meld on, so it is no larger (nor is
            # slot 2 when it picks from slot 1's list too).
            after0 = min(most_after0, size_a + ((size_a if same12 else most_after1) if total == 3 else 0))
        if size_a + after0 < best_cards:
            break  # the melds are sorted by size: no later pick does better
        ma = mask0[a]
        if (ma & misfit0) != ZERO:
            continue
        lo1, hi1 = remove_mask(lo, hi, ma & ~LEAST_JOKER)
        jk1 = jk - (1 if (ma & LEAST_JOKER) != ZERO else 0)
        cards1 = size_a
        pts1 = c_info[ka, I_POINTS]
        if total == 1:
            if cards1 > card_limit or (whole and (lo1 | hi1) != ZERO) or (whole and jk1 != 0):
                continue
            if cards1 > best_cards or (cards1 == best_cards and pts1 > best_points):
                best_cards, best_points = cards1, pts1
                out[0] = ka
            continue
        # The melds of slot 1 that fit the hand slot 0 left, in list order
        # (as positions in the list), and those of slot 2 when of the other
        # kind: the inner loops then visit only melds that can still be laid
        # (a meld that does not fit this hand fits none of its parts either),
        # in the same order, so the first best contract found is the same.
        # One mask test a meld (see _misfit), and no branch on it: every
        # position is written and only those that fit are kept. Whether a
        # meld fits follows no pattern a processor can predict, and a
        # mispredicted branch a meld cost more than the stores (valgrind's
        # branch simulation: 5% fewer mispredicted branches a contrat deal
        # for 0.5% more instructions; 2% more deals a second).
        misfit1 = _misfit(lo1, jk1)
        n1 = 0
        for b in range(a if same01 else 0, len1):
            fit1[n1] = b
            n1 += (mask1[b] & misfit1) == ZERO
        n2 = 0
        if total == 3 and not same12:
            for c in range(len2):
                fit2[n2] = c
                n2 += (mask2[c] & misfit1) == ZERO
        # The most slot 2 can add: its largest meld that still fits, which
        # is no larger than slot 1's own when both are of one kind (slot 2
        # then picks from slot 1's meld on, largest first).
        most_after1_fit = 0
        if total == 3 and not same12:
            most_after1_fit = c_info[np.uint64(list2[np.uint64(fit2[0])]), I_SIZE] if n2 > 0 else 0
        for b in range(n1):
            # Positions and candidate indices read from the lists are unsigned:
            # numba tests a signed index for counting from the end.
            pb = np.uint64(fit1[b])
            kb = np.uint64(list1[pb])
            size_b = c_info[kb, I_SIZE]
            if total == 3 and same12:
                most_after1_fit = size_b
            if cards1 + size_b + min(most_after1, most_after1_fit) < best_cards:
                break
            # No fit test: fit1 holds only melds that fit the hand slot 0 left.
            mb = mask1[pb]
            lo2, hi2 = remove_mask(lo1, hi1, mb & ~LEAST_JOKER)
            jk2 = jk1 - (1 if (mb & LEAST_JOKER) != ZERO else 0)
            cards12 = cards1 + size_b
            pts12 = pts1 + c_info[kb, I_POINTS]
            if total == 2:
                if cards12 > card_limit:
                    continue
                if whole and ((lo2 | hi2) != ZERO or jk2 != 0):
                    continue
                if cards12 > best_cards or (cards12 == best_cards and pts12 > best_points):
                    best_cards, best_points = cards12, pts12
                    out[0], out[1] = ka, kb
                continue
            fit_c = fit1 if same12 else fit2
            misfit2 = _misfit(lo2, jk2)
            # Slot 2's loop stops at its first meld too small to reach
            # best_cards: the list being sorted by size, the first at or past
            # the position where the melds of fewer than best_cards - cards12
            # cards begin (found again when best_cards rises).
            stop = _sized_from(at_least, sizes2, best_cards - cards12)
            for c in range(b if same12 else 0, n1 if same12 else n2):
                pc = fit_c[c]
                if pc >= stop:
                    break
                if (mask2[np.uint64(pc)] & misfit2) != ZERO:
                    continue
                kc = np.uint64(list2[np.uint64(pc)])
                size_c = c_info[kc, I_SIZE]
                if whole and cards12 + size_c != n_cards:
                    continue
                if cards12 + size_c > card_limit:
                    continue
                cards = cards12 + size_c
                points = pts12 + c_info[kc, I_POINTS]
                if cards > best_cards or (cards == best_cards and points > best_points):
                    best_cards, best_points = cards, points
                    out[0], out[1], out[2] = ka, kb, kc
                    stop = _sized_from(at_least, sizes2, best_cards - cards12)
    return best_cards, best_points


@kernel(forceinline=True)
def _misfit(lo, jk):
    """The bits a meld's mask as :func:`_contract_melds` lists it must not have to fit the hand ``(lo, jk)``.

    The cards the hand lacks, and the joker mark when it holds no joker: a
    meld holds one joker at most, so one mask test tells both.
    """
    if jk > 0:
        return ~lo & ~LEAST_JOKER
    return ~lo


@kernel(forceinline=True)
def _sized_from(at_least, offset, size):
    """How many melds of one kind have ``size`` cards or more: ``at_least[offset + size]``, for any ``size``."""
    if size <= 0:
        return at_least[offset]
    if size > 15:
        return 0
    return at_least[offset + size]
