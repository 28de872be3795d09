"""The turn's bit-test shortcuts agree with the slower answers they stand in for.

Each shortcut of the compiled turn (sim/engine/turn.py, hand.py) and of its
policies (sim/engine/policies.py) must give exactly the
answer of the function it avoids calling, or the games would change: checked
here on random hands of every meld rule the rulesets allow.
"""

from __future__ import annotations

import numpy as np
import pytest

import strategies as S
from sim import cards
from sim.engine import bits, hand_melds, meld_search
from sim.engine import actions, hand, policies, turn
from sim.engine import position as K
from sim.engine import play as E
from sim.engine.hand import hand_codes, hand_words
from sim.engine.layout import A_TYPE, ACT_STOP
from sim.engine.params import kernel_rules
from sim.engine.state import G_FIRST, G_NCAND, G_TURN, N_G, S_OPENED
from sim.rules import preset

DECK = cards.deck(2, 4)


def _hands(seed, count, largest):
    rng = np.random.default_rng(seed)
    for i in range(count):
        hand = [DECK[j] for j in rng.choice(len(DECK), int(rng.integers(0, largest)), replace=False)]
        yield i, rng, hand_words(hand)


def test_the_take_check_answers_as_card_in_meld():
    rulesets = [kernel_rules(preset(name, min_run=run, ace_high=high))
                for name in ("rami51", "basic") for run in (3, 4) for high in (False, True)]
    for i, rng, (lo, _, jk) in _hands(6, 4000, 15):
        r = rulesets[i % len(rulesets)]
        top = int(rng.integers(0, 52))
        assert hand.card_completes(lo, jk, top, r) == hand_melds.card_in_meld(lo, jk, top, r.min_run, r.ace_high)


def test_the_highest_penalty_is_the_first_highest_card():
    # The greedy discard's shortcut must pick what card_penalty ranks first
    # (the lowest code among equals), for every ace value a ruleset allows.
    rulesets = [kernel_rules(preset("rami51", ace_penalty=ace)) for ace in (0, 1, 5, 10, 11, 15)]
    for i, rng, (lo, _, _) in _hands(7, 3000, 15):
        if lo == 0:
            continue
        r = rulesets[i % len(rulesets)]
        codes = hand_codes(lo)
        worth = [hand.card_penalty(c, r) for c in codes]
        assert policies._highest_penalty(lo, r.ace_penalty) == codes[worth.index(max(worth))]


def test_stop_only_is_a_listing_of_stopping_alone():
    # The turn of a heuristic player skips listing its actions when
    # policies.stop_only says stopping is all it may do: checked on the hand of the
    # seat to move at every turn of real rounds (table melds, jokers on the
    # table and opened seats included) against the listing itself.
    compared = [0, 0]
    for name in ("rami51", "basic", "contrat", "rami51-ducale"):
        r = kernel_rules(preset(name, players=4))
        kinds, params = S.parameter_arrays([S.get("greedy").for_game(preset(name).game)] * 4, E.MAX_SEATS)
        ws = meld_search.workspace()
        for game in range(12):
            st = E.make_buffers()
            g = np.zeros(N_G, dtype=np.int64)
            ev = np.zeros((1, E.N_EV), dtype=np.int32)
            policy_rng = np.zeros(E.MAX_SEATS, dtype=np.uint64)
            deck_rng = np.zeros(1, dtype=np.uint64)
            E.start_round(r, game, np.uint64(5), 0, st, g, ev, policy_rng, deck_rng, np.zeros(0, dtype=np.int64))
            for _ in range(400):
                seat = (g[G_FIRST] + g[G_TURN]) % r.players
                lo, hi, jk, n = st.h_lo[seat], st.h_hi[seat], st.h_jk[seat], st.h_n[seat]
                opened = st.seats[seat, S_OPENED] == 1
                saved = g.copy()
                n_act = actions.enumerate_actions(r, g, seat, lo, hi, jk, n, opened, -1, -1, -1, st.table, st.takes,
                                                  st.c_mask, st.c_info, st.s_mask, st.s_info, st.open_sel, st.open_n,
                                                  st.act, st.facts, st.r_mask, st.r_info, ws, True)
                listed = g[G_NCAND]
                g[:] = saved
                alone = bool(n_act == 1 and st.act[0, A_TYPE] == ACT_STOP)
                if policies.stop_only(r, g, lo, jk, opened):
                    # Never skips a laying, and the discard finds no melded
                    # card either way (no candidate listed, or none to list).
                    assert alone and listed <= 0
                    compared[1] += 1
                else:
                    compared[0] += 1
                if E.step_turn(r, kinds, params, st, ws, g, ev, policy_rng, deck_rng) != turn.TURN_NEXT:
                    break
    assert min(compared) > 500


def test_the_greedy_discard_from_masks_is_the_policys_pick_from_the_listing():
    # A heuristic player without judgement (P_DISCARD 0) finds its discard
    # from masks (policies.discard_unlisted) where the turn would otherwise
    # list the legal discards and score them (policies.discard_score):
    # checked at every discard of real rounds, stepped through the position
    # machine, against the policy's own pick from the listing.
    compared = 0
    for name in ("rami51", "basic", "contrat", "rami51-ducale"):
        r = kernel_rules(preset(name, players=4))
        kinds, params = S.parameter_arrays([S.get("greedy").for_game(preset(name).game)] * 4, E.MAX_SEATS)
        assert params[0, policies.P_DISCARD] == 0
        ws = meld_search.workspace()
        for game in range(6):
            st = E.make_buffers()
            g = np.zeros(N_G, dtype=np.int64)
            ev = np.zeros((1, E.N_EV), dtype=np.int32)
            policy_rng = np.zeros(E.MAX_SEATS, dtype=np.uint64)
            deck_rng = np.zeros(1, dtype=np.uint64)
            E.start_round(r, game, np.uint64(9), 0, st, g, ev, policy_rng, deck_rng, np.zeros(0, dtype=np.int64))
            ts = K.new_turn_state()
            while True:
                K.advance(r, st, g, ev, ws, kinds, params, policy_rng, deck_rng, ts, -2)
                if ts[K.TS_PHASE] == K.PH_END:
                    break
                choice = K.decide(r, st, g, kinds, params, policy_rng, ts)
                if ts[K.TS_PHASE] == K.PH_DISCARD:
                    seat = ts[K.TS_SEAT]
                    quick = policies.discard_unlisted(kinds[seat], params[seat], r, g, st.h_lo[seat], st.h_jk[seat],
                                                      ts[K.TS_TAKEN], st.seats[seat, S_OPENED] == 1, st.c_mask,
                                                      st.c_info)
                    assert quick == choice
                    compared += 1
                K.play_choice(r, st, g, ev, ws, kinds, params, policy_rng, choice, ts)
    assert compared > 500


def test_hand_words_and_hand_codes_are_one_conversion_both_ways():
    # sim.engine.hand owns the conversion between card codes and a hand's
    # words: the API, the Python strategies and these tests all call it.
    for _, _, (lo, hi, jk) in _hands(8, 500, 27):
        codes = hand_codes(lo, hi, jk)
        assert codes == sorted(codes) and hand_words(codes) == (lo, hi, jk)
    assert hand_codes(*hand_words(cards.parse("★ 7♥ 7♥ 2♣"))) == [int(c) for c in cards.parse("2♣ 7♥ 7♥ ★")]
    with pytest.raises(ValueError, match="more than two copies"):
        hand_words(cards.parse("7♥ 7♥ 7♥"))


def test_the_may_i_shortcuts_skip_only_what_the_policy_does_not_read():
    # "Puis-je ?" is put to every other seat after each stock draw of Rami
    # contrat. The turn asks the policy's shortcut first
    # (policies.may_i_shortcut): a heuristic that says no whatever the card
    # (never asking, or asking only before its contract once it is down) is
    # not asked; one that says yes just when the card completes a meld of
    # the hand (or is the joker) is answered from that test, with no view
    # filled; and the view is filled only for a policy that reads it
    # (policies.may_i_reads_view). Each answer must be the policy's own,
    # whatever the view holds.
    rng_state = np.zeros(E.MAX_SEATS, dtype=np.uint64)
    answers = {mode: set() for mode in range(4)}
    shortcuts = set()
    for mode in range(4):
        params = S.get("expert").with_params(may_i=mode).vector()
        reads_view = policies.may_i_reads_view(policies.KIND_HEURISTIC, params)
        assert reads_view == (mode >= 2)
        for i, rng, (lo, hi, jk) in _hands(9 + mode, 600, 15):
            card = int(rng.integers(0, 53))
            opened = bool(rng.integers(0, 2))
            shortcut = policies.may_i_shortcut(policies.KIND_HEURISTIC, params, opened)
            shortcuts.add((mode, opened, shortcut))
            pub = rng.integers(0, 3, size=(policies.N_PUB, 53)).astype(np.int64)
            views = [rng.integers(0, 60, size=policies.N_VIEW).astype(np.int64) for _ in range(2)]
            for view in views:
                view[policies.V_OPENED] = opened
                view[policies.V_MIN_RUN] = 3
            for completes in (False, True):
                said = {policies.choose_may_i(policies.KIND_HEURISTIC, params, rng_state, 0, card, completes, lo,
                                              hi, pub, view)
                        for view in (views if not reads_view else views[:1])}
                if shortcut == policies.MAY_I_NO:
                    assert said == {False}
                elif shortcut == policies.MAY_I_IF_COMPLETES:
                    assert said == {completes or card == 52}
                elif not reads_view:
                    assert len(said) == 1
                answers[mode] |= said
    # Never asking says no at once; asking when the card completes is told
    # by that test (before the contract only, for mode 3); the near card
    # (mode 2) asks the policy.
    assert shortcuts == {
        (0, False, policies.MAY_I_NO), (0, True, policies.MAY_I_NO),
        (1, False, policies.MAY_I_IF_COMPLETES), (1, True, policies.MAY_I_IF_COMPLETES),
        (2, False, policies.MAY_I_ASK), (2, True, policies.MAY_I_ASK),
        (3, False, policies.MAY_I_IF_COMPLETES), (3, True, policies.MAY_I_NO),
    }
    # Every mode that asks says yes to some card and no to another.
    assert answers[0] == {False} and all(answers[mode] == {False, True} for mode in (1, 2, 3))
    # Random and Python policies read everything they are given.
    for kind in (policies.KIND_RANDOM, policies.KIND_PYTHON):
        params = np.zeros(policies.N_PARAMS)
        assert policies.may_i_shortcut(kind, params, False) == policies.MAY_I_ASK
        assert policies.may_i_reads_view(kind, params)


def test_the_ends_a_table_meld_takes_are_the_rules_references():
    """The additions' listing asks sim.engine.table.ends_taking of every card the table takes and every meld.

    docs/rules.md: a run takes the card just below its lowest or just above
    its highest (the ace high after the king where the rules say so), up to
    13 cards; a set takes a natural of a suit it lacks, up to four cards;
    either takes the joker when it holds none. Checked against the rules
    reference's meld (``sim.rules.replay``) for every card and end of
    random runs and sets.
    """
    from sim.cards import Card
    from sim.engine.table import END_HIGH, END_LOW, END_SET, ends_taking
    from sim.rules.replay import _Meld

    rng = np.random.default_rng(23)
    table = np.zeros((1, hand_melds.N_INFO), dtype=np.int32)
    for _ in range(2000):
        ace_high = bool(rng.integers(2))
        top = 14 if ace_high else 13
        if rng.integers(2):
            suit = int(rng.integers(4))
            low = int(rng.integers(1, top - 1))
            high = int(rng.integers(low + 2, min(top, low + 12) + 1))
            joker_at = int(rng.integers(low, high + 1)) if rng.integers(2) else None
            meld = _Meld(0, "run", suit=suit, low=low, high=high, joker_at=joker_at)
            table[0] = [hand_melds.KIND_RUN, suit, low, high, joker_at or 0, 0, high - low + 1, joker_at is not None]
        else:
            rank = int(rng.integers(1, 14))
            suits = {int(s) for s in rng.choice(4, int(rng.integers(2, 5)), replace=False)}
            joker = len(suits) == 2 or (len(suits) == 3 and bool(rng.integers(2)))
            meld = _Meld(0, "set", rank=rank, suits=suits, joker=joker)
            missing = [s for s in range(4) if s not in suits]
            table[0] = [hand_melds.KIND_SET, rank, sum(1 << s for s in suits), 0, missing[0] if joker else -1, 0,
                        len(suits) + joker, joker]
        for code in range(53):
            c = Card(code)
            expected = 0
            if meld.kind == "run":
                for end, name in ((END_LOW, "low"), (END_HIGH, "high")):
                    target, _ = meld.end_card(name, ace_high)
                    if target is not None and meld.addition_problem(c, name, target if c.is_joker else None,
                                                                    ace_high) is None:
                        expected |= 1 << end
            elif meld.accepts(c, ace_high):
                expected |= 1 << END_SET
            assert ends_taking(table, 0, code, ace_high) == expected, (meld, code, ace_high)


def test_a_policy_that_never_plays_the_joker_free_opening_chooses_alike_without_it():
    # The turn leaves the joker-free opening out of the listing for a policy
    # that never plays it (policies.lists_joker_free): on random Rami 51 hands
    # holding jokers, such a policy chooses the same action from either listing.
    from sim.engine.layout import A_P1, ACT_OPEN, N_VIEW, OPEN_NO_JOKER

    r = kernel_rules(preset("rami51", players=4))
    chooser_names = ("greedy", "expert", "greedy:open_extra=20")
    kinds, params = S.parameter_arrays([S.get(n) for n in chooser_names], E.MAX_SEATS)
    assert not any(policies.lists_joker_free(kinds[i], params[i]) for i in range(len(chooser_names)))
    for other in ("greedy:jokers=1", "greedy:open_cards=9", "greedy:open_all=1", "random"):
        assert policies.lists_joker_free(*[a[0] for a in S.parameter_arrays([S.get(other)], 1)])
    st = E.make_buffers()
    ws = meld_search.workspace()
    view = np.zeros(N_VIEW, dtype=np.int64)
    rng = np.zeros(E.MAX_SEATS, dtype=np.uint64)
    with_joker_free = 0
    jokers = [c for c in DECK if c == cards.JOKER]
    naturals = [c for c in DECK if c != cards.JOKER]
    gen = np.random.default_rng(31)
    for _ in range(3000):
        held = [naturals[j] for j in gen.choice(len(naturals), 13, replace=False)]
        held += jokers[:int(gen.integers(1, 3))]
        lo, hi, jk = hand_words(held)
        g = np.zeros(N_G, dtype=np.int64)
        chosen = []
        for full in (True, False):
            n_act = actions.enumerate_actions(r, g, 0, lo, hi, jk, len(held), False, -1, -1, -1, st.table, st.takes,
                                              st.c_mask, st.c_info, st.s_mask, st.s_info, st.open_sel,
                                              st.open_n, st.act, st.facts, st.r_mask, st.r_info, ws, full)
            if full and any(st.act[j, A_TYPE] == ACT_OPEN and st.act[j, A_P1] == OPEN_NO_JOKER for j in range(n_act)):
                with_joker_free += 1
            K.observe(r, st, g, 0, view)
            chosen.append([tuple(st.act[policies.choose_action(kinds[i], params[i], rng, 0, st.act, st.facts,
                                                              n_act, view, lo, hi, jk, st.pub)])
                           for i in range(len(chooser_names))])
        assert chosen[0] == chosen[1]
    assert with_joker_free >= 100


def test_the_judged_discard_skips_only_cards_that_cannot_win():
    # choose_discard does not weigh near-melds and feeding for a card whose score without them cannot beat the
    # best so far: its pick is still the first best of discard_score over the listing, for every judgement.
    from sim.engine.layout import (
        N_PUB, N_VIEW, PUB_PILE, PUB_TABLE, PUB_TOOK, V_ACE_HIGH, V_DECKS, V_NEXT, V_OPENED,
    )

    names = ("expert", "cautious", "expert:discard=1", "expert:near_weight=50,feed_weight=50",
             "expert:near_weight=0,feed_weight=0", "keeper", "expert:unopened_keep=3")
    kinds, params = S.parameter_arrays([S.get(n) for n in names], len(names))
    r = kernel_rules(preset("rami51"))
    gen = np.random.default_rng(41)
    rng = np.zeros(E.MAX_SEATS, dtype=np.uint64)
    compared = 0
    for i, _, (lo, hi, jk) in _hands(43, 3000, 15):
        codes = [c for c in hand_codes(lo)] + ([cards.JOKER] if jk else [])
        if not codes:
            continue
        legal = np.array(codes + [0] * (54 - len(codes)), dtype=np.int64)
        penalty = np.array([float(hand.card_penalty(c, r)) for c in legal], dtype=np.float64)
        fits = gen.random(54) < 0.3
        pub = np.zeros((N_PUB, 53), dtype=np.int64)
        pub[PUB_TABLE] = gen.integers(0, 2, 53)
        pub[PUB_PILE] = gen.integers(0, 2, 53)
        pub[PUB_TOOK + 1] = gen.random(53) < 0.1
        view = np.zeros(N_VIEW, dtype=np.int64)
        view[V_DECKS], view[V_ACE_HIGH], view[V_NEXT], view[V_OPENED] = 2, 1, 1, gen.integers(0, 2)
        table_mask = np.uint64(gen.integers(0, 1 << 52))
        p = params[i % len(names)]
        scores = [policies.discard_score(p, legal[j], penalty[j], fits[j], lo, hi, pub, view, table_mask, False)
                  for j in range(len(codes))]
        expected = legal[scores.index(max(scores))]
        assert policies.choose_discard(kinds[i % len(names)], p, rng, 0, legal, len(codes), penalty, fits, view,
                                       lo, hi, pub, table_mask, False) == expected
        compared += 1
    assert compared > 2500


def test_before_opening_the_keeper_throws_its_low_cards_and_after_it_its_high_ones():
    # unopened_keep above 1: an unopened hand's penalties are moot under a flat 100 and high cards reach 51
    # sooner, so of the cards that fit nothing the lowest goes before the opening and the highest after it.
    from sim.engine.layout import N_PUB, N_VIEW, V_ACE_HIGH, V_DECKS, V_NEXT, V_OPENED

    r = kernel_rules(preset("rami51"))
    hand_cards = cards.parse("K♣ 3♦ 7♥ 9♠ 2♣")  # nothing melds, nothing near (different suits, far ranks)
    lo, hi, jk = hand_words([int(c) for c in hand_cards])
    codes = [int(c) for c in hand_cards]
    legal = np.array(codes + [0] * (cards.N_CODES - len(codes)), dtype=np.int64)
    penalty = np.array([float(hand.card_penalty(c, r)) for c in legal], dtype=np.float64)
    fits = np.zeros(cards.N_CODES, dtype=np.bool_)
    pub = np.zeros((N_PUB, cards.N_CODES), dtype=np.int64)
    rng = np.zeros(E.MAX_SEATS, dtype=np.uint64)
    kinds, params = S.parameter_arrays([S.get("expert:unopened_keep=2"), S.get("expert")], 2)
    thrown = {}
    for opened in (0, 1):
        view = np.zeros(N_VIEW, dtype=np.int64)
        view[V_DECKS], view[V_ACE_HIGH], view[V_NEXT], view[V_OPENED] = 2, 1, 1, opened
        for seat in (0, 1):
            thrown[seat, opened] = cards.format([policies.choose_discard(
                kinds[seat], params[seat], rng, 0, legal, len(codes), penalty, fits, view, lo, hi, pub,
                np.uint64(0), False)])
    assert thrown[0, 0] == "2♣" and thrown[0, 1] == "K♣"  # the keeper, before and after it opens
    assert thrown[1, 0] == "K♣" and thrown[1, 1] == "K♣"  # the expert throws by penalty either way


def test_the_engines_card_facts_agree_with_the_rules_reference():
    """The kernels' value tables, suit and rank by unsigned division, and the bit forms of taking and
    dropping a card, against the pure-Python rules and the card notation, for every card."""
    from sim.rules.melds import rank_value as reference_value

    for position in range(1, 15):
        assert bits.position_value(position) == reference_value(position), position
    for rank in range(1, 14):
        # A card in a set counts as the ace laid high does (docs/rules.md section 4).
        assert bits.rank_value(rank) == reference_value(14 if rank == 1 else rank), rank
    for code in range(cards.N_NATURAL):
        card = cards.Card(code)
        assert (bits.suit_of(code), bits.rank_of(code)) == (card.suit, card.rank), card
    rng = np.random.default_rng(5)
    for _ in range(300):
        codes = rng.choice(cards.N_NATURAL, size=20)  # with repeats: second copies too
        lo, hi, _ = hand_words([])
        held: list[int] = []
        for code in codes:
            if held.count(int(code)) == 2:
                continue
            lo, hi = bits.add_card(lo, hi, int(code))
            held.append(int(code))
            assert (lo, hi) == hand_words(held)[:2]
        for code in rng.permutation(held):
            lo, hi = bits.remove_card(lo, hi, int(code))
            held.remove(int(code))
            assert (lo, hi) == hand_words(held)[:2]
        assert lo == 0 and hi == 0
