"""Positions and rollouts (:mod:`sim.position`, :mod:`sim.rollouts`), through their public calls only."""

from __future__ import annotations

import random
from collections import Counter

import pytest

import sim
from sim import cards
from sim.position import Position
from sim.rollouts import known_cards, redeal, rollout
from sim.rules.replay import ReplayError, check_trace


@pytest.fixture(scope="module")
def trace():
    return sim.play_traced("rami51", ["expert"] * 4, seed=3)


def _round(events, deal):
    """Index just past the ``out`` or ``blocked`` that ends the round dealt at ``deal``."""
    return next(i for i in range(deal, len(events)) if events[i]["type"] in ("out", "blocked")) + 1


def _checks_up_to_its_end(events):
    """The rules reference accepts every event (the trace stops before its game_end)."""
    with pytest.raises(ReplayError, match=rf"^event {len(events)} \(end of trace\)"):
        check_trace(events)


def test_a_round_stepped_decision_by_decision_is_the_engines_round(trace):
    deals = [i for i, e in enumerate(trace) if e["type"] == "deal"][:2]
    for deal in deals:
        position = Position.from_trace(trace, deal)
        outcome = position.play_out()
        end = _round(trace, deal)
        assert list(outcome.events) == trace[deal + 1:end]
        round_end = next(e for e in trace[end:] if e["type"] == "round_end")
        assert list(outcome.points) == round_end["points"]


def test_from_trace_stands_at_the_traced_decision(trace):
    i = next(i for i, e in enumerate(trace) if e["type"] == "discard" and i > 40)
    position = Position.from_trace(trace, i)
    assert (position.decision, position.seat) == ("discard", trace[i]["seat"])
    assert trace[i]["card"] in position.legal_choices()
    # Its observation is the seat's own hand, and the others' sizes only.
    seen = position.observe(position.seat)
    assert cards.format(seen.hand) == position.hand(position.seat)
    assert sum(position.hand_sizes()) + seen.stock + len(cards.parse(position.pile())) + sum(
        len(cards.parse(m)) for m in position.table()) == 108
    assert seen.pile.sum() == len(cards.parse(position.pile())) and seen.table.sum() == sum(
        len(cards.parse(m)) for m in position.table())


def test_a_position_reached_by_apply_replays_through_the_rules_reference(trace):
    i = next(i for i, e in enumerate(trace) if e["type"] == "discard" and i > 40)
    position = Position.from_trace(trace, i)
    other = next(c for c in position.legal_choices() if c != trace[i]["card"])
    after = position.apply(other)
    assert after.events[-1] == {"type": "discard", "round": trace[i]["round"], "seat": position.seat, "card": other}
    deal = max(j for j in range(i) if trace[j]["type"] == "deal")
    outcome = after.play_out()
    _checks_up_to_its_end(trace[:deal] + after.events + list(outcome.events))
    with pytest.raises(ValueError, match="not a legal choice"):
        position.apply("stop")


def test_every_redeal_conserves_the_deck_and_keeps_what_the_seat_saw(trace):
    i = next(i for i, e in enumerate(trace) if e["type"] == "draw" and e["source"] == "discard" and i > 30)
    j = next(j for j in range(i + 1, len(trace)) if trace[j]["type"] == "draw")
    position = Position.from_trace(trace, j)
    seat = position.seat
    taker = trace[i]["seat"]
    known = known_cards(position)
    deck = Counter(cards.deck(2, 4))
    for t in range(5):
        dealt = redeal(position, seed=11, trial=t)
        a, b = dealt.observe(seat), position.observe(seat)
        assert a.hand == b.hand and (a.lo, a.hi) == (b.lo, b.hi)
        assert (dealt.pile(), dealt.table(), dealt.hand_sizes()) == (position.pile(), position.table(),
                                                                    position.hand_sizes())
        assert (a.view == b.view).all() and (a.pub == b.pub).all()
        held = Counter()
        for s in range(4):
            held += Counter(cards.parse(dealt.hand(s)))
            for code in range(53):
                assert Counter(int(c) for c in cards.parse(dealt.hand(s)))[code] >= known[s, code]
        held += Counter(cards.parse(dealt.stock())) + Counter(cards.parse(dealt.pile()))
        for m in dealt.table():
            held += Counter(cards.parse(m))
        assert held == deck
    if taker != seat:
        assert known[taker].sum() >= 0


def test_identical_choices_give_identical_outcomes_trial_by_trial(trace):
    i = next(i for i, e in enumerate(trace) if e["type"] == "discard" and i > 40)
    position = Position.from_trace(trace, i)
    c = position.legal_choices()[0]
    result = rollout(position, choices=[c, c], n=40, seed=5)
    assert (result.points[0] == result.points[1]).all()
    assert result.points[0].std() > 0  # the trials differ, the two copies of the choice do not


def test_belief_mode_never_reads_the_hidden_cards():
    hands = ["A♠ 2♠ 3♠ 7♥ 7♦ 9♣ 10♣ J♣ Q♦ K♦ 4♥ 5♥ 6♥", "", "", ""]
    rest = Counter(cards.deck(2, 4)) - Counter(cards.parse(hands[0] + " 8♠"))
    pool = [c for c, k in sorted(rest.items()) for _ in range(k)]
    results = []
    for shuffle in (1, 2):
        others = pool[:]
        random.Random(shuffle).shuffle(others)
        deal = [hands[0]] + [cards.format(others[13 * s:13 * s + 13]) for s in range(3)]
        position = Position.deal("rami51", ["expert"] * 4, deal, "8♠", stock=cards.format(others[39:]), seed=2)
        results.append((rollout(position, n=30, seed=9), rollout(position, n=30, seed=9, mode="clairvoyant")))
    (a, clear_a), (b, clear_b) = results
    assert [c.choice for c in a.choices] == [c.choice for c in b.choices]
    assert (a.points == b.points).all()
    assert (clear_a.points != clear_b.points).any()  # the hidden cards do matter to a clairvoyant rollout


def test_clairvoyant_with_one_trial_reproduces_the_traced_round(trace):
    # A discard of a round that ends without the stock running out (no reshuffle left).
    for i, e in enumerate(trace):
        if e["type"] != "discard" or i < 30:
            continue
        deal = max(j for j in range(i) if trace[j]["type"] == "deal")
        end = _round(trace, deal)
        if any(x["type"] == "restock" for x in trace[deal:end]):
            continue
        break
    position = Position.from_trace(trace, i)
    result = rollout(position, choices=[e["card"]], n=1, mode="clairvoyant", seed=1)
    round_end = next(x for x in trace[end:] if x["type"] == "round_end")
    assert result.choices[0].points == round_end["points"][e["seat"]]
    assert result.choices[0].p_out == (1.0 if round_end["winner"] == e["seat"] else 0.0)


def test_a_rollout_stopped_by_width_drops_the_choices_clearly_behind(trace):
    i = next(i for i, e in enumerate(trace) if e["type"] == "discard" and i > 40)
    position = Position.from_trace(trace, i)
    result = rollout(position, n=400, seed=2, width=40.0, batch=50)
    assert result.method.startswith("stopped at ") and result.trials <= 400
    best = result.choices[0]
    assert best.best and best.diff == 0.0
    for c in result.choices[1:]:
        lo, hi = c.diff_ci
        if c.dropped_after is not None:
            assert lo > 0  # dropped only when wholly behind the best
        else:
            assert lo <= c.diff <= hi
    assert "dropped after" in str(result) or all(c.dropped_after is None for c in result.choices)
    with pytest.raises(ValueError, match="mode must be one of belief, clairvoyant"):
        rollout(position, mode="psychic")


def test_rami_rollout_and_advise_with_rollouts_print_every_discard_in_both_modes(trace):
    from click.testing import CliRunner

    from sim.cli import main

    args = ["--strategies", "expert,expert,expert,expert", "--seed", "3"]
    i = next(i for i, e in enumerate(trace) if e["type"] == "discard" and i > 40)
    result = CliRunner().invoke(main, ["rollout", *args, "--event", str(i), "--trials", "20"])
    assert result.exit_code == 0, result.output
    assert "(belief, 20 trials" in result.output and "(clairvoyant, 20 trials" in result.output
    advised = sim.advise(trace, i, "expert", rollouts=20)
    rolled = {r.mode: {c.choice for c in r.choices} for r in advised.rollouts}
    assert rolled["belief"] == rolled["clairvoyant"] == {d.card for d in advised.discards}


@pytest.mark.parametrize("preset, seating", [("contrat", ["greedy"] * 3), ("basic", ["greedy", "random"])])
def test_every_kind_of_decision_applies_and_replays_in_every_game(preset, seating):
    events = sim.play_traced(preset, seating, seed=5, max_rounds=1)
    kinds = {"draw": "draw", "open": "lay", "meld": "lay", "add": "lay", "recover": "lay", "discard": "discard"}
    seen = set()
    for i, e in enumerate(events):
        kind = kinds.get(e["type"])
        if kind is None or kind in seen:
            continue
        position = Position.from_trace(events, i)
        choices = position.legal_choices()
        if len(choices) < 2:
            continue
        seen.add(kind)
        assert position.decision == kind
        deal = max(j for j in range(i) if events[j]["type"] == "deal")
        for choice in choices[:3]:
            after = position.apply(choice)
            _checks_up_to_its_end(events[:deal] + after.events + list(after.play_out().events))
    assert seen == {"draw", "lay", "discard"}


@pytest.mark.parametrize("preset,seating", [
    ("rami51", ["random", "greedy", "expert"]),
    ("rami51", ["random", "random"]),
    ("contrat", ["greedy", "random", "expert", "random"]),
    ("basic", ["random", "cautious", "greedy"]),
])
def test_a_rollouts_play_to_the_end_is_the_machines_decision_by_decision(preset, seating):
    # A rollout plays each branch to the round's end with finish_round (whole turns after the one under way);
    # from every kind of position, untraced and with the same streams, it must end exactly where the machine
    # stepping one decision at a time ends: the same cards everywhere, the same counters, the same outcome.
    import numpy as np

    from sim.engine import position as K
    from sim.engine.events import N_EV
    from sim.engine.meld_search import workspace
    from sim.engine.state import G_NCAND, G_TRACE

    checked = 0
    for game in range(3):
        events = sim.play_traced(preset, seating, seed=11, game=game, max_rounds=2)
        kinds = {"deal", "draw", "meld", "add", "discard", "open", "may_i"}
        for index in [i for i, e in enumerate(events) if e["type"] in kinds][::5]:
            if events[index - 1]["type"] == "recover":
                with pytest.raises(ValueError, match=f"part of that decision.*give event {index - 1}"):
                    Position.from_trace(events, index)
                continue
            position = Position.from_trace(events, index)
            ends = []
            for finish in (False, True):
                ks = position.copy().kernel_state()
                ks.g[G_TRACE] = 0
                policy_rng = np.arange(1, 9, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
                deck_rng = np.array([game + 12345], dtype=np.uint64)
                ev, ws = np.zeros((1, N_EV), dtype=np.int32), workspace()
                args = (ks.rules, ks.round, ks.g, ev, ws, ks.kinds, ks.params, policy_rng, deck_rng, ks.turn)
                K.finish_round(*args) if finish else K.advance(*args, -1)
                winner, blocked, rami_sec, points = K.round_result(ks.rules, ks.round, ks.g, ev, ks.turn)
                ends.append((int(winner), int(blocked), bool(rami_sec), tuple(points), ks.g.copy(),
                             [np.array(a).copy() for a in ks.round[:9]], policy_rng.copy(), deck_rng.copy()))
            (a, b) = ends
            assert a[:4] == b[:4]
            # G_NCAND counts the candidate melds of the last listing: scratch, which a whole turn leaves unmade
            # when the policy stops without asking (contrat after the contract), and nothing reads before listing.
            differ = set(np.flatnonzero(a[4] != b[4]).tolist())
            assert differ <= {G_NCAND}, differ
            assert all(np.array_equal(x, y) for x, y in zip(a[5], b[5]))
            assert np.array_equal(a[6], b[6]) and np.array_equal(a[7], b[7])
            checked += 1
    assert checked >= 20


@pytest.fixture(scope="module")
def asked():
    """A traced Rami contrat game whose seats say "Puis-je ?" (greedy asks for a card completing a meld, random
    at random), and the index of its first ``may_i`` event."""
    events = sim.play_traced("contrat", ["greedy", "random", "greedy"], seed=4, max_rounds=2)
    first = next(i for i, e in enumerate(events) if e["type"] == "may_i")
    return events, first


def test_a_contrat_round_with_puis_je_stepped_decision_by_decision_is_the_engines_round(asked):
    events, first = asked
    deal = max(j for j in range(first) if events[j]["type"] == "deal")
    end = _round(events, deal)
    position = Position.from_trace(events, deal)
    assert list(position.play_out().events) == events[deal + 1:end]
    kinds = Counter()
    while position.decision != "over":
        kinds[position.decision] += 1
        if position.decision == "may_i":
            assert position.seat != position.mover
            assert cards.format(position.observe(position.seat).hand) == position.hand(position.seat)
        _, position = position.step()
    # (a blocked round's last event is written when its result is read, after the last decision)
    assert position.events == events[deal:deal + len(position.events)] and len(position.events) >= end - deal - 1
    # Every other seat is asked after a draw from the stock, until one is granted the card (or the limit).
    assert kinds["may_i"] >= sum(1 for e in events[deal:end] if e["type"] == "may_i") > 0


def test_a_position_stands_at_puis_je_and_plays_ask_and_pass(asked):
    events, first = asked
    e = events[first]
    position = Position.from_trace(events, first)
    assert (position.decision, position.seat) == ("may_i", e["seat"])
    assert position.mover != e["seat"]
    ask = f'ask for {e["card"]} ("Puis-je ?")'
    assert position.legal_choices() == [ask, "pass"]
    assert position.step()[0] == ask  # the asker's own strategy asked in the trace
    deal = max(j for j in range(first) if events[j]["type"] == "deal")
    mark = position.event_rows
    asking = position.apply("ask")
    assert asking.events_after(mark)[0] == e
    passing = position.apply("pass")
    assert all(x["type"] != "may_i" or x["seat"] != e["seat"] for x in passing.events_after(mark)[:1])
    for after in (asking, passing):
        _checks_up_to_its_end(events[:deal] + after.events + list(after.play_out().events))
    with pytest.raises(ValueError, match="not a legal choice"):
        position.apply("stock")
    result = rollout(position, n=8, seed=3)
    assert {c.choice for c in result.choices} == {ask, "pass"}
    assert (result.seat, result.decision) == (e["seat"], "may_i")
