"""Advice at positions of traced games (:mod:`sim.advice`).

The backbone: advising a seat its own strategy replays the trace's very next
turn, at every turn of several games. Advice with another strategy is spliced
into the trace and checked move by move by the rules reference.
"""

from __future__ import annotations

from collections import Counter

import pytest
from click.testing import CliRunner

import sim
import strategies as S
from sim import cards, rules
from sim.advice import Advice, advise, describe
from sim.cli import main
from sim.rules.replay import ReplayError, check_trace

# --------------------------------------------------------------- helpers


def turns(events):
    """``(start, end, seat)`` of every turn of a trace, read off the events alone.

    A turn starts after the deal or a discard and ends with its discard (and
    the ``out`` that may follow it), an ``out``, or just before a ``blocked``.
    ``seat`` is ``None`` for a turn that stopped before its player moved.
    """
    found = []
    start = None
    for i, e in enumerate(events):
        t = e["type"]
        if t == "deal":
            start = i + 1
        elif t == "blocked":
            if start is not None and start < i:
                found.append((start, i, _mover(events[start:i])))
            start = None
        elif t == "out":
            found.append((start, i + 1, e["seat"]))
            start = None
        elif t == "discard" and events[i + 1]["type"] != "out":
            found.append((start, i + 1, e["seat"]))
            start = i + 1
    return found


def _mover(moves):
    return next((m["seat"] for m in moves if m["type"] in ("draw", "open", "meld", "discard", "out")), None)


def check_shape(advice: Advice) -> None:
    """The advised turn is a turn: it draws (or starts the round), ends with a discard or out, throws a held card."""
    moves = list(advice.moves)
    if advice.outcome.startswith("blocked"):
        assert not any(m["type"] in ("discard", "out") for m in moves)
        return
    own = [m for m in moves if m["type"] not in ("restock", "may_i")]
    assert all(m["seat"] == advice.seat for m in own)
    first_player_start = advice.turn == 0 and advice.draw.source is None
    assert own[0]["type"] == "draw" or (first_player_start and own[0]["type"] in ("open", "meld", "discard"))
    assert own[-1]["type"] in ("discard", "out")
    thrown = [m for m in own if m["type"] == "discard"]
    chosen = [d for d in advice.discards if d.chosen]
    if thrown:
        (discard,) = thrown
        held = Counter(cards.parse(advice.hand_after_draw))
        recovered = any(m["type"] == "recover" for m in own)
        assert held[cards.parse(discard["card"])[0]] > 0 or (recovered and discard["card"] == "★")
        assert [d.card for d in chosen] == [discard["card"]]
    else:
        assert chosen == []


def splice_is_legal(events, advice: Advice) -> None:
    """The trace up to the position followed by the advised moves breaks no rule."""
    spliced = list(events[: advice.start]) + list(advice.moves)
    with pytest.raises(ReplayError, match=rf"event {len(spliced)} \(end of trace\)"):
        check_trace(spliced)


# --------------------------------------------- the seat's own strategy replays

GAMES = [
    ("rami51", ["greedy", "expert", "random"], 3),
    ("rami51", ["expert", "random", "greedy", "expert"], 8),
    ("rami51-ducale", ["cautious", "expert"], 7),
    # Two random players reach a reshuffle of the stock: the deck stream must follow.
    ("rami51", ["random", "random"], 0),
]


@pytest.mark.parametrize("preset,seats,seed", GAMES, ids=lambda v: str(v))
def test_the_seats_own_strategy_replays_every_turn_of_the_trace(preset, seats, seed):
    events = sim.play_traced(preset, seats, seed=seed, max_rounds=2)
    found = turns(events)
    assert len(found) > 40
    if seats == ["random", "random"]:
        assert any(e["type"] == "restock" for e in events)
    for k, (start, end, seat) in enumerate(found):
        index = start + k % (end - start)  # any event of the turn points at it
        advice = advise(events, index, seats[seat])
        assert (advice.start, advice.seat, advice.strategy) == (start, seat, seats[seat])
        assert advice.moves == tuple(events[start:end]) == advice.played
        assert advice.outcome == ("out" if events[end - 1]["type"] == "out" else "next")
        draw = advice.draw
        if draw.source == "discard":
            assert draw.may_take and draw.card == draw.top
        if seats[seat] != "random" and draw.source is not None and draw.top is not None:
            # choose_take, read off the reasons: take a legal top that completes
            # a meld, fits the table or is a joker (expert: or is near a meld).
            wanted = draw.completes or draw.fits_table or draw.top == "★"
            if seats[seat] == "expert":
                wanted = wanted or draw.near > 0
            assert (draw.source == "discard") == (draw.may_take and wanted)
        if advice.discards and advice.discards[0].score is not None:
            # The Python weighing picks what the compiled choose_discard threw.
            best = max(d.score for d in advice.discards)
            assert next(d for d in advice.discards if d.score == best).chosen


def test_a_scripted_deal_replays_through_a_reshuffle():
    # A scripted deal does not draw from the round's deck stream; the
    # reshuffle after the stock runs out must draw as the trace did.
    shuffled = sim.play_traced("rami51", ["random", "random"], seed=1, max_rounds=1)
    deal = {"hands": shuffled[1]["hands"], "pile": shuffled[1]["pile"]}
    events = sim.play_traced("rami51", ["random", "random"], seed=1, max_rounds=1, deal=deal)
    assert events[1]["stock"] != shuffled[1]["stock"]
    restock = next(i for i, e in enumerate(events) if e["type"] == "restock" and e["mode"] == "reshuffle")
    after = [(start, end) for start, end, _seat in turns(events) if end > restock]
    assert len(after) > 3
    for start, end in after:
        assert advise(events, start, "random").moves == tuple(events[start:end])


def test_every_event_of_a_turn_points_at_its_start():
    events = sim.play_traced("rami51", ["greedy", "expert"], seed=2, max_rounds=1)
    start, end, seat = turns(events)[6]
    for index in range(start, end):
        advice = advise(events, index, "greedy")
        assert (advice.start, advice.turn, advice.seat) == (start, 6, seat)
    assert advise(events, 1, "greedy").turn == 0  # the deal: the round's first turn


# ------------------------------------------------------------ other strategies


@pytest.mark.parametrize("strategy", ["expert", "cautious", "random", "greedy:open_extra=20,jokers=2"])
def test_advice_with_another_strategy_is_a_legal_turn(strategy):
    events = sim.play_traced("rami51", ["greedy", "random", "expert"], seed=5, max_rounds=2)
    for start, _end, _seat in turns(events)[::4]:
        advice = advise(events, start, strategy)
        assert advice.strategy == S.get(strategy).name
        check_shape(advice)
        splice_is_legal(events, advice)


def test_the_discard_weighing_of_a_scripted_hand():
    # Seat 0 holds two kings (K♣ K♦) and no other king is in sight: each
    # king is near a set, the missing K♥ and K♠ two unseen copies each, so
    # near = 4. Nothing else of clubs or diamonds sits next to them.
    deal = {
        "hands": [
            "K♣ K♦ 7♠ 8♠ 2♥ 4♥ 9♦ 3♣ 5♦ 6♣ 10♥ A♠ 5♥",
            "2♣ 4♣ 7♣ 8♦ 10♦ 3♥ 6♥ 8♥ J♥ 2♠ 4♠ 6♠ 9♠",
        ],
        "pile": "9♣",
        "stock": "2♦",
    }
    events = sim.play_traced("rami51", ["expert", "greedy"], seed=4, max_rounds=1, deal=deal)
    advice = advise(events, 1, "expert")
    assert advice.hand == "3♣ 6♣ K♣ 5♦ 9♦ K♦ 2♥ 4♥ 5♥ 10♥ A♠ 7♠ 8♠"
    # 9♣ builds only a near-meld, which must_use forbids taking: the stock's 2♦.
    assert (advice.draw.source, advice.draw.card, advice.draw.top) == ("stock", "2♦", "9♣")
    assert not advice.draw.may_take and not advice.draw.completes and not advice.draw.fits_table
    assert advice.draw.near == 4.0
    weighed = {d.card: d for d in advice.discards}
    assert len(weighed) == 14
    king = weighed["K♣"]
    assert (king.penalty, king.in_meld, king.fits_table, king.near, king.feeds) == (10, False, False, 4.0, 0.0)
    assert king.score == 10 - 2.5 * 4.0  # expert: near_weight 2.5, feed_weight 3
    assert weighed["A♠"].penalty == 11 and weighed["A♠"].score == 11.0
    assert advice.discarded.card == "A♠" and advice.moves[-1] == {"type": "discard", "round": 0, "seat": 0,
                                                                    "card": "A♠"}
    assert advice.opening == 0 and advice.threshold == 51 and not advice.opened
    assert advice.melds == ()
    text = str(advice)
    assert text.startswith(f"Seat 0, round 0, turn 0 (expert): hand {advice.hand}\n  draws 2♦ from the stock\n")
    assert "throws A♠ (penalty 11, fits nothing, near 0.0, feeds 0.0, score 11.0 — the highest)" in text
    assert "leaves the pile's top 9♣" in text and "draws 2♦ from the stock" in text
    assert "the rules forbid taking the top here (discard_take = must_use)" in text
    assert "best opening 0 < threshold 51: cannot open yet" in text


def test_the_printed_advice_shows_the_hand_and_the_weighing():
    events = sim.play_traced("rami51", ["greedy", "expert", "random"], seed=3, max_rounds=1)
    for start, _end, seat in turns(events)[5:30:6]:
        advice = advise(events, start, "expert")
        text = str(advice)
        assert text.splitlines()[0] == f"Seat {seat}, round 0, turn {advice.turn} (expert): hand {advice.hand}"
        assert all(c.text() in advice.hand for c in cards.parse(advice.hand))
        assert "Why:" in text and "melds of the hand" in text
        if advice.discards:
            assert "discard weighing (the highest score is thrown):" in text
            assert "<- thrown" in text and "— the highest" in text
            for d in advice.discards:
                assert f"{d.card:>3}  penalty {d.penalty:>2}" in text
    random = str(advise(events, turns(events)[4][0], "random"))
    assert "this strategy throws at random" in random and "a random choice" in random


# ------------------------------------------------------------- bad positions


def test_an_index_outside_any_turn_is_refused():
    events = sim.play_traced("rami51", ["greedy", "greedy"], seed=1, max_rounds=1)
    end = next(i for i, e in enumerate(events) if e["type"] == "round_end")
    cases = [
        (-1, "outside the trace"),
        (len(events), "outside the trace"),
        (0, r"event 0 \(game_start\) is outside any turn"),
        (end, rf"event {end} \(round_end\) is outside any turn"),
        (len(events) - 1, r"\(game_end\) is outside any turn"),
        ("3", "whole number"),
    ]
    for index, message in cases:
        with pytest.raises(ValueError, match=message):
            advise(events, index)
    with pytest.raises(ValueError, match="starting with its game_start"):
        advise(events[1:], 3)


def test_a_trace_the_engine_does_not_play_is_refused():
    events = sim.play_traced("rami51", ["greedy", "greedy"], seed=1, max_rounds=1)
    start, _end, _seat = turns(events)[5]
    first_discard = next(i for i, e in enumerate(events) if e["type"] == "discard")
    edited = [dict(e) for e in events]
    edited[first_discard]["card"] = "K♥" if events[first_discard]["card"] != "K♥" else "Q♥"
    with pytest.raises(ValueError, match="the trace cannot be replayed"):
        advise(edited, start)
    # A random seat's choices come from the seed's streams: another seed plays other moves.
    events = sim.play_traced("rami51", ["random", "random"], seed=1, max_rounds=1)
    start, _end, _seat = turns(events)[5]
    assert advise(events, start, "random").moves == advise(events, start, "random").played
    reseeded = [dict(events[0], seed=2), *events[1:]]
    with pytest.raises(ValueError, match="the trace cannot be replayed"):
        advise(reseeded, start)


# --------------------------------------------------------- contrat and basic


def test_contrat_advice_follows_may_i_and_names_the_contract():
    seats = ["expert", "greedy", "random", "cautious"]
    events = sim.play_traced("contrat", seats, seed=1, max_rounds=3)
    may_i = [i for i, e in enumerate(events) if e["type"] == "may_i"]
    assert may_i
    for index in may_i[:6]:
        advice = advise(events, index, seats[(events[index - 1]["seat"])])
        # The "Puis-je ?" belongs to the turn of the player who drew.
        assert advice.seat == events[index - 1]["seat"] != events[index]["seat"]
        assert advice.moves == advice.played and events[index] in advice.moves
        assert advice.contract == rules.preset("contrat").contract(advice.round % 7 + 1)
        assert advice.contract_ready in (True, False) and advice.opening is None
        assert "contract" in str(advice)
    for start, _end, _seat in turns(events)[::9]:
        advice = advise(events, start, "cautious")
        check_shape(advice)
        splice_is_legal(events, advice)


def test_basic_rummy_advice_and_a_cycle_claimed_only_for_the_seats_own_play():
    events = sim.play_traced("basic", ["greedy", "greedy"], seed=4, max_rounds=3)
    cycle = next(i for i, e in enumerate(events) if e["type"] == "blocked" and e["reason"] == "cycle")
    assert events[cycle - 1]["type"] == "restock"
    same = advise(events, cycle - 1, "greedy")
    assert same.outcome == "blocked: cycle" and same.moves == (events[cycle - 1],)
    assert "the round stops (blocked: cycle)" in str(same)
    # Another strategy may leave the loop: the turn is played out.
    other = advise(events, cycle - 1, "random")
    assert other.outcome == "next" and other.moves[0]["type"] == "restock"
    check_shape(other)
    for start, _end, seat in turns(events)[:cycle:7]:
        advice = advise(events, start, "greedy")
        assert advice.moves == advice.played and advice.threshold == 0
        check_shape(advise(events, start, "expert"))


# --------------------------------------------------------------- entry points


def test_sim_exports_advise_and_describe_reads_events():
    assert sim.advise is advise
    events = sim.play_traced("rami51", ["greedy", "greedy"], seed=1, max_rounds=1)
    assert describe(events[2]).startswith("seat 0 draws ")
    assert describe(events[1]).startswith("round 1 is dealt; seat 0 plays first")


def test_the_cli_prints_advice_and_lists_events():
    runner = CliRunner()
    args = ["advise", "--strategies", "greedy,expert,random", "--seed", "3", "--max-rounds", "1"]
    listed = runner.invoke(main, args)
    assert listed.exit_code == 0, listed.output
    assert "     1  deal" in listed.output
    result = runner.invoke(main, [*args, "--event", "9", "--strategy", "expert"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Seat 0, round 0, turn 3 (expert): hand ")
    assert "discard weighing" in result.output
    bad = runner.invoke(main, [*args, "--event", "0"])
    assert bad.exit_code != 0 and "outside any turn" in bad.output
