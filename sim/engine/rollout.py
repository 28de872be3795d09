"""Rollouts in the kernels: re-deal what a seat cannot see, play every choice out on the same trial.

Trial ``t`` of a rollout seeded ``seed`` has its own streams
(``sim.engine.rng``'s purposes): the re-deal
(``derive_seed(seed, t, 0, STREAM_ROLLOUT_DEAL)``), the deck's later
reshuffles (``derive_seed(seed, t, 0, STREAM_ROLLOUT_DECK)``) and each
seat's policy (``derive_seed(seed, t, seat, STREAM_ROLLOUT_SEAT_POLICY)``).
Every choice of the trial starts from the same re-dealt position with the
same streams, so the ``k``-th card drawn from the stock is the same card in
every branch (the stock is one array, drawn from its top) until a reshuffle
of a pile that the branches left different.
"""

from __future__ import annotations

import numpy as np

from sim.cards import N_CODES
from sim.engine.jit import entry, kernel

from sim.engine.params import GAME_RAMI51
from sim.engine import position
from sim.engine.actions import enumerate_actions
from sim.engine.policies import choose_action, lists_joker_free, policy_is_deterministic
from sim.engine.events import N_EV
from sim.engine.hand import take_card
from sim.engine.layout import A_TYPE, ACT_OPEN, PUB_PILE, PUB_TABLE, fill_view
from sim.engine.bits import JOKER, ZERO, bit
from sim.engine.meld_search import workspace
from sim.engine.round import round_state
from sim.engine.rng import (
    STREAM_ROLLOUT_DEAL, STREAM_ROLLOUT_DECK, STREAM_ROLLOUT_SEAT_POLICY, derive_seed, shuffle, uniform,
)
from sim.engine.state import (
    G_DETERMINISTIC,
    G_MELDS,
    G_NCAND,
    G_NFLIPS,
    G_PILE,
    G_STOCK,
    G_TRACE,
    MAX_CARDS,
    MAX_FLIPS,
    MAX_SEATS,
    S_NO_OPEN,
    S_OPENED,
    S_TURNS,
)

MODE_BELIEF, MODE_CLAIRVOYANT = 0, 1


@kernel(forceinline=True)
def _copy(src, dst, n):
    """``dst[:n] = src[:n]`` of 1-d arrays, as a loop: slice assignment needs numba's reference counting."""
    for i in range(n):
        dst[i] = src[i]


@kernel(forceinline=True)
def _copy_rows(src, dst, n):
    """``dst[:n, :] = src[:n, :]`` of 2-d arrays, as a loop."""
    for i in range(n):
        for k in range(src.shape[1]):
            dst[i, k] = src[i, k]


@kernel
def copy_state(src, g_src, ts_src, dst, g_dst, ts_dst):
    """Copy a position into ``dst`` (the scratch rows only as far as the decision reads them)."""
    _copy(src.h_lo, dst.h_lo, src.h_lo.shape[0])
    _copy(src.h_hi, dst.h_hi, src.h_hi.shape[0])
    _copy(src.h_jk, dst.h_jk, src.h_jk.shape[0])
    _copy(src.h_n, dst.h_n, src.h_n.shape[0])
    _copy_rows(src.seats, dst.seats, src.seats.shape[0])
    _copy_rows(src.table, dst.table, src.table.shape[0])
    _copy(src.owner, dst.owner, src.owner.shape[0])
    _copy(src.stock, dst.stock, g_src[G_STOCK])
    _copy(src.pile, dst.pile, g_src[G_PILE])
    n = max(g_src[G_NCAND], 0)  # -1: not listed (contrat, after the contract)
    _copy(src.c_mask, dst.c_mask, n)
    _copy_rows(src.c_info, dst.c_info, n)
    # The laying actions the decision plays: those listed (PH_LAY) or the
    # take check's, reused once the pile's top is taken (PH_DRAW).
    n = 0
    if ts_src[position.TS_PHASE] == position.PH_LAY:
        n = ts_src[position.TS_NACT]
    elif ts_src[position.TS_PHASE] == position.PH_DRAW and ts_src[position.TS_CACHED] > 0:
        n = ts_src[position.TS_CACHED]
    if n > 0:
        _copy_rows(src.act, dst.act, n)
        _copy_rows(src.facts, dst.facts, n)
        _copy(src.r_mask, dst.r_mask, n)
        _copy_rows(src.r_info, dst.r_info, n)
    _copy_rows(src.open_sel, dst.open_sel, src.open_sel.shape[0])
    _copy(src.open_n, dst.open_n, src.open_n.shape[0])
    _copy(src.flips, dst.flips, min(g_src[G_NFLIPS], MAX_FLIPS))
    _copy_rows(src.pub, dst.pub, src.pub.shape[0])
    _copy(src.obs, dst.obs, src.obs.shape[0])
    _copy(src.d_legal, dst.d_legal, src.d_legal.shape[0])
    _copy(src.d_penalty, dst.d_penalty, src.d_penalty.shape[0])
    _copy(src.d_fits, dst.d_fits, src.d_fits.shape[0])
    _copy_rows(src.takes, dst.takes, g_src[G_MELDS])
    _copy(g_src, g_dst, g_src.shape[0])
    _copy(ts_src, ts_dst, ts_src.shape[0])


@kernel
def redeal(rules, st, g, seat, known, rng, pool, lean, keys):
    """Deal again, from ``rng``, every card ``seat`` cannot see, keeping what it knows.

    The unseen cards are the deck less the seat's hand, the table and the
    pile, and less ``known[s, code]``: the cards seat ``s`` is known to hold
    (taken from the pile, or a joker taken back, and not laid or thrown
    since). They are listed in code order, from public counts alone, then
    shuffled: other hands get their sizes back (known cards first), the
    stock the rest. The true hidden cards are never read.

    ``lean[s, code]`` (``lean.shape[0] == 0``: none) weighs how likely seat
    ``s`` is to hold a copy of ``code``, from what its own choices said
    (:func:`sim.engine.search.note_evidence`): each other hand then takes its
    cards from the shuffled pool by weighted sampling without replacement
    (:func:`_lean_pick`, ``keys`` its scratch, as long as ``pool``), in seat
    order, and the stock the rest.
    """
    lo, hi, jk = st.h_lo[seat], st.h_hi[seat], st.h_jk[seat]
    n = 0
    for c in range(N_CODES):
        # The copies of the code the seat cannot see, counted as it goes (a kernel allocates no array).
        if c == JOKER:
            count = rules.jokers - jk
        else:
            count = rules.decks
            b = bit(c)
            if lo & b:
                count -= 1
            if hi & b:
                count -= 1
        count -= st.pub[PUB_TABLE, c] + st.pub[PUB_PILE, c]
        for s in range(rules.players):
            if s != seat:
                count -= known[s, c]
        for _ in range(count):
            pool[n] = c
            n += 1
    shuffle(pool, n, rng, 0)
    i = 0
    for s in range(rules.players):
        if s == seat:
            continue
        size = st.h_n[s]
        st.h_lo[s] = ZERO
        st.h_hi[s] = ZERO
        st.h_jk[s] = 0
        st.h_n[s] = 0
        for c in range(N_CODES):
            for _ in range(known[s, c]):
                take_card(st.h_lo, st.h_hi, st.h_jk, st.h_n, s, c)
        if lean.shape[0] > 0:
            # The hand's cards moved to pool[i:i + need], drawn by their weights.
            _lean_pick(pool, i, n, size - st.h_n[s], lean, s, rng, keys)
        while st.h_n[s] < size:
            take_card(st.h_lo, st.h_hi, st.h_jk, st.h_n, s, pool[i])
            i += 1
        # What the engine remembered of the old hand no longer holds.
        st.seats[s, S_NO_OPEN] = 0
    for k in range(n - i):
        st.stock[k] = pool[i + k]
    g[G_STOCK] = n - i
    g[G_NFLIPS] = 0
    return n - i


@kernel
def _lean_pick(pool, i, n, need, lean, s, rng, keys):
    """Move ``need`` cards of ``pool[i:n]`` to ``pool[i:i + need]``, drawn without replacement with chances
    proportional to ``lean[s, card]``.

    Each card gets the key ``-log(u) / weight`` (an exponential clock of
    rate ``weight``) and the ``need`` smallest keys win: the order in which
    the clocks ring is exactly successive weighted draws (Efraimidis and
    Spirakis). A weight of 0 is read as a very small one, so that a hand
    can always be filled.
    """
    if need <= 0:
        return
    for k in range(i, n):
        w = max(lean[s, pool[k]], 1e-9)
        keys[k - i] = -np.log(1.0 - uniform(rng, 0)) / w
    for m in range(min(need, n - i)):
        best = m
        for k in range(m + 1, n - i):
            if keys[k] < keys[best]:
                best = k
        if best != m:
            keys[m], keys[best] = keys[best], keys[m]
            pool[i + m], pool[i + best] = pool[i + best], pool[i + m]


@kernel
def would_have_opened(rules, st, g, seat, kinds, params, probe, g_probe, ws, rng):
    """Whether some other seat that has played a turn of this round without opening holds a hand its strategy
    would open with now: a hand the seat could not have held, since its strategy opens as soon as it would.

    Each such seat's layings are listed into ``probe``'s scratch (``g_probe``
    a copy of ``g``: the listing writes its counts), never into ``st``'s,
    whose rows the decision's choices index; its strategy is asked, as at its
    own laying, whether it opens. Only strategies that choose from the
    position alone are asked (a random seat may have passed any opening).
    A hand held a turn ago held at least as much as now, less the card
    thrown since, so the test is a fair reading of the seat's last laying.
    """
    for s in range(rules.players):
        if s == seat or st.seats[s, S_OPENED] == 1 or st.seats[s, S_TURNS] == 0:
            continue
        if not policy_is_deterministic(kinds[s], params[s]):
            continue
        for k in range(g.shape[0]):
            g_probe[k] = g[k]
        joker_free = rules.game != GAME_RAMI51 or lists_joker_free(kinds[s], params[s])
        n_act = enumerate_actions(
            rules, g_probe, s, st.h_lo[s], st.h_hi[s], st.h_jk[s], st.h_n[s], False, -1, -1, -1, st.table,
            st.takes, probe.c_mask, probe.c_info, probe.s_mask, probe.s_info, probe.open_sel, probe.open_n,
            probe.act, probe.facts, probe.r_mask, probe.r_info, ws, joker_free,
        )
        if n_act == 0:
            continue
        fill_view(rules, g, st.seats, st.h_n, st.h_jk, s, probe.obs)
        a = choose_action(kinds[s], params[s], rng, s, probe.act, probe.facts, n_act, probe.obs, st.h_lo[s],
                          st.h_hi[s], st.h_jk[s], st.pub)
        if probe.act[a, A_TYPE] == ACT_OPEN:
            return True
    return False


@kernel
def _seed_trial(seed, t, policy_rng, deck_rng):
    for s in range(MAX_SEATS):
        policy_rng[s] = derive_seed(np.uint64(seed), t, s, STREAM_ROLLOUT_SEAT_POLICY)
    deck_rng[0] = derive_seed(np.uint64(seed), t, 0, STREAM_ROLLOUT_DECK)


# Optimised apart (see sim.engine.jit): the round it plays is optimised in finish_round's library already.
@entry(optimised_apart=True)
def run_trials(rules, root, g_root, ts_root, kinds, params, seat, known, lean, attempts, mode, seed, choices, follow,
               active, t0, t1, points, went_out):
    """Play trials ``t0 .. t1 - 1`` of every active choice; fill ``points[j, t, s]`` (every seat's round
    points) and ``went_out[j, t]`` (whether ``seat`` went out).

    ``choices[j]`` is a choice of the root decision as
    :func:`sim.engine.position.decide` returns them; ``follow[j]``, when
    not -1, a choice of the decision that ``choices[j]`` leads to, played
    next (the seat's own next decision of the turn, which its hidden cards
    do not change: the same in every trial). Each trial re-deals
    (``mode`` ``MODE_BELIEF``) or keeps the hidden cards
    (``MODE_CLAIRVOYANT``), then plays each choice and the rest of the round
    with the strategies, on the same streams. With ``attempts`` above 0, a
    re-deal in which some seat holds a hand it would have opened with
    (:func:`would_have_opened`) is dealt again from the same stream, up to
    ``attempts`` more times (the last deal is kept).
    """
    # The large scratch arrays unset: a trial never reads them before its turn writes them.
    trial = round_state(False)
    branch = round_state(False)
    g_trial = np.zeros_like(g_root)
    g_branch = np.zeros_like(g_root)
    ts_trial = np.zeros_like(ts_root)
    ts_branch = np.zeros_like(ts_root)
    ws = workspace()
    ev = np.zeros((1, N_EV), dtype=np.int32)
    policy_rng = np.zeros(MAX_SEATS, dtype=np.uint64)
    deck_rng = np.zeros(1, dtype=np.uint64)
    deal_rng = np.zeros(1, dtype=np.uint64)
    branch_policy = np.zeros(MAX_SEATS, dtype=np.uint64)
    branch_deck = np.zeros(1, dtype=np.uint64)
    pool = np.zeros(MAX_CARDS, dtype=np.int64)
    keys = np.zeros(MAX_CARDS, dtype=np.float64)
    probe_rng = np.zeros(MAX_SEATS, dtype=np.uint64)
    for t in range(t0, t1):
        copy_state(root, g_root, ts_root, trial, g_trial, ts_trial)
        g_trial[G_TRACE] = 0
        # Positions replayed with other streams prove no cycle.
        g_trial[G_DETERMINISTIC] = 0
        if mode == MODE_BELIEF:
            deal_rng[0] = derive_seed(np.uint64(seed), t, 0, STREAM_ROLLOUT_DEAL)
            redeal(rules, trial, g_trial, seat, known, deal_rng, pool, lean, keys)
            # A re-deal rewrites every hidden card, so it is made again on the trial as it stands.
            for _ in range(attempts):
                # The branch's state is the check's scratch: each choice copies the trial into it afresh, as far
                # as the choice reads it, so no third round state is allocated at every look.
                if not would_have_opened(rules, trial, g_trial, seat, kinds, params, branch, g_branch, ws,
                                         probe_rng):
                    break
                redeal(rules, trial, g_trial, seat, known, deal_rng, pool, lean, keys)
        _seed_trial(seed, t, policy_rng, deck_rng)
        for j in range(choices.shape[0]):
            if not active[j]:
                continue
            copy_state(trial, g_trial, ts_trial, branch, g_branch, ts_branch)
            branch_policy[:] = policy_rng
            branch_deck[:] = deck_rng
            position.play_choice(rules, branch, g_branch, ev, ws, kinds, params, branch_policy, choices[j], ts_branch)
            if follow[j] >= 0:
                position.play_choice(rules, branch, g_branch, ev, ws, kinds, params, branch_policy, follow[j],
                                     ts_branch)
            position.finish_round(rules, branch, g_branch, ev, ws, kinds, params, branch_policy, branch_deck, ts_branch)
            winner, _, _, round_points = position.round_result(rules, branch, g_branch, ev, ts_branch)
            for s in range(MAX_SEATS):
                points[j, t, s] = round_points[s]
            went_out[j, t] = winner == seat


@entry(optimised_callees=True)
def run_trials_for_python(rules, root, g_root, ts_root, kinds, params, seat, known, lean, attempts, mode, seed,
                          choices, follow, active, t0, t1, points, went_out):
    """:func:`run_trials`, called from Python: it relinks the rollouts that the searching game links in too,
    rather than compiling them a second time for Python (see :mod:`sim.engine.position`'s doors)."""
    run_trials(rules, root, g_root, ts_root, kinds, params, seat, known, lean, attempts, mode, seed, choices, follow,
               active, t0, t1, points, went_out)
